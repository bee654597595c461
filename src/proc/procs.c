// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "symbolize/jit_names.h"
#include "symbolize/hotspot_names.h"
#include "symbolize/hotspot_perfdata.h"
#include "symbolize/v8_names.h"
#include "proc/procs.h"
#include "util/array.h"
#include "util/clock.h"

/*
 * At most this many mmap records wait for a process nobody looks at: a
 * never-sampled process that maps and unmaps code all day must not grow
 * without bound, so past it they are applied.
 */
#define PENDING_MAX 256

static bool pid_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct proc *)n)->pid == *(const uint32_t *)key;
}

int procs_init(struct procs *ps, struct binary_cache *bins)
{
	memset(ps, 0, sizeof(*ps));
	ps->bins = bins;
	return hmap_init(&ps->by_pid, 256);
}

static void pending_drop(struct proc *p)
{
	size_t i;

	for (i = 0; i < p->npending; i++)
		short_path_free(&p->pending[i].path);
	free(p->pending);
	p->pending = NULL;
	p->npending = p->pending_cap = 0;
}

/* p's waiting records go unapplied (exec, exit): files it never made us open. */
static void pending_forget(struct procs *ps, struct proc *p)
{
	if (p->npending)
		ps->never_opened++;
	pending_drop(p);
}

static void pending_apply(struct procs *ps, struct proc *p);

void procs_free(struct procs *ps)
{
	struct hmap_node *n, *next;
	size_t i;

	for (i = 0; i < ps->by_pid.nbuckets; i++) {
		for (n = ps->by_pid.buckets[i]; n; n = next) {
			struct proc *p = (struct proc *)n;

			next = n->next;
			pending_drop(p);
			free(p->hotspot);
			free(p->maps);
			free(p);
		}
	}
	hmap_free(&ps->by_pid);
}

static struct proc *proc_lookup(struct procs *ps, uint32_t pid)
{
	return (struct proc *)hmap_find(&ps->by_pid, hash_u64(pid), pid_eq, &pid);
}

static void proc_reread(struct procs *ps, struct proc *p);

struct proc *procs_find(struct procs *ps, uint32_t pid)
{
	struct proc *p = proc_lookup(ps, pid);

	if (p && p->stale)
		proc_reread(ps, p);
	if (p)
		pending_apply(ps, p);
	return p;
}

bool procs_tracking(struct procs *ps, uint32_t pid)
{
	return ps->track_all || proc_lookup(ps, pid);
}

static struct proc *proc_create(struct procs *ps, uint32_t pid)
{
	struct proc *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->pid = pid;
	hmap_insert(&ps->by_pid, &p->node, hash_u64(pid));
	return p;
}

/*
 * Does the file we opened match what the kernel said was mapped?  mapped:
 * it came from map_files, the very file mapped.  Its device and inode need
 * not be what the kernel said, and are not for a file of an overlayfs (a
 * container's image): the mapping is of the layer's file, the open of the
 * overlay's (seen: maps said 00:16, the 9p layer, fstat 00:1a).
 */
static bool file_matches(struct binary *b, const struct map_file_id *id, bool mapped)
{
	struct statfs sfs;
	struct stat st;

	if (!id)
		return true;
	if (id->build_id_len)
		return b->build_id_len == id->build_id_len &&
		       memcmp(b->build_id, id->build_id, id->build_id_len) == 0;
	if (id->has_devino && !mapped) {
		if (b->fd < 0 || fstat(b->fd, &st) != 0 || st.st_ino != id->ino)
			return false;
		if (major(st.st_dev) == id->maj && minor(st.st_dev) == id->min)
			return true;
		/*
		 * overlayfs (a container's root, the kernel matrix's guests):
		 * stat() gives its own device with the file's inode number,
		 * the kernel's record the device of the file below.  Seen in
		 * the arm64 guest, where /proc/PID/map_files failed for
		 * libruby: every table of an overlay's binaries was missing.
		 */
		return fstatfs(b->fd, &sfs) == 0 && sfs.f_type == OVERLAYFS_SUPER_MAGIC;
	}
	return true;
}

/* p's root directory is known: once a process, or its parent's. */
static bool proc_root_known(struct proc *p)
{
	char root[64];
	struct stat st;

	if (!p->root_known) {
		snprintf(root, sizeof(root), "/proc/%u/root", p->pid);
		p->root_known = stat(root, &st) ? -1 : 1;
		if (p->root_known > 0) {
			p->root_dev = st.st_dev;
			p->root_ino = st.st_ino;
		}
	}
	return p->root_known > 0;
}

