// SPDX-License-Identifier: GPL-2.0
/* The agent's spool directories and files (spool.h). */
#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/spool.h"
#include "util/cache_dir.h"
#include "util/fd_io.h"
#include "util/hashmap.h"

/* A spooled push is one series' request: far below this; larger is no file of ours. */
#define SPOOL_FILE_MAX (256u << 20)

/*
 * Ours, and writable by nobody else; used as it is.  The directories we
 * make are 0700 (profiles name a host's code paths: nobody else reads
 * them); one that exists keeps its mode: a --spool naming a shared
 * directory by mistake (/var/cache) must not lock its other users out.
 */
static int own_dir(int fd, const char *path)
{
	struct stat st;

	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || !cache_ours(&st)) {
		fprintf(stderr, "stitch agent: spool %s is not a directory of ours that only we "
			"can write; give another with --spool DIR\n", path);
		return -1;
	}
	return 0;
}

int spool_root_open(const char *dir, char *path, size_t len)
{
	int fd, err;

	if (dir) {
		snprintf(path, len, "%s", dir);
		if (dir[0] != '/') {
			fprintf(stderr, "stitch agent: --spool %s: give an absolute path\n", dir);
			return -1;
		}
		fd = cache_dir_open_path(dir, false, &err);
		if (fd < 0 && err == ELOOP)
			fprintf(stderr, "stitch agent: cannot use spool %s: it is a symbolic link "
				"(a spool is never reached through one at its end); give the "
				"directory it names, or another, with --spool DIR\n", dir);
		else if (fd < 0)
			fprintf(stderr, "stitch agent: cannot use spool %s: not a directory of ours "
				"that only we can write (made 0700 if missing, through directories "
				"only we and root can write); give another with --spool DIR\n", dir);
	} else {
		fd = cache_dir_open("agent-spool", path, len);
		if (fd < 0)
			fprintf(stderr, "stitch agent: no cache directory for the spool; give one "
				"with --spool DIR (unsent pushes are kept in memory only)\n");
	}
	if (fd >= 0 && own_dir(fd, path)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

int spool_dir_open(struct spool_dir *sd, int rootfd, const char *root_path, enum push_kind kind,
		   const char *url)
{
	char name[64];

	snprintf(name, sizeof(name), "%s-%016" PRIx64, push_wires[kind].name,
		 hash_bytes(url, strlen(url), 0));
	snprintf(sd->path, sizeof(sd->path), "%s/%s", root_path, name);
	if (mkdirat(rootfd, name, 0700) && errno != EEXIST) {
		fprintf(stderr, "stitch agent: spool %s: %s\n", sd->path, strerror(errno));
		sd->fd = -1;
		return -1;
	}
	sd->fd = openat(rootfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (sd->fd < 0) {
		fprintf(stderr, "stitch agent: spool %s: %s\n", sd->path, strerror(errno));
		return -1;
	}
	if (own_dir(sd->fd, sd->path)) {
		close(sd->fd);
		sd->fd = -1;
		return -1;
	}
	/* Two agents sending one spool would send its pushes twice: one holds it. */
	if (flock(sd->fd, LOCK_EX | LOCK_NB)) {
		fprintf(stderr, "stitch agent: spool %s: %s\n", sd->path, errno == EWOULDBLOCK ?
			"another stitch agent pushes to this target from it; give this one "
			"another --spool DIR" : strerror(errno));
		close(sd->fd);
		sd->fd = -1;
		return -1;
	}
	return 0;
}

void spool_dir_close(struct spool_dir *sd)
{
	if (sd->fd >= 0)
		close(sd->fd);
	sd->fd = -1;
}

void spool_name(char name[SPOOL_NAME_LEN], uint64_t start_ns, uint32_t series)
{
	snprintf(name, SPOOL_NAME_LEN, "%020" PRIu64 ".%06u.push", start_ns, series % 1000000);
}

/*
 * Under the directory's fd, never a path: a temporary (a dot name, which
 * spool_list passes over) made anew, never through a link, written and
 * synced whole, then renamed to name.
 */
int spool_write(const struct spool_dir *sd, const char *name, const uint8_t *body, size_t len)
{
	char tmp[SPOOL_NAME_LEN + 32];
	int fd, rc;

	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", name, (int)getpid());
	fd = openat(sd->fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	rc = fd_write_all(fd, body, len);
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && renameat(sd->fd, tmp, sd->fd, name))
		rc = -errno;
	if (rc)
		unlinkat(sd->fd, tmp, 0);
	return rc;
}

int spool_read(const struct spool_dir *sd, const char *name, uint8_t **body, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	size_t got = 0;
	int fd, rc = 0;

	fd = openat(sd->fd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || !cache_ours(&st) ||
	    (uint64_t)st.st_size > SPOOL_FILE_MAX) {
		close(fd);
		return -EINVAL;
	}
	buf = malloc(st.st_size ? st.st_size : 1);
	if (!buf) {
		close(fd);
		return -ENOMEM;
	}
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, st.st_size - got);

		if (n <= 0) {
			rc = n < 0 ? -errno : -EIO;
			break;
		}
		got += n;
	}
	close(fd);
	if (rc) {
		free(buf);
		return rc;
	}
	*body = buf;
	*len = got;
	return 0;
}

void spool_remove(const struct spool_dir *sd, const char *name)
{
	if (unlinkat(sd->fd, name, 0) && errno != ENOENT)
		fprintf(stderr, "stitch agent: spool %s/%s: %s\n", sd->path, name, strerror(errno));
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Ours: NNN.NNN.push, as spool_name writes them (spool_write's temporaries are not). */
static bool is_push_name(const char *n)
{
	size_t len = strlen(n);

	return len == 20 + 1 + 6 + 5 && !strcmp(n + len - 5, ".push") &&
	       strspn(n, "0123456789") == 20 && n[20] == '.';
}

int spool_list(const struct spool_dir *sd, char (**names)[SPOOL_NAME_LEN], uint64_t **sizes)
{
	char (*v)[SPOOL_NAME_LEN] = NULL;
	uint64_t *sz = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	DIR *d;
	int fd;

	*names = NULL;
	*sizes = NULL;
	fd = openat(sd->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		if (!is_push_name(de->d_name))
			continue;
		if (n == cap) {
			void *nv;

			cap = cap ? 2 * cap : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		snprintf(v[n++], SPOOL_NAME_LEN, "%s", de->d_name);
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof(*v), cmp_name);
	sz = calloc(n ? n : 1, sizeof(*sz));
	if (!sz) {
		free(v);
		return -1;
	}
	for (i = 0; i < n; i++) {
		struct stat st;

		if (!fstatat(sd->fd, v[i], &st, AT_SYMLINK_NOFOLLOW))
			sz[i] = st.st_size;
	}
	*names = v;
	*sizes = sz;
	return (int)n;
}
