// SPDX-License-Identifier: GPL-2.0
/*
 * The unwind table cache (unwind/table_cache.c), on libc's table: a table
 * written is read back row for row, by the binary it was built from and
 * by a copy of it;
 * a binary that claims the same build ID with other CFI, an entry torn,
 * changed, linked or of another stitch is never read (and goes), a small
 * table is not written, a full directory loses the entries read least
 * recently, and a table read back is marked as a built one is.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <gelf.h>

#include "proc/binary.h"
#include "unwind/cfi.h"
#include "unwind/table_cache.h"
#include "util/elf_util.h"

static char dir[] = "/tmp/stitch-test-tables.XXXXXX";
/*
 * libc's file: a table of 28,274 rows (2.36, x86-64), above the smallest
 * cached; and the dynamic loader's, whose entry code its build marks.
 */
static char libc[4096], ldso[4096];

/* The file of ours whose path holds name, from our maps. */
static void find_mapped(const char *name, char *out, size_t len)
{
	char line[4096 + 128], *p;
	FILE *f = fopen("/proc/self/maps", "r");

	assert_non_null(f);
	out[0] = '\0';
	while (fgets(line, sizeof(line), f)) {
		p = strchr(line, '/');
		if (p && strstr(p, name)) {
			p[strcspn(p, "\n")] = '\0';
			snprintf(out, len, "%s", p);
			break;
		}
	}
	fclose(f);
	assert_true(out[0] == '/');
}

/* A binary of the test's own: its file, libelf's view, its build ID and its table. */
struct bin {
	int fd;
	Elf *elf;
	uint8_t id[STITCH_BUILD_ID_MAX];
	size_t id_len;
	struct unwind_table t;
};

static void bin_open(struct bin *b, const char *path)
{
	b->elf = elf_open_file(path, &b->fd);
	assert_non_null(b->elf);
	b->id_len = elf_build_id(b->elf, b->id);
	assert_true(b->id_len >= 2);
	assert_int_equal(cfi_build_table(b->elf, NULL, &b->t), 0);
	assert_true(b->t.nr >= TABLE_CACHE_MIN_ROWS);
}

static void bin_close(struct bin *b)
{
	unwind_table_free(&b->t);
	elf_end(b->elf);
	close(b->fd);
}

static void entry_path(const struct table_cache_key *k, char *buf, size_t len)
{
	snprintf(buf, len, "%s/tables/%s", dir, k->name);
}

static void write_entry(const struct bin *b, struct table_cache_key *k)
{
	assert_true(table_cache_key(b->elf, b->id, b->id_len, k));
	table_cache_write(k, &b->t);
}

/* A copy of libc at path, with the byte at off (if off) changed. */
static void copy_libc(const char *path, uint64_t off)
{
	int in = open(libc, O_RDONLY), out;
	char buf[65536];
	ssize_t n;

	assert_true(in >= 0);
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0700);
	assert_true(out >= 0);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		assert_int_equal(write(out, buf, (size_t)n), n);
	if (off) {
		unsigned char c;

		assert_int_equal(pread(in, &c, 1, (off_t)off), 1);
		c ^= 0x01;
		assert_int_equal(pwrite(out, &c, 1, (off_t)off), 1);
	}
	close(in);
	close(out);
}

static void test_roundtrip_and_copy(void **state)
{
	struct unwind_table got = { 0 };
	struct table_cache_stats st0, st1;
	struct table_cache_key k, kc;
	char copy[256];
	struct bin b, c;

	(void)state;
	bin_open(&b, libc);
	table_cache_get_stats(&st0);
	write_entry(&b, &k);
	assert_true(table_cache_read(&k, &got));
	assert_int_equal(got.nr, b.t.nr);
	assert_memory_equal(got.rows, b.t.rows, b.t.nr * sizeof(*b.t.rows));
	unwind_table_free(&got);

	/* Another file of the same bytes: the same entry. */
	snprintf(copy, sizeof(copy), "%s/copy", dir);
	copy_libc(copy, 0);
	bin_open(&c, copy);
	assert_true(table_cache_key(c.elf, c.id, c.id_len, &kc));
	assert_string_equal(kc.name, k.name);
	assert_true(table_cache_read(&kc, &got));
	unwind_table_free(&got);
	bin_close(&c);
	unlink(copy);

	table_cache_get_stats(&st1);
	assert_int_equal(st1.written - st0.written, 1);
	assert_int_equal(st1.read - st0.read, 2);
	assert_int_equal(st1.refused, st0.refused);
	bin_close(&b);
}

