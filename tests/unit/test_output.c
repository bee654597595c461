// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for aggregation (stacks.c), frame naming (resolve.c) and the writers
 * (output.c).  Stacks are built by hand; user frames in a real file point at
 * a function of this very test binary, kernel frames are named from a
 * crafted kallsyms file (or left as addresses without one).  The expected
 * output is compared as exact text.
 */
#include <fcntl.h>
#include <limits.h>
#include <link.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proc/binary.h"
#include "symbolize/kallsyms.h"
#include "formats/output.h"
#include "record/wall.h"
#include "profile/resolve.h"
#include "profile/stacks.h"

/*
 * Resolve a stack table and write it, as record does (profile_from_stacks,
 * then a writer): the pipeline under test, kept here since only the tests
 * call it in one step.
 */
struct output_info {
	const char *title;	/* e.g. "cpu at 99 Hz" */
	double seconds;
	const char *const *event_names;	/* indexed by stack_key.event_idx */
	int nevents;
	int top;		/* text: how many stacks to show */
};

static int write_folded(FILE *f, struct stack_table *t, struct resolver *r)
{
	struct profile p;
	int rc;

	profile_init(&p);
	rc = profile_from_stacks(&p, t, r, NULL, 0);
	if (!rc)
		rc = profile_write_folded(f, &p);
	profile_free(&p);
	return rc;
}

static int write_text(FILE *f, struct stack_table *t, struct resolver *r,
		      const struct output_info *info)
{
	struct profile p;
	int rc;

	profile_init(&p);
	rc = profile_from_stacks(&p, t, r, info->event_names, info->nevents);
	p.title = profile_str(&p, info->title);
	p.duration_ns = info->seconds * 1e9;
	if (!rc)
		rc = profile_write_text(f, &p, info->top);
	profile_free(&p);
	return rc;
}

#define K_STEXT 0xffffffff81000000ull
#define K_SYSCALL 0xffffffff81000100ull	/* do_syscall_64 */
#define K_ENTRY 0xffffffff81000200ull	/* entry_SYSCALL_64 */
#define K_SEMI 0xffffffff81000300ull	/* "bad;name" */

static const char ksyms_text[] =
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 T do_syscall_64\n"
	"ffffffff81000200 T entry_SYSCALL_64\n"
	"ffffffff81000300 t bad;name\n"
	"ffffffff81000400 T _etext\n";

static char ksyms_path[64];
static struct binary_cache bins;
static struct binary *self_bin;	/* this test's executable */
static uint64_t known_vaddr;	/* ELF vaddr of known_function */

/* A function with a symbol of its own, to name a user frame by. */
static const unsigned int known_line = __LINE__ + 1;	/* one line: entry's too */
__attribute__((noinline, used)) int known_function(int x) { return x * 3 + 1; }

static int main_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	*(uint64_t *)data = info->dlpi_addr;	/* first: the main program */
	return 1;
}

static int group_setup(void **state)
{
	uint64_t bias = 0;
	int fd;

	snprintf(ksyms_path, sizeof(ksyms_path), "/tmp/stitch_out_ksyms_XXXXXX");
	fd = mkstemp(ksyms_path);
	if (fd < 0 || write(fd, ksyms_text, strlen(ksyms_text)) != (ssize_t)strlen(ksyms_text))
		return -1;
	close(fd);
	if (binary_cache_init(&bins) != 0)
		return -1;
	fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	self_bin = binary_get_fd(&bins, fd, "/opt/test/test_output", "");
	if (!self_bin)
		return -1;
	dl_iterate_phdr(main_bias, &bias);
	known_vaddr = (uintptr_t)&known_function - bias;
	return 0;
}

static int group_teardown(void **state)
{
	binary_cache_free(&bins);
	unlink(ksyms_path);
	return 0;
}

/* A stack key with its frames, zeroed so padding hashes the same. */
struct keybuf {
	struct stack_key *k;
	uint32_t bytes;
};

