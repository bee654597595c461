// SPDX-License-Identifier: GPL-2.0
/*
 * -e alloc's probes (capture.bpf.c's entry points, and --inuse's returns
 * and free) on the allocators the targets map.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "capture.skel.h"
#include "record/attach.h"
#include "record/attach_internal.h"
#include "symbolize/symbolize.h"
#include "util/elf_util.h"
#include "util/exec_path.h"

/*
 * The allocators -e alloc attaches, by the file a process maps: glibc's,
 * and the two a program preloads or links instead (Debian's libjemalloc2,
 * libtcmalloc-minimal4 and libgoogle-perftools4), which export the same
 * names.  Each function is attached where a call to it is counted once:
 * not where the allocator calls another of its own by address.  Checked
 * call by call on Debian 12's (tests/integration/alloc.sh, every function
 * exact at --alloc-sample 1):
 * - glibc 2.36 serves realloc(NULL, n), and memalign-family alignments of
 *   16 or less, with its malloc (the entry points skip those);
 * - jemalloc 5.3 serves realloc(NULL, n) with its malloc, and every
 *   alignment itself;
 * - tcmalloc 2.10 serves realloc(NULL, n) with its malloc, every
 *   alignment itself, and posix_memalign, valloc and pvalloc with its
 *   memalign (attached there only: each seemed twice).
 */
struct allocator {
	const char *lib;
	const char *const *fns;		/* NULL-terminated */
	bool small_align_is_malloc;	/* memalign(16): glibc's malloc */
	bool leaves;			/* its mmap, mremap and sbrk: the program's own (alloc_leaves.h) */
};

static const char *const glibc_fns[] = {
	"malloc", "calloc", "realloc", "memalign", "aligned_alloc", "posix_memalign",
	"valloc", "pvalloc", NULL,
};
static const char *const tcmalloc_fns[] = {
	"malloc", "calloc", "realloc", "memalign", "aligned_alloc", NULL,
};

static const struct allocator allocators[] = {
	{ "libc.so.6", glibc_fns, true, true },
	{ "libjemalloc.so.2", glibc_fns, false, false },
	{ "libtcmalloc.so.4", tcmalloc_fns, false, false },
	{ "libtcmalloc_minimal.so.4", tcmalloc_fns, false, false },
};

/* Which entry point reads fn's size (capture.bpf.c). */
static struct bpf_program *alloc_prog(struct attacher *a, const struct allocator *al,
				      const char *fn)
{
	struct capture_bpf *s = a->skel;

	if (!strcmp(fn, "malloc") || !strcmp(fn, "valloc") || !strcmp(fn, "pvalloc"))
		return s->progs.on_alloc_size1;
	if (!strcmp(fn, "calloc"))
		return s->progs.on_alloc_calloc;
	if (!strcmp(fn, "realloc"))
		return s->progs.on_alloc_realloc;
	if (!strcmp(fn, "posix_memalign"))
		return al->small_align_is_malloc ? s->progs.on_alloc_posix_memalign :
		       s->progs.on_alloc_posix_memalign_all;
	/* memalign, aligned_alloc */
	return al->small_align_is_malloc ? s->progs.on_alloc_memalign :
	       s->progs.on_alloc_memalign_all;
}

/* A uprobe (or uretprobe) of -e alloc at offset of path: 0, or -errno (said in err). */
static int attach_alloc_at(struct attacher *a, struct bpf_program *prog, bool ret,
			   const char *path, uint64_t offset, uint32_t idx, const char *fn,
			   const char *what, char *err, size_t errlen)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .bpf_cookie = attach_cookie(a, idx), .retprobe = ret);
	struct bpf_link *link = bpf_program__attach_uprobe_opts(prog, -1, path, offset, &opts);
	int rc;

	if (link)
		return attach_add_link(a, link);
	rc = -errno;
	/*
	 * Seen here: BCC's memleak (bpfcc-tools 0.26) holds its uprobe on
	 * malloc with a reference counter offset of 6, and the kernel refuses
	 * any other at that address ("ref_ctr_offset mismatch" in dmesg) while
	 * it runs.
	 */
	snprintf(err, errlen, "%s: cannot attach %s to %s in %s: %s%s", what,
		 ret ? "uretprobe" : "uprobe", fn, path, strerror(-rc), rc == -EINVAL ?
		 " (another tracer's uprobe there, such as BCC's memleak, makes the kernel "
		 "refuse ours: dmesg says 'ref_ctr_offset mismatch'; stop it and try again)" : "");
	return rc;
}

/*
 * Where --inuse's probe on free goes, in the file: at free, or on x86-64
 * past glibc's opening "test %rdi,%rdi; je" (free(NULL) returns there:
 * nothing to take out).  The kernel emulates a push but single-steps a
 * test, a second trap: on this VM a probe on free's first instruction made
 * each free cost ~15 us (a churning loop 24x slower), one on the push
 * after it ~0.5 us, as on malloc, whose first instruction is a push.
 */