/* Same build ID, one byte of .eh_frame changed: another key, its entry not read. */
static void test_same_build_id_other_cfi(void **state)
{
	struct unwind_table got = { 0 };
	struct table_cache_key k, kf;
	struct elf_section eh;
	char forged[256];
	struct bin b, f;

	(void)state;
	bin_open(&b, libc);
	write_entry(&b, &k);
	assert_int_equal(elf_find_section(b.elf, ".eh_frame", &eh), 0);
	snprintf(forged, sizeof(forged), "%s/forged", dir);
	copy_libc(forged, eh.offset + eh.size / 2);
	f.elf = elf_open_file(forged, &f.fd);
	assert_non_null(f.elf);
	f.id_len = elf_build_id(f.elf, f.id);
	assert_int_equal(f.id_len, b.id_len);
	assert_memory_equal(f.id, b.id, b.id_len);
	assert_true(table_cache_key(f.elf, f.id, f.id_len, &kf));
	assert_string_not_equal(kf.name, k.name);
	assert_memory_not_equal(kf.digest, k.digest, sizeof(k.digest));
	assert_false(table_cache_read(&kf, &got));
	/* Its entry named as the true one's: still refused by the digest inside. */
	memcpy(kf.name, k.name, sizeof(k.name));
	assert_false(table_cache_read(&kf, &got));
	elf_end(f.elf);
	close(f.fd);
	unlink(forged);
	bin_close(&b);
}

/* Another stitch's digest of the same binary differs. */
static void test_other_stitch_other_digest(void **state)
{
	uint8_t a[TABLE_CACHE_DIGEST], b2[TABLE_CACHE_DIGEST], again[TABLE_CACHE_DIGEST];
	static const uint8_t one[] = { 1, 2, 3, 4 }, two[] = { 1, 2, 3, 5 };
	struct bin b;

	(void)state;
	bin_open(&b, libc);
	assert_true(table_cache_digest(b.elf, one, sizeof(one), a));
	assert_true(table_cache_digest(b.elf, two, sizeof(two), b2));
	assert_true(table_cache_digest(b.elf, one, sizeof(one), again));
	assert_memory_not_equal(a, b2, sizeof(a));
	assert_memory_equal(a, again, sizeof(a));
	bin_close(&b);
}

/* Write the entry, spoil it with fn, and check it is refused and gone. */
static void spoiled(void (*fn)(const char *path))
{
	struct unwind_table got = { 0 };
	struct table_cache_stats st0, st1;
	struct table_cache_key k;
	char path[512];
	struct stat st;
	struct bin b;

	bin_open(&b, libc);
	write_entry(&b, &k);
	entry_path(&k, path, sizeof(path));
	fn(path);
	table_cache_get_stats(&st0);
	assert_false(table_cache_read(&k, &got));
	table_cache_get_stats(&st1);
	assert_int_equal(st1.refused - st0.refused, 1);
	assert_int_equal(lstat(path, &st), -1);
	assert_int_equal(errno, ENOENT);
	bin_close(&b);
}

static void cut_last_row(const char *path)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(truncate(path, st.st_size - 1), 0);
}

/* A row's rule no walker knows (the header is 56 bytes; cfa_rule is byte 8 of a row). */
static void bad_rule(const char *path)
{
	int fd = open(path, O_WRONLY);
	unsigned char bad = 99;

	assert_int_equal(pwrite(fd, &bad, 1, 56 + 12 * 5 + 8), 1);
	close(fd);
}

/* Two rows out of order. */
static void rows_swapped(const char *path)
{
	int fd = open(path, O_RDWR);
	unsigned char r[24], s[24];

	assert_int_equal(pread(fd, r, 24, 56 + 12 * 10), 24);
	memcpy(s, r + 12, 12);
	memcpy(s + 12, r, 12);
	assert_int_equal(pwrite(fd, s, 24, 56 + 12 * 10), 24);
	close(fd);
}

/* The digest inside changed. */
static void bad_digest(const char *path)
{
	int fd = open(path, O_RDWR);
	unsigned char c;

	assert_int_equal(pread(fd, &c, 1, 56 - 1), 1);
	c ^= 0x80;
	assert_int_equal(pwrite(fd, &c, 1, 56 - 1), 1);
	close(fd);
}

/* A link in its place, to a file that holds (a planted entry is not followed). */
static void made_a_link(const char *path)
{
	char real[600];

	snprintf(real, sizeof(real), "%s.real", path);
	assert_int_equal(rename(path, real), 0);
	assert_int_equal(symlink(real, path), 0);
}

/* Writable by others: not ours alone, whoever wrote it. */
static void others_write(const char *path)
{
	assert_int_equal(chmod(path, 0622), 0);
}

static void test_torn_entry(void **state)
{
	(void)state;
	spoiled(cut_last_row);
}

static void test_bad_rule(void **state)
{
	(void)state;
	spoiled(bad_rule);
}

static void test_rows_out_of_order(void **state)
{
	(void)state;
	spoiled(rows_swapped);
}

static void test_bad_digest(void **state)
{
	(void)state;
	spoiled(bad_digest);
}

static void test_link_not_followed(void **state)
{
	(void)state;
	spoiled(made_a_link);
}

static void test_writable_by_others(void **state)
{
	(void)state;
	spoiled(others_write);
}

