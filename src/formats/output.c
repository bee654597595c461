// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/flamegraph.h"
#include "formats/output.h"
#include "formats/unnamed.h"
#include "formats/pprof.h"
#include "util/cli.h"
#include "util/outfile.h"

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int output_format_for(const char *path)
{
	if (strcmp(path, "-") == 0 || ends_with(path, ".txt"))
		return OUTPUT_TEXT;
	if (ends_with(path, ".folded"))
		return OUTPUT_FOLDED;
	if (ends_with(path, ".svg"))
		return OUTPUT_SVG;
	if (ends_with(path, ".pb.gz"))
		return OUTPUT_PPROF;
	if (ends_with(path, ".speedscope.json"))
		return OUTPUT_SPEEDSCOPE;
	return -1;
}

void folded_clean(char *buf, size_t len, const char *name)
{
	size_t i;

	if (!len)
		return;
	/* Check the room first: name may be a full comm without a NUL. */
	for (i = 0; i + 1 < len && name[i]; i++) {
		unsigned char c = name[i];

		buf[i] = c == ';' ? ':' : (c < 0x20 || c == 0x7f) ? '?' : c;
	}
	buf[i] = '\0';
}

/* ---- folded ----------------------------------------------------------------- */

/* A growable string for building one folded line. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static int sbuf_reserve(struct sbuf *b, size_t more)
{
	if (b->len + more + 1 > b->cap) {
		size_t cap = (b->len + more + 1) * 2;
		char *n = realloc(b->s, cap);

		if (!n)
			return -ENOMEM;
		b->s = n;
		b->cap = cap;
	}
	return 0;
}

static int sbuf_frame(struct sbuf *b, const struct profile *p, const struct prof_frame *f)
{
	/* name, suffix, and for interpreter frames " (file:line)" */
	size_t need = strlen(profile_s(p, f->name)) + strlen(profile_s(p, f->file)) + 32;

	if (sbuf_reserve(b, need))
		return -ENOMEM;
	b->s[b->len++] = ';';
	b->len += profile_frame_label(p, f, b->s + b->len, b->cap - b->len);
	return 0;
}

/* Identical lines (same comm and frames, other pid/tid/event) are merged. */
struct line {
	struct hmap_node node;
	uint64_t count;
	char text[];
};

static bool line_eq(const struct hmap_node *n, const void *key)
{
	return strcmp(((const struct line *)n)->text, key) == 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = *(const struct line *const *)a, *y = *(const struct line *const *)b;

	return strcmp(x->text, y->text);
}

int profile_write_folded(FILE *f, const struct profile *p)
{
	struct sbuf b = { NULL, 0, 0 };
	struct line **lines = NULL;
	struct hmap_node *hn;
	struct hmap merged;
	size_t i, nl = 0;
	int rc = 0;

	if (hmap_init(&merged, p->nsamples) != 0)
		return -ENOMEM;
	for (i = 0; i < p->nsamples && !rc; i++) {
		const struct prof_sample *s = &p->samples[i];
		const char *comm = profile_s(p, s->comm);
		struct line *l;
		uint32_t j;
		uint64_t h;

		b.len = 0;
		rc = sbuf_reserve(&b, strlen(comm) + 16);
		if (rc)
			break;
		folded_clean(b.s, b.cap, comm[0] ? comm : "[unknown]");
		b.len = strlen(b.s);
		for (j = 0; j < s->nframes && !rc; j++)
			rc = sbuf_frame(&b, p, &p->frames[s->frames[j]]);
		if (rc)
			break;
		h = hash_bytes(b.s, b.len, 0);
		l = (struct line *)hmap_find(&merged, h, line_eq, b.s);
		if (l) {
			l->count = count_add(l->count, s->count);
			continue;
		}
		l = malloc(sizeof(*l) + b.len + 1);
		if (!l) {
			rc = -ENOMEM;
			break;
		}
		l->count = s->count;
		memcpy(l->text, b.s, b.len + 1);
		hmap_insert(&merged, &l->node, h);
	}
	if (!rc) {
		lines = malloc((merged.count + 1) * sizeof(*lines));
		if (!lines)
			rc = -ENOMEM;
	}
	if (!rc) {
		hmap_for_each(&merged, i, hn)
			lines[nl++] = (struct line *)hn;
		/* Sorted output: diffable, and what FlameGraph expects anyway. */
		qsort(lines, nl, sizeof(*lines), cmp_line);
		/*
		 * FlameGraph's counts are integers: time is written in
		 * microseconds (rounded; never 0 for time that was there).
		 */
		for (i = 0; i < nl; i++) {
			uint64_t c = lines[i]->count;

			if (profile_unit_ns(p))
				c = c ? (c + 500) / 1000 + ((c + 500) / 1000 == 0) : 0;
			fprintf(f, "%s %llu\n", lines[i]->text, (unsigned long long)c);
		}
	}
	hmap_free_all(&merged);
	free(lines);
	free(b.s);
	return rc;
}

