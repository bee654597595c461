// SPDX-License-Identifier: GPL-2.0
/*
 * The loaded objects and their unwind tables, built outside the signal
 * handler (at start, and when task_end/idle notice a dlopen) so that the
 * handler only ever does binary searches over finished, immutable arrays.
 *
 * Tables are built once per object and kept in a process-wide cache for the
 * life of the library: a snapshot that a detector's handler may be reading
 * can then never lose a table under it, and a library dlopen'ed again at the
 * same address reuses its table.  Snapshots (sorted arrays of cache entries)
 * are reference counted; each detector holds one and swaps it only on its
 * own thread, outside the handler.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

#include "unwind/arm64_leaf.h"
#include "unwind/sigreturn.h"
#include "util/elf_util.h"
#include "stall_internal.h"

pthread_mutex_t stall_lock = PTHREAD_MUTEX_INITIALIZER;

static struct stall_objects *current;	/* newest snapshot (holds a ref), under stall_lock */
static struct stall_object *cache;	/* every object ever built, under stall_lock */

struct obj_info {
	char *name;
	uint64_t bias;
	ElfW(Phdr) *phdr;
	size_t phnum;
	bool is_main, is_vdso;
};

struct collect {
	struct obj_info *v;
	size_t nr, cap;
	unsigned long long adds, subs;
	bool failed;
};

static int collect_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct collect *c = data;
	struct obj_info *oi;
	uintptr_t vdso = getauxval(AT_SYSINFO_EHDR);
	size_t i;

	if (c->nr == 0 && size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		c->adds = info->dlpi_adds;
		c->subs = info->dlpi_subs;
	}
	if (c->nr == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 32;
		struct obj_info *v = realloc(c->v, cap * sizeof(*v));

		if (!v) {
			c->failed = true;
			return 1;
		}
		c->v = v;
		c->cap = cap;
	}
	oi = &c->v[c->nr];
	memset(oi, 0, sizeof(*oi));
	oi->bias = info->dlpi_addr;
	oi->phnum = info->dlpi_phnum;
	/* The main program comes first with an empty name (glibc). */
	oi->is_main = c->nr == 0 && (!info->dlpi_name || !info->dlpi_name[0]);
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && p->p_offset == 0 && vdso &&
		    info->dlpi_addr + p->p_vaddr == vdso)
			oi->is_vdso = true;
	}
	oi->name = strdup(info->dlpi_name ? info->dlpi_name : "");
	oi->phdr = malloc(info->dlpi_phnum * sizeof(ElfW(Phdr)));
	if (!oi->name || !oi->phdr) {
		free(oi->name);
		free(oi->phdr);
		c->failed = true;
		return 1;
	}
	memcpy(oi->phdr, info->dlpi_phdr, info->dlpi_phnum * sizeof(ElfW(Phdr)));
	c->nr++;
	return 0;
}

static void collect_free(struct collect *c)
{
	size_t i;

	for (i = 0; i < c->nr; i++) {
		free(c->v[i].name);
		free(c->v[i].phdr);
	}
	free(c->v);
}

static int counters_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	unsigned long long *v = data;

	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs)) {
		v[0] = info->dlpi_adds;
		v[1] = info->dlpi_subs;
	}
	return 1;	/* the counters come with every entry: one is enough */
}

bool stall_objects_changed(const struct stall_objects *o)
{
	unsigned long long v[2] = { 0, 0 };

	dl_iterate_phdr(counters_cb, v);
	return !o || v[0] != o->adds || v[1] != o->subs;
}

static void hex(const uint8_t *id, size_t len, char *out)
{
	static const char digits[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = digits[id[i] >> 4];
		out[2 * i + 1] = digits[id[i] & 15];
	}
	out[2 * len] = 0;
}

/* The build-id from the object's PT_NOTE segments as mapped: what is really running. */
static void mapped_build_id(const struct obj_info *oi, char *out)
{
	size_t i;

	out[0] = 0;
	for (i = 0; i < oi->phnum; i++) {
		const ElfW(Phdr) *p = &oi->phdr[i];
		const uint8_t *n = (const uint8_t *)(uintptr_t)(oi->bias + p->p_vaddr);
		size_t off = 0;

		if (p->p_type != PT_NOTE)
			continue;
		while (off + sizeof(ElfW(Nhdr)) <= p->p_memsz) {
			const ElfW(Nhdr) *nh = (const void *)(n + off);
			size_t namesz = (nh->n_namesz + 3) & ~3u, descsz = (nh->n_descsz + 3) & ~3u;
			const uint8_t *name = n + off + sizeof(*nh);

			if (off + sizeof(*nh) + namesz + descsz > p->p_memsz)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && nh->n_descsz && nh->n_descsz <= 20) {
				hex(name + namesz, nh->n_descsz, out);
				return;
			}
			off += sizeof(*nh) + namesz + descsz;
		}
	}
}

