// SPDX-License-Identifier: GPL-2.0
/*
 * The cache of decompressed DWARF (see debug_cache.h).  The file it stands
 * for was checked by our caller (build-id, CRC); a cache entry is checked
 * against that file before it is used, so a stale, torn or planted entry
 * costs a rebuild, never a wrong name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbolize/debug_cache.h"
#include "symbolize/debuginfo.h"
#include "util/cache_dir.h"
#include "util/elf_util.h"
#include "util/fd_io.h"

static struct {
	bool tried;
	int dirfd;		/* -1: no cache */
	char path[PATH_MAX];
	struct debug_cache_stats st;
} dc = { .dirfd = -1 };

/* Find, make and check the directory, once per run. */
static bool dir_ready(void)
{
	if (dc.tried)
		return dc.dirfd >= 0;
	dc.tried = true;
	dc.dirfd = cache_dir_open("debug", dc.path, sizeof(dc.path));
	return dc.dirfd >= 0;
}

const char *debug_cache_dir(void)
{
	return dc.dirfd >= 0 ? dc.path : NULL;
}

void debug_cache_get_stats(struct debug_cache_stats *st)
{
	*st = dc.st;
}

static const char *section_name(Elf *elf, size_t shstrndx, const GElf_Shdr *sh)
{
	const char *name = elf_strptr(elf, shstrndx, sh->sh_name);

	return name ? name : "";
}

static bool is_debug(const char *name)
{
	return strncmp(name, ".debug_", 7) == 0;
}

/*
 * How many .debug_* sections are compressed, and their size decompressed;
 * -ENOTSUP for the old .zdebug_* form (libdw renames those itself).
 */
static int count_compressed(Elf *elf, unsigned long long *total)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	GElf_Chdr ch;
	int n = 0;

	*total = 0;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return -EINVAL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return -EINVAL;
		name = section_name(elf, shstrndx, &sh);
		if (strncmp(name, ".zdebug", 7) == 0)
			return -ENOTSUP;
		if (!is_debug(name) || !(sh.sh_flags & SHF_COMPRESSED))
			continue;
		if (!gelf_getchdr(scn, &ch))
			return -EINVAL;
		*total += ch.ch_size;
		n++;
	}
	return n;
}

static bool find_shdr(Elf *elf, size_t shstrndx, const char *want, GElf_Shdr *out)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, out) && strcmp(section_name(elf, shstrndx, out), want) == 0)
			return true;
	}
	return false;
}

/*
 * The entry stands for src: same class, machine and build-id, and every
 * .debug_* section of src is there, uncompressed, of the size it inflates to.
 */
static bool entry_matches(Elf *src, Elf *entry)
{
	uint8_t a[STITCH_BUILD_ID_MAX], b[STITCH_BUILD_ID_MAX];
	size_t sstr, estr, alen, blen;
	GElf_Ehdr sh_e, en_e;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, eh;
	GElf_Chdr ch;

	if (elf_kind(entry) != ELF_K_ELF || gelf_getclass(src) != gelf_getclass(entry) ||
	    !gelf_getehdr(src, &sh_e) || !gelf_getehdr(entry, &en_e) ||
	    sh_e.e_machine != en_e.e_machine)
		return false;
	alen = elf_build_id(src, a);
	blen = elf_build_id(entry, b);
	if (alen < 2 || alen != blen || memcmp(a, b, alen) != 0)
		return false;
	if (elf_getshdrstrndx(src, &sstr) != 0 || elf_getshdrstrndx(entry, &estr) != 0)
		return false;
	while ((scn = elf_nextscn(src, scn))) {
		const char *name;
		uint64_t size;

		if (!gelf_getshdr(scn, &sh))
			return false;
		name = section_name(src, sstr, &sh);
		if (!is_debug(name))
			continue;
		size = sh.sh_size;
		if (sh.sh_flags & SHF_COMPRESSED) {
			if (!gelf_getchdr(scn, &ch))
				return false;
			size = ch.ch_size;
		}
		if (!find_shdr(entry, estr, name, &eh) || (eh.sh_flags & SHF_COMPRESSED) ||
		    eh.sh_type != sh.sh_type || eh.sh_size != size)
			return false;
	}
	return true;
}