/* ---- text ------------------------------------------------------------------- */

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

static const char *kind_suffix(uint8_t kind)
{
	switch (kind) {
	case FRAME_KERNEL:
		return "_[k]";
	case FRAME_INLINED:
		return "_[i]";
	case FRAME_JIT:
		return "_[j]";
	default:
		return "";
	}
}

/*
 * A sample's share in percent.  When the total saturated at 2^53 shares
 * are of sat_sum, the sum of the counts shown (exact to 64 bits in a long
 * double), so that no two shares add up past 100%.
 */
static double share_pct(const struct profile *p, uint64_t count, long double sat_sum)
{
	if (p->saturated)
		return sat_sum > 0 ? (double)(100.0L * count / sat_sum) : 0;
	return 100.0 * count / (p->total ? p->total : 1);
}

int profile_write_text(FILE *f, const struct profile *p, int top)
{
	long double sat_sum = 0;
	size_t i;
	int err;

	/* Folded input knows no title, duration, pids or events: say only what is known. */
	char v[32];

	if (profile_unit_quantity(p))
		fprintf(f, "stitch: %s of %s", profile_value_str(p, p->total, v, sizeof(v)),
			profile_s(p, p->value_type));
	else
		fprintf(f, "stitch: %llu events", (unsigned long long)p->total);
	if (p->title)
		fprintf(f, " (%s)", profile_s(p, p->title));
	if (p->duration_ns)
		fprintf(f, " in %.1f s", p->duration_ns / 1e9);
	fprintf(f, ", %zu distinct stacks\n", p->nsamples);
	if (p->saturated)
		fputs("stitch: counts added up past 2^53 and the totals saturated there: "
		      "shares are not exact\n", f);
	for (i = 0; p->saturated && i < p->nsamples; i++)
		sat_sum += p->samples[i].count;
	for (i = 0; i < p->nsamples && (int)i < top; i++) {
		const struct prof_sample *s = &p->samples[i];
		char comm[64];
		int j;

		folded_clean(comm, sizeof(comm), profile_s(p, s->comm));
		fprintf(f, "\n%6.2f%% %8s  %s", share_pct(p, s->count, sat_sum),
			profile_value_str(p, s->count, v, sizeof(v)), comm);
		if (s->pid || s->tid)
			fprintf(f, "  pid %u tid %u", s->pid, s->tid);
		if (s->event)
			fprintf(f, "  [%s]", profile_s(p, s->event));
		fputc('\n', f);
		/* Innermost first, like a debugger backtrace. */
		for (j = (int)s->nframes - 1; j >= 0; j--) {
			const struct prof_frame *fr = &p->frames[s->frames[j]];
			char name[512];

			folded_clean(name, sizeof(name), profile_s(p, fr->name));
			fprintf(f, "        %s%s", name, kind_suffix(fr->kind));
			if (fr->kind == FRAME_KERNEL && fr->module &&
			    strcmp(profile_s(p, fr->module), "[kernel]") != 0)
				fprintf(f, "  %s", profile_s(p, fr->module));
			else if (fr->file && fr->kind != FRAME_KERNEL && fr->line)
				fprintf(f, "  (%s:%u)", basename_of(profile_s(p, fr->file)), fr->line);
			else if (fr->file && fr->kind != FRAME_KERNEL)	/* line unknown */
				fprintf(f, "  (%s)", basename_of(profile_s(p, fr->file)));
			fputc('\n', f);
		}
	}
	if (p->nsamples > (size_t)top)
		fprintf(f, "\n... %zu more stacks (write -o FILE.folded for all of them)\n",
			p->nsamples - top);
	err = profile_write_unnamed(f, p);
	if (err)
		return err;
	return ferror(f) ? -EIO : 0;
}

/* ---- dispatch --------------------------------------------------------------- */

