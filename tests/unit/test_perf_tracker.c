// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the perf record reader: records are built by hand in the
 * kernel's layout (sample_type TID | TIME, so every record ends with pid,
 * tid, time), parsed, and applied to a process model of fake pids.  The
 * ring reader runs over a ring we allocate ourselves, with records that
 * straddle its end.
 */
#include <fcntl.h>
#include <limits.h>
#include <linux/perf_event.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <signal.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc/binary.h"
#include "util/elf_util.h"
#include "proc/perf_tracker.h"
#include "proc/procs.h"

/* Above any pid_max: /proc never knows them. */
#define P1 0x7ffffff0u
#define P2 0x7ffffff1u
#define P3 0x7ffffff2u
#define ADDR 0x7f0000000000ull
#define NOFILE "/nonexistent/stitch/libx.so"

struct env {
	struct binary_cache bins;
	struct procs ps;
	struct perf_tracker t;
};

static int setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	if (!e || binary_cache_init(&e->bins) != 0 || procs_init(&e->ps, &e->bins) != 0)
		return -1;
	e->ps.track_all = true;
	*state = e;
	return 0;
}

static int teardown(void **state)
{
	struct env *e = *state;

	perf_tracker_close(&e->t);	/* frees paths still queued */
	procs_free(&e->ps);
	binary_cache_free(&e->bins);
	free(e);
	return 0;
}

/* A record under construction. */
struct rec {
	uint8_t b[8192];	/* room for a filler up to a ring's end */
	size_t len;
};

static void put(struct rec *r, const void *p, size_t n)
{
	assert_true(r->len + n <= sizeof(r->b));
	memcpy(r->b + r->len, p, n);
	r->len += n;
}

static void put32(struct rec *r, uint32_t v)
{
	put(r, &v, 4);
}

static void put64(struct rec *r, uint64_t v)
{
	put(r, &v, 8);
}

/* A string padded with NULs to 8 bytes, as the kernel does. */
static void put_str(struct rec *r, const char *s)
{
	size_t n = strlen(s) + 1, pad = (8 - n % 8) % 8;
	static const uint8_t zero[8];

	put(r, s, n);
	put(r, zero, pad);
}

static void begin(struct rec *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = { .type = type, .misc = misc };

	r->len = 0;
	put(r, &h, sizeof(h));
}

/* The sample_id trailer, then the header's size. */
static void end(struct rec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	struct perf_event_header h;

	put32(r, pid);
	put32(r, tid);
	put64(r, time);
	memcpy(&h, r->b, sizeof(h));
	h.size = r->len;
	memcpy(r->b, &h, sizeof(h));
}

struct file_id {
	const uint8_t *build_id;	/* NULL: dev/inode */
	uint8_t build_id_len;
	uint32_t maj, min;
	uint64_t ino;
};

static void mmap2(struct rec *r, uint32_t pid, uint64_t addr, uint64_t len, uint64_t pgoff,
		  const struct file_id *id, const char *path, uint64_t time)
{
	begin(r, PERF_RECORD_MMAP2, id && id->build_id ? PERF_RECORD_MISC_MMAP_BUILD_ID : 0);
	put32(r, pid);
	put32(r, pid);
	put64(r, addr);
	put64(r, len);
	put64(r, pgoff);
	if (id && id->build_id) {
		uint8_t f[24] = { id->build_id_len };

		memcpy(f + 4, id->build_id, id->build_id_len);
		put(r, f, sizeof(f));
	} else {
		put32(r, id ? id->maj : 8);
		put32(r, id ? id->min : 1);
		put64(r, id ? id->ino : 12345);
		put64(r, 0);	/* ino_generation */
	}
	put32(r, 5);	/* PROT_READ | PROT_EXEC */
	put32(r, 2);	/* MAP_PRIVATE */
	put_str(r, path);
	end(r, pid, pid, time);
}

