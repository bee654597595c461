// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the SVG flame graph writer (flamegraph.c).  Profiles are built
 * by hand; the SVG is read back with a small attribute scanner (frames are
 * <g c=".."><title>NAME\nDETAILS</title><rect x y width height fill/>), and
 * every graph must be well-formed XML by xmllint.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "formats/flamegraph.h"
#include "profile/profile.h"
#include "unit_helpers.h"

#define FULL 1180.0	/* default width 1200 less 10 px each side */

struct box {
	unsigned long long c, b;
	double x, y, w;
	unsigned int r, g, bl;
};

static uint32_t frame(struct profile *p, const char *name, enum frame_kind kind, uint64_t addr)
{
	struct prof_frame f = { .name = profile_str(p, name), .kind = kind, .addr = addr };
	uint32_t i = profile_frame(p, &f);

	assert_int_not_equal(i, UINT32_MAX);
	return i;
}

static void sample(struct profile *p, const char *comm, const uint32_t *fr, uint32_t n,
		   uint64_t count)
{
	struct prof_sample s = { .comm = profile_str(p, comm), .pid = 7, .tid = 7, .count = count };

	assert_int_equal(profile_add_sample(p, fr, n, &s), 0);
}

/* Render p; the SVG as a NUL-terminated string, checked by xmllint. */
static char *render(const struct profile *p, const struct flamegraph_opts *o, size_t *len)
{
	char path[] = "/tmp/stitch_fg_XXXXXX";
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	int fd;

	assert_non_null(f);
	assert_int_equal(flamegraph_write(f, p, o), 0);
	assert_int_equal(fclose(f), 0);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, buf, n), (ssize_t)n);
	close(fd);
	test_shell_ok("xmllint --noout %s", path);
	unlink(path);
	if (len)
		*len = n;
	return buf;
}

/* The nth (0-based) box whose title's first line is name. */
static bool find_box(const char *svg, const char *name, int nth, struct box *b)
{
	char key[512];
	const char *s = svg, *g, *r;

	snprintf(key, sizeof(key), "<title>%s\n", name);
	for (;;) {
		s = strstr(s, key);
		if (!s)
			return false;
		if (nth-- == 0)
			break;
		s++;
	}
	memset(b, 0, sizeof(*b));
	/* the <g c=".." [b=".."]> right before the title */
	for (g = s; g > svg && strncmp(g, "<g c=", 5); g--)
		;
	assert_int_equal(sscanf(g, "<g c=\"%llu\"", &b->c), 1);
	r = strchr(g, '>');
	if (memmem(g, r - g, " b=\"", 4))
		assert_int_equal(sscanf(strstr(g, " b=\""), " b=\"%llu\"", &b->b), 1);
	r = strstr(s, "<rect ");
	assert_non_null(r);
	assert_int_equal(sscanf(r, "<rect x=\"%lf\" y=\"%lf\" width=\"%lf\" height=\"15\" "
				   "fill=\"#%2x%2x%2x\"",
				&b->x, &b->y, &b->w, &b->r, &b->g, &b->bl), 6);
	return true;
}

static int count_str(const char *hay, const char *needle)
{
	int n = 0;

	for (; (hay = strstr(hay, needle)); hay++)
		n++;
	return n;
}

static bool near(double a, double b)
{
	return a - b < 0.011 && b - a < 0.011;
}

/* app: main;work;b x30 (as two samples), app: main;work;c x10 */
static void small_profile(struct profile *p)
{
	uint32_t m, w, b, c;

	profile_init(p);
	m = frame(p, "main", FRAME_USER, 0x10);
	w = frame(p, "work", FRAME_USER, 0x20);
	b = frame(p, "b", FRAME_USER, 0x30);
	c = frame(p, "c", FRAME_USER, 0x40);
	sample(p, "app", (uint32_t[]){ m, w, c }, 3, 10);
	sample(p, "app", (uint32_t[]){ m, w, b }, 3, 20);
	sample(p, "app", (uint32_t[]){ m, w, b }, 3, 10);
}