int output_write(const char *path, int format, const struct profile *p,
		 const struct output_opts *o)
{
	struct flamegraph_opts fo = { 0 };
	struct outfile of = { 0 };
	char why[PATH_MAX + 128];
	FILE *f = stdout;
	int rc;

	if (strcmp(path, "-") != 0) {
		rc = outfile_open(&of, path, o->force, why, sizeof(why));
		if (rc) {
			if (o->err)
				snprintf(o->err, o->errlen, "%s", why);
			return rc;
		}
		f = of.f;
	}
	switch (format) {
	case OUTPUT_FOLDED:
		rc = profile_write_folded(f, p);
		break;
	case OUTPUT_SVG:
		fo.inverted = o->inverted;
		fo.subtitle = o->subtitle;
		fo.base = o->diff_base;
		rc = flamegraph_write(f, p, &fo);
		break;
	case OUTPUT_PPROF:
		rc = pprof_write(f, p);
		break;
	case OUTPUT_SPEEDSCOPE:
		rc = profile_write_speedscope(f, p);
		break;
	default:
		if (o->preamble)
			fputs(o->preamble, f);
		rc = profile_write_text(f, p, o->top > 0 ? o->top : 10);
		break;
	}
	if (f != stdout) {
		if (rc) {
			/* The writers say -EIO for any stdio error: the real one (ENOSPC). */
			if (rc == -EIO)
				rc = outfile_write_error(&of);
			outfile_abort(&of);
			snprintf(why, sizeof(why), "%s: %s", path, strerror(-rc));
		} else {
			rc = outfile_commit(&of, why, sizeof(why));
		}
		if (rc && o->err)
			snprintf(o->err, o->errlen, "%s", why);
	} else if (fflush(stdout) != 0 && !rc) {
		rc = -errno;
	}
	return rc;
}

/*
 * arg as the next of max outputs, in format (-1: none; unknown says so, of
 * arg).  0, or 2: a usage error, said on stderr.
 */
static int add_named(const char *cmd, const char **paths, int *formats, int *n, int max,
		     const char *arg, int format, const char *unknown)
{
	char most[16];

	if (*n == max) {
		snprintf(most, sizeof(most), "%d", max);
		return cli_usage_error(cmd, "too many -o (at most %s)", most);
	}
	if (format < 0)
		return cli_usage_error(cmd, unknown, arg);
	formats[*n] = format;
	paths[(*n)++] = arg;
	return 0;
}

int output_add(const char *cmd, const char **paths, int *formats, int *n, int max,
	       const char *arg)
{
	return add_named(cmd, paths, formats, n, max, arg, output_format_for(arg),
			 "-o: cannot tell the format of '%s': use " OUTPUT_EXTENSIONS);
}

/* FILE.json, and not FILE.speedscope.json, which is a profile. */
static bool is_json(const char *path)
{
	return ends_with(path, ".json") && !ends_with(path, ".speedscope.json");
}

int output_add_json(const char *cmd, const char **paths, int *formats, int *n, int max,
		    const char *arg)
{
	return add_named(cmd, paths, formats, n, max, arg,
			 is_json(arg) ? OUTPUT_JSON : output_format_for(arg),
			 "-o: '%s': name it FILE.json, " OUTPUT_EXTENSIONS);
}

int output_check_all(const char *cmd, const char *const *paths, int n, bool force)
{
	char why[PATH_MAX + 128];
	int i, bad = 0;

	for (i = 0; i < n; i++) {
		if (!strcmp(paths[i], "-") || !outfile_check(paths[i], force, why, sizeof(why)))
			continue;
		fprintf(stderr, "stitch %s: cannot write %s\n", cmd, why);
		bad = -1;
	}
	return bad;
}

/* The recording, once more, as pprof: beside failed, else here. */
static void rescue(const char *cmd, const char *failed, const struct profile *p,
		   const struct output_opts *o)
{
	struct output_opts ro = *o;
	char path[PATH_MAX], why[PATH_MAX + 128];
	int i;

	ro.err = why;
	ro.errlen = sizeof(why);
	for (i = 0; i < 2; i++) {
		if (i == 0 && snprintf(path, sizeof(path), "%s.rescued.pb.gz", failed) >=
		    (int)sizeof(path))
			continue;
		if (i == 1)
			snprintf(path, sizeof(path), "stitch-rescued-%d.pb.gz", (int)getpid());
		if (output_write(path, OUTPUT_PPROF, p, &ro) == 0) {
			fprintf(stderr, "stitch %s: the recording is saved in %s (stitch report %s "
				"-o FILE converts it)\n", cmd, path, path);
			return;
		}
	}
	fprintf(stderr, "stitch %s: could not save the recording anywhere: %s\n", cmd, why);
}

int output_write_all(const char *cmd, const char *const *paths, const int *formats, int n,
		     const struct profile *p, const struct output_opts *o, const char *what)
{
	struct output_opts wo = *o;
	char why[PATH_MAX + 128];
	int i, failed = -1;

	wo.err = why;
	wo.errlen = sizeof(why);
	for (i = 0; i < n; i++) {
		why[0] = '\0';
		if (output_write(paths[i], formats[i], p, &wo) == 0) {
			if (strcmp(paths[i], "-"))
				fprintf(stderr, "stitch: %s written to %s\n", what, paths[i]);
			continue;
		}
		fprintf(stderr, "stitch %s: cannot write %s\n", cmd,
			why[0] ? why : paths[i]);
		if (failed < 0)
			failed = i;
	}
	if (failed < 0)
		return 0;
	if (strcmp(paths[failed], "-"))
		rescue(cmd, paths[failed], p, o);
	return -1;
}