static struct keybuf make_key(uint32_t pid, uint32_t tid, const char *comm, int nk,
			      const uint64_t *kern, int nu, const struct uframe *user)
{
	struct keybuf kb;
	uint64_t *kp;

	kb.bytes = sizeof(struct stack_key) + nk * sizeof(uint64_t) + nu * sizeof(struct uframe);
	kb.k = calloc(1, kb.bytes);
	assert_non_null(kb.k);
	kb.k->pid = pid;
	kb.k->tid = tid;
	kb.k->nkernel = nk;
	kb.k->nuser = nu;
	/* comm is a fixed field, not a C string: it may fill all 16 bytes. */
	memcpy(kb.k->comm, comm, strnlen(comm, STITCH_COMM_LEN));
	kp = (uint64_t *)stack_kernel(kb.k);
	if (nk)
		memcpy(kp, kern, nk * sizeof(*kern));
	if (nu)
		memcpy((struct uframe *)stack_user(kb.k), user, nu * sizeof(*user));
	return kb;
}

static void add(struct stack_table *t, struct keybuf kb, int times)
{
	while (times--)
		assert_int_equal(stacks_add(t, kb.k, kb.bytes), 0);
}

/* Run write_folded into memory and return the text (caller frees). */
static char *folded(struct stack_table *t, struct kallsyms *ks)
{
	struct resolver r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(resolver_init(&r, ks), 0);
	assert_int_equal(write_folded(f, t, &r), 0);
	resolver_free(&r);
	fclose(f);
	return buf;
}

static void expect_text(char *got, const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("got:\n%s\nwanted:\n%s", got, want);
	free(got);
}

static void test_format_for(void **state)
{
	assert_int_equal(output_format_for("-"), OUTPUT_TEXT);
	assert_int_equal(output_format_for("out.txt"), OUTPUT_TEXT);
	assert_int_equal(output_format_for("out.folded"), OUTPUT_FOLDED);
	assert_int_equal(output_format_for(".folded"), OUTPUT_FOLDED);
	assert_int_equal(output_format_for("out.svg"), OUTPUT_SVG);
	assert_int_equal(output_format_for("out.pb.gz"), OUTPUT_PPROF);
	assert_int_equal(output_format_for("out.speedscope.json"), OUTPUT_SPEEDSCOPE);
	assert_int_equal(output_format_for("out.json"), -1);
	assert_int_equal(output_format_for("out.gz"), -1);
	assert_int_equal(output_format_for("out.xyz"), -1);
	assert_int_equal(output_format_for("folded"), -1);
	assert_int_equal(output_format_for(""), -1);
}

static void test_add_outputs(void **state)
{
	const char *paths[3];
	int formats[3], n = 0;

	/* FILE.json is a command's own numbers where it takes them, else no name. */
	assert_int_equal(output_add_json("test", paths, formats, &n, 3, "out.json"), 0);
	assert_int_equal(output_add_json("test", paths, formats, &n, 3, "out.speedscope.json"), 0);
	assert_int_equal(output_add("test", paths, formats, &n, 3, "out.json"), 2);
	assert_int_equal(output_add("test", paths, formats, &n, 3, "-"), 0);
	assert_int_equal(n, 3);
	assert_int_equal(formats[0], OUTPUT_JSON);
	assert_int_equal(formats[1], OUTPUT_SPEEDSCOPE);
	assert_int_equal(formats[2], OUTPUT_TEXT);
	assert_string_equal(paths[0], "out.json");
	/* Full, or a name with no format: a usage error, nothing added. */
	assert_int_equal(output_add_json("test", paths, formats, &n, 3, "more.json"), 2);
	n = 0;
	assert_int_equal(output_add_json("test", paths, formats, &n, 3, "out.xyz"), 2);
	assert_int_equal(n, 0);
}

