// SPDX-License-Identifier: GPL-2.0
/* stitch latency's text summary and JSON: see lat_report.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json.h"
#include "profile/debug_prefetch.h"
#include "profile/profile.h"
#include "latency/lat_report.h"

static const double quantiles[] = { 0.50, 0.90, 0.99 };
static const char *const quantile_names[] = { "p50", "p90", "p99" };

/* Frames that only say "it sleeps": the one-line summary skips them. */
static bool scheduler_frame(const char *name)
{
	static const char *const prefixes[] = {
		"__schedule", "schedule", "io_schedule", "__switch_to", "preempt_schedule",
		"__cond_resched", "_cond_resched", "finish_task_switch",
	};
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return true;
	return false;
}

/* A stack of the breakdown, outermost first in nf, past its [on-cpu]/[off-cpu] frame. */
static int resolve_shown(const struct lat_summary *s, const struct stack *st,
			 struct named_frame *nf, int *first)
{
	int n = resolve_stack(s->res, &st->key, nf, RESOLVE_MAX_FRAMES);

	*first = n > 0 ? 1 : 0;
	return n;
}

static bool is_user(const struct named_frame *nf)
{
	return nf->kind != FRAME_KERNEL && nf->module;
}

static bool is_script(const struct named_frame *nf)
{
	return nf->kind >= FRAME_INTERP && nf->kind < FRAME_KIND_NR;
}

/* The program's entry, past main: a frame that says nothing of the call. */
static bool entry_frame(const struct named_frame *nf)
{
	return nf->name && (!strcmp(nf->name, "_start") || !strncmp(nf->name, "__libc_start", 12));
}

/* The innermost interpreter frame outside index from, or -1. */
static int innermost_script_frame(const struct named_frame *nf, int first, int from)
{
	int i;

	for (i = from; i >= first; i--)
		if (is_script(&nf[i]))
			return i;
	return -1;
}

static void print_frame(FILE *f, const struct named_frame *nf, const char *sep)
{
	fprintf(f, "%s%s", sep, nf->name ? nf->name : "?");
	if (is_script(nf) && nf->file) {
		const char *base = strrchr(nf->file, '/');

		fprintf(f, " (%s:%u)", base ? base + 1 : nf->file, nf->line);
	}
}

/*
 * "in A <- B <- ... <- X <- ... <- Y": the two innermost kernel frames past
 * the thread state and the scheduler's, then the innermost user frame and
 * the script's innermost frame (a Python read reads "anon_pipe_read <-
 * vfs_read <- ... <- read <- ... <- <lambda> (py_waits.py:36)", not the
 * interpreter's own C), or else the first one outside its module (the call
 * into the library: a lock wait reads "futex_wait <- ... <- wait_for_lock",
 * not three of libc's own frames); within one module, or when that frame
 * is the program's entry (libc's __libc_start_call_main under main), its
 * three innermost frames.
 */
static void one_line(FILE *f, const struct named_frame *nf, int first, int n)
{
	int i = n - 1, shown = 0, user, out;

	while (i > first && nf[i].name &&
	       ((nf[i].name[0] == '[' && !nf[i].module) || scheduler_frame(nf[i].name)))
		i--;
	fputs("in ", f);
	for (user = i; user >= first && !is_user(&nf[user]); user--)
		;
	for (; i >= first && i > user && shown < 2; i--, shown++)
		print_frame(f, &nf[i], shown ? " <- " : "");
	if (i > user)
		fputs(" <- ...", f);
	if (user < first)
		return;
	out = innermost_script_frame(nf, first, user - 1);
	if (out < 0 || is_script(&nf[user]))
		for (out = user - 1; out >= first && is_user(&nf[out]) &&
		     !strcmp(nf[out].module, nf[user].module); out--)
			;
	if (out >= first && (is_user(&nf[out]) || is_script(&nf[out])) && !entry_frame(&nf[out])) {
		print_frame(f, &nf[user], shown ? " <- " : "");
		print_frame(f, &nf[out], out < user - 1 ? " <- ... <- " : " <- ");
		return;
	}
	for (i = user; i >= first && i > user - 3; i--, shown++)
		print_frame(f, &nf[i], shown ? " <- " : "");
}