static void comm(struct rec *r, uint32_t pid, uint32_t tid, const char *name, bool exec,
		 uint64_t time)
{
	begin(r, PERF_RECORD_COMM, exec ? PERF_RECORD_MISC_COMM_EXEC : 0);
	put32(r, pid);
	put32(r, tid);
	put_str(r, name);
	end(r, pid, tid, time);
}

static void fork_rec(struct rec *r, uint32_t pid, uint32_t ppid, uint32_t tid, uint32_t ptid,
		     uint64_t time)
{
	begin(r, PERF_RECORD_FORK, 0);
	put32(r, pid);
	put32(r, ppid);
	put32(r, tid);
	put32(r, ptid);
	put64(r, time);
	end(r, pid, tid, time);
}

static void lost(struct rec *r, uint64_t n, uint64_t time)
{
	begin(r, PERF_RECORD_LOST, 0);
	put64(r, 77);	/* id */
	put64(r, n);
	end(r, 0, 0, time);
}

static void parse(struct env *e, const struct rec *r)
{
	perf_tracker_parse_record(&e->t, r->b, r->len);
}

static size_t pending(const struct env *e)
{
	return e->t.qlen - e->t.qhead;
}

static const struct map *map_at(struct env *e, uint32_t pid, uint64_t addr)
{
	struct proc *p = procs_find(&e->ps, pid);

	return p ? proc_find_map(p, addr) : NULL;
}

static void test_mmap2_unreadable(void **state)
{
	struct env *e = *state;
	static const uint8_t bid[20] = { 1, 2, 3 };
	const struct file_id by_bid = { .build_id = bid, .build_id_len = 20 };
	const struct map *m;
	struct rec r;

	mmap2(&r, P1, ADDR, 0x3000, 0x1000, &by_bid, NOFILE, 100);
	parse(e, &r);
	mmap2(&r, P2, ADDR + 0x10000, 0x2000, 0, NULL, NOFILE, 101);
	parse(e, &r);
	assert_int_equal(pending(e), 2);
	assert_int_equal(e->t.malformed, 0);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_int_equal(pending(e), 0);
	/* The file is gone: the mapping is known, the binary is not. */
	m = map_at(e, P1, ADDR + 0x2fff);
	assert_non_null(m);
	assert_int_equal(m->start, ADDR);
	assert_int_equal(m->end, ADDR + 0x3000);
	assert_int_equal(m->pgoff, 0x1000);
	assert_null(m->bin);
	assert_null(map_at(e, P1, ADDR + 0x3000));
	m = map_at(e, P2, ADDR + 0x10000);
	assert_non_null(m);
	assert_int_equal(m->end, ADDR + 0x12000);
	assert_null(m->bin);
	assert_int_equal(e->ps.unreadable_maps, 2);
}

/*
 * The identity fields must come from the right offsets: a real file opens
 * only with its own build-id or dev/inode, and not with a wrong one.
 */
