// SPDX-License-Identifier: GPL-2.0
/* A JVM's perf data (symbolize/hotspot_perfdata.h): a counter found, and bytes that lie. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "symbolize/hotspot_perfdata.h"

static void put32(uint8_t *p, int32_t v)
{
	memcpy(p, &v, 4);
}

/*
 * Perf data as OpenJDK 17 writes it (perfMemory.hpp): the prologue, then
 * entries of a 20-byte header, the name, the value (8-aligned).  Returns
 * the bytes used; *value_at: the offset of the last entry's value.
 */
static size_t build(uint8_t *buf, size_t cap, const char *const *names, const char *types,
		    int n, size_t *value_at)
{
	static const uint8_t magic[4] = { 0xca, 0xfe, 0xc0, 0xc0 };
	size_t at = 32;
	int i;

	memset(buf, 0, cap);
	memcpy(buf, magic, 4);
	buf[4] = 1;		/* little-endian */
	buf[5] = 2;		/* version 2.0 */
	buf[7] = 1;		/* accessible */
	put32(buf + 24, 32);
	put32(buf + 28, n);
	for (i = 0; i < n; i++) {
		size_t name_len = strlen(names[i]) + 1, doff = (20 + name_len + 7) & ~(size_t)7;
		size_t len = doff + 8;

		put32(buf + at, (int32_t)len);
		put32(buf + at + 4, 20);
		buf[at + 12] = (uint8_t)types[i];
		put32(buf + at + 16, (int32_t)doff);
		memcpy(buf + at + 20, names[i], name_len);
		*value_at = at + doff;
		at += len;
	}
	put32(buf + 8, (int32_t)at);
	return at;
}

static const char *const names[] = { "sun.rt._sync_Inflations", "java.cls.loadedClasses",
				     "java.cls.unloadedClasses" };

static void test_counter_found(void **state)
{
	uint8_t buf[512];
	size_t used, value_at;
	uint64_t off = 0;

	(void)state;
	used = build(buf, sizeof(buf), names, "JJJ", 3, &value_at);
	assert_int_equal(hotspot_perfdata_find(buf, used, "java.cls.unloadedClasses", &off), 0);
	assert_int_equal(off, value_at);
	/* A prefix of a name is not the name. */
	assert_int_equal(hotspot_perfdata_find(buf, used, "java.cls.unloaded", &off), -ENOENT);
	assert_int_equal(hotspot_perfdata_find(buf, used, "java.cls.unloadedClassesX", &off),
			 -ENOENT);
}

/* What a process may write instead: each lie makes it no counter, never a read outside. */
static void test_lies(void **state)
{
	uint8_t buf[512];
	size_t used, value_at;
	uint64_t off;
	const char *name = "java.cls.unloadedClasses";
	size_t last = 0, at = 32;
	int i;

	(void)state;
	used = build(buf, sizeof(buf), names, "JJJ", 3, &value_at);
	for (i = 0; i < 2; i++) {
		int32_t len;

		memcpy(&len, buf + at, 4);
		at += (size_t)len;
	}
	last = at;
	/* Not a long, a vector, a value past its entry, an entry past the data. */
	buf[last + 12] = 'B';
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), -ENOENT);
	buf[last + 12] = 'J';
	put32(buf + last + 8, 4);
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), -ENOENT);
	put32(buf + last + 8, 0);
	put32(buf + last + 16, 1000);
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), -ENOENT);
	put32(buf + last + 16, (int32_t)(value_at - last));
	put32(buf + last, 4096);
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), -ENOENT);
	/* An entry of length 0 would never move on. */
	put32(buf + last, 0);
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), -ENOENT);
	used = build(buf, sizeof(buf), names, "JJJ", 3, &value_at);
	/* The name's offset past its entry, a name not ended inside it. */
	put32(buf + last + 4, 4000);
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), -ENOENT);
	used = build(buf, sizeof(buf), names, "JJJ", 3, &value_at);
	/* More bytes used than given, a wrong magic, big-endian, a cut copy. */
	assert_int_equal(hotspot_perfdata_find(buf, used - 1, name, &off), -ENOENT);
	buf[0] = 0;
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), -ENOENT);
	buf[0] = 0xca;
	buf[4] = 0;
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), -ENOENT);
	buf[4] = 1;
	assert_int_equal(hotspot_perfdata_find(buf, 16, name, &off), -ENOENT);
	/* The count of entries says fewer: the counter is not reached. */
	put32(buf + 28, 2);
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), -ENOENT);
	put32(buf + 28, -1);
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), -ENOENT);
	put32(buf + 28, 3);
	assert_int_equal(hotspot_perfdata_find(buf, used, name, &off), 0);
}

/* This process maps no perf data: no counter. */
static void test_no_jvm(void **state)
{
	(void)state;
	assert_int_equal(hotspot_perfdata_counter((uint32_t)getpid(), "java.cls.unloadedClasses"), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_found),
		cmocka_unit_test(test_lies),
		cmocka_unit_test(test_no_jvm),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
