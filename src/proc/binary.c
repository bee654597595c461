// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "proc/binary.h"
#include "util/array.h"
#include "util/clock.h"
#include "symbolize/debuginfod_fetch.h"
#include "symbolize/symbolize.h"
#include "unwind/entry_end.h"
#include "unwind/sigreturn.h"
#include "unwind/table_cache.h"
#include "unwind/arm64_leaf.h"
#include "util/arch.h"

struct file_key {
	dev_t dev;
	ino_t ino;
};

static uint64_t file_hash(const struct file_key *k)
{
	return hash_u64((uint64_t)k->dev * 0x9e3779b97f4a7c15ULL ^ (uint64_t)k->ino);
}

static bool file_eq(const struct hmap_node *n, const void *key)
{
	const struct binary *b = (const struct binary *)n;
	const struct file_key *k = key;

	return b->dev == k->dev && b->ino == k->ino;
}

int binary_cache_init(struct binary_cache *c)
{
	memset(c, 0, sizeof(*c));
	elf_util_init();
	if (hmap_init(&c->by_build_id, 256))
		return -ENOMEM;
	if (hmap_init(&c->by_file, 256)) {
		hmap_free(&c->by_build_id);
		return -ENOMEM;
	}
	return 0;
}

static struct binary *of_build_id_node(const struct hmap_node *n)
{
	return (struct binary *)((const char *)n - offsetof(struct binary, by_build_id));
}

/*
 * Its path too: copies of one file (a container's image, a build's
 * binaries copied around) share a build ID, and looked up by it alone they
 * were one chain compared path by path (6% of an agent's CPU, 21 of 327
 * samples, with 50 copies of one binary in use).
 */
static uint64_t held_hash(const uint8_t *id, size_t len, const char *path)
{
	return hash_bytes(path, strlen(path), hash_bytes(id, len, 0));
}

static void build_id_held(struct binary_cache *c, struct binary *b)
{
	if (b->in_by_build_id || !b->build_id_len || b->fd < 0)
		return;
	hmap_insert(&c->by_build_id, &b->by_build_id,
		    held_hash(b->build_id, b->build_id_len, b->path));
	b->in_by_build_id = true;
}

static void build_id_let_go(struct binary_cache *c, struct binary *b)
{
	if (!b->in_by_build_id)
		return;
	hmap_remove(&c->by_build_id, &b->by_build_id);
	b->in_by_build_id = false;
}

struct build_id_key {
	const uint8_t *id;
	size_t len;
	const char *path;
	dev_t root_dev;
	ino_t root_ino;
};

static bool build_id_eq(const struct hmap_node *n, const void *key)
{
	const struct binary *b = of_build_id_node(n);
	const struct build_id_key *k = key;

	return b->build_id_len == k->len && !memcmp(b->build_id, k->id, k->len) &&
	       b->fd >= 0 && b->root_dev == k->root_dev && b->root_ino == k->root_ino &&
	       !strcmp(b->path, k->path);
}

struct binary *binary_find_held(struct binary_cache *c, const uint8_t *id, size_t len,
				const char *path, dev_t root_dev, ino_t root_ino)
{
	struct build_id_key k = { id, len, path, root_dev, root_ino };
	struct hmap_node *n;

	if (!len)
		return NULL;
	n = hmap_find(&c->by_build_id, held_hash(id, len, path), build_id_eq, &k);
	return n ? of_build_id_node(n) : NULL;
}

static void root_unpin(struct binary_cache *c, struct binary *b);

static void binary_free(struct binary_cache *c, struct binary *b)
{
	if (!b)
		return;
	build_id_let_go(c, b);
	root_unpin(c, b);
	if (b->syms)
		sym_source_free(b->syms);
	unwind_table_free(&b->table);
	free((void *)b->hdr.table);
	free(b->loads);
	if (b->elf)
		elf_end(b->elf);
	if (b->fd >= 0)
		close(b->fd);
	free(b->image);
	free(b->path);
	free(b->root);
	free(b->v8);
	free(b->hotspot);
	free(b);
}