static void test_folded_clean(void **state)
{
	char buf[16];
	const char comm[4] = { 'a', 'b', 'c', 'd' };	/* not terminated */

	folded_clean(buf, sizeof(buf), "a;b\tc\x7f" "d\x01" "e");
	assert_string_equal(buf, "a:b?c?d?e");
	/* Spaces stay: FlameGraph takes the count after the last one only. */
	folded_clean(buf, sizeof(buf), "operator new[]");
	assert_string_equal(buf, "operator new[]");
	/* Cut to the buffer, always terminated. */
	folded_clean(buf, 4, "abcdef");
	assert_string_equal(buf, "abc");
	folded_clean(buf, 1, "abcdef");
	assert_string_equal(buf, "");
	/* Bytes >= 0x80 (UTF-8) pass through. */
	folded_clean(buf, sizeof(buf), "caf\xc3\xa9");
	assert_string_equal(buf, "caf\xc3\xa9");
	/* A full fixed-size field: reads at most len - 1 bytes of it. */
	folded_clean(buf, sizeof(comm) + 1, comm);
	assert_string_equal(buf, "abcd");
}

static void test_stacks_add_sort(void **state)
{
	const uint64_t k1[] = { K_SYSCALL }, k2[] = { K_SYSCALL + 8 };
	struct keybuf a = make_key(1, 1, "a", 1, k1, 0, NULL);
	struct keybuf b = make_key(1, 1, "a", 1, k2, 0, NULL);	/* one address differs */
	struct keybuf c = make_key(1, 2, "a", 1, k1, 0, NULL);	/* other tid */
	struct keybuf d = make_key(1, 1, "a", 0, NULL, 0, NULL);	/* no frames */
	struct stack_table t;
	size_t i;

	assert_int_equal(stacks_init(&t), 0);
	add(&t, a, 5);
	add(&t, b, 2);
	add(&t, c, 7);
	add(&t, d, 2);
	assert_int_equal(t.total, 16);
	assert_int_equal(t.map.count, 4);
	assert_int_equal(stacks_sort(&t), 0);
	assert_int_equal(t.nsorted, 4);
	assert_int_equal(t.sorted[0]->count, 7);
	assert_int_equal(t.sorted[0]->key.tid, 2);
	assert_int_equal(t.sorted[1]->count, 5);
	assert_int_equal(t.sorted[1]->key_bytes, a.bytes);
	assert_memory_equal(&t.sorted[1]->key, a.k, a.bytes);
	/* Equal counts: the key bytes decide (d has nkernel 0 < 1). */
	assert_int_equal(t.sorted[2]->count, 2);
	assert_int_equal(t.sorted[3]->count, 2);
	assert_int_equal(t.sorted[2]->key_bytes, d.bytes);
	assert_memory_equal(&t.sorted[3]->key, b.k, b.bytes);
	for (i = 1; i < t.nsorted; i++)
		assert_true(t.sorted[i - 1]->count >= t.sorted[i]->count);
	/* Sorting again (more samples since) sees the new counts. */
	add(&t, b, 10);
	assert_int_equal(stacks_sort(&t), 0);
	assert_memory_equal(&t.sorted[0]->key, b.k, b.bytes);
	assert_int_equal(t.sorted[0]->count, 12);
	assert_int_equal(t.total, 26);
	/* The table copied the keys: ours can go. */
	free(a.k);
	free(b.k);
	free(c.k);
	free(d.k);
	assert_int_equal(t.sorted[1]->key.tid, 2);
	stacks_free(&t);

	/*
	 * Equal counts and bytes up to the shorter key: the shorter first.
	 * (Only reachable with keys that lie about their length, but the
	 * order must stay total for stable output.)
	 */
	{
		const uint64_t k4[] = { 1, 2, 3, 4 };

		a = make_key(1, 1, "a", 4, k4, 0, NULL);
		assert_int_equal(stacks_init(&t), 0);
		for (i = 0; i < 5; i++)
			assert_int_equal(stacks_add(&t, a.k, a.bytes - 8 * ((i * 3) % 5)), 0);
		assert_int_equal(t.map.count, 5);	/* five different keys */
		assert_int_equal(stacks_sort(&t), 0);
		for (i = 0; i < 5; i++)
			assert_int_equal(t.sorted[i]->key_bytes, a.bytes - 8 * (4 - i));
		stacks_free(&t);
		free(a.k);
	}
}

