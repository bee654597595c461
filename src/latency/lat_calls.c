// SPDX-License-Identifier: GPL-2.0
/* Stacks waiting for their call to end, and slow calls' breakdowns: see lat_calls.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "latency/lat_calls.h"
#include "profile/resolve.h"
#include "util/array.h"

struct pending {
	uint64_t time_ns, ns;
	uint64_t tail_ns;	/* a switch-out's: its run before it, on CPU (weights_in_call) */
	bool on_cpu;
	uint32_t key_bytes;
	struct stack_key *key;
};

struct thread_stacks {
	struct hmap_node node;
	uint32_t tid;
	struct pending *v;
	size_t n, cap;
};

static bool tid_eq(const struct hmap_node *n, const void *tid)
{
	return ((const struct thread_stacks *)n)->tid == *(const uint32_t *)tid;
}

static struct thread_stacks *thread_of(struct lat_calls *lc, uint32_t tid, bool create)
{
	struct thread_stacks *t;
	bool added;

	if (!create)
		return (struct thread_stacks *)hmap_find(&lc->threads, hash_u64(tid), tid_eq, &tid);
	t = (struct thread_stacks *)hmap_find_or_add(&lc->threads, hash_u64(tid), tid_eq, &tid,
						     sizeof(*t), &added);
	if (t && added)
		t->tid = tid;
	return t;
}

int lat_calls_init(struct lat_calls *lc, const char *root, uint64_t period_ns, int top)
{
	memset(lc, 0, sizeof(*lc));
	lc->root = root;
	lc->period_ns = period_ns;
	lc->top = top;
	lc->slowest = calloc(top > 0 ? top : 1, sizeof(*lc->slowest));
	if (!lc->slowest || hmap_init(&lc->threads, 64) || stacks_init(&lc->breakdown))
		return -ENOMEM;
	return 0;
}

void lat_calls_free(struct lat_calls *lc)
{
	struct hmap_node *n;
	size_t i, k;
	int j;

	hmap_for_each(&lc->threads, i, n) {
		struct thread_stacks *t = (struct thread_stacks *)n;

		for (k = 0; k < t->n; k++)
			free(t->v[k].key);
		free(t->v);
	}
	hmap_free_all(&lc->threads);
	free(lc->bounds);
	for (j = 0; j < lc->nslowest; j++) {
		stacks_free(&lc->slowest[j].stacks);
		lat_tree_free(&lc->slowest[j].tree);
	}
	free(lc->slowest);
	stacks_free(&lc->breakdown);
	lat_tree_free(&lc->tree);
}

