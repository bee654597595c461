// SPDX-License-Identifier: GPL-2.0
/* The soft open-file limit raised to the hard one: see fd_limit.h. */
#include <sys/resource.h>

#include "util/fd_limit.h"

void fd_limit_raise(void)
{
	struct rlimit rl;

	/* Nothing here waits with select(): fds past FD_SETSIZE are safe (libcurl polls). */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}
