// SPDX-License-Identifier: GPL-2.0
/*
 * Separate debug information.  Every candidate file comes from a traced
 * process's file system, so it is opened without blocking (a FIFO must not
 * hang us), must be a regular file outside procfs/sysfs, an ELF of the same
 * class and machine, and carry the binary's build-id (and for debuglink the
 * right CRC) before we believe a single byte of it.
 */
#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <zlib.h>

#include "symbolize/debuginfo.h"
#include "symbolize/debuginfod_fetch.h"
#include "util/elf_util.h"

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif
#ifndef SYSFS_MAGIC
#define SYSFS_MAGIC 0x62656572
#endif

/* The binary facts a debug file must agree with. */
struct bin_identity {
	int elf_class;
	unsigned int machine;
	uint8_t build_id[STITCH_BUILD_ID_MAX];
	size_t build_id_len;
};

static int identify(Elf *elf, struct bin_identity *id)
{
	GElf_Ehdr ehdr;

	if (elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &ehdr))
		return -EINVAL;
	id->elf_class = gelf_getclass(elf);
	id->machine = ehdr.e_machine;
	id->build_id_len = elf_build_id(elf, id->build_id);
	return 0;
}

static bool same_identity(const struct bin_identity *a, const struct bin_identity *b)
{
	return a->elf_class == b->elf_class && a->machine == b->machine &&
	       a->build_id_len == b->build_id_len &&
	       memcmp(a->build_id, b->build_id, a->build_id_len) == 0;
}

/* Open a regular file without following it into a FIFO or procfs. */
static int open_candidate(const char *path)
{
	struct statfs sfs;
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    fstatfs(fd, &sfs) != 0 || sfs.f_type == PROC_SUPER_MAGIC ||
	    sfs.f_type == SYSFS_MAGIC) {
		close(fd);
		return -EINVAL;
	}
	return fd;
}

void debug_file_close(struct debug_file *df)
{
	if (df->elf)
		elf_end(df->elf);
	if (df->fd >= 0)
		close(df->fd);
	df->elf = NULL;
	df->fd = -1;
	df->origin = DEBUG_NONE;
	df->path[0] = '\0';
}

/* Open `path` as ELF if it matches `want`; fills df (origin left to caller). */
static int try_debug_file(const char *path, const struct bin_identity *want,
			  const uint32_t *want_crc, struct debug_file *df)
{
	struct bin_identity got;
	uint32_t crc;
	Elf *elf;
	int fd;

	fd = open_candidate(path);
	if (fd < 0)
		return fd;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || identify(elf, &got) != 0 || !same_identity(want, &got))
		goto reject;
	if (want_crc && (debuglink_file_crc(fd, &crc) != 0 || crc != *want_crc))
		goto reject;
	df->elf = elf;
	df->fd = fd;
	snprintf(df->path, sizeof(df->path), "%s", path);
	return 0;
reject:
	if (elf)
		elf_end(elf);
	close(fd);
	return -ENOENT;
}

static bool join_path(char *out, size_t size, const char *a, const char *b,
		      const char *c, const char *d, const char *e)
{
	int n = snprintf(out, size, "%s%s%s%s%s", a, b, c, d, e);

	return n > 0 && (size_t)n < size;
}

static int find_by_build_id(const struct bin_identity *want, const char *root,
			    struct debug_file *df)
{
	char hex[2 * STITCH_BUILD_ID_MAX + 1], rel[PATH_MAX], path[PATH_MAX];
	const char *roots[2] = { root, "" };
	int i;

