// SPDX-License-Identifier: GPL-2.0
/*
 * stitch snapshot, the report: grouping and printing (see snap_report.h).
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "formats/json.h"
#include "formats/output.h"
#include "snapshot/snap_report.h"

char snap_state_letter(uint32_t state, uint32_t exit_state)
{
	/* fs/proc/array.c's order: the index is the highest reported bit. */
	static const char letters[] = "RSDTtXZPI";
	uint32_t s = (state & 0x7f) | (exit_state & 0x7f);
	int i = 0;

	if ((state & 0x402) == 0x402)	/* TASK_IDLE: uninterruptible but no load */
		return 'I';
	if (state & 0x1000)		/* TASK_RTLOCK_WAIT shows as D */
		s = 2;
	while (s) {
		s >>= 1;
		i++;
	}
	return letters[i];
}

static const struct {
	long nr;
	const char *name;
	bool fd;
} syscalls[] = {
	{ SYS_read, "read", true },		{ SYS_write, "write", true },
	{ SYS_pread64, "pread64", true },	{ SYS_pwrite64, "pwrite64", true },
	{ SYS_readv, "readv", true },		{ SYS_writev, "writev", true },
	{ SYS_ioctl, "ioctl", true },		{ SYS_fsync, "fsync", true },
	{ SYS_fdatasync, "fdatasync", true },	{ SYS_flock, "flock", true },
	{ SYS_fcntl, "fcntl", true },		{ SYS_accept, "accept", true },
	{ SYS_accept4, "accept4", true },	{ SYS_connect, "connect", true },
	{ SYS_recvfrom, "recvfrom", true },	{ SYS_recvmsg, "recvmsg", true },
	{ SYS_recvmmsg, "recvmmsg", true },	{ SYS_sendto, "sendto", true },
	{ SYS_sendmsg, "sendmsg", true },	{ SYS_sendmmsg, "sendmmsg", true },
	/* x86-64's legacy calls: arm64 has only their successors (epoll_pwait, ppoll, ...). */
#ifdef SYS_epoll_wait
	{ SYS_epoll_wait, "epoll_wait", true },	{ SYS_poll, "poll", false },
	{ SYS_select, "select", false },	{ SYS_pause, "pause", false },
#endif
	{ SYS_epoll_pwait, "epoll_pwait", true },
	{ SYS_epoll_pwait2, "epoll_pwait2", true },
	{ SYS_io_uring_enter, "io_uring_enter", true },
	{ SYS_ppoll, "ppoll", false },		{ SYS_pselect6, "pselect6", false },
	{ SYS_futex, "futex", false },		{ SYS_nanosleep, "nanosleep", false },
	{ SYS_clock_nanosleep, "clock_nanosleep", false },
	{ SYS_wait4, "wait4", false },		{ SYS_waitid, "waitid", false },
	{ SYS_rt_sigsuspend, "rt_sigsuspend", false },
	{ SYS_rt_sigtimedwait, "rt_sigtimedwait", false },
	{ SYS_openat, "openat", false },	{ SYS_mmap, "mmap", false },
	{ SYS_munmap, "munmap", false },	{ SYS_msync, "msync", false },
	{ SYS_sched_yield, "sched_yield", false }, { SYS_getppid, "getppid", false },
	{ SYS_semop, "semop", false },		{ SYS_semtimedop, "semtimedop", false },
	{ SYS_msgrcv, "msgrcv", false },	{ SYS_mq_timedreceive, "mq_timedreceive", true },
	{ SYS_sync, "sync", false },		{ SYS_syncfs, "syncfs", true },
	{ SYS_sync_file_range, "sync_file_range", true },
	{ SYS_splice, "splice", true },		{ SYS_sendfile, "sendfile", true },
	{ SYS_copy_file_range, "copy_file_range", true },
	{ SYS_getdents64, "getdents64", true }, { SYS_fallocate, "fallocate", true },
	{ SYS_ftruncate, "ftruncate", true },
};

