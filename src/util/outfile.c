// SPDX-License-Identifier: GPL-2.0
/* Safe output files: see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/outfile.h"

static int fail(char *err, size_t errlen, int e, const char *path, const char *why)
{
	snprintf(err, errlen, "%s: %s", path, why ? why : strerror(e));
	return -e;
}

/* The directory part of path ("." for a bare name), in buf. */
static int dir_of(const char *path, char *buf, size_t len)
{
	char tmp[PATH_MAX];

	if (snprintf(tmp, sizeof(tmp), "%s", path) >= (int)sizeof(tmp) ||
	    snprintf(buf, len, "%s", dirname(tmp)) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

int outfile_check(const char *path, bool force, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!path[0])
		return fail(err, errlen, EINVAL, "-o", "empty file name");
	if (dir_of(path, dir, sizeof(dir)))
		return fail(err, errlen, ENAMETOOLONG, path, NULL);
	if (stat(dir, &st) != 0)
		return fail(err, errlen, errno, path, errno == ENOENT ?
			    "its directory does not exist" : NULL);
	if (!S_ISDIR(st.st_mode))
		return fail(err, errlen, ENOTDIR, path, "its directory is not a directory");
	/* EROFS too: a read-only file system is found now, not at the end. */
	if (faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) != 0)
		return fail(err, errlen, errno, path, errno == EROFS ?
			    "its directory is on a read-only file system" :
			    "its directory is not writable");
	if (lstat(path, &st) != 0)
		return errno == ENOENT ? 0 : fail(err, errlen, errno, path, NULL);
	if (S_ISREG(st.st_mode))
		return 0;	/* replaced, as perf does */
	if (S_ISLNK(st.st_mode))
		return force ? 0 : fail(err, errlen, EEXIST, path, "is a symlink: not following "
					"it (--force replaces the link itself)");
	if (S_ISDIR(st.st_mode))
		return fail(err, errlen, EISDIR, path, "is a directory");
	return fail(err, errlen, EINVAL, path, "is not a regular file (a device or FIFO): "
		    "write to stdout with -o - and redirect instead");
}

/* stdio's writes, keeping the first failure's errno for the message. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t len)
{
	struct outfile *of = cookie;
	size_t done = 0;
	ssize_t n;

	while (done < len) {
		n = write(of->fd, buf + done, len - done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!of->werr)
				of->werr = n < 0 ? errno : ENOSPC;
			return done ? (ssize_t)done : -1;
		}
		done += n;
	}
	return done;
}

static int cookie_close(void *cookie)
{
	struct outfile *of = cookie;

	return close(of->fd);
}

int outfile_open(struct outfile *of, const char *path, bool force, char *err, size_t errlen)
{
	char dir[PATH_MAX];
	int rc, fd = -1, i;

	memset(of, 0, sizeof(*of));
	rc = outfile_check(path, force, err, errlen);
	if (rc)
		return rc;
	if (snprintf(of->path, sizeof(of->path), "%s", path) >= (int)sizeof(of->path) ||
	    dir_of(path, dir, sizeof(dir)))
		return fail(err, errlen, ENAMETOOLONG, path, NULL);
	/*
	 * A name nobody can have made for us: O_EXCL fails on anything that
	 * exists, a planted symlink included.  0666 less the umask, as any
	 * new file.
	 */
	for (i = 0; i < 100 && fd < 0; i++) {
		unsigned int r = i;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r ^= (unsigned int)getpid() << 8;
		if (snprintf(of->tmp, sizeof(of->tmp), "%s/.stitch-%x.tmp", dir, r) >=
		    (int)sizeof(of->tmp))
			return fail(err, errlen, ENAMETOOLONG, path, NULL);
		fd = open(of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		rc = fail(err, errlen, errno, path, NULL);
		of->tmp[0] = '\0';
		return rc;
	}
	of->fd = fd;
	of->f = fopencookie(of, "w", (cookie_io_functions_t){ .write = cookie_write,
							     .close = cookie_close });
	if (!of->f) {
		rc = fail(err, errlen, errno, path, NULL);
		close(fd);
		outfile_abort(of);
		return rc;
	}
	return 0;
}

int outfile_commit(struct outfile *of, char *err, size_t errlen)
{
	int rc = 0;

	if (fflush(of->f) != 0 || ferror(of->f))
		rc = fail(err, errlen, of->werr ? of->werr : EIO, of->path, NULL);
	else if (fsync(of->fd) != 0)
		rc = fail(err, errlen, errno, of->path, NULL);
	if (fclose(of->f) != 0 && !rc)
		rc = fail(err, errlen, errno, of->path, NULL);
	of->f = NULL;
	if (!rc && rename(of->tmp, of->path) != 0)
		rc = fail(err, errlen, errno, of->path, NULL);
	if (rc)
		unlink(of->tmp);
	of->tmp[0] = '\0';
	return rc;
}

void outfile_abort(struct outfile *of)
{
	if (of->f)
		fclose(of->f);
	of->f = NULL;
	if (of->tmp[0])
		unlink(of->tmp);
	of->tmp[0] = '\0';
}