	/* One byte names the directory, and the rest must not be empty. */
	if (want->build_id_len < 2)
		return -ENOENT;
	build_id_hex(want->build_id, want->build_id_len, hex);
	snprintf(rel, sizeof(rel), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	for (i = 0; i < 2; i++) {
		if (i == 1 && root[0] == '\0')
			break;
		if (!join_path(path, sizeof(path), roots[i], rel, "", "", ""))
			continue;
		if (try_debug_file(path, want, NULL, df) == 0) {
			df->origin = DEBUG_BUILD_ID;
			return 0;
		}
	}
	return -ENOENT;
}

int debuglink_read(Elf *bin, char *name, size_t name_size, uint32_t *crc)
{
	struct elf_section sec;
	const uint8_t *p;
	size_t len, crc_off;
	GElf_Ehdr ehdr;
	uint32_t v;

	if (elf_find_section(bin, ".gnu_debuglink", &sec) != 0 || !sec.data ||
	    !gelf_getehdr(bin, &ehdr))
		return -ENOENT;
	len = strnlen((const char *)sec.data, sec.size);
	/* The name is NUL-terminated and padded to 4 bytes, then the CRC. */
	crc_off = (len + 4) & ~(size_t)3;
	if (len == 0 || len >= sec.size || crc_off > sec.size || sec.size - crc_off < 4 ||
	    len >= name_size)
		return -ENOENT;
	memcpy(name, sec.data, len + 1);
	/* A bare file name: nothing that could walk out of the directory. */
	if (strchr(name, '/') || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return -ENOENT;
	p = sec.data + crc_off;
	if (ehdr.e_ident[EI_DATA] == ELFDATA2MSB)
		v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	else
		v = (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
	*crc = v;
	return 0;
}

int debuglink_file_crc(int fd, uint32_t *crc)
{
	static const size_t chunk = 1 << 16;
	unsigned char *buf;
	uLong c = crc32(0L, Z_NULL, 0);
	off_t off = 0;
	struct stat st;
	ssize_t n;

	if (fstat(fd, &st) != 0 || (unsigned long long)st.st_size > DEBUGLINK_MAX_FILE_SIZE)
		return -EFBIG;
	buf = malloc(chunk);
	if (!buf)
		return -ENOMEM;
	/* Read only what fstat promised: a file growing under us cannot loop. */
	while (off < st.st_size) {
		size_t want = (size_t)(st.st_size - off) < chunk ? (size_t)(st.st_size - off) : chunk;

		n = pread(fd, buf, want, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		c = crc32(c, buf, (uInt)n);
		off += n;
	}
	free(buf);
	if (off != st.st_size)
		return -EIO;
	*crc = (uint32_t)c;
	return 0;
}

/* "/usr/bin/perl" -> "/usr/bin"; "perl" -> "." (our own cwd only). */
static int binary_dir(const char *path, const char *root, char *dir, size_t size)
{
	const char *slash = strrchr(path, '/');
	size_t len;

	if (!slash) {
		if (root[0] != '\0')
			return -ENOENT;
		snprintf(dir, size, ".");
		return 0;
	}
	len = (size_t)(slash - path);
	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(dir, path, len);
	dir[len] = '\0';
	return 0;
}

/* with_crc false: a candidate with the build-id will do (debug_file_exists()). */
static int find_by_debuglink(Elf *bin, const struct bin_identity *want, const char *path,
			     const char *root, bool with_crc, struct debug_file *df)
{
	char name[NAME_MAX + 1], dir[PATH_MAX], cand[PATH_MAX];
	uint32_t crc;
	int i;

	if (!path || debuglink_read(bin, name, sizeof(name), &crc) != 0 ||
	    binary_dir(path, root, dir, sizeof(dir)) != 0)
		return -ENOENT;
	for (i = 0; i < 4; i++) {
		bool ok;

		switch (i) {
		case 0:
			ok = join_path(cand, sizeof(cand), root, dir, "/", name, "");
			break;
		case 1:
			ok = join_path(cand, sizeof(cand), root, dir, "/.debug/", name, "");
			break;
		case 2:
			ok = join_path(cand, sizeof(cand), root, "/usr/lib/debug", dir, "/", name);
			break;
		default:
			/* Our own /usr/lib/debug, for a target in another mount ns. */
			if (root[0] == '\0')
				continue;
			ok = join_path(cand, sizeof(cand), "", "/usr/lib/debug", dir, "/", name);
			break;
		}
		if (ok && try_debug_file(cand, want, with_crc ? &crc : NULL, df) == 0) {
			df->origin = DEBUG_DEBUGLINK;
			return 0;
		}
	}
	return -ENOENT;
}

int debug_file_find(Elf *bin, const char *path, const char *root, struct debug_file *out)
{
	struct bin_identity want;

	out->elf = NULL;
	out->fd = -1;
	out->origin = DEBUG_NONE;
	out->path[0] = '\0';
	if (!root)
		root = "";
	if (identify(bin, &want) != 0)
		return -ENOENT;
	if (find_by_build_id(&want, root, out) == 0)
		return 0;
	return find_by_debuglink(bin, &want, path, root, true, out);
}

bool debug_file_exists(Elf *bin, const char *path, const char *root)
{
	struct bin_identity want;
	struct debug_file df = { .fd = -1 };
	bool found;

	if (!root)
		root = "";
	if (identify(bin, &want) != 0)
		return false;
	found = find_by_build_id(&want, root, &df) == 0 ||
		find_by_debuglink(bin, &want, path, root, false, &df) == 0;
	debug_file_close(&df);
	return found;
}

int debug_file_fetch(Elf *bin, struct debug_file *out)
{
	struct bin_identity want;
	char path[PATH_MAX];

	out->elf = NULL;
	out->fd = -1;
	out->origin = DEBUG_NONE;
	out->path[0] = '\0';
	if (identify(bin, &want) != 0 || want.build_id_len < 2 ||
	    debuginfod_fetch_debuginfo(want.build_id, want.build_id_len, path, sizeof(path)) != 0 ||
	    try_debug_file(path, &want, NULL, out) != 0)
		return -ENOENT;
	out->origin = DEBUG_DEBUGINFOD;
	return 0;
}

/* Grow the output buffer by doubling, never past MINIDEBUG_MAX_SIZE. */
static int grow_output(lzma_stream *strm, uint8_t **buf, size_t *cap)
{
	size_t used = *cap - strm->avail_out;
	size_t ncap = *cap * 2;
	uint8_t *p;

	if (*cap >= MINIDEBUG_MAX_SIZE)
		return -EFBIG;
	if (ncap > MINIDEBUG_MAX_SIZE)
		ncap = MINIDEBUG_MAX_SIZE;
	p = realloc(*buf, ncap);
	if (!p)
		return -ENOMEM;
	*buf = p;
	*cap = ncap;
	strm->next_out = p + used;
	strm->avail_out = ncap - used;
	return 0;
}

static int xz_decompress(const void *in, size_t len, uint8_t **out, size_t *out_len)
{
	lzma_stream strm = LZMA_STREAM_INIT;
	size_t cap = 64 * 1024;
	uint8_t *buf;
	lzma_ret ret;
	int err = 0;

	/* The decoder's own memory is capped too (dictionary size is input). */
	if (lzma_stream_decoder(&strm, 64u << 20, 0) != LZMA_OK)
		return -ENOMEM;
	buf = malloc(cap);
	if (!buf) {
		lzma_end(&strm);
		return -ENOMEM;
	}
	strm.next_in = in;
	strm.avail_in = len;
	strm.next_out = buf;
	strm.avail_out = cap;
	for (;;) {
		ret = lzma_code(&strm, LZMA_FINISH);
		if (ret == LZMA_STREAM_END)
			break;
		if (ret != LZMA_OK) {
			err = ret == LZMA_MEM_ERROR || ret == LZMA_MEMLIMIT_ERROR ? -ENOMEM : -EINVAL;
			break;
		}
		if (strm.avail_out == 0) {
			err = grow_output(&strm, &buf, &cap);
			if (err)
				break;
		}
	}
	if (!err) {
		*out_len = cap - strm.avail_out;
		*out = buf;
	} else {
		free(buf);
	}
	lzma_end(&strm);
	return err;
}

void minidebug_close(struct minidebug *md)
{
	if (md->elf)
		elf_end(md->elf);
	free(md->buf);
	memset(md, 0, sizeof(*md));
}

int minidebug_open_image(const void *xz, size_t len, struct minidebug *out)
{
	uint8_t *buf;
	size_t size;
	int err;

	memset(out, 0, sizeof(*out));
	elf_util_init();
	err = xz_decompress(xz, len, &buf, &size);
	if (err)
		return err;
	out->buf = buf;
	out->size = size;
	out->elf = elf_memory((char *)buf, size);
	if (!out->elf || elf_kind(out->elf) != ELF_K_ELF) {
		minidebug_close(out);
		return -EINVAL;
	}
	return 0;
}

int minidebug_open(Elf *bin, struct minidebug *out)
{
	struct elf_section sec;

	memset(out, 0, sizeof(*out));
	if (elf_find_section(bin, ".gnu_debugdata", &sec) != 0 || !sec.data || sec.size == 0)
		return -ENOENT;
	return minidebug_open_image(sec.data, sec.size, out);
}
