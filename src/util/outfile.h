/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files stitch writes (profiles, flame graphs, folded stacks), made safe to
 * write as root in directories others share, such as /tmp.
 *
 * A file is written as a new temporary in the destination's directory
 * (O_TMPFILE, unnamed until complete, or O_EXCL: never a file someone
 * planted) and renamed over the destination only once complete and on
 * disk.  A symlink at the destination is replaced,
 * never followed, and only with --force; a directory, device or FIFO is
 * never replaced.  Readers never see a half-written file, and a failed
 * write leaves the destination as it was.
 */
#ifndef STITCH_UTIL_OUTFILE_H
#define STITCH_UTIL_OUTFILE_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct outfile {
	FILE *f;
	int fd;
	int werr;		/* the first write's errno (ENOSPC), which stdio forgets */
	char path[PATH_MAX];	/* the destination */
	char tmp[PATH_MAX];	/* the temporary beside it, once named, until commit or abort */
	bool unnamed;		/* the temporary is an O_TMPFILE, named only at commit */
};

/*
 * Can path be written, before any work is done?  Its directory exists and
 * takes a new file (one is made and removed there, as the final write
 * will: /proc and /sys refuse only then), and path is absent, a regular
 * file, or (with force) a symlink.  0, or -errno with a one-line reason in
 * err ("PATH: ...").
 */
int outfile_check(const char *path, bool force, char *err, size_t errlen);

/*
 * outfile_check's checks, then create the temporary and open it as of->f
 * (locked while it is written); stale temporaries a killed stitch left in
 * the directory are removed first (util/outfile_stale.h).
 */
int outfile_open(struct outfile *of, const char *path, bool force, char *err, size_t errlen);

/*
 * Flush, fsync, and rename the temporary over the destination.  On any
 * failure (a full disk) the temporary is removed and the destination left
 * as it was.  Closes of->f either way.
 */
int outfile_commit(struct outfile *of, char *err, size_t errlen);

/* Why writing to of->f failed: the first write's -errno, else -EIO. */
static inline int outfile_write_error(const struct outfile *of)
{
	return of->werr ? -of->werr : -EIO;
}

/* Drop the temporary: nothing is written. */
void outfile_abort(struct outfile *of);

#endif /* STITCH_UTIL_OUTFILE_H */
