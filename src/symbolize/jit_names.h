/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Names of JIT code, per process, from the perf map it writes
 * (/tmp/perf-PID.map, perf_map.h), found where the process sees it: under
 * its own root (/proc/PID/root, its mount namespace) and under the pid it
 * has in its own pid namespace (the last NSpid of /proc/PID/status).
 *
 * Both are taken while the process lives (jit_names_watch(), called when
 * a process is seen to map anonymous executable memory), so that a map
 * written at exit (HotSpot's -XX:+DumpPerfMapAtExit) is still read when the
 * profile is named, after the process is gone.  The map is read when a name
 * is first asked for, and read on from where it stopped whenever an
 * address is not found in it (the runtime appends as it compiles).
 *
 * One registry for the program: stitch names stacks on one thread.
 */
#ifndef STITCH_SYMBOLIZE_JIT_NAMES_H
#define STITCH_SYMBOLIZE_JIT_NAMES_H

#include <stdint.h>

/* Processes whose map stitch follows, at most: a root fd each, if not ours. */
#define JIT_NAMES_MAX_PROCS	256
/* Bytes read of one map, at most. */
#define JIT_NAMES_MAX_BYTES	(64u << 20)

/* Remember where pid's map lives, while pid is alive (once per pid). */
void jit_names_watch(uint32_t pid);
/* The perf map's name for addr in pid (watched), or NULL. */
const char *jit_names_find(uint32_t pid, uint64_t addr);
/*
 * pid is another program now (exec, or a reused pid): its map is not the
 * one read.  Names of its earlier frames are lost, never taken from the
 * new map.
 */
void jit_names_forget(uint32_t pid);
/* Close and free everything (at exit; for leak checkers). */
void jit_names_reset(void);

#endif /* STITCH_SYMBOLIZE_JIT_NAMES_H */
