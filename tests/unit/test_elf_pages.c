// SPDX-License-Identifier: GPL-2.0
/*
 * elf_image_drop_pages (util/elf_util.c): the pages of a file libelf
 * mapped leave our resident set and read back the same; an image in
 * memory (libelf's copy where it cannot map, or elf_memory's) is never
 * touched, page-aligned or not: MADV_DONTNEED would zero it.
 */
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

/* KiB of our resident set in the mapping that starts at addr, or -1. */
static long rss_kb_at(const void *addr)
{
	char line[4096], start[32];
	FILE *f = fopen("/proc/self/smaps", "r");
	bool in = false;
	long kb = -1;

	if (!f)
		return -1;
	snprintf(start, sizeof(start), "%lx-", (unsigned long)(uintptr_t)addr);
	while (fgets(line, sizeof(line), f)) {
		if (strchr(line, '-') && strncmp(line, start, strlen(start)) == 0)
			in = true;
		else if (in && sscanf(line, "Rss: %ld kB", &kb) == 1)
			break;
	}
	fclose(f);
	return in ? kb : -1;
}

/* A sum of every byte, read one by one: each page of the image touched. */
static uint64_t sum_of(const char *p, size_t n)
{
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < n; i++)
		s = s * 31 + (unsigned char)p[i];
	return s;
}

/* The test's own file, libelf's map of it (the kernel's map is not ours to count). */
static Elf *open_self(int *fd, char **raw, size_t *size)
{
	Elf *elf = elf_open_file("/proc/self/exe", fd);

	assert_non_null(elf);
	*raw = elf_rawfile(elf, size);
	assert_non_null(*raw);
	return elf;
}

static void test_mapped_file_dropped_and_read_back(void **state)
{
	uint8_t id[STITCH_BUILD_ID_MAX], again[STITCH_BUILD_ID_MAX];
	size_t size = 0, n;
	uint64_t before;
	char *raw;
	Elf *elf;
	int fd;

	(void)state;
	elf = open_self(&fd, &raw, &size);
	n = elf_build_id(elf, id);
	before = sum_of(raw, size);
	assert_true(rss_kb_at(raw) >= (long)(size >> 10));
	elf_image_drop_pages(elf);
	/* As root (map_files): nothing of it left resident. */
	assert_int_equal(rss_kb_at(raw), 0);
	assert_int_equal(sum_of(raw, size), before);
	assert_int_equal(elf_build_id(elf, again), n);
	assert_memory_equal(id, again, n);
	elf_end(elf);
	close(fd);
}

static void test_image_in_memory_untouched(void **state)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t size = 0, len;
	uint64_t before;
	char *raw, *copy;
	Elf *elf, *mem;
	int fd;

	(void)state;
	elf = open_self(&fd, &raw, &size);
	/* Page-aligned, as a mapping is: only the kernel's word tells them apart. */
	len = (size + (size_t)page - 1) & ~((size_t)page - 1);
	copy = aligned_alloc((size_t)page, len);
	assert_non_null(copy);
	memcpy(copy, raw, size);
	mem = elf_memory(copy, size);
	assert_non_null(mem);
	before = sum_of(copy, size);
	elf_image_drop_pages(mem);
	assert_int_equal(sum_of(copy, size), before);
	assert_memory_equal(copy, raw, size);
	elf_end(mem);
	free(copy);
	elf_end(elf);
	close(fd);
	/* And no image at all. */
	elf_image_drop_pages(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mapped_file_dropped_and_read_back),
		cmocka_unit_test(test_image_in_memory_untouched),
	};

	elf_util_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
