// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for the intrusive hash table: growth keeps every entry reachable,
 * equal hashes with different keys stay distinct, removal unlinks exactly
 * the node given, find-or-add adds once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "util/hashmap.h"

struct item {
	struct hmap_node node;
	uint64_t key;
	int value;
};

static bool item_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct item *)n)->key == *(const uint64_t *)key;
}

static struct item *find(const struct hmap *m, uint64_t hash, uint64_t key)
{
	return (struct item *)hmap_find(m, hash, item_eq, &key);
}

/* Number of nodes reachable through hmap_for_each: must match count. */
static size_t walk_count(const struct hmap *m)
{
	struct hmap_node *n;
	size_t i, k = 0;

	hmap_for_each(m, i, n)
		k++;
	return k;
}

static void test_init_sizes(void **state)
{
	struct hmap m;

	assert_int_equal(hmap_init(&m, 0), 0);
	assert_int_equal(m.nbuckets, 16);	/* never below the minimum */
	assert_int_equal(m.count, 0);
	hmap_free(&m);
	assert_int_equal(hmap_init(&m, 1000), 0);
	assert_int_equal(m.nbuckets, 1024);	/* next power of two */
	hmap_free(&m);
	assert_null(m.buckets);
	assert_int_equal(m.nbuckets, 0);
	/* A freed (zeroed) table answers lookups without touching buckets. */
	assert_null(find(&m, 1, 1));
}

static void test_many_grow(void **state)
{
	enum { N = 20000 };
	struct item *items = calloc(N, sizeof(*items));
	struct hmap m;
	size_t i;

	assert_non_null(items);
	assert_int_equal(hmap_init(&m, 4), 0);
	for (i = 0; i < N; i++) {
		items[i].key = i * 7919 + 3;
		items[i].value = (int)i;
		hmap_insert(&m, &items[i].node, hash_u64(items[i].key));
	}
	assert_int_equal(m.count, N);
	/* Grown: load factor stays at most one. */
	assert_true(m.nbuckets >= N);
	assert_int_equal(m.nbuckets & (m.nbuckets - 1), 0);
	assert_int_equal(walk_count(&m), N);
	for (i = 0; i < N; i++) {
		struct item *it = find(&m, hash_u64(i * 7919 + 3), i * 7919 + 3);

		assert_ptr_equal(it, &items[i]);
	}
	/* Absent keys (between the inserted ones) are not found. */
	for (i = 0; i < 1000; i++)
		assert_null(find(&m, hash_u64(i * 7919 + 4), i * 7919 + 4));

	/* Remove every other entry; the rest stay reachable. */
	for (i = 0; i < N; i += 2)
		hmap_remove(&m, &items[i].node);
	assert_int_equal(m.count, N / 2);
	assert_int_equal(walk_count(&m), N / 2);
	for (i = 0; i < N; i++) {
		struct item *it = find(&m, hash_u64(items[i].key), items[i].key);

		if (i % 2)
			assert_ptr_equal(it, &items[i]);
		else
			assert_null(it);
	}
	hmap_free(&m);
	free(items);
}

static void test_collisions(void **state)
{
	struct item it[5];
	struct hmap m;
	int i;

	assert_int_equal(hmap_init(&m, 16), 0);
	/* Same hash, different keys: the equality test must tell them apart. */
	for (i = 0; i < 5; i++) {
		it[i].key = 100 + i;
		it[i].value = i;
		hmap_insert(&m, &it[i].node, 42);
	}
	for (i = 0; i < 5; i++)
		assert_ptr_equal(find(&m, 42, 100 + i), &it[i]);
	assert_null(find(&m, 42, 99));
	/* Right key, wrong hash: not found (the hash is part of identity). */
	assert_null(find(&m, 43, 100));
	/* Different hashes in the same bucket (16 buckets: 42 and 58 share one). */
	{
		struct item other = { .key = 100 };

		hmap_insert(&m, &other.node, 42 + 16);
		assert_ptr_equal(find(&m, 42, 100), &it[0]);
		assert_ptr_equal(find(&m, 58, 100), &other);
		hmap_remove(&m, &other.node);
		assert_null(find(&m, 58, 100));
	}
	/* Remove from the middle, head and tail of the chain. */
	hmap_remove(&m, &it[2].node);
	assert_null(find(&m, 42, 102));
	hmap_remove(&m, &it[4].node);	/* inserted last: chain head */
	hmap_remove(&m, &it[0].node);	/* inserted first: chain tail */
	assert_int_equal(m.count, 2);
	assert_ptr_equal(find(&m, 42, 101), &it[1]);
	assert_ptr_equal(find(&m, 42, 103), &it[3]);
	/* Removing a node that is not in the table changes nothing. */
	hmap_remove(&m, &it[0].node);
	assert_int_equal(m.count, 2);
	assert_int_equal(walk_count(&m), 2);
	hmap_free(&m);
}

