/* SPDX-License-Identifier: GPL-2.0 */
/* Where a command's executable is, as execvp() would find it; a library by its name. */
#ifndef STITCH_EXEC_PATH_H
#define STITCH_EXEC_PATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * cmd itself if it has a '/', else the first executable cmd in $PATH
 * (/usr/bin:/bin without one), into out; false if there is none.
 */
bool exec_path_find(const char *cmd, char *out, size_t len);

/*
 * A library by its file name (libc.so.6) in the system's library
 * directories (the multiarch ones first), into out; false if in none.
 */
bool lib_path_find(const char *name, char *out, size_t len);

#endif /* STITCH_EXEC_PATH_H */
