/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --fetch EXPR at a line probe's address: the expression (a variable, then
 * ->member, .member and [index], then :string or a cast :u8..:u64,
 * :s8..:s64, :x8..:x64, as perf probe takes them) compiled from DWARF into
 * the steps the capture program runs there (probe/fetch.h), and how its
 * value is printed.  And the values, formatted: for --print, and as the
 * label an event's stack ends in.
 */
#ifndef STITCH_PROBE_FETCH_COMPILE_H
#define STITCH_PROBE_FETCH_COMPILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "probe/fetch.h"
#include "probe/line_probe.h"

enum fetch_print {
	FETCH_PRINT_SIGNED,
	FETCH_PRINT_UNSIGNED,
	FETCH_PRINT_HEX,	/* pointers, :xN */
	FETCH_PRINT_BOOL,
	FETCH_PRINT_STRING,
	FETCH_PRINT_FLOAT,	/* a float (size 4) or a double (8), from its bits */
};

/* How one fetched value is shown. */
struct fetch_format {
	char label[96];		/* the expression as written, without its :cast */
	uint8_t size;		/* bytes of the value (a register's are cut to it) */
	uint8_t print;		/* enum fetch_print */
	uint8_t bits;		/* a bit field's width (its sign bit's place); 0: size's */
	uint8_t shift;		/* a bit field's first bit in the bytes loaded: user
				 * space takes it out (a BPF step for it cost every
				 * start ~0.27 s in the verifier) */
};

/* One probe address's fetches: what --print and the labels need. */
struct fetch_site {
	uint32_t event_idx;
	uint32_t nvars;
	struct fetch_format fmt[FETCH_MAX_VARS];
};

/*
 * Compile exprs[0..n) at site into prog and fmt: 0, or -EINVAL with err
 * saying which expression names nothing there, or what does not fit.  A
 * variable DWARF says is not there at the address compiles to
 * FETCH_STEP_OPTOUT: <optimized out> at every event, never a
 * value from elsewhere.
 */
int fetch_compile(struct line_dwarf *ld, const struct line_site *site, const char *const *exprs,
		  int n, struct fetch_steps *prog, struct fetch_format *fmt, char *err,
		  size_t errlen);

/*
 * The values of one event as "r->len=10 r->path=\"/srv/item/0\"": each
 * string escaped (quotes, backslashes, ';' and bytes outside printable
 * ASCII as \xNN), so that it can be a frame's name.  Returns buf.
 */
char *fetch_format_values(const struct fetch_site *site, const struct fetch_values *v, char *buf,
			  size_t size);

#endif /* STITCH_PROBE_FETCH_COMPILE_H */
