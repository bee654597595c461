// SPDX-License-Identifier: GPL-2.0
/*
 * The CFI-less entry code of programs and of glibc's loader marked as the
 * outermost frame (src/unwind/entry_end.c): row surgery on small tables, and
 * real binaries built here (a static program and a PIE whose _start has no
 * CFI, a shared library whose e_entry points at a CFI-less function) and this
 * machine's ld.so.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "unit_helpers.h"
#include "unwind/entry_end.h"
#include "util/elf_util.h"

static char dir[64];

#define ROW(p, rule, off) { .pc = (p), .cfa_offset = (off), .cfa_rule = (rule) }

static void set_table(struct unwind_table *t, const struct stitch_unwind_row *rows, size_t n)
{
	memset(t, 0, sizeof(*t));
	t->rows = calloc(n ? n : 1, sizeof(*rows));
	assert_non_null(t->rows);
	if (n)
		memcpy(t->rows, rows, n * sizeof(*rows));
	t->nr = n;
}

static void expect_rows(const struct unwind_table *t, const struct stitch_unwind_row *want,
			size_t n)
{
	size_t i;

	assert_int_equal(t->nr, n);
	for (i = 0; i < n; i++) {
		assert_int_equal(t->rows[i].pc, want[i].pc);
		assert_int_equal(t->rows[i].cfa_rule, want[i].cfa_rule);
		assert_int_equal(t->rows[i].cfa_offset, want[i].cfa_offset);
	}
}

static void test_mark_inside_unknown(void **state)
{
	/* f1 at 0x100, a gap from 0x140, f2 at 0x200; the entry at 0x180. */
	const struct stitch_unwind_row in[] = {
		ROW(0x100, STITCH_CFA_RSP, 8), ROW(0x140, STITCH_CFA_UNKNOWN, 0),
		ROW(0x200, STITCH_CFA_RSP, 8),
	};
	const struct stitch_unwind_row want[] = {
		ROW(0x100, STITCH_CFA_RSP, 8), ROW(0x140, STITCH_CFA_UNKNOWN, 0),
		ROW(0x180, STITCH_CFA_END, 0), ROW(0x200, STITCH_CFA_RSP, 8),
	};
	struct unwind_table t;

	set_table(&t, in, 3);
	assert_int_equal(unwind_table_mark_end(&t, 0x180, 0x200), 0);
	expect_rows(&t, want, 4);
	unwind_table_free(&t);
}

static void test_mark_replaces_row_and_closes(void **state)
{
	/* The entry starts the gap itself; the section ends before f2. */
	const struct stitch_unwind_row in[] = {
		ROW(0x100, STITCH_CFA_RSP, 8), ROW(0x140, STITCH_CFA_UNKNOWN, 0),
		ROW(0x300, STITCH_CFA_RSP, 16),
	};
	const struct stitch_unwind_row want[] = {
		ROW(0x100, STITCH_CFA_RSP, 8), ROW(0x140, STITCH_CFA_END, 0),
		ROW(0x160, STITCH_CFA_UNKNOWN, 0), ROW(0x300, STITCH_CFA_RSP, 16),
	};
	struct unwind_table t;

	set_table(&t, in, 3);
	assert_int_equal(unwind_table_mark_end(&t, 0x140, 0x160), 0);
	expect_rows(&t, want, 4);
	unwind_table_free(&t);
}

static void test_mark_empty_and_merges(void **state)
{
	const struct stitch_unwind_row after_end[] = {
		ROW(0x100, STITCH_CFA_END, 0), ROW(0x140, STITCH_CFA_UNKNOWN, 0),
	};
	const struct stitch_unwind_row want_merged[] = {
		ROW(0x100, STITCH_CFA_END, 0), ROW(0x150, STITCH_CFA_UNKNOWN, 0),
	};
	const struct stitch_unwind_row want_empty[] = {
		ROW(0x10, STITCH_CFA_END, 0), ROW(0x20, STITCH_CFA_UNKNOWN, 0),
	};
	struct unwind_table t;

	/* No CFI at all: the entry's rows alone. */
	set_table(&t, NULL, 0);
	assert_int_equal(unwind_table_mark_end(&t, 0x10, 0x20), 0);
	expect_rows(&t, want_empty, 2);
	unwind_table_free(&t);
	/* Right after an END row: one END row, no two equal neighbours. */
	set_table(&t, after_end, 2);
	assert_int_equal(unwind_table_mark_end(&t, 0x140, 0x150), 0);
	expect_rows(&t, want_merged, 2);
	unwind_table_free(&t);
}

struct built {
	int fd;
	Elf *elf;
	struct unwind_table t;
};

