// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the OTLP encoder (src/agent/push_otlp.c): the request decoded
 * back with protobuf.h's reader, every field number checked against
 * opentelemetry-proto's profiles/v1development schema (vendored in
 * tests/agent/proto/otel), the dictionary's tables each starting with the
 * zero value and holding no duplicates, every index in range, and each
 * sample's stack resolved back to the frames, files and lines it came from.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "unit_helpers.h"

#include "agent/push.h"
#include "profile/profile.h"
#include "pb_decode.h"

/* ProfilesDictionary's tables by field number. */
enum { D_MAPPING = 1, D_LOCATION, D_FUNCTION, D_LINK, D_STRING, D_ATTRIBUTE, D_STACK, D_NR };
#define MAX_ENTRIES 256

struct dict {
	struct msg t[D_NR][MAX_ENTRIES];
	int n[D_NR];
};

/*
 * Outermost first:
 *  0: [truncated] main handle parse_inl helper_inl memcpy entry_SYSCALL_64 ext4_read
 *  1: main handle parse_inl helper_inl (nameless frame)
 *  2: main main::work(perl) Perl_pp_sleep
 */
static void build_cpu(struct profile *p)
{
	uint32_t trunc, main_f, handle, parse_inl, helper_inl, memcpy_f, entry, ext4, nameless,
		perl_work, pp_sleep;

	profile_init(p);
	trunc = test_profile_frame(p, "[truncated]", NULL, 0, NULL, 0, FRAME_MARK);
	main_f = test_profile_frame(p, "main", "app.c", 10, "/usr/bin/app", 0x1000, FRAME_USER);
	handle = test_profile_frame(p, "handle", "app.c", 20, "/usr/bin/app", 0x1200, FRAME_USER);
	parse_inl = test_profile_frame(p, "parse_inl", "parse.h", 5, "/usr/bin/app", 0x1200, FRAME_INLINED);
	helper_inl = test_profile_frame(p, "helper_inl", "util.h", 7, "/usr/bin/app", 0x1200,
			       FRAME_INLINED);
	memcpy_f = test_profile_frame(p, "memcpy", NULL, 0, "/usr/lib/libc.so.6", 0x9a000, FRAME_USER);
	entry = test_profile_frame(p, "entry_SYSCALL_64", NULL, 0, "[kernel]", 0xffffffff81000100ull,
			  FRAME_KERNEL);
	ext4 = test_profile_frame(p, "ext4_read", NULL, 0, "[ext4]", 0xffffffffc0001000ull, FRAME_KERNEL);
	nameless = test_profile_frame(p, NULL, NULL, 0, NULL, 0, FRAME_USER);
	perl_work = test_profile_frame(p, "main::work", "/srv/work.pl", 3, NULL, 0, FRAME_PERL);
	pp_sleep = test_profile_frame(p, "Perl_pp_sleep", NULL, 0, "/usr/bin/perl", 0x4000, FRAME_USER);
	{
		uint32_t s0[] = { trunc, main_f, handle, parse_inl, helper_inl, memcpy_f, entry,
				  ext4 };
		uint32_t s1[] = { main_f, handle, parse_inl, helper_inl, nameless };
		uint32_t s2[] = { main_f, perl_work, pp_sleep };

		test_profile_sample(p, s0, 8, "app", "cpu", 100, 101, 5);
		test_profile_sample(p, s1, 5, "worker", "cpu", 100, 102, 3);
		test_profile_sample(p, s2, 3, "perl", "cpu", 200, 200, 1);
	}
	assert_int_equal(profile_module(p, "/usr/bin/app", "abcdef0123456789"), 0);
	p->period_ns = 52631578;
	p->time_ns = 1700000000000000000ull;
	p->duration_ns = 15000000000ull;
}

/* An off-CPU profile: counts are nanoseconds. */
static void build_offcpu(struct profile *p)
{
	uint32_t main_f, sleep_f;

	profile_init(p);
	main_f = test_profile_frame(p, "main", "db.c", 3, "/usr/bin/db", 0x2000, FRAME_USER);
	sleep_f = test_profile_frame(p, "nanosleep", NULL, 0, "/usr/lib/libc.so.6", 0x5000, FRAME_USER);
	{
		uint32_t s0[] = { main_f, sleep_f };

		test_profile_sample(p, s0, 2, "db", "cpu", 300, 301, 2500000000ull);
	}
	p->value_type = profile_str(p, "off_cpu");
	p->value_unit = profile_str(p, "nanoseconds");
	p->time_ns = 1700000000000000000ull;
	p->duration_ns = 15000000000ull;
}