static int syscall_index(long nr)
{
	size_t i;

	for (i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (syscalls[i].nr == nr)
			return i;
	return -1;
}

const char *snap_syscall_name(long nr)
{
	int i = syscall_index(nr);

	return i < 0 ? NULL : syscalls[i].name;
}

bool snap_syscall_takes_fd(long nr)
{
	int i = syscall_index(nr);

	return i >= 0 && syscalls[i].fd;
}

void snap_clean(char *dst, size_t len, const char *src, size_t srclen)
{
	size_t o = 0, i;

	if (!len)
		return;
	for (i = 0; i < srclen && src[i]; i++) {
		unsigned char c = src[i];
		int need = c >= 0x20 && c < 0x7f && c != '\\' ? 1 : 4;

		/* Room for this character and, if more follow, "...". */
		if (o + need + (i + 1 < srclen && src[i + 1] ? 3 : 0) >= len) {
			if (o + 3 < len) {
				memcpy(dst + o, "...", 3);
				o += 3;
			}
			break;
		}
		if (need == 1)
			dst[o++] = c;
		else
			o += snprintf(dst + o, len - o, "\\x%02x", c);
	}
	dst[o] = '\0';
}

void snap_fmt_duration(char *buf, size_t len, uint64_t ns)
{
	if (ns >= 1000000000ull)
		snprintf(buf, len, "%.1f s", ns / 1e9);
	else if (ns >= 1000000ull)
		snprintf(buf, len, "%.0f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.0f us", ns / 1e3);
}

/* ---- grouping ------------------------------------------------------------ */

static const struct snap_thread *sort_base;

static int cmp_key(const void *a, const void *b)
{
	const struct snap_thread *x = &sort_base[*(const size_t *)a];
	const struct snap_thread *y = &sort_base[*(const size_t *)b];
	int c;

	if (x->state != y->state)
		return x->state < y->state ? -1 : 1;
	c = strcmp(x->stack ? x->stack : "", y->stack ? y->stack : "");
	if (c)
		return c;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_group(const void *a, const void *b)
{
	const struct snap_group *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->max_since != y->max_since)
		return x->max_since > y->max_since ? -1 : 1;
	return sort_base[x->members[0]].tid < sort_base[y->members[0]].tid ? -1 : 1;
}

int snap_group_threads(struct snap_thread *t, size_t n, struct snap_group **groups)
{
	size_t *order, i, j;
	struct snap_group *g;
	int ng = 0, k;

	*groups = NULL;
	if (!n)
		return 0;
	order = malloc(n * sizeof(*order));
	g = calloc(n, sizeof(*g));
	if (!order || !g) {
		free(order);
		free(g);
		return -1;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	sort_base = t;
	qsort(order, n, sizeof(*order), cmp_key);
	for (i = 0; i < n; i = j) {
		struct snap_group *cur = &g[ng];

		for (j = i + 1; j < n; j++) {
			const struct snap_thread *a = &t[order[i]], *b = &t[order[j]];

			if (a->state != b->state ||
			    strcmp(a->stack ? a->stack : "", b->stack ? b->stack : ""))
				break;
		}
		cur->members = malloc((j - i) * sizeof(size_t));
		if (!cur->members) {
			snap_groups_free(g, ng);
			free(order);
			return -1;
		}
		memcpy(cur->members, order + i, (j - i) * sizeof(size_t));
		cur->count = j - i;
		cur->min_since = UINT64_MAX;
		for (k = 0; k < (int)cur->count; k++) {
			uint64_t s = t[cur->members[k]].since_ns;

			if (s < cur->min_since)
				cur->min_since = s;
			if (s > cur->max_since)
				cur->max_since = s;
		}
		ng++;
	}
	qsort(g, ng, sizeof(*g), cmp_group);
	for (k = 0; k < ng; k++)
		for (i = 0; i < g[k].count; i++)
			t[g[k].members[i]].group = k;
	free(order);
	*groups = g;
	return ng;
}

void snap_groups_free(struct snap_group *g, int ng)
{
	int i;

	for (i = 0; g && i < ng; i++)
		free(g[i].members);
	free(g);
}

/* ---- text ------------------------------------------------------------------ */

static const char *state_word(char s)
{
	switch (s) {
	case 'R':
		return "running or runnable";
	case 'S':
		return "sleeping";
	case 'D':
		return "uninterruptible";
	case 'T':
		return "stopped";
	case 't':
		return "traced";
	case 'Z':
		return "zombie";
	case 'X':
		return "dead";
	case 'I':
		return "idle";
	case 'P':
		return "parked";
	}
	return "?";
}

/* "pid 4242" or "pids 101-137" (lowest-highest), "tid ..." the same. */
static void print_range(FILE *f, const char *what, uint32_t lo, uint32_t hi)
{
	if (lo == hi)
		fprintf(f, "%s %u", what, lo);
	else
		fprintf(f, "%ss %u-%u", what, lo, hi);
}

static void print_stack(FILE *f, const struct snap_thread *t)
{
	const char *s = t->stack, *e;

	if (!s || !*s) {
		fprintf(f, "        [no stack: %s]\n", t->note ? t->note : "none read");
		return;
	}
	for (; *s; s = e + 1) {
		e = strchr(s, '\n');
		if (!e)
			break;
		fprintf(f, "        %.*s\n", (int)(e - s), s);
	}
}

static void print_group(FILE *f, const struct snap_thread *t, const struct snap_group *g)
{
	const struct snap_thread *first = &t[g->members[0]];
	uint32_t plo = UINT32_MAX, phi = 0, tlo = UINT32_MAX, thi = 0;
	size_t i, on_cpu = 0, comms = 0, waits = 0;
	char a[32], b[32];

	for (i = 0; i < g->count; i++) {
		const struct snap_thread *x = &t[g->members[i]];

		plo = x->pid < plo ? x->pid : plo;
		phi = x->pid > phi ? x->pid : phi;
		tlo = x->tid < tlo ? x->tid : tlo;
		thi = x->tid > thi ? x->tid : thi;
		on_cpu += x->on_cpu;
		comms += strcmp(x->comm, first->comm) != 0;
		waits += (x->wait && first->wait) ? strcmp(x->wait, first->wait) != 0 :
			 x->wait != first->wait;
	}
	fprintf(f, "%zu thread%s (%s%s ", g->count, g->count == 1 ? "" : "s", first->comm,
		comms ? " and others" : "");
	print_range(f, "pid", plo, phi);
	fprintf(f, ", ");
	print_range(f, "tid", tlo, thi);
	fprintf(f, ") in %c", first->state);
	if (on_cpu == g->count) {
		fprintf(f, ", on CPU now");
	} else if (g->max_since == SNAP_SINCE_UNKNOWN) {
		/* how long: not known (from /proc) */
	} else {
		snap_fmt_duration(a, sizeof(a), g->min_since);
		snap_fmt_duration(b, sizeof(b), g->max_since);
		if (!strcmp(a, b))
			fprintf(f, " for %s", a);
		else if (g->min_since >= 1000000000ull)	/* both in seconds: "2.1-4.7 s" */
			fprintf(f, " for %.1f-%s", g->min_since / 1e9, b);
		else
			fprintf(f, " for %s-%s", a, b);
	}
	fprintf(f, " (%s):\n", state_word(first->state));
	if (first->wait)
		fprintf(f, "    waits in %s%s\n", first->wait,
			waits ? " (arguments differ between threads)" : "");
	if (on_cpu)
		fprintf(f, "    %zu running on a CPU when read: kernel stack not readable, user "
			"stack as of its last kernel entry (may be stale)\n", on_cpu);
	if (first->note && first->stack && *first->stack && !first->on_cpu)
		fprintf(f, "    %s\n", first->note);
	print_stack(f, first);
}

static void print_thread(FILE *f, const struct snap_thread *t)
{
	char a[32], c[32];

	snap_fmt_duration(c, sizeof(c), t->cpu_ns);
	fprintf(f, "tid %u (%s pid %u) in %c", t->tid, t->comm, t->pid, t->state);
	if (t->on_cpu) {
		fprintf(f, ", on CPU now");
	} else if (t->since_ns != SNAP_SINCE_UNKNOWN) {
		snap_fmt_duration(a, sizeof(a), t->since_ns);
		fprintf(f, " for %s", a);
	}
	fprintf(f, " (%s), cpu time %s:\n", state_word(t->state), c);
	if (t->wait)
		fprintf(f, "    waits in %s\n", t->wait);
	if (t->on_cpu)
		fprintf(f, "    running on a CPU when read: kernel stack not readable, user stack "
			"as of its last kernel entry (may be stale)\n");
	if (t->note && t->stack && *t->stack && !t->on_cpu)
		fprintf(f, "    %s\n", t->note);
	print_stack(f, t);
}

void snap_print_text(FILE *f, const struct snap_thread *t, size_t n,
		     const struct snap_group *g, int ng, bool no_group)
{
	size_t i;
	int k;

	if (no_group) {
		for (k = 0; k < ng; k++)
			for (i = 0; i < g[k].count; i++) {
				fputc('\n', f);
				print_thread(f, &t[g[k].members[i]]);
			}
		return;
	}
	for (k = 0; k < ng; k++) {
		fputc('\n', f);
		print_group(f, t, &g[k]);
	}
	(void)n;
}

/* ---- JSON ------------------------------------------------------------------ */

void snap_print_json(FILE *f, const struct snap_thread *t)
{
	const char *s, *e;
	char state[2] = { t->state, 0 };
	bool first = true;

	fprintf(f, "{\"round\":%u,\"pid\":%u,\"tid\":%u,\"comm\":", t->round, t->pid, t->tid);
	json_string(f, t->comm);
	fprintf(f, ",\"state\":");
	json_string(f, state);
	fprintf(f, ",\"group\":%d,\"on_cpu\":%s,\"cpu_ns\":%" PRIu64, t->group,
		t->on_cpu ? "true" : "false", t->cpu_ns);
	if (t->since_ns == SNAP_SINCE_UNKNOWN)
		fprintf(f, ",\"since_ran_ns\":null");
	else
		fprintf(f, ",\"since_ran_ns\":%" PRIu64, t->since_ns);
	if (t->in_syscall) {
		const char *name = snap_syscall_name(t->syscall_nr);

		fprintf(f, ",\"syscall_nr\":%ld,\"syscall\":", t->syscall_nr);
		if (name)
			json_string(f, name);
		else
			fprintf(f, "null");
	}
	fprintf(f, ",\"wait\":");
	if (t->wait)
		json_string(f, t->wait);
	else
		fprintf(f, "null");
	fprintf(f, ",\"note\":");
	if (t->note)
		json_string(f, t->note);
	else
		fprintf(f, "null");
	fprintf(f, ",\"frames\":[");
	for (s = t->stack ? t->stack : ""; *s; s = e + 1) {
		char *frame;

		e = strchr(s, '\n');
		if (!e)
			break;
		frame = strndup(s, e - s);
		if (!frame)
			break;
		fprintf(f, "%s", first ? "" : ",");
		json_string(f, frame);
		free(frame);
		first = false;
	}
	fprintf(f, "]}");
}
