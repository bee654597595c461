// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the kernel address namer: its parser of the kernel's
 * "name+0xoff/0xsize [module]" text, and, on the running kernel (root),
 * that it names addresses as /proc/kallsyms says, return addresses after
 * the call before them.
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
#include <cmocka.h>

#include "symbolize/ksym_namer.h"

static void expect_parse(const char *text, bool ok, const char *name, const char *module)
{
	char n[64] = "x", m[32] = "x";

	assert_int_equal(ksym_parse_text(text, n, sizeof(n), m, sizeof(m)), ok);
	if (ok) {
		assert_string_equal(n, name);
		assert_string_equal(m, module);
	}
}

static void test_parse(void **state)
{
	expect_parse("do_syscall_64+0x5c/0xf0", true, "do_syscall_64", "");
	expect_parse("ext4_file_write_iter+0x1/0x80 [ext4]", true, "ext4_file_write_iter", "[ext4]");
	expect_parse("foo.cold+0x0/0x10", true, "foo.cold", "");
	expect_parse("bpf_prog_6deef7357e7b4530_on_perf_event+0x3c/0x1a8", true,
		     "bpf_prog_6deef7357e7b4530_on_perf_event", "");
	/* No symbol: the kernel prints the address. */
	expect_parse("0xffffffff81000000", false, NULL, NULL);
	expect_parse("", false, NULL, NULL);
	expect_parse("+0x10/0x20", false, NULL, NULL);
	expect_parse("a b+0x1/0x2", false, NULL, NULL);
	expect_parse("name+12", false, NULL, NULL);
	/* An unterminated or empty module is no module. */
	expect_parse("f+0x1/0x2 [mod", true, "f", "");
	expect_parse("f+0x1/0x2 []", true, "f", "");
	/* Cut to the buffers, never past them. */
	expect_parse("a_very_long_symbol_name_that_does_not_fit_into_sixty_four_bytes_at_all+0x1/0x2",
		     true, "a_very_long_symbol_name_that_does_not_fit_into_sixty_four_bytes", "");
	expect_parse("f+0x1/0x2 [a_module_name_longer_than_32_bytes_here]", true, "f",
		     "[a_module_name_longer_than_32_b");
}

struct sym {
	uint64_t addr;
	char name[128];
	bool text;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* vmlinux's symbols (no module's), sorted by address. */
static struct sym *read_vmlinux_symbols(size_t *nr)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	struct sym *v = NULL;
	size_t n = 0, cap = 0;
	char line[512], type;
	unsigned long long addr;
	char name[128];

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '[') || sscanf(line, "%llx %c %127s", &addr, &type, name) != 3)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			v = realloc(v, cap * sizeof(*v));
			assert_non_null(v);
		}
		v[n].addr = addr;
		v[n].text = type == 't' || type == 'T';
		snprintf(v[n].name, sizeof(v[n].name), "%s", name);
		n++;
	}
	fclose(f);
	qsort(v, n, sizeof(*v), cmp_sym);
	*nr = n;
	return v;
}

/*
 * Text symbols alone at their address (an alias may be named either way),
 * followed by a symbol further up: inside, sym + 1 is the symbol itself;
 * the next symbol's address, as a return address, is a call at sym's end.
 */
static void test_running_kernel(void **state)
{
	struct ksym_namer *kn = ksym_namer_open();
	size_t nr, i, step, checked = 0, wrong = 0;
	struct sym *s;

	if (!kn)
		fail_msg("cannot load the namer: %s (tests run as root)", strerror(errno));
	s = read_vmlinux_symbols(&nr);
	assert_true(nr > 10000);
	step = nr / 1500;
	for (i = 1; i + 1 < nr; i += step) {
		uint64_t addrs[2];
		bool exact[2] = { true, false };
		const char *name[2], *mod[2];
		int k;

		while (i + 1 < nr && (!s[i].text || s[i - 1].addr == s[i].addr ||
				      s[i + 1].addr <= s[i].addr + 1 || s[i].addr == 0))
			i++;
		if (i + 1 >= nr)
			break;
		addrs[0] = s[i].addr + 1;
		addrs[1] = s[i + 1].addr;
		assert_int_equal(ksym_namer_name(kn, addrs, exact, 2, name, mod), 0);
		for (k = 0; k < 2; k++) {
			checked++;
			if (strcmp(name[k], s[i].name) == 0 && !mod[k])
				continue;
			if (wrong++ < 10)
				print_message("%#llx (%s): kernel says '%s', kallsyms '%s'\n",
					      (unsigned long long)addrs[k], k ? "return" : "exact",
					      name[k], s[i].name);
		}
	}
	print_message("%zu addresses named as kallsyms says, %zu not\n", checked - wrong, wrong);
	assert_true(checked > 1000);
	assert_int_equal(wrong, 0);
	free(s);
	ksym_namer_close(kn);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse),
		cmocka_unit_test(test_running_kernel),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