static uint64_t free_probe_offset(int fd, uint64_t offset)
{
#if defined(__x86_64__)
	static const unsigned char test_rdi[] = { 0x48, 0x85, 0xff };
	unsigned char b[sizeof(test_rdi) + 2];

	if (pread(fd, b, sizeof(b), offset) != (ssize_t)sizeof(b) ||
	    memcmp(b, test_rdi, sizeof(test_rdi)))
		return offset;
	if (b[3] == 0x74)				/* je rel8 */
		return offset + sizeof(test_rdi) + 2;
	if (b[3] == 0x0f && b[4] == 0x84)		/* je rel32 */
		return offset + sizeof(test_rdi) + 6;
#else
	(void)fd;
#endif
	return offset;
}

/*
 * libc's mmap (anonymous memory), mremap and sbrk as leaves, and --inuse's
 * returns and munmap (a mapping's whole, or part of one): 0, or -errno.
 * Each entry's address is kept, to tell libc's own calls (alloc_leaves.h).
 */
static int attach_alloc_leaves(struct attacher *a, Elf *elf, struct sym_source *syms,
			       const struct stat *st, const char *path, uint32_t idx,
			       const char *what, char *err, size_t errlen)
{
	const struct capture_bpf *s = a->skel;
	const struct {
		const char *name;
		struct bpf_program *entry, *ret;
	} leaves[] = {
		{ "mmap", s->progs.on_alloc_mmap, s->progs.on_alloc_return },
		{ "mremap", s->progs.on_alloc_mremap, s->progs.on_alloc_mremap_return },
		{ "sbrk", s->progs.on_alloc_size1, s->progs.on_alloc_return },
	};
	bool inuse = s->rodata->alloc_inuse;
	uint64_t vaddr, size, offset;
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(leaves) / sizeof(leaves[0]) && rc >= 0; i++) {
		if (sym_source_find_symbol(syms, leaves[i].name, &vaddr, &size) ||
		    elf_vaddr_to_offset(elf, vaddr, &offset) ||
		    !alloc_leaves_site(&a->alloc_leaves, st->st_dev, st->st_ino, vaddr))
			continue;
		rc = attach_alloc_at(a, leaves[i].entry, false, path, offset, idx, leaves[i].name,
				     what, err, errlen);
		if (rc >= 0 && inuse)
			rc = attach_alloc_at(a, leaves[i].ret, true, path, offset, idx,
					     leaves[i].name, what, err, errlen);
	}
	if (rc >= 0 && inuse && !sym_source_find_symbol(syms, "munmap", &vaddr, &size) &&
	    !elf_vaddr_to_offset(elf, vaddr, &offset))
		rc = attach_alloc_at(a, s->progs.on_alloc_munmap, false, path, offset, idx,
				     "munmap", what, err, errlen);
	return rc;
}

/*
 * The allocator's functions in one libc (--inuse: their returns, and
 * free): how many were attached, or -errno.
 */
static int attach_alloc_lib(struct attacher *a, const struct allocator *al, const char *path,
			    const struct stat *st, uint32_t idx, const char *what, char *err,
			    size_t errlen)
{
	const char *const *fns = al->fns;
	uint64_t offsets[sizeof(glibc_fns) / sizeof(glibc_fns[0])], vaddr, size, offset;
	bool inuse = a->skel->rodata->alloc_inuse;
	struct sym_source *syms;
	size_t i, j, n = 0;
	int fd, rc = 0;
	Elf *elf;

	elf = elf_open_file(path, &fd);
	if (!elf) {
		snprintf(err, errlen, "%s: cannot read %s as ELF: %s", what, path, strerror(errno));
		return -ENOEXEC;
	}
	syms = sym_source_open(elf, path, "");
	for (i = 0; syms && fns[i] && rc >= 0; i++) {
		if (sym_source_find_symbol(syms, fns[i], &vaddr, &size) ||
		    elf_vaddr_to_offset(elf, vaddr, &offset))
			continue;	/* pvalloc is gone from glibc 2.43's API, say */
		for (j = 0; j < n && offsets[j] != offset; j++)
			;
		if (j < n)
			continue;
		rc = attach_alloc_at(a, alloc_prog(a, al, fns[i]), false, path, offset, idx, fns[i],
				     what, err, errlen);
		if (rc >= 0 && inuse)
			rc = attach_alloc_at(a, !strcmp(fns[i], "realloc") ?
					     a->skel->progs.on_alloc_realloc_return :
					     a->skel->progs.on_alloc_return, true, path, offset,
					     idx, fns[i], what, err, errlen);
		offsets[n++] = offset;
	}
	/* --inuse: free.  A libc with malloc and no free is no allocator to trust. */
	if (rc >= 0 && n && inuse) {
		if (sym_source_find_symbol(syms, "free", &vaddr, &size) ||
		    elf_vaddr_to_offset(elf, vaddr, &offset)) {
			snprintf(err, errlen, "%s: %s has malloc and no free", what, path);
			rc = -ENOENT;
		} else {
			rc = attach_alloc_at(a, a->skel->progs.on_alloc_free, false, path,
					     free_probe_offset(fd, offset), idx, "free", what, err,
					     errlen);
		}
	}
	if (rc >= 0 && n && al->leaves)
		rc = attach_alloc_leaves(a, elf, syms, st, path, idx, what, err, errlen);
	if (syms)
		sym_source_free(syms);
	elf_end(elf);
	close(fd);
	if (rc >= 0 && n == 0) {
		snprintf(err, errlen, "%s: %s has no malloc to attach to", what, path);
		rc = -ENOENT;
	}
	return rc < 0 ? rc : (int)n;
}

