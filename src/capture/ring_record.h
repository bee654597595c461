/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The header every record of the capture program's samples ring starts
 * with (samples.bpf.h), as perf_event_header does in perf's ring: its type
 * says whose record it is, so user space hands it to that owner's handler
 * (record/decode.c) instead of guessing from a first word and a size.
 * Includable from BPF C and from user space.
 */
#ifndef STITCH_CAPTURE_RING_RECORD_H
#define STITCH_CAPTURE_RING_RECORD_H

#ifndef __bpf__
#include <linux/types.h>
#endif

enum ring_record_type {
	RING_RECORD_NONE,	/* never sent: an interpreter walk already used (interp/splice.c) */
	RING_SAMPLE,		/* struct sample_event (capture/capture.h) */
	RING_INTERP_WALK,	/* struct interp_event (interp/interp.h) */
	RING_OFFCPU_WOKEN,	/* struct offcpu_woken (capture/offcpu.h) */
	RING_OFFCPU_WEIGHT,	/* struct offcpu_weight (capture/offcpu.h) */
	RING_ALLOC_WEIGHT,	/* struct alloc_weight (capture/alloc_inuse.h) */
	RING_ALLOC_FREED,	/* struct alloc_freed (capture/alloc_inuse.h) */
	RING_FETCH_VALUES,	/* struct fetch_values (probe/fetch.h) */
	RING_ALLOC_UNMAPPED,	/* struct alloc_unmapped (capture/alloc_inuse.h) */
	RING_RECORD_TYPES,
};

struct ring_record_header {
	__u32 type;		/* enum ring_record_type */
	__u32 size;		/* the record's bytes, this header included: what was sent */
};

#endif /* STITCH_CAPTURE_RING_RECORD_H */
