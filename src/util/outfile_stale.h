/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hidden temporaries util/outfile.c names beside a destination
 * (".stitch-1a2b3c4d.tmp"), and the ones a killed stitch left behind: a
 * SIGKILL in the write phase left its temporary (once in 27 tries, before
 * temporaries had no name until complete; still so where a file system
 * has no O_TMPFILE), and nothing else would ever remove it.
 */
#ifndef STITCH_UTIL_OUTFILE_STALE_H
#define STITCH_UTIL_OUTFILE_STALE_H

#include <stdbool.h>

/*
 * A temporary unchanged this long (seconds), and unlocked, has no writer.
 * A writer's lock covers its whole life; the age covers the instant
 * between its creation and its lock, and builds of stitch that took no
 * lock (their writes took seconds at most), with a wide margin.
 */
#define OUTFILE_STALE_AGE 3600

/* Is name (a directory entry) one of ours: ".stitch-" 1 to 8 hex digits ".tmp"? */
bool outfile_temp_name(const char *name);

/*
 * Remove the stale temporaries of ours in dir: named as ours, regular
 * files of our effective user, not changed for OUTFILE_STALE_AGE seconds
 * and not locked by a writer (outfile_open holds a lock on its own while it
 * writes).  Nothing else is touched, and a failure is not an error.
 */
void outfile_clean_stale(const char *dir);

#endif /* STITCH_UTIL_OUTFILE_STALE_H */
