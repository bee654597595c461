/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The binaries a stall report names (path + build-id), found where the
 * process saw them: under a root directory (a container's, or
 * /proc/PID/root) without ever leaving it, checked against the report's
 * build-id, else replaced by the debug file of that build-id.  A module we
 * cannot find, or whose file is not the one that ran, becomes a stub that
 * names nothing, so its frames stay module+0xOFF.
 */
#ifndef STITCH_STALL_REPORT_MODULES_H
#define STITCH_STALL_REPORT_MODULES_H

#include <stddef.h>

#include "proc/binary.h"

/* More distinct modules than this in one log: the rest stay addresses. */
#define STALL_MODULES_MAX 4096

struct stall_module;

struct stall_modules {
	struct binary_cache bins;
	int root_fd;		/* -1: paths are ours */
	char *root;		/* "" or the root's path, for debug-file lookups */
	struct stall_module **mods;
	size_t n, cap;
};

/* root: NULL/"" for our own file system.  0 or -errno (root unusable). */
int stall_modules_init(struct stall_modules *m, const char *root);
void stall_modules_free(struct stall_modules *m);

/*
 * The binary for path (absolute, as the process named it) and build_id
 * (lower-case hex, "" if the report had none): a real one whose symbols
 * describe the code that ran, or a stub with no symbols.  NULL only when out
 * of memory or past STALL_MODULES_MAX.
 */
struct binary *stall_module_get(struct stall_modules *m, const char *path, const char *build_id);

#endif /* STITCH_STALL_REPORT_MODULES_H */