static void print_stacks(FILE *f, const struct lat_summary *s, struct stack_table *st,
			 uint64_t whole, int top, bool full)
{
	struct named_frame *nf = calloc(RESOLVE_MAX_FRAMES, sizeof(*nf));
	char t[32];
	size_t k;

	debug_prefetch_stacks(st);
	if (!nf || stacks_sort(st)) {
		free(nf);
		return;
	}
	for (k = 0; k < st->nsorted && (int)k < top; k++) {
		const struct stack *sk = st->sorted[k];
		const char *side;
		int first, n = resolve_shown(s, sk, nf, &first), i;

		side = n > 0 && nf[0].name ? nf[0].name : "?";
		lat_format_ns(t, sizeof(t), sk->count);
		fprintf(f, "    %s (%.1f%%) %s ", t, whole ? 100.0 * sk->count / whole : 0.0,
			strcmp(side, "[on-cpu]") ? "off-CPU" : "on CPU");
		if (first == n) {
			fputs("(no stack)\n", f);
			continue;
		}
		/* A marker alone: [not sampled...] or [no stack taken] */
		if (n - first == 1 && nf[first].name && nf[first].name[0] == '[') {
			fprintf(f, "%s\n", nf[first].name);
			continue;
		}
		one_line(f, nf, first, n);
		fputc('\n', f);
		if (!full)
			continue;
		for (i = n - 1; i >= first; i--) {
			fputs("        ", f);
			resolve_frame_line(f, &nf[i], nf[i].name ? nf[i].name : "?", "  ");
			fputc('\n', f);
		}
	}
	if (st->nsorted > (size_t)top)
		fprintf(f, "    ... %zu more stacks (-o FILE.svg or FILE.folded has them all)\n",
			st->nsorted - top);
	free(nf);
}

/* "; fd=3 buf=0x7ffd... count=1, returned 1": what the root's call carried. */
static void print_args(FILE *f, const struct lat_root *r, const struct lat_call *c)
{
	char buf[16];
	int i;

	if (!lat_root_has_args(r))
		return;
	fputs(";", f);
	if (r->nkeys) {
		for (i = 0; i < r->nkeys; i++)
			fprintf(f, " %s=%llu", r->key_begin[i].name, (unsigned long long)c->key.k[i]);
		fputs(",", f);
	}
	for (i = 0; i < LAT_NARGS && (i < r->nargs || !r->nargs); i++) {
		const char *name = lat_root_arg_name(r, i, buf, sizeof(buf));

		if (r->nargs && r->args[i].is_signed)
			fprintf(f, " %s=%lld", name, (long long)c->args[i]);
		else if (c->args[i] < 4096)
			fprintf(f, " %s=%llu", name, (unsigned long long)c->args[i]);
		else
			fprintf(f, " %s=0x%llx", name, (unsigned long long)c->args[i]);
	}
	if (lat_root_has_ret(r))
		fprintf(f, ", returned %lld", (long long)c->ret);
}

static void print_breakdown(FILE *f, const struct lat_summary *s)
{
	struct lat_calls *lc = s->calls;
	char a[32], b[32], c[32];

	lat_format_ns(a, sizeof(a), lc->slow_ns);
	lat_format_ns(b, sizeof(b), lc->off_cpu_ns);
	lat_format_ns(c, sizeof(c), lc->on_cpu_ns);
	fprintf(f, "\n%" PRIu64 " slow calls, %s in all: %s off-CPU (%.1f%%), %s on CPU "
		"(%.1f%%); where it went:\n", lc->slow, a, b, 100.0 * lc->off_cpu_ns / lc->slow_ns,
		c, 100.0 * lc->on_cpu_ns / lc->slow_ns);
	print_stacks(f, s, &lc->breakdown, lc->slow_ns, s->top_stacks, true);
	if (s->children && s->children->n) {
		fprintf(f, "\nNested calls in the %" PRIu64 " slow calls (--children), in all:\n",
			lc->slow);
		lat_tree_print(f, &lc->tree, s->children, s->r->name, "    ");
	}
}

