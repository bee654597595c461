// SPDX-License-Identifier: GPL-2.0
/* Safe output files: see outfile.h. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/outfile.h"
#include "util/outfile_stale.h"

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

/*
 * Checks that touch nothing: the directory exists, and the destination is
 * absent, a regular file, or (with force) a symlink.  dir gets its directory.
 */
static int check_place(const char *path, bool force, char *dir, size_t dirlen, char *err,
		       size_t errlen)
{
	struct stat st;

	if (!path[0])
		return fail(err, errlen, EINVAL, "-o", "empty file name");
	if (dir_of(path, dir, dirlen))
		return fail(err, errlen, ENAMETOOLONG, path, NULL);
	if (stat(dir, &st) != 0)
		return fail(err, errlen, errno, path, errno == ENOENT ?
			    "its directory does not exist" : NULL);
	if (!S_ISDIR(st.st_mode))
		return fail(err, errlen, ENOTDIR, path, "its directory is not a directory");
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

/* The try-th name for a hidden temporary in dir, in tmp: 0, or -ENAMETOOLONG. */
static int temp_name(const char *dir, int try, char *tmp, size_t len)
{
	unsigned int r = try;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
		r ^= (unsigned int)getpid() << 8;
	return snprintf(tmp, len, "%s/.stitch-%x.tmp", dir, r) >= (int)len ? -ENAMETOOLONG : 0;
}

/*
 * A new hidden temporary in dir, named in tmp: an fd, or -errno.  A name
 * nobody can have made for us: O_EXCL fails on anything that exists, a
 * planted symlink included.  0666 less the umask, as any new file.
 */
static int create_temp(const char *dir, char *tmp, size_t len)
{
	int fd = -EEXIST, i;

	for (i = 0; i < 100 && fd == -EEXIST; i++) {
		if (temp_name(dir, i, tmp, len))
			return -ENAMETOOLONG;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0)
			fd = -errno;
	}
	if (fd < 0)
		tmp[0] = '\0';
	return fd;
}

/* /proc/self/fd/N of an fd, to link an unnamed file by: 0, or -1 without /proc. */
static int fd_path(int fd, char *buf, size_t len)
{
	snprintf(buf, len, "/proc/self/fd/%d", fd);
	return faccessat(AT_FDCWD, buf, F_OK, AT_SYMLINK_NOFOLLOW);
}

/*
 * Give of's unnamed temporary (O_TMPFILE) a hidden name beside the
 * destination, to be renamed over it: linked through /proc, which
 * outfile_open found.  0 or -errno.
 */
static int name_unnamed(struct outfile *of)
{
	char dir[PATH_MAX], proc[64];
	int i, rc = -EEXIST;

	if (dir_of(of->path, dir, sizeof(dir)))
		return -ENAMETOOLONG;
	if (fd_path(of->fd, proc, sizeof(proc)))
		return -errno;
	for (i = 0; i < 100 && rc == -EEXIST; i++) {
		rc = temp_name(dir, i, of->tmp, sizeof(of->tmp));
		/* Like O_EXCL: a name that exists, a planted symlink too, is EEXIST. */
		if (!rc && linkat(AT_FDCWD, proc, AT_FDCWD, of->tmp, AT_SYMLINK_FOLLOW))
			rc = -errno;
	}
	if (rc)
		of->tmp[0] = '\0';	/* not made by us: never to be unlinked */
	return rc;
}

/* Why the directory of path took no new file (-e), in err. */
static int refused(char *err, size_t errlen, int e, const char *path)
{
	char why[128];

	if (e == EROFS)
		return fail(err, errlen, e, path, "its directory is on a read-only file system");
	if (e == EACCES || e == EPERM)
		return fail(err, errlen, e, path, "its directory is not writable");
	snprintf(why, sizeof(why), "its directory does not take new files (%s)", strerror(e));
	return fail(err, errlen, e, path, why);
}

int outfile_check(const char *path, bool force, char *err, size_t errlen)
{
	char dir[PATH_MAX], tmp[PATH_MAX];
	int rc, fd;

	rc = check_place(path, force, dir, sizeof(dir), err, errlen);
	if (rc)
		return rc;
	/*
	 * Make a file there, as the final write will: /proc and /sys pass
	 * every access check (root may write anything), then refuse new
	 * files (ENOENT, EACCES), and that must be found now, not after a
	 * whole recording.
	 */
	fd = create_temp(dir, tmp, sizeof(tmp));
	if (fd < 0)
		return refused(err, errlen, -fd, path);
	close(fd);
	unlink(tmp);
	return 0;
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
	char dir[PATH_MAX], proc[64];
	int rc, fd;

	memset(of, 0, sizeof(*of));
	rc = check_place(path, force, dir, sizeof(dir), err, errlen);
	if (rc)
		return rc;
	if (snprintf(of->path, sizeof(of->path), "%s", path) >= (int)sizeof(of->path))
		return fail(err, errlen, ENAMETOOLONG, path, NULL);
	/* What a killed stitch left here is removed now: nobody else would. */
	outfile_clean_stale(dir);
	/*
	 * Without a name until complete, where the file system can (ext4,
	 * xfs, btrfs, tmpfs): a kill -9 while it is written leaves nothing
	 * behind.  Else a hidden named one, which outfile_clean_stale removes
	 * once a killed writer left it.
	 */
	fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
	if (fd >= 0 && fd_path(fd, proc, sizeof(proc))) {
		close(fd);	/* no /proc to name it by at the end */
		fd = -1;
	}
	of->unnamed = fd >= 0;
	if (fd < 0)
		fd = create_temp(dir, of->tmp, sizeof(of->tmp));
	if (fd < 0)
		return refused(err, errlen, -fd, path);
	/* Held until commit or abort: a live writer's temporary is never stale. */
	flock(fd, LOCK_EX | LOCK_NB);
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
	if (!rc && of->unnamed) {
		rc = name_unnamed(of);
		if (rc)
			rc = fail(err, errlen, -rc, of->path, NULL);
	}
	if (fclose(of->f) != 0 && !rc)
		rc = fail(err, errlen, errno, of->path, NULL);
	of->f = NULL;
	if (!rc && rename(of->tmp, of->path) != 0)
		rc = fail(err, errlen, errno, of->path, NULL);
	if (rc && of->tmp[0])
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