static const struct push_label cpu_labels[] = {
	{ "__name__", "process_cpu" },
	{ "service_name", "app" },
	{ "host_name", "h1" },
	{ "container_id", "c0ffee" },
	{ "pod_uid", "" },
	{ "env", "prod" },
};
static const struct push_label off_labels[] = {
	{ "__name__", "off_cpu" },
	{ "service_name", "db" },
};

struct fixture {
	struct profile cpu, off;
	struct push_series s[2];
	struct pb_buf out;
	struct msg req;
	struct dict d;
};

static void read_dict(struct msg req, struct dict *d)
{
	static const uint32_t known[] = { 1, 2, 3, 4, 5, 6, 7 };
	struct msg dm;
	int t, i;

	assert_int_equal(pb_count(req, 2), 1);
	dm = pb_msg(req, 2, 0);
	pb_only(dm, known, 7);
	for (t = 1; t < D_NR; t++) {
		d->n[t] = pb_count(dm, t);
		assert_true(d->n[t] >= 1 && d->n[t] <= MAX_ENTRIES);
		for (i = 0; i < d->n[t]; i++)
			d->t[t][i] = pb_msg(dm, t, i);
	}
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	build_cpu(&f->cpu);
	build_offcpu(&f->off);
	f->s[0] = (struct push_series){
		.prof = &f->cpu, .labels = cpu_labels, .nlabels = 6,
		.start_ns = 1790000000000000000ull, .end_ns = 1790000015000000000ull,
		.pid = 100, .exe_name = "app",
	};
	f->s[1] = (struct push_series){
		.prof = &f->off, .labels = off_labels, .nlabels = 2,
	};
	assert_int_equal(push_encode_otlp(f->s, 2, &f->out), 0);
	f->req = msg_of(f->out.data, f->out.len);
	read_dict(f->req, &f->d);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;

	pb_buf_free(&f->out);
	profile_free(&f->cpu);
	profile_free(&f->off);
	free(f);
	return 0;
}

static const char *dstr(const struct dict *d, uint64_t i, char *buf, size_t len)
{
	assert_true(i < (uint64_t)d->n[D_STRING]);
	assert_true(d->t[D_STRING][i].len < len);
	memcpy(buf, d->t[D_STRING][i].p, d->t[D_STRING][i].len);
	buf[d->t[D_STRING][i].len] = '\0';
	return buf;
}

static uint64_t str_index(const struct dict *d, const char *s)
{
	int i;

	for (i = 0; i < d->n[D_STRING]; i++)
		if (d->t[D_STRING][i].len == strlen(s) && !memcmp(d->t[D_STRING][i].p, s, strlen(s)))
			return i;
	fail_msg("no string %s", s);
	return 0;
}

/* Every table's [0] is the zero value; the link table's is 16 and 8 zero bytes; no duplicates. */
static void test_dictionary_zero_entries(void **state)
{
	struct fixture *f = *state;
	static const uint8_t zero[16];
	struct msg link;
	int t, i, j;

	for (t = 1; t < D_NR; t++) {
		if (t == D_LINK)
			continue;
		assert_int_equal(f->d.t[t][0].len, 0);
		for (i = 1; i < f->d.n[t]; i++) {
			assert_true(f->d.t[t][i].len > 0);
			for (j = 0; j < i; j++)
				assert_false(f->d.t[t][i].len == f->d.t[t][j].len &&
					     !memcmp(f->d.t[t][i].p, f->d.t[t][j].p,
						     f->d.t[t][i].len));
		}
	}
	assert_int_equal(f->d.n[D_LINK], 1);
	link = f->d.t[D_LINK][0];
	assert_int_equal(pb_msg(link, 1, 0).len, 16);
	assert_memory_equal(pb_msg(link, 1, 0).p, zero, 16);
	assert_int_equal(pb_msg(link, 2, 0).len, 8);
	assert_memory_equal(pb_msg(link, 2, 0).p, zero, 8);
}