/* One of --inuse's process tracepoints: 0, or -errno (said in err). */
static int attach_alloc_raw_tp(struct attacher *a, struct bpf_program *prog, char *err,
			       size_t errlen)
{
	struct bpf_link *link = bpf_program__attach(prog);
	int rc = -errno;

	if (link)
		return attach_add_link(a, link);
	snprintf(err, errlen, "--inuse: cannot attach %s: %s", bpf_program__name(prog),
		 strerror(-rc));
	return rc;
}

/* One allocator's file, attached unless it was: 0, or -errno (said in err). */
static int attach_alloc_file(struct attacher *a, uint32_t pid, const struct allocator *al,
			     const char *path, uint32_t idx, const char *what, char *err,
			     size_t errlen)
{
	struct stat st;
	int i, rc;

	if (stat(path, &st) != 0)
		return 0;	/* gone since */
	for (i = 0; i < a->alloc_nseen && (a->alloc_seen[i].dev != st.st_dev ||
					   a->alloc_seen[i].ino != st.st_ino); i++)
		;
	if (i < a->alloc_nseen)
		return 0;
	if (a->alloc_nseen == ALLOC_MAX_LIBS) {
		if (!a->alloc_full_said)
			fprintf(stderr, "stitch record: %s: more than %d allocator files mapped: "
				"the processes of the others (process %u's %s) are not traced\n",
				what, ALLOC_MAX_LIBS, pid, path);
		a->alloc_full_said = true;
		return 0;
	}
	a->alloc_seen[a->alloc_nseen].dev = st.st_dev;
	a->alloc_seen[a->alloc_nseen++].ino = st.st_ino;
	alloc_leaves_file(&a->alloc_leaves, st.st_dev, st.st_ino);
	rc = attach_alloc_lib(a, al, path, &st, idx, what, err, errlen);
	return rc < 0 ? rc : 0;
}

/*
 * The allocators process pid maps (0: ours), each attached unless its
 * file was: 0, 1 if it maps none, or -errno (said in err).
 */
static int attach_alloc_of(struct attacher *a, uint32_t pid, uint32_t idx, const char *what,
			   char *err, size_t errlen)
{
	char path[PATH_MAX];
	bool any = false;
	size_t i;
	int rc;

	for (i = 0; i < sizeof(allocators) / sizeof(allocators[0]); i++) {
		if (!attach_find_in_maps(pid, allocators[i].lib, path, sizeof(path)))
			continue;
		any = true;
		rc = attach_alloc_file(a, pid, &allocators[i], path, idx, what, err, errlen);
		if (rc < 0)
			return rc;
	}
	return any ? 0 : 1;
}

/*
 * The allocators a COMMAND links (its executable's DT_NEEDED: a program
 * built with -ljemalloc), which stitch does not map: attached before it
 * runs, found where its loader finds them (the system's library
 * directories).  A preloaded one is in our own environment too, and ours.
 */
static int attach_alloc_of_command(struct attacher *a, uint32_t idx, const char *what, char *err,
				   size_t errlen)
{
	char exe[PATH_MAX], path[PATH_MAX];
	size_t i;
	int fd, rc = 0;
	Elf *elf;

	if (!exec_path_find(a->command, exe, sizeof(exe)))
		return 0;
	elf = elf_open_file(exe, &fd);
	if (!elf)
		return 0;	/* a script: its interpreter's are ours, or a -p away */
	for (i = 0; i < sizeof(allocators) / sizeof(allocators[0]) && rc >= 0; i++)
		if (elf_needs(elf, allocators[i].lib) &&
		    lib_path_find(allocators[i].lib, path, sizeof(path)))
			rc = attach_alloc_file(a, 0, &allocators[i], path, idx, what, err, errlen);
	elf_end(elf);
	close(fd);
	return rc;
}