static void test_mmap2_identity(void **state)
{
	struct env *e = *state;
	uint8_t bid[STITCH_BUILD_ID_MAX];
	struct file_id id = { 0 };
	char exe[PATH_MAX];
	struct stat st;
	struct rec r;
	ssize_t n;
	Elf *elf;
	int fd;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(n > 0);
	exe[n] = '\0';
	fd = open(exe, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	id.build_id_len = elf_build_id(elf, bid);
	elf_end(elf);
	close(fd);
	assert_true(id.build_id_len > 0);
	id.build_id = bid;
	mmap2(&r, P1, ADDR, 0x1000, 0, &id, exe, 10);
	parse(e, &r);
	bid[0] ^= 1;
	mmap2(&r, P2, ADDR, 0x1000, 0, &id, exe, 11);
	parse(e, &r);

	assert_int_equal(stat(exe, &st), 0);
	id.build_id = NULL;
	id.maj = major(st.st_dev);
	id.min = minor(st.st_dev);
	id.ino = st.st_ino;
	mmap2(&r, P3, ADDR, 0x1000, 0, &id, exe, 12);
	parse(e, &r);
	id.ino ^= 0x100;
	mmap2(&r, P3, ADDR + 0x10000, 0x1000, 0, &id, exe, 13);
	parse(e, &r);

	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_non_null(map_at(e, P1, ADDR)->bin);
	assert_string_equal(map_at(e, P1, ADDR)->bin->path, exe);
	assert_null(map_at(e, P2, ADDR)->bin);
	assert_non_null(map_at(e, P3, ADDR)->bin);
	assert_null(map_at(e, P3, ADDR + 0x10000)->bin);
}

static void test_comm_fork_lost(void **state)
{
	struct env *e = *state;
	struct rec r;

	mmap2(&r, P1, ADDR, 0x1000, 0, NULL, NOFILE, 10);
	parse(e, &r);
	/* A rename (prctl) is not an exec: not even queued. */
	comm(&r, P1, P1, "renamed", false, 20);
	parse(e, &r);
	assert_int_equal(pending(e), 1);
	/* A new thread shares the address space: nothing to do. */
	fork_rec(&r, P1, P1, P1 + 100, P1, 30);
	parse(e, &r);
	assert_int_equal(pending(e), 1);
	/* A new process: queued. */
	fork_rec(&r, P2, P1, P2, P1, 40);
	parse(e, &r);
	assert_int_equal(pending(e), 2);
	/* The parent execs afterwards: the child keeps the old image. */
	comm(&r, P1, P1, "newprog", true, 50);
	parse(e, &r);
	assert_int_equal(pending(e), 3);
	lost(&r, 5, 60);
	parse(e, &r);
	lost(&r, 7, 61);
	parse(e, &r);
	assert_int_equal(e->t.lost, 12);
	assert_int_equal(pending(e), 3);	/* counted, not queued */
	assert_int_equal(e->t.malformed, 0);

	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_non_null(map_at(e, P2, ADDR));
	assert_non_null(procs_find(&e->ps, P1));
	assert_null(map_at(e, P1, ADDR));
	/* The thread never became a process of its own. */
	assert_null(procs_find(&e->ps, P1 + 100));
}

/*
 * Records lost: every live process is read again from /proc when next
 * looked at (a missed exec would leave the old image's mappings), and one
 * that is gone keeps its model.  0x1000 is below mmap_min_addr: never
 * really mapped.
 */
static void test_lost_rereads_live_processes(void **state)
{
	struct env *e = *state;
	uint32_t self = (uint32_t)getpid();
	const struct map *m;
	struct rec r;

	mmap2(&r, self, 0x1000, 0x1000, 0, NULL, NOFILE, 10);
	parse(e, &r);
	mmap2(&r, P1, 0x1000, 0x1000, 0, NULL, NOFILE, 11);
	parse(e, &r);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_non_null(map_at(e, self, 0x1000));
	assert_non_null(map_at(e, P1, 0x1000));

	lost(&r, 3, 20);
	parse(e, &r);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_null(map_at(e, self, 0x1000));
	m = map_at(e, self, (uint64_t)(uintptr_t)&test_lost_rereads_live_processes);
	assert_non_null(m);
	assert_non_null(m->bin);
	assert_non_null(map_at(e, P1, 0x1000));
	assert_int_equal(e->ps.reread, 1);
	/* Once: the next look finds it read already. */
	mmap2(&r, self, 0x1000, 0x1000, 0, NULL, NOFILE, 30);
	parse(e, &r);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_non_null(map_at(e, self, 0x1000));
	assert_int_equal(e->ps.reread, 1);
}

/*
 * A fork from before a loss, applied after it: the child got its parent's
 * mappings, and its exec was in what was lost.  It is read again too (here:
 * a child that really exec'd sleep, whose maps hold none of this binary).
 */
static void test_fork_before_loss_rereads_child(void **state)
{
	struct env *e = *state;
	uint32_t self = (uint32_t)getpid();
	uint64_t here = (uint64_t)(uintptr_t)&test_fork_before_loss_rereads_child;
	char path[64];
	struct rec r;
	pid_t child;
	int i;

	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		execl("/bin/sleep", "sleep", "5", (char *)NULL);
		_exit(127);
	}
	/* Until it has exec'd: its maps no longer name this binary. */
	snprintf(path, sizeof(path), "/proc/%d/exe", child);
	for (i = 0; i < 500; i++) {
		char exe[PATH_MAX];
		ssize_t n = readlink(path, exe, sizeof(exe) - 1);

		if (n > 0 && (exe[n] = '\0', strstr(exe, "sleep")))
			break;
		usleep(2000);
	}
	assert_non_null(procs_get(&e->ps, self));
	lost(&r, 1, 100);
	parse(e, &r);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	fork_rec(&r, (uint32_t)child, self, (uint32_t)child, self, 90);
	parse(e, &r);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_non_null(map_at(e, self, here));
	assert_null(map_at(e, (uint32_t)child, here));
	assert_non_null(procs_find(&e->ps, (uint32_t)child));
	assert_true(procs_find(&e->ps, (uint32_t)child)->nr > 0);
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);
}

