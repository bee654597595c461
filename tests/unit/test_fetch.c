// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for --fetch's parts that need no BPF: expressions parsed, values
 * formatted (escaped: they come from traced memory), tracepoint fields
 * compiled from a format file, and a kprobe's arguments from this
 * machine's kernel BTF.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "probe/fetch_btf.h"
#include "probe/fetch_path.h"
#include "probe/fetch_tp.h"
#include "profile/values_frame.h"

static void test_path(void **state)
{
	struct fetch_path p;
	struct fetch_format f;
	char label[96];

	(void)state;
	assert_int_equal(fetch_path_parse("r->in->name[2]:string", &p, label, sizeof(label)), 0);
	assert_string_equal(p.base, "r");
	assert_int_equal(p.nsteps, 3);
	assert_int_equal(p.step[0].kind, ACC_ARROW);
	assert_string_equal(p.step[1].name, "name");
	assert_int_equal(p.step[2].kind, ACC_INDEX);
	assert_int_equal(p.step[2].index, 2);
	assert_string_equal(p.cast, "string");
	assert_string_equal(label, "r->in->name[2]");
	assert_int_equal(fetch_path_parse("s.a.b", &p, label, sizeof(label)), 0);
	assert_int_equal(p.nsteps, 2);
	assert_int_equal(p.step[1].kind, ACC_DOT);
	/* refused: what is not NAME(->M|.M|[N])*[:CAST] */
	assert_int_equal(fetch_path_parse("", &p, label, sizeof(label)), -EINVAL);
	assert_int_equal(fetch_path_parse("1x", &p, label, sizeof(label)), -EINVAL);
	assert_int_equal(fetch_path_parse("r-len", &p, label, sizeof(label)), -EINVAL);
	assert_int_equal(fetch_path_parse("r->", &p, label, sizeof(label)), -EINVAL);
	assert_int_equal(fetch_path_parse("a[-1]", &p, label, sizeof(label)), -EINVAL);
	assert_int_equal(fetch_path_parse("a[1", &p, label, sizeof(label)), -EINVAL);
	assert_int_equal(fetch_path_parse("a:", &p, label, sizeof(label)), -EINVAL);
	assert_int_equal(fetch_path_parse("a.b.c.d.e.f.g.h.i.j", &p, label, sizeof(label)),
			 -EINVAL);
	assert_true(fetch_cast_parse("x32", &f));
	assert_int_equal(f.size, 4);
	assert_int_equal(f.print, FETCH_PRINT_HEX);
	assert_true(fetch_cast_parse("s8", &f));
	assert_int_equal(f.print, FETCH_PRINT_SIGNED);
	assert_false(fetch_cast_parse("u12", &f));
	assert_false(fetch_cast_parse("q32", &f));
	assert_false(fetch_cast_parse("u", &f));
}

