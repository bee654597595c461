/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -e alloc --inuse, kernel side (see alloc_inuse.h): a sampled
 * allocation's block numbered at its entry point, filed under its address
 * at its return, taken out at its free.  The programs on the allocator's
 * returns and on free are in capture.bpf.c, beside its entry points.
 */
#ifndef STITCH_CAPTURE_ALLOC_INUSE_BPF_H
#define STITCH_CAPTURE_ALLOC_INUSE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "capture/alloc.h"
#include "capture/alloc_inuse.h"
#include "capture/samples.bpf.h"
#include "capture/stats.bpf.h"

/* Set by user space before load. */
const volatile bool alloc_inuse;
/*
 * Set by user space when the recording stops, before its programs are
 * detached (~100 ms a uprobe here): the blocks are what was in use then,
 * not less what a command stopped with it frees as it exits.
 */
volatile bool alloc_stopped;

/* tid -> its sampled allocation not returned yet. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, ALLOC_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct alloc_inflight);
} alloc_inflight SEC(".maps");

/* The blocks not freed yet (user space sizes it to 1 without --inuse). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ALLOC_LIVE_MAX);
	__type(key, struct alloc_live_key);
	__type(value, struct alloc_live_block);
} alloc_live SEC(".maps");

/* tid -> its realloc of a tracked block not returned yet. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, ALLOC_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct alloc_realloc);
} alloc_reallocs SEC(".maps");

/* tid -> its mremap not returned yet: the old range it takes if it succeeds. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, ALLOC_MAX_THREADS);
	__type(key, __u32);
	__type(value, struct alloc_realloc);
} alloc_remaps SEC(".maps");

/* tgid -> when its memory went (user space sizes it to 1 without --inuse). */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, ALLOC_GONE_MAX);
	__type(key, __u32);
	__type(value, struct alloc_gone);
} alloc_gone SEC(".maps");

/* Each CPU's count of the block numbers it gave. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} alloc_block_seq SEC(".maps");

/*
 * The stack pointer an allocator call's return leaves, seen at its entry:
 * x86-64's ret pops the return address the call pushed, arm64's leaves sp.
 */
#if defined(__TARGET_ARCH_x86)
#define ALLOC_RET_SP_DELTA 8
#else
#define ALLOC_RET_SP_DELTA 0
#endif

/*
 * The current thread's sampled allocation of size bytes, weighing bytes
 * (memptr: where posix_memalign puts its address; mapped: an mmap's) gets
 * its number and waits for its return: the number, or 0 without --inuse
 * or if it cannot wait.
 */
static __always_inline __u64 alloc_block_begin(struct pt_regs *ctx, __u64 bytes, __u64 size,
					      __u64 memptr, bool mapped)
{
	__u32 zero = 0, tid = (__u32)bpf_get_current_pid_tgid();
	struct alloc_inflight f = {}, *outer;
	__u64 *seq;

	if (!alloc_inuse)
		return 0;
	f.ret_sp = PT_REGS_SP(ctx) + ALLOC_RET_SP_DELTA;
	f.begun_ns = bpf_ktime_get_ns();
	/*
	 * Called by a sampled allocator call still running (malloc's own
	 * sbrk or mmap, a leaf user space drops): that call's block waits
	 * for its return, which this one must not take.
	 */
	outer = bpf_map_lookup_elem(&alloc_inflight, &tid);
	if (outer && outer->ret_sp > f.ret_sp &&
	    f.begun_ns - outer->begun_ns < ALLOC_INFLIGHT_STALE_NS)
		return 0;
	seq = bpf_map_lookup_elem(&alloc_block_seq, &zero);
	if (!seq)
		return 0;
	*seq += 1;
	f.block = *seq << ALLOC_BLOCK_CPU_BITS | bpf_get_smp_processor_id();
	f.bytes = bytes;
	f.size = size;
	f.mapped = mapped;
	f.memptr = memptr;
	if (bpf_map_update_elem(&alloc_inflight, &tid, &f, BPF_ANY)) {
		count(STAT_INUSE_LOST);
		return 0;
	}
	return f.block;
}