static void test_apply_until(void **state)
{
	struct env *e = *state;
	struct rec r;

	mmap2(&r, P1, ADDR, 0x1000, 0, NULL, NOFILE, 100);
	parse(e, &r);
	mmap2(&r, P1, ADDR + 0x1000, 0x1000, 0, NULL, NOFILE, 200);
	parse(e, &r);
	comm(&r, P1, P1, "exec", true, 300);
	parse(e, &r);
	mmap2(&r, P1, ADDR + 0x2000, 0x1000, 0, NULL, NOFILE, 400);
	parse(e, &r);
	assert_int_equal(pending(e), 4);

	perf_tracker_apply(&e->t, &e->ps, 99);
	assert_null(procs_find(&e->ps, P1));
	perf_tracker_apply(&e->t, &e->ps, 150);
	assert_non_null(map_at(e, P1, ADDR));
	assert_null(map_at(e, P1, ADDR + 0x1000));
	assert_int_equal(pending(e), 3);
	/* Inclusive: a record at exactly the sample's time has happened. */
	perf_tracker_apply(&e->t, &e->ps, 200);
	assert_non_null(map_at(e, P1, ADDR + 0x1000));
	perf_tracker_apply(&e->t, &e->ps, 300);
	assert_int_equal(procs_find(&e->ps, P1)->nr, 0);
	assert_int_equal(pending(e), 1);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_int_equal(procs_find(&e->ps, P1)->nr, 1);
	assert_non_null(map_at(e, P1, ADDR + 0x2000));
	assert_int_equal(pending(e), 0);
	/* Applied slots are reused: the queue does not grow without bound. */
	{
		size_t cap = e->t.qcap, i;

		for (i = 0; i < 3 * cap; i++) {
			mmap2(&r, P1, ADDR, 0x1000, 0, NULL, NOFILE, 1000 + i);
			parse(e, &r);
			perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
		}
		assert_int_equal(e->t.qcap, cap);
	}
}

static void test_not_tracking(void **state)
{
	struct env *e = *state;
	struct rec r;

	/* Without -a only processes already known are followed. */
	e->ps.track_all = false;
	procs_get(&e->ps, P1);
	mmap2(&r, P1, ADDR, 0x1000, 0, NULL, NOFILE, 1);
	parse(e, &r);
	mmap2(&r, P2, ADDR, 0x1000, 0, NULL, NOFILE, 2);
	parse(e, &r);
	fork_rec(&r, P3, P1, P3, P1, 3);	/* child of a known one: followed */
	parse(e, &r);
	comm(&r, P2, P2, "x", true, 4);
	parse(e, &r);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_non_null(map_at(e, P1, ADDR));
	assert_null(procs_find(&e->ps, P2));
	assert_non_null(map_at(e, P3, ADDR));
}

/* on_mmap: told of a tracked process's mapping, once its model has it; not of others'. */
struct seen_maps {
	struct env *e;
	uint32_t pids[4];
	int n;
	bool model_had_it;
};

static void note_mmap(void *ctx, uint32_t pid, const char *path)
{
	struct seen_maps *s = ctx;

	assert_string_equal(path, NOFILE);
	if (s->n < 4)
		s->pids[s->n++] = pid;
	s->model_had_it = map_at(s->e, pid, ADDR) != NULL;
}