void binary_cache_free(struct binary_cache *c)
{
	struct hmap_node *n, *next;
	size_t i;

	for (i = 0; i < c->by_file.nbuckets; i++) {
		for (n = c->by_file.buckets[i]; n; n = next) {
			next = n->next;
			binary_free(c, (struct binary *)n);
		}
	}
	hmap_free(&c->by_file);
	hmap_free(&c->by_build_id);
	binary_free(c, c->vdso);
	c->vdso = NULL;
	for (i = 0; i < c->nr_roots; i++)
		close(c->roots[i].fd);
	free(c->roots);
	c->roots = NULL;
	c->nr_roots = c->cap_roots = 0;
}

/*
 * Hold a process's root open for b (see struct binary), once per root
 * directory: "" if it is ours, or if it cannot be opened (the process is
 * gone: its files are unreachable anyway).  -ENOMEM only when out of memory.
 */
static int root_pin(struct binary_cache *c, struct binary *b, const char *root)
{
	struct stat ours, theirs;
	char buf[64], *name;
	size_t i;
	int fd;

	b->root_fd = -1;
	/* Ours: "/" as we see it (no identity, if it cannot be stat'ed: never matched) */
	if (stat("/", &ours) != 0)
		ours.st_dev = ours.st_ino = 0;
	b->root_dev = ours.st_dev;
	b->root_ino = ours.st_ino;
	fd = root && root[0] ? open(root, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	if (fd >= 0 && (fstat(fd, &theirs) != 0 || !ours.st_ino ||
			(theirs.st_dev == ours.st_dev && theirs.st_ino == ours.st_ino))) {
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		name = strdup("");
		goto out;
	}
	b->root_dev = theirs.st_dev;
	b->root_ino = theirs.st_ino;
	for (i = 0; i < c->nr_roots; i++)
		if (c->roots[i].dev == theirs.st_dev && c->roots[i].ino == theirs.st_ino)
			break;
	if (i == c->nr_roots &&
	    array_reserve((void **)&c->roots, &c->cap_roots, c->nr_roots + 1, sizeof(*c->roots), 8)) {
		close(fd);
		return -ENOMEM;
	}
	if (i < c->nr_roots) {
		close(fd);
		fd = c->roots[i].fd;
	} else {
		c->roots[c->nr_roots++] = (struct pinned_root){ theirs.st_dev, theirs.st_ino, fd, 0 };
	}
	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", fd);
	name = strdup(buf);
	if (name) {
		c->roots[i].refs++;
		b->root_fd = fd;
	} else if (!c->roots[i].refs) {
		close(fd);
		c->roots[i] = c->roots[--c->nr_roots];
	}
out:
	if (!name)
		return -ENOMEM;
	free(b->root);
	b->root = name;
	return 0;
}

/* b no longer needs its root: closed when no binary does. */
static void root_unpin(struct binary_cache *c, struct binary *b)
{
	size_t i;

	if (b->root_fd < 0)
		return;
	for (i = 0; i < c->nr_roots; i++) {
		if (c->roots[i].fd != b->root_fd)
			continue;
		if (!--c->roots[i].refs) {
			close(c->roots[i].fd);
			c->roots[i] = c->roots[--c->nr_roots];
		}
		break;
	}
	b->root_fd = -1;
}

static struct binary *binary_new(struct binary_cache *c, const char *path, const char *root)
{
	struct binary *b = calloc(1, sizeof(*b));
	const char *slash;

	if (!b)
		return NULL;
	b->fd = -1;
	b->root_fd = -1;
	b->path = strdup(path ? path : "[unknown]");
	if (!b->path || root_pin(c, b, root) != 0) {
		binary_free(c, b);
		return NULL;
	}
	slash = strrchr(b->path, '/');
	b->name = slash && slash[1] ? slash + 1 : b->path;
	return b;
}

const struct v8_meta *binary_v8(struct binary *b)
{
	struct v8_meta m;
	char why[160];
	int err;

	/* Not checked without its file (let go, binary_get_fd gives it back). */
	if (!b || b->v8_checked || !b->elf)
		return b ? b->v8 : NULL;
	b->v8_checked = true;
	err = v8_meta_read(b->elf, &m, why, sizeof(why));
	if (err == -ENOTSUP)
		fprintf(stderr, "stitch: %s (V8): JavaScript frames not named: %s\n", b->path, why);
	else if (!err && why[0])
		fprintf(stderr, "stitch: %s (V8): functions inlined into optimized code not shown: %s\n",
			b->path, why);
	if (err)
		return NULL;
	b->v8 = malloc(sizeof(*b->v8));
	if (b->v8)
		*b->v8 = m;
	return b->v8;
}

const struct hotspot_syms *binary_hotspot(struct binary *b)
{
	struct hotspot_syms s;

	if (!b || b->hotspot_checked || !b->elf)
		return b ? b->hotspot : NULL;
	b->hotspot_checked = true;
	if (hotspot_syms_read(b->elf, &s))
		return NULL;
	b->hotspot = malloc(sizeof(*b->hotspot));
	if (b->hotspot)
		*b->hotspot = s;
	return b->hotspot;
}

static int binary_open_elf(struct binary_cache *c, struct binary *b)
{
	if (b->image)
		return 0;
	b->elf = elf_begin(b->fd, ELF_C_READ_MMAP, NULL);
	if (!b->elf || elf_kind(b->elf) != ELF_K_ELF)
		return -ENOEXEC;
	b->build_id_len = elf_build_id(b->elf, b->build_id);
	build_id_held(c, b);
	return 0;
}

static void syms_drop(struct binary_cache *c, struct binary *b);

/*
 * Its file, libelf's map of it and its root let go (its symbols first,
 * which read them): kept past its processes for its table alone, it held
 * a container's filesystem busy, umount failing with EBUSY for as long as
 * the agent ran.  binary_get_fd() gives it the file of the next process
 * that maps it.
 */
static void file_close(struct binary_cache *c, struct binary *b)
{
	if (b->image || b->fd < 0)
		return;
	build_id_let_go(c, b);
	syms_drop(c, b);
	if (b->elf)
		elf_end(b->elf);
	b->elf = NULL;
	close(b->fd);
	b->fd = -1;
	root_unpin(c, b);
	c->files_closed++;
}

struct binary *binary_get_fd(struct binary_cache *c, int fd, const char *path, const char *root)
{
	uint64_t size;
	struct file_key key;
	struct hmap_node *n;
	struct binary *b;
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	key.dev = st.st_dev;
	key.ino = st.st_ino;
	size = st.st_size > 0 ? (uint64_t)st.st_size : 0;
	n = hmap_find(&c->by_file, file_hash(&key), file_eq, &key);
	if (n) {
		b = (struct binary *)n;
		if (b->fd >= 0 || b->image) {
			close(fd);
			return b;
		}
		/* Kept for its table, its file let go: this process's is the same. */
		b->fd = fd;
		b->last_mapped_ns = mono_ns();
		if (root_pin(c, b, root) != 0 || binary_open_elf(c, b) != 0)
			file_close(c, b);
		return b;
	}
	b = binary_new(c, path, root);
	if (!b) {
		close(fd);
		return NULL;
	}
	b->fd = fd;
	b->size = size;
	b->last_mapped_ns = mono_ns();
	b->dev = key.dev;
	b->ino = key.ino;
	if (binary_open_elf(c, b) != 0) {
		binary_free(c, b);
		return NULL;
	}
	hmap_insert(&c->by_file, &b->node, file_hash(&key));
	return b;
}

/* Size of an in-memory ELF image from its program headers. */
static size_t vdso_image_size(const unsigned char *base)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	size_t end = 0, i;

	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return 0;
	for (i = 0; i < eh->e_phnum; i++) {
		const Elf64_Phdr *ph = (const Elf64_Phdr *)(base + eh->e_phoff + i * eh->e_phentsize);

		if (ph->p_type == PT_LOAD && ph->p_offset + ph->p_filesz > end)
			end = ph->p_offset + ph->p_filesz;
	}
	/* Section headers usually sit past the loaded part. */
	if (eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize > end)
		end = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	return end;
}

