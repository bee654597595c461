/* SPDX-License-Identifier: GPL-2.0 */
/*
 * record -e alloc --inuse: the sampled allocations not freed yet, kept by
 * the kernel side (alloc_inuse.bpf.h) under the block's address and named
 * by user space (alloc_live.c) by the stack their sample sent.  What both
 * sides share.  Includable from BPF C and from user space.
 *
 * A sampled allocation gets a block number at its entry point.  Its sample
 * goes to user space with an alloc_weight record that carries the number;
 * its return probe files the number under the address the allocator
 * returned (alloc_live); a free of that address takes it out and says so
 * (alloc_freed).  What alloc_live still holds when the recording ends is
 * in use, named by its block's stack.  A free of an address never filed
 * (allocated before the recording, not sampled, never allocated, freed
 * twice) finds nothing and does nothing.
 */
#ifndef STITCH_CAPTURE_ALLOC_INUSE_H
#define STITCH_CAPTURE_ALLOC_INUSE_H

#ifndef __bpf__
#include <linux/types.h>
#endif

#include "capture/ring_record.h"

/*
 * Blocks held at once.  Preallocated (a run-time allocated hash map makes
 * 5.10's verifier warn in dmesg): ~110 bytes each, 7 MB.  At the default
 * 512K sampling they stand for ~32 GiB in use; past that, blocks are not
 * filed, counted (STAT_INUSE_LOST), and the figures said to be a lower bound.
 */
#define ALLOC_LIVE_MAX 65536

/* A block number's low bits: the CPU that gave it, above them its count there. */
#define ALLOC_BLOCK_CPU_BITS 16

struct alloc_live_key {
	__u32 tgid;		/* addresses are each process's own */
	__u32 pad;		/* zero: the key is hashed whole */
	__u64 addr;
};

struct alloc_live_block {
	__u64 block;		/* its number, as its alloc_weight record said */
	__u64 bytes;		/* what it weighs (alloc.h) */
	__u64 time_ns;		/* CLOCK_MONOTONIC at its allocator's return */
	__u64 size;		/* what was asked: its address range */
	__u64 mapped;		/* an mmap's: munmap may take part of it (alloc_unmapped) */
	/*
	 * A mapping's bytes munmap took off its head: it is filed under
	 * its first address still mapped (addr + head), so that a new
	 * mapping where its head was has a key of its own.
	 */
	__u64 head;
};

/*
 * A sampled allocation between its entry point and its return: per thread
 * (an allocator call runs on one), checked against the stack pointer so
 * that only this call's return files it (a uretprobe the kernel did not
 * install, deeper than its 64 return instances, leaves it for none).
 */
struct alloc_inflight {
	__u64 block;
	__u64 bytes;
	__u64 memptr;		/* posix_memalign: where the address goes; 0: returned */
	__u64 ret_sp;		/* the stack pointer its return leaves */
	__u64 begun_ns;		/* CLOCK_MONOTONIC at its entry */
	__u64 size;		/* as alloc_live_block's */
	__u64 mapped;
};

/*
 * A call still waiting for its return after this long lost it (a longjmp
 * out, a return instance the kernel did not have): calls inside it no
 * longer leave it its block.
 */
#define ALLOC_INFLIGHT_STALE_NS 100000000ULL

/*
 * A realloc of a tracked block between its entry and its return: the old
 * block is gone only if the call succeeds (a NULL return keeps it, unless
 * the size was 0: glibc's realloc(ptr, 0) frees ptr and returns NULL).
 * mremap's old range waits in one too, kept apart (alloc_remaps): glibc's
 * realloc of a block it mapped calls it, and the realloc waits for its own
 * return as well.
 */
struct alloc_realloc {
	__u64 addr;		/* the old block's */
	__u64 size;		/* asked (mremap: the old range's length) */
	__u64 ret_sp;		/* as alloc_inflight's */
};

/*
 * When a process's memory went all at once, with no free to say so: at
 * its exec (the old image's heap) and at its exit (its last thread's).
 * Its blocks filed before then are not in use.  Evicted oldest first past
 * ALLOC_GONE_MAX processes (an LRU map): a block of an exit evicted stays
 * counted, an over-count only of processes that exited 16,384 exits ago.
 */
#define ALLOC_GONE_MAX 16384

struct alloc_gone {
	__u64 exec_ns;		/* CLOCK_MONOTONIC of its last exec; 0: none seen */
	__u64 exit_ns;		/* of its exit; 0: none seen */
};

/* What a sampled allocation's sent stack weighs (RING_ALLOC_WEIGHT), after it. */
struct alloc_weight {
	struct ring_record_header hdr;
	__u32 tid;
	__u32 pad;
	__u64 bytes;
	__u64 block;		/* --inuse: its number; 0: not tracked */
	__u64 objects;		/* how many it stands for, in 1/ALLOC_OBJECT_ONE (alloc.h) */
};

/* A tracked block was freed (RING_ALLOC_FREED): user space lets its stack go. */
struct alloc_freed {
	struct ring_record_header hdr;
	__u64 block;
};

/*
 * munmap(addr, len) that is not a tracked mapping's whole (RING_ALLOC_UNMAPPED):
 * its head, its tail, a page in its middle, or none of it.  The kernel's
 * map has no lookup by range: user space takes the range out of the
 * mapped blocks filed before it, when it reads them (capture/alloc_live.c).
 */
struct alloc_unmapped {
	struct ring_record_header hdr;
	__u32 tgid;
	__u32 pad;
	__u64 addr;
	__u64 len;
	__u64 time_ns;		/* CLOCK_MONOTONIC, as the blocks' */
};

#endif /* STITCH_CAPTURE_ALLOC_INUSE_H */
