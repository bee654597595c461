/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch's cache directories: $STITCH_CACHE_DIR/<sub>, else
 * $XDG_CACHE_HOME/stitch/<sub>, else $HOME/.cache/stitch/<sub>.
 * STITCH_CACHE_DIR set and empty: no cache.  Made one component at a time
 * from "/" through directories and links of ours or root's only, and used
 * only if it is ours and writable by nobody else: whoever can write there
 * could choose what we read back.
 */
#ifndef STITCH_UTIL_CACHE_DIR_H
#define STITCH_UTIL_CACHE_DIR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

/* A file or directory of ours that nobody else can write. */
bool cache_ours(const struct stat *st);

/*
 * Open (making it if needed) the cache directory sub; its path in path
 * (len bytes).  An open directory, or -1: no cache (unset, unusable or not
 * ours, which is said on stderr).
 */
int cache_dir_open(const char *sub, char *path, size_t len);

/*
 * The same for a directory named whole (an absolute path; another tool's
 * cache the user pointed us at): made as above, an open directory if it is
 * ours and writable by nobody else, else -1 (nothing said; *err, if err,
 * the errno: ELOOP for a last component that is a link and !link_last,
 * EPERM for a component neither ours nor root's, 0 for one not ours).
 */
int cache_dir_open_path(const char *path, bool link_last, int *err);

#endif /* STITCH_UTIL_CACHE_DIR_H */
