/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Writing profiles: the format comes from the output file's name
 * (.folded, .txt or -, .svg, .pb.gz, .speedscope.json).
 */
#ifndef STITCH_OUTPUT_H
#define STITCH_OUTPUT_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"

enum output_format {
	OUTPUT_TEXT,
	OUTPUT_FOLDED,
	OUTPUT_SVG,
	OUTPUT_PPROF,
	OUTPUT_SPEEDSCOPE,
	OUTPUT_JSON,		/* a command's own numbers (output_add_json), not a profile */
};

#define OUTPUT_EXTENSIONS "FILE.folded, FILE.txt, FILE.svg, FILE.pb.gz, FILE.speedscope.json or -"

/* Format from a file name's extension; -1 if unknown.  "-" is text. */
int output_format_for(const char *path);

struct output_opts {
	int top;		/* text: how many stacks to show */
	bool inverted;		/* svg: icicle */
	const char *subtitle;	/* svg */
	const struct profile *diff_base;	/* svg: differential against this */
	bool force;		/* replace a symlink at the destination (util/outfile.h) */
	const char *preamble;	/* text: printed before the stacks (wall: per thread) */
	char *err;		/* if set: why writing failed, one line */
	size_t errlen;
};

/*
 * Write p to path ("-": stdout) in the given format; 0 or -errno.  A file is
 * written as util/outfile.h says: complete or not at all, never through a
 * planted symlink.
 */
int output_write(const char *path, int format, const struct profile *p,
		 const struct output_opts *o);

/*
 * -o ARG of command cmd: its format from the name, into paths[]/formats[]
 * (*n of max used).  0, or 2 (a usage error, said on stderr).
 */
int output_add(const char *cmd, const char **paths, int *formats, int *n, int max,
	       const char *arg);

/*
 * output_add for a command that also writes its own numbers: FILE.json (not
 * FILE.speedscope.json) is OUTPUT_JSON, which the command writes itself.
 */
int output_add_json(const char *cmd, const char **paths, int *formats, int *n, int max,
		    const char *arg);

/*
 * Before any work: can every one of n outputs be written (util/outfile.h)?
 * One line on stderr per output that cannot; 0, or -1 if any.
 */
int output_check_all(const char *cmd, const char *const *paths, int n, bool force);

/*
 * Write p to each of n outputs.  One that fails is one line on stderr and
 * the others are still written; then the profile is saved once more, as
 * pprof, next to the first failed output or else in the current directory,
 * and the line says where.  what: "N events, M stacks", for the line naming
 * each file written.  0, or -1 if any output failed.
 */
int output_write_all(const char *cmd, const char *const *paths, const int *formats, int n,
		     const struct profile *p, const struct output_opts *o, const char *what);

int profile_write_folded(FILE *f, const struct profile *p);
int profile_write_text(FILE *f, const struct profile *p, int top);
int profile_write_speedscope(FILE *f, const struct profile *p);

/* Copy name into buf as a folded frame: no ';', no control characters. */
void folded_clean(char *buf, size_t len, const char *name);

#endif /* STITCH_OUTPUT_H */
