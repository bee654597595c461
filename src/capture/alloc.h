/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Allocations by stack (record -e alloc): what alloc.bpf.h (kernel side,
 * part of the capture program) and alloc_sampling.c (user side) share.
 * Includable from BPF C and from user space.
 *
 * Sampling by bytes, as tcmalloc and Go's runtime do: each thread's bytes
 * are a Poisson process with one sample point every --alloc-sample bytes
 * on average (the gaps are drawn from an exponential distribution, so that
 * no allocation pattern lines up with the points).  An allocation of s bytes
 * holds at least one point with probability 1 - e^(-s/P), and a sampled one
 * weighs s / (1 - e^(-s/P)) bytes: the expected weight of every allocation
 * is its size, whatever the pattern.  A large allocation (s >> P) is always
 * sampled and weighs s.
 *
 * The BPF side has no floating point: both functions come as tables in
 * 16.16 fixed point, filled by user space before load.
 */
#ifndef STITCH_CAPTURE_ALLOC_H
#define STITCH_CAPTURE_ALLOC_H

#ifndef __bpf__
#include <linux/types.h>
#endif

/* --alloc-sample's default: tcmalloc's and Go's 512 KiB. */
#define ALLOC_DEFAULT_PERIOD	(512 * 1024)
/* Its largest: 1 GiB keeps every product below in 64 bits. */
#define ALLOC_MAX_PERIOD	(1ULL << 30)
/* A size no allocator grants (1 TiB): such a call fails and weighs nothing. */
#define ALLOC_MAX_SIZE		(1ULL << 40)

/*
 * -ln(u) at u = i / ALLOC_GAP_SLOTS, i in [1, ALLOC_GAP_SLOTS], and at
 * [0] ln(ALLOC_GAP_SLOTS): a gap is period * -ln(u) for a random u, taken
 * between the two points around it.  A gap drawn from the points alone
 * takes 1024 values: against an allocation pattern that repeats every few
 * hundred bytes, where each value ends in the pattern is fixed, and a
 * simulation of 100+300+300-byte rounds at 512K put 89% of the 100-byte
 * path's bytes where it had 100% (the interpolated draw: 100.4%).  u below
 * 1/ALLOC_GAP_SLOTS is u' / ALLOC_GAP_SLOTS for a new u': -ln(u) is
 * ln(ALLOC_GAP_SLOTS) - ln(u').
 */
#define ALLOC_GAP_SLOTS		1024
#define ALLOC_GAP_FRAC_BITS	22	/* a draw's 32 random bits: 10 pick the slot */
#define ALLOC_GAP_DRAWS		3	/* u < 2^-30 after three: taken as 2^-30 */
/*
 * x / (1 - e^-x) at x = i / ALLOC_WEIGHT_STEPS, i in [0, ALLOC_WEIGHT_SLOTS]:
 * a sampled allocation of s bytes weighs period * f(s / period),
 * interpolated.  Past ALLOC_WEIGHT_MAX_X, f(x) = x within e^-16 (1e-7).
 */
#define ALLOC_WEIGHT_STEPS	64
#define ALLOC_WEIGHT_MAX_X	16
#define ALLOC_WEIGHT_SLOTS	(ALLOC_WEIGHT_STEPS * ALLOC_WEIGHT_MAX_X)

#define ALLOC_FIXED_ONE		65536	/* 1.0 in the tables' 16.16 fixed point */

/*
 * The threads whose sampling state is kept: the next point's distance.  A
 * thread forgotten (LRU) starts again with a new gap, which the process's
 * memorylessness makes as good as the old one.
 */
#define ALLOC_MAX_THREADS	65536

/*
 * The arithmetic of both tables, shared by the BPF side and the unit tests
 * (tests/unit/test_alloc_sampling.c), which check on simulated patterns
 * that it is unbiased.  The tables are const volatile in BPF (rodata).
 */

/*
 * One draw of a gap from 32 random bits: -ln(u) in 16.16 added to *sum.
 * False when u fell in the first slot (u < 1/ALLOC_GAP_SLOTS): ln(slots) was
 * added, and the draw goes on with new bits.
 */
static inline int alloc_gap_draw(const volatile __u32 *tab, __u32 r, __u64 *sum)
{
	__u32 i = r >> ALLOC_GAP_FRAC_BITS;
	__u64 hi, lo;

	if (i == 0) {
		*sum += tab[0];
		return 0;
	}
	i &= ALLOC_GAP_SLOTS - 1;
	hi = tab[i];
	lo = tab[i + 1];
	*sum += hi - (((hi - lo) * (r & ((1u << ALLOC_GAP_FRAC_BITS) - 1))) >> ALLOC_GAP_FRAC_BITS);
	return 1;
}

/* A gap of period bytes on average, from a draw's sum: never 0. */
static inline __u64 alloc_gap_bytes(__u64 period, __u64 sum)
{
	__u64 gap = (period * sum) / ALLOC_FIXED_ONE;

	return gap ? gap : 1;
}

/* What a sampled allocation of size bytes weighs: size / (1 - e^(-size/period)). */
static inline __u64 alloc_weight_of(const volatile __u32 *tab, __u64 period, __u64 size)
{
	__u64 scaled, i, frac, lo, hi;

	if (period <= 1 || size >= ALLOC_WEIGHT_MAX_X * period)
		return size;
	scaled = size * ALLOC_WEIGHT_STEPS;
	i = scaled / period;
	frac = scaled - i * period;
	if (i >= ALLOC_WEIGHT_SLOTS)
		return size;
	lo = tab[i];
	hi = tab[i + 1];
	/* f rises with x: hi >= lo, and the interpolation stays between them. */
	return (period * lo + (hi > lo ? hi - lo : 0) * frac) / ALLOC_FIXED_ONE;
}

/*
 * How many allocations a sampled one stands for (pprof's alloc_objects and
 * inuse_objects), in 1/ALLOC_OBJECT_ONE: its weight over its size, that is
 * 1 / (1 - e^(-size/period)).  Fixed point because a large allocation
 * stands for 1 to 1.58 of its kind, which whole numbers would bias; 1024
 * keeps a 1 GiB period's 1-byte sample (2^40) and the sums far inside 64
 * bits.
 */
#define ALLOC_OBJECT_ONE	1024

static inline __u64 alloc_objects_of(__u64 weight, __u64 size)
{
	return size ? weight * ALLOC_OBJECT_ONE / size : 0;
}

#endif /* STITCH_CAPTURE_ALLOC_H */
