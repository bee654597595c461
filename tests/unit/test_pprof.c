// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the pprof writer and reader (pprof.c, protobuf.c).  A profile
 * built by hand (native frames with inlined chains, kernel frames from the
 * image and a module, an interpreter frame, markers, labels, build-ids)
 * must survive a round trip; protoc must decode what we write the way the
 * pprof conventions say; profiles shaped like other tools' (packed and
 * unpacked fields, no labels, unsymbolized locations) must load; and
 * hostile input must never crash and always explain itself.
 */
#include <errno.h>
#include <libgen.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include <cmocka.h>

#include "formats/pprof.h"
#include "profile/profile.h"
#include "formats/protobuf.h"
#include "unit_helpers.h"

#define K_ENTRY 0xffffffff81000200ull
#define K_SYSCALL 0xffffffff81000100ull
#define K_EXT4 0xffffffffc0001000ull

/*
 * Outermost first, as the model keeps them:
 *  1: [truncated] main handle parse_inl helper_inl memcpy entry do_syscall ext4_read
 *  2: main handle parse_inl helper_inl [unknown]
 *  3: main main::work(perl) Perl_pp_sleep
 */
static void build_profile(struct profile *p)
{
	uint32_t trunc, unknown, main_f, handle, parse_inl, helper_inl, memcpy_f, entry, sys, ext4,
		perl_work, pp_sleep;

	profile_init(p);
	trunc = test_profile_frame(p, "[truncated]", NULL, 0, NULL, 0, FRAME_MARK);
	unknown = test_profile_frame(p, "[unknown]", NULL, 0, NULL, 0, FRAME_MARK);
	main_f = test_profile_frame(p, "main", "app.c", 10, "/usr/bin/app", 0x1000, FRAME_USER);
	handle = test_profile_frame(p, "handle", "app.c", 20, "/usr/bin/app", 0x1200, FRAME_USER);
	parse_inl = test_profile_frame(p, "parse_inl", "parse.h", 5, "/usr/bin/app", 0x1200, FRAME_INLINED);
	helper_inl = test_profile_frame(p, "helper_inl", "util.h", 7, "/usr/bin/app", 0x1200,
			       FRAME_INLINED);
	memcpy_f = test_profile_frame(p, "memcpy", NULL, 0, "/lib/x86_64-linux-gnu/libc.so.6", 0x9a000,
			     FRAME_USER);
	entry = test_profile_frame(p, "entry_SYSCALL_64", NULL, 0, "[kernel]", K_ENTRY, FRAME_KERNEL);
	sys = test_profile_frame(p, "do_syscall_64", NULL, 0, "[kernel]", K_SYSCALL, FRAME_KERNEL);
	ext4 = test_profile_frame(p, "ext4_file_read_iter", NULL, 0, "[ext4]", K_EXT4, FRAME_KERNEL);
	perl_work = test_profile_frame(p, "main::work", "/srv/work.pl", 3, NULL, 0, FRAME_PERL);
	pp_sleep = test_profile_frame(p, "Perl_pp_sleep", NULL, 0, "/usr/bin/perl", 0x4000, FRAME_USER);

	{
		uint32_t s1[] = { trunc, main_f, handle, parse_inl, helper_inl, memcpy_f,
				  entry, sys, ext4 };
		uint32_t s2[] = { main_f, handle, parse_inl, helper_inl, unknown };
		uint32_t s3[] = { main_f, perl_work, pp_sleep };

		test_profile_sample(p, s1, 9, "app", "cpu", 100, 101, 5);
		test_profile_sample(p, s2, 5, "worker", "cpu", 100, 102, 3);
		test_profile_sample(p, s3, 3, "perl", "cpu", 200, 200, 1);
	}
	assert_int_equal(profile_module(p, "/usr/bin/app", "abcdef0123456789"), 0);
	assert_int_equal(profile_module(p, "/lib/x86_64-linux-gnu/libc.so.6", "00112233"), 0);
	p->title = profile_str(p, "cpu at 99 Hz");
	p->period_ns = 10101010;
	p->time_ns = 1700000000123456789ull;
	p->duration_ns = 5000000000ull;
}