struct binary *binary_get_vdso(struct binary_cache *c)
{
	const unsigned char *base = (const unsigned char *)getauxval(AT_SYSINFO_EHDR);
	struct binary *b;
	size_t size;

	if (c->vdso)
		return c->vdso;
	if (!base)
		return NULL;
	size = vdso_image_size(base);
	/* The vDSO is at most a few pages; refuse anything odd. */
	if (size == 0 || size > (1 << 20))
		return NULL;
	b = binary_new(c, "[vdso]", "");
	if (!b)
		return NULL;
	b->image = malloc(size);
	if (!b->image) {
		binary_free(c, b);
		return NULL;
	}
	memcpy(b->image, base, size);
	b->size = size;
	b->elf = elf_memory(b->image, size);
	if (!b->elf || elf_kind(b->elf) != ELF_K_ELF) {
		binary_free(c, b);
		return NULL;
	}
	b->build_id_len = elf_build_id(b->elf, b->build_id);
	c->vdso = b;
	return b;
}

/*
 * The pages of its file that reading its symbols, DWARF and CFI brought
 * into our resident set leave it.  Kept for its table, a binary of 1.3 MB
 * with DWARF held all of it resident, its file deleted or not (+1.2 MB of
 * RSS a binary, 193 of them after 400 distinct ones).  libelf maps the file
 * (ELF_C_READ_MMAP), but reads it into the heap if mmap fails, so never
 * MADV_DONTNEED, which would zero that: MADV_PAGEOUT reclaims the clean
 * file pages no other process maps (read again from the file if needed)
 * and loses nothing, whatever the memory is.  (A binary still in use
 * drops its pages after each naming instead, keeping them in the page
 * cache: binary_drop_pages, which checks the image is a file's map.)
 */