static void test_on_mmap_of_tracked(void **state)
{
	struct env *e = *state;
	struct seen_maps s = { .e = e };
	struct rec r;

	e->ps.track_all = false;
	e->t.on_mmap = note_mmap;
	e->t.on_mmap_ctx = &s;
	procs_get(&e->ps, P1);
	mmap2(&r, P2, ADDR, 0x1000, 0, NULL, NOFILE, 1);	/* not traced */
	parse(e, &r);
	fork_rec(&r, P3, P1, P3, P1, 2);
	parse(e, &r);
	mmap2(&r, P3, ADDR, 0x1000, 0, NULL, NOFILE, 3);	/* a traced one's child */
	parse(e, &r);
	perf_tracker_apply(&e->t, &e->ps, 2);
	assert_int_equal(s.n, 0);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.pids[0], P3);
	assert_true(s.model_had_it);
}

static void test_malformed(void **state)
{
	struct env *e = *state;
	uint64_t m0;
	struct rec r;
	size_t i;

	/* Every truncation of an MMAP2 record is refused, never read past. */
	mmap2(&r, P1, ADDR, 0x1000, 0, NULL, "/x", 1);
	for (i = 8; i < r.len; i++) {
		uint8_t *copy = malloc(i);

		memcpy(copy, r.b, i);
		m0 = e->t.malformed;
		perf_tracker_parse_record(&e->t, copy, i);
		/* Cut but still holding a NUL and a trailer-sized tail: parsed
		 * (the kernel never does that; we only must stay in bounds). */
		if (pending(e) == 0)
			assert_int_equal(e->t.malformed, m0 + 1);
		free(copy);
		perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	}
	perf_tracker_close(&e->t);
	memset(&e->t, 0, sizeof(e->t));

	/* Filename without its NUL (the trailer follows at once). */
	mmap2(&r, P1, ADDR, 0x1000, 0, NULL, "/abcdefg", 1);	/* 8 chars + NUL: 16 bytes */
	memset(r.b + 72, 'A', 16);
	m0 = e->t.malformed;
	parse(e, &r);
	assert_int_equal(e->t.malformed, m0 + 1);
	assert_int_equal(pending(e), 0);

	/* Too short for what the type promises. */
	comm(&r, P1, P1, "x", true, 1);
	perf_tracker_parse_record(&e->t, r.b, 24);
	assert_int_equal(e->t.malformed, m0 + 2);
	fork_rec(&r, P2, P1, P2, P1, 1);
	perf_tracker_parse_record(&e->t, r.b, 31);
	assert_int_equal(e->t.malformed, m0 + 3);
	{
		/* Not even a header: nothing read past the 4 bytes given. */
		uint8_t *four = malloc(4);

		memcpy(four, r.b, 4);
		perf_tracker_parse_record(&e->t, four, 4);
		free(four);
	}
	assert_int_equal(e->t.malformed, m0 + 4);
	/* A short LOST is ignored, not added. */
	lost(&r, 1000, 1);
	perf_tracker_parse_record(&e->t, r.b, 20);
	assert_int_equal(e->t.lost, 0);
	/* Unknown types and a non-exec COMM are skipped quietly. */
	begin(&r, 9999, 0);
	end(&r, 1, 1, 1);
	parse(e, &r);
	assert_int_equal(e->t.malformed, m0 + 4);
	assert_int_equal(pending(e), 0);
}

/* A fake perf ring: the metadata page, then data_bytes of data. */
struct ring {
	uint8_t *mem;
	size_t page, data_bytes;
	uint64_t head;
};