static void test_duplicates(void **state)
{
	struct item a = { .key = 7 }, b = { .key = 7 };
	struct hmap m;

	assert_int_equal(hmap_init(&m, 0), 0);
	/* Insert does not deduplicate: both are kept, find returns one. */
	hmap_insert(&m, &a.node, hash_u64(7));
	hmap_insert(&m, &b.node, hash_u64(7));
	assert_int_equal(m.count, 2);
	assert_non_null(find(&m, hash_u64(7), 7));
	hmap_remove(&m, &b.node);
	assert_ptr_equal(find(&m, hash_u64(7), 7), &a);
	hmap_remove(&m, &a.node);
	assert_null(find(&m, hash_u64(7), 7));
	assert_int_equal(m.count, 0);
	hmap_free(&m);
}

static void test_find_or_add(void **state)
{
	uint64_t key = 42;
	struct item *first, *again;
	struct hmap m;
	bool added;

	assert_int_equal(hmap_init(&m, 0), 0);
	/* New: zeroed past the node, inserted, and said to be new. */
	first = (struct item *)hmap_find_or_add(&m, hash_u64(key), item_eq, &key, sizeof(*first),
						&added);
	assert_non_null(first);
	assert_true(added);
	assert_int_equal(first->key, 0);
	assert_int_equal(first->value, 0);
	assert_int_equal(m.count, 1);
	first->key = key;
	first->value = 5;
	/* Found: the same record, nothing added. */
	again = (struct item *)hmap_find_or_add(&m, hash_u64(key), item_eq, &key, sizeof(*again),
						&added);
	assert_ptr_equal(again, first);
	assert_false(added);
	assert_int_equal(again->value, 5);
	assert_int_equal(m.count, 1);
	hmap_free_all(&m);
}

static void test_hash_bytes(void **state)
{
	const char a[] = "abcdefghijklmnopq", b[] = "abcdefghijklmnopr";
	uint64_t h1 = hash_bytes(a, 17, 0);

	assert_int_equal(h1, hash_bytes(a, 17, 0));	/* deterministic */
	/* The tail byte (past the last full word) counts. */
	assert_int_not_equal(h1, hash_bytes(b, 17, 0));
	/* Length and seed count: a prefix or another seed hashes elsewhere. */
	assert_int_not_equal(h1, hash_bytes(a, 16, 0));
	assert_int_not_equal(h1, hash_bytes(a, 17, 1));
	assert_int_not_equal(hash_bytes("", 0, 0), hash_bytes("\0", 1, 0));
	assert_int_not_equal(hash_u64(1), hash_u64(2));
}

struct pid_item {
	struct hmap_node node;
	uint32_t pid;
	uint32_t n;
};

static unsigned int released;

static void count_release(struct hmap_node *n)
{
	released++;
	free(n);
}

/* Every record of one pid goes, in chains of equal hashes too; the rest stay. */
static void test_remove_pid(void **state)
{
	struct hmap m;
	struct hmap_node *n;
	uint32_t i, left[3] = { 0 };
	size_t b;

	assert_int_equal(hmap_init(&m, 4), 0);
	for (i = 0; i < 600; i++) {
		struct pid_item *it = malloc(sizeof(*it));

		assert_non_null(it);
		it->pid = i % 3;
		it->n = i;
		/* Few hashes: long chains with the pids interleaved. */
		hmap_insert(&m, &it->node, i % 7);
	}
	assert_int_equal(hmap_remove_pid(&m, offsetof(struct pid_item, pid), 1, NULL), 200);
	assert_int_equal(m.count, 400);
	assert_int_equal(walk_count(&m), 400);
	released = 0;
	assert_int_equal(hmap_remove_pid(&m, offsetof(struct pid_item, pid), 2, count_release),
			 200);
	assert_int_equal(released, 200);
	assert_int_equal(hmap_remove_pid(&m, offsetof(struct pid_item, pid), 7, NULL), 0);
	hmap_for_each(&m, b, n)
		left[((struct pid_item *)n)->pid]++;
	assert_int_equal(left[0], 200);
	assert_int_equal(left[1] + left[2], 0);
	hmap_free_all(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_sizes),
		cmocka_unit_test(test_many_grow),
		cmocka_unit_test(test_collisions),
		cmocka_unit_test(test_duplicates),
		cmocka_unit_test(test_find_or_add),
		cmocka_unit_test(test_hash_bytes),
		cmocka_unit_test(test_remove_pid),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