static void test_format(void **state)
{
	struct fetch_site site = { .nvars = 5 };
	struct fetch_values v;
	char buf[512];

	(void)state;
	memset(&v, 0, sizeof(v));
	snprintf(site.fmt[0].label, sizeof(site.fmt[0].label), "n");
	site.fmt[0].size = 1;
	site.fmt[0].print = FETCH_PRINT_SIGNED;
	v.value[0] = 0xff;		/* -1 in a byte, whatever the register's upper bits */
	snprintf(site.fmt[1].label, sizeof(site.fmt[1].label), "s");
	site.fmt[1].print = FETCH_PRINT_STRING;
	v.status[1] = FETCH_VALUE_STR;
	memcpy(v.str[1], "a\"b;c\\\n\xff", 9);
	snprintf(site.fmt[2].label, sizeof(site.fmt[2].label), "p");
	site.fmt[2].size = 8;
	site.fmt[2].print = FETCH_PRINT_HEX;
	v.value[2] = 0x1000;
	snprintf(site.fmt[3].label, sizeof(site.fmt[3].label), "gone");
	v.status[3] = FETCH_VALUE_OPTIMIZED_OUT;
	snprintf(site.fmt[4].label, sizeof(site.fmt[4].label), "bad");
	v.status[4] = FETCH_VALUE_FAULT;
	fetch_format_values(&site, &v, buf, sizeof(buf));
	assert_string_equal(buf, "n=-1 s=\"a\\x22b\\x3bc\\x5c\\x0a\\xff\" p=0x1000 gone=<optimized out> "
			    "bad=<fault>");
	/* The frame's pairs read back (pprof's labels): a string without its quotes. */
	{
		struct value_pair vp[VALUE_PAIRS_MAX];
		char frame[600];
		int n;

		snprintf(frame, sizeof(frame), "[%s]", buf);
		n = values_frame_pairs(frame, vp, VALUE_PAIRS_MAX);
		assert_int_equal(n, 5);
		assert_int_equal(vp[0].keylen, 1);
		assert_memory_equal(vp[0].val, "-1", 2);
		assert_int_equal(vp[1].vallen, 23);	/* its escaped text, a\\x22b... */
		assert_true(vp[1].quoted);
		assert_memory_equal(vp[1].val, "a\\x22b", 6);
		assert_memory_equal(vp[3].key, "gone", 4);
		assert_int_equal(vp[3].vallen, strlen("<optimized out>"));
		assert_int_equal(vp[4].vallen, strlen("<fault>"));
		assert_true(values_frame_is(frame));
		assert_false(values_frame_is("[unknown]"));
		assert_false(values_frame_is("[not sampled: between samples]"));
		assert_false(values_frame_is("[a=1 junk]"));
		assert_false(values_frame_is("[a=1]x"));
		assert_false(values_frame_is("[]"));
		assert_true(values_frame_is("[a=1 b=\"c d\"]"));
		assert_int_equal(values_frame_pairs("[unknown]", vp, VALUE_PAIRS_MAX), 0);
		assert_int_equal(values_frame_pairs("[a=\"x y]", vp, VALUE_PAIRS_MAX), 1);
		assert_int_equal(vp[0].vallen, 3);
	}
	/* A double and a float from their bits; a signed bit field's sign at its own top bit. */
	{
		struct fetch_site fs = { .nvars = 3 };
		struct fetch_values fv;
		double d = -2.5;
		float fl = 0.25f;
		char out[128];

		memset(&fv, 0, sizeof(fv));
		fs.fmt[0] = (struct fetch_format){ "d", 8, FETCH_PRINT_FLOAT, 0 };
		memcpy(&fv.value[0], &d, 8);
		fs.fmt[1] = (struct fetch_format){ "f", 4, FETCH_PRINT_FLOAT, 0 };
		memcpy(&fv.value[1], &fl, 4);
		fs.fmt[2] = (struct fetch_format){ "b", 4, FETCH_PRINT_SIGNED, 5 };
		fv.value[2] = 0x10;	/* -16 in 5 bits */
		fetch_format_values(&fs, &fv, out, sizeof(out));
		assert_string_equal(out, "d=-2.5 f=0.25 b=-16");
	}
	/* A buffer too small is cut, never overrun. */
	fetch_format_values(&site, &v, buf, 8);
	assert_int_equal(strlen(buf), 7);
	/* A string without its NUL (the kernel's read filled the slot) stops at the slot. */
	memset(v.str[1], 'z', FETCH_STR_MAX);
	fetch_format_values(&site, &v, buf, sizeof(buf));
	assert_non_null(strstr(buf, "s=\"zzzzzzzz"));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_tracepoint_fields(void **state)
{
	char dir[] = "/tmp/stitch-fetch-XXXXXX", path[256], err[512];
	const char *exprs[] = { "filename", "pid", "comm:string", "flags:x32" };
	struct fetch_format fmt[FETCH_MAX_VARS];
	struct fetch_steps prog;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/events", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/events/cat", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/events/cat/ev", dir);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/events/cat/ev/format", dir);
	write_file(path, "name: ev\nID: 1\nformat:\n"
		   "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		   "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
		   "\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
		   "\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
		   "\tfield:char comm[16];\toffset:16;\tsize:16;\tsigned:0;\n"
		   "\tfield:unsigned long flags;\toffset:32;\tsize:8;\tsigned:0;\n\n"
		   "print fmt: \"\"\n");
	assert_int_equal(fetch_tp_compile(dir, "cat", "ev", exprs, 4, &prog, fmt, err,
					  sizeof(err)), 0);
	assert_int_equal(prog.nvars, 4);
	assert_int_equal(prog.steps[0][0].kind, FETCH_STEP_CTX);
	assert_int_equal(prog.steps[0][0].imm, 8);
	assert_int_equal(prog.steps[0][1].kind, FETCH_STEP_DATA_LOC_STR);
	assert_int_equal(fmt[0].print, FETCH_PRINT_STRING);
	assert_int_equal(prog.steps[1][0].kind, FETCH_STEP_CTX);
	assert_int_equal(prog.steps[1][0].arg, 4);
	assert_int_equal(prog.steps[1][0].imm, 12);
	assert_int_equal(fmt[1].print, FETCH_PRINT_SIGNED);
	assert_int_equal(prog.steps[2][0].kind, FETCH_STEP_CTX_STR);
	assert_int_equal(prog.steps[2][0].imm, 16);
	assert_int_equal(fmt[3].print, FETCH_PRINT_HEX);
	assert_int_equal(fmt[3].size, 4);
	assert_string_equal(fmt[3].label, "flags");
	/* A field that is not there names those that are. */
	exprs[0] = "nope";
	assert_int_equal(fetch_tp_compile(dir, "cat", "ev", exprs, 1, &prog, fmt, err,
					  sizeof(err)), -ENOENT);
	assert_string_equal(err, "--fetch 'nope': no field 'nope' (its fields: filename, pid, "
			    "comm, flags)");
	exprs[0] = "comm";
	assert_int_equal(fetch_tp_compile(dir, "cat", "ev", exprs, 1, &prog, fmt, err,
					  sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "an array: add :string"));
	unlink(path);
	snprintf(path, sizeof(path), "rm -rf %s", dir);
	assert_int_equal(system(path), 0);
}

