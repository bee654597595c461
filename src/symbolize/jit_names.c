// SPDX-License-Identifier: GPL-2.0
/* Names of JIT code from perf maps, per process: see jit_names.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "symbolize/jit_names.h"
#include "symbolize/perf_map.h"
#include "util/hashmap.h"

/* Processes followed at all (those sharing our root cost no descriptor). */
#define JIT_NAMES_MAX_ENTRIES 65536

struct jit_proc {
	struct hmap_node node;
	uint32_t pid;
	uint32_t nspid;		/* its pid in its own pid namespace: the map's name */
	int root_fd;		/* its root (O_PATH), or -1: the same as ours */
	int map_fd;		/* -1 until the map is found */
	uint64_t read;		/* bytes of the map read */
	struct perf_map pm;
};

static struct {
	struct hmap by_pid;
	bool ready;
	size_t nroots;		/* root_fd held open */
	size_t nmaps;		/* map_fd held open */
	int our_root;		/* "/", O_PATH, to resolve maps of processes sharing it */
} reg = { .our_root = -1 };

static bool proc_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct jit_proc *)n)->pid == *(const uint32_t *)key;
}

static struct jit_proc *find(uint32_t pid)
{
	if (!reg.ready)
		return NULL;
	return (struct jit_proc *)hmap_find(&reg.by_pid, hash_u64(pid), proc_eq, &pid);
}

/* The last pid of NSpid in /proc/PID/status (its own namespace's), else pid. */
static uint32_t read_nspid(uint32_t pid)
{
	char path[64], line[256];
	uint32_t ns = pid;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/status", pid);
	f = fopen(path, "re");
	if (!f)
		return pid;
	while (fgets(line, sizeof(line), f)) {
		char *p, *end;
		unsigned long v;

		if (strncmp(line, "NSpid:", 6))
			continue;
		for (p = line + 6;; p = end) {
			v = strtoul(p, &end, 10);
			if (end == p)
				break;
			if (v && v <= UINT32_MAX)
				ns = (uint32_t)v;
		}
		break;
	}
	fclose(f);
	return ns;
}

/* Does the process see the file system from our root? */
static bool same_root(uint32_t pid, int *root_fd)
{
	struct stat ours, theirs;
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%" PRIu32 "/root", pid);
	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC);
	*root_fd = fd;
	if (fd < 0 || fstat(fd, &theirs) || stat("/", &ours))
		return false;
	return ours.st_dev == theirs.st_dev && ours.st_ino == theirs.st_ino;
}

/*
 * The map, resolved inside the process's root: a symbolic link in it (its
 * /tmp, or the map itself) cannot lead out to a file of ours.
 */
static int open_map(const struct jit_proc *jp)
{
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int root = jp->root_fd, fd;
	char path[64];
	struct stat st;

	if (root < 0) {
		if (reg.our_root < 0)
			reg.our_root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
		root = reg.our_root;
	}
	if (root < 0)
		return -1;
	snprintf(path, sizeof(path), "tmp/perf-%" PRIu32 ".map", jp->nspid);
	fd = syscall(SYS_openat2, root, path, &how, sizeof(how));
	if (fd < 0)
		return -1;
	/* A FIFO or a device would block us or never end. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Read what was appended since last time (all of it, if rewritten shorter). */
static void read_from(struct jit_proc *jp, const struct stat *st)
{
	char buf[65536];
	ssize_t got;

	/* `jcmd PID Compiler.perfmap` writes the map anew. */
	if ((uint64_t)st->st_size < jp->read) {
		perf_map_free(&jp->pm);
		perf_map_init(&jp->pm);
		jp->read = 0;
	}
	while (jp->read < JIT_NAMES_MAX_BYTES && (uint64_t)st->st_size > jp->read) {
		size_t want = sizeof(buf);

		if (want > JIT_NAMES_MAX_BYTES - jp->read)
			want = JIT_NAMES_MAX_BYTES - jp->read;
		got = pread(jp->map_fd, buf, want, (off_t)jp->read);
		if (got <= 0)
			return;
		jp->read += got;
		if (perf_map_feed(&jp->pm, buf, got))
			return;
	}
}

/* Read what the runtime appended since, holding the map open if we may. */
static void read_more(struct jit_proc *jp)
{
	struct stat st;

	if (jp->map_fd < 0) {
		jp->map_fd = open_map(jp);
		if (jp->map_fd < 0)
			return;
		reg.nmaps++;
	}
	if (!fstat(jp->map_fd, &st))
		read_from(jp, &st);
	/* Descriptors are bounded: past the bound, the map is opened at each read. */
	if (reg.nmaps > JIT_NAMES_MAX_PROCS) {
		close(jp->map_fd);
		jp->map_fd = -1;
		reg.nmaps--;
	}
}

void jit_names_watch(uint32_t pid)
{
	struct jit_proc *jp;
	int root_fd;
	bool added;

	if (!reg.ready) {
		if (hmap_init(&reg.by_pid, 64))
			return;
		reg.ready = true;
	}
	if (find(pid) || reg.by_pid.count >= JIT_NAMES_MAX_ENTRIES)
		return;
	if (same_root(pid, &root_fd)) {
		close(root_fd);
		root_fd = -1;
	} else if (root_fd < 0) {
		return;		/* gone already */
	} else if (reg.nroots >= JIT_NAMES_MAX_PROCS) {
		close(root_fd);
		return;
	}
	jp = (struct jit_proc *)hmap_find_or_add(&reg.by_pid, hash_u64(pid), proc_eq, &pid,
						 sizeof(*jp), &added);
	if (!jp) {
		if (root_fd >= 0)
			close(root_fd);
		return;
	}
	jp->pid = pid;
	jp->nspid = read_nspid(pid);
	jp->root_fd = root_fd;
	jp->map_fd = -1;
	perf_map_init(&jp->pm);
	if (root_fd >= 0)
		reg.nroots++;
	/* A map there already is read now: a program may remove it at exit. */
	read_more(jp);
}

const char *jit_names_find(uint32_t pid, uint64_t addr)
{
	struct jit_proc *jp = find(pid);
	const char *name;

	/*
	 * Only a process seen mapping JIT code in this run: a pid named by a
	 * file (stitch symbolize's reports) may be another process's by now.
	 */
	if (!jp)
		return NULL;
	name = perf_map_find(&jp->pm, addr);
	if (name)
		return name;
	/* Not in what was read: the runtime may have appended it since. */
	read_more(jp);
	return perf_map_find(&jp->pm, addr);
}

static void drop(struct jit_proc *jp)
{
	if (jp->root_fd >= 0) {
		close(jp->root_fd);
		reg.nroots--;
	}
	if (jp->map_fd >= 0) {
		close(jp->map_fd);
		reg.nmaps--;
	}
	perf_map_free(&jp->pm);
}

void jit_names_forget(uint32_t pid)
{
	struct jit_proc *jp = find(pid);

	if (!jp)
		return;
	drop(jp);
	hmap_remove(&reg.by_pid, &jp->node);
	free(jp);
}

void jit_names_reset(void)
{
	struct hmap_node *n;
	size_t i;

	if (!reg.ready)
		return;
	hmap_for_each(&reg.by_pid, i, n)
		drop((struct jit_proc *)n);
	hmap_free_all(&reg.by_pid);
	if (reg.our_root >= 0)
		close(reg.our_root);
	reg.ready = false;
	reg.nroots = 0;
	reg.nmaps = 0;
	reg.our_root = -1;
}