static void pages_release(struct binary *b)
{
	long page = sysconf(_SC_PAGESIZE);
	uintptr_t lo, hi;
	size_t size = 0;
	char *raw;

	if (b->image || !b->elf || page <= 0 || b->pages_released_ns > b->last_mapped_ns)
		return;
	/*
	 * Pages its processes map too are not reclaimed (MADV_PAGEOUT takes
	 * only pages no one else maps): released at its table's build, its
	 * text stayed in our RSS after its processes exited (~80 MB of 100
	 * short-lived binaries with DWARF), so it is released again once gone.
	 */
	b->pages_released_ns = mono_ns();
	raw = elf_rawfile(b->elf, &size);
	if (!raw || !size)
		return;
	/* Whole pages within the image: a heap copy's neighbours are not ours to touch. */
	lo = ((uintptr_t)raw + page - 1) & ~(uintptr_t)(page - 1);
	hi = ((uintptr_t)raw + size) & ~(uintptr_t)(page - 1);
	if (hi > lo)
		madvise((void *)lo, hi - lo, MADV_PAGEOUT);
}

/*
 * A binary of another architecture (an x86-64 program under qemu-user on
 * arm64): its CFI speaks of other registers, and read as ours it would
 * give wrong frames.  Its table is one UNKNOWN row, so that its frames
 * end the stack (no rows at all would mean "no CFI": a frame-pointer
 * step, by our architecture's frame record).  Said once per binary.
 */
static bool foreign_machine(const struct binary *b, struct unwind_table *t)
{
	GElf_Ehdr eh;
	const char *name;

	if (!b->elf || !gelf_getehdr(b->elf, &eh) || eh.e_machine == STITCH_ELF_MACHINE)
		return false;
	name = stitch_machine_name(eh.e_machine);
	if (name)
		fprintf(stderr, "stitch: %s is for %s, not " STITCH_ARCH_NAME ": not unwound\n",
			b->path, name);
	else
		fprintf(stderr, "stitch: %s is for ELF machine %u, not " STITCH_ARCH_NAME
			": not unwound\n", b->path, eh.e_machine);
	t->rows = calloc(1, sizeof(*t->rows));
	t->nr = t->rows ? 1 : 0;
	return true;
}

