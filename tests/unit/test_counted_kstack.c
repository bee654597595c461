// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel stacks of counted events (counted_kstack_get, capture/unwind_in_kernel.c):
 * ids resolved in the map of their generation, never in a later one's.
 * Needs root and the bpf() system call (one real hash map).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <bpf/bpf.h>

#include "capture/unwind_in_kernel.h"

/*
 * Kernel stack ids are looked up in the map of their generation's parity,
 * and only while that map holds their generation: once emptied for a later
 * one (counted_kstacks_flip), an old id gives no frames rather than the stack
 * that took its place.  No map here (fd -1): a lookup that happens fails.
 */
static void test_kstack_of_a_cleared_generation(void **state)
{
	struct counted_fds fds = { .kstacks = { -1, -1 }, .kstacks_gen = { 4, 3 } };
	uint64_t kips[COUNTED_KSTACK_DEPTH];
	int fd;

	(void)state;
	assert_int_equal(counted_kstack_get(&fds, 7, 2, kips), -ENOENT);
	assert_int_equal(counted_kstack_get(&fds, 7, 1, kips), -ENOENT);
	assert_int_equal(counted_kstack_get(&fds, -14, 4, kips), -ENOENT);
	/* Generation 4's ids go to map 0: a real map answers for them. */
	fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, sizeof(int32_t), sizeof(kips), 4, NULL);
	assert_true(fd >= 0);	/* as root, as the tests run */
	memset(kips, 0xab, sizeof(kips));
	assert_int_equal(bpf_map_update_elem(fd, &(int32_t){ 7 }, kips, BPF_ANY), 0);
	fds.kstacks[0] = fd;
	memset(kips, 0, sizeof(kips));
	assert_int_equal(counted_kstack_get(&fds, 7, 4, kips), 0);
	assert_true(kips[0] == 0xababababababababull);
	assert_int_equal(counted_kstack_get(&fds, 7, 2, kips), -ENOENT);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kstack_of_a_cleared_generation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