int lat_calls_stack(struct lat_calls *lc, uint32_t tid, uint64_t time_ns,
		    const struct stack_key *key, uint32_t key_bytes, uint64_t ns, bool on_cpu)
{
	struct thread_stacks *t = thread_of(lc, tid, true);
	struct pending *p;

	if (!t)
		return -ENOMEM;
	if (t->n == LAT_MAX_PENDING) {
		/* The oldest belong to calls that ended fast long ago, most likely. */
		free(t->v[0].key);
		memmove(&t->v[0], &t->v[1], (t->n - 1) * sizeof(*t->v));
		t->n--;
		lc->dropped++;
	}
	if (t->n == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		struct pending *v = realloc(t->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	p = &t->v[t->n];
	p->key = malloc(key_bytes);
	if (!p->key)
		return -ENOMEM;
	memcpy(p->key, key, key_bytes);
	p->key_bytes = key_bytes;
	p->time_ns = time_ns;
	p->ns = ns;
	p->tail_ns = 0;
	p->on_cpu = on_cpu;
	t->n++;
	lc->taken++;
	return 0;
}

/*
 * The stack as the breakdown shows it: the call as its root (in comm's
 * place, the first frame), then [on-cpu] or [off-cpu], then its frames; or,
 * without a stack, the marker alone under that.  Threads merge: no tid.
 */
static int add_annotated(struct stack_table *st, const char *root, const struct stack_key *key,
			 const char *side, const char *marker, uint64_t ns)
{
	size_t front = key ? sizeof(*key) + key->nkernel * sizeof(uint64_t) +
				 key->nuser * sizeof(struct uframe) : sizeof(struct stack_key);
	size_t waker = key ? key->nwaker * sizeof(struct uframe) : 0;
	struct stack_key *k = calloc(1, front + 3 * sizeof(struct uframe) + waker);
	size_t key_front = front;
	struct uframe *u;
	int rc, nu;

	if (!k)
		return -ENOMEM;
	if (key) {
		memcpy(k, key, front);
		/* Named now: below, the stack loses the pid whose perf map names its JIT frames. */
		k->nuser = resolve_jit_frames(key->pid, (struct uframe *)stack_user(k), k->nuser,
					      k->nuser + 1);
		front = sizeof(*k) + k->nkernel * sizeof(uint64_t) + k->nuser * sizeof(struct uframe);
	}
	k->pid = k->tid = 0;
	memset(k->comm, 0, sizeof(k->comm));
	strncpy(k->comm, root, sizeof(k->comm) - 1);
	u = (struct uframe *)((uint8_t *)k + front);
	nu = 0;
	if (marker) {
		u[nu].kind = UFRAME_NAME;
		u[nu++].addr = (uint64_t)(uintptr_t)stacks_name(marker);
	}
	u[nu].kind = UFRAME_NAME;	/* outermost: right under the root */
	u[nu++].addr = (uint64_t)(uintptr_t)stacks_name(side);
	k->nuser += nu;
	/* --wakers: who woke the thread stays after the user frames */
	if (waker)
		memcpy(u + nu, (const uint8_t *)key + key_front, waker);
	rc = stacks_add_n(st, k, front + nu * sizeof(struct uframe) + waker, ns);
	free(k);
	return rc;
}

/* A switch-out's user frames alone, on CPU: where its thread ran before it left. */
static int add_user_part(struct stack_table *st, const char *root, const struct stack_key *key,
			 uint64_t ns)
{
	size_t ubytes = key->nuser * sizeof(struct uframe);
	struct stack_key *k = malloc(sizeof(*k) + ubytes);
	int rc;

	if (!k)
		return -ENOMEM;
	*k = *key;
	k->nkernel = 0;
	k->nwaker = 0;
	memcpy(k + 1, stack_user(key), ubytes);
	rc = add_annotated(st, root, k, "[on-cpu]", NULL, ns);
	free(k);
	return rc;
}

/* Move slow call s into the --top list if it is among the slowest; else free its stacks. */
static void keep_if_slowest(struct lat_calls *lc, struct lat_slow *s)
{
	int i = lc->nslowest;

	if (lc->top <= 0 || (i == lc->top && s->call.dur_ns <= lc->slowest[i - 1].call.dur_ns)) {
		stacks_free(&s->stacks);
		lat_tree_free(&s->tree);
		return;
	}
	if (i == lc->top) {
		stacks_free(&lc->slowest[--i].stacks);
		lat_tree_free(&lc->slowest[i].tree);
	} else {
		lc->nslowest++;
	}
	while (i > 0 && lc->slowest[i - 1].call.dur_ns < s->call.dur_ns) {
		lc->slowest[i] = lc->slowest[i - 1];
		i--;
	}
	lc->slowest[i] = *s;
}

struct in_call {
	uint64_t time_ns;
	size_t i;
};

static int by_time(const void *a, const void *b)
{
	const struct in_call *x = a, *y = b;

	if (x->time_ns != y->time_ns)
		return x->time_ns < y->time_ns ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/*
 * What each of t's stacks taken in [start, end] weighs (0 outside): an
 * off-CPU stack its time off; a cpu sample the time since the thread's last
 * sample, its call's start or its return to the CPU, whichever came last:
 * the time its thread ran there since the last thing seen of it.  At -F 999
 * that is the period (1 ms), unless the CPU itself was taken away from
 * under the thread: a VM's vCPU stolen by its host (the guest sees no
 * switch, and the sampling timer fires once when the vCPU is back), which
 * on our 2-vCPU VM under 4 other builds hid 30-620 ms of a two_way run's
 * ~900 ms of computing calls as "[not sampled: between samples]" at a fixed
 * weight per sample, in step with the steal time /proc/stat counted.
 *
 * A switch-out is where its thread was at the end of its run too: the time
 * it ran since the last thing seen of it, tail[i], is its user stack's, on
 * CPU (the kernel part, the switch itself, took microseconds).  A thread
 * preempted every millisecond or two (two_way's computing calls beside 3
 * CPU burners on 2 vCPUs) left ~300 of its ~800 ms between its last sample
 * and its switch-out.
 *
 * An array of t->n weights, then t->n tails; NULL if out of memory (each
 * stack then weighs what it was given, the period for a sample).
 */
static uint64_t *weights_in_call(const struct thread_stacks *t, uint64_t start, uint64_t end)
{
	struct in_call *order = malloc((t->n ? t->n : 1) * sizeof(*order));
	uint64_t *w = calloc(t->n ? 2 * t->n : 1, sizeof(*w)), from = start, done;
	size_t i, n = 0;

	if (!order || !w) {
		free(order);
		free(w);
		return NULL;
	}
	for (i = 0; i < t->n; i++) {
		if (t->v[i].time_ns < start || t->v[i].time_ns > end)
			continue;
		order[n].time_ns = t->v[i].time_ns;
		order[n++].i = i;
	}
	/* Arrival order is time order, but for an interval ended at a later switch-out. */
	qsort(order, n, sizeof(*order), by_time);
	for (i = 0; i < n; i++) {
		const struct pending *p = &t->v[order[i].i];

		if (!p->on_cpu) {
			w[order[i].i] = p->ns;
			w[t->n + order[i].i] = p->time_ns > from ? p->time_ns - from : 0;
			done = p->time_ns + p->ns;
		} else {
			w[order[i].i] = p->time_ns > from ? p->time_ns - from : 0;
			done = p->time_ns;
		}
		from = done > from ? done : from;
	}
	free(order);
	return w;
}

int lat_calls_slow(struct lat_calls *lc, const struct lat_call *c, const uint64_t *ev,
		   const char *values)
{
	struct thread_stacks *t = thread_of(lc, c->tid, false);
	uint64_t end = c->start_ns + c->dur_ns, on = 0, off = 0, on_exact, off_exact;
	uint64_t given = 0, cum = 0, *wt = NULL;
	struct lat_slow s = { .call = *c };
	size_t i, kept = 0, k;
	int rc = 0;

	if (values)
		snprintf(s.values, sizeof(s.values), "%s", values);
	on_exact = c->on_cpu_ns < c->dur_ns ? c->on_cpu_ns : c->dur_ns;
	off_exact = lc->keyed ? 0 : c->dur_ns - on_exact;
	s.call.on_cpu_ns = on_exact;
	s.off_cpu_ns = off_exact;
	if (stacks_init(&s.stacks))
		return -ENOMEM;
	if (t)
		wt = weights_in_call(t, c->start_ns, end);
	for (i = 0; t && i < t->n; i++) {
		struct pending *p = &t->v[i];

		if (p->time_ns >= c->start_ns && p->time_ns <= end) {
			if (wt) {
				p->ns = wt[i];
				p->tail_ns = wt[t->n + i];
			}
			if (p->on_cpu)
				on += p->ns;
			else
				off += p->ns;
			on += p->tail_ns;
		}
	}
	free(wt);
	/*
	 * Off-CPU stacks weigh what they were off; samples share the call's
	 * exact CPU time in proportion (more samples than its CPU time is
	 * sampling noise), rounded so the shares add up.
	 */
	for (i = 0; t && i < t->n; i++) {
		struct pending *p = &t->v[i];
		uint64_t w;

		if (p->time_ns > end) {
			t->v[kept++] = *p;	/* a later call's */
			continue;
		}
		if (p->time_ns >= c->start_ns && !rc) {
			w = p->ns;
			if (p->on_cpu && on > on_exact) {
				cum += p->ns;
				w = (uint64_t)((double)cum * on_exact / on) - given;
				given += w;
			}
			if (w)
				rc = add_annotated(&s.stacks, lc->root, p->key,
						   p->on_cpu ? "[on-cpu]" : "[off-cpu]", NULL, w);
			w = p->tail_ns;
			if (w && on > on_exact) {
				cum += p->tail_ns;
				w = (uint64_t)((double)cum * on_exact / on) - given;
				given += w;
			}
			if (w && !rc)
				rc = add_user_part(&s.stacks, lc->root, p->key, w);
			lc->claimed++;
		}
		free(p->key);
	}
	if (t)
		t->n = kept;
	if (!rc && !lc->keyed && on < on_exact)
		rc = add_annotated(&s.stacks, lc->root, NULL, "[on-cpu]",
				   "[not sampled: between samples]",
				   on_exact - on);
	if (!rc && !lc->keyed && off < off_exact)
		rc = add_annotated(&s.stacks, lc->root, NULL, "[off-cpu]", "[no stack taken]",
				   off_exact - off);
	if (!rc && stacks_sort(&s.stacks))
		rc = -ENOMEM;
	for (k = 0; !rc && k < s.stacks.nsorted; k++) {
		const struct stack *st = s.stacks.sorted[k];

		rc = stacks_add_n(&lc->breakdown, &st->key, st->key_bytes, st->count);
	}
	if (!rc && lc->children) {
		rc = lat_tree_add(&s.tree, ev, ev ? c->nchild : 0, c->dur_ns, c->child_lost);
		if (!rc)
			rc = lat_tree_add(&lc->tree, ev, ev ? c->nchild : 0, c->dur_ns,
					  c->child_lost);
	}
	lc->slow++;
	lc->slow_ns += c->dur_ns;
	lc->on_cpu_ns += on_exact;
	lc->off_cpu_ns += off_exact;
	keep_if_slowest(lc, &s);
	return rc;
}

int lat_calls_bound(struct lat_calls *lc, uint64_t now_ns,
		    uint64_t (*open_start)(void *ctx, uint32_t tid), void *ctx)
{
	struct hmap_node *n;
	uint64_t start;
	size_t i;

	lc->nbounds = 0;
	hmap_for_each(&lc->threads, i, n) {
		struct thread_stacks *t = (struct thread_stacks *)n;

		if (!t->n)
			continue;
		if (array_reserve((void **)&lc->bounds, &lc->bounds_cap, lc->nbounds + 1,
				  sizeof(*lc->bounds), 64))
			return -ENOMEM;
		start = open_start(ctx, t->tid);
		lc->bounds[lc->nbounds].tid = t->tid;
		lc->bounds[lc->nbounds++].before_ns = start ? start : now_ns;
	}
	return 0;
}

void lat_calls_prune(struct lat_calls *lc)
{
	size_t b, i, kept;

	for (b = 0; b < lc->nbounds; b++) {
		struct thread_stacks *t = thread_of(lc, lc->bounds[b].tid, false);

		for (i = kept = 0; t && i < t->n; i++) {
			if (t->v[i].time_ns >= lc->bounds[b].before_ns) {
				t->v[kept++] = t->v[i];
				continue;
			}
			free(t->v[i].key);
			lc->pruned++;
		}
		if (t)
			t->n = kept;
	}
	lc->nbounds = 0;
}
