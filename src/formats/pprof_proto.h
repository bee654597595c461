/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the pprof writer and reader share: profile.proto's field numbers
 * (package perftools.profiles) and the mapping names that carry our frame
 * kinds (see pprof.h).  Private to pprof_write.c and pprof_read.c.
 */
#ifndef STITCH_PPROF_PROTO_H
#define STITCH_PPROF_PROTO_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "profile/profile.h"
#include "util/array.h"

/* profile.proto field numbers (package perftools.profiles). */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,
};
enum { VALUETYPE_TYPE = 1, VALUETYPE_UNIT = 2 };
enum { SAMPLE_LOCATION_ID = 1, SAMPLE_VALUE = 2, SAMPLE_LABEL = 3 };
enum { LABEL_KEY = 1, LABEL_STR = 2, LABEL_NUM = 3 };
enum {
	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,
};
enum { LOCATION_ID = 1, LOCATION_MAPPING_ID = 2, LOCATION_ADDRESS = 3, LOCATION_LINE = 4 };
enum { LINE_FUNCTION_ID = 1, LINE_LINE = 2 };
enum {
	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
	FUNCTION_START_LINE = 5,
};

#define KERNEL_MAPPING "[kernel.kallsyms]"
#define KERNEL_MODULE "[kernel]"	/* what resolve.c calls the kernel image */

/* Mapping names of the interpreters, "[<name>]", in frame kind order from FRAME_INTERP. */
#define NINTERP (FRAME_JIT - FRAME_INTERP)
/* The mapping of JIT frames (FRAME_JIT): their code has no file. */
#define JIT_MAPPING FRAME_JIT_MODULE
static const char *const interp_mapping[NINTERP] = {
#define INTERP_LANG(ID, name, ...) "[" #name "]",
#include "interp/languages.def"
#undef INTERP_LANG
};

#endif /* STITCH_PPROF_PROTO_H */