/* An allocator function returned ret: the thread's waiting block, if this call is its, is filed. */
static __always_inline void alloc_block_returned(struct pt_regs *ctx, __u64 ret)
{
	__u64 id = bpf_get_current_pid_tgid();
	__u32 tid = (__u32)id;
	struct alloc_live_block b;
	struct alloc_live_key k = { .tgid = id >> 32 };
	struct alloc_inflight *f = bpf_map_lookup_elem(&alloc_inflight, &tid);

	if (!f || f->ret_sp != PT_REGS_SP(ctx) || alloc_stopped)
		return;
	b.block = f->block;
	b.bytes = f->bytes;
	b.size = f->size;
	b.mapped = f->mapped;
	b.head = 0;
	b.time_ns = bpf_ktime_get_ns();
	if (f->memptr) {
		/* posix_memalign: 0 and the address in *memptr, or an error and nothing */
		if (ret || bpf_probe_read_user(&k.addr, sizeof(k.addr), (void *)f->memptr))
			k.addr = 0;
	} else {
		k.addr = ret;
	}
	bpf_map_delete_elem(&alloc_inflight, &tid);
	/* mmap's and sbrk's failure: (void *)-1, no block */
	if (k.addr == (__u64)-1)
		k.addr = 0;
	if (k.addr && bpf_map_update_elem(&alloc_live, &k, &b, BPF_ANY))
		count(STAT_INUSE_LOST);
}

/* The current process frees addr: its block, if it was filed, is out, and user space told. */
static __always_inline void alloc_block_freed(__u64 addr)
{
	struct alloc_live_key k = { .tgid = bpf_get_current_pid_tgid() >> 32, .addr = addr };
	struct alloc_freed rec = { .hdr = { RING_ALLOC_FREED, sizeof(rec) } };
	struct alloc_live_block *b;

	if (!addr || alloc_stopped)
		return;
	b = bpf_map_lookup_elem(&alloc_live, &k);
	if (!b)
		return;
	rec.block = b->block;
	if (bpf_map_delete_elem(&alloc_live, &k))
		return;		/* another thread's free of it took it: a double free */
	/* Lost, the block's stack stays named in user space: memory, not a wrong figure. */
	bpf_ringbuf_output(&samples, &rec, sizeof(rec), 0);
}

/*
 * The current process unmaps [addr, addr + len): a tracked mapping that
 * starts there and is no longer is freed; any other range goes to user
 * space, which takes it out of the mappings it overlaps.  A mapping whose
 * head it took is filed again past it: a new mapping there (the kernel
 * gives the lowest hole that fits) must not take its key.  The kernel
 * unmaps whole pages: munmap(addr, 4097) takes two, and the mapping's rest
 * starts after them (filed 4095 bytes short, the next cut there missed it).
 */
static __always_inline void alloc_block_unmapped(__u64 addr, __u64 len)
{
	struct alloc_live_key k = { .tgid = bpf_get_current_pid_tgid() >> 32, .addr = addr };
	struct alloc_unmapped rec = { .hdr = { RING_ALLOC_UNMAPPED, sizeof(rec) } };
	struct alloc_live_block *b, rest;

	len = (len + STITCH_PAGE_SIZE - 1) & ~(__u64)(STITCH_PAGE_SIZE - 1);
	if (!addr || !len || alloc_stopped)
		return;
	b = bpf_map_lookup_elem(&alloc_live, &k);
	if (b && b->head < b->size && b->size - b->head <= len) {
		alloc_block_freed(addr);
		return;
	}
	if (b && b->head < b->size) {
		rest = *b;
		rest.head += len;
		if (!bpf_map_delete_elem(&alloc_live, &k)) {
			k.addr = addr + len;
			if (bpf_map_update_elem(&alloc_live, &k, &rest, BPF_NOEXIST))
				count(STAT_INUSE_LOST);
		}
	}
	rec.tgid = k.tgid;
	rec.addr = addr;
	rec.len = len;
	rec.time_ns = bpf_ktime_get_ns();
	if (bpf_ringbuf_output(&samples, &rec, sizeof(rec), 0))
		count(STAT_UNMAPS_LOST);
}