/*
 * Its CFI's rows, and on arm64 those of the code without CFI whose frame is
 * known: the vDSO's signal trampoline and frameless leaves (its clock
 * functions), PLT entries (src/unwind/sigreturn.c, arm64_leaf.c).  Without
 * them a stall sampled in clock_gettime's vDSO code stepped by frame
 * pointer, which skips the caller of a leaf.
 */
static int table_of(Elf *elf, struct unwind_table *t)
{
	int err = cfi_build_table(elf, NULL, t);

	if (!err && (sigreturn_mark(elf, t) || arm64_leaf_mark(elf, t))) {
		unwind_table_free(t);
		err = -ENOMEM;
	}
	return err;
}

/* Open fd as ELF and build its table if its build-id matches the mapped one. */
static int table_from_fd(int fd, const char *want_id, struct unwind_table *t)
{
	uint8_t id[STITCH_BUILD_ID_MAX];
	char idhex[2 * STITCH_BUILD_ID_MAX + 1];
	Elf *elf;
	int err = -ENOENT;

	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -EINVAL;
	hex(id, elf_build_id(elf, id), idhex);
	/* A file replaced on disk since it was mapped would unwind wrongly. */
	if (!strcmp(idhex, want_id))
		err = table_of(elf, t);
	elf_end(elf);
	return err;
}

static int table_from_path(const char *path, const char *want_id, struct unwind_table *t)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), err;

	if (fd < 0)
		return -errno;
	err = table_from_fd(fd, want_id, t);
	close(fd);
	return err;
}

/*
 * The vDSO has no file: parse its mapped image.  The kernel maps the whole
 * image in pages, section headers included, but they lie past the PT_LOAD
 * segment's p_filesz (Linux 6.18: segment 0x1522 bytes, headers at 5600..6688
 * of an 8 KiB image): the image ends at the end of the segment's last page.
 */
static int table_from_vdso(const struct obj_info *oi, struct unwind_table *t)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	size_t i, mapped = 0, need, page = (size_t)sysconf(_SC_PAGESIZE);
	Elf *elf;
	int err;

	for (i = 0; i < oi->phnum; i++)
		if (oi->phdr[i].p_type == PT_LOAD && oi->phdr[i].p_offset == 0)
			mapped = (oi->phdr[i].p_filesz + page - 1) & ~(page - 1);
	need = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	if (!mapped || need > mapped)
		return -ENOENT;
	elf = elf_memory((char *)eh, mapped);
	if (!elf)
		return -EINVAL;
	err = table_of(elf, t);
	elf_end(elf);
	return err;
}

static struct stall_object *object_build(const struct obj_info *oi)
{
	struct stall_object *o = calloc(1, sizeof(*o));
	char path[PATH_MAX];
	size_t i;

	if (!o)
		return NULL;
	o->bias = oi->bias;
	o->lo = UINT64_MAX;
	for (i = 0; i < oi->phnum; i++) {
		const ElfW(Phdr) *p = &oi->phdr[i];

		if (p->p_type != PT_LOAD || !(p->p_flags & PF_X))
			continue;
		if (oi->bias + p->p_vaddr < o->lo)
			o->lo = oi->bias + p->p_vaddr;
		if (oi->bias + p->p_vaddr + p->p_memsz > o->hi)
			o->hi = oi->bias + p->p_vaddr + p->p_memsz;
	}
	if (o->lo >= o->hi) {	/* no code: nothing to unwind or name */
		free(o);
		return NULL;
	}
	mapped_build_id(oi, o->build_id);
	if (oi->is_main) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

		path[n > 0 ? n : 0] = 0;
		o->name = strdup(n > 0 ? path : "[exe]");
		if (table_from_path("/proc/self/exe", o->build_id, &o->table) < 0)
			o->table.nr = 0;
	} else if (oi->is_vdso) {
		o->name = strdup("[vdso]");
		if (table_from_vdso(oi, &o->table) < 0)
			o->table.nr = 0;
	} else {
		o->name = strdup(oi->name);
		/*
		 * The path first (works unprivileged), then the mapping itself
		 * (needs CAP_SYS_ADMIN, but finds a deleted or replaced file).
		 */
		if (table_from_path(oi->name, o->build_id, &o->table) < 0) {
			snprintf(path, sizeof(path), "/proc/self/map_files/%lx-%lx",
				 (unsigned long)(o->lo & ~4095ul),
				 (unsigned long)((o->hi + 4095) & ~4095ul));
			if (table_from_path(path, o->build_id, &o->table) < 0)
				o->table.nr = 0;
		}
	}
	if (!o->name) {
		unwind_table_free(&o->table);
		free(o);
		return NULL;
	}
	return o;
}

