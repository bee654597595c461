/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The in-memory profile every reader and writer shares: record builds one
 * from its aggregated stacks, report reads one from pprof or folded, and
 * the writers (folded, text, SVG, pprof, speedscope) and diff consume it.
 *
 * Strings are interned (index 0 is ""), frames are deduplicated, and a
 * sample is a stack (outermost frame first) with a count and labels.
 */
#ifndef STITCH_PROFILE_H
#define STITCH_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/hashmap.h"

enum frame_kind {
	FRAME_USER,		/* native code */
	FRAME_INLINED,		/* native, inlined into the frame just outside it */
	FRAME_KERNEL,
	FRAME_MARK,		/* [truncated] / [unknown] markers */
	/* Interpreter frames: FRAME_<ID>, one kind per line of interp/languages.def. */
#define INTERP_LANG(ID, ...) FRAME_##ID,
#include "interp/languages.def"
#undef INTERP_LANG
	/*
	 * JIT-compiled code (V8, HotSpot), named from the runtime's perf map
	 * (symbolize/jit_names.h).  After the languages, so that no kind written
	 * before it changed its number.
	 */
	FRAME_JIT,
	FRAME_KIND_NR,
	FRAME_INTERP = FRAME_MARK + 1,	/* the first language's: kind - FRAME_INTERP is its line */
};

/* The module of JIT frames, as pprof's mapping: their code lies in no file. */
#define FRAME_JIT_MODULE "[jit]"

/* An interpreter's frame, of the language on line kind - FRAME_INTERP of languages.def. */
static inline bool frame_kind_is_interp(uint8_t kind)
{
	return kind >= FRAME_INTERP && kind < FRAME_JIT;
}

struct prof_frame {
	uint32_t name;		/* string index */
	uint32_t file;		/* string index, 0: unknown */
	uint32_t line;		/* 0: unknown */
	uint32_t module;	/* string index: binary path, "[kernel]", "[ext4]"; 0: unknown */
	uint64_t addr;		/* ELF vaddr (user) or kernel address; 0: unknown */
	uint8_t kind;		/* enum frame_kind */
};

struct prof_sample {
	uint32_t *frames;	/* frame indices, outermost first */
	uint32_t nframes;
	uint32_t comm;		/* string index */
	uint32_t event;		/* string index: "cpu", "syscall:openat", ... */
	uint32_t pid, tid;
	uint64_t count;
	uint64_t objects;	/* with profile.objects_type: 1/PROFILE_OBJECT_ONE each */
};

struct prof_module {		/* what pprof calls a mapping */
	uint32_t path;		/* string index, matches prof_frame.module */
	uint32_t build_id;	/* string index: hex, 0 if none */
};

struct profile {
	/* strings */
	char **str;
	uint32_t nstr, capstr;
	struct hmap str_index;
	/* frames */
	struct prof_frame *frames;
	uint32_t nframes, capframes;
	struct hmap frame_index;
	/* samples */
	struct prof_sample *samples;
	size_t nsamples, capsamples;
	/* modules, for build-ids */
	struct prof_module *modules;
	uint32_t nmodules, capmodules;
	/* description */
	uint32_t title;		/* string index: "cpu at 99 Hz", "syscall:openat" */
	uint64_t period_ns;	/* cpu sampling: 1e9 / Hz; 0 for event counts */
	/*
	 * What a sample's count measures, as pprof names it (string indices):
	 * 0 for events counted ("samples"/"count"); "off_cpu"/"nanoseconds"
	 * for time.  See profile_unit_ns.
	 */
	uint32_t value_type, value_unit;
	/*
	 * Allocations (bytes): the allocations each sample's count stands for
	 * are its objects, a second value named so ("alloc_objects",
	 * "inuse_objects"/"count", as Go's heap profiles); 0: none.
	 */
	uint32_t objects_type;
	uint64_t time_ns;	/* start, ns since the Unix epoch; 0: unknown */
	uint64_t duration_ns;
	uint64_t total;		/* sum of sample counts */
	/*
	 * A sum of counts (total, or identical samples merged) passed
	 * PROFILE_MAX_COUNT and stopped there: totals and shares are not
	 * exact, and the writers that show them say so.
	 */
	bool saturated;
	uint64_t names_cut;	/* read: frame names cut short (NUL byte, over 4 KiB) */
};