/*
 * Every allocator the targets map, each file once: a container's own libc
 * is another file.  -a: every process's at the start (each container
 * image's), and ours, which a command run later maps too.  A target that
 * maps none allocates where stitch cannot see (a static binary, another
 * allocator): said once.  Files mapped later by traced processes (a new
 * container's, a command run in another root) are attached as the kernel
 * reports their mappings (attach_alloc_late).
 */
int attach_alloc(struct attacher *a, const struct event_spec *ev, uint32_t idx,
		 char *err, size_t errlen)
{
	struct dirent *de;
	int p, rc;
	DIR *d;

	/* --inuse: the processes' execs and exits, which take their blocks with them */
	if (a->skel->rodata->alloc_inuse &&
	    ((rc = attach_alloc_raw_tp(a, a->skel->progs.alloc_on_exec, err, errlen)) < 0 ||
	     (rc = attach_alloc_raw_tp(a, a->skel->progs.alloc_on_exit, err, errlen)) < 0))
		return rc;

	for (p = 0; p < (a->npids ? a->npids : 1); p++) {
		uint32_t pid = a->npids ? a->pids[p] : 0;

		rc = attach_alloc_of(a, pid, idx, ev->text, err, errlen);
		if (rc < 0)
			return rc;
		if (!pid && a->command) {
			int crc = attach_alloc_of_command(a, idx, ev->text, err, errlen);

			if (crc < 0)
				return crc;
		}
		if (rc)
			fprintf(stderr, "stitch record: %s: process %u maps no allocator stitch "
				"knows (glibc's, jemalloc, tcmalloc): its allocations are not seen\n",
				ev->text, pid ? pid : (uint32_t)getpid());
	}
	d = a->all ? opendir("/proc") : NULL;
	while (d && (de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);

		/* A process gone since, or one mapping none (a kernel thread): passed over. */
		if (*end || !pid || pid > UINT32_MAX)
			continue;
		/* Not fatal: a process that exits as it is attached takes its root with it. */
		if (attach_alloc_of(a, pid, idx, ev->text, err, errlen) < 0)
			fprintf(stderr, "stitch record: %s: process %lu's allocations are not seen: "
				"%s\n", ev->text, pid, err);
	}
	if (d)
		closedir(d);
	a->alloc_ev = ev;
	a->alloc_idx = idx;
	if (!a->alloc_nseen) {
		snprintf(err, errlen, "%s: no target maps an allocator stitch knows (glibc's "
			 "libc.so.6, libjemalloc.so.2, libtcmalloc.so.4, libtcmalloc_minimal.so.4)",
			 ev->text);
		return -ENOENT;
	}
	return 0;
}

/* The allocator whose library the file at path is, or NULL. */
static const struct allocator *allocator_of(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t i;

	base = base ? base + 1 : path;
	for (i = 0; i < sizeof(allocators) / sizeof(allocators[0]); i++)
		if (lib_name_matches(base, allocators[i].lib))
			return &allocators[i];
	return NULL;
}

bool attach_alloc_is_lib(const char *path)
{
	return allocator_of(path) != NULL;
}

int attach_alloc_late(struct attacher *a, uint32_t pid, const char *path, char *err,
		      size_t errlen)
{
	const struct allocator *al = allocator_of(path);
	int before = a->alloc_nseen, i, rc;
	char at[PATH_MAX], seen[PATH_MAX];
	struct stat st;

	if (!a->alloc_ev || !al || a->alloc_nseen == ALLOC_MAX_LIBS)
		return 0;
	/*
	 * Most are a file attached already (every new process of the host
	 * maps its libc): one stat says so, the path seen from the process's
	 * root.  Another is found in its maps, checked by inode.
	 */
	if (snprintf(at, sizeof(at), "/proc/%u/root%s", pid, path) < (int)sizeof(at) &&
	    stat(at, &st) == 0) {
		for (i = 0; i < a->alloc_nseen; i++)
			if (a->alloc_seen[i].dev == st.st_dev && a->alloc_seen[i].ino == st.st_ino)
				return 0;
	}
	if (!attach_find_in_maps_as(pid, al->lib, at, sizeof(at), seen, sizeof(seen)))
		return 0;	/* gone since, or unmapped */
	rc = attach_alloc_file(a, pid, al, at, a->alloc_idx, a->alloc_ev->text, err, errlen);
	if (rc < 0)
		return rc;
	if (a->alloc_nseen == before)
		return 0;
	fprintf(stderr, "stitch record: %s: process %u maps another allocator file, %s: "
		"traced from now on (what it allocated before is not seen)\n",
		a->alloc_ev->text, pid, seen);
	return 1;
}