/*
 * Open the file behind a mapping.  map_files gives the very file mapped,
 * even if deleted, replaced or in another mount namespace; the process's
 * root is next; our own view of the path last, and only if its identity
 * matches what the kernel reported (a different file of the same name would
 * give wrong frames); a server's copy by build-id (debuginfod) when none
 * of them is the file.
 */
static struct binary *open_mapping(struct procs *ps, struct proc *p, uint64_t start,
				   uint64_t end, const char *path, const struct map_file_id *id)
{
	uint32_t pid = p->pid;
	char buf[PATH_MAX + 64], root[64];
	struct binary *b;
	bool mapped;
	int fd;

	/*
	 * The kernel's record gave its build ID (5.12+), and a binary of that
	 * ID, path and root is held: the very bytes, the same name and debug
	 * files (a build's cc1, as and python3 started again and again).
	 */
	if (id && id->build_id_len && proc_root_known(p)) {
		b = binary_find_held(ps->bins, id->build_id, id->build_id_len, path, p->root_dev,
				     p->root_ino);
		if (b)
			return b;
	}
	snprintf(root, sizeof(root), "/proc/%u/root", pid);
	snprintf(buf, sizeof(buf), "/proc/%u/map_files/%" PRIx64 "-%" PRIx64, pid, start, end);
	fd = open(buf, O_RDONLY | O_CLOEXEC);
	mapped = fd >= 0;
	if (fd < 0 && path[0] == '/') {
		snprintf(buf, sizeof(buf), "%s%s", root, path);
		fd = open(buf, O_RDONLY | O_CLOEXEC);
	}
	if (fd >= 0) {
		b = binary_get_fd(ps->bins, fd, path, root);
		if (b && file_matches(b, id, mapped))
			return b;
		/* Identity mismatch through the process's own view: trust nothing. */
		if (b)
			return NULL;
	}
	if (path[0] != '/' || !id || (!id->build_id_len && !id->has_devino))
		return NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		b = binary_get_fd(ps->bins, fd, path, "");
		if (b && file_matches(b, id, false))
			return b;
	}
	/* Deleted, its process gone: the very file by its build-id, from debuginfod. */
	if (!id->build_id_len)
		return NULL;
	return binary_fetch_by_build_id(ps->bins, id->build_id, id->build_id_len, path);
}

static void strip_deleted(char *path)
{
	size_t n = strlen(path);
	const char *suffix = " (deleted)";
	size_t s = strlen(suffix);

	if (n > s && strcmp(path + n - s, suffix) == 0)
		path[n - s] = '\0';
}

/* Remove [start, end) from the map list, trimming partial overlaps. */
static void punch_hole(struct proc *p, uint64_t start, uint64_t end)
{
	size_t i = 0;

	while (i < p->nr) {
		struct map *m = &p->maps[i];

		if (m->end <= start || m->start >= end) {
			i++;
			continue;
		}
		if (m->start < start && m->end > end) {
			/* Split in two: need one more slot. */
			struct map tail = *m;

			if (p->nr == p->cap)
				return;	/* caller reserved room; cannot happen */
			tail.pgoff += end - m->start;
			tail.bias = m->bias;
			tail.start = end;
			m->end = start;
			memmove(&p->maps[i + 2], &p->maps[i + 1], (p->nr - i - 1) * sizeof(*m));
			p->maps[i + 1] = tail;
			p->nr++;
			return;
		}
		if (m->start < start) {
			m->end = start;
			i++;
		} else if (m->end > end) {
			m->pgoff += end - m->start;
			m->start = end;
			i++;
		} else {
			memmove(m, m + 1, (p->nr - i - 1) * sizeof(*m));
			p->nr--;
		}
	}
}

static void proc_insert_map(struct proc *p, const struct map *nm)
{
	size_t i;

	if (array_reserve((void **)&p->maps, &p->cap, p->nr + 2, sizeof(*p->maps), 32))
		return;
	punch_hole(p, nm->start, nm->end);
	for (i = p->nr; i > 0 && p->maps[i - 1].start > nm->start; i--)
		;
	memmove(&p->maps[i + 1], &p->maps[i], (p->nr - i) * sizeof(*nm));
	p->maps[i] = *nm;
	p->nr++;
	p->gen++;
}

