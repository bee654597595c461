// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/input.h"
#include "formats/pprof.h"
#include "profile/values_frame.h"

#define MAX_FOLDED_FRAMES 65536

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

#define FOLDED_NAME_MAX 4096
#define CUT_MARK "..."

/*
 * A name of at most FOLDED_NAME_MAX - 1 bytes, cut at a NUL byte: memory
 * stays bounded, and a name that was cut says so with a "..." suffix (and
 * is counted in p->names_cut) instead of passing for the whole name.
 */
static size_t folded_name(struct profile *p, char *buf, const char *label, size_t len)
{
	const char *nul = memchr(label, '\0', len);
	bool cut = nul || len >= FOLDED_NAME_MAX;

	if (nul)
		len = nul - label;
	if (len > FOLDED_NAME_MAX - sizeof(CUT_MARK))
		len = FOLDED_NAME_MAX - sizeof(CUT_MARK);
	memcpy(buf, label, len);
	if (cut) {
		memcpy(buf + len, CUT_MARK, sizeof(CUT_MARK) - 1);
		len += sizeof(CUT_MARK) - 1;
		p->names_cut++;
	}
	buf[len] = '\0';
	return len;
}

/* Interpret one folded frame label: its kind from the suffix. */
static uint32_t folded_frame(struct profile *p, const char *label, size_t len)
{
	struct prof_frame f = { .kind = FRAME_USER };
	char buf[FOLDED_NAME_MAX];

	len = folded_name(p, buf, label, len);
	if (len > 4 && strcmp(buf + len - 4, "_[k]") == 0) {
		f.kind = FRAME_KERNEL;
		buf[len - 4] = '\0';
	} else if (len > 4 && strcmp(buf + len - 4, "_[i]") == 0) {
		f.kind = FRAME_INLINED;
		buf[len - 4] = '\0';
	} else if (len > 4 && strcmp(buf + len - 4, "_[j]") == 0) {
		f.kind = FRAME_JIT;
		buf[len - 4] = '\0';
	} else if (strcmp(buf, "[truncated]") == 0 || strcmp(buf, "[unknown]") == 0) {
		f.kind = FRAME_MARK;
	} else if (values_frame_is(buf)) {
		/* --fetch's values: a values frame again, whose pairs pprof writes as labels */
		f.kind = FRAME_MARK;
		f.module = profile_str(p, FRAME_VALUES_MODULE);
		if (f.module == UINT32_MAX)
			return UINT32_MAX;
	}
	f.name = profile_str(p, buf);
	if (f.name == UINT32_MAX)
		return UINT32_MAX;
	return profile_frame(p, &f);
}

static int folded_line(struct profile *p, const char *line, size_t len, uint32_t *ids)
{
	const char *space, *end = line + len, *s;
	struct prof_sample labels = { 0 };
	unsigned long long count;
	uint32_t n = 0;
	char num[32], *nend;
	size_t nl;

	/* The count follows the last space. */
	space = NULL;
	for (s = end; s > line; s--) {
		if (s[-1] == ' ') {
			space = s - 1;
			break;
		}
	}
	if (!space || space == line)
		return -EINVAL;
	nl = end - space - 1;
	if (nl == 0 || nl >= sizeof(num))
		return -EINVAL;
	memcpy(num, space + 1, nl);
	num[nl] = '\0';
	errno = 0;
	count = strtoull(num, &nend, 10);
	if (errno || *nend || num[0] == '-')
		return -EINVAL;
	if (count > PROFILE_MAX_COUNT)
		return -ERANGE;
	/* comm;frame;...;frame */
	for (s = line; s < space;) {
		const char *semi = memchr(s, ';', space - s);
		const char *stop = semi ? semi : space;

		if (s == line) {
			char comm[256];
			size_t cl = stop - s < (long)sizeof(comm) - 1 ? (size_t)(stop - s) : sizeof(comm) - 1;

			memcpy(comm, s, cl);
			comm[cl] = '\0';
			labels.comm = profile_str(p, comm);
		} else if (stop > s) {
			if (n == MAX_FOLDED_FRAMES)
				return -E2BIG;
			ids[n] = folded_frame(p, s, stop - s);
			if (ids[n] == UINT32_MAX)
				return -ENOMEM;
			n++;
		}
		s = semi ? semi + 1 : space;
	}
	labels.count = count;
	return profile_add_sample(p, ids, n, &labels);
}

int profile_read_folded(const char *data, size_t len, struct profile *p, const char *name,
			char *err, size_t errlen)
{
	uint32_t *ids = malloc(MAX_FOLDED_FRAMES * sizeof(*ids));
	size_t off = 0, lineno = 0;
	int rc = 0;

	if (!ids)
		return -ENOMEM;
	while (off < len && !rc) {
		const char *line = data + off, *nl = memchr(line, '\n', len - off);
		size_t ll = nl ? (size_t)(nl - line) : len - off;

		off += ll + (nl ? 1 : 0);
		lineno++;
		if (ll && line[ll - 1] == '\r')
			ll--;
		if (ll == 0 || line[0] == '#')
			continue;
		rc = folded_line(p, line, ll, ids);
		if (rc == -EINVAL)
			snprintf(err, errlen, "%s:%zu: not a folded stack ('comm;frame;... COUNT')",
				 name, lineno);
		else if (rc == -ERANGE)
			snprintf(err, errlen, "%s:%zu: count out of range (at most 2^53)", name,
				 lineno);
		else if (rc == -E2BIG)
			snprintf(err, errlen, "%s:%zu: more than %d frames", name, lineno,
				 MAX_FOLDED_FRAMES);
		else if (rc)
			snprintf(err, errlen, "%s:%zu: out of memory", name, lineno);
	}
	free(ids);
	if (!rc)
		rc = profile_merge_samples(p);
	return rc;
}

int profile_read_file(const char *path, struct profile *p, char *err, size_t errlen)
{
	struct stat st;
	void *data;
	int fd, rc;

	profile_init(p);
	/* O_NONBLOCK: opening a FIFO without a writer would wait forever. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0 || fstat(fd, &st) != 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot read %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		snprintf(err, errlen, "%s is not a regular file", path);
		return -EINVAL;
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;	/* an empty profile */
	}
	data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (data == MAP_FAILED) {
		snprintf(err, errlen, "cannot map %s: %s", path, strerror(errno));
		return -errno;
	}
	if ((st.st_size >= 2 && ((uint8_t *)data)[0] == 0x1f && ((uint8_t *)data)[1] == 0x8b) ||
	    ends_with(path, ".pb") || ends_with(path, ".pb.gz"))
	{
		char why[400] = "";

		rc = pprof_read(data, st.st_size, p, why, sizeof(why));
		if (rc)
			snprintf(err, errlen, "%s: not a readable pprof profile: %s", path,
				 why[0] ? why : strerror(-rc));
	} else
		rc = profile_read_folded(data, st.st_size, p, path, err, errlen);
	munmap(data, st.st_size);
	return rc;
}
