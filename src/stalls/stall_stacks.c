// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>

#include "profile/debug_prefetch.h"
#include "stalls/stall_stacks.h"

struct pending {
	uint64_t time_ns;
	uint32_t bytes;
	struct stack_key key;	/* variable length: last */
};

struct thread_samples {
	struct hmap_node node;
	uint32_t tid;
	struct pending **v;
	size_t n, cap;
};

static bool tid_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct thread_samples *)n)->tid == *(const uint32_t *)key;
}

static struct thread_samples *thread_find(struct stalls_report *sr, uint32_t tid, bool create)
{
	uint64_t h = hash_u64(tid);
	struct thread_samples *ts;
	bool added;

	if (!create)
		return (struct thread_samples *)hmap_find(&sr->threads, h, tid_eq, &tid);
	ts = (struct thread_samples *)hmap_find_or_add(&sr->threads, h, tid_eq, &tid, sizeof(*ts),
						       &added);
	if (ts && added)
		ts->tid = tid;
	return ts;
}

int stalls_report_init(struct stalls_report *sr, FILE *out, int top, struct resolver *res)
{
	memset(sr, 0, sizeof(*sr));
	sr->out = out;
	sr->top = top;
	sr->res = res;
	sr->nf = malloc(RESOLVE_MAX_FRAMES * sizeof(*sr->nf));
	if (!sr->nf || hmap_init(&sr->threads, 64) || stacks_init(&sr->weighted))
		return -ENOMEM;
	return 0;
}

void stalls_report_free(struct stalls_report *sr)
{
	struct hmap_node *n;
	size_t i, j;

	hmap_for_each(&sr->threads, i, n) {
		struct thread_samples *ts = (struct thread_samples *)n;

		for (j = 0; j < ts->n; j++)
			free(ts->v[j]);
		free(ts->v);
	}
	hmap_free_all(&sr->threads);
	stacks_free(&sr->weighted);
	free(sr->nf);
}