/* A cached object for oi, or a new one; NULL if it has no code or memory ran out. */
static struct stall_object *object_get(const struct obj_info *oi)
{
	char id[2 * 20 + 1];
	struct stall_object *o;

	mapped_build_id(oi, id);
	for (o = cache; o; o = o->next) {
		const char *name = oi->is_main ? NULL : oi->is_vdso ? "[vdso]" : oi->name;

		if (o->bias == oi->bias && !strcmp(o->build_id, id) &&
		    (!name || !strcmp(o->name, name)))
			return o;
	}
	o = object_build(oi);
	if (o) {
		o->next = cache;
		cache = o;
	}
	return o;
}

static int cmp_lo(const void *a, const void *b)
{
	const struct stall_object *x = *(struct stall_object *const *)a;
	const struct stall_object *y = *(struct stall_object *const *)b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Under stall_lock. */
static struct stall_objects *snapshot_build(void)
{
	struct collect c = { 0 };
	struct stall_objects *s;
	size_t i;

	elf_util_init();
	dl_iterate_phdr(collect_cb, &c);
	s = calloc(1, sizeof(*s));
	if (!s || c.failed || !(s->obj = calloc(c.nr ? c.nr : 1, sizeof(*s->obj)))) {
		free(s);
		collect_free(&c);
		return NULL;
	}
	s->adds = c.adds;
	s->subs = c.subs;
	for (i = 0; i < c.nr; i++) {
		struct stall_object *o = object_get(&c.v[i]);

		if (o)
			s->obj[s->nr++] = o;
	}
	qsort(s->obj, s->nr, sizeof(*s->obj), cmp_lo);
	s->refs = 1;
	collect_free(&c);
	return s;
}

static void snapshot_put_locked(struct stall_objects *s)
{
	if (s && --s->refs == 0) {
		free(s->obj);
		free(s);
	}
}

struct stall_objects *stall_objects_get(void)
{
	struct stall_objects *s;

	pthread_mutex_lock(&stall_lock);
	if (!current || stall_objects_changed(current)) {
		s = snapshot_build();
		if (s) {
			snapshot_put_locked(current);
			current = s;
		}
	}
	s = current;
	if (s)
		s->refs++;
	pthread_mutex_unlock(&stall_lock);
	return s;
}

void stall_objects_put(struct stall_objects *s)
{
	pthread_mutex_lock(&stall_lock);
	snapshot_put_locked(s);
	pthread_mutex_unlock(&stall_lock);
}

void stall_objects_refresh(struct stitch_stall *d)
{
	struct stall_objects *old = d->objs, *s;

	if (!d->need_refresh && !stall_objects_changed(old))
		return;
	d->need_refresh = 0;
	s = stall_objects_get();
	if (!s)
		return;
	if (s == old) {
		stall_objects_put(s);
		return;
	}
	/* The handler (same thread) sees either pointer, both complete. */
	__atomic_store_n(&d->objs, s, __ATOMIC_RELEASE);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	stall_objects_put(old);
}

/* Async-signal-safe: a binary search over an immutable array. */
const struct stall_object *stall_object_find(const struct stall_objects *s, uint64_t pc)
{
	size_t lo = 0, hi;

	if (!s)
		return NULL;
	hi = s->nr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct stall_object *o = s->obj[mid];

		if (pc < o->lo)
			hi = mid;
		else if (pc >= o->hi)
			lo = mid + 1;
		else
			return o;
	}
	return NULL;
}

/* At unload: nothing can use the tables once the library's code is gone. */
__attribute__((destructor)) static void stall_objects_fini(void)
{
	struct stall_object *o;

	pthread_mutex_lock(&stall_lock);
	if (current && current->refs == 1) {
		snapshot_put_locked(current);
		current = NULL;
		while ((o = cache)) {
			cache = o->next;
			unwind_table_free(&o->table);
			free(o->name);
			free(o);
		}
	}
	pthread_mutex_unlock(&stall_lock);
}