static void add_map(struct procs *ps, struct proc *p, uint64_t start, uint64_t end, uint64_t pgoff,
		    char *path, const struct map_file_id *id)
{
	struct map m = { .start = start, .end = end, .pgoff = pgoff };
	uint64_t vaddr;

	if (start >= end)
		return;
	strip_deleted(path);
	m.uprobes = strcmp(path, "[uprobes]") == 0;
	/*
	 * Anonymous: no name in /proc/PID/maps (or a [anon:...] one),
	 * "//anon" in the kernel's mmap records.  [vdso], [vsyscall] and
	 * [uprobes] are the kernel's, not JIT code.
	 */
	m.anon = !strcmp(path, "//anon") || !path[0] || !strncmp(path, "[anon:", 6);
	if (strcmp(path, "[vdso]") == 0)
		m.bin = binary_get_vdso(ps->bins);
	else if (path[0] == '/' && !m.anon)
		m.bin = open_mapping(ps, p, start, end, path, id);
	if (m.bin && binary_pgoff_vaddr(m.bin, pgoff, &vaddr) == 0) {
		m.bias = start - vaddr;
		m.name = m.bin->name;
	} else {
		if (path[0] == '/' && !m.anon)
			ps->unreadable_maps++;
		m.bin = NULL;
		m.name = NULL;
	}
	proc_insert_map(p, &m);
	/*
	 * JIT code: where its perf map lies must be found while the process
	 * lives (a map written at exit is read after it).
	 */
	if (m.anon)
		jit_names_watch(p->pid);
}

static void proc_load(struct procs *ps, struct proc *p)
{
	char fname[64], line[PATH_MAX + 128];
	FILE *f;

	snprintf(fname, sizeof(fname), "/proc/%u/maps", p->pid);
	f = fopen(fname, "re");
	if (!f) {
		/* Gone already (or never there): nothing to keep past the grace. */
		if (errno == ENOENT)
			p->exited_ns = mono_ns();
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		uint64_t start, end, pgoff, ino;
		unsigned int maj, min;
		char perms[5];
		int pos = 0;
		struct map_file_id id = { .has_devino = true };

		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %x:%x %" SCNu64 " %n",
			   &start, &end, perms, &pgoff, &maj, &min, &ino, &pos) < 7)
			continue;
		if (perms[2] != 'x' || pos <= 0)
			continue;
		id.maj = maj;
		id.min = min;
		id.ino = ino;
		add_map(ps, p, start, end, pgoff, line + pos, ino ? &id : NULL);
	}
	fclose(f);
}

/* The process, created and loaded from /proc on first sight; its records not applied. */
static struct proc *proc_get_lazy(struct procs *ps, uint32_t pid)
{
	struct proc *p = proc_lookup(ps, pid);

	if (p)
		return p;
	p = proc_create(ps, pid);
	if (p)
		proc_load(ps, p);
	return p;
}

/* Would applying this record open a file (add_map)? */
static bool pending_opens_file(struct procs *ps, struct proc *p, struct pending_mmap *pm)
{
	const char *path = short_path_str(&pm->path);

	if (path[0] != '/' || !strcmp(path, "//anon"))
		return false;	/* [vdso], [uprobes], anonymous: nothing to open */
	return !pm->has_id || !pm->id.build_id_len || !proc_root_known(p) ||
	       !binary_find_held(ps->bins, pm->id.build_id, pm->id.build_id_len, path,
				 p->root_dev, p->root_ino);
}

struct proc *procs_find_held(struct procs *ps, uint32_t pid)
{
	struct proc *p = proc_lookup(ps, pid);
	size_t i;

	if (!p || p->stale || p->exited_ns)
		return NULL;
	for (i = 0; i < p->npending; i++)
		if (pending_opens_file(ps, p, &p->pending[i]))
			return NULL;
	pending_apply(ps, p);
	return p;
}

/* The mmap records waiting for p, in their order: now its mappings. */
static void pending_apply(struct procs *ps, struct proc *p)
{
	size_t i;

	for (i = 0; i < p->npending; i++) {
		struct pending_mmap *pm = &p->pending[i];

		add_map(ps, p, pm->start, pm->start + pm->len, pm->pgoff, short_path_str(&pm->path),
			pm->has_id ? &pm->id : NULL);
	}
	pending_drop(p);
}

