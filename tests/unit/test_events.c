// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for -e parsing: every accepted form with the fields it fills, and
 * every rejection with the message the user sees.  Each spec is freed with
 * event_free on success and on error, so LeakSanitizer checks both paths.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "probe/line_probe.h"
#include "record/events.h"

static void accept(const char *text, enum event_kind kind, const char *a, const char *b,
		   const char *c)
{
	struct event_spec ev;
	char err[256] = "";
	int rc = event_parse(text, &ev, err, sizeof(err));

	if (rc != 0)
		fail_msg("'%s' rejected (%d): %s", text, rc, err);
	assert_int_equal(ev.kind, kind);
	assert_string_equal(ev.text, text);
#define FIELD(f, want) do {				\
		if (want)				\
			assert_string_equal(ev.f, want);\
		else					\
			assert_null(ev.f);		\
	} while (0)
	FIELD(a, a);
	FIELD(b, b);
	FIELD(c, c);
#undef FIELD
	event_free(&ev);
	assert_null(ev.text);
}

static void reject(const char *text, const char *prefix, const char *hint)
{
	struct event_spec ev;
	char err[512] = "", want[256];
	int rc = event_parse(text, &ev, err, sizeof(err));

	if (rc != -EINVAL)
		fail_msg("'%s' accepted or odd rc %d", text, rc);
	snprintf(want, sizeof(want), "%s '%s': ", prefix, text);
	if (strncmp(err, want, strlen(want)) != 0)
		fail_msg("'%s': message '%s' does not start with '%s'", text, err, want);
	if (hint && !strstr(err, hint))
		fail_msg("'%s': message '%s' lacks '%s'", text, err, hint);
	event_free(&ev);
}

static void test_offcpu(void **state)
{
	accept("offcpu", EVENT_OFFCPU, NULL, NULL, NULL);
	accept("off-cpu", EVENT_OFFCPU, NULL, NULL, NULL);
}

static void test_cpu(void **state)
{
	accept("cpu", EVENT_CPU, NULL, NULL, NULL);
	accept("cpu-clock", EVENT_CPU, NULL, NULL, NULL);
}

static void test_syscall(void **state)
{
	accept("syscall:openat", EVENT_SYSCALL, "syscalls", "sys_enter_openat", NULL);
	accept("syscall:exit_group", EVENT_SYSCALL, "syscalls", "sys_enter_exit_group", NULL);
	reject("syscall:", "bad event", "syscall:NAME");
	reject("syscall:open-at", "bad event", "syscall:NAME");
	reject("syscall:a:b", "bad event", "syscall:NAME");
	reject("syscall:../x", "bad event", NULL);
}

static void test_tracepoint(void **state)
{
	accept("tracepoint:sched:sched_switch", EVENT_TRACEPOINT, "sched", "sched_switch", NULL);
	reject("tracepoint:sched", "bad event", "tracepoint:CATEGORY:NAME");
	reject("tracepoint::sched_switch", "bad event", NULL);
	reject("tracepoint:sched:", "bad event", NULL);
	/* A ':' or '/' would reach tracefs paths: categories are identifiers. */
	reject("tracepoint:a:b:c", "bad event", NULL);
	reject("tracepoint:../x:y", "bad event", NULL);
	reject("tracepoint:", "bad event", NULL);
}

static void test_uprobe(void **state)
{
	accept("uprobe:/lib/x86_64-linux-gnu/libc.so.6:malloc", EVENT_UPROBE,
	       "/lib/x86_64-linux-gnu/libc.so.6", "malloc", NULL);
	accept("uprobe:libc.so.6:malloc", EVENT_UPROBE, "libc.so.6", "malloc", NULL);
	/* The symbol follows the last ':': a path may contain ':'. */
	accept("uprobe:/tmp/a:b/lib.so:malloc", EVENT_UPROBE, "/tmp/a:b/lib.so", "malloc", NULL);
	/* Mangled C++ names have no ":" and pass through whole. */
	accept("uprobe:/bin/x:_ZN3foo3barEv", EVENT_UPROBE, "/bin/x", "_ZN3foo3barEv", NULL);
	reject("uprobe:malloc", "bad event", "uprobe:PATH:SYMBOL");
	reject("uprobe::malloc", "bad event", NULL);
	reject("uprobe:/bin/x:", "bad event", NULL);
	reject("uprobe:", "bad event", NULL);
}

/* A line probe's event: the binary, the line's spec kept for probe/line_probe.c. */
static void accept_line(const char *text, const char *path, const char *spec)
{
	struct event_spec ev;
	char err[256] = "";

	if (event_parse(text, &ev, err, sizeof(err)) != 0)
		fail_msg("'%s' rejected: %s", text, err);
	assert_int_equal(ev.kind, EVENT_UPROBE);
	assert_true(ev.line);
	assert_string_equal(ev.a, path);
	assert_string_equal(ev.b, spec);
	event_free(&ev);
}