static void test_structure(void **state)
{
	struct profile p;
	struct box all, app, main_, work, b, c;
	char *svg;

	small_profile(&p);
	svg = render(&p, NULL, NULL);
	assert_true(find_box(svg, "all", 0, &all));
	assert_true(find_box(svg, "app", 0, &app));
	assert_true(find_box(svg, "main", 0, &main_));
	assert_true(find_box(svg, "work", 0, &work));
	assert_true(find_box(svg, "b", 0, &b));
	assert_true(find_box(svg, "c", 0, &c));
	assert_int_equal(all.c, 40);
	assert_true(near(all.w, FULL) && near(all.x, 10));
	/* identical paths merged into one box of 30: 3/4 of the width */
	assert_int_equal(count_str(svg, "<title>b\n"), 1);
	assert_int_equal(b.c, 30);
	assert_true(near(b.w, FULL * 30 / 40));
	assert_true(near(c.w, FULL * 10 / 40));
	/* siblings by name: b first, c after it */
	assert_true(near(b.x, 10) && near(c.x, 10 + FULL * 30 / 40));
	/* a flame: the root at the bottom, each level 16 px above its parent */
	assert_true(all.y > app.y && app.y > main_.y && main_.y > work.y && work.y > b.y);
	assert_true(near(all.y - app.y, 16) && near(b.y, c.y));
	assert_non_null(strstr(svg, "<title>b\n30 samples, 75.00%</title>"));
	free(svg);
	profile_free(&p);
}

/* One function at two addresses, and the same stack in two processes' samples. */
static void test_merge_by_name(void **state)
{
	struct profile p;
	struct box f, x;
	uint32_t a1, a2, x1;
	char *svg;

	profile_init(&p);
	a1 = frame(&p, "f", FRAME_USER, 0x100);
	a2 = frame(&p, "f", FRAME_USER, 0x104);
	x1 = frame(&p, "x", FRAME_USER, 0x200);
	assert_int_not_equal(a1, a2);
	sample(&p, "app", (uint32_t[]){ a1, x1 }, 2, 3);
	sample(&p, "app", (uint32_t[]){ a2, x1 }, 2, 4);
	sample(&p, "other", (uint32_t[]){ a2 }, 1, 5);
	svg = render(&p, NULL, NULL);
	assert_int_equal(count_str(svg, "<title>f\n"), 2);	/* one per comm */
	assert_true(find_box(svg, "f", 0, &f));
	assert_int_equal(f.c, 7);
	assert_true(find_box(svg, "x", 0, &x));
	assert_int_equal(x.c, 7);
	assert_true(find_box(svg, "f", 1, &f));
	assert_int_equal(f.c, 5);
	free(svg);
	profile_free(&p);
}

static void test_min_width(void **state)
{
	struct flamegraph_opts o = { .min_width = 0.001 };
	struct profile p;
	struct box t;
	uint32_t big, tiny, under;
	char *svg;

	profile_init(&p);
	big = frame(&p, "big", FRAME_USER, 1);
	tiny = frame(&p, "tiny", FRAME_USER, 2);
	under = frame(&p, "under_tiny", FRAME_USER, 3);
	sample(&p, "app", &big, 1, 100000);
	sample(&p, "app", (uint32_t[]){ tiny, under }, 2, 1);	/* 0.0118 px */
	svg = render(&p, NULL, NULL);
	assert_null(strstr(svg, "<title>tiny\n"));
	assert_null(strstr(svg, "<title>under_tiny\n"));
	assert_non_null(strstr(svg, "<title>big\n"));
	free(svg);

	svg = render(&p, &o, NULL);
	assert_true(find_box(svg, "tiny", 0, &t));
	assert_true(near(t.w, FULL / 100001));
	assert_non_null(strstr(svg, "<title>under_tiny\n"));
	free(svg);
	profile_free(&p);
}