/* An attribute's key and value: the string value into sval, or the int value. */
static void attribute(const struct dict *d, uint64_t idx, char *key, char *sval, int64_t *ival)
{
	static const uint32_t known[] = { 1, 2 }, any_known[] = { 1, 3 };
	struct msg kv, any;

	assert_true(idx > 0 && idx < (uint64_t)d->n[D_ATTRIBUTE]);
	kv = d->t[D_ATTRIBUTE][idx];
	pb_only(kv, known, 2);
	dstr(d, pb_uint(kv, 1), key, 64);
	any = pb_msg(kv, 2, 0);
	pb_only(any, any_known, 2);
	sval[0] = '\0';
	*ival = 0;
	if (pb_count(any, 1)) {
		struct msg s = pb_msg(any, 1, 0);

		memcpy(sval, s.p, s.len);
		sval[s.len] = '\0';
	} else {
		*ival = pb_uint(any, 3);
	}
}

/* The resource attributes, one "key=value" line each, into buf. */
static void resource_text(struct msg rp, char *buf, size_t len)
{
	struct msg res = pb_msg(rp, 1, 0);
	size_t o = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < pb_count(res, 1); i++) {
		struct msg kv = pb_msg(res, 1, i), key = pb_msg(kv, 1, 0), any = pb_msg(kv, 2, 0);

		assert_int_equal(pb_count(kv, 3), 0);	/* key, not key_strindex */
		o += snprintf(buf + o, len - o, "%.*s=", (int)key.len, key.p);
		if (pb_count(any, 1))
			o += snprintf(buf + o, len - o, "%.*s\n", (int)pb_msg(any, 1, 0).len,
				      pb_msg(any, 1, 0).p);
		else
			o += snprintf(buf + o, len - o, "%llu\n",
				      (unsigned long long)pb_uint(any, 3));
	}
}

static void test_resources(void **state)
{
	struct fixture *f = *state;
	static const uint32_t req_known[] = { 1, 2 }, rp_known[] = { 1, 2 }, sp_known[] = { 1, 2 };
	char buf[1024];
	struct msg rp, sp;

	pb_only(f->req, req_known, 2);
	assert_int_equal(pb_count(f->req, 1), 2);
	rp = pb_msg(f->req, 1, 0);
	pb_only(rp, rp_known, 2);
	resource_text(rp, buf, sizeof(buf));
	/* Our labels under the conventions' names, __name__ and empty ones left out. */
	assert_string_equal(buf, "service.name=app\nhost.name=h1\ncontainer.id=c0ffee\n"
			    "env=prod\nprocess.pid=100\nprocess.executable.name=app\n");
	assert_int_equal(pb_count(rp, 2), 1);
	sp = pb_msg(rp, 2, 0);
	pb_only(sp, sp_known, 2);
	assert_true(pb_str_is(pb_msg(sp, 1, 0), 1, "stitch"));
	assert_int_equal(pb_count(sp, 2), 1);

	resource_text(pb_msg(f->req, 1, 1), buf, sizeof(buf));
	assert_string_equal(buf, "service.name=db\n");
}

static struct msg profile_of(const struct fixture *f, int series)
{
	return pb_msg(pb_msg(pb_msg(f->req, 1, series), 2, 0), 2, 0);
}

static void assert_value_type(const struct dict *d, struct msg vt, const char *type,
			      const char *unit)
{
	char b[64];

	assert_string_equal(dstr(d, pb_uint(vt, 1), b, sizeof(b)), type);
	assert_string_equal(dstr(d, pb_uint(vt, 2), b, sizeof(b)), unit);
}

