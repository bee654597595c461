// SPDX-License-Identifier: GPL-2.0
/*
 * The rest of a sleeping thread's user stack.  A bpf_iter record holds
 * 28 KiB of stack at most, and some threads keep their outer frames much
 * further up: Ruby 3.1's thread start function reserves 1 MiB of its
 * stack (that one frame is 0x1001c0 bytes, measured with gdb), so its
 * threads' copies ended at [truncated] three frames above the script's.
 *
 * A thread that has not run since the iterator copied its stack cannot
 * have changed its own frames: read the rest now (process_vm_readv, which
 * does not stop it) and keep it only if the thread's CPU time, schedstat's
 * first field (se.sum_exec_runtime, what the iterator read), is the same
 * after the read as in the record.  Any run in between adds to it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "snapshot/stack_rest.h"

#define PAGE 4096
#define REST_MAX (4u << 20)		/* 1,024 pages: one process_vm_readv (IOV_MAX) */

static int cpu_time_now(uint32_t pid, uint32_t tid, uint64_t *ns)
{
	char path[64];
	FILE *f;
	int ok;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/schedstat", pid, tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	ok = fscanf(f, "%" SCNu64, ns) == 1;
	fclose(f);
	return ok ? 0 : -1;
}

uint8_t *stack_rest_read(uint32_t pid, uint32_t tid, uint64_t cpu_ns, uint64_t sp,
			 const uint8_t *copied, size_t copied_len, size_t *len)
{
	struct iovec remote[REST_MAX / PAGE], local;
	uint64_t from = sp + copied_len, page = from & ~(uint64_t)(PAGE - 1), now = 0;
	size_t n;
	uint8_t *buf;
	ssize_t got;

	buf = malloc(copied_len + REST_MAX);
	if (!buf)
		return NULL;
	memcpy(buf, copied, copied_len);
	/* One remote element per page: the read stops at the first unreadable one. */
	remote[0].iov_base = (void *)(uintptr_t)from;
	remote[0].iov_len = page + PAGE - from;
	for (n = 1; n < REST_MAX / PAGE; n++) {
		remote[n].iov_base = (void *)(uintptr_t)(page + n * PAGE);
		remote[n].iov_len = PAGE;
	}
	local.iov_base = buf + copied_len;
	local.iov_len = REST_MAX;
	got = process_vm_readv(pid, &local, 1, remote, n, 0);
	if (got <= 0 || cpu_time_now(pid, tid, &now) || now != cpu_ns) {
		free(buf);
		return NULL;
	}
	*len = copied_len + got;
	return buf;
}