static void test_folded_basic(void **state)
{
	const uint64_t kern[] = { K_SYSCALL + 0x50, K_ENTRY + 0x10 };	/* innermost first */
	const struct uframe user[] = {
		/* A return address: just past a call into known_function's start. */
		{ .bin = self_bin, .addr = known_vaddr + 1, .kind = UFRAME_ELF },
		{ .addr = 0x1234, .kind = UFRAME_UNKNOWN },
		{ .kind = UFRAME_TRUNCATED },
	};
	struct keybuf kb = make_key(10, 11, "app", 2, kern, 3, user);
	struct kallsyms *ks = kallsyms_load(ksyms_path);
	struct stack_table t;

	assert_non_null(ks);
	assert_int_equal(stacks_init(&t), 0);
	add(&t, kb, 3);
	/* Outermost first: user then kernel, each from its outermost frame. */
	expect_text(folded(&t, ks),
		    "app;[truncated];[unknown];known_function;"
		    "entry_SYSCALL_64_[k];do_syscall_64_[k] 3\n");
	/* Without kallsyms the kernel frames keep their addresses. */
	expect_text(folded(&t, NULL),
		    "app;[truncated];[unknown];known_function;0xffffffff81000210_[k];"
		    "0xffffffff81000150_[k] 3\n");
	stacks_free(&t);
	kallsyms_free(ks);
	free(kb.k);
}

static void test_folded_user_frames(void **state)
{
	const struct uframe exact[] = {
		/* The sampled pc itself: exact, named as is. */
		{ .bin = self_bin, .addr = known_vaddr, .kind = UFRAME_ELF, .exact = 1 },
		{ .kind = UFRAME_CUT },
	};
	const struct uframe ret[] = {
		/* A return address at a function's start belongs to the call before it. */
		{ .bin = self_bin, .addr = known_vaddr, .kind = UFRAME_ELF },
	};
	const struct uframe nosym[] = {
		/* Inside the file but in no symbol: module+offset, never a neighbour. */
		{ .bin = self_bin, .addr = 0x10, .kind = UFRAME_ELF, .exact = 1 },
	};
	struct keybuf a = make_key(1, 1, "x", 0, NULL, 2, exact);
	struct keybuf b = make_key(2, 2, "y", 0, NULL, 1, ret);
	struct keybuf c = make_key(3, 3, "z", 0, NULL, 1, nosym);
	struct stack_table t;
	char *out, *line;

	assert_int_equal(stacks_init(&t), 0);
	add(&t, a, 1);
	add(&t, b, 1);
	add(&t, c, 1);
	out = folded(&t, NULL);
	line = strtok(out, "\n");
	assert_string_equal(line, "x;[unknown];known_function 1");
	line = strtok(NULL, "\n");
	assert_non_null(line);
	assert_true(strncmp(line, "y;", 2) == 0);
	assert_null(strstr(line, "known_function"));
	line = strtok(NULL, "\n");
	assert_string_equal(line, "z;test_output+0x10 1");
	assert_null(strtok(NULL, "\n"));
	free(out);
	stacks_free(&t);
	free(a.k);
	free(b.k);
	free(c.k);
}