static void test_profile_fields(void **state)
{
	struct fixture *f = *state;
	static const uint32_t known[] = { 1, 2, 3, 4, 5, 6, 7 };
	struct msg prof = profile_of(f, 0), off = profile_of(f, 1), id0, id1;
	struct pb_buf again = { 0 };

	pb_only(prof, known, 7);
	assert_value_type(&f->d, pb_msg(prof, 1, 0), "samples", "count");
	assert_value_type(&f->d, pb_msg(prof, 5, 0), "cpu", "nanoseconds");
	assert_int_equal(pb_uint(prof, 6), 52631578);
	/* time_unix_nano is fixed64: the period's start, not the profile's. */
	assert_int_equal(pb_get(prof, 3, 0, PB_FIXED64).v, 1790000000000000000ull);
	assert_int_equal(pb_uint(prof, 4), 15000000000ull);
	assert_int_equal(pb_count(prof, 2), 3);

	/* Time: the profile's unit, no period; no period given: the profile's own time. */
	assert_value_type(&f->d, pb_msg(off, 1, 0), "off_cpu", "nanoseconds");
	assert_int_equal(pb_count(off, 5), 0);
	assert_int_equal(pb_count(off, 6), 0);
	assert_int_equal(pb_get(off, 3, 0, PB_FIXED64).v, 1700000000000000000ull);

	/* profile_id: 16 bytes, not zero, per series, the same when the period is sent again. */
	id0 = pb_msg(prof, 7, 0);
	id1 = pb_msg(off, 7, 0);
	assert_int_equal(id0.len, 16);
	assert_int_equal(id1.len, 16);
	assert_memory_not_equal(id0.p, id1.p, 16);
	assert_int_equal(push_encode_otlp(f->s, 2, &again), 0);
	assert_int_equal(again.len, f->out.len);
	assert_memory_equal(again.data, f->out.data, again.len);
	pb_buf_free(&again);
}

/* A sample's frames, root first, as "name file:line type" joined by " | ". */
static void sample_text(const struct dict *d, struct msg smp, char *buf, size_t len)
{
	static const uint32_t loc_known[] = { 1, 2, 3, 4 }, line_known[] = { 1, 2 },
		fn_known[] = { 1, 3 };
	uint64_t locs[64], attrs[4];
	char parts[64][160], key[64], sval[64], b1[64], b2[64];
	int nlocs, nparts = 0, i, j, k;
	int64_t ival;
	size_t o = 0;

	nlocs = pb_packed(d->t[D_STACK][pb_uint(smp, 1)], 1, locs, 64);
	for (i = 0; i < nlocs; i++) {
		struct msg loc;
		const char *type = "-";

		assert_true(locs[i] > 0 && locs[i] < (uint64_t)d->n[D_LOCATION]);
		loc = d->t[D_LOCATION][locs[i]];
		pb_only(loc, loc_known, 4);
		assert_true(pb_uint(loc, 1) < (uint64_t)d->n[D_MAPPING]);
		k = pb_packed(loc, 4, attrs, 4);
		for (j = 0; j < k; j++) {
			attribute(d, attrs[j], key, sval, &ival);
			assert_string_equal(key, "profile.frame.type");
			type = strdupa(sval);
		}
		/* Lines inlined first, the caller last: leaf first, as the stack goes. */
		for (j = 0; j < pb_count(loc, 3); j++) {
			struct msg line = pb_msg(loc, 3, j), fn;

			pb_only(line, line_known, 2);
			assert_true(pb_uint(line, 1) > 0 && pb_uint(line, 1) < (uint64_t)d->n[D_FUNCTION]);
			fn = d->t[D_FUNCTION][pb_uint(line, 1)];
			pb_only(fn, fn_known, 2);
			assert_true(nparts < 64);
			snprintf(parts[nparts++], sizeof(parts[0]), "%s %s:%d %s",
				 dstr(d, pb_uint(fn, 1), b1, sizeof(b1)),
				 dstr(d, pb_uint(fn, 3), b2, sizeof(b2)), (int)pb_uint(line, 2), type);
		}
		if (!pb_count(loc, 3)) {
			assert_true(nparts < 64);
			snprintf(parts[nparts++], sizeof(parts[0]), "0x%llx %s",
				 (unsigned long long)pb_uint(loc, 2), type);
		}
	}
	/* The stack is leaf first: print it root first. */
	buf[0] = '\0';
	for (i = nparts - 1; i >= 0; i--)
		o += snprintf(buf + o, len - o, "%s%s", parts[i], i ? " | " : "");
}

