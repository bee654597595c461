/* SPDX-License-Identifier: GPL-2.0 */
/* Where a command's executable is, as execvp() would find it. */
#ifndef STITCH_EXEC_PATH_H
#define STITCH_EXEC_PATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * cmd itself if it has a '/', else the first executable cmd in $PATH
 * (/usr/bin:/bin without one), into out; false if there is none.
 */
bool exec_path_find(const char *cmd, char *out, size_t len);

#endif /* STITCH_EXEC_PATH_H */