static void test_folded_merge_sort(void **state)
{
	const uint64_t kern[] = { K_SYSCALL };
	const uint64_t kern2[] = { K_ENTRY };
	struct keybuf p1 = make_key(100, 100, "worker", 1, kern, 0, NULL);
	struct keybuf p2 = make_key(200, 201, "worker", 1, kern, 0, NULL);	/* other process */
	struct keybuf p3 = make_key(300, 300, "worker", 1, kern, 0, NULL);
	struct keybuf other_comm = make_key(100, 100, "alpha", 1, kern, 0, NULL);
	struct keybuf other_frames = make_key(100, 100, "worker", 1, kern2, 0, NULL);
	struct keybuf ev1 = make_key(100, 100, "worker", 1, kern, 0, NULL);
	struct kallsyms *ks = kallsyms_load(ksyms_path);
	struct stack_table t;

	ev1.k->event_idx = 1;	/* another event, same frames: same folded line */
	assert_int_equal(stacks_init(&t), 0);
	add(&t, p1, 4);
	add(&t, p2, 5);
	add(&t, p3, 1);
	add(&t, ev1, 2);
	add(&t, other_comm, 7);
	add(&t, other_frames, 1);
	assert_int_equal(t.map.count, 6);
	/* Sorted by text, not by count; the three pids and the event merged. */
	expect_text(folded(&t, ks),
		    "alpha;do_syscall_64_[k] 7\n"
		    "worker;do_syscall_64_[k] 12\n"
		    "worker;entry_SYSCALL_64_[k] 1\n");
	stacks_free(&t);
	kallsyms_free(ks);
	free(p1.k);
	free(p2.k);
	free(p3.k);
	free(other_comm.k);
	free(other_frames.k);
	free(ev1.k);
}

static void test_folded_clean_names(void **state)
{
	const uint64_t kern[] = { K_SEMI + 4 };
	struct keybuf a = make_key(1, 1, "we;ird\tname", 1, kern, 0, NULL);
	struct keybuf full = make_key(2, 2, "0123456789abcdefXYZ", 0, NULL, 0, NULL);
	struct keybuf none = make_key(3, 3, "", 0, NULL, 1,
				      &(struct uframe){ .kind = UFRAME_UNKNOWN });
	struct kallsyms *ks = kallsyms_load(ksyms_path);
	struct stack_table t;

	assert_int_equal(stacks_init(&t), 0);
	add(&t, a, 1);
	add(&t, full, 2);
	add(&t, none, 3);
	/* ';' would start a new frame, a tab or newline would break the line. */
	expect_text(folded(&t, ks),
		    "0123456789abcdef 2\n"
		    "[unknown];[unknown] 3\n"
		    "we:ird?name;bad:name_[k] 1\n");
	stacks_free(&t);
	kallsyms_free(ks);
	free(a.k);
	free(full.k);
	free(none.k);
}

static void test_folded_empty(void **state)
{
	struct stack_table t;

	assert_int_equal(stacks_init(&t), 0);
	expect_text(folded(&t, NULL), "");
	stacks_free(&t);
}

static char *text(struct stack_table *t, struct kallsyms *ks, int top)
{
	static const char *const names[] = { "cpu", "syscall:openat" };
	const struct output_info info = {
		.title = "cpu at 99 Hz", .seconds = 1.5, .event_names = names, .nevents = 2,
		.top = top,
	};
	struct resolver r;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(resolver_init(&r, ks), 0);
	assert_int_equal(write_text(f, t, &r, &info), 0);
	resolver_free(&r);
	fclose(f);
	return buf;
}

