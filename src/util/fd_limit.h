/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The open-file limit a whole-host recording needs: every live process's
 * binaries stay open (an fd each) while their frames may need naming, plus up
 * to 256 binaries kept for their unwind tables and the BPF maps' fds.
 * `record -a` on a busy host held 1,014 at once: past the usual soft limit of
 * 1,024 (systemd's default too), binaries would fail to open with EMFILE and
 * their frames go unnamed.
 */
#ifndef STITCH_UTIL_FD_LIMIT_H
#define STITCH_UTIL_FD_LIMIT_H

/* Raises the soft RLIMIT_NOFILE to the hard one; nothing is said if it can't. */
void fd_limit_raise(void);

#endif /* STITCH_UTIL_FD_LIMIT_H */