static void test_samples(void **state)
{
	struct fixture *f = *state;
	static const uint32_t known[] = { 1, 2, 4 };
	struct msg prof = profile_of(f, 0), smp;
	char buf[2048], key[64], sval[64];
	uint64_t v[4], attrs[8];
	int64_t ival;
	int n;

	smp = pb_msg(prof, 2, 0);
	pb_only(smp, known, 3);
	sample_text(&f->d, smp, buf, sizeof(buf));
	assert_string_equal(buf,
		"[truncated] :0 - | main app.c:10 native | handle app.c:20 native | "
		"parse_inl parse.h:5 native | helper_inl util.h:7 native | memcpy :0 native | "
		"entry_SYSCALL_64 :0 kernel | ext4_read :0 kernel");
	assert_int_equal(pb_packed(smp, 4, v, 4), 1);
	assert_int_equal(v[0], 5);
	/* thread.name and thread.id; no process.pid: the resource has it. */
	n = pb_packed(smp, 2, attrs, 8);
	assert_int_equal(n, 2);
	attribute(&f->d, attrs[0], key, sval, &ival);
	assert_string_equal(key, "thread.name");
	assert_string_equal(sval, "app");
	attribute(&f->d, attrs[1], key, sval, &ival);
	assert_string_equal(key, "thread.id");
	assert_int_equal(ival, 101);

	/* A frame we know nothing of: a location of its own, named [unknown]. */
	smp = pb_msg(prof, 2, 1);
	sample_text(&f->d, smp, buf, sizeof(buf));
	assert_string_equal(buf,
		"main app.c:10 native | handle app.c:20 native | parse_inl parse.h:5 native | "
		"helper_inl util.h:7 native | [unknown] :0 native");
	assert_int_equal(pb_packed(smp, 4, v, 4), 1);
	assert_int_equal(v[0], 3);

	smp = pb_msg(prof, 2, 2);
	sample_text(&f->d, smp, buf, sizeof(buf));
	assert_string_equal(buf,
		"main app.c:10 native | main::work /srv/work.pl:3 perl | "
		"Perl_pp_sleep :0 native");

	/* The second series has no pid: each sample names its process. */
	smp = pb_msg(profile_of(f, 1), 2, 0);
	sample_text(&f->d, smp, buf, sizeof(buf));
	assert_string_equal(buf, "main db.c:3 native | nanosleep :0 native");
	assert_int_equal(pb_packed(smp, 4, v, 4), 1);
	assert_int_equal(v[0], 2500000000ull);
	n = pb_packed(smp, 2, attrs, 8);
	assert_int_equal(n, 3);
	attribute(&f->d, attrs[2], key, sval, &ival);
	assert_string_equal(key, "process.pid");
	assert_int_equal(ival, 300);
	/* The strings both series use are in the table once ("main", "nanoseconds"). */
	str_index(&f->d, "main");
	str_index(&f->d, "nanoseconds");
	/*
	 * One location per native address, its inlined frames as lines: [0],
	 * [truncated], main, handle+parse_inl+helper_inl, memcpy, two kernel,
	 * [unknown], main::work, Perl_pp_sleep, and db's main and nanosleep.
	 */
	assert_int_equal(f->d.n[D_LOCATION], 12);
}

/* Mappings: native and kernel modules by path, the build-id as an attribute. */
static void test_mappings(void **state)
{
	struct fixture *f = *state;
	static const uint32_t known[] = { 4, 5 };
	char b[64], key[64], sval[64];
	uint64_t attrs[4];
	int64_t ival;
	int i, n, found = 0;

	for (i = 1; i < f->d.n[D_MAPPING]; i++) {
		struct msg m = f->d.t[D_MAPPING][i];

		pb_only(m, known, 2);
		dstr(&f->d, pb_uint(m, 4), b, sizeof(b));
		n = pb_packed(m, 5, attrs, 4);
		if (strcmp(b, "/usr/bin/app") == 0) {
			assert_int_equal(n, 1);
			attribute(&f->d, attrs[0], key, sval, &ival);
			assert_string_equal(key, "process.executable.build_id.gnu");
			assert_string_equal(sval, "abcdef0123456789");
		} else {
			assert_int_equal(n, 0);
		}
		found |= !strcmp(b, "/usr/bin/app") << 0 | !strcmp(b, "/usr/lib/libc.so.6") << 1 |
			 !strcmp(b, "[kernel]") << 2 | !strcmp(b, "[ext4]") << 3 |
			 !strcmp(b, "/usr/bin/perl") << 4 | !strcmp(b, "/usr/bin/db") << 5;
	}
	assert_int_equal(found, 0x3f);
	assert_int_equal(f->d.n[D_MAPPING], 7);
}