static void ring_init(struct ring *rg, size_t data_bytes, uint64_t start)
{
	struct perf_event_mmap_page *meta;

	rg->page = sysconf(_SC_PAGESIZE);
	rg->data_bytes = data_bytes;
	rg->mem = aligned_alloc(rg->page, rg->page + data_bytes);
	assert_non_null(rg->mem);
	memset(rg->mem, 0xee, rg->page + data_bytes);
	meta = (struct perf_event_mmap_page *)rg->mem;
	memset(meta, 0, sizeof(*meta));
	/* Positions run freely; the ring only sees them modulo its size. */
	meta->data_tail = start;
	meta->data_head = start;
	rg->head = start;
}

static void ring_put(struct ring *rg, const void *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++, rg->head++)
		rg->mem[rg->page + (rg->head & (rg->data_bytes - 1))] = ((const uint8_t *)p)[i];
	((struct perf_event_mmap_page *)rg->mem)->data_head = rg->head;
}

static void drain(struct env *e, struct ring *rg)
{
	void *rings[1] = { rg->mem };

	e->t.nr = 1;
	e->t.rings = rings;
	e->t.data_bytes = rg->data_bytes;
	perf_tracker_drain(&e->t);
	/* Not perf_tracker_close's to unmap: ours. */
	e->t.nr = 0;
	e->t.rings = NULL;
}

static uint64_t ring_tail(const struct ring *rg)
{
	return ((const struct perf_event_mmap_page *)rg->mem)->data_tail;
}

/*
 * Paths of every length around where the queue keeps them itself (shorter
 * than 64 bytes) or copies them out (longer), intact after the queue's
 * sort moved the records (given here in reverse time order).
 */
struct seen_paths {
	char paths[6][300];
	int n;
};

static void note_path(void *ctx, uint32_t pid, const char *path)
{
	struct seen_paths *s = ctx;

	(void)pid;
	if (s->n < 6)
		snprintf(s->paths[s->n++], sizeof(s->paths[0]), "%s", path);
}

static void test_paths_any_length(void **state)
{
	static const size_t lens[6] = { 1, 62, 63, 64, 65, 250 };
	struct env *e = *state;
	struct seen_paths s = { .n = 0 };
	char want[6][300];
	struct ring rg;
	struct rec r;
	int i;

	e->t.on_mmap = note_path;
	e->t.on_mmap_ctx = &s;
	ring_init(&rg, 4096, 0);
	for (i = 5; i >= 0; i--) {
		memset(want[i], 'a' + i, lens[i]);
		want[i][0] = '/';
		want[i][lens[i]] = '\0';
		mmap2(&r, P1, ADDR + 0x10000 * i, 0x1000, 0, NULL, want[i], 10 + i);
		ring_put(&rg, r.b, r.len);
	}
	drain(e, &rg);
	assert_int_equal(pending(e), 6);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_int_equal(s.n, 6);
	for (i = 0; i < 6; i++)
		assert_string_equal(s.paths[i], want[i]);
	free(rg.mem);
}