/* prof_sample.objects' 1.0: capture/alloc.h's ALLOC_OBJECT_ONE (checked where both are seen). */
#define PROFILE_OBJECT_ONE 1024

/*
 * The largest count one sample may carry: 2^53, what a JSON number
 * (speedscope) and a double (the flame graph's widths) hold exactly, and
 * far above a real profile's (2^53 ns of one stack is 104 days).  Readers
 * refuse larger counts; sums of counts saturate at it (count_add) instead
 * of wrapping, so a total never reads as a small number, and what one
 * writer merged (two 2^53 lines of one stack) every reader takes back.
 */
#define PROFILE_MAX_COUNT (1ULL << 53)

static inline uint64_t count_add(uint64_t a, uint64_t b)
{
	if (a >= PROFILE_MAX_COUNT || b >= PROFILE_MAX_COUNT - a)
		return PROFILE_MAX_COUNT;
	return a + b;
}

/* count_add, and *saturated set when the true sum is past PROFILE_MAX_COUNT. */
static inline uint64_t count_add_noting(uint64_t a, uint64_t b, bool *saturated)
{
	if (b > PROFILE_MAX_COUNT || a > PROFILE_MAX_COUNT - b)
		*saturated = true;
	return count_add(a, b);
}

void profile_init(struct profile *p);

/* Counts are nanoseconds (off-CPU, wall time), not events. */
bool profile_unit_ns(const struct profile *p);
/* Counts are bytes (allocations: alloc_space, inuse_space). */
bool profile_unit_bytes(const struct profile *p);
/* Counts are a quantity (time, bytes) that profile_value_str writes with its unit. */
static inline bool profile_unit_quantity(const struct profile *p)
{
	return profile_unit_ns(p) || profile_unit_bytes(p);
}

/*
 * A count as people read it: "1234" for events, "12.3 ms" (ns, us, ms, s)
 * for time, "1.5 MiB" (B, KiB, MiB, GiB) for bytes.  Returns buf.
 */
const char *profile_value_str(const struct profile *p, uint64_t v, char *buf, size_t len);

/* The unit of profile_value_str's numbers in prose: "samples" or "" (time and bytes say their own). */
static inline const char *profile_count_word(const struct profile *p)
{
	return profile_unit_quantity(p) ? "" : " samples";
}
void profile_free(struct profile *p);

/* Intern a string (NULL or "" is 0); UINT32_MAX on allocation failure. */
uint32_t profile_str(struct profile *p, const char *s);
static inline const char *profile_s(const struct profile *p, uint32_t i)
{
	return i < p->nstr ? p->str[i] : "";
}
/* Intern a frame; UINT32_MAX on allocation failure. */
uint32_t profile_frame(struct profile *p, const struct prof_frame *f);
/* Add a sample (frames copied); merges nothing: see profile_merge_samples. */
int profile_add_sample(struct profile *p, const uint32_t *frames, uint32_t n,
		       const struct prof_sample *labels);
/* Record a module's build-id (hex), once per path. */
int profile_module(struct profile *p, const char *path, const char *build_id_hex);
/* Build-id of a module path index, or NULL. */
const char *profile_module_build_id(const struct profile *p, uint32_t path);

/* Merge samples with identical stacks and labels; sort by count (desc). */
int profile_merge_samples(struct profile *p);

/*
 * How a frame is marked where stacks are printed one frame a line (stalls,
 * snapshot): " [k]" kernel, " [inlined]", " [jit]", else "".
 */
static inline const char *frame_line_mark(uint8_t kind)
{
	return kind == FRAME_KERNEL ? " [k]" : kind == FRAME_INLINED ? " [inlined]" :
	       kind == FRAME_JIT ? " [jit]" : "";
}

/* The last component of a path: a frame line's file name. */
static inline const char *path_base(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* Folded frame name: name + _[k] / _[i] suffix, ';' and control chars replaced. */
size_t profile_frame_label(const struct profile *p, const struct prof_frame *f, char *buf,
			   size_t len);

#endif /* STITCH_PROFILE_H */