struct proc *procs_get(struct procs *ps, uint32_t pid)
{
	struct proc *p = proc_get_lazy(ps, pid);

	if (p && p->stale)
		proc_reread(ps, p);
	if (p)
		pending_apply(ps, p);
	return p;
}

/*
 * p's mappings from /proc again (procs_lost_records).  Its waiting records
 * are older than what /proc shows, and go; the records still queued behind
 * the loss are applied on top as they come.  Gone: its model stays, for its
 * samples still in the rings.
 */
static void proc_reread(struct procs *ps, struct proc *p)
{
	char fname[64];

	p->stale = false;
	snprintf(fname, sizeof(fname), "/proc/%u/maps", p->pid);
	if (access(fname, R_OK) != 0)
		return;
	pending_forget(ps, p);
	p->nr = 0;
	p->gen++;
	proc_load(ps, p);
	ps->reread++;
}

void procs_mark_stale(struct procs *ps, uint32_t pid)
{
	struct proc *p = proc_lookup(ps, pid);

	if (p && !p->exited_ns)
		p->stale = true;
}

void procs_lost_records(struct procs *ps)
{
	struct hmap_node *n;
	size_t i;

	hmap_for_each(&ps->by_pid, i, n) {
		struct proc *p = (struct proc *)n;

		if (!p->exited_ns)
			p->stale = true;
	}
}

void procs_mmap(struct procs *ps, uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		const char *path, const struct map_file_id *id)
{
	struct proc *p = proc_get_lazy(ps, pid);
	struct pending_mmap *pm;

	if (!p || !path || start + len < start)
		return;
	if (p->npending >= PENDING_MAX)
		pending_apply(ps, p);
	if (array_reserve((void **)&p->pending, &p->pending_cap, p->npending + 1,
			  sizeof(*p->pending), 8)) {
		/* No room to wait: applied now, as it always could be. */
		char *copy = strdup(path);

		if (!copy)
			return;
		pending_apply(ps, p);
		add_map(ps, p, start, start + len, pgoff, copy, id);
		free(copy);
		return;
	}
	pm = &p->pending[p->npending];
	*pm = (struct pending_mmap){ .start = start, .len = len, .pgoff = pgoff };
	if (short_path_set(&pm->path, path))
		return;
	p->npending++;
	if (id) {
		pm->has_id = true;
		pm->id = *id;
	}
}

void procs_exec(struct procs *ps, uint32_t pid)
{
	struct proc *p = proc_lookup(ps, pid);

	jit_names_forget(pid);
	if (p) {
		pending_forget(ps, p);
		p->nr = 0;
		p->gen++;
		p->exited_ns = 0;
		/*
		 * Its root stays what it was (unshare --root and chroot change
		 * it before their exec, unseen): binary_find_held then holds
		 * the first root's binary of that build ID and path, the
		 * same bytes, its debug files looked for in that root.
		 */
	} else
		proc_create(ps, pid);	/* maps follow as mmap records */
}

void procs_fork(struct procs *ps, uint32_t ppid, uint32_t pid)
{
	struct proc *parent, *child;

	if (ppid == pid)
		return;
	parent = procs_get(ps, ppid);
	child = proc_lookup(ps, pid);
	if (child) {
		pending_forget(ps, child);
		child->nr = 0;	/* a reused pid: start over */
		jit_names_forget(pid);
		child->exited_ns = 0;
	} else
		child = proc_create(ps, pid);
	/* A fork keeps its root: a shell's or make's children ask nothing. */
	if (parent && child && !parent->exited_ns && proc_root_known(parent)) {
		child->root_known = parent->root_known;
		child->root_dev = parent->root_dev;
		child->root_ino = parent->root_ino;
	}
	if (!parent || !child || !parent->nr)
		return;
	child->maps = realloc(child->maps, (parent->nr + 2) * sizeof(struct map));
	if (!child->maps) {
		child->nr = child->cap = 0;
		return;
	}
	memcpy(child->maps, parent->maps, parent->nr * sizeof(struct map));
	child->nr = parent->nr;
	child->gen++;
	child->cap = parent->nr + 2;
}

const struct map *proc_find_map(const struct proc *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nr;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (addr < p->maps[mid].start)
			hi = mid;
		else if (addr >= p->maps[mid].end)
			lo = mid + 1;
		else
			return &p->maps[mid];
	}
	return NULL;
}