/*
 * realloc(addr, size) begins: if addr is a tracked block, the thread waits
 * for the call's return to know whether it went (alloc_realloc).
 */
static __always_inline void alloc_realloc_begin(struct pt_regs *ctx, __u64 addr, __u64 size)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct alloc_live_key k = { .tgid = bpf_get_current_pid_tgid() >> 32, .addr = addr };
	struct alloc_realloc r = { .addr = addr, .size = size };

	if (!addr || alloc_stopped || !bpf_map_lookup_elem(&alloc_live, &k))
		return;
	r.ret_sp = PT_REGS_SP(ctx) + ALLOC_RET_SP_DELTA;
	bpf_map_update_elem(&alloc_reallocs, &tid, &r, BPF_ANY);
}

/*
 * A realloc returned ret: the old block it began with is out if the call
 * moved, resized or freed it, kept if it failed.  Before the new block is
 * filed (alloc_block_returned): resized in place, it has the old address.
 */
static __always_inline void alloc_realloc_returned(struct pt_regs *ctx, __u64 ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct alloc_realloc *r = bpf_map_lookup_elem(&alloc_reallocs, &tid);
	__u64 addr;
	bool gone;

	if (!r || r->ret_sp != PT_REGS_SP(ctx))
		return;
	addr = r->addr;
	gone = ret || !r->size;
	bpf_map_delete_elem(&alloc_reallocs, &tid);
	if (gone)
		alloc_block_freed(addr);
}

/*
 * mremap(addr, len, ...) begins, one that takes [addr, addr + len) away if
 * it succeeds (moved, grown or shrunk; not MREMAP_DONTUNMAP's): the thread
 * waits for its return (alloc_remaps).
 */
static __always_inline void alloc_remap_begin(struct pt_regs *ctx, __u64 addr, __u64 len)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct alloc_realloc r = { .addr = addr, .size = len };

	if (!addr || !len || alloc_stopped)
		return;
	r.ret_sp = PT_REGS_SP(ctx) + ALLOC_RET_SP_DELTA;
	bpf_map_update_elem(&alloc_remaps, &tid, &r, BPF_ANY);
}

/*
 * An mremap returned ret: unless it failed (MAP_FAILED), its old range is
 * unmapped, as munmap's would be.  Before the new mapping is filed
 * (alloc_block_returned): shrunk or grown in place, it has the old address.
 */
static __always_inline void alloc_remap_returned(struct pt_regs *ctx, __u64 ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct alloc_realloc *r = bpf_map_lookup_elem(&alloc_remaps, &tid);
	__u64 addr, len;

	if (!r || r->ret_sp != PT_REGS_SP(ctx))
		return;
	addr = r->addr;
	len = r->size;
	bpf_map_delete_elem(&alloc_remaps, &tid);
	if (ret != (__u64)-1)
		alloc_block_unmapped(addr, len);
}

/* Process tgid's memory went now, at its exec or its exit (alloc_gone). */
static __always_inline void alloc_process_gone(__u32 tgid, bool exec)
{
	struct alloc_gone fresh = {}, *g;
	__u64 now = bpf_ktime_get_ns();

	if (!alloc_inuse || alloc_stopped)
		return;
	g = bpf_map_lookup_elem(&alloc_gone, &tgid);
	if (!g) {
		bpf_map_update_elem(&alloc_gone, &tgid, &fresh, BPF_NOEXIST);
		g = bpf_map_lookup_elem(&alloc_gone, &tgid);
		if (!g)
			return;
	}
	if (exec)
		g->exec_ns = now;
	else
		g->exit_ns = now;
}

#endif /* STITCH_CAPTURE_ALLOC_INUSE_BPF_H */
