/* SPDX-License-Identifier: GPL-2.0 */
/* stitch record, the command: its options (record_cmd.c) and its profile (write.c). */
#ifndef STITCH_RECORD_CMD_H
#define STITCH_RECORD_CMD_H

#include <stdbool.h>
#include <stdint.h>

#include "record/engine.h"
#include "record/run_opts.h"

#define DEFAULT_TOP 10

struct record_cmd {
	struct record_opts o;		/* the engine's */
	struct run_outputs out;		/* -o, --force */
	int top;			/* --top: stacks in the text summary */
	bool wall;			/* cpu + offcpu, both weighed in nanoseconds */
	uint32_t wall_cpu_idx;		/* wall: the cpu event's index */
	bool min_age_set;		/* --min-age given (0 included) */
};

/* The recording's profile to every -o; 0 or -1. */
int record_write(struct record_cmd *cmd, const struct record_result *res);

/* The command's main, called by src/main.c with the command's own name as argv[0]. */
int cmd_record(int argc, char **argv);

#endif /* STITCH_RECORD_CMD_H */
