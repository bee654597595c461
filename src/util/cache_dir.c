// SPDX-License-Identifier: GPL-2.0
/*
 * stitch's cache directories (cache_dir.h): the debug cache of decompressed
 * DWARF, the kernel BTF subsets.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/cache_dir.h"

bool cache_ours(const struct stat *st)
{
	return st->st_uid == geteuid() && !(st->st_mode & (S_IWGRP | S_IWOTH));
}

/* A directory or symlink we may pass through: ours or root's. */
static bool trusted_owner(const struct stat *st)
{
	return st->st_uid == geteuid() || st->st_uid == 0;
}

/*
 * mkdir -p and open, one component at a time from "/", so that nobody else
 * chooses where we write.  A symlink is followed only if it belongs to us
 * or root, and every directory on the way must belong to us or root: with a
 * HOME of another user (sudo keeps it), their ~/.cache -> /some/root/dir
 * would otherwise have us create and fill <dir>/stitch/debug, and their
 * home itself is not ours to write into.  New directories are private to
 * us.  Returns an open directory or -errno.
 */
static int open_dirs(const char *path, bool link_last)
{
	char buf[PATH_MAX], *comp, *save = NULL;
	struct stat st;
	int fd, next;

	if (path[0] != '/' || snprintf(buf, sizeof(buf), "%s", path) >= (int)sizeof(buf))
		return -EINVAL;
	fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (comp = strtok_r(buf, "/", &save); comp; comp = strtok_r(NULL, "/", &save)) {
		int err = 0;

		if (!strcmp(comp, "."))
			continue;
		if (!strcmp(comp, ".."))
			err = EINVAL;
		else if (fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) != 0) {
			err = errno;
			if (err == ENOENT && mkdirat(fd, comp, 0700) == 0)
				err = 0;
		} else if (!trusted_owner(&st)) {
			err = EPERM;
		} else if (!link_last && S_ISLNK(st.st_mode) && !save[strspn(save, "/")]) {
			/* The last component itself a link: refused, whoever made it. */
			err = ELOOP;
		}
		/* Following only a trusted link; whatever it names is checked below. */
		next = err ? -1 : openat(fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (next < 0 && !err)
			err = errno;
		close(fd);
		if (err)
			return -err;
		if (fstat(next, &st) != 0 || !trusted_owner(&st)) {
			close(next);
			return -EPERM;
		}
		fd = next;
	}
	return fd;
}

int cache_dir_open(const char *sub, char *path, size_t len)
{
	const char *env = getenv("STITCH_CACHE_DIR"), *home;
	char base[PATH_MAX];
	struct stat st;
	int n, fd;

	if (env) {
		if (!env[0])
			return -1;
		n = snprintf(base, sizeof(base), "%s", env);
	} else if ((home = getenv("XDG_CACHE_HOME")) && home[0] == '/') {
		n = snprintf(base, sizeof(base), "%s/stitch", home);
	} else if ((home = getenv("HOME")) && home[0] == '/') {
		n = snprintf(base, sizeof(base), "%s/.cache/stitch", home);
	} else {
		return -1;
	}
	if (n <= 0 || (size_t)n >= sizeof(base) ||
	    snprintf(path, len, "%s/%s", base, sub) >= (int)len)
		return -1;
	/*
	 * A read-only or missing home, or one we may not write in: no cache,
	 * as before it existed.
	 */
	fd = open_dirs(path, true);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !cache_ours(&st)) {
		fprintf(stderr, "stitch: not using the %s cache %s: it must belong to uid %u "
			"and be writable by nobody else\n", sub, path, (unsigned int)geteuid());
		close(fd);
		return -1;
	}
	return fd;
}

int cache_dir_open_path(const char *path, bool link_last, int *err)
{
	struct stat st;
	int fd = open_dirs(path, link_last);

	if (err)
		*err = fd < 0 ? -fd : 0;
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) != 0 || !cache_ours(&st)) {
		close(fd);
		return -1;
	}
	return fd;
}