static void test_uprobe_line(void **state)
{
	struct line_spec spec;
	char s[64];

	(void)state;
	accept_line("uprobe:./srv:handle_request:4", "./srv", "handle_request:4");
	accept_line("uprobe:/opt/a:b/srv:handle:0", "/opt/a:b/srv", "handle:0");
	accept_line("uprobe:./srv@srv.c:42", "./srv", "@srv.c:42");
	accept_line("uprobe:/usr/lib/x/libfoo.so@src/io/read.c:7", "/usr/lib/x/libfoo.so",
		    "@src/io/read.c:7");
	/* Not lines: a symbol, an address, a versioned name */
	accept("uprobe:./srv:handle_request", EVENT_UPROBE, "./srv", "handle_request", NULL);
	accept("uprobe:./srv:0x1234", EVENT_UPROBE, "./srv", "0x1234", NULL);
	reject("uprobe:./srv::4", "bad event", NULL);
	reject("uprobe:./srv@:4", "bad event", NULL);

	snprintf(s, sizeof(s), "handle:12");
	assert_int_equal(line_spec_parse(s, &spec), 0);
	assert_string_equal(spec.func, "handle");
	assert_null(spec.file);
	assert_int_equal(spec.line, 12);
	snprintf(s, sizeof(s), "@a/b.c:3");
	assert_int_equal(line_spec_parse(s, &spec), 0);
	assert_null(spec.func);
	assert_string_equal(spec.file, "a/b.c");
	assert_int_equal(spec.line, 3);
	snprintf(s, sizeof(s), "handle");
	assert_int_equal(line_spec_parse(s, &spec), 0);
	assert_int_equal(spec.line, -1);
	snprintf(s, sizeof(s), "handle:-1");
	assert_int_equal(line_spec_parse(s, &spec), -EINVAL);
	snprintf(s, sizeof(s), "handle:4x");
	assert_int_equal(line_spec_parse(s, &spec), -EINVAL);
	snprintf(s, sizeof(s), "@:4");
	assert_int_equal(line_spec_parse(s, &spec), -EINVAL);
	snprintf(s, sizeof(s), "handle:99999999999");
	assert_int_equal(line_spec_parse(s, &spec), -EINVAL);
}

static void test_usdt(void **state)
{
	accept("usdt:/usr/bin/python3:python:gc__start", EVENT_USDT, "/usr/bin/python3", "python",
	       "gc__start");
	accept("usdt:/tmp/a:b/lib.so:prov:name", EVENT_USDT, "/tmp/a:b/lib.so", "prov", "name");
	accept("usdt:rel/path:p:n", EVENT_USDT, "rel/path", "p", "n");
	reject("usdt:/bin/x:name", "bad event", "usdt:PATH:PROVIDER:NAME");
	reject("usdt:/bin/x:prov:", "bad event", NULL);
	reject("usdt:/bin/x::name", "bad event", NULL);
	reject("usdt::prov:name", "bad event", NULL);
	reject("usdt:name", "bad event", NULL);
	reject("usdt:", "bad event", NULL);
}

static void test_kprobe(void **state)
{
	accept("kprobe:do_sys_openat2", EVENT_KPROBE, "do_sys_openat2", NULL, NULL);
	reject("kprobe:", "bad event", "kprobe:FUNCTION");
	reject("kprobe:mod:func", "bad event", NULL);
	reject("kprobe:func+0x10", "bad event", NULL);
	/* A kernel source line: placed by the kernel's DWARF when attached */
	accept("kprobe:do_sys_openat2:3", EVENT_KPROBE, NULL, "do_sys_openat2:3", NULL);
	accept("kprobe:@fs/open.c:1325", EVENT_KPROBE, NULL, "@fs/open.c:1325", NULL);
	reject("kprobe:do_sys_openat2:x", "bad event", "kprobe:FUNC:RELLINE");
	reject("kprobe:@fs/open.c", "bad event", "a kernel source line");
}

static void test_unknown(void **state)
{
	reject("", "unknown event", "expected cpu, offcpu, alloc, syscall:NAME");
	reject("alloc:x", "unknown event", NULL);
	reject("offcpu:x", "unknown event", NULL);
	reject("CPU", "unknown event", NULL);
	reject("cpu:", "unknown event", NULL);
	reject("cpuclock", "unknown event", NULL);
	reject("sycall:openat", "unknown event", NULL);
	reject("uprobes:/bin/x:f", "unknown event", NULL);
	reject("tracepoint", "unknown event", NULL);
}

static void test_small_err_buffer(void **state)
{
	struct event_spec ev;
	char err[8];

	/* The message is cut to the buffer, never written past it. */
	memset(err, 'x', sizeof(err));
	assert_int_equal(event_parse("nonsense", &ev, err, sizeof(err)), -EINVAL);
	assert_int_equal(strlen(err), sizeof(err) - 1);
	assert_string_equal(err, "unknown");
	event_free(&ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu),
		cmocka_unit_test(test_syscall),
		cmocka_unit_test(test_tracepoint),
		cmocka_unit_test(test_uprobe),
		cmocka_unit_test(test_uprobe_line),
		cmocka_unit_test(test_usdt),
		cmocka_unit_test(test_kprobe),
		cmocka_unit_test(test_offcpu),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_small_err_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