static void test_empty_and_labelless(void **state)
{
	struct pb_buf out = { 0 };
	struct profile p;
	struct push_series s = { .prof = &p };
	struct dict *d = calloc(1, sizeof(*d));
	struct msg prof;

	assert_non_null(d);
	profile_init(&p);
	/* No series: still a dictionary with every zero entry. */
	assert_int_equal(push_encode_otlp(&s, 0, &out), 0);
	read_dict(msg_of(out.data, out.len), d);
	assert_int_equal(pb_count(msg_of(out.data, out.len), 1), 0);
	/* A profile with no samples and no labels. */
	assert_int_equal(push_encode_otlp(&s, 1, &out), 0);
	read_dict(msg_of(out.data, out.len), d);
	prof = pb_msg(pb_msg(pb_msg(msg_of(out.data, out.len), 1, 0), 2, 0), 2, 0);
	assert_int_equal(pb_count(prof, 2), 0);
	assert_int_equal(pb_count(prof, 3), 0);	/* time unknown: not sent */
	assert_int_equal(pb_msg(prof, 7, 0).len, 16);
	/* A sample without frames (first of all: nothing encoded before it): the zero stack. */
	assert_int_equal(profile_add_sample(&p, NULL, 0, &(struct prof_sample){ .count = 4 }), 0);
	assert_int_equal(push_encode_otlp(&s, 1, &out), 0);
	prof = pb_msg(pb_msg(pb_msg(msg_of(out.data, out.len), 1, 0), 2, 0), 2, 0);
	assert_int_equal(pb_count(prof, 2), 1);
	assert_int_equal(pb_uint(pb_msg(prof, 2, 0), 1), 0);
	read_dict(msg_of(out.data, out.len), d);
	assert_int_equal(d->n[D_STACK], 1);
	/* No profile at all: the same, a Profile without samples. */
	s.prof = NULL;
	assert_int_equal(push_encode_otlp(&s, 1, &out), 0);
	prof = pb_msg(pb_msg(pb_msg(msg_of(out.data, out.len), 1, 0), 2, 0), 2, 0);
	assert_int_equal(pb_count(prof, 2), 0);
	profile_free(&p);
	pb_buf_free(&out);
	free(d);
}

static void test_answers(void **state)
{
	struct pb_buf b = { 0 }, sub = { 0 };
	char msg[16];

	/* Full success: an empty ExportProfilesServiceResponse. */
	assert_int_equal(push_otlp_answer(NULL, 0, true, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "");
	/* Partial success: 3 rejected, why (cut to the buffer, a newline made '?'). */
	pb_put_uint(&sub, 1, 3);
	pb_put_bytes(&sub, 2, "bad\nstack index 7", 18);
	pb_put_bytes(&b, 1, sub.data, sub.len);
	assert_int_equal(push_otlp_answer(b.data, b.len, true, msg, sizeof(msg)), 3);
	assert_string_equal(msg, "bad?stack index");
	/* A warning: nothing rejected, a message. */
	pb_buf_reset(&sub);
	pb_buf_reset(&b);
	pb_put_bytes(&sub, 2, "slow down", 9);
	pb_put_bytes(&b, 1, sub.data, sub.len);
	assert_int_equal(push_otlp_answer(b.data, b.len, true, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "slow down");
	/* An error: google.rpc.Status { code = 1; message = 2 }. */
	pb_buf_reset(&b);
	pb_put_uint(&b, 1, 3);
	pb_put_bytes(&b, 2, "no dictionary", 13);
	assert_int_equal(push_otlp_answer(b.data, b.len, false, msg, sizeof(msg)), 0);
	assert_string_equal(msg, "no dictionary");
	/* Malformed: cut short, a negative count. */
	assert_int_equal(push_otlp_answer(b.data, b.len - 1, false, msg, sizeof(msg)), -1);
	pb_buf_reset(&sub);
	pb_buf_reset(&b);
	pb_put_uint(&sub, 1, (uint64_t)-1);
	pb_put_bytes(&b, 1, sub.data, sub.len);
	assert_int_equal(push_otlp_answer(b.data, b.len, true, msg, sizeof(msg)), -1);
	assert_int_equal(push_otlp_answer((const uint8_t *)"\x0a\x05\x08", 3, true, NULL, 0), -1);
	pb_buf_free(&b);
	pb_buf_free(&sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dictionary_zero_entries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resources, setup, teardown),
		cmocka_unit_test_setup_teardown(test_profile_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_samples, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mappings, setup, teardown),
		cmocka_unit_test(test_empty_and_labelless),
		cmocka_unit_test(test_answers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
