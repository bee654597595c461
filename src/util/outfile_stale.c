// SPDX-License-Identifier: GPL-2.0
/* Stale temporaries of util/outfile.c: see outfile_stale.h. */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/outfile_stale.h"

#define TEMP_PREFIX ".stitch-"
#define TEMP_SUFFIX ".tmp"

bool outfile_temp_name(const char *name)
{
	size_t len = strlen(name), np = strlen(TEMP_PREFIX), ns = strlen(TEMP_SUFFIX), i;

	if (len <= np + ns || len > np + 8 + ns || strncmp(name, TEMP_PREFIX, np) ||
	    strcmp(name + len - ns, TEMP_SUFFIX))
		return false;
	for (i = np; i < len - ns; i++)
		if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
			return false;
	return true;
}

/* Ours, old, and nobody writing it: fd is the open candidate, st its lstat. */
static bool stale(int fd, const struct stat *st, time_t now)
{
	struct stat fst;

	if (fstat(fd, &fst) || fst.st_ino != st->st_ino || fst.st_dev != st->st_dev)
		return false;
	if (!S_ISREG(fst.st_mode) || fst.st_uid != geteuid() || fst.st_nlink != 1)
		return false;
	if (now - fst.st_mtime < OUTFILE_STALE_AGE)
		return false;
	/* A live writer holds its lock (a snapshot may write for hours). */
	return flock(fd, LOCK_EX | LOCK_NB) == 0;
}

void outfile_clean_stale(const char *dir)
{
	DIR *d = opendir(dir);
	time_t now = time(NULL);
	struct dirent *de;
	struct stat st, again;
	int dfd, fd;

	if (!d)
		return;
	dfd = dirfd(d);
	while ((de = readdir(d))) {
		if (!outfile_temp_name(de->d_name))
			continue;
		/* Regular files only: opening a FIFO or device could block or act. */
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode) ||
		    st.st_uid != geteuid())
			continue;
		fd = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY |
			    O_CLOEXEC);
		if (fd < 0)
			continue;
		/* Removed only while the name still names the file checked. */
		if (stale(fd, &st, now) && !fstatat(dfd, de->d_name, &again, AT_SYMLINK_NOFOLLOW) &&
		    again.st_ino == st.st_ino && again.st_dev == st.st_dev)
			unlinkat(dfd, de->d_name, 0);
		close(fd);
	}
	closedir(d);
}