static void print_slowest(FILE *f, const struct lat_summary *s)
{
	struct lat_calls *lc = s->calls;
	char a[32], b[32], c[32];
	int i;

	fprintf(f, "\nThe %d slowest:\n", lc->nslowest);
	for (i = 0; i < lc->nslowest; i++) {
		struct lat_slow *sl = &lc->slowest[i];

		lat_format_ns(a, sizeof(a), sl->call.dur_ns);
		lat_format_ns(b, sizeof(b), sl->off_cpu_ns);
		lat_format_ns(c, sizeof(c), sl->call.on_cpu_ns);
		if (s->r->nkeys)
			fprintf(f, "  %s: begun by tid %u", a, sl->call.tid);
		else
			fprintf(f, "  %s: tid %u, %s off-CPU, %s on CPU", a, sl->call.tid, b, c);
		print_args(f, s->r, &sl->call);
		if (sl->values[0])
			fprintf(f, "; %s", sl->values);
		fputc('\n', f);
		if (!s->r->nkeys)
			print_stacks(f, s, &sl->stacks, sl->call.dur_ns, 3, false);
		if (s->children && s->children->n)
			lat_tree_print(f, &sl->tree, s->children, s->r->name, "      ");
	}
}

void lat_report_text(FILE *f, const struct lat_summary *s)
{
	const struct lat_hist *h = s->hist;
	struct lat_calls *lc = s->calls;
	char a[32];
	int i;

	lat_format_ns(a, sizeof(a), s->threshold_ns);
	fprintf(f, "stitch latency: %s: %" PRIu64 " calls in %.1f s, %" PRIu64
		" at or over %s (%.1f%%)\n", s->root, h->total, s->seconds,
		s->stats[LAT_STAT_SLOW], a,
		h->total ? 100.0 * s->stats[LAT_STAT_SLOW] / h->total : 0.0);
	if (h->total) {
		fputs("   ", f);
		for (i = 0; i < 3; i++) {
			lat_format_ns(a, sizeof(a), lat_hist_quantile(h, quantiles[i]));
			fprintf(f, " %s %s ", quantile_names[i], a);
		}
		lat_format_ns(a, sizeof(a), h->max_ns);
		fprintf(f, " max %s\n\n", a);
		lat_hist_print(h, f);
	}
	if (s->open_at_end) {
		lat_format_ns(a, sizeof(a), s->longest_open_ns);
		fprintf(f, "%" PRIu64 " calls still open when tracing stopped (the oldest for %s "
			"so far): not counted\n", s->open_at_end, a);
	}
	if (!lc->slow)
		return;
	if (s->r->nkeys) {
		lat_format_ns(a, sizeof(a), lc->slow_ns);
		fprintf(f, "\n%" PRIu64 " slow calls, %s in all; matched by key, so no thread waits in "
			"them: no breakdown\n", lc->slow, a);
	} else {
		print_breakdown(f, s);
	}
	if (!lc->nslowest)
		return;
	print_slowest(f, s);
}

/* {"fd": 3, "buf": 140723, "count": 1}: named where the root's format names them. */
static void json_args(FILE *f, const struct lat_root *r, const struct lat_call *c)
{
	char buf[16];
	int i;

	fputc('{', f);
	for (i = 0; lat_root_has_args(r) && i < LAT_NARGS && (i < r->nargs || !r->nargs); i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_string(f, lat_root_arg_name(r, i, buf, sizeof(buf)));
		if (r->nargs && r->args[i].is_signed)
			fprintf(f, ": %lld", (long long)c->args[i]);
		else
			fprintf(f, ": %llu", (unsigned long long)c->args[i]);
	}
	fputc('}', f);
}