/*
 * Its CFI's rows (read back from the table cache when an earlier run, or
 * another stitch, parsed the same bytes; else parsed and kept there), and
 * those its entry code and arm64's vDSO lack.
 */
static void build_table(struct binary *b)
{
	struct table_cache_key key;
	bool keyed;

	if (!b->elf || foreign_machine(b, &b->table))
		return;
	keyed = !b->image && table_cache_key(b->elf, b->build_id, b->build_id_len, &key);
	if (!keyed || !table_cache_read(&key, &b->table)) {
		if (cfi_build_table(b->elf, NULL, &b->table) != 0) {
			memset(&b->table, 0, sizeof(b->table));
			return;
		}
		if (keyed)
			table_cache_write(&key, &b->table);
	}
	if ((entry_code_range(b->elf, &b->table, &b->entry_lo, &b->entry_hi) &&
	     unwind_table_mark_end(&b->table, b->entry_lo, b->entry_hi) != 0) ||
	    sigreturn_mark(b->elf, &b->table) != 0 || arm64_leaf_mark(b->elf, &b->table) != 0)
		unwind_table_free(&b->table);
	else
		unwind_table_index(&b->table);	/* without: searched whole, as before */
}

const struct unwind_table *binary_table(struct binary_cache *c, struct binary *b)
{
	if (!b->table_built) {
		b->table_built = true;
		b->pages_released_ns = 0;
		build_table(b);
		c->table_rows += b->table.nr;
		/*
		 * Its rows are ours now: the CFI pages read to build them need
		 * not stay in our resident set while its process lives (~100 MB
		 * of them under an agent's churn, 300 short-lived processes a
		 * round); its symbols, read when a stack names it, bring back what
		 * they need.
		 */
		pages_release(b);
	}
	return &b->table;
}

struct sym_source *binary_syms(struct binary *b)
{
	if (!b->syms_opened) {
		b->syms_opened = true;
		b->pages_released_ns = 0;
		b->syms = sym_source_open(b->elf, b->path, b->root);
	}
	return b->syms;
}

uint64_t binary_func_start(struct binary *b, uint64_t vaddr)
{
	struct cfi_hdr_index ix;
	int32_t *copy;

	if (!b->hdr_read && b->elf) {
		b->hdr_read = true;
		if (cfi_hdr_index_read(b->elf, &ix) == 0 && ix.count &&
		    (copy = malloc(ix.count * 2 * sizeof(*copy)))) {
			memcpy(copy, ix.table, ix.count * 2 * sizeof(*copy));
			b->hdr.table = copy;
			b->hdr.count = ix.count;
			b->hdr.base = ix.base;
		}
	}
	return cfi_hdr_func_start(&b->hdr, vaddr);
}