/* do_sys_openat2(int dfd, const char __user *filename, struct open_how *how) */
static void test_kprobe_btf_args(void **state)
{
	const char *exprs[] = { "filename:string", "how->flags", "dfd", "how" };
	struct fetch_format fmt[FETCH_MAX_VARS];
	struct fetch_steps prog;
	char err[512] = "";
	int rc;

	(void)state;
	rc = fetch_btf_compile("do_sys_openat2", exprs, 4, &prog, fmt, err, sizeof(err));
	if (rc)
		fail_msg("%s", err);
	assert_int_equal(prog.steps[0][0].kind, FETCH_STEP_KARG);
	assert_int_equal(prog.steps[0][0].arg, 1);
	assert_int_equal(prog.steps[0][1].kind, FETCH_STEP_STR_ANY);
	assert_int_equal(prog.steps[1][0].kind, FETCH_STEP_KARG);
	assert_int_equal(prog.steps[1][0].arg, 2);
	/* flags is open_how's first member: no offset, then its 8 bytes */
	assert_int_equal(prog.steps[1][1].kind, FETCH_STEP_LOAD_ANY);
	assert_int_equal(prog.steps[1][1].arg, 8);
	assert_int_equal(fmt[1].print, FETCH_PRINT_UNSIGNED);
	assert_int_equal(fmt[2].size, 4);
	assert_int_equal(fmt[2].print, FETCH_PRINT_SIGNED);
	assert_int_equal(fmt[3].print, FETCH_PRINT_HEX);
	exprs[0] = "how->mode";
	assert_int_equal(fetch_btf_compile("do_sys_openat2", exprs, 1, &prog, fmt, err,
					   sizeof(err)), 0);
	assert_int_equal(prog.steps[0][1].kind, FETCH_STEP_ADD);
	assert_int_equal(prog.steps[0][1].imm, 8);
	exprs[0] = "nope";
	assert_int_equal(fetch_btf_compile("do_sys_openat2", exprs, 1, &prog, fmt, err,
					   sizeof(err)), -EINVAL);
	assert_string_equal(err, "--fetch 'nope': no argument 'nope' (its arguments: dfd, "
			    "filename, how)");
	exprs[0] = "how:string";
	assert_int_equal(fetch_btf_compile("do_sys_openat2", exprs, 1, &prog, fmt, err,
					   sizeof(err)), -EINVAL);
	assert_int_equal(fetch_btf_compile("no_such_function_here", exprs, 1, &prog, fmt, err,
					   sizeof(err)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_path),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_tracepoint_fields),
		cmocka_unit_test(test_kprobe_btf_args),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
