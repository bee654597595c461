// SPDX-License-Identifier: GPL-2.0
/* Tests for the kallsyms parser: crafted files and the running kernel's. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "symbolize/kallsyms.h"

static char tmp_path[64];

static const char *write_tmp(const char *text)
{
	int fd;

	snprintf(tmp_path, sizeof(tmp_path), "/tmp/stitch_ksyms_XXXXXX");
	fd = mkstemp(tmp_path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	return tmp_path;
}

/* Unsorted on purpose, with aliases, data, markers, modules and garbage. */
static const char crafted[] =
	"ffffffff81002000 T func_b\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T first_func\n"
	"ffffffff81001000 t func_a\n"
	"ffffffff81001000 T __func_a_alias\n"
	"garbage line without fields\n"
	"zzzzzzzzzzzzzzzz T not_hex\n"
	"ffffffff81003000 TT bad_type\n"
	"ffffffff81003000 T __entry_text_end\n"
	"ffffffff81004000 T func_c\n"
	"ffffffff81005000 D some_data\n"
	"ffffffff81006000 T func_d\n"
	"ffffffff81007000 T _etext\n"
	"0000000000000010 A percpu_thing\n"
	"ffffffffc0001000 t mod_func1\t[mymod]\n"
	"ffffffffc0001800 t mod_func2\t[mymod]\n"
	"ffffffffc0100000 t other_func\t[othermod]\n"
	"ffffffffc0200000 t bad_mod\t[broken\n"
	"ffffffffc0300000 t bpf_prog_0123_handler\t[bpf]\n"
	"\n"
	"ffffffff81008000 W weak_func";	/* no final newline */

static void expect(const struct kallsyms *ks, uint64_t addr, const char *name,
		   const char *module, uint64_t off)
{
	const char *mod = (const char *)1;
	uint64_t got_off = ~0ull;
	const char *got = kallsyms_lookup(ks, addr, &mod, &got_off);

	if (!name) {
		if (got)
			fail_msg("%#lx: expected nothing, got %s", (unsigned long)addr, got);
		return;
	}
	if (!got)
		fail_msg("%#lx: expected %s, got nothing", (unsigned long)addr, name);
	assert_string_equal(got, name);
	if (module)
		assert_string_equal(mod, module);
	else
		assert_null(mod);
	assert_int_equal(got_off, off);
}

static void test_crafted(void **state)
{
	struct kallsyms *ks = kallsyms_load(write_tmp(crafted));

	unlink(tmp_path);
	assert_non_null(ks);
	assert_false(kallsyms_all_zero(ks));
	expect(ks, 0xffffffff80ffffffull, NULL, NULL, 0);	/* below the first */
	/* alias choice: a real name beats the _stext/_text markers */
	expect(ks, 0xffffffff81000000ull, "first_func", NULL, 0);
	expect(ks, 0xffffffff81000fffull, "first_func", NULL, 0xfff);
	/* T beats t, then fewer underscores: T __func_a_alias wins over t func_a */
	expect(ks, 0xffffffff81001010ull, "__func_a_alias", NULL, 0x10);
	expect(ks, 0xffffffff81002fffull, "func_b", NULL, 0xfff);
	/* after __entry_text_end: a known gap */
	expect(ks, 0xffffffff81003000ull, NULL, NULL, 0);
	expect(ks, 0xffffffff81003abcull, NULL, NULL, 0);
	expect(ks, 0xffffffff81004010ull, "func_c", NULL, 0x10);
	/* data ends func_c's range */
	expect(ks, 0xffffffff81005008ull, NULL, NULL, 0);
	expect(ks, 0xffffffff81006001ull, "func_d", NULL, 1);
	expect(ks, 0xffffffff81007001ull, NULL, NULL, 0);	/* past _etext */
	expect(ks, 0xffffffff81008004ull, "weak_func", NULL, 4);
	/* the last vmlinux symbol: capped, not stretched to the modules */
	expect(ks, 0xffffffff81100000ull, NULL, NULL, 0);
	expect(ks, 0xffffffffc0001000ull, "mod_func1", "[mymod]", 0);
	expect(ks, 0xffffffffc00017ffull, "mod_func1", "[mymod]", 0x7ff);
	expect(ks, 0xffffffffc0001810ull, "mod_func2", "[mymod]", 0x10);
	/* far beyond the last symbol of mymod, before othermod: a gap */
	expect(ks, 0xffffffffc0080000ull, NULL, NULL, 0);
	expect(ks, 0xffffffffc0100020ull, "other_func", "[othermod]", 0x20);
	/* the malformed module line was dropped, so nothing at 0xc0200000 */
	expect(ks, 0xffffffffc0200000ull, NULL, NULL, 0);
	expect(ks, 0xffffffffc0300040ull, "bpf_prog_0123_handler", "[bpf]", 0x40);
	expect(ks, 0xffffffffc0400000ull, NULL, NULL, 0);
	kallsyms_free(ks);
}

static void test_all_zero(void **state)
{
	struct kallsyms *ks = kallsyms_load(write_tmp(
		"0000000000000000 T _text\n0000000000000000 T do_syscall_64\n"
		"0000000000000000 t helper\t[mod]\n"));

	unlink(tmp_path);
	assert_non_null(ks);
	assert_true(kallsyms_all_zero(ks));
	assert_null(kallsyms_lookup(ks, 0, NULL, NULL));
	assert_null(kallsyms_lookup(ks, 0xffffffff81000000ull, NULL, NULL));
	kallsyms_free(ks);
}

static void test_missing_and_empty(void **state)
{
	errno = 0;
	assert_null(kallsyms_load("/nonexistent/kallsyms"));
	assert_int_equal(errno, ENOENT);
	assert_null(kallsyms_load(write_tmp("junk\nmore junk\n")));
	unlink(tmp_path);
}

/* The running kernel: root reads real addresses; do_syscall_64 names itself. */
static void test_proc_kallsyms(void **state)
{
	struct kallsyms *ks = kallsyms_load("/proc/kallsyms");
	char line[512], name[256], type;
	unsigned long long addr = 0;
	const char *mod = (const char *)1, *got;
	uint64_t off = 1;
	FILE *f;
	bool found = false;

	assert_non_null(ks);
	if (kallsyms_all_zero(ks))
		fail_msg("/proc/kallsyms addresses are hidden (run as root, kptr_restrict)");
	f = fopen("/proc/kallsyms", "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) == 3 &&
		    strcmp(name, "do_syscall_64") == 0) {
			found = true;
			break;
		}
	}
	fclose(f);
	assert_true(found);
	got = kallsyms_lookup(ks, addr, &mod, &off);
	assert_non_null(got);
	assert_string_equal(got, "do_syscall_64");
	assert_null(mod);
	assert_int_equal(off, 0);
	got = kallsyms_lookup(ks, addr + 5, &mod, &off);
	assert_non_null(got);
	assert_string_equal(got, "do_syscall_64");
	assert_int_equal(off, 5);
	assert_true(kallsyms_count(ks) > 1000);
	kallsyms_free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_crafted),
		cmocka_unit_test(test_all_zero),
		cmocka_unit_test(test_missing_and_empty),
		cmocka_unit_test(test_proc_kallsyms),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
