// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "util/cpus.h"
#include "proc/perf_tracker.h"
#include "util/array.h"
#include "util/short_path.h"

#define RING_PAGES 128		/* 512 KiB of records per CPU */
#define MAX_CPUS 1024

struct ptrack_event {
	uint64_t time;
	uint64_t seq;		/* keeps equal-time records in arrival order */
	uint32_t type;		/* PERF_RECORD_* */
	uint32_t pid, ppid;
	uint64_t start, len, pgoff;
	struct map_file_id id;
	struct short_path path;	/* MMAP2's */
};

/* The trailing sample_id for sample_type TID | TIME. */
struct sample_id {
	uint32_t pid, tid;
	uint64_t time;
};

static uint64_t seq_counter;

static int open_dummy(int cpu, bool with_build_id)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = PERF_COUNT_SW_DUMMY;
	a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME;
	a.sample_id_all = 1;
	a.mmap = 1;
	a.mmap2 = 1;
	a.comm = 1;
	a.comm_exec = 1;
	a.task = 1;
	a.use_clockid = 1;
	a.clockid = CLOCK_MONOTONIC;
	a.build_id = with_build_id;
	return syscall(SYS_perf_event_open, &a, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

int perf_tracker_open(struct perf_tracker *t)
{
	int cpus[MAX_CPUS], n, i, err = 0;
	long page = sysconf(_SC_PAGESIZE);

	memset(t, 0, sizeof(*t));
	n = online_cpus(cpus, MAX_CPUS);
	if (n <= 0)
		return n ? n : -ENODEV;
	t->fds = calloc(n, sizeof(*t->fds));
	t->rings = calloc(n, sizeof(*t->rings));
	if (!t->fds || !t->rings)
		return -ENOMEM;
	t->data_bytes = RING_PAGES * page;
	for (i = 0; i < n; i++) {
		int fd = open_dummy(cpus[i], true);
		void *ring;

		/* build_id in MMAP2 needs Linux 5.12; fall back to dev/inode. */
		if (fd < 0 && errno == EINVAL)
			fd = open_dummy(cpus[i], false);
		if (fd < 0) {
			err = -errno;
			break;
		}
		ring = mmap(NULL, t->data_bytes + page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		if (ring == MAP_FAILED) {
			err = -errno;
			close(fd);
			break;
		}
		t->fds[t->nr] = fd;
		t->rings[t->nr] = ring;
		t->nr++;
	}
	if (err)
		perf_tracker_close(t);
	return err;
}

void perf_tracker_close(struct perf_tracker *t)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t i;
	int r;

	for (r = 0; r < t->nr; r++) {
		munmap(t->rings[r], t->data_bytes + page);
		close(t->fds[r]);
	}
	for (i = t->qhead; i < t->qlen; i++)
		short_path_free(&t->q[i].path);
	free(t->q);
	free(t->fds);
	free(t->rings);
	memset(t, 0, sizeof(*t));
}

static struct ptrack_event *queue_push(struct perf_tracker *t)
{
	if (t->qlen == t->qcap) {
		/* Reclaim applied records before growing. */
		if (t->qhead) {
			memmove(t->q, t->q + t->qhead, (t->qlen - t->qhead) * sizeof(*t->q));
			t->qlen -= t->qhead;
			t->qhead = 0;
		}
		if (array_reserve((void **)&t->q, &t->qcap, t->qlen + 1, sizeof(*t->q), 1024))
			return NULL;
	}
	memset(&t->q[t->qlen], 0, sizeof(*t->q));
	t->q[t->qlen].seq = seq_counter++;
	return &t->q[t->qlen++];
}

static bool read_sample_id(const uint8_t *rec, size_t size, size_t fixed, struct sample_id *sid)
{
	if (size < fixed + sizeof(*sid))
		return false;
	memcpy(sid, rec + size - sizeof(*sid), sizeof(*sid));
	return true;
}

/*
 * A queued event of type for a record with the pid at +8 (MMAP2, COMM) and
 * sample_id sid: its type, time and pid set; NULL if out of memory.
 */
static struct ptrack_event *push_pid_event(struct perf_tracker *t, uint32_t type,
					   const uint8_t *rec, const struct sample_id *sid)
{
	struct ptrack_event *ev = queue_push(t);
	uint32_t pid;

	if (!ev)
		return NULL;
	memcpy(&pid, rec + 8, sizeof(pid));
	ev->type = type;
	ev->time = sid->time;
	ev->pid = pid;
	return ev;
}

/* Parse one record (already linear in memory); size includes the header. */
void perf_tracker_parse_record(struct perf_tracker *t, const uint8_t *rec, size_t size)
{
	struct perf_event_header h;
	struct sample_id sid;
	struct ptrack_event *ev;
	uint32_t u32s[4];

	/* drain_ring never passes less; the tests may. */
	if (size < sizeof(h)) {
		t->malformed++;
		return;
	}
	memcpy(&h, rec, sizeof(h));
	switch (h.type) {
	case PERF_RECORD_MMAP2: {
		/* header, pid, tid, addr, len, pgoff, 24 bytes id, prot, flags, name */
		const size_t name_off = 8 + 8 + 24 + 24 + 8;
		uint64_t addr[3];
		size_t name_max;

		if (!read_sample_id(rec, size, name_off, &sid)) {
			t->malformed++;
			return;
		}
		name_max = size - sizeof(sid) - name_off;
		if (!memchr(rec + name_off, '\0', name_max)) {
			t->malformed++;
			return;
		}
		ev = push_pid_event(t, h.type, rec, &sid);
		if (!ev)
			return;
		memcpy(addr, rec + 16, 24);
		ev->start = addr[0];
		ev->len = addr[1];
		ev->pgoff = addr[2];
		if (h.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			uint8_t n = rec[40];

			if (n > STITCH_BUILD_ID_MAX)
				n = 0;
			ev->id.build_id_len = n;
			memcpy(ev->id.build_id, rec + 44, n);
		} else {
			uint64_t ino;

			memcpy(u32s, rec + 40, 8);
			memcpy(&ino, rec + 48, 8);
			ev->id.has_devino = true;
			ev->id.maj = u32s[0];
			ev->id.min = u32s[1];
			ev->id.ino = ino;
		}
		/* Without memory for its path: dropped, as its process would. */
		if (short_path_set(&ev->path, (const char *)rec + name_off))
			t->qlen--;
		return;
	}
	case PERF_RECORD_COMM:
		if (!(h.misc & PERF_RECORD_MISC_COMM_EXEC))
			return;
		if (!read_sample_id(rec, size, 16, &sid)) {
			t->malformed++;
			return;
		}
		push_pid_event(t, h.type, rec, &sid);
		return;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		/* Both: pid, ppid, tid, ptid, time. */
		if (size < 8 + 24) {
			t->malformed++;
			return;
		}
		memcpy(u32s, rec + 8, 16);
		/* A thread's start or end: the same address space goes on. */
		if (h.type == PERF_RECORD_FORK ? u32s[0] == u32s[1] : u32s[0] != u32s[2])
			return;
		ev = queue_push(t);
		if (!ev)
			return;
		ev->type = h.type;
		memcpy(&ev->time, rec + 24, 8);
		ev->pid = u32s[0];
		ev->ppid = u32s[1];
		return;
	case PERF_RECORD_LOST: {
		uint64_t lost;

		if (size >= 8 + 16) {
			memcpy(&lost, rec + 16, 8);
			t->lost += lost;
		}
		if (read_sample_id(rec, size, 24, &sid) && sid.time > t->lost_until)
			t->lost_until = sid.time;
		return;
	}
	default:
		return;
	}
}

static void drain_ring(struct perf_tracker *t, void *ring)
{
	struct perf_event_mmap_page *meta = ring;
	uint8_t *data = (uint8_t *)ring + sysconf(_SC_PAGESIZE);
	uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
	uint64_t tail = meta->data_tail;
	size_t mask = t->data_bytes - 1;
	uint8_t buf[8192];

	while (tail < head) {
		struct perf_event_header h;
		size_t off = tail & mask, first;

		/* The header itself may straddle the end of the ring. */
		first = t->data_bytes - off;
		if (first >= sizeof(h)) {
			memcpy(&h, data + off, sizeof(h));
		} else {
			memcpy(&h, data + off, first);
			memcpy((uint8_t *)&h + first, data, sizeof(h) - first);
		}
		if (h.size < sizeof(h) || h.size > head - tail) {
			t->malformed++;
			tail = head;	/* cannot resync: skip what is there */
			break;
		}
		if (h.size <= sizeof(buf)) {
			if (first >= h.size) {
				memcpy(buf, data + off, h.size);
			} else {
				memcpy(buf, data + off, first);
				memcpy(buf + first, data, h.size - first);
			}
			perf_tracker_parse_record(t, buf, h.size);
		} else {
			t->malformed++;
		}
		tail += h.size;
	}
	__atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static int cmp_event(const void *a, const void *b)
{
	const struct ptrack_event *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void perf_tracker_drain(struct perf_tracker *t)
{
	size_t before = t->qlen;
	int r;

	for (r = 0; r < t->nr; r++)
		drain_ring(t, t->rings[r]);
	if (t->qlen != before)
		qsort(t->q + t->qhead, t->qlen - t->qhead, sizeof(*t->q), cmp_event);
}

void perf_tracker_apply(struct perf_tracker *t, struct procs *ps, uint64_t until_ns)
{
	/*
	 * A loss is known only when the kernel can write again, after what it
	 * dropped: the processes are marked at once, not at the loss's time, so
	 * that no table is built for the kernel from a model that missed an
	 * exec (a sample's wrong frames would last until the process ends).
	 * Those that records from before the loss create or change afterwards
	 * are marked as they come: a fork whose child's exec was lost gave it
	 * its parent's mappings (all its samples were [unknown] once).
	 */
	if (t->lost != t->lost_seen) {
		t->lost_seen = t->lost;
		procs_lost_records(ps);
	}
	while (t->qhead < t->qlen && t->q[t->qhead].time <= until_ns) {
		struct ptrack_event *ev = &t->q[t->qhead++];

		switch (ev->type) {
		case PERF_RECORD_MMAP2:
			if (!procs_tracking(ps, ev->pid))
				break;
			procs_mmap(ps, ev->pid, ev->start, ev->len, ev->pgoff,
				   short_path_str(&ev->path), &ev->id);
			if (t->on_mmap)
				t->on_mmap(t->on_mmap_ctx, ev->pid, short_path_str(&ev->path));
			break;
		case PERF_RECORD_COMM:
			if (procs_tracking(ps, ev->pid))
				procs_exec(ps, ev->pid);
			break;
		case PERF_RECORD_FORK:
			if (procs_tracking(ps, ev->ppid))
				procs_fork(ps, ev->ppid, ev->pid);
			break;
		case PERF_RECORD_EXIT:
			procs_exit(ps, ev->pid, ev->time);
			break;
		}
		if (ev->type != PERF_RECORD_EXIT && ev->time <= t->lost_until)
			procs_mark_stale(ps, ev->pid);
		short_path_free(&ev->path);
	}
}

bool perf_tracker_pending(const struct perf_tracker *t, uint32_t pid)
{
	size_t i;

	for (i = t->qhead; i < t->qlen; i++)
		if (t->q[i].pid == pid)
			return true;
	return false;
}