static void test_ring_wrap(void **state)
{
	struct env *e = *state;
	struct ring rg;
	struct rec r;
	uint64_t start;

	/* The MMAP2 body straddles the end of the ring (its header does not). */
	mmap2(&r, P1, ADDR, 0x1000, 0x5000, NULL, "/nonexistent/a/rather/long/path.so", 300);
	start = 5 * 4096 + 4096 - 40;
	ring_init(&rg, 4096, start);
	ring_put(&rg, r.b, r.len);
	/* Out of time order across records: the drain sorts them. */
	mmap2(&r, P1, ADDR + 0x8000, 0x1000, 0, NULL, NOFILE, 100);
	ring_put(&rg, r.b, r.len);
	drain(e, &rg);
	assert_int_equal(ring_tail(&rg), rg.head);
	assert_int_equal(pending(e), 2);

	/* Then a header cut in two: 4 bytes at the end, 4 at the start. */
	{
		uint64_t pad_to = (rg.head | 4095) + 1 - 4;
		struct rec filler;

		/* An unknown record to get to 4 bytes before the end. */
		begin(&filler, 9999, 0);
		while (filler.len < pad_to - rg.head - 16)
			put32(&filler, 0);
		end(&filler, 0, 0, 0);
		assert_int_equal(rg.head + filler.len, pad_to);
		ring_put(&rg, filler.b, filler.len);
	}
	comm(&r, P1, P1, "x", true, 200);
	ring_put(&rg, r.b, r.len);
	drain(e, &rg);
	assert_int_equal(ring_tail(&rg), rg.head);
	assert_int_equal(e->t.malformed, 0);
	assert_int_equal(pending(e), 3);
	perf_tracker_apply(&e->t, &e->ps, 100);
	assert_non_null(map_at(e, P1, ADDR + 0x8000));
	perf_tracker_apply(&e->t, &e->ps, 200);	/* the exec */
	assert_null(map_at(e, P1, ADDR + 0x8000));
	perf_tracker_apply(&e->t, &e->ps, 300);
	/* Reassembled intact: fields past the wrap point are right. */
	assert_non_null(map_at(e, P1, ADDR));
	assert_int_equal(map_at(e, P1, ADDR)->pgoff, 0x5000);
	assert_int_equal(map_at(e, P1, ADDR)->end, ADDR + 0x1000);
	assert_int_equal(pending(e), 0);

	/* A second drain picks up from the tail. */
	mmap2(&r, P2, ADDR, 0x2000, 0, NULL, NOFILE, 500);
	ring_put(&rg, r.b, r.len);
	drain(e, &rg);
	assert_int_equal(pending(e), 1);
	assert_int_equal(ring_tail(&rg), rg.head);
	/* Nothing new: nothing happens. */
	drain(e, &rg);
	assert_int_equal(pending(e), 1);
	perf_tracker_apply(&e->t, &e->ps, UINT64_MAX);
	assert_non_null(map_at(e, P2, ADDR + 0x1fff));
	free(rg.mem);
}

static void test_ring_bad_sizes(void **state)
{
	struct env *e = *state;
	struct ring rg;
	struct rec r;

	/* A record larger than the parse buffer: skipped, the next one read. */
	ring_init(&rg, 16384, 12345 * 8);
	{
		struct perf_event_header h = { .type = 9999, .size = 9000 };
		uint8_t *junk = calloc(1, 9000);

		memcpy(junk, &h, sizeof(h));
		ring_put(&rg, junk, 9000);
		free(junk);
	}
	comm(&r, P1, P1, "x", true, 10);
	ring_put(&rg, r.b, r.len);
	drain(e, &rg);
	assert_int_equal(e->t.malformed, 1);
	assert_int_equal(pending(e), 1);
	assert_int_equal(ring_tail(&rg), rg.head);

	/* A zero size cannot be skipped over: the rest of the ring is dropped. */
	{
		struct perf_event_header h = { .type = PERF_RECORD_MMAP2, .size = 0 };

		ring_put(&rg, &h, sizeof(h));
		comm(&r, P1, P1, "y", true, 20);
		ring_put(&rg, r.b, r.len);
	}
	drain(e, &rg);
	assert_int_equal(e->t.malformed, 2);
	assert_int_equal(pending(e), 1);
	assert_int_equal(ring_tail(&rg), rg.head);

	/* A size past what the kernel has published: the same. */
	comm(&r, P1, P1, "z", true, 30);
	{
		struct perf_event_header h;

		memcpy(&h, r.b, sizeof(h));
		h.size += 8;
		memcpy(r.b, &h, sizeof(h));
	}
	ring_put(&rg, r.b, r.len);
	drain(e, &rg);
	assert_int_equal(e->t.malformed, 3);
	assert_int_equal(pending(e), 1);
	assert_int_equal(ring_tail(&rg), rg.head);
	free(rg.mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mmap2_unreadable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap2_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_comm_fork_lost, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_rereads_live_processes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_before_loss_rereads_child, setup, teardown),
		cmocka_unit_test_setup_teardown(test_apply_until, setup, teardown),
		cmocka_unit_test_setup_teardown(test_not_tracking, setup, teardown),
		cmocka_unit_test_setup_teardown(test_on_mmap_of_tracked, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paths_any_length, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_wrap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ring_bad_sizes, setup, teardown),
	};

	elf_util_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
