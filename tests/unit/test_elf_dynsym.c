// SPDX-License-Identifier: GPL-2.0
/*
 * A dynamic symbol found through the file's GNU hash table (util/elf_util.c)
 * is the one a walk of the whole table finds first: every defined symbol
 * of this process's libc and libelf, versioned twins
 * (memcpy@GLIBC_2.2.5, memcpy@@GLIBC_2.14) included; a name that is not
 * there is not found; a table that does not hold together falls back to
 * the walk.
 */
#include <fcntl.h>
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
#include <gelf.h>

#include "util/elf_util.h"

/* The path of the mapped file whose path holds part, from /proc/self/maps. */
static bool mapped_path(const char *part, char *path, size_t len)
{
	char line[4096];
	FILE *f = fopen("/proc/self/maps", "r");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p)
			continue;
		p[strcspn(p, "\n")] = '\0';
		if (strstr(p, part)) {
			snprintf(path, len, "%s", p);
			found = true;
		}
	}
	fclose(f);
	return found;
}

/* The first defined symbol of that name in the table, as a walk finds it. */
static bool walk_find(Elf *elf, Elf_Data *d, size_t strtab, size_t n, const char *name,
		      uint64_t *value)
{
	size_t i;

	for (i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *s;

		if (!gelf_getsym(d, i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(elf, strtab, sym.st_name);
		if (s && !strcmp(s, name)) {
			*value = sym.st_value;
			return true;
		}
	}
	return false;
}

/* Every defined dynamic symbol of path found as the walk finds it: how many. */
static size_t check_file(const char *path)
{
	Elf_Scn *scn = NULL;
	size_t i, n = 0, checked = 0;
	bool has_gnu_hash = false;
	GElf_Shdr sh;
	Elf_Data *d = NULL;
	size_t strtab = 0;
	uint64_t none;
	Elf *elf;
	int fd;

	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_non_null(elf);
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_GNU_HASH)
			has_gnu_hash = true;
		if (sh.sh_type == SHT_DYNSYM && sh.sh_entsize) {
			d = elf_getdata(scn, NULL);
			strtab = sh.sh_link;
			n = sh.sh_size / sh.sh_entsize;
		}
	}
	assert_true(has_gnu_hash);
	assert_non_null(d);
	for (i = 0; i < n; i++) {
		uint64_t want, got = 0;
		GElf_Sym sym;
		const char *s;

		if (!gelf_getsym(d, i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		s = elf_strptr(elf, strtab, sym.st_name);
		if (!s || !s[0])
			continue;
		assert_true(walk_find(elf, d, strtab, n, s, &want));
		if (!elf_dynsym_find(elf, s, &got, NULL))
			fail_msg("%s: %s not found", path, s);
		if (got != want)
			fail_msg("%s: %s at %#lx, the walk's at %#lx", path, s, (unsigned long)got,
				 (unsigned long)want);
		checked++;
	}
	assert_false(elf_dynsym_find(elf, "stitch_no_such_symbol", &none, NULL));
	elf_end(elf);
	close(fd);
	return checked;
}

static void test_libc_and_libelf(void **state)
{
	char path[4096];

	(void)state;
	elf_util_init();
	assert_true(mapped_path("/libc.so.6", path, sizeof(path)));
	assert_true(check_file(path) > 1000);
	assert_true(mapped_path("/libelf", path, sizeof(path)));
	assert_true(check_file(path) > 50);
}

/*
 * libc with its hash table's bucket count made 0, then its first chain made
 * endless (no end bit, past the table): malloc still found, by the walk.
 */
static void test_broken_table_walked(void **state)
{
	char path[4096], copy[] = "/tmp/stitch-dynsym.XXXXXX";
	uint64_t value, want = 0, off = 0, size = 0;
	Elf_Scn *scn = NULL;
	int fd, out, round;
	GElf_Shdr sh;
	uint32_t w[4];
	Elf *elf;

	(void)state;
	elf_util_init();
	assert_true(mapped_path("/libc.so.6", path, sizeof(path)));
	fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	assert_true(elf_dynsym_find(elf, "malloc", &want, NULL));
	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_HASH)
			off = sh.sh_offset, size = sh.sh_size;
	elf_end(elf);
	assert_true(off && size > 16);
	for (round = 0; round < 2; round++) {
		char buf[65536];
		ssize_t n;

		out = mkstemp(copy);
		assert_true(out >= 0);
		assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			assert_int_equal(write(out, buf, n), n);
		}
		assert_int_equal(pread(out, w, sizeof(w), off), (ssize_t)sizeof(w));
		if (round == 0) {
			w[0] = 0;
		} else {
			/* every chain word of the table without its end bit */
			uint64_t i, first = off + 16 + (uint64_t)w[2] * 8 + (uint64_t)w[0] * 4;
			uint32_t c;

			for (i = first; i + 4 <= off + size; i += 4) {
				assert_int_equal(pread(out, &c, 4, i), 4);
				c &= ~1u;
				assert_int_equal(pwrite(out, &c, 4, i), 4);
			}
		}
		assert_int_equal(pwrite(out, w, sizeof(w), off), (ssize_t)sizeof(w));
		elf = elf_begin(out, ELF_C_READ_MMAP, NULL);
		assert_non_null(elf);
		value = 0;
		assert_true(elf_dynsym_find(elf, "malloc", &value, NULL));
		assert_int_equal(value, want);
		assert_false(elf_dynsym_find(elf, "stitch_no_such_symbol", &value, NULL));
		elf_end(elf);
		close(out);
		unlink(copy);
		strcpy(copy, "/tmp/stitch-dynsym.XXXXXX");
	}
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_libc_and_libelf),
		cmocka_unit_test(test_broken_table_walked),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