/* Open entry `name` if it is ours and stands for src. */
static int open_entry(const char *name, Elf *src, struct debug_file *out)
{
	struct stat st;
	Elf *elf;
	int fd;

	fd = openat(dc.dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !cache_ours(&st)) {
		close(fd);
		return -EPERM;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || !entry_matches(src, elf)) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -ESTALE;
	}
	out->elf = elf;
	out->fd = fd;
	/* For messages only: a path too long is left out. */
	if (snprintf(out->path, sizeof(out->path), "%s/%s", dc.path, name) >= (int)sizeof(out->path))
		out->path[0] = '\0';
	return 0;
}

/* Bytes the directory holds (regular files only). */
static unsigned long long dir_bytes(void)
{
	unsigned long long sum = 0;
	struct dirent *de;
	struct stat st;
	/*
	 * Its own open directory: a dup shares our offset, which the first
	 * count left at the end (every later count was 0: no limit).
	 */
	int fd = openat(dc.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	if (fd < 0)
		return ~0ull;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return ~0ull;
	}
	while ((de = readdir(d))) {
		if (fstatat(dc.dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			sum += (unsigned long long)st.st_size;
	}
	closedir(d);
	return sum;
}

/* Inflate every compressed .debug_* section of the ELF open in fd, in place. */
static int decompress_file(int fd)
{
	Elf *elf = elf_begin(fd, ELF_C_RDWR, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	GElf_Shdr sh;
	int err = 0;

	if (!elf)
		return -EINVAL;
	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		err = -EINVAL;
	while (!err && (scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh)) {
			err = -EINVAL;
			break;
		}
		if (is_debug(section_name(elf, shstrndx, &sh)) && (sh.sh_flags & SHF_COMPRESSED) &&
		    elf_compress(scn, 0, 0) < 0)
			err = -EINVAL;
	}
	/* libelf lays the sections out again, and sizes the file. */
	if (!err && elf_update(elf, ELF_C_WRITE) < 0)
		err = -EIO;
	elf_end(elf);
	return err;
}

/* Write entry `name` for src: a copy of src, decompressed, renamed into place. */
static int build_entry(Elf *src, const char *name, unsigned long long inflated)
{
	char tmp[NAME_MAX + 1];
	size_t size = 0;
	char *raw;
	int fd, err;

	raw = elf_rawfile(src, &size);
	if (!raw || size == 0)
		return -EINVAL;
	if (dir_bytes() + size + inflated > DEBUG_CACHE_MAX_TOTAL)
		return -ENOSPC;
	if (snprintf(tmp, sizeof(tmp), ".tmp.%d.%s", (int)getpid(), name) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlinkat(dc.dirfd, tmp, 0);
	fd = openat(dc.dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	err = fd_write_all(fd, raw, size);
	if (!err)
		err = decompress_file(fd);
	close(fd);
	/* Complete or not there: readers never see a file being written. */
	if (!err && renameat(dc.dirfd, tmp, dc.dirfd, name) != 0)
		err = -errno;
	if (err)
		unlinkat(dc.dirfd, tmp, 0);
	return err;
}

int debug_cache_open(Elf *elf, struct debug_file *out)
{
	char hex[2 * STITCH_BUILD_ID_MAX + 1], name[2 * STITCH_BUILD_ID_MAX + 8];
	uint8_t id[STITCH_BUILD_ID_MAX];
	unsigned long long inflated;
	size_t id_len;
	int n, err;

	out->elf = NULL;
	out->fd = -1;
	n = count_compressed(elf, &inflated);
	if (n == 0)
		return -ENODATA;
	id_len = elf_build_id(elf, id);
	if (n < 0 || inflated > DEBUG_CACHE_MAX_FILE || id_len < 2 || !dir_ready()) {
		dc.st.uncached++;
		return n < 0 ? n : -ENOENT;
	}
	build_id_hex(id, id_len, hex);
	snprintf(name, sizeof(name), "%s.debug", hex);
	err = open_entry(name, elf, out);
	if (err == 0) {
		dc.st.used++;
		return 0;
	}
	/* Stale, torn or not ours: in our own directory, replace it. */
	if (err != -ENOENT)
		unlinkat(dc.dirfd, name, 0);
	err = build_entry(elf, name, inflated);
	if (!err)
		err = open_entry(name, elf, out);
	if (err)
		dc.st.uncached++;
	else
		dc.st.written++;
	return err;
}