static void test_inverted(void **state)
{
	struct flamegraph_opts o = { .inverted = true };
	struct profile p;
	struct box all, app, a, b, c;
	uint32_t fa, fb, fc;
	char *svg;

	profile_init(&p);
	fa = frame(&p, "outer", FRAME_USER, 1);
	fb = frame(&p, "middle", FRAME_USER, 2);
	fc = frame(&p, "inner", FRAME_USER, 3);
	sample(&p, "app", (uint32_t[]){ fa, fb, fc }, 3, 5);
	sample(&p, "app", (uint32_t[]){ fa, fc }, 2, 5);

	svg = render(&p, &o, NULL);
	assert_true(find_box(svg, "all", 0, &all));
	assert_true(find_box(svg, "inner", 0, &c));
	assert_true(find_box(svg, "middle", 0, &b));
	assert_true(find_box(svg, "outer", 0, &a));
	assert_true(find_box(svg, "app", 0, &app));
	/* innermost frames merged at the top, right under the root */
	assert_int_equal(count_str(svg, "<title>inner\n"), 1);
	assert_int_equal(c.c, 10);
	assert_true(near(c.w, FULL));
	assert_true(all.y < c.y && near(c.y - all.y, 16));
	assert_true(c.y < b.y && c.y < a.y);
	assert_int_equal(count_str(svg, "<title>outer\n"), 2);	/* under middle and under inner */
	assert_true(app.y > a.y);	/* the comm ends each path */
	assert_non_null(strstr(svg, "icicle"));
	free(svg);

	/* the same profile as a flame: inner on top, one box per path */
	svg = render(&p, NULL, NULL);
	assert_true(find_box(svg, "all", 0, &all));
	assert_true(find_box(svg, "outer", 0, &a));
	assert_true(find_box(svg, "inner", 0, &c));
	assert_int_equal(count_str(svg, "<title>inner\n"), 2);
	assert_int_equal(count_str(svg, "<title>outer\n"), 1);
	assert_true(all.y > a.y && a.y > c.y);
	free(svg);
	profile_free(&p);
}