int stalls_report_sample(struct stalls_report *sr, uint64_t time_ns, const struct stack_key *key,
			 uint32_t key_bytes)
{
	struct thread_samples *ts = thread_find(sr, key->tid, true);
	struct pending *p;

	if (!ts)
		return -ENOMEM;
	if (ts->n == STALLS_MAX_PENDING_SAMPLES) {
		sr->dropped_samples++;
		return 0;
	}
	if (ts->n == ts->cap) {
		size_t cap = ts->cap ? 2 * ts->cap : 64;
		struct pending **v = realloc(ts->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		ts->v = v;
		ts->cap = cap;
	}
	p = malloc(sizeof(*p) - sizeof(p->key) + key_bytes);
	if (!p)
		return -ENOMEM;
	p->time_ns = time_ns;
	p->bytes = key_bytes;
	memcpy(&p->key, key, key_bytes);
	ts->v[ts->n++] = p;
	return 0;
}

int stalls_report_pending(struct stalls_report *sr, uint32_t *tids, uint32_t *pids, int max)
{
	struct hmap_node *n;
	size_t i;
	int k = 0;

	hmap_for_each(&sr->threads, i, n) {
		const struct thread_samples *ts = (const struct thread_samples *)n;

		if (ts->n && k < max) {
			pids[k] = ts->v[0]->key.pid;
			tids[k++] = ts->tid;
		}
	}
	return k;
}

uint64_t stalls_report_unclaimed(struct stalls_report *sr)
{
	struct hmap_node *n;
	uint64_t total = 0;
	size_t i;

	hmap_for_each(&sr->threads, i, n)
		total += ((const struct thread_samples *)n)->n;
	return total + sr->orphan_samples;
}

/* One stack as printed: frames innermost first, one per line. */
struct shown {
	char *text;
	uint64_t count;
};

static char *render_stack(struct stalls_report *sr, const struct stack *s)
{
	int n = resolve_stack(sr->res, &s->key, sr->nf, RESOLVE_MAX_FRAMES), i;
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	if (!f)
		return NULL;
	/* Innermost first, like a debugger's backtrace. */
	for (i = n - 1; i >= 0; i--) {
		const struct named_frame *nf = &sr->nf[i];

		fputs("        ", f);
		resolve_frame_line(f, nf, nf->name, "  ");
		fputc('\n', f);
	}
	if (fclose(f)) {
		free(text);
		return NULL;
	}
	return text;
}

static int cmp_text(const void *a, const void *b)
{
	return strcmp(((const struct shown *)a)->text, ((const struct shown *)b)->text);
}

static int cmp_count_desc(const void *a, const void *b)
{
	const struct shown *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	return strcmp(x->text, y->text);
}

/*
 * The stall's stacks as a reader sees them: samples at different addresses
 * of the same source lines are one stack here (-o keeps the addresses).
 */
static void print_stacks(struct stalls_report *sr, struct stack_table *st)
{
	struct shown *v = calloc(st->nsorted ? st->nsorted : 1, sizeof(*v));
	size_t i, n = 0;

	if (!v)
		return;
	debug_prefetch_stacks(st);
	for (i = 0; i < st->nsorted; i++) {
		v[n].text = render_stack(sr, st->sorted[i]);
		v[n].count = st->sorted[i]->count;
		if (v[n].text)
			n++;
	}
	qsort(v, n, sizeof(*v), cmp_text);
	for (i = 1; i < n; i++) {	/* merge equal neighbours into the first */
		size_t j = i;

		while (j < n && !strcmp(v[j].text, v[i - 1].text)) {
			v[i - 1].count += v[j].count;
			free(v[j].text);
			v[j].text = NULL;
			j++;
		}
		if (j > i) {
			memmove(&v[i], &v[j], (n - j) * sizeof(*v));
			n -= j - i;
		}
	}
	qsort(v, n, sizeof(*v), cmp_count_desc);
	for (i = 0; i < n; i++) {
		if ((int)i < sr->top)
			fprintf(sr->out, "    %" PRIu64 " of %" PRIu64 " samples:\n%s", v[i].count,
				st->total, v[i].text);
		free(v[i].text);
	}
	if (n > (size_t)sr->top)
		fprintf(sr->out, "    ... %zu more stacks (-o FILE.folded has them all)\n",
			n - sr->top);
	free(v);
}

/*
 * The stall's on-CPU milliseconds shared among its stacks in proportion to
 * their samples, rounded so the shares add up to the whole.
 */
static void add_weighted(struct stalls_report *sr, struct stack_table *st, uint64_t ms)
{
	uint64_t cum = 0, given = 0;
	size_t i;

	for (i = 0; i < st->nsorted; i++) {
		const struct stack *s = st->sorted[i];
		uint64_t upto;

		cum += s->count;
		upto = cum * ms / st->total;
		if (upto > given)
			stacks_add_n(&sr->weighted, &s->key, s->key_bytes, upto - given);
		given = upto;
	}
}

void stalls_report_stall(struct stalls_report *sr, const struct stall_event *ev, bool ongoing)
{
	struct thread_samples *ts = thread_find(sr, ev->tid, false);
	const char *loop = stalls_syscall_name(ev->loop_nr);
	uint64_t ms = (ev->oncpu_ns + 500000) / 1000000;
	struct stack_table st;
	char comm[17];
	size_t i, kept = 0;

	if (stacks_init(&st))
		return;
	/*
	 * This stall's samples.  Older ones belong to a stall we never heard
	 * of (its record lost): counted as unclaimed, and dropped.
	 */
	for (i = 0; ts && i < ts->n; i++) {
		struct pending *p = ts->v[i];

		if (p->time_ns <= ev->end_ns) {
			if (p->time_ns >= ev->start_ns)
				stacks_add(&st, &p->key, p->bytes);
			else
				sr->orphan_samples++;
			free(p);
		} else {
			ts->v[kept++] = p;
		}
	}
	if (ts)
		ts->n = kept;
	memcpy(comm, ev->comm, 16);
	comm[16] = '\0';
	for (i = 0; comm[i]; i++)	/* one token: the line stays parseable */
		if ((unsigned char)comm[i] <= 0x20 || comm[i] == 0x7f)
			comm[i] = (unsigned char)comm[i] == 0x20 ? '_' : '?';
	fprintf(sr->out, "stall: tid=%u pid=%u comm=%s on-cpu=%.1fms wall=%.1fms loop=", ev->tid,
		ev->pid, comm, ev->oncpu_ns / 1e6, (ev->end_ns - ev->start_ns) / 1e6);
	if (loop)
		fprintf(sr->out, "%s", loop);
	else if (ev->loop_nr == STALLS_LOOP_UNKNOWN)	/* running since attach, no wait seen */
		fprintf(sr->out, "unseen");
	else
		fprintf(sr->out, "syscall-%u", ev->loop_nr);
	fprintf(sr->out, " samples=%" PRIu64 "%s%s%s\n", st.total,
		ev->from_attach ? " (running since attach: started earlier, lengths are lower bounds)" :
		"", ongoing ? " (still running when tracing stopped)" : "",
		ev->by_exit ? " (ended by the thread's exit)" : "");
	sr->nstalls++;
	sr->oncpu_ms += ms;
	if (!st.total) {
		sr->unsampled_stalls++;
		fprintf(sr->out, "    no sample landed past the threshold (raise -F to see short stalls)\n");
	} else if (stacks_sort(&st) == 0) {
		print_stacks(sr, &st);
		add_weighted(sr, &st, ms);
	}
	fflush(sr->out);
	stacks_free(&st);
}

/* The system calls an event loop waits in, by this architecture's numbers. */
static const struct {
	const char *name;
	uint32_t nr;
} syscalls[] = {
	{ "epoll_pwait", SYS_epoll_pwait }, { "epoll_pwait2", SYS_epoll_pwait2 },
	{ "ppoll", SYS_ppoll }, { "pselect6", SYS_pselect6 },
	{ "io_uring_enter", SYS_io_uring_enter },
	/* x86-64's older calls: arm64 has only the ones above. */
#ifdef SYS_epoll_wait
	{ "epoll_wait", SYS_epoll_wait }, { "poll", SYS_poll }, { "select", SYS_select },
#endif
	/* Not found automatically, for loops that wait otherwise (--loop-syscall). */
	{ "read", SYS_read }, { "recvfrom", SYS_recvfrom }, { "recvmsg", SYS_recvmsg },
	{ "recvmmsg", SYS_recvmmsg }, { "accept", SYS_accept }, { "accept4", SYS_accept4 },
	{ "nanosleep", SYS_nanosleep }, { "clock_nanosleep", SYS_clock_nanosleep },
	{ "futex", SYS_futex }, { "wait4", SYS_wait4 },
#ifdef SYS_pause
	{ "pause", SYS_pause },
#endif
	{ "rt_sigtimedwait", SYS_rt_sigtimedwait },
	{ "msgrcv", SYS_msgrcv }, { "semop", SYS_semop }, { "semtimedop", SYS_semtimedop },
};

const char *stalls_syscall_name(uint32_t nr)
{
	size_t i;

	for (i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (syscalls[i].nr == nr)
			return syscalls[i].name;
	return NULL;
}

long stalls_syscall_nr(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(syscalls) / sizeof(syscalls[0]); i++)
		if (!strcmp(syscalls[i].name, name))
			return syscalls[i].nr;
	return -1;
}