static void open_built(const char *path, struct built *b)
{
	b->fd = open(path, O_RDONLY);
	assert_true(b->fd >= 0);
	b->elf = elf_begin(b->fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(b->elf);
	assert_int_equal(cfi_build_table(b->elf, NULL, &b->t), 0);
}

static void close_built(struct built *b)
{
	unwind_table_free(&b->t);
	elf_end(b->elf);
	close(b->fd);
}

static uint64_t entry_of(Elf *elf)
{
	GElf_Ehdr eh;

	assert_non_null(gelf_getehdr(elf, &eh));
	return eh.e_entry;
}

/* st_value of a .symtab symbol; fails the test if absent. */
static uint64_t symbol(Elf *elf, const char *name)
{
	uint64_t v = 0;

	if (!elf_sym_find(elf, SHT_SYMTAB, name, &v, NULL))
		fail_msg("no symbol %s", name);
	return v;
}

static int setup(void **state)
{
	elf_util_init();
	snprintf(dir, sizeof(dir), "/tmp/stitch_entry_XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	/*
	 * _start without CFI calls go(), which has CFI; nocfi() is a shared
	 * library's CFI-less function that its e_entry points at.
	 */
	return test_shell("cd '%s' && set -e\n"
		"printf '.globl _start\\n_start:\\n\\tcall go\\n\\thlt\\n"
		"go:\\n\\t.cfi_startproc\\n\\tret\\n\\t.cfi_endproc\\n' > start.S\n"
		"gcc -Wa,--noexecstack -nostdlib -static -no-pie start.S -o static\n"
		"gcc -Wa,--noexecstack -nostartfiles -fPIE -pie start.S -o pie\n"
		"printf '.globl nocfi\\nnocfi:\\n\\tcall f\\n\\tret\\n"
		"f:\\n\\t.cfi_startproc\\n\\tret\\n\\t.cfi_endproc\\n' > lib.S\n"
		"gcc -Wa,--noexecstack -shared -fPIC -Wl,-e,nocfi lib.S -o lib.so\n"
		"printf '.globl _start\n_start:\n\tcall work\n\thlt\n"
		"work:\n\t.fill 1024,1,0x90\n\tret\n' > bare.S\n"
		"gcc -Wa,--noexecstack -nostdlib -static -no-pie bare.S -o bare\n", dir);
}

static int teardown(void **state)
{
	return test_shell("rm -rf '%s'", dir);
}

/* _start's range ends where go()'s FDE begins; go() keeps its own rule. */
static void check_program(const char *name)
{
	char path[PATH_MAX];
	const struct stitch_unwind_row *row;
	struct built b;
	uint64_t lo, hi, go;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	open_built(path, &b);
	go = symbol(b.elf, "go");
	row = unwind_table_lookup(&b.t, entry_of(b.elf));
	assert_true(!row || row->cfa_rule == STITCH_CFA_UNKNOWN);
	assert_true(entry_code_range(b.elf, &b.t, &lo, &hi));
	assert_int_equal(lo, entry_of(b.elf));
	assert_int_equal(lo, symbol(b.elf, "_start"));
	assert_int_equal(hi, go);
	assert_int_equal(entry_mark_end(b.elf, &b.t), 0);
	/* The return address of `call go` (5 bytes) lies in the END range. */
	assert_int_equal(unwind_table_lookup(&b.t, lo + 5)->cfa_rule, STITCH_CFA_END);
	assert_int_equal(unwind_table_lookup(&b.t, go)->cfa_rule, STITCH_CFA_RSP);
	close_built(&b);
}

static void test_static_program(void **state)
{
	check_program("static");
}

static void test_pie_program(void **state)
{
	check_program("pie");
}

static void test_library_entry_untouched(void **state)
{
	char path[PATH_MAX];
	struct built b;
	uint64_t lo, hi;
	size_t nr;

	snprintf(path, sizeof(path), "%s/lib.so", dir);
	open_built(path, &b);
	assert_int_equal(entry_of(b.elf), symbol(b.elf, "nocfi"));
	assert_false(entry_code_range(b.elf, &b.t, &lo, &hi));
	nr = b.t.nr;
	assert_int_equal(entry_mark_end(b.elf, &b.t), 0);
	assert_int_equal(b.t.nr, nr);
	close_built(&b);
}

/*
 * A program with no CFI anywhere (as Go's binaries, .debug_frame only):
 * past its entry, 1 KiB of code no FDE covers is not entry code, and none
 * of it may end a stack as complete.
 */
static void test_program_without_cfi_untouched(void **state)
{
	char path[PATH_MAX];
	struct built b;
	uint64_t lo, hi;
	size_t nr;

	snprintf(path, sizeof(path), "%s/bare", dir);
	open_built(path, &b);
	assert_false(entry_code_range(b.elf, &b.t, &lo, &hi));
	nr = b.t.nr;
	assert_int_equal(entry_mark_end(b.elf, &b.t), 0);
	assert_int_equal(b.t.nr, nr);
	close_built(&b);
}

/*
 * This machine's glibc loader: _start and _dl_start_user have no FDE
 * (glibc 2.36, checked with readelf -wf); both are END once marked, and the
 * next FDE's function keeps its rule.
 */
static void test_glibc_loader(void **state)
{
	struct built b;
	uint64_t lo, hi;

	open_built("/lib64/ld-linux-x86-64.so.2", &b);
	assert_true(entry_code_range(b.elf, &b.t, &lo, &hi));
	assert_int_equal(lo, entry_of(b.elf));
	/* _start: mov %rsp,%rdi; call _dl_start (8 bytes); then _dl_start_user. */
	assert_true(hi > lo + 8 && hi - lo < 256);
	assert_int_equal(unwind_table_lookup(&b.t, hi)->cfa_rule != STITCH_CFA_UNKNOWN, 1);
	assert_int_equal(entry_mark_end(b.elf, &b.t), 0);
	assert_int_equal(unwind_table_lookup(&b.t, lo)->cfa_rule, STITCH_CFA_END);
	assert_int_equal(unwind_table_lookup(&b.t, lo + 8)->cfa_rule, STITCH_CFA_END);
	assert_int_equal(unwind_table_lookup(&b.t, hi - 1)->cfa_rule, STITCH_CFA_END);
	assert_int_not_equal(unwind_table_lookup(&b.t, hi)->cfa_rule, STITCH_CFA_END);
	close_built(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mark_inside_unknown),
		cmocka_unit_test(test_mark_replaces_row_and_closes),
		cmocka_unit_test(test_mark_empty_and_merges),
		cmocka_unit_test(test_static_program),
		cmocka_unit_test(test_pie_program),
		cmocka_unit_test(test_library_entry_untouched),
		cmocka_unit_test(test_program_without_cfi_untouched),
		cmocka_unit_test(test_glibc_loader),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
