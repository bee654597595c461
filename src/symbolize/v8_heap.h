/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading a V8 process's heap (v8_names.c, v8_inlined.c): every read
 * bounded and checked, a failure an error, never a guess.  The process's
 * memory is its own to fake: what these return is checked by its type
 * before it is believed.
 */
#ifndef STITCH_SYMBOLIZE_V8_HEAP_H
#define STITCH_SYMBOLIZE_V8_HEAP_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "symbolize/v8_meta.h"

static inline int v8_rd(uint32_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)(uintptr_t)addr, len };

	if (!addr || addr + len < addr)
		return -EFAULT;
	return process_vm_readv((pid_t)pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

/* A tagged pointer to a heap object (in user space's half). */
static inline bool v8_is_heap(uint64_t v)
{
	return (v & 3) == 1 && (v >> 48) == 0;
}

/* A tagged field of heap object obj. */
static inline int v8_field(uint32_t pid, uint64_t obj, uint32_t off, uint64_t *v)
{
	return v8_rd(pid, obj - 1 + off, v, sizeof(*v));
}

/* obj's instance type, or -1 if obj is no heap object or cannot be read. */
static inline int v8_type_of(uint32_t pid, const struct v8_meta *m, uint64_t obj)
{
	uint64_t map;
	uint16_t t;

	if (!v8_is_heap(obj) || v8_field(pid, obj, m->obj_map, &map) || !v8_is_heap(map) ||
	    v8_rd(pid, map - 1 + m->map_type, &t, sizeof(t)))
		return -1;
	return t;
}

static inline bool v8_smi(const struct v8_meta *m, uint64_t v, int64_t *out)
{
	if (v & 1)
		return false;
	*out = (int64_t)v >> m->smi_shift;
	return true;
}

#endif /* STITCH_SYMBOLIZE_V8_HEAP_H */
