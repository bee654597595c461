// SPDX-License-Identifier: GPL-2.0
/*
 * Interactive SVG flame graphs.
 *
 * The graph is a tree: root "all", then the comm, then the frames outermost
 * first (or innermost first for an icicle), merged by frame label so that
 * one function seen at many addresses is one box.  Instead of building the
 * whole tree, the samples are partitioned top-down: at each level the
 * samples under a box are sorted by the label at the next position, each run
 * of equal labels is a child, and a child narrower than min_width is dropped
 * with everything under it, never looked at again.  Work and memory follow
 * what can be seen, not the number of stacks, and children come out in name
 * order, as drawn.
 *
 * Boxes are written as nested <g c="count"><title/><rect/><text/>...</g>:
 * a plain viewer draws them without script, and the embedded script
 * (flamegraph_js.h) zooms and searches by walking that tree.  Every string
 * from a traced process is made valid UTF-8 without control characters,
 * then XML-escaped, and only ever written as element text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/flamegraph.h"
#include "formats/flamegraph_js.h"
#include "util/hashmap.h"
#include "util/array.h"

#define KIND_PROC FRAME_KIND_NR		/* the root and the comm boxes */
#define NKINDS (FRAME_KIND_NR + 1)
_Static_assert(NKINDS <= 32, "struct fg's kinds has a bit per kind");

#define FRAME_H 16			/* px per level */
#define PAD 10				/* px left and right of the boxes */
#define CHAR_W (0.59 * 11)		/* Verdana 11px, the script's estimate too */
#define NONE UINT32_MAX
#define LABEL_MAX 1024

struct fg_label {
	char *text;		/* valid UTF-8, no control characters */
	uint32_t nchars;	/* code points, to fit text in a box */
	uint8_t kind;
};

/* A sample, from the profile drawn (which 0) or the base profile (1). */
struct fg_ref {
	const uint32_t *frames;
	uint32_t nframes;
	uint32_t comm;		/* rank of the comm's label */
	uint64_t count;
	uint8_t which;
};

/* A box to draw, in document order (depth first, children by name). */
struct fg_box {
	uint32_t label;
	uint32_t depth;		/* 0: root */
	uint64_t count, base;
	uint64_t x;		/* left edge, in counts */
};

/* Children of the box being split: [lo, hi) of the work array. */
struct fg_run {
	size_t lo, hi;
	uint32_t rank;
	uint64_t count, base;
};

struct fg {
	const struct profile *p;	/* what the counts measure (profile_value_str) */
	unsigned int width;
	double min_width;
	bool inverted, diff;
	bool saturated;		/* either profile's sums saturated (profile.h) */

	struct fg_label *labels;
	uint32_t nlabels, caplabels;
	uint32_t *lslots;	/* label index + 1; 0: empty */
	size_t nlslots;
	uint32_t *byrank;	/* label of each rank: ranks sort labels by name */
	uint32_t *rmap[2];	/* frame index -> rank, per profile */
	uint32_t nmap[2];
	uint32_t mark;		/* rank of "[invalid frame]" */

	struct fg_ref *refs;
	size_t nrefs;
	uint64_t *work;		/* rank << 32 | ref index, partitioned in place */
	struct fg_run *runs;	/* a stack: each level's runs above its parent's */
	size_t nruns, capruns;
	struct fg_box *boxes;
	size_t nboxes, capboxes;

	uint64_t total, btotal;
	/*
	 * Counts are drawn divided by 2^shift (profile, base): 0 unless a
	 * profile's counts add up past 2^53, where sums would saturate and
	 * boxes outgrow their parents.
	 */
	unsigned int shift[2];
	uint64_t mincount;	/* narrowest count drawn */
	double scale;		/* px per count */
	double maxdelta;	/* largest change of share, for differential colours */
	unsigned int maxdepth, kinds;
	unsigned int top, bottom;	/* y of the frames area */
};

/* ---- text ------------------------------------------------------------------- */

/*
 * Copy s as valid UTF-8 that XML 1.0 accepts: control characters become
 * '?', bytes that are not UTF-8 (and surrogates, U+FFFE/U+FFFF) become
 * U+FFFD.  Names come from traced processes and may be anything.
 */
