/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The agent's spool: pushes that could not be sent yet, one file each, so
 * they survive a restart.  One directory per --push target (its kind and a
 * hash of its URL: a period sent to one server and not another waits only
 * for the other), under --spool DIR or the cache directory's agent-spool.
 * Directories are root's (ours) and writable by nobody else: the ones we
 * make are 0700, made without following links, and --spool's own is never
 * a link nor chmod'ed; each file is written under its directory's fd
 * whole (a temporary, O_NOFOLLOW, renamed over its name once on disk), so
 * a crash leaves a push or nothing.  Names are
 * the period's start in ns and the series' number, so the directory's
 * sorted listing is the order they are sent in.
 */
#ifndef STITCH_AGENT_SPOOL_H
#define STITCH_AGENT_SPOOL_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/push.h"

#define SPOOL_NAME_LEN 40

struct spool_dir {
	int fd;				/* -1: no spool */
	char path[PATH_MAX];
};

/*
 * The spool's top directory: dir (--spool; refused if it is a symbolic
 * link, used as it is if it exists), or the cache directory's agent-spool
 * when dir is NULL; made 0700 if missing.  Its fd, or -1
 * (said on stderr; the agent then keeps unsent pushes in memory only).
 */
int spool_root_open(const char *dir, char *path, size_t len);

/*
 * The directory of one target (kind=url) under the root, locked (flock)
 * while open: another agent sending the same pushes would send them twice.
 * 0, or -1 (said).
 */
int spool_dir_open(struct spool_dir *sd, int rootfd, const char *root_path, enum push_kind kind,
		   const char *url);
void spool_dir_close(struct spool_dir *sd);

/* A push's file name: the period's start and the series' number in it. */
void spool_name(char name[SPOOL_NAME_LEN], uint64_t start_ns, uint32_t series);

/* Write one push as name.  0, or -errno (not said: the queue says it, once a period). */
int spool_write(const struct spool_dir *sd, const char *name, const uint8_t *body, size_t len);

/* Read one back (malloc'd into *body).  0, or -errno. */
int spool_read(const struct spool_dir *sd, const char *name, uint8_t **body, size_t *len);

void spool_remove(const struct spool_dir *sd, const char *name);

/* The pushes waiting in sd, oldest first: names (malloc'd array) and sizes.  Count, or -1. */
int spool_list(const struct spool_dir *sd, char (**names)[SPOOL_NAME_LEN], uint64_t **sizes);

#endif /* STITCH_AGENT_SPOOL_H */