static void test_text(void **state)
{
	const uint64_t kern[] = { K_SYSCALL + 0x50, K_ENTRY + 0x10 };
	const struct uframe user[] = {
		{ .bin = self_bin, .addr = known_vaddr, .kind = UFRAME_ELF, .exact = 1 },
		{ .kind = UFRAME_TRUNCATED },
	};
	struct keybuf a = make_key(10, 11, "app", 2, kern, 2, user);
	/* A comm using all 16 bytes, no frames: nothing follows it in the key. */
	struct keybuf b = make_key(20, 20, "0123456789abcdef", 0, NULL, 0, NULL);
	struct keybuf c = make_key(30, 31, "c;d", 1, kern, 0, NULL);
	struct kallsyms *ks = kallsyms_load(ksyms_path);
	struct stack_table t;
	char want[1024];

	c.k->event_idx = 7;	/* no such event: "?" */
	b.k->event_idx = 1;
	assert_int_equal(stacks_init(&t), 0);
	add(&t, a, 3);
	add(&t, b, 1);
	add(&t, c, 4);
	/* Innermost first, the most frequent stack first, with source lines. */
	snprintf(want, sizeof(want),
		 "stitch: 8 events (cpu at 99 Hz) in 1.5 s, 3 distinct stacks\n"
		 "\n"
		 " 50.00%%        4  c:d  pid 30 tid 31  [?]\n"
		 "        do_syscall_64_[k]\n"
		 "\n"
		 " 37.50%%        3  app  pid 10 tid 11  [cpu]\n"
		 "        do_syscall_64_[k]\n"
		 "        entry_SYSCALL_64_[k]\n"
		 "        known_function  (test_output.c:%u)\n"
		 "        [truncated]\n"
		 "\n"
		 " 12.50%%        1  0123456789abcdef  pid 20 tid 20  [syscall:openat]\n",
		 known_line);
	expect_text(text(&t, ks, 10), want);
	/* Cut at top, saying how many were left out. */
	expect_text(text(&t, ks, 1),
		    "stitch: 8 events (cpu at 99 Hz) in 1.5 s, 3 distinct stacks\n"
		    "\n"
		    " 50.00%        4  c:d  pid 30 tid 31  [?]\n"
		    "        do_syscall_64_[k]\n"
		    "\n"
		    "... 2 more stacks (write -o FILE.folded for all of them)\n");
	stacks_free(&t);
	kallsyms_free(ks);
	free(a.k);
	free(b.k);
	free(c.k);
}

/*
 * A COMMAND's thread has stitch's name until it execs: its line in the wall
 * summary takes the name it spent the most time under, whichever stack the
 * table holds first.  Keys that differ in one frame land anywhere in the
 * table's order: every one of them names the thread the same.
 */
static void test_wall_thread_named_by_its_heaviest_stack(void **state)
{
	const uint64_t heavy[] = { 0xffffffff81000010ull };
	struct stack_table t;
	char buf[512];
	uint64_t light[1];
	int i;

	(void)state;
	for (i = 0; i < 32; i++) {
		struct keybuf pre, post = make_key(7, 7, "waits", 1, heavy, 0, NULL);

		light[0] = 0xffffffff81000020ull + 16 * i;
		pre = make_key(7, 7, "stitch-asan", 1, light, 0, NULL);
		/* Off-CPU keys (event 1): their counts are nanoseconds already. */
		pre.k->event_idx = post.k->event_idx = 1;
		assert_int_equal(stacks_init(&t), 0);
		assert_int_equal(stacks_add_n(&t, pre.k, pre.bytes, 2000000), 0);
		assert_int_equal(stacks_add_n(&t, post.k, post.bytes, 1000000000), 0);
		assert_non_null(wall_weigh(&t, 0, 1000000, buf, sizeof(buf)));
		assert_non_null(strstr(buf, "waits "));
		assert_null(strstr(buf, "stitch-asan"));
		stacks_free(&t);
		free(pre.k);
		free(post.k);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wall_thread_named_by_its_heaviest_stack),
		cmocka_unit_test(test_format_for),
		cmocka_unit_test(test_add_outputs),
		cmocka_unit_test(test_folded_clean),
		cmocka_unit_test(test_stacks_add_sort),
		cmocka_unit_test(test_folded_basic),
		cmocka_unit_test(test_folded_user_frames),
		cmocka_unit_test(test_folded_merge_sort),
		cmocka_unit_test(test_folded_clean_names),
		cmocka_unit_test(test_folded_empty),
		cmocka_unit_test(test_text),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
