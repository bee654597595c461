/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The part of a sleeping thread's user stack the iterator could not copy
 * (its record holds 28 KiB at most), read afterwards: see stack_rest.c.
 */
#ifndef STITCH_SNAPSHOT_STACK_REST_H
#define STITCH_SNAPSHOT_STACK_REST_H

#include <stddef.h>
#include <stdint.h>

/*
 * The stack of thread tid (process pid) from sp up: the copied bytes, then
 * what follows them in its memory now, up to the first unreadable page or
 * 4 MiB.  NULL unless the thread has not run since the copy was taken (its
 * CPU time is still cpu_ns), so that the two parts are one stack.  The
 * caller frees it; *len is its length.
 */
uint8_t *stack_rest_read(uint32_t pid, uint32_t tid, uint64_t cpu_ns, uint64_t sp,
			 const uint8_t *copied, size_t copied_len, size_t *len);

#endif /* STITCH_SNAPSHOT_STACK_REST_H */