static void test_small_table_not_written(void **state)
{
	struct table_cache_stats st0, st1;
	struct unwind_table e = { 0 };
	struct table_cache_key k;
	struct bin b;

	(void)state;
	bin_open(&b, libc);
	assert_true(table_cache_key(b.elf, b.id, b.id_len, &k));
	memcpy(k.name, "small.tbl", 10);
	e.rows = b.t.rows;
	e.nr = TABLE_CACHE_MIN_ROWS - 1;
	table_cache_get_stats(&st0);
	table_cache_write(&k, &e);
	table_cache_get_stats(&st1);
	assert_int_equal(st1.written, st0.written);
	assert_false(table_cache_read(&k, &e));
	bin_close(&b);
}

/*
 * Over its limit, the entries read least recently go first, down to three
 * quarters of it: entries of a sixth of it, 0-4 written, 0 read a second
 * later, then 5 (six: at the limit) and 6, which makes room: 1, 2 and 3 go.
 */
static void test_least_recently_read_go(void **state)
{
	struct unwind_table got;
	struct table_cache_stats st0, st1;
	struct table_cache_key k[7];
	static const int kept[7] = { 1, 0, 0, 0, 1, 1, 1 };
	char path[512], cmd[600];
	struct bin b;
	int i;

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -f '%s'/tables/*.tbl", dir);
	assert_int_equal(system(cmd), 0);
	bin_open(&b, libc);
	table_cache_set_limits(TABLE_CACHE_MIN_ROWS, (56 + b.t.nr * sizeof(*b.t.rows)) * 6);
	table_cache_get_stats(&st0);
	for (i = 0; i < 7; i++) {
		assert_true(table_cache_key(b.elf, b.id, b.id_len, &k[i]));
		snprintf(k[i].name, sizeof(k[i].name), "lru%d.tbl", i);
		if (i == 5) {
			sleep(1);
			assert_true(table_cache_read(&k[0], &got));
			unwind_table_free(&got);
		}
		table_cache_write(&k[i], &b.t);
	}
	table_cache_get_stats(&st1);
	assert_int_equal(st1.pruned - st0.pruned, 3);
	assert_int_equal(st1.written - st0.written, 7);
	for (i = 0; i < 7; i++) {
		entry_path(&k[i], path, sizeof(path));
		assert_int_equal(access(path, F_OK) == 0, kept[i]);
	}
	table_cache_set_limits(TABLE_CACHE_MIN_ROWS, TABLE_CACHE_MAX_BYTES);
	assert_int_equal(system(cmd), 0);
	bin_close(&b);
}

/*
 * Through the binary cache, the loader's table twice, by two caches: the
 * second reads the first's entry (the CFI's rows) and marks its entry code
 * again: the same rows, its END and all.
 */
static void test_read_back_marked_again(void **state)
{
	struct table_cache_stats st0, st1;
	struct binary_cache one, two;
	const struct unwind_table *a, *b;
	struct binary *x, *y;
	size_t i, ends = 0;

	(void)state;
	table_cache_set_limits(1, TABLE_CACHE_MAX_BYTES);
	assert_int_equal(binary_cache_init(&one), 0);
	assert_int_equal(binary_cache_init(&two), 0);
	x = binary_get_fd(&one, open(ldso, O_RDONLY | O_CLOEXEC), ldso, "");
	y = binary_get_fd(&two, open(ldso, O_RDONLY | O_CLOEXEC), ldso, "");
	assert_non_null(x);
	assert_non_null(y);
	table_cache_get_stats(&st0);
	a = binary_table(&one, x);
	b = binary_table(&two, y);
	table_cache_get_stats(&st1);
	assert_int_equal(st1.written - st0.written, 1);
	assert_int_equal(st1.read - st0.read, 1);
	assert_true(a->nr > 100);
	assert_int_equal(a->nr, b->nr);
	assert_memory_equal(a->rows, b->rows, a->nr * sizeof(*a->rows));
	for (i = 0; i < a->nr; i++)
		ends += a->rows[i].cfa_rule == STITCH_CFA_END;
	assert_true(ends >= 1);
	assert_true(x->entry_hi > x->entry_lo);
	assert_int_equal(y->entry_lo, x->entry_lo);
	assert_int_equal(y->entry_hi, x->entry_hi);
	binary_cache_free(&one);
	binary_cache_free(&two);
	table_cache_set_limits(TABLE_CACHE_MIN_ROWS, TABLE_CACHE_MAX_BYTES);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_and_copy),
		cmocka_unit_test(test_same_build_id_other_cfi),
		cmocka_unit_test(test_other_stitch_other_digest),
		cmocka_unit_test(test_torn_entry),
		cmocka_unit_test(test_bad_rule),
		cmocka_unit_test(test_rows_out_of_order),
		cmocka_unit_test(test_bad_digest),
		cmocka_unit_test(test_link_not_followed),
		cmocka_unit_test(test_writable_by_others),
		cmocka_unit_test(test_small_table_not_written),
		cmocka_unit_test(test_least_recently_read_go),
		cmocka_unit_test(test_read_back_marked_again),
	};
	char cmd[128];
	int rc;

	elf_util_init();
	find_mapped("/libc.so.6", libc, sizeof(libc));
	find_mapped("/ld-linux-", ldso, sizeof(ldso));
	assert_non_null(mkdtemp(dir));
	setenv("STITCH_CACHE_DIR", dir, 1);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		rc = 1;
	return rc;
}
