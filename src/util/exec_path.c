// SPDX-License-Identifier: GPL-2.0
/* Where a command's executable is: see exec_path.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/arch.h"
#include "util/exec_path.h"

bool exec_path_find(const char *cmd, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(cmd, '/')) {
		snprintf(out, len, "%s", cmd);
		return access(out, X_OK) == 0;
	}
	for (p = path && *path ? path : "/usr/bin:/bin"; *p; p = *end ? end + 1 : end) {
		end = strchrnul(p, ':');
		snprintf(out, len, "%.*s/%s", (int)(end - p), p, cmd);
		if (access(out, X_OK) == 0)
			return true;
	}
	return false;
}

bool lib_path_find(const char *name, char *out, size_t len)
{
	static const char *const dirs[] = {
		"/lib/" STITCH_MULTIARCH, "/usr/lib/" STITCH_MULTIARCH, "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", "/usr/local/lib",
	};
	struct stat st;
	size_t i;

	if (strchr(name, '/'))
		return false;
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		snprintf(out, len, "%s/%s", dirs[i], name);
		if (stat(out, &st) == 0 && S_ISREG(st.st_mode))
			return true;
	}
	return false;
}