static bool valid_utf8(const unsigned char *s, size_t n)
{
	size_t i = 0;

	while (i < n) {
		size_t k, need = s[i] < 0x80 ? 0 : (s[i] & 0xe0) == 0xc0 ? 1 :
						  (s[i] & 0xf0) == 0xe0 ? 2 :
						  (s[i] & 0xf8) == 0xf0 ? 3 : 9;

		if (need == 9 || i + need >= n + (need ? 0 : 1))
			return false;
		for (k = 1; k <= need; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
		i += need + 1;
	}
	return true;
}

static void test_escaping(void **state)
{
	static const char *hostile[] = {
		"<img src=x onerror=alert(1)>.pl",
		"a&b<c>d",
		"q\"u'o",
		"end]]>cdata",
		"ctl\x01\x1b\x7f\tend",
		"bad\xff\xfe\xc3(utf8",
		"overlong\xc0\xaf\xe0\x80\xaf",
		"surrogate\xed\xa0\x80",
		"cut\xe2\x82",
		"na\xc3\xafve\xe2\x86\x92",
	};
	struct flamegraph_opts o = {
		.title = "<script>alert('title')</script>",
		.subtitle = "sub & <b>\x02</b> \xff",
	};
	uint32_t fr[10];
	struct profile p;
	size_t len, i;
	char *svg;

	profile_init(&p);
	for (i = 0; i < 10; i++)
		fr[i] = frame(&p, hostile[i], i % 2 ? FRAME_PERL : FRAME_KERNEL, i + 1);
	sample(&p, "<script>alert(1)</script>", fr, 10, 3);
	sample(&p, "comm\x01\xff\"&", fr, 3, 1);
	p.title = profile_str(&p, "unused");
	svg = render(&p, &o, &len);

	assert_int_equal(strlen(svg), len);
	assert_null(strstr(svg, "<script>alert"));
	assert_null(strstr(svg, "<img"));
	assert_null(strstr(svg, "<b>"));
	assert_int_equal(count_str(svg, "<script"), 1);		/* ours */
	assert_int_equal(count_str(svg, "]]>"), 1);		/* our CDATA's end */
	assert_non_null(strstr(svg, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	assert_non_null(strstr(svg, "&lt;img src=x onerror=alert(1)&gt;.pl_[k]"));
	assert_non_null(strstr(svg, "a&amp;b&lt;c&gt;d"));
	assert_non_null(strstr(svg, "q&quot;u&#39;o_[k]"));
	assert_non_null(strstr(svg, "end]]&gt;cdata"));
	assert_non_null(strstr(svg, "&lt;script&gt;alert(&#39;title&#39;)&lt;/script&gt;"));
	assert_non_null(strstr(svg, "na\xc3\xafve\xe2\x86\x92"));	/* valid UTF-8 kept */
	assert_non_null(strstr(svg, "bad\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd(utf8"));
	for (i = 0; i < len; i++) {
		unsigned char c = svg[i];

		if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
			fail_msg("raw control byte 0x%02x at %zu", c, i);
	}
	assert_true(valid_utf8((const unsigned char *)svg, len));
	free(svg);
	profile_free(&p);
}

/* Corrupt input must not crash: an out-of-range frame index, a bad kind. */
static void test_bad_indices(void **state)
{
	struct prof_frame odd = { .kind = 200 };
	struct profile p;
	uint32_t fr[3];
	char *svg;

	profile_init(&p);
	odd.name = profile_str(&p, "oddkind");
	fr[0] = frame(&p, "ok", FRAME_USER, 1);
	fr[1] = 12345;
	fr[2] = profile_frame(&p, &odd);
	sample(&p, "app", fr, 3, 2);
	svg = render(&p, NULL, NULL);
	assert_non_null(strstr(svg, "<title>[invalid frame]\n"));
	assert_non_null(strstr(svg, "<title>oddkind\n"));
	free(svg);
	profile_free(&p);
}

static void test_colours_by_kind(void **state)
{
	static const enum frame_kind kinds[] = { FRAME_USER, FRAME_KERNEL, FRAME_INLINED,
						 FRAME_PERL, FRAME_RUBY, FRAME_PYTHON, FRAME_MARK };
	static const char *names[] = { "native_fn", "kernel_fn", "inlined_fn", "perl_fn",
				       "ruby_fn", "python_fn", "[unknown]" };
	static const char *titles[] = { "native_fn", "kernel_fn_[k]", "inlined_fn_[i]",
					 "perl_fn", "ruby_fn", "python_fn", "[unknown]" };
	struct box bx[7], again;
	struct profile p;
	uint32_t fr[7], i, j;
	char *svg, *svg2;

	profile_init(&p);
	for (i = 0; i < 7; i++)
		fr[i] = frame(&p, names[i], kinds[i], i + 1);
	for (i = 0; i < 7; i++)
		sample(&p, "app", &fr[i], 1, 10);
	/* the same name twice in one kind: same colour wherever it is */
	sample(&p, "app", (uint32_t[]){ fr[2], fr[0] }, 2, 10);
	svg = render(&p, NULL, NULL);
	for (i = 0; i < 7; i++)
		assert_true(find_box(svg, titles[i], 0, &bx[i]));
	/* native is red (little green), kernel orange (much green, no blue) */
	assert_true(bx[0].r >= 200 && bx[0].g <= 120 && bx[0].bl <= 80);
	assert_true(bx[1].r >= 220 && bx[1].g >= 150 && bx[1].bl <= 40);
	/* inlined aqua, perl purple, ruby pink, python blue, markers grey */
	assert_true(bx[2].g >= 180 && bx[2].bl >= 180 && bx[2].r <= 100);
	assert_true(bx[3].bl >= 205 && bx[3].r < bx[3].bl && bx[3].g < bx[3].r);
	assert_true(bx[4].r >= 215 && bx[4].bl >= 130 && bx[4].g <= 100);
	assert_true(bx[5].bl >= 210 && bx[5].r <= 95);
	assert_true(bx[6].r >= 150 && bx[6].r <= 185 && bx[6].g >= 150 && bx[6].g <= 185);
	for (i = 0; i < 7; i++)
		for (j = i + 1; j < 7; j++)
			assert_false(bx[i].r == bx[j].r && bx[i].g == bx[j].g && bx[i].bl == bx[j].bl);
	assert_true(find_box(svg, "native_fn", 1, &again));
	assert_true(again.r == bx[0].r && again.g == bx[0].g && again.bl == bx[0].bl);
	/* legend in the header for the kinds drawn */
	for (i = 0; i < 7; i++) {
		static const char *leg[] = { ">native<", ">kernel<", ">inlined<", ">perl<",
					     ">ruby<", ">python<", ">marker<" };

		assert_non_null(strstr(svg, leg[i]));
	}
	/* deterministic: the same profile gives the same bytes */
	svg2 = render(&p, NULL, NULL);
	assert_string_equal(svg, svg2);
	free(svg2);
	free(svg);
	profile_free(&p);
}

static void test_differential(void **state)
{
	struct flamegraph_opts o = { 0 };
	struct profile now, base;
	struct box grew, shrank, same;
	char *svg;
	struct profile *ps[2] = { &now, &base };
	int i;

	for (i = 0; i < 2; i++) {
		struct profile *p = ps[i];
		uint32_t m, g, s, n;

		profile_init(p);
		m = frame(p, "main", FRAME_USER, 1);
		g = frame(p, "growing", FRAME_USER, 2);
		s = frame(p, "shrinking", FRAME_USER, 3);
		n = frame(p, "steady", FRAME_USER, 4);
		/* now: 60/20/20 of 100; base: 10/30/10 of 50 (20%, 60%, 20%) */
		sample(p, "app", (uint32_t[]){ m, g }, 2, i ? 10 : 60);
		sample(p, "app", (uint32_t[]){ m, s }, 2, i ? 30 : 20);
		sample(p, "app", (uint32_t[]){ m, n }, 2, i ? 10 : 20);
	}
	o.base = &base;
	svg = render(&now, &o, NULL);
	assert_true(find_box(svg, "growing", 0, &grew));
	assert_true(find_box(svg, "shrinking", 0, &shrank));
	assert_true(find_box(svg, "steady", 0, &same));
	/* width is the drawn profile's count */
	assert_true(near(grew.w, FULL * 0.6));
	assert_int_equal(grew.b, 10);
	assert_true(grew.r > grew.bl + 100 && grew.r > grew.g + 100);
	assert_true(shrank.bl > shrank.r + 100);
	assert_true(same.r == same.g && same.g == same.bl && same.r >= 200);
	assert_non_null(strstr(svg, "<title>growing\n60 samples (60.00%), base 10 (20.00%), +40.00%"));
	assert_non_null(strstr(svg, "base 30 (60.00%), -40.00%"));
	assert_non_null(strstr(svg, "Total: 100 samples, base: 50 samples"));
	assert_non_null(strstr(svg, ">grew<"));
	assert_non_null(strstr(svg, ">shrank<"));
	free(svg);
	profile_free(&now);
	profile_free(&base);
}

/* Exact pieces of a tiny fixed graph. */
static void test_golden(void **state)
{
	struct flamegraph_opts o = { .title = "cpu at 99 Hz", .subtitle = "pid 42, 1.0 s" };
	struct profile p;
	uint32_t m, k;
	char *svg;

	profile_init(&p);
	m = frame(&p, "main", FRAME_USER, 1);
	k = frame(&p, "sys_write", FRAME_KERNEL, 2);
	sample(&p, "tiny", (uint32_t[]){ m, k }, 2, 3);
	sample(&p, "tiny", &m, 1, 1);
	svg = render(&p, &o, NULL);
	assert_non_null(strstr(svg, "<svg version=\"1.1\" class=\"fg\" width=\"1200\" height=\"186\" "
				    "viewBox=\"0 0 1200 186\" xmlns=\"http://www.w3.org/2000/svg\">"));
	assert_non_null(strstr(svg, "<text class=\"fg-title\" x=\"600\" y=\"24\">cpu at 99 Hz</text>"));
	assert_non_null(strstr(svg, "<text class=\"fg-sub\" x=\"600\" y=\"42\">pid 42, 1.0 s</text>"));
	assert_non_null(strstr(svg, "<text class=\"fg-tot\" x=\"600\" y=\"60\">Total: 4 samples</text>"));
	assert_non_null(strstr(svg, ">Reset Zoom</text>"));
	assert_non_null(strstr(svg, ">Search</text>"));
	assert_non_null(strstr(svg, "<g c=\"4\"><title>all\n4 samples, 100.00%</title>"
				    "<rect x=\"10\" y=\"140\" width=\"1180\" height=\"15\" fill=\"#"));
	assert_non_null(strstr(svg, "<g c=\"4\"><title>tiny\n4 samples, 100.00%</title>"
				    "<rect x=\"10\" y=\"124\" width=\"1180\""));
	assert_non_null(strstr(svg, "<g c=\"3\"><title>sys_write_[k]\n3 samples, 75.00%</title>"
				    "<rect x=\"10\" y=\"92\" width=\"885\" height=\"15\""));
	assert_non_null(strstr(svg, "<text x=\"13\" y=\"104\">sys_write_[k]</text>\n</g>\n"));
	assert_null(strstr(svg, "></text>"));	/* no empty text elements */
	assert_non_null(strstr(svg, "<script type=\"text/ecmascript\"><![CDATA[\n"));
	assert_non_null(strstr(svg, "]]></script>\n</svg>\n"));
	/* self-contained: the namespace is the only URL */
	assert_int_equal(count_str(svg, "http"), 1);
	assert_int_equal(count_str(svg, "href"), 0);
	free(svg);
	profile_free(&p);
}

static void test_empty_and_width(void **state)
{
	struct flamegraph_opts o = { .width = 600 };
	struct profile p;
	struct box all;
	uint32_t m;
	char *svg;

	profile_init(&p);
	svg = render(&p, NULL, NULL);
	assert_non_null(strstr(svg, ">no samples<"));
	assert_non_null(strstr(svg, "Total: 0 samples"));
	assert_non_null(strstr(svg, ">Flame Graph<"));
	free(svg);

	m = frame(&p, "main", FRAME_USER, 1);
	sample(&p, "app", &m, 1, 0);	/* a zero count draws nothing */
	sample(&p, "app", &m, 1, 2);
	svg = render(&p, &o, NULL);
	assert_true(find_box(svg, "all", 0, &all));
	assert_true(near(all.w, 580));
	assert_non_null(strstr(svg, "width=\"600\""));
	free(svg);
	assert_int_equal(flamegraph_write(NULL, &p, NULL), -EINVAL);
	profile_free(&p);
}

/* Long multi-byte names are cut on a character boundary with "..". */
static void test_truncation(void **state)
{
	char name[401];
	struct profile p;
	uint32_t a, b;
	size_t len;
	char *svg, *t;
	int i;

	for (i = 0; i < 200; i++)
		memcpy(name + 2 * i, "\xc3\xa9", 2);
	name[400] = '\0';
	profile_init(&p);
	a = frame(&p, name, FRAME_USER, 1);
	b = frame(&p, "rest", FRAME_USER, 2);
	sample(&p, "app", &a, 1, 1);
	sample(&p, "app", &b, 1, 9);
	svg = render(&p, NULL, &len);
	assert_true(valid_utf8((const unsigned char *)svg, len));
	t = strstr(svg, "<text x=\"13\" y=");	/* the first comm's first frame: the long name */
	assert_non_null(t);
	t = strstr(svg, "\xc3\xa9..</text>");
	assert_non_null(t);
	free(svg);
	profile_free(&p);
}

/* Many stacks: all merged, well-formed, and bounded by what is visible. */
static void test_many_stacks(void **state)
{
	struct profile p;
	uint32_t fr[24], names[64];
	uint64_t seed = 42;
	size_t len;
	char buf[32], *svg;
	int i, s, boxes;

	profile_init(&p);
	for (i = 0; i < 64; i++) {
		snprintf(buf, sizeof(buf), "fn_%d", i);
		names[i] = frame(&p, buf, i % 5 == 0 ? FRAME_KERNEL : FRAME_USER, i);
	}
	for (s = 0; s < 20000; s++) {
		int depth = 8 + s % 16;

		for (i = 0; i < depth; i++) {
			seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
			fr[i] = names[(seed >> 33) % (i < 3 ? 4 : 64)];
		}
		sample(&p, s % 3 ? "app" : "worker", fr, depth, 1 + s % 7);
	}
	svg = render(&p, NULL, &len);
	boxes = count_str(svg, "<rect x=");
	/* compact: about 100 bytes a box (they are mostly too narrow for text) */
	assert_true(len < (size_t)boxes * 130);
	assert_true(boxes < 60000);
	assert_non_null(strstr(svg, "<title>all\n"));
	free(svg);
	profile_free(&p);
}

/*
 * Counts that add up past 2^53 (report of folded input with huge weights):
 * the sums would saturate and two 2^53 children each fill their 2^53
 * parent.  Drawn halved instead, each is half as wide as its parent, and
 * the total line says the shares are not exact.
 */
static void test_saturated_counts(void **state)
{
	struct profile p;
	struct box all, main_, a, b;
	uint32_t m, fa, fb;
	char *svg;

	profile_init(&p);
	m = frame(&p, "main", FRAME_USER, 1);
	fa = frame(&p, "a", FRAME_USER, 2);
	fb = frame(&p, "b", FRAME_USER, 3);
	sample(&p, "app", (uint32_t[]){ m, fa }, 2, PROFILE_MAX_COUNT);
	sample(&p, "app", (uint32_t[]){ m, fb }, 2, PROFILE_MAX_COUNT);
	assert_true(p.saturated);
	svg = render(&p, NULL, NULL);
	assert_true(find_box(svg, "all", 0, &all));
	assert_true(find_box(svg, "main", 0, &main_));
	assert_true(find_box(svg, "a", 0, &a));
	assert_true(find_box(svg, "b", 0, &b));
	assert_true(near(main_.w, FULL));
	assert_true(near(a.w, FULL / 2) && near(b.w, FULL / 2));
	assert_true(near(b.x, a.x + FULL / 2));
	assert_true(a.c + b.c <= main_.c && main_.c <= all.c && all.c <= PROFILE_MAX_COUNT);
	assert_non_null(strstr(svg, "<title>a\n9007199254740992 samples, 50.00%</title>"));
	assert_non_null(strstr(svg, "Total: 18014398509481984 samples (counts added up past "
				    "2^53: totals and shares are not exact)"));
	free(svg);
	profile_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_structure),
		cmocka_unit_test(test_merge_by_name),
		cmocka_unit_test(test_min_width),
		cmocka_unit_test(test_inverted),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test(test_bad_indices),
		cmocka_unit_test(test_colours_by_kind),
		cmocka_unit_test(test_differential),
		cmocka_unit_test(test_golden),
		cmocka_unit_test(test_empty_and_width),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_many_stacks),
		cmocka_unit_test(test_saturated_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
