// SPDX-License-Identifier: GPL-2.0
/*
 * -e alloc's leaves (capture/alloc_leaves.h): an mmap or sbrk an
 * allocator's file called is dropped from the stacks; the program's own,
 * and an allocator function libc calls for its own reasons (strdup's
 * malloc), are kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "capture/alloc_leaves.h"

#define MMAP_VADDR 0x101990
#define MALLOC_VADDR 0xa5060

static struct binary libc = { .dev = 8, .ino = 100 };
static struct binary jemalloc = { .dev = 8, .ino = 200 };
static struct binary prog = { .dev = 8, .ino = 300 };
static struct binary container_libc = { .dev = 9, .ino = 100 };	/* same inode, other fs */

/* A stack of two user frames, innermost first: the leaf's entry, its caller's return. */
static void add(struct stack_table *t, uint32_t tid, struct binary *leaf_bin, uint64_t leaf,
		struct binary *caller, uint64_t bytes)
{
	struct {
		struct stack_key k;
		struct uframe u[2];
	} key;

	memset(&key, 0, sizeof(key));
	key.k.pid = key.k.tid = tid;
	key.k.nuser = 2;
	key.u[0] = (struct uframe){ .bin = leaf_bin, .addr = leaf, .kind = UFRAME_ELF, .exact = 1 };
	key.u[1] = (struct uframe){ .bin = caller, .addr = 0x1234, .kind = UFRAME_ELF };
	assert_int_equal(stacks_add_n(t, &key.k, sizeof(key), bytes), 0);
}

static void test_inner_leaves_dropped(void **state)
{
	struct alloc_leaves l;
	struct stack_table t;

	(void)state;
	memset(&l, 0, sizeof(l));
	assert_true(alloc_leaves_file(&l, libc.dev, libc.ino));
	assert_true(alloc_leaves_file(&l, jemalloc.dev, jemalloc.ino));
	assert_true(alloc_leaves_site(&l, libc.dev, libc.ino, MMAP_VADDR));
	assert_int_equal(stacks_init(&t), 0);
	add(&t, 1, &libc, MMAP_VADDR, &prog, 1000);		/* the program's: kept */
	add(&t, 2, &libc, MMAP_VADDR, &libc, 2000);		/* malloc's own: dropped */
	add(&t, 3, &libc, MMAP_VADDR, &jemalloc, 4000);		/* jemalloc's: dropped */
	add(&t, 4, &libc, MALLOC_VADDR, &libc, 8000);		/* strdup's malloc: kept */
	add(&t, 5, &container_libc, MMAP_VADDR, &container_libc, 16000);	/* not attached */
	assert_int_equal(alloc_leaves_drop_inner(&l, &t), 2);
	assert_int_equal(t.map.count, 3);
	assert_int_equal(t.total, 1000 + 8000 + 16000);
	stacks_free(&t);
}

/* Nothing attached as a leaf: nothing dropped, even a stack that looks like one. */
static void test_no_sites_no_drop(void **state)
{
	struct alloc_leaves l;
	struct stack_table t;

	(void)state;
	memset(&l, 0, sizeof(l));
	assert_true(alloc_leaves_file(&l, libc.dev, libc.ino));
	assert_int_equal(stacks_init(&t), 0);
	add(&t, 1, &libc, MMAP_VADDR, &libc, 1000);
	assert_int_equal(alloc_leaves_drop_inner(&l, &t), 0);
	assert_int_equal(t.total, 1000);
	stacks_free(&t);
}

/* The tables are bounded: one more file or site than they hold is refused, not written. */
static void test_bounded(void **state)
{
	struct alloc_leaves l;
	int i;

	(void)state;
	memset(&l, 0, sizeof(l));
	for (i = 0; i < ALLOC_LEAVES_MAX; i++) {
		assert_true(alloc_leaves_file(&l, 1, i));
		assert_true(alloc_leaves_site(&l, 1, i, i));
	}
	assert_false(alloc_leaves_file(&l, 1, 999));
	assert_false(alloc_leaves_site(&l, 1, 999, 0));
	assert_int_equal(l.nfiles, ALLOC_LEAVES_MAX);
	assert_int_equal(l.nsites, ALLOC_LEAVES_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_inner_leaves_dropped),
		cmocka_unit_test(test_no_sites_no_drop),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