/* Write p to a fresh temporary file; its path goes to path. */
static void write_tmp(const struct profile *p, char *path, size_t len)
{
	FILE *f;
	int fd;

	snprintf(path, len, "/tmp/stitch_pprof_XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(pprof_write(f, p), 0);
	assert_int_equal(fclose(f), 0);
}

static void *write_mem(const struct profile *p, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(pprof_write(f, p), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static int read_buf(const void *data, size_t len, struct profile *p, char *err, size_t errlen)
{
	profile_init(p);
	return pprof_read(data, len, p, err, errlen);
}

static void assert_same_frame(const struct profile *a, const struct prof_frame *x,
			      const struct profile *b, const struct prof_frame *y)
{
	assert_string_equal(profile_s(a, x->name), profile_s(b, y->name));
	assert_int_equal(x->kind, y->kind);
	assert_string_equal(profile_s(a, x->file), profile_s(b, y->file));
	assert_int_equal(x->line, y->line);
	assert_string_equal(profile_s(a, x->module), profile_s(b, y->module));
	assert_true(x->addr == y->addr);
}

static void assert_same_profile(const struct profile *a, const struct profile *b)
{
	size_t i;
	uint32_t j;

	assert_int_equal(a->nsamples, b->nsamples);
	for (i = 0; i < a->nsamples; i++) {
		const struct prof_sample *x = &a->samples[i], *y = &b->samples[i];

		assert_int_equal(x->nframes, y->nframes);
		for (j = 0; j < x->nframes; j++)
			assert_same_frame(a, &a->frames[x->frames[j]], b, &b->frames[y->frames[j]]);
		assert_true(x->count == y->count);
		assert_int_equal(x->pid, y->pid);
		assert_int_equal(x->tid, y->tid);
		assert_string_equal(profile_s(a, x->comm), profile_s(b, y->comm));
		assert_string_equal(profile_s(a, x->event), profile_s(b, y->event));
	}
	assert_true(a->total == b->total);
	assert_true(a->period_ns == b->period_ns);
	assert_true(a->time_ns == b->time_ns);
	assert_true(a->duration_ns == b->duration_ns);
	assert_string_equal(profile_s(a, a->title), profile_s(b, b->title));
}

static void test_round_trip(void **state)
{
	struct profile a, b;
	char path[64], err[256];
	uint8_t *data;
	size_t len;

	build_profile(&a);
	write_tmp(&a, path, sizeof(path));
	data = test_read_file(path, &len);
	assert_true(len > 20 && data[0] == 0x1f && data[1] == 0x8b);	/* gzipped */
	if (read_buf(data, len, &b, err, sizeof(err)) != 0)
		fail_msg("pprof_read: %s", err);
	assert_same_profile(&a, &b);
	/* The kernel module's name and every build-id survive too. */
	assert_string_equal(profile_s(&b, b.frames[b.samples[0].frames[8]].module), "[ext4]");
	assert_string_equal(profile_s(&b, b.frames[b.samples[0].frames[7]].module), "[kernel]");
	assert_string_equal(profile_module_build_id(&b, profile_str(&b, "/usr/bin/app")),
			    "abcdef0123456789");
	assert_string_equal(profile_module_build_id(&b, profile_str(&b,
				"/lib/x86_64-linux-gnu/libc.so.6")), "00112233");
	assert_null(profile_module_build_id(&b, profile_str(&b, "/usr/bin/perl")));

	/* Reading and writing again reaches a fixed point: nothing drifts. */
	{
		struct profile c;
		uint8_t *w2, *w3;
		size_t len2, len3;

		w2 = write_mem(&b, &len2);
		assert_int_equal(read_buf(w2, len2, &c, err, sizeof(err)), 0);
		assert_same_profile(&a, &c);
		w3 = write_mem(&c, &len3);
		assert_int_equal(len2, len3);
		assert_memory_equal(w2, w3, len2);
		free(w2);
		free(w3);
		profile_free(&c);
	}
	profile_free(&b);
	free(data);
	unlink(path);
	profile_free(&a);
}

static void test_empty_profile(void **state)
{
	struct profile a, b;
	char err[256];
	void *data;
	size_t len;

	profile_init(&a);
	data = write_mem(&a, &len);
	if (read_buf(data, len, &b, err, sizeof(err)) != 0)
		fail_msg("pprof_read: %s", err);
	assert_int_equal(b.nsamples, 0);
	assert_true(b.period_ns == 0);
	profile_free(&b);
	free(data);
	profile_free(&a);
}

/* ---- protoc's view --------------------------------------------------------- */

/* The bits of protoc's text format we check, by message. */
struct dec_loc {
	unsigned long long id, mapping_id;
	unsigned long long fn[8];
	int nfn;
};

struct dec_label {
	unsigned long long key, str, num;
};

struct dec_sample {
	unsigned long long loc[32];
	int nloc;
	long long value[4];
	int nvalue;
	struct dec_label label[8];
	int nlabel;
};

struct decoded {
	char *str[256];
	int nstr;
	unsigned long long st_type[4], st_unit[4];
	int nst;
	struct dec_sample sample[8];
	int nsample;
	struct dec_loc loc[32];
	int nloc;
	unsigned long long fn_id[32], fn_name[32];
	int nfn;
	unsigned long long map_id[8], map_file[8], map_build[8];
	int nmap;
	unsigned long long period_type, period_unit, period, comment;
};

static unsigned long long num_after(const char *line)
{
	const char *c = strchr(line, ':');

	assert_non_null(c);
	return strtoull(c + 1, NULL, 10);
}

/* Parse protoc --decode output (one field or brace per line). */
static void parse_decoded(char *text, struct decoded *d)
{
	char *save = NULL, *line, stack[4][32] = { "" };
	int depth = 0;

	memset(d, 0, sizeof(*d));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *top = depth ? stack[0] : "", *in = depth ? stack[depth - 1] : "";
		char name[32];

		while (*line == ' ')
			line++;
		if (strcmp(line, "}") == 0) {
			assert_true(depth > 0);
			depth--;
			continue;
		}
		assert_int_equal(sscanf(line, "%31[a-z_]", name), 1);
		if (strchr(line, '{')) {
			assert_true(depth < 4);
			snprintf(stack[depth++], sizeof(stack[0]), "%s", name);
			if (!strcmp(name, "sample") && depth == 1)
				assert_true(d->nsample++ < 8);
			else if (!strcmp(name, "location") && depth == 1)
				assert_true(d->nloc++ < 32);
			else if (!strcmp(name, "function") && depth == 1)
				assert_true(d->nfn++ < 32);
			else if (!strcmp(name, "mapping") && depth == 1)
				assert_true(d->nmap++ < 8);
			else if (!strcmp(name, "sample_type"))
				assert_true(d->nst++ < 4);
			else if (!strcmp(name, "label"))
				assert_true(d->sample[d->nsample - 1].nlabel++ < 8);
			else if (!strcmp(name, "line"))
				assert_true(d->loc[d->nloc - 1].nfn++ < 8);
			continue;
		}
		if (depth == 0) {
			if (!strcmp(name, "string_table")) {
				char *q = strchr(line, '"'), *e = strrchr(line, '"');

				assert_true(q && e > q && d->nstr < 256);
				d->str[d->nstr++] = strndup(q + 1, e - q - 1);
			} else if (!strcmp(name, "period")) {
				d->period = num_after(line);
			} else if (!strcmp(name, "comment")) {
				d->comment = num_after(line);
			}
		} else if (!strcmp(top, "sample_type")) {
			if (!strcmp(name, "type"))
				d->st_type[d->nst - 1] = num_after(line);
			else
				d->st_unit[d->nst - 1] = num_after(line);
		} else if (!strcmp(top, "period_type")) {
			if (!strcmp(name, "type"))
				d->period_type = num_after(line);
			else
				d->period_unit = num_after(line);
		} else if (!strcmp(top, "sample")) {
			struct dec_sample *s = &d->sample[d->nsample - 1];

			if (!strcmp(in, "label")) {
				struct dec_label *l = &s->label[s->nlabel - 1];

				if (!strcmp(name, "key"))
					l->key = num_after(line);
				else if (!strcmp(name, "str"))
					l->str = num_after(line);
				else if (!strcmp(name, "num"))
					l->num = num_after(line);
			} else if (!strcmp(name, "location_id")) {
				assert_true(s->nloc < 32);
				s->loc[s->nloc++] = num_after(line);
			} else if (!strcmp(name, "value")) {
				assert_true(s->nvalue < 4);
				s->value[s->nvalue++] = (long long)num_after(line);
			}
		} else if (!strcmp(top, "location")) {
			struct dec_loc *l = &d->loc[d->nloc - 1];

			if (!strcmp(in, "line")) {
				if (!strcmp(name, "function_id"))
					l->fn[l->nfn - 1] = num_after(line);
			} else if (!strcmp(name, "id")) {
				l->id = num_after(line);
			} else if (!strcmp(name, "mapping_id")) {
				l->mapping_id = num_after(line);
			}
		} else if (!strcmp(top, "function")) {
			if (!strcmp(name, "id"))
				d->fn_id[d->nfn - 1] = num_after(line);
			else if (!strcmp(name, "name"))
				d->fn_name[d->nfn - 1] = num_after(line);
		} else if (!strcmp(top, "mapping")) {
			if (!strcmp(name, "id"))
				d->map_id[d->nmap - 1] = num_after(line);
			else if (!strcmp(name, "filename"))
				d->map_file[d->nmap - 1] = num_after(line);
			else if (!strcmp(name, "build_id"))
				d->map_build[d->nmap - 1] = num_after(line);
		}
	}
	assert_int_equal(depth, 0);
}

static const char *dstr(const struct decoded *d, unsigned long long i)
{
	assert_true(i < (unsigned long long)d->nstr);
	return d->str[i];
}

static const struct dec_loc *dloc(const struct decoded *d, unsigned long long id)
{
	int i;

	for (i = 0; i < d->nloc; i++)
		if (d->loc[i].id == id)
			return &d->loc[i];
	fail_msg("no location %llu", id);
	return NULL;
}

static const char *dfn(const struct decoded *d, unsigned long long id)
{
	int i;

	for (i = 0; i < d->nfn; i++)
		if (d->fn_id[i] == id)
			return dstr(d, d->fn_name[i]);
	fail_msg("no function %llu", id);
	return NULL;
}

/* Name of the last line (the caller) of location id. */
static const char *dloc_name(const struct decoded *d, unsigned long long id)
{
	const struct dec_loc *l = dloc(d, id);

	assert_true(l->nfn > 0);
	return dfn(d, l->fn[l->nfn - 1]);
}

static const char *dmapping(const struct decoded *d, unsigned long long id)
{
	int i;

	for (i = 0; i < d->nmap; i++)
		if (d->map_id[i] == id)
			return dstr(d, d->map_file[i]);
	fail_msg("no mapping %llu", id);
	return NULL;
}

static const struct dec_label *dlabel(const struct decoded *d, const struct dec_sample *s,
				      const char *key)
{
	int i;

	for (i = 0; i < s->nlabel; i++)
		if (!strcmp(dstr(d, s->label[i].key), key))
			return &s->label[i];
	fail_msg("no label %s", key);
	return NULL;
}

static void test_protoc_decode(void **state)
{
	char path[64], out[96], proto_dir[4096];
	const struct dec_sample *s;
	const struct dec_loc *l;
	struct decoded d;
	struct profile a;
	char *text, *here;
	size_t len;
	int i;

	/* No skipping: without protoc this checks nothing, so it must fail. */
	if (test_shell("command -v protoc >/dev/null 2>&1") != 0)
		fail_msg("protoc not found: install protobuf-compiler (scripts/install-deps.sh)");
	here = strdup(__FILE__);
	assert_non_null(here);
	/* pprof's own schema, vendored for the agent's test servers too */
	snprintf(proto_dir, sizeof(proto_dir), "%s/../agent/proto/pprof", dirname(here));
	free(here);

	build_profile(&a);
	write_tmp(&a, path, sizeof(path));
	snprintf(out, sizeof(out), "%s.txt", path);
	test_shell_ok("gzip -dc < %s | protoc -I %s --decode=perftools.profiles.Profile "
		      "%s/profile.proto > %s", path, proto_dir, proto_dir, out);
	text = test_read_file(out, &len);
	text = realloc(text, len + 1);
	assert_non_null(text);
	text[len] = '\0';
	parse_decoded(text, &d);

	/* The string table starts with "". */
	assert_true(d.nstr > 0);
	assert_string_equal(d.str[0], "");
	/* Sample types and period. */
	assert_int_equal(d.nst, 2);
	assert_string_equal(dstr(&d, d.st_type[0]), "samples");
	assert_string_equal(dstr(&d, d.st_unit[0]), "count");
	assert_string_equal(dstr(&d, d.st_type[1]), "cpu");
	assert_string_equal(dstr(&d, d.st_unit[1]), "nanoseconds");
	assert_string_equal(dstr(&d, d.period_type), "cpu");
	assert_string_equal(dstr(&d, d.period_unit), "nanoseconds");
	assert_true(d.period == 10101010);
	assert_string_equal(dstr(&d, d.comment), "cpu at 99 Hz");

	/* Sample 1: leaf first, the inlined chain folded into one Location. */
	assert_int_equal(d.nsample, 3);
	s = &d.sample[0];
	assert_int_equal(s->nloc, 7);
	assert_string_equal(dloc_name(&d, s->loc[0]), "ext4_file_read_iter");
	assert_string_equal(dloc_name(&d, s->loc[1]), "do_syscall_64");
	assert_string_equal(dloc_name(&d, s->loc[2]), "entry_SYSCALL_64");
	assert_string_equal(dloc_name(&d, s->loc[3]), "memcpy");
	assert_string_equal(dloc_name(&d, s->loc[4]), "handle");
	assert_string_equal(dloc_name(&d, s->loc[5]), "main");
	assert_string_equal(dloc_name(&d, s->loc[6]), "[truncated]");
	l = dloc(&d, s->loc[4]);
	assert_int_equal(l->nfn, 3);
	assert_string_equal(dfn(&d, l->fn[0]), "helper_inl");	/* innermost first */
	assert_string_equal(dfn(&d, l->fn[1]), "parse_inl");
	assert_string_equal(dfn(&d, l->fn[2]), "handle");	/* caller last */
	assert_string_equal(dmapping(&d, l->mapping_id), "/usr/bin/app");
	assert_string_equal(dmapping(&d, dloc(&d, s->loc[0])->mapping_id), "[kernel.kallsyms]");
	assert_string_equal(dmapping(&d, dloc(&d, s->loc[2])->mapping_id), "[kernel.kallsyms]");
	assert_true(dloc(&d, s->loc[6])->mapping_id == 0);	/* markers: no mapping */
	/* Values: count, then count * period. */
	assert_int_equal(s->nvalue, 2);
	assert_true(s->value[0] == 5);
	assert_true(s->value[1] == 5 * 10101010ll);
	/* Labels. */
	assert_true(dlabel(&d, s, "pid")->num == 100);
	assert_true(dlabel(&d, s, "tid")->num == 101);
	assert_string_equal(dstr(&d, dlabel(&d, s, "comm")->str), "app");
	assert_string_equal(dstr(&d, dlabel(&d, s, "event")->str), "cpu");
	/* Sample 2 shares the inlined Location; sample 3 has a Perl frame. */
	assert_true(d.sample[1].loc[1] == s->loc[4]);
	assert_string_equal(dstr(&d, dlabel(&d, &d.sample[1], "comm")->str), "worker");
	assert_string_equal(dloc_name(&d, d.sample[2].loc[1]), "main::work");
	assert_string_equal(dmapping(&d, dloc(&d, d.sample[2].loc[1])->mapping_id), "[perl]");
	/* Build-ids on the native mappings. */
	for (i = 0; i < d.nmap; i++)
		if (!strcmp(dstr(&d, d.map_file[i]), "/usr/bin/app"))
			assert_string_equal(dstr(&d, d.map_build[i]), "abcdef0123456789");

	for (i = 0; i < d.nstr; i++)
		free(d.str[i]);
	free(text);
	unlink(out);
	unlink(path);
	profile_free(&a);
}

/* ---- other tools' profiles --------------------------------------------------- */

static void put_value_type(struct pb_buf *out, uint32_t field, uint64_t type, uint64_t unit)
{
	struct pb_buf m = { 0 };

	pb_put_uint(&m, 1, type);
	pb_put_uint(&m, 2, unit);
	pb_put_bytes(out, field, m.data, m.len);
	pb_buf_free(&m);
}

static void put_strings(struct pb_buf *out, const char *const *s, int n)
{
	int i;

	for (i = 0; i < n; i++)
		pb_put_bytes(out, 6, s[i], strlen(s[i]));
}

/*
 * Shaped like a Go heap profile: real paths, packed fields, two values of
 * which the first is not a count, a location with two lines, one without
 * any; strings last and a comment.  With packed false, every repeated
 * scalar is written unpacked instead.
 */
static struct pb_buf go_like(bool packed)
{
	static const char *const strs[] = {
		"", "alloc_objects", "count", "alloc_space", "bytes", "/usr/local/bin/server",
		"main.main", "main.go", "runtime.mallocgc", "malloc.go", "main.inl", "space",
		"go heap", "deadbeef",
	};
	struct pb_buf out = { 0 }, m = { 0 }, sub = { 0 };
	uint64_t ids[] = { 3, 2, 1 }, vals[] = { 7, 4096 };
	int i;

	put_value_type(&out, 1, 1, 2);
	put_value_type(&out, 1, 3, 4);
	/* sample: leaf first: location 3 (unsymbolized), 2 (two lines), 1 */
	if (packed) {
		for (i = 0; i < 3; i++)
			pb_put_varint(&sub, ids[i]);
		pb_put_bytes(&m, 1, sub.data, sub.len);
		pb_buf_reset(&sub);
		for (i = 0; i < 2; i++)
			pb_put_varint(&sub, vals[i]);
		pb_put_bytes(&m, 2, sub.data, sub.len);
		pb_buf_reset(&sub);
	} else {
		for (i = 0; i < 3; i++)
			pb_put_uint(&m, 1, ids[i]);
		for (i = 0; i < 2; i++)
			pb_put_uint(&m, 2, vals[i]);
	}
	pb_put_uint(&m, 99, 12345);	/* an unknown field: skipped */
	pb_put_bytes(&out, 2, m.data, m.len);
	pb_buf_reset(&m);
	/* mapping 1 */
	pb_put_uint(&m, 1, 1);
	pb_put_uint(&m, 2, 0x400000);
	pb_put_uint(&m, 3, 0x800000);
	pb_put_uint(&m, 5, 5);
	pb_put_uint(&m, 6, 13);
	pb_put_uint(&m, 7, 1);
	pb_put_bytes(&out, 3, m.data, m.len);
	pb_buf_reset(&m);
	/* location 1: main.main */
	pb_put_uint(&m, 1, 1);
	pb_put_uint(&m, 2, 1);
	pb_put_uint(&m, 3, 0x401000);
	pb_put_uint(&sub, 1, 1);
	pb_put_uint(&sub, 2, 12);
	pb_put_bytes(&m, 4, sub.data, sub.len);
	pb_buf_reset(&sub);
	pb_put_bytes(&out, 4, m.data, m.len);
	pb_buf_reset(&m);
	/* location 2: main.inl inlined into runtime.mallocgc */
	pb_put_uint(&m, 1, 2);
	pb_put_uint(&m, 2, 1);
	pb_put_uint(&m, 3, 0x402000);
	pb_put_uint(&sub, 1, 3);
	pb_put_uint(&sub, 2, 40);
	pb_put_bytes(&m, 4, sub.data, sub.len);
	pb_buf_reset(&sub);
	pb_put_uint(&sub, 1, 2);
	pb_put_uint(&sub, 2, 900);
	pb_put_bytes(&m, 4, sub.data, sub.len);
	pb_buf_reset(&sub);
	pb_put_bytes(&out, 4, m.data, m.len);
	pb_buf_reset(&m);
	/* location 3: no lines */
	pb_put_uint(&m, 1, 3);
	pb_put_uint(&m, 2, 1);
	pb_put_uint(&m, 3, 0x403abc);
	pb_put_bytes(&out, 4, m.data, m.len);
	pb_buf_reset(&m);
	/* functions */
	pb_put_uint(&m, 1, 1);
	pb_put_uint(&m, 2, 6);
	pb_put_uint(&m, 3, 6);
	pb_put_uint(&m, 4, 7);
	pb_put_bytes(&out, 5, m.data, m.len);
	pb_buf_reset(&m);
	pb_put_uint(&m, 1, 2);
	pb_put_uint(&m, 2, 8);
	pb_put_uint(&m, 4, 9);
	pb_put_bytes(&out, 5, m.data, m.len);
	pb_buf_reset(&m);
	pb_put_uint(&m, 1, 3);
	pb_put_uint(&m, 3, 10);	/* only a system name */
	pb_put_uint(&m, 4, 7);
	pb_put_bytes(&out, 5, m.data, m.len);
	pb_buf_reset(&m);
	put_strings(&out, strs, sizeof(strs) / sizeof(strs[0]));
	pb_put_uint(&out, 9, 1600000000000000000ull);
	put_value_type(&out, 11, 11, 4);
	pb_put_uint(&out, 12, 524288);
	pb_put_uint(&out, 13, 12);
	pb_put_uint(&out, 14, 3);	/* default_sample_type: ignored */
	pb_buf_free(&m);
	pb_buf_free(&sub);
	assert_false(out.oom);
	return out;
}

static void check_go_like(const struct profile *p)
{
	static const struct {
		const char *name;
		uint8_t kind;
	} want[] = {
		{ "main.main", FRAME_USER },
		{ "runtime.mallocgc", FRAME_USER },
		{ "main.inl", FRAME_INLINED },
		{ "server+0x403abc", FRAME_USER },
	};
	const struct prof_sample *s;
	uint32_t i;

	assert_int_equal(p->nsamples, 1);
	s = &p->samples[0];
	assert_int_equal(s->nframes, 4);
	for (i = 0; i < 4; i++) {
		const struct prof_frame *f = &p->frames[s->frames[i]];

		assert_string_equal(profile_s(p, f->name), want[i].name);
		assert_int_equal(f->kind, want[i].kind);
		assert_string_equal(profile_s(p, f->module), "/usr/local/bin/server");
	}
	assert_int_equal(p->frames[s->frames[1]].line, 900);
	assert_string_equal(profile_s(p, p->frames[s->frames[1]].file), "malloc.go");
	assert_true(p->frames[s->frames[2]].addr == 0x402000);
	assert_true(s->count == 7);	/* value[0], though it is not "samples" */
	assert_int_equal(s->pid, 0);
	assert_int_equal(s->comm, 0);
	assert_true(p->period_ns == 0);	/* the period is in bytes */
	assert_true(p->time_ns == 1600000000000000000ull);
	assert_string_equal(profile_s(p, p->title), "go heap");
	assert_string_equal(profile_module_build_id(p, profile_str((struct profile *)p,
				"/usr/local/bin/server")), "deadbeef");
}

static void *gzip_buf(const void *data, size_t len, size_t *outlen)
{
	z_stream z = { 0 };
	size_t cap = len + 1024;
	uint8_t *out = malloc(cap);

	assert_non_null(out);
	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY), Z_OK);
	z.next_in = (Bytef *)data;
	z.avail_in = len;
	z.next_out = out;
	z.avail_out = cap;
	assert_int_equal(deflate(&z, Z_FINISH), Z_STREAM_END);
	*outlen = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

static void test_foreign_profiles(void **state)
{
	char err[256];
	struct profile p;
	int packed;

	for (packed = 0; packed < 2; packed++) {
		struct pb_buf raw = go_like(packed);
		size_t zlen;
		void *z;

		/* Raw ... */
		if (read_buf(raw.data, raw.len, &p, err, sizeof(err)) != 0)
			fail_msg("raw, packed=%d: %s", packed, err);
		check_go_like(&p);
		profile_free(&p);
		/* ... and gzipped. */
		z = gzip_buf(raw.data, raw.len, &zlen);
		if (read_buf(z, zlen, &p, err, sizeof(err)) != 0)
			fail_msg("gzip, packed=%d: %s", packed, err);
		check_go_like(&p);
		profile_free(&p);
		free(z);
		pb_buf_free(&raw);
	}
}

/* Several gzip members read as one stream, as gzip -d reads them. */
static void test_gzip_members(void **state)
{
	struct pb_buf raw = go_like(true);
	size_t half = raw.len / 2, l1, l2;
	uint8_t *z1 = gzip_buf(raw.data, half, &l1);
	uint8_t *z2 = gzip_buf(raw.data + half, raw.len - half, &l2);
	struct profile p;
	char err[256];

	z1 = realloc(z1, l1 + l2);
	assert_non_null(z1);
	memcpy(z1 + l1, z2, l2);
	if (read_buf(z1, l1 + l2, &p, err, sizeof(err)) != 0)
		fail_msg("two gzip members: %s", err);
	check_go_like(&p);
	profile_free(&p);
	free(z1);
	free(z2);
	pb_buf_free(&raw);
}

/* Big enough for several deflate flushes and inflate chunks. */
static void test_large_round_trip(void **state)
{
	struct profile a, b;
	uint32_t frames[40];
	char name[64], err[256];
	size_t len;
	void *data;
	int i, j;

	profile_init(&a);
	for (i = 0; i < 20000; i++) {
		for (j = 0; j < 40; j++) {
			snprintf(name, sizeof(name), "fn_%d_%d", j, i % 997 + j);
			frames[j] = test_profile_frame(&a, name, "big.c", j + 1, "/usr/bin/big",
					      0x1000 + 16 * (uint64_t)(i % 997 + j), FRAME_USER);
		}
		test_profile_sample(&a, frames, 40, i & 1 ? "odd" : "even", "cpu", 1000 + i % 7, 2000 + i,
			   1 + i % 5);
	}
	data = write_mem(&a, &len);
	if (read_buf(data, len, &b, err, sizeof(err)) != 0)
		fail_msg("pprof_read: %s", err);
	assert_same_profile(&a, &b);
	profile_free(&b);
	free(data);
	profile_free(&a);
}

/* ---- hostile input ------------------------------------------------------------ */

/* pprof_read must fail, say why, and leave nothing behind (ASan checks). */
static void expect_error(const void *data, size_t len, const char *why_substr)
{
	struct profile p;
	char err[256];
	int rc;

	memset(err, 'x', sizeof(err));
	rc = read_buf(data, len, &p, err, sizeof(err));
	if (rc == 0)
		fail_msg("accepted bad input (%s)", why_substr ? why_substr : "?");
	assert_true(rc == -EINVAL || rc == -E2BIG || rc == -ENOMEM);
	assert_true(err[0] != '\0' && memchr(err, '\0', sizeof(err)));
	if (why_substr && !strstr(err, why_substr))
		fail_msg("error \"%s\" does not mention \"%s\"", err, why_substr);
	profile_free(&p);
}

/* Either outcome is fine, as long as errors are explained and successes usable. */
static void try_read(const void *data, size_t len)
{
	struct profile p;
	char err[256];
	size_t olen;
	void *out;

	err[0] = '\0';
	if (read_buf(data, len, &p, err, sizeof(err)) == 0) {
		out = write_mem(&p, &olen);
		profile_free(&p);
		if (read_buf(out, olen, &p, err, sizeof(err)) != 0)
			fail_msg("our own output of an accepted input was refused: %s", err);
		free(out);
	} else {
		assert_true(err[0] != '\0');
	}
	profile_free(&p);
}

static void test_truncated_and_flipped(void **state)
{
	struct profile a;
	uint8_t *data, *copy;
	size_t len, i, bit;
	struct pb_buf raw;

	build_profile(&a);
	data = write_mem(&a, &len);
	copy = malloc(len);
	assert_non_null(copy);
	/* Every truncation of the gzip stream is an error. */
	for (i = 0; i < len; i++)
		expect_error(data, i, i ? NULL : "empty");
	expect_error(data, len / 2, "truncated");
	/* Single bit flips anywhere (the CRC catches most in the payload). */
	for (i = 0; i < len; i++) {
		for (bit = 0; bit < 8; bit += 3) {
			memcpy(copy, data, len);
			copy[i] ^= 1u << bit;
			try_read(copy, len);
		}
	}
	/* Garbage after the stream. */
	copy = realloc(copy, len + 4);
	assert_non_null(copy);
	memcpy(copy, data, len);
	memcpy(copy + len, "junk", 4);
	expect_error(copy, len + 4, "garbage after");
	free(copy);
	free(data);

	/* The same on the raw encoding, where no CRC helps. */
	raw = go_like(true);
	copy = malloc(raw.len);
	assert_non_null(copy);
	for (i = 0; i < raw.len; i++)
		try_read(raw.data, i);
	for (i = 0; i < raw.len; i++) {
		for (bit = 0; bit < 8; bit++) {
			memcpy(copy, raw.data, raw.len);
			copy[i] ^= 1u << bit;
			try_read(copy, raw.len);
		}
	}
	free(copy);
	pb_buf_free(&raw);
	profile_free(&a);
}

/* A minimal valid prefix: sample_type and the string table. */
static void put_header(struct pb_buf *b)
{
	static const char *const strs[] = { "", "samples", "count", "f" };

	put_value_type(b, 1, 1, 2);
	put_strings(b, strs, 4);
}

static void put_function(struct pb_buf *b, uint64_t id, uint64_t name)
{
	struct pb_buf m = { 0 };

	pb_put_uint(&m, 1, id);
	pb_put_uint(&m, 2, name);
	pb_put_bytes(b, 5, m.data, m.len);
	pb_buf_free(&m);
}

static void put_location(struct pb_buf *b, uint64_t id, uint64_t mapping, uint64_t fn)
{
	struct pb_buf m = { 0 }, l = { 0 };

	pb_put_uint(&m, 1, id);
	if (mapping)
		pb_put_uint(&m, 2, mapping);
	pb_put_uint(&l, 1, fn);
	pb_put_bytes(&m, 4, l.data, l.len);
	pb_put_bytes(b, 4, m.data, m.len);
	pb_buf_free(&m);
	pb_buf_free(&l);
}

static void put_sample(struct pb_buf *b, uint64_t loc)
{
	struct pb_buf m = { 0 };

	pb_put_uint(&m, 1, loc);
	pb_put_uint(&m, 2, 1);
	pb_put_bytes(b, 2, m.data, m.len);
	pb_buf_free(&m);
}

/*
 * A count over 2^53 is refused on input; one past INT64_MAX is capped when
 * written, never written as a negative int64 that reads back as 0.
 */
static void test_count_range(void **state)
{
	struct profile p, q;
	uint32_t f;
	struct prof_sample labels = { .count = UINT64_MAX - 7 };
	void *out;
	size_t len;
	char err[256] = "";

	profile_init(&p);
	f = profile_frame(&p, &(struct prof_frame){ .name = profile_str(&p, "main") });
	assert_int_equal(profile_add_sample(&p, &f, 1, &labels), 0);
	out = write_mem(&p, &len);
	assert_int_equal(read_buf(out, len, &q, err, sizeof(err)), -ERANGE);
	assert_non_null(strstr(err, "out of range"));
	profile_free(&q);
	free(out);
	p.samples[0].count = PROFILE_MAX_COUNT;
	p.total = PROFILE_MAX_COUNT;
	out = write_mem(&p, &len);
	assert_int_equal(read_buf(out, len, &q, err, sizeof(err)), 0);
	assert_int_equal(q.total, PROFILE_MAX_COUNT);
	profile_free(&q);
	profile_free(&p);
	free(out);
}

/* A time profile keeps its sample type and unit through pprof. */
static void test_time_unit_round_trip(void **state)
{
	struct prof_sample labels = { .count = 2500000 };
	struct profile p, q;
	char err[256] = "";
	uint32_t f;
	size_t len;
	void *out;

	profile_init(&p);
	f = profile_frame(&p, &(struct prof_frame){ .name = profile_str(&p, "futex_wait") });
	assert_int_equal(profile_add_sample(&p, &f, 1, &labels), 0);
	p.value_type = profile_str(&p, "off_cpu");
	p.value_unit = profile_str(&p, "nanoseconds");
	p.period_ns = 1000000;	/* a wall profile's sampling period is not a second value */
	out = write_mem(&p, &len);
	assert_int_equal(read_buf(out, len, &q, err, sizeof(err)), 0);
	assert_true(profile_unit_ns(&q));
	assert_string_equal(profile_s(&q, q.value_type), "off_cpu");
	assert_int_equal(q.total, 2500000);
	profile_free(&q);
	profile_free(&p);
	free(out);
}

/*
 * Allocations: bytes, and the allocations they stand for as a second value
 * (fixed point inside, rounded to whole ones in the file), both kept.
 */
static void test_alloc_objects_round_trip(void **state)
{
	struct prof_sample labels = { .count = 3000, .objects = 10 * PROFILE_OBJECT_ONE + 600 };
	struct profile p, q;
	char err[256] = "";
	uint32_t f;
	size_t len;
	void *out;

	profile_init(&p);
	f = profile_frame(&p, &(struct prof_frame){ .name = profile_str(&p, "malloc") });
	assert_int_equal(profile_add_sample(&p, &f, 1, &labels), 0);
	p.value_type = profile_str(&p, "alloc_space");
	p.value_unit = profile_str(&p, "bytes");
	p.objects_type = profile_str(&p, "alloc_objects");
	out = write_mem(&p, &len);
	assert_int_equal(read_buf(out, len, &q, err, sizeof(err)), 0);
	assert_true(profile_unit_bytes(&q));
	assert_string_equal(profile_s(&q, q.objects_type), "alloc_objects");
	assert_int_equal(q.nsamples, 1);
	assert_int_equal(q.samples[0].count, 3000);
	assert_int_equal(q.samples[0].objects, 11 * PROFILE_OBJECT_ONE);	/* 10.59, rounded */
	profile_free(&q);
	profile_free(&p);
	free(out);
}

static void test_bad_structure(void **state)
{
	struct pb_buf b = { 0 };
	uint8_t huge[16] = { 6 << 3 | 2, 0xff, 0xff, 0xff, 0xff, 0x0f };
	uint8_t long_varint[12] = { 9 << 3 };
	uint8_t group[] = { 7 << 3 | 3, 0 };
	struct profile p;
	char err[256];
	int i;

	expect_error("", 0, "empty");
	expect_error(huge, 6, "malformed");	/* string length past the end */
	memset(long_varint + 1, 0xff, 11);
	expect_error(long_varint, 12, "malformed");
	expect_error(group, sizeof(group), "malformed");
	expect_error("\x1f\x8b", 2, "truncated");
	expect_error("not a profile at all\n", 21, NULL);

	/* Missing "" at string_table[0]. */
	pb_put_bytes(&b, 6, "x", 1);
	expect_error(b.data, b.len, "string_table[0]");
	pb_buf_reset(&b);
	/* Wrong wire type for a known field. */
	pb_put_uint(&b, 2, 5);
	expect_error(b.data, b.len, "wire type");
	pb_buf_reset(&b);

	/* A sample pointing at a location that does not exist. */
	put_header(&b);
	put_function(&b, 1, 3);
	put_location(&b, 1, 0, 1);
	put_sample(&b, 2);
	expect_error(b.data, b.len, "missing location 2");
	pb_buf_reset(&b);
	/* A line pointing at a missing function; a location at a missing mapping. */
	put_header(&b);
	put_location(&b, 1, 0, 7);
	expect_error(b.data, b.len, "missing function 7");
	pb_buf_reset(&b);
	put_header(&b);
	put_function(&b, 1, 3);
	put_location(&b, 1, 9, 1);
	expect_error(b.data, b.len, "missing mapping 9");
	pb_buf_reset(&b);
	/* A function name past the string table. */
	put_header(&b);
	put_function(&b, 1, 4000000000ull);
	expect_error(b.data, b.len, "string 4000000000");
	pb_buf_reset(&b);
	/* Duplicate and zero ids. */
	put_header(&b);
	put_function(&b, 1, 3);
	put_function(&b, 1, 3);
	expect_error(b.data, b.len, "two functions with id 1");
	pb_buf_reset(&b);
	put_header(&b);
	put_function(&b, 1, 3);
	put_location(&b, 0, 0, 1);
	expect_error(b.data, b.len, "id 0");
	pb_buf_reset(&b);
	/* A comment index out of range. */
	put_header(&b);
	pb_put_uint(&b, 13, 77);
	expect_error(b.data, b.len, "string 77");
	pb_buf_reset(&b);
	/* Deep nesting of length-delimited garbage inside a sample. */
	{
		struct pb_buf in = { 0 }, outer = { 0 };

		pb_put_uint(&in, 1, 1);
		for (i = 0; i < 200; i++) {
			pb_buf_reset(&outer);
			pb_put_bytes(&outer, 3, in.data, in.len);
			pb_buf_reset(&in);
			pb_put_raw(&in, outer.data, outer.len);
		}
		put_header(&b);
		pb_put_bytes(&b, 2, in.data, in.len);
		try_read(b.data, b.len);
		pb_buf_free(&in);
		pb_buf_free(&outer);
		pb_buf_reset(&b);
	}
	/* A valid one from the same pieces loads, unknown fields and all. */
	put_header(&b);
	put_function(&b, 1, 3);
	put_location(&b, 1, 0, 1);
	put_sample(&b, 1);
	pb_put_uint(&b, 1000, 1);
	pb_put_bytes(&b, 1001, "zz", 2);
	pb_put_varint(&b, 1002 << 3 | PB_FIXED32);
	pb_put_raw(&b, "\1\2\3\4", 4);
	pb_put_varint(&b, 1003 << 3 | PB_FIXED64);
	pb_put_raw(&b, "\1\2\3\4\5\6\7\10", 8);
	if (read_buf(b.data, b.len, &p, err, sizeof(err)) != 0)
		fail_msg("valid hand-made profile refused: %s", err);
	assert_int_equal(p.nsamples, 1);
	assert_string_equal(profile_s(&p, p.frames[p.samples[0].frames[0]].name), "f");
	assert_int_equal(p.frames[p.samples[0].frames[0]].kind, FRAME_USER);
	profile_free(&p);
	pb_buf_free(&b);
}

static void test_random_garbage(void **state)
{
	uint8_t buf[512];
	unsigned int seed = 12345;
	int i;
	size_t j, len;

	for (i = 0; i < 3000; i++) {
		len = rand_r(&seed) % sizeof(buf);
		for (j = 0; j < len; j++)
			buf[j] = rand_r(&seed);
		/* Half of them look like protobuf: tags of our fields. */
		if (i & 1)
			for (j = 0; j + 1 < len; j += 1 + rand_r(&seed) % 8)
				buf[j] = (rand_r(&seed) % 14 + 1) << 3 | (rand_r(&seed) % 3);
		try_read(buf, len);
	}
}

/* A gzip bomb: more than the 512 MiB cap of zeros; refused with -E2BIG. */
static void test_gzip_bomb(void **state)
{
	static uint8_t zeros[1 << 20];
	z_stream z = { 0 };
	size_t cap = 1 << 20, len;
	uint8_t *out = malloc(cap);
	struct profile p;
	char err[256];
	int i;

	assert_non_null(out);
	assert_int_equal(deflateInit2(&z, 9, Z_DEFLATED, 16 + 15, 9, Z_RLE), Z_OK);
	z.next_out = out;
	z.avail_out = cap;
	for (i = 0; i < 520; i++) {
		z.next_in = zeros;
		z.avail_in = sizeof(zeros);
		assert_int_equal(deflate(&z, i == 519 ? Z_FINISH : Z_NO_FLUSH),
				 i == 519 ? Z_STREAM_END : Z_OK);
		assert_true(z.avail_out > 0);
	}
	len = cap - z.avail_out;
	deflateEnd(&z);
	profile_init(&p);
	assert_int_equal(pprof_read(out, len, &p, err, sizeof(err)), -E2BIG);
	assert_non_null(strstr(err, "MiB"));
	profile_free(&p);
	free(out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_empty_profile),
		cmocka_unit_test(test_protoc_decode),
		cmocka_unit_test(test_foreign_profiles),
		cmocka_unit_test(test_gzip_members),
		cmocka_unit_test(test_large_round_trip),
		cmocka_unit_test(test_truncated_and_flipped),
		cmocka_unit_test(test_count_range),
		cmocka_unit_test(test_time_unit_round_trip),
		cmocka_unit_test(test_alloc_objects_round_trip),
		cmocka_unit_test(test_bad_structure),
		cmocka_unit_test(test_random_garbage),
		cmocka_unit_test(test_gzip_bomb),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
