/* SPDX-License-Identifier: GPL-2.0 */
/* Whole writes to a file descriptor: write(2) may take part of a buffer. */
#ifndef STITCH_UTIL_FD_IO_H
#define STITCH_UTIL_FD_IO_H

#include <stddef.h>

/* All len bytes of p to fd, through short writes and EINTR: 0, or -errno (-EIO: none taken). */
int fd_write_all(int fd, const void *p, size_t len);

#endif /* STITCH_UTIL_FD_IO_H */