static char *sanitize(const char *s, uint32_t *nchars)
{
	size_t len = strlen(s), i = 0, n = 0;
	char *out = malloc(len * 3 + 1);
	uint32_t chars = 0;

	if (!out)
		return NULL;
	while (i < len) {
		unsigned char c = s[i];
		uint32_t cp, min;
		size_t k, need;

		chars++;
		if (c < 0x80) {
			out[n++] = (c < 0x20 || c == 0x7f) ? '?' : c;
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf) {
			need = 1, cp = c & 0x1f, min = 0x80;
		} else if (c >= 0xe0 && c <= 0xef) {
			need = 2, cp = c & 0x0f, min = 0x800;
		} else if (c >= 0xf0 && c <= 0xf4) {
			need = 3, cp = c & 0x07, min = 0x10000;
		} else {
			goto bad;
		}
		if (i + need >= len)
			goto bad;
		for (k = 1; k <= need; k++) {
			unsigned char d = s[i + k];

			if ((d & 0xc0) != 0x80)
				goto bad;
			cp = cp << 6 | (d & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) ||
		    cp == 0xfffe || cp == 0xffff)
			goto bad;
		if (cp < 0xa0) {	/* C1 controls */
			out[n++] = '?';
		} else {
			memcpy(out + n, s + i, need + 1);
			n += need + 1;
		}
		i += need + 1;
		continue;
bad:
		memcpy(out + n, "\xef\xbf\xbd", 3);
		n += 3;
		i++;
	}
	out[n] = '\0';
	if (nchars)
		*nchars = chars;
	return out;
}

/* Write s (already sanitized) with the five XML specials escaped. */
static void put_esc(FILE *f, const char *s, size_t len)
{
	size_t start = 0, i;

	for (i = 0; i < len; i++) {
		const char *rep;

		switch (s[i]) {
		case '&': rep = "&amp;"; break;
		case '<': rep = "&lt;"; break;
		case '>': rep = "&gt;"; break;
		case '"': rep = "&quot;"; break;
		case '\'': rep = "&#39;"; break;
		default: continue;
		}
		fwrite(s + start, 1, i - start, f);
		fputs(rep, f);
		start = i + 1;
	}
	fwrite(s + start, 1, len - start, f);
}

/* Sanitize and escape a string that is not a label (title, subtitle). */
static int put_text(FILE *f, const char *s)
{
	char *clean = sanitize(s ? s : "", NULL);

	if (!clean)
		return -ENOMEM;
	put_esc(f, clean, strlen(clean));
	free(clean);
	return 0;
}

/* Byte length of the first n code points of valid UTF-8 s. */
static size_t utf8_prefix(const char *s, uint32_t n)
{
	size_t i = 0;

	for (; s[i]; i++)
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n-- == 0)
			break;
	return i;
}

/* Coordinates with two decimals, trailing zeros dropped: most of the file is numbers. */
static void put_num(FILE *f, double v)
{
	uint64_t h = v <= 0 ? 0 : (uint64_t)(v * 100 + 0.5);

	if (h % 100 == 0)
		fprintf(f, "%llu", (unsigned long long)(h / 100));
	else if (h % 10 == 0)
		fprintf(f, "%llu.%llu", (unsigned long long)(h / 100),
			(unsigned long long)(h % 100 / 10));
	else
		fprintf(f, "%llu.%02llu", (unsigned long long)(h / 100),
			(unsigned long long)(h % 100));
}

/* ---- labels ----------------------------------------------------------------- */

static uint64_t label_hash(const char *s, uint8_t kind)
{
	return hash_bytes(s, strlen(s), kind);
}

