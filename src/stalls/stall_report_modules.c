// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/elf_util.h"
#include "stalls/stall_report_modules.h"
#include "symbolize/symbolize.h"
#include "util/array.h"

struct stall_module {
	char *path;
	char build_id[2 * STITCH_BUILD_ID_MAX + 1];
	struct binary *bin;
	bool stub;		/* ours to free; real ones belong to the cache */
};

int stall_modules_init(struct stall_modules *m, const char *root)
{
	memset(m, 0, sizeof(*m));
	m->root_fd = -1;
	m->root = strdup(root ? root : "");
	if (!m->root)
		return -ENOMEM;
	if (root && *root) {
		m->root_fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (m->root_fd < 0) {
			int err = -errno;

			free(m->root);
			m->root = NULL;
			return err;
		}
	}
	return binary_cache_init(&m->bins);
}

void stall_modules_free(struct stall_modules *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		struct stall_module *sm = m->mods[i];

		if (sm->stub) {
			free(sm->bin->path);
			free(sm->bin);
		}
		free(sm->path);
		free(sm);
	}
	free(m->mods);
	binary_cache_free(&m->bins);
	if (m->root_fd >= 0)
		close(m->root_fd);
	free(m->root);
}

/*
 * Open path as the traced process saw it.  Under a root, RESOLVE_IN_ROOT
 * keeps "..", absolute symlinks and the like inside it: the path comes from
 * an untrusted log, and a container's /etc/x must never mean the host's.
 */
static int open_in_root(struct stall_modules *m, const char *path)
{
	/* O_NONBLOCK: a FIFO named by the log must not hang us; only files are used. */
	struct open_how how = {
		.flags = O_RDONLY | O_CLOEXEC | O_NONBLOCK,
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	struct stat st;
	int fd;

	if (m->root_fd < 0)
		fd = open(path, how.flags);
	else
		fd = syscall(SYS_openat2, m->root_fd, path, &how, sizeof(how));
	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

static bool build_id_matches(const struct binary *b, const char *want)
{
	char hex[2 * STITCH_BUILD_ID_MAX + 1];

	if (!*want)
		return true;	/* the report had none: the path is all we have */
	build_id_hex(b->build_id, b->build_id_len, hex);
	return b->build_id_len && strcmp(hex, want) == 0;
}

/* Deleted since it ran: the executable by build-id from debuginfod, if a server has it. */
static struct binary *fetch_by_build_id(struct stall_modules *m, const char *path,
					const char *build_id)
{
	uint8_t id[STITCH_BUILD_ID_MAX];
	size_t len = strlen(build_id) / 2, i;

	if (len < 2 || len > STITCH_BUILD_ID_MAX || strlen(build_id) % 2)
		return NULL;
	for (i = 0; i < len; i++) {
		unsigned int byte;

		if (!isxdigit((unsigned char)build_id[2 * i]) ||
		    !isxdigit((unsigned char)build_id[2 * i + 1]) ||
		    sscanf(build_id + 2 * i, "%2x", &byte) != 1)
			return NULL;
		id[i] = (uint8_t)byte;
	}
	return binary_fetch_by_build_id(&m->bins, id, len, path);
}

/*
 * The binary at path if it is the one that ran, else its debug file by
 * build-id, else (deleted) its executable from debuginfod.
 */
static struct binary *find_real(struct stall_modules *m, const char *path, const char *build_id)
{
	char dbg[64 + 2 * STITCH_BUILD_ID_MAX];
	struct binary *b;
	int fd, pass;

	fd = open_in_root(m, path);
	if (fd >= 0) {
		b = binary_get_fd(&m->bins, fd, path, m->root);
		if (b && build_id_matches(b, build_id))
			return b;
	}
	if (strlen(build_id) < 3)
		return NULL;
	/* The debug file holds the same addresses and (its own) symbols and DWARF. */
	snprintf(dbg, sizeof(dbg), "/usr/lib/debug/.build-id/%.2s/%s.debug", build_id,
		 build_id + 2);
	for (pass = 0; pass < 2; pass++) {
		if (pass == 0 && m->root_fd < 0)
			continue;
		if (pass == 0) {
			fd = open_in_root(m, dbg);
		} else {
			int root_fd = m->root_fd;

			m->root_fd = -1;	/* the host's own debug files */
			fd = open_in_root(m, dbg);
			m->root_fd = root_fd;
		}
		if (fd < 0)
			continue;
		b = binary_get_fd(&m->bins, fd, path, pass == 0 ? m->root : "");
		if (b && build_id_matches(b, build_id))
			return b;
	}
	return fetch_by_build_id(m, path, build_id);
}

static struct binary *make_stub(const char *path)
{
	struct binary *b = calloc(1, sizeof(*b));
	const char *slash;

	if (!b)
		return NULL;
	b->fd = -1;
	b->path = strdup(path);
	if (!b->path) {
		free(b);
		return NULL;
	}
	slash = strrchr(b->path, '/');
	b->name = slash ? slash + 1 : b->path;
	b->syms_opened = true;	/* no symbols: frames stay module+0xOFF */
	return b;
}

/*
 * "/opt/app/bin/../lib/x.so" (an $ORIGIN/../lib rpath) as "/opt/app/lib/x.so":
 * ".." and "." resolved by name, never above "/".  The debug-file lookups
 * build paths from this one by text, so it must not climb out of the root.
 */
static char *normalize(const char *path)
{
	size_t n = strlen(path), len = 0;
	char *out = malloc(n + 2);
	const char *p = path;

	if (!out)
		return NULL;
	while (*p) {
		const char *e;
		size_t k;

		while (*p == '/')
			p++;
		e = strchrnul(p, '/');
		k = e - p;
		if (k == 1 && p[0] == '.') {
			/* nothing */
		} else if (k == 2 && p[0] == '.' && p[1] == '.') {
			while (len > 0 && out[len - 1] != '/')
				len--;
			if (len > 0)
				len--;	/* the '/' before the dropped name */
		} else if (k) {
			out[len++] = '/';
			memcpy(out + len, p, k);
			len += k;
		}
		p = e;
	}
	if (!len)
		out[len++] = '/';
	out[len] = '\0';
	return out;
}

struct binary *stall_module_get(struct stall_modules *m, const char *path, const char *build_id)
{
	struct stall_module *sm;
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->mods[i]->path, path) && !strcmp(m->mods[i]->build_id, build_id))
			return m->mods[i]->bin;
	if (m->n == STALL_MODULES_MAX || strlen(build_id) >= sizeof(sm->build_id))
		return NULL;
	if (array_reserve((void **)&m->mods, &m->cap, m->n + 1, sizeof(*m->mods), 16))
		return NULL;
	sm = calloc(1, sizeof(*sm));
	if (!sm)
		return NULL;
	sm->path = strdup(path);
	strcpy(sm->build_id, build_id);
	/* Only absolute paths: a relative one would depend on our working directory. */
	if (path[0] == '/') {
		char *clean = normalize(path);

		if (clean)
			sm->bin = find_real(m, clean, build_id);
		free(clean);
	}
	if (!sm->bin) {
		sm->bin = make_stub(path);
		sm->stub = true;
	}
	if (!sm->path || !sm->bin) {
		if (sm->stub && sm->bin) {
			free(sm->bin->path);
			free(sm->bin);
		}
		free(sm->path);
		free(sm);
		return NULL;
	}
	m->mods[m->n++] = sm;
	return sm->bin;
}