void procs_exit(struct procs *ps, uint32_t pid, uint64_t time_ns)
{
	struct proc *p = proc_lookup(ps, pid);

	if (p && !p->exited_ns)
		p->exited_ns = time_ns ? time_ns : 1;
}

size_t procs_reap(struct procs *ps, uint64_t now_ns, uint64_t grace_ns, bool check_alive,
		  void (*gone)(void *ctx, uint32_t pid), void *ctx)
{
	struct hmap_node *n, *next;
	size_t i, freed = 0;

	for (i = 0; i < ps->by_pid.nbuckets; i++) {
		for (n = ps->by_pid.buckets[i]; n; n = next) {
			struct proc *p = (struct proc *)n;

			next = n->next;
			if (!p->exited_ns && check_alive && kill(p->pid, 0) != 0 && errno == ESRCH)
				p->exited_ns = now_ns;
			if (!p->exited_ns || now_ns < p->exited_ns ||
			    now_ns - p->exited_ns < grace_ns)
				continue;
			if (gone)
				gone(ctx, p->pid);
			hmap_remove(&ps->by_pid, n);
			pending_forget(ps, p);
			if (p->hotspot)
				hotspot_names_forget(p->pid);
			free(p->hotspot);
			free(p->maps);
			free(p);
			freed++;
		}
	}
	return freed;
}

void procs_open_alive(struct procs *ps)
{
	struct hmap_node *n;
	size_t i;

	hmap_for_each(&ps->by_pid, i, n) {
		struct proc *p = (struct proc *)n;

		if (!p->exited_ns && p->npending)
			pending_apply(ps, p);
	}
}

void procs_mark_binaries(struct procs *ps, uint64_t now_ns)
{
	struct hmap_node *n;
	size_t i, j;

	hmap_for_each(&ps->by_pid, i, n) {
		struct proc *p = (struct proc *)n;

		for (j = 0; j < p->nr; j++)
			if (p->maps[j].bin)
				binary_mark_mapped(p->maps[j].bin, now_ns, !p->exited_ns);
	}
	ps->bins->marked_ns = now_ns;
}

const struct v8_meta *procs_v8(struct proc *p)
{
	size_t i;

	if (p->v8_gen == p->gen + 1)
		return p->v8;
	p->v8 = NULL;
	for (i = 0; i < p->nr && !p->v8; i++)
		if (p->maps[i].bin)
			p->v8 = binary_v8(p->maps[i].bin);
	p->v8_gen = p->gen + 1;
	if (p->v8)
		v8_names_watch(p->pid, p->v8);
	return p->v8;
}

bool procs_maps_jvm(const struct proc *p)
{
	size_t i;

	for (i = 0; i < p->nr; i++)
		if (p->maps[i].bin && binary_hotspot(p->maps[i].bin))
			return true;
	return false;
}

const struct hotspot_meta *procs_hotspot(struct proc *p)
{
	static bool said;
	struct hotspot_meta m;
	char why[160];
	uint64_t now;
	size_t i;
	int err = -ENOENT;

	if (p->hotspot || p->hotspot_final || p->hotspot_gen == p->gen + 1)
		return p->hotspot;
	now = mono_ns();
	if (p->hotspot_tried_ns && now - p->hotspot_tried_ns < 100000000ull)
		return NULL;
	for (i = 0; i < p->nr; i++) {
		const struct map *mp = &p->maps[i];
		const struct hotspot_syms *s = mp->bin ? binary_hotspot(mp->bin) : NULL;

		if (!s)
			continue;
		err = hotspot_meta_read(p->pid, mp->bias, s, &m, why, sizeof(why));
		if (err == -ENOTSUP && !said) {
			said = true;
			fprintf(stderr, "stitch: %s (HotSpot): Java frames not named: %s\n",
				mp->bin->path, why);
		}
		break;
	}
	if (err == -EFAULT || err == -ENOMEM) {
		p->hotspot_tried_ns = now;
		return NULL;
	}
	/* No libjvm yet (the java launcher loads it after its start): asked again at a change. */
	if (err == -ENOENT) {
		p->hotspot_gen = p->gen + 1;
		return NULL;
	}
	p->hotspot_final = true;
	if (err)
		return NULL;
	m.unloaded_count = hotspot_perfdata_counter(p->pid, "java.cls.unloadedClasses");
	p->hotspot = malloc(sizeof(*p->hotspot));
	if (p->hotspot)
		*p->hotspot = m;
	return p->hotspot;
}