static int label_grow(struct fg *g)
{
	size_t n = g->nlslots ? g->nlslots * 2 : 1024, i;
	uint32_t *t = calloc(n, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (i = 0; i < g->nlabels; i++) {
		size_t j = label_hash(g->labels[i].text, g->labels[i].kind) & (n - 1);

		while (t[j])
			j = (j + 1) & (n - 1);
		t[j] = i + 1;
	}
	free(g->lslots);
	g->lslots = t;
	g->nlslots = n;
	return 0;
}

/* Intern a raw label (sanitized here); NONE on allocation failure. */
static uint32_t label_get(struct fg *g, const char *raw, uint8_t kind)
{
	uint32_t nchars;
	char *text = sanitize(raw, &nchars);
	size_t j;

	if (!text)
		return NONE;
	if ((g->nlabels + 1) * 2 > g->nlslots && label_grow(g))
		goto fail;
	for (j = label_hash(text, kind) & (g->nlslots - 1); g->lslots[j];
	     j = (j + 1) & (g->nlslots - 1)) {
		struct fg_label *l = &g->labels[g->lslots[j] - 1];

		if (l->kind == kind && strcmp(l->text, text) == 0) {
			free(text);
			return g->lslots[j] - 1;
		}
	}
	if (g->nlabels == g->caplabels) {
		uint32_t cap = g->caplabels ? g->caplabels * 2 : 256;
		struct fg_label *l = realloc(g->labels, cap * sizeof(*l));

		if (!l)
			goto fail;
		g->labels = l;
		g->caplabels = cap;
	}
	g->labels[g->nlabels] = (struct fg_label){ .text = text, .nchars = nchars, .kind = kind };
	g->lslots[j] = g->nlabels + 1;
	return g->nlabels++;
fail:
	free(text);
	return NONE;
}

/* Label of every frame of p, indexed like p->frames. */
static uint32_t *frame_labels(struct fg *g, const struct profile *p)
{
	uint32_t *map = malloc((p->nframes ? p->nframes : 1) * sizeof(*map)), i;
	char buf[LABEL_MAX];

	if (!map)
		return NULL;
	for (i = 0; i < p->nframes; i++) {
		const struct prof_frame *fr = &p->frames[i];

		profile_frame_label(p, fr, buf, sizeof(buf));
		map[i] = label_get(g, buf, fr->kind < FRAME_KIND_NR ? fr->kind : FRAME_MARK);
		if (map[i] == NONE) {
			free(map);
			return NULL;
		}
	}
	return map;
}

/*
 * The shift that keeps the sum of p's counts within PROFILE_MAX_COUNT, so
 * that every sum of them is exact and no box is wider than its parent (a
 * sum of counts each shifted is at most their sum shifted).
 */
static unsigned int count_shift(const struct profile *p)
{
	unsigned __int128 sum = 0;
	unsigned int shift = 0;
	size_t s;

	for (s = 0; s < p->nsamples; s++)
		sum += p->samples[s].count;
	while ((sum >> shift) > PROFILE_MAX_COUNT)
		shift++;
	return shift;
}

/* A count drawn divided by 2^shift, as it was (to the nearest 2^shift). */
static uint64_t unshift(uint64_t v, unsigned int shift)
{
	return shift && v > UINT64_MAX >> shift ? UINT64_MAX : v << shift;
}

/* Refs for p's samples; their comm and the frame map hold labels until ranked. */
static int add_refs(struct fg *g, const struct profile *p, uint8_t which)
{
	uint32_t *comm = calloc(p->nstr ? p->nstr : 1, sizeof(*comm));	/* string -> label + 1 */
	unsigned int shift = g->shift[which] = count_shift(p);
	size_t s;

	g->rmap[which] = frame_labels(g, p);
	g->nmap[which] = p->nframes;
	if (!comm || !g->rmap[which])
		goto nomem;
	for (s = 0; s < p->nsamples; s++) {
		const struct prof_sample *smp = &p->samples[s];
		struct fg_ref *r = &g->refs[g->nrefs];
		uint32_t c = smp->comm < p->nstr ? smp->comm : 0;

		if (!(smp->count >> shift))
			continue;
		if (!comm[c]) {
			uint32_t l = label_get(g, profile_s(p, c), KIND_PROC);

			if (l == NONE)
				goto nomem;
			comm[c] = l + 1;
		}
		*r = (struct fg_ref){ .frames = smp->frames, .nframes = smp->nframes,
				      .comm = comm[c] - 1, .count = smp->count >> shift,
				      .which = which };
		if (which)
			g->btotal = count_add(g->btotal, r->count);
		else
			g->total = count_add(g->total, r->count);
		g->nrefs++;
	}
	free(comm);
	return 0;
nomem:
	free(comm);
	return -ENOMEM;
}

static int cmp_label(const void *a, const void *b, void *arg)
{
	const struct fg_label *l = arg, *x = &l[*(const uint32_t *)a], *y = &l[*(const uint32_t *)b];
	int c = strcmp(x->text, y->text);

	return c ? c : (int)x->kind - (int)y->kind;
}

/* Replace labels by ranks in refs and frame maps: comparing ranks is comparing names. */
static int rank_labels(struct fg *g)
{
	uint32_t *rank = malloc((g->nlabels ? g->nlabels : 1) * sizeof(*rank)), i, w;
	size_t r;

	g->byrank = malloc((g->nlabels ? g->nlabels : 1) * sizeof(*g->byrank));
	if (!rank || !g->byrank) {
		free(rank);
		return -ENOMEM;
	}
	for (i = 0; i < g->nlabels; i++)
		g->byrank[i] = i;
	qsort_r(g->byrank, g->nlabels, sizeof(*g->byrank), cmp_label, g->labels);
	for (i = 0; i < g->nlabels; i++)
		rank[g->byrank[i]] = i;
	for (w = 0; w < 2; w++)
		for (i = 0; g->rmap[w] && i < g->nmap[w]; i++)
			g->rmap[w][i] = rank[g->rmap[w][i]];
	for (r = 0; r < g->nrefs; r++)
		g->refs[r].comm = rank[g->refs[r].comm];
	g->mark = rank[g->mark];
	free(rank);
	return 0;
}

/* Rank of the label at position pos of a ref's path; NONE past its end. */
static inline uint32_t ref_rank(const struct fg *g, const struct fg_ref *r, uint32_t pos)
{
	uint32_t fi;

	if (pos > r->nframes)
		return NONE;
	/* flames: comm first; icicles: innermost first and the comm last */
	if (!g->inverted) {
		if (pos == 0)
			return r->comm;
		fi = r->frames[pos - 1];
	} else {
		if (pos == r->nframes)
			return r->comm;
		fi = r->frames[r->nframes - 1 - pos];
	}
	return fi < g->nmap[r->which] ? g->rmap[r->which][fi] : g->mark;
}

/* Sort by the key in the high half (at most maxkey): LSD radix, 11 bits a pass. */
static int sort_work(uint64_t *a, size_t n, uint32_t maxkey)
{
	uint64_t *tmp, *src = a, *dst;
	unsigned int shift;

	if (n < 64) {
		size_t i, j;

		for (i = 1; i < n; i++) {
			uint64_t v = a[i];

			for (j = i; j > 0 && a[j - 1] >> 32 > v >> 32; j--)
				a[j] = a[j - 1];
			a[j] = v;
		}
		return 0;
	}
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	dst = tmp;
	for (shift = 32; shift < 64 && (uint64_t)maxkey >> (shift - 32); shift += 11) {
		size_t cnt[2048] = { 0 }, i, sum = 0;

		for (i = 0; i < n; i++)
			cnt[src[i] >> shift & 0x7ff]++;
		for (i = 0; i < 2048; i++) {
			size_t c = cnt[i];

			cnt[i] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[cnt[src[i] >> shift & 0x7ff]++] = src[i];
		src = dst;
		dst = src == a ? tmp : a;
	}
	if (src != a)
		memcpy(a, src, n * sizeof(*a));
	free(tmp);
	return 0;
}

static int push_box(struct fg *g, uint32_t rank, uint32_t depth, uint64_t count, uint64_t base,
		    uint64_t x)
{
	if (array_reserve((void **)&g->boxes, &g->capboxes, g->nboxes + 1, sizeof(*g->boxes), 1024))
		return -ENOMEM;
	g->boxes[g->nboxes++] = (struct fg_box){ .label = g->byrank[rank], .depth = depth,
						 .count = count, .base = base, .x = x };
	return 0;
}

/*
 * work[lo, hi) are the samples under a box drawn at depth pos: split them by
 * the label at path position pos into the box's children, left to right.
 */
static int split(struct fg *g, size_t lo, size_t hi, uint32_t pos, uint64_t x)
{
	const uint64_t end = g->nlabels;	/* key of paths that end here: sorts last */
	size_t i, base = g->nruns, nr;
	uint32_t prev = 0;
	bool sorted = true;
	int err;

	for (i = lo; i < hi; i++) {
		uint32_t idx = (uint32_t)g->work[i], rank = ref_rank(g, &g->refs[idx], pos);
		uint32_t key = rank == NONE ? end : rank;

		g->work[i] = (uint64_t)key << 32 | idx;
		sorted = sorted && key >= prev;
		prev = key;
	}
	if (!sorted && sort_work(g->work + lo, hi - lo, end))
		return -ENOMEM;
	for (i = lo; i < hi && g->work[i] >> 32 != end;) {
		uint32_t rank = g->work[i] >> 32;
		struct fg_run run = { .lo = i, .rank = rank };

		for (; i < hi && g->work[i] >> 32 == rank; i++) {
			const struct fg_ref *r = &g->refs[(uint32_t)g->work[i]];

			if (r->which)
				run.base = count_add(run.base, r->count);
			else
				run.count = count_add(run.count, r->count);
		}
		run.hi = i;
		if (array_reserve((void **)&g->runs, &g->capruns, g->nruns + 1, sizeof(*g->runs), 256))
			return -ENOMEM;
		g->runs[g->nruns++] = run;
	}
	nr = g->nruns - base;
	for (i = 0; i < nr; i++) {
		struct fg_run run = g->runs[base + i];	/* copied: deeper levels may realloc */

		if (run.count && run.count >= g->mincount) {
			err = push_box(g, run.rank, pos + 1, run.count, run.base, x);
			if (!err)
				err = split(g, run.lo, run.hi, pos + 1, x);
			if (err)
				return err;
		}
		x += run.count;
	}
	g->nruns = base;
	return 0;
}

/* All boxes wide enough to draw, in document order. */
static int build(struct fg *g)
{
	size_t i;

	g->scale = g->total ? (double)(g->width - 2 * PAD) / g->total : 0;
	if (!g->total)
		return 0;
	/* the smallest count whose box is min_width px wide: count * scale >= min_width */
	g->mincount = (uint64_t)(g->min_width / g->scale);
	while (g->mincount * g->scale < g->min_width)
		g->mincount++;
	while (g->mincount > 1 && (g->mincount - 1) * g->scale >= g->min_width)
		g->mincount--;
	if (!g->mincount)
		g->mincount = 1;
	if (g->total < g->mincount)
		return 0;
	g->work = malloc((g->nrefs ? g->nrefs : 1) * sizeof(*g->work));
	if (!g->work)
		return -ENOMEM;
	for (i = 0; i < g->nrefs; i++)
		g->work[i] = i;
	if (push_box(g, 0, 0, g->total, g->btotal, 0))
		return -ENOMEM;
	g->boxes[0].label = 0;	/* "all" */
	return split(g, 0, g->nrefs, 0, 0);
}

/* ---- colours ---------------------------------------------------------------- */

/* Base colour and spread per kind: hue families people can tell apart. */
static const struct palette {
	uint8_t r, g, b, dr, dg, db;
	const char *name;
} palettes[NKINDS] = {
	[FRAME_USER] = { 200, 60, 40, 55, 60, 40, "native" },		/* red */
	[FRAME_KERNEL] = { 220, 150, 0, 35, 50, 40, "kernel" },		/* orange */
	[FRAME_INLINED] = { 50, 185, 180, 50, 45, 50, "inlined" },	/* aqua */
	/* each interpreter's own, from its line in interp/languages.def */
#define FG_RGB(r, g, b) r, g, b
#define INTERP_LANG(ID, name, member, rgb, spread, ...) \
	[FRAME_##ID] = { FG_RGB rgb, FG_RGB spread, #name },
#include "interp/languages.def"
#undef INTERP_LANG
#undef FG_RGB
	[FRAME_JIT] = { 50, 190, 50, 40, 50, 40, "jit" },		/* green, as FlameGraph's */
	[FRAME_MARK] = { 150, 150, 150, 35, 35, 35, "marker" },		/* grey */
	[KIND_PROC] = { 200, 195, 140, 30, 30, 30, "process" },		/* khaki */
};

/* A colour of the kind's family, varied by the name so neighbours differ. */
static void kind_colour(const struct fg_label *l, uint8_t rgb[3])
{
	const struct palette *pl = &palettes[l->kind];
	uint64_t h = label_hash(l->text, 0);

	rgb[0] = pl->r + (uint8_t)((h & 0xff) * pl->dr / 255);
	rgb[1] = pl->g + (uint8_t)((h >> 8 & 0xff) * pl->dg / 255);
	rgb[2] = pl->b + (uint8_t)((h >> 16 & 0xff) * pl->db / 255);
}


/* Change of a box's share of its profile's total, in share units (0..1). */
static double delta(const struct fg *g, const struct fg_box *b)
{
	double now = g->total ? (double)b->count / g->total : 0;
	double then = g->btotal ? (double)b->base / g->btotal : 0;

	return now - then;
}

/* Grey for no change, towards red for growth and blue for shrinkage. */
static const uint8_t diff_same[3] = { 225, 225, 225 }, diff_red[3] = { 225, 30, 30 },
		     diff_blue[3] = { 40, 90, 225 };

static void diff_colour(const struct fg *g, const struct fg_box *b, uint8_t rgb[3])
{
	double d = delta(g, b), t = g->maxdelta > 0 ? (d < 0 ? -d : d) / g->maxdelta : 0;
	const uint8_t *to = d > 0 ? diff_red : diff_blue;
	int i;

	if (t > 1)
		t = 1;
	for (i = 0; i < 3; i++)
		rgb[i] = (uint8_t)(diff_same[i] + (to[i] - diff_same[i]) * t + 0.5);
}

/* ---- drawing ---------------------------------------------------------------- */

/* Depth, kinds and largest change over the boxes to draw. */
static void measure(struct fg *g)
{
	size_t i;

	for (i = 0; i < g->nboxes; i++) {
		const struct fg_box *b = &g->boxes[i];
		double d = delta(g, b);

		if (b->depth > g->maxdepth)
			g->maxdepth = b->depth;
		g->kinds |= 1u << g->labels[b->label].kind;
		if (d < 0)
			d = -d;
		if (d > g->maxdelta)
			g->maxdelta = d;
	}
}

static void put_details(FILE *f, const struct fg *g, const struct fg_box *b)
{
	double pct = g->total ? 100.0 * b->count / g->total : 0;
	const char *word = profile_count_word(g->p);
	char v[32], bv[32];

	profile_value_str(g->p, unshift(b->count, g->shift[0]), v, sizeof(v));
	if (!g->diff) {
		fprintf(f, "%s%s, %.2f%%", v, word, pct);
		return;
	}
	fprintf(f, "%s%s (%.2f%%), base %s (%.2f%%), %+.2f%%", v, word, pct,
		profile_value_str(g->p, unshift(b->base, g->shift[1]), bv, sizeof(bv)),
		g->btotal ? 100.0 * b->base / g->btotal : 0.0, 100 * delta(g, b));
}

/* One box, left open: its children nest inside its <g>. */
static void emit_box(FILE *f, const struct fg *g, const struct fg_box *b)
{
	const struct fg_label *l = &g->labels[b->label];
	double x = PAD + b->x * g->scale, w = b->count * g->scale;
	unsigned int y = g->inverted ? g->top + b->depth * FRAME_H :
				       g->bottom - (b->depth + 1) * FRAME_H;
	int fit = (int)((w - 6) / CHAR_W);
	uint8_t rgb[3];

	if (g->diff)
		diff_colour(g, b, rgb);
	else
		kind_colour(l, rgb);
	fprintf(f, "<g c=\"%llu\"", (unsigned long long)b->count);
	if (g->diff)
		fprintf(f, " b=\"%llu\"", (unsigned long long)b->base);
	fputs("><title>", f);
	put_esc(f, l->text, strlen(l->text));
	fputc('\n', f);
	put_details(f, g, b);
	fputs("</title><rect x=\"", f);
	put_num(f, x);
	fprintf(f, "\" y=\"%u\" width=\"", y);
	put_num(f, w);
	fprintf(f, "\" height=\"%u\" fill=\"#%02x%02x%02x\"/>", FRAME_H - 1, rgb[0], rgb[1],
		rgb[2]);
	/* most boxes are too narrow for text: the script adds it when zooming */
	if (fit >= 3) {
		fputs("<text x=\"", f);
		put_num(f, x + 3);
		fprintf(f, "\" y=\"%u\">", y + FRAME_H - 4);
		if (l->nchars <= (uint32_t)fit) {
			put_esc(f, l->text, strlen(l->text));
		} else {
			put_esc(f, l->text, utf8_prefix(l->text, fit - 2));
			fputs("..", f);
		}
		fputs("</text>", f);
	}
	fputc('\n', f);
}

/* The boxes, each <g> closed once the next box is not inside it. */
static void emit_boxes(FILE *f, const struct fg *g)
{
	size_t i;
	uint32_t open = 0, d;	/* boxes open: depths 0 .. open-1 */

	for (i = 0; i < g->nboxes; i++) {
		for (d = g->boxes[i].depth; open > d; open--)
			fputs("</g>\n", f);
		emit_box(f, g, &g->boxes[i]);
		open++;
	}
	for (; open; open--)
		fputs("</g>\n", f);
}

static void emit_legend(FILE *f, const struct fg *g, unsigned int y)
{
	static const uint8_t order[] = { FRAME_USER, FRAME_INLINED, FRAME_KERNEL,
#define INTERP_LANG(ID, ...) FRAME_##ID,
#include "interp/languages.def"
#undef INTERP_LANG
					 FRAME_JIT, FRAME_MARK, KIND_PROC };
	static const struct { const char *name; const uint8_t *rgb; } diff[] = {
		{ "grew", diff_red },
		{ "no change", diff_same },
		{ "shrank", diff_blue },
	};
	const char *names[sizeof(order)];	/* more than the diff's three */
	uint8_t cols[sizeof(order)][3];
	unsigned int n = 0, i;
	double wsum = 0, x;

	if (g->diff) {
		for (i = 0; i < 3; i++, n++) {
			names[n] = diff[i].name;
			memcpy(cols[n], diff[i].rgb, 3);
		}
	} else {
		for (i = 0; i < sizeof(order); i++) {
			const struct palette *pl = &palettes[order[i]];

			if (!(g->kinds & 1u << order[i]))
				continue;
			names[n] = pl->name;
			cols[n][0] = pl->r + pl->dr / 2;
			cols[n][1] = pl->g + pl->dg / 2;
			cols[n][2] = pl->b + pl->db / 2;
			n++;
		}
	}
	for (i = 0; i < n; i++)
		wsum += 16 + strlen(names[i]) * 7.1 + 14;
	x = (g->width - wsum) / 2;
	fputs("<g class=\"fg-legend\">", f);
	for (i = 0; i < n; i++) {
		fputs("<rect x=\"", f);
		put_num(f, x);
		fprintf(f, "\" y=\"%u\" width=\"11\" height=\"11\" fill=\"rgb(%u,%u,%u)\"/>"
			   "<text x=\"", y - 10, cols[i][0], cols[i][1], cols[i][2]);
		put_num(f, x + 15);
		fprintf(f, "\" y=\"%u\">%s</text>", y, names[i]);
		x += 16 + strlen(names[i]) * 7.1 + 14;
	}
	fputs("</g>\n", f);
}

static int emit_svg(FILE *f, struct fg *g, const struct profile *p, const struct flamegraph_opts *o)
{
	const char *title = o && o->title ? o->title : profile_s(p, p->title);
	const char *sub = o ? o->subtitle : NULL;
	unsigned int y = 24, height;
	char v[32];

	if (!title[0])
		title = g->diff ? "Differential Flame Graph" : "Flame Graph";
	measure(g);
	g->top = 24 + (sub && sub[0] ? 18 : 0) + 18 + 22 + 10;
	g->bottom = g->top + (g->nboxes ? (g->maxdepth + 1) * FRAME_H : 2 * FRAME_H);
	height = g->bottom + 30;

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
		   "<svg version=\"1.1\" class=\"fg\" width=\"%u\" height=\"%u\" "
		   "viewBox=\"0 0 %u %u\" xmlns=\"http://www.w3.org/2000/svg\">\n"
		   "<style type=\"text/css\">%s</style>\n"
		   "<rect width=\"100%%\" height=\"100%%\" fill=\"#f8f8f4\"/>\n",
		g->width, height, g->width, height, flamegraph_css);
	fprintf(f, "<text class=\"fg-title\" x=\"%u\" y=\"%u\">", g->width / 2, y);
	if (put_text(f, title))
		return -ENOMEM;
	fputs("</text>\n", f);
	if (sub && sub[0]) {
		y += 18;
		fprintf(f, "<text class=\"fg-sub\" x=\"%u\" y=\"%u\">", g->width / 2, y);
		if (put_text(f, sub))
			return -ENOMEM;
		fputs("</text>\n", f);
	}
	y += 18;
	fprintf(f, "<text class=\"fg-tot\" x=\"%u\" y=\"%u\">Total: %s%s", g->width / 2, y,
		profile_value_str(g->p, unshift(g->total, g->shift[0]), v, sizeof(v)),
		profile_count_word(g->p));
	if (g->diff)
		fprintf(f, ", base: %s%s",
			profile_value_str(g->p, unshift(g->btotal, g->shift[1]), v, sizeof(v)),
			profile_count_word(g->p));
	if (g->saturated || g->shift[0] || g->shift[1])
		fputs(" (counts added up past 2^53: totals and shares are not exact)", f);
	fputs(g->inverted ? " (icicle: innermost frames on top)</text>\n" : "</text>\n", f);
	y += 22;
	fprintf(f, "<text class=\"fg-btn fg-reset fg-off\" x=\"%u\" y=\"%u\">Reset Zoom</text>\n"
		   "<text class=\"fg-btn fg-search\" x=\"%u\" y=\"%u\" "
		   "style=\"text-anchor:end\">Search</text>\n",
		PAD, y, g->width - PAD, y);
	emit_legend(f, g, y);

	fputs("<g class=\"fg-frames\">\n", f);
	emit_boxes(f, g);
	fputs("</g>\n", f);
	if (!g->nboxes)
		fprintf(f, "<text x=\"%u\" y=\"%u\" style=\"text-anchor:middle\">no samples</text>\n",
			g->width / 2, g->top + FRAME_H);
	fprintf(f, "<text class=\"fg-details\" x=\"%u\" y=\"%u\"> </text>\n"
		   "<text class=\"fg-matched\" x=\"%u\" y=\"%u\" style=\"text-anchor:end\"> </text>\n",
		PAD, g->bottom + 20, g->width - PAD, g->bottom + 20);
	/* last, so that every element it looks up exists when it runs */
	fprintf(f, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
		flamegraph_js);
	return 0;
}

static void fg_free(struct fg *g)
{
	uint32_t i;

	for (i = 0; i < g->nlabels; i++)
		free(g->labels[i].text);
	free(g->labels);
	free(g->lslots);
	free(g->byrank);
	free(g->rmap[0]);
	free(g->rmap[1]);
	free(g->refs);
	free(g->work);
	free(g->runs);
	free(g->boxes);
}

int flamegraph_write(FILE *f, const struct profile *p, const struct flamegraph_opts *o)
{
	const struct profile *base = o ? o->base : NULL;
	size_t n = p ? p->nsamples : 0;
	struct fg g = { 0 };
	int err;

	if (!f || !p)
		return -EINVAL;
	if (base)
		n += base->nsamples;
	if (n >= NONE)
		return -E2BIG;	/* refs are indexed by 32 bits */
	g.width = o && o->width ? o->width : 1200;
	if (g.width < 2 * PAD + 100)
		g.width = 2 * PAD + 100;
	g.min_width = o && o->min_width > 0 ? o->min_width : 0.1;
	g.p = p;
	g.inverted = o && o->inverted;
	g.diff = base;
	g.saturated = p->saturated || (base && base->saturated);

	err = -ENOMEM;
	g.refs = malloc((n ? n : 1) * sizeof(*g.refs));
	if (!g.refs || label_get(&g, "all", KIND_PROC) != 0)
		goto out;
	g.mark = label_get(&g, "[invalid frame]", FRAME_MARK);
	if (g.mark == NONE)
		goto out;
	err = add_refs(&g, p, 0);
	if (!err && base)
		err = add_refs(&g, base, 1);
	if (!err)
		err = rank_labels(&g);
	if (!err)
		err = build(&g);
	if (!err)
		err = emit_svg(f, &g, p, o);
	if (!err && (fflush(f) || ferror(f)))
		err = -EIO;
out:
	fg_free(&g);
	return err;
}