struct binary *binary_fetch_by_build_id(struct binary_cache *c, const uint8_t *id, size_t len,
					const char *path)
{
	char cached[PATH_MAX];
	struct binary *b;
	int fd;

	if (len < 2 || len > STITCH_BUILD_ID_MAX ||
	    debuginfod_fetch_executable(id, len, cached, sizeof(cached)) != 0)
		return NULL;
	fd = open(cached, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	b = binary_get_fd(c, fd, path, "");
	/* A server's file is believed only with the build-id asked for. */
	if (!b || b->build_id_len != len || memcmp(b->build_id, id, len) != 0)
		return NULL;
	return b;
}

bool binary_wants_debuginfod(struct binary *b)
{
	return !b->syms_opened && !b->image && b->build_id_len >= 2 &&
	       sym_source_wants_debuginfod(b->elf, b->path, b->root);
}

int binary_offset_to_vaddr(struct binary *b, uint64_t offset, uint64_t *vaddr)
{
	return elf_offset_to_vaddr(b->elf, offset, vaddr);
}

/*
 * Its PT_LOAD segments into b->loads, from the held file.  A file with more
 * than BINARY_MAX_LOADS (no linker makes one) keeps none: its mappings get
 * no bias, as a file that cannot be read.
 */
static void loads_read(struct binary *b)
{
	struct binary_load *l;
	size_t phnum, i, n = 0;
	GElf_Phdr p;

	b->loads_read = true;
	if (elf_getphdrnum(b->elf, &phnum) != 0 || !(l = calloc(BINARY_MAX_LOADS, sizeof(*l))))
		return;
	for (i = 0; i < phnum; i++) {
		if (!gelf_getphdr(b->elf, i, &p) || p.p_type != PT_LOAD)
			continue;
		if (n == BINARY_MAX_LOADS) {
			free(l);
			return;
		}
		l[n++] = (struct binary_load){ p.p_offset, p.p_vaddr, p.p_filesz, p.p_flags & PF_X };
	}
	b->loads = l;
	b->nloads = n;
}

/*
 * The vaddr of the page at file offset pgoff, through the PT_LOAD covering it.
 * Segments can share a file page (lld puts text at offset 0x610, vaddr
 * 0x1610, in the page of the read-only segment at offset 0); that page is
 * then mapped once per segment.  We only see executable mappings, so an
 * executable segment is preferred, else the first one gives a bias off by a
 * page.
 */
int binary_pgoff_vaddr(struct binary *b, uint64_t pgoff, uint64_t *vaddr)
{
	const struct binary_load *l;
	size_t i;
	int pass;

	if (!b->loads_read && b->elf)
		loads_read(b);
	for (pass = 0; pass < 2; pass++) {
		for (i = 0, l = b->loads; l && i < b->nloads; i++, l++) {
			if ((pass == 0 && !l->exec) || pgoff < (l->offset & ~(uint64_t)0xfff) ||
			    pgoff >= l->offset + l->filesz)
				continue;
			*vaddr = l->vaddr - (l->offset - pgoff);
			return 0;
		}
	}
	return -ENOENT;
}

/* An unmapped binary whose table is kept, for the budget's ordering. */
struct kept_table {
	struct binary *b;
	size_t bytes;
};

static int by_last_mapped(const void *x, const void *y)
{
	const struct kept_table *a = x, *b = y;

	return a->b->last_mapped_ns < b->b->last_mapped_ns ? -1 :
	       a->b->last_mapped_ns > b->b->last_mapped_ns;
}

/* Its table goes; binary_table() builds it again if a process maps it again. */
static void table_evict(struct binary_cache *c, struct binary *b)
{
	unwind_table_free(&b->table);
	memset(&b->table, 0, sizeof(b->table));
	b->table_built = false;
	/* entry_lo/hi stay: naming the loader's _start (resolve.c) needs them after. */
	c->tables_evicted++;
}

/*
 * Its symbols go (binary_syms opens them again if a stack names it again):
 * no stack names it, no process maps it.
 */
static void syms_drop(struct binary_cache *c, struct binary *b)
{
	if (!b->syms_opened)
		return;
	sym_source_free(b->syms);
	b->syms = NULL;
	b->syms_opened = false;
	c->syms_dropped++;
}

void binary_cache_sweep(struct binary_cache *c, uint64_t now_ns, uint64_t grace_ns,
			size_t table_budget, size_t max_kept,
			bool (*release)(void *ctx, struct binary *b), void *ctx)
{
	struct kept_table *kept = NULL;
	size_t nkept = 0, capkept = 0, total = 0, i;
	struct hmap_node *n, *next;

	for (i = 0; i < c->by_file.nbuckets; i++) {
		for (n = c->by_file.buckets[i]; n; n = next) {
			struct binary *b = (struct binary *)n;

			next = n->next;
			if (now_ns < b->last_mapped_ns || now_ns - b->last_mapped_ns < grace_ns)
				continue;
			/*
			 * Kept for its table alone, it needs no symbols: an agent
			 * names each period's stacks, and kept every binary's
			 * symbol table and DWARF it ever named, with its table
			 * (+42 MB of symbols over 2,700 short-lived binaries).
			 */
			if (!b->sampled)
				file_close(c, b);
			/*
			 * One with a table stays while the budget keeps the
			 * table (a process maps it again: no rebuild), and goes
			 * at a later sweep once it does not.
			 */
			if (!b->sampled && !(b->table_built && b->table.nr) && release(ctx, b)) {
				hmap_remove(&c->by_file, n);
				binary_free(c, b);
				c->swept++;
				continue;
			}
			if (!b->table_built || !b->table.nr ||
			    array_reserve((void **)&kept, &capkept, nkept + 1, sizeof(*kept), 64))
				continue;
			kept[nkept].b = b;
			kept[nkept].bytes = b->table.nr * sizeof(*b->table.rows);
			total += kept[nkept++].bytes;
		}
	}
	if (total > table_budget || nkept > max_kept) {
		qsort(kept, nkept, sizeof(*kept), by_last_mapped);
		for (i = 0; i < nkept && (total > table_budget || nkept - i > max_kept); i++) {
			total -= kept[i].bytes;
			table_evict(c, kept[i].b);
		}
	}
	free(kept);
}

size_t binary_cache_release_unnamed(struct binary_cache *c)
{
	uint64_t dropped = c->syms_dropped;
	struct hmap_node *n;
	size_t i;

	if (!c->marked_ns)
		return 0;
	hmap_for_each(&c->by_file, i, n) {
		struct binary *b = (struct binary *)n;

		/*
		 * Named in two periods or more, its processes come again (a
		 * build's cc1): its symbols go with its file, at the sweep
		 * after their grace (resolve.c: name_binary_by_binary).
		 */
		if (b->sampled || b->last_live_ns == c->marked_ns ||
		    b->last_mapped_ns > c->marked_ns || binary_recurs(b))
			continue;
		syms_drop(c, b);
		pages_release(b);
	}
	return c->syms_dropped - dropped;
}

size_t binary_cache_retry_debuginfod(struct binary_cache *c)
{
	uint64_t dropped = c->syms_dropped;
	struct hmap_node *n;
	size_t i;

	if (!debuginfod_retries_due())
		return 0;
	hmap_for_each(&c->by_file, i, n) {
		struct binary *b = (struct binary *)n;

		if (b->syms_opened && !b->image &&
		    debuginfod_retry_due(b->build_id, b->build_id_len))
			syms_drop(c, b);
	}
	return c->syms_dropped - dropped;
}

uint64_t binary_cache_syms_bytes(const struct binary_cache *c)
{
	const struct hmap_node *n;
	uint64_t bytes = 0;
	size_t i;

	hmap_for_each(&c->by_file, i, n)
		if (((const struct binary *)n)->syms_opened)
			bytes += ((const struct binary *)n)->size;
	return bytes;
}

bool binary_cache_is_gone(const struct binary_cache *c, const struct binary *b)
{
	return c->marked_ns && b->last_live_ns != c->marked_ns &&
	       b->last_mapped_ns <= c->marked_ns;
}

void binary_cache_release_syms(struct binary_cache *c, struct binary *b)
{
	syms_drop(c, b);
	pages_release(b);
}

void binary_drop_pages(struct binary *b)
{
	if (!b->image)
		elf_image_drop_pages(b->elf);
	if (b->syms_opened)
		sym_source_drop_pages(b->syms);
}

void binary_cache_drop_tables(struct binary_cache *c)
{
	struct hmap_node *n;
	size_t i;

	hmap_for_each(&c->by_file, i, n)
		if (((struct binary *)n)->table_built)
			table_evict(c, (struct binary *)n);
	if (c->vdso && c->vdso->table_built)
		table_evict(c, c->vdso);
}

void binary_cache_unmark_sampled(struct binary_cache *c)
{
	struct hmap_node *n;
	size_t i;

	hmap_for_each(&c->by_file, i, n)
		((struct binary *)n)->sampled = false;
}