static void json_key(FILE *f, const struct lat_root *r, const struct lat_call *c)
{
	int i;

	fputs(", \"key\": {", f);
	for (i = 0; i < r->nkeys; i++) {
		fprintf(f, "%s", i ? ", " : "");
		json_string(f, r->key_begin[i].name);
		fprintf(f, ": %llu", (unsigned long long)c->key.k[i]);
	}
	fputc('}', f);
}

void lat_report_json(FILE *f, const struct lat_summary *s)
{
	const struct lat_hist *h = s->hist;
	struct lat_calls *lc = s->calls;
	uint64_t log2[64];
	int i, k, first = 1;

	fputs("{\"root\": ", f);
	json_string(f, s->root);
	fprintf(f, ", \"matched_by\": \"%s\"", s->r->nkeys ? "key" : "thread");
	if (s->children && s->children->n)
		fprintf(f, ", \"children_lost\": %" PRIu64, s->stats[LAT_STAT_CHILD_LOST]);
	fprintf(f, ", \"calls\": %" PRIu64 ", \"slow\": %" PRIu64 ", \"threshold_ns\": %" PRIu64,
		h->total, s->stats[LAT_STAT_SLOW], s->threshold_ns);
	for (i = 0; i < 3; i++)
		fprintf(f, ", \"%s_ns\": %" PRIu64, quantile_names[i],
			lat_hist_quantile(h, quantiles[i]));
	fprintf(f, ", \"max_ns\": %" PRIu64 ", \"seconds\": %.3f, \"open_at_end\": %" PRIu64
		", \"slow_lost\": %" PRIu64 ", \"untracked\": %" PRIu64 ",\n \"histogram\": [",
		h->max_ns, s->seconds, s->open_at_end, s->stats[LAT_STAT_SLOW_LOST],
		s->stats[LAT_STAT_UNTRACKED]);
	lat_hist_log2(h, log2);
	for (k = 0; k < 64; k++) {
		if (!log2[k])
			continue;
		fprintf(f, "%s{\"le_ns\": %" PRIu64 ", \"count\": %" PRIu64 "}", first ? "" : ", ",
			(uint64_t)(k < 63 ? (2ull << k) - 1 : UINT64_MAX), log2[k]);
		first = 0;
	}
	fprintf(f, "],\n \"slow_ns\": %" PRIu64 ", \"slow_on_cpu_ns\": %" PRIu64
		", \"slow_off_cpu_ns\": %" PRIu64 ", \"stacks_taken\": %" PRIu64
		", \"stacks_in_slow_calls\": %" PRIu64 ",\n \"slowest\": [", lc->slow_ns,
		lc->on_cpu_ns, lc->off_cpu_ns, lc->taken, lc->claimed);
	for (i = 0; i < lc->nslowest; i++) {
		const struct lat_slow *sl = &lc->slowest[i];

		fprintf(f, "%s\n  {\"pid\": %u, \"tid\": %u, \"start_ns\": %llu, "
			"\"duration_ns\": %llu, \"on_cpu_ns\": %llu, \"off_cpu_ns\": %" PRIu64
			", \"args\": ", i ? "," : "", sl->call.pid, sl->call.tid,
			(unsigned long long)sl->call.start_ns, (unsigned long long)sl->call.dur_ns,
			(unsigned long long)sl->call.on_cpu_ns, sl->off_cpu_ns);
		json_args(f, s->r, &sl->call);
		if (lat_root_has_ret(s->r))
			fprintf(f, ", \"ret\": %lld", (long long)sl->call.ret);
		if (s->r->nkeys)
			json_key(f, s->r, &sl->call);
		if (sl->values[0]) {
			fputs(", \"values\": ", f);
			json_string(f, sl->values);
		}
		if (s->children && s->children->n) {
			fputs(", \"children\": ", f);
			lat_tree_json(f, &sl->tree, s->children, s->r->name);
		}
		fputc('}', f);
	}
	fputs("]", f);
	if (s->children && s->children->n) {
		fputs(",\n \"children\": ", f);
		lat_tree_json(f, &lc->tree, s->children, s->r->name);
	}
	fputs("}\n", f);
}
