// SPDX-License-Identifier: GPL-2.0
/*
 * Unwind tables kept on disk by build ID (see table_cache.h).  An entry is
 * believed only when its digest is the one computed from the binary now
 * and every row reads as a table's row: a stale, torn or planted entry
 * costs a build, never a wrong frame.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unwind/table_cache.h"
#include "util/arch.h"
#include "util/cache_dir.h"
#include "util/elf_util.h"
#include "util/fd_io.h"

#define TABLE_MAGIC "STITCHT1"

/* An entry's header; the rows follow it, as struct stitch_unwind_row. */
struct table_file {
	char magic[8];
	uint16_t machine;	/* STITCH_ELF_MACHINE */
	uint16_t row_size;	/* sizeof(struct stitch_unwind_row) */
	uint32_t reserved;	/* 0 */
	uint64_t nr;
	uint8_t digest[TABLE_CACHE_DIGEST];
};
_Static_assert(sizeof(struct table_file) == 56, "entries written before read the same");

static struct {
	bool tried;
	int dirfd;		/* -1: no cache */
	char path[PATH_MAX];
	uint8_t self[STITCH_BUILD_ID_MAX];
	size_t self_len;
	uint64_t limit;		/* bytes the directory may hold */
	size_t min_rows;	/* the smallest table kept */
	struct table_cache_stats st;
} tc = { .dirfd = -1, .limit = TABLE_CACHE_MAX_BYTES, .min_rows = TABLE_CACHE_MIN_ROWS };

/* Our own build ID: another stitch may build other rows from the same binary. */
static size_t self_build_id(uint8_t out[STITCH_BUILD_ID_MAX])
{
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	size_t len = 0;
	Elf *elf;

	if (fd < 0)
		return 0;
	elf_util_init();
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (elf) {
		len = elf_build_id(elf, out);
		elf_end(elf);
	}
	close(fd);
	return len;
}

/* Find, make and check the directory, once per run. */
static bool dir_ready(void)
{
	if (tc.tried)
		return tc.dirfd >= 0;
	tc.tried = true;
	tc.self_len = self_build_id(tc.self);
	if (tc.self_len < 2)
		return false;
	tc.dirfd = cache_dir_open("tables", tc.path, sizeof(tc.path));
	return tc.dirfd >= 0;
}

const char *table_cache_dir(void)
{
	return tc.dirfd >= 0 ? tc.path : NULL;
}

void table_cache_get_stats(struct table_cache_stats *st)
{
	*st = tc.st;
}

void table_cache_set_limits(size_t min_rows, uint64_t bytes)
{
	tc.min_rows = min_rows;
	tc.limit = bytes;
}

/* Bytes [off, off + len) of the file image, if they are in it. */
static bool digest_range(EVP_MD_CTX *ctx, const char *raw, size_t size, uint64_t off, uint64_t len)
{
	if (off > size || len > size - off)
		return false;
	return EVP_DigestUpdate(ctx, raw + off, len) == 1;
}

/* The sections cfi_build_table() reads, and the names it finds them by. */
static bool section_read_by_builder(const char *name)
{
	return !strcmp(name, ".eh_frame") || !strcmp(name, ".debug_frame") ||
	       !strcmp(name, ".shstrtab");
}

/* Headers, then each section read, its index, place and size before its bytes. */
static bool digest_elf(EVP_MD_CTX *ctx, Elf *elf)
{
	size_t size = 0, shnum, shstrndx;
	Elf_Scn *scn = NULL;
	const char *raw;
	GElf_Ehdr eh;
	uint64_t sz;

	raw = elf_rawfile(elf, &size);
	if (!raw || !size || !gelf_getehdr(elf, &eh) || elf_getshdrnum(elf, &shnum) != 0 ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	sz = size;
	if (EVP_DigestUpdate(ctx, &sz, sizeof(sz)) != 1 ||
	    !digest_range(ctx, raw, size, 0, eh.e_ehsize) ||
	    !digest_range(ctx, raw, size, eh.e_shoff, (uint64_t)shnum * eh.e_shentsize))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		uint64_t where[3];
		const char *name;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			return false;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || sh.sh_type == SHT_NOBITS || !section_read_by_builder(name))
			continue;
		where[0] = elf_ndxscn(scn);
		where[1] = sh.sh_offset;
		where[2] = sh.sh_size;
		if (EVP_DigestUpdate(ctx, where, sizeof(where)) != 1 ||
		    !digest_range(ctx, raw, size, sh.sh_offset, sh.sh_size))
			return false;
	}
	return true;
}

bool table_cache_digest(Elf *elf, const uint8_t *self, size_t self_len,
			uint8_t out[TABLE_CACHE_DIGEST])
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int len = 0;
	uint64_t n = self_len;
	bool ok;

	if (!ctx)
		return false;
	ok = EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) == 1 &&
	     EVP_DigestUpdate(ctx, &n, sizeof(n)) == 1 &&
	     EVP_DigestUpdate(ctx, self, self_len) == 1 && digest_elf(ctx, elf) &&
	     EVP_DigestFinal_ex(ctx, out, &len) == 1 && len == TABLE_CACHE_DIGEST;
	EVP_MD_CTX_free(ctx);
	return ok;
}

bool table_cache_key(Elf *elf, const uint8_t *id, size_t id_len, struct table_cache_key *key)
{
	char hex[2 * STITCH_BUILD_ID_MAX + 1], dig[17];

	if (!elf || id_len < 2 || id_len > STITCH_BUILD_ID_MAX || !dir_ready() ||
	    !table_cache_digest(elf, tc.self, tc.self_len, key->digest))
		return false;
	build_id_hex(id, id_len, hex);
	build_id_hex(key->digest, 8, dig);
	return snprintf(key->name, sizeof(key->name), "%s.%s.tbl", hex, dig) <
	       (int)sizeof(key->name);
}

static bool read_all(int fd, void *p, size_t len, off_t off)
{
	char *c = p;
	ssize_t n;

	while (len) {
		n = pread(fd, c, len, off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		c += n;
		off += n;
		len -= (size_t)n;
	}
	return true;
}

/* Rows as a build leaves them: pcs rising, every rule one the walkers know. */
static bool rows_hold(const struct stitch_unwind_row *r, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (r[i].cfa_rule > STITCH_CFA_NO_FDE || r[i].rbp_rule > STITCH_RBP_AT_RBP ||
		    (i && r[i].pc <= r[i - 1].pc))
			return false;
	}
	return true;
}

/* 0 and t filled, -ESTALE (an entry that does not hold) or -ENOMEM. */
static int read_entry(int fd, const struct table_cache_key *key, struct unwind_table *t)
{
	struct stitch_unwind_row *rows;
	struct table_file h;
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || !cache_ours(&st) ||
	    !read_all(fd, &h, sizeof(h), 0))
		return -ESTALE;
	if (memcmp(h.magic, TABLE_MAGIC, sizeof(h.magic)) || h.machine != STITCH_ELF_MACHINE ||
	    h.row_size != sizeof(*rows) || h.reserved || !h.nr || h.nr > CFI_MAX_ROWS ||
	    (uint64_t)st.st_size != sizeof(h) + h.nr * sizeof(*rows) ||
	    memcmp(h.digest, key->digest, sizeof(h.digest)))
		return -ESTALE;
	rows = malloc(h.nr * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	if (!read_all(fd, rows, h.nr * sizeof(*rows), sizeof(h)) || !rows_hold(rows, h.nr)) {
		free(rows);
		return -ESTALE;
	}
	*t = (struct unwind_table){ .rows = rows, .nr = h.nr };
	return 0;
}

bool table_cache_read(const struct table_cache_key *key, struct unwind_table *out)
{
	int fd, err;

	if (!dir_ready())
		return false;
	fd = openat(tc.dirfd, key->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		/* A link, a FIFO's open: not ours to read; made again below. */
		if (errno == ELOOP) {
			tc.st.refused++;
			unlinkat(tc.dirfd, key->name, 0);
		}
		return false;
	}
	err = read_entry(fd, key, out);
	/* Read now: the last to go when the directory is cut down. */
	if (!err)
		futimens(fd, NULL);
	close(fd);
	if (err == -ESTALE) {
		tc.st.refused++;
		unlinkat(tc.dirfd, key->name, 0);
	}
	if (!err)
		tc.st.read++;
	return !err;
}

struct dir_entry {
	char name[NAME_MAX + 1];
	struct timespec used;
	uint64_t bytes;
};

static int by_use(const void *x, const void *y)
{
	const struct dir_entry *a = x, *b = y;

	if (a->used.tv_sec != b->used.tv_sec)
		return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
	return a->used.tv_nsec < b->used.tv_nsec ? -1 : a->used.tv_nsec > b->used.tv_nsec;
}

/* The directory's entries, oldest use first; their bytes in *total.  NULL: none or no memory. */
static struct dir_entry *list_entries(size_t *n, uint64_t *total)
{
	struct dir_entry *v = NULL, *grown;
	size_t cap = 0;
	struct dirent *de;
	struct stat st;
	/* Its own open directory: a dup would share (and leave at its end) our offset. */
	int fd = openat(tc.dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;

	*n = 0;
	*total = 0;
	d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (len < 5 || strcmp(de->d_name + len - 4, ".tbl") || de->d_name[0] == '.' ||
		    fstatat(tc.dirfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
		    !S_ISREG(st.st_mode))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			grown = realloc(v, cap * sizeof(*v));
			if (!grown)
				break;
			v = grown;
		}
		snprintf(v[*n].name, sizeof(v[*n].name), "%s", de->d_name);
		v[*n].used = st.st_mtim;
		v[*n].bytes = (uint64_t)st.st_size;
		*total += v[*n].bytes;
		(*n)++;
	}
	closedir(d);
	if (v)
		qsort(v, *n, sizeof(*v), by_use);
	return v;
}

/* Room for bytes more: the entries read least recently go, down to 3/4 of the limit. */
static void make_room(uint64_t bytes)
{
	uint64_t total, goal = tc.limit / 4 * 3;
	struct dir_entry *v;
	size_t n, i;

	v = list_entries(&n, &total);
	if (total + bytes <= tc.limit) {
		free(v);
		return;
	}
	for (i = 0; i < n && total + bytes > goal; i++) {
		if (unlinkat(tc.dirfd, v[i].name, 0) == 0) {
			total -= v[i].bytes;
			tc.st.pruned++;
		}
	}
	free(v);
}

void table_cache_write(const struct table_cache_key *key, const struct unwind_table *t)
{
	const size_t rows = t->nr * sizeof(*t->rows);
	struct table_file h = { .magic = TABLE_MAGIC };
	char tmp[NAME_MAX + 1];
	int fd, err;

	if (t->nr < tc.min_rows || t->nr > CFI_MAX_ROWS || !dir_ready() ||
	    snprintf(tmp, sizeof(tmp), ".tmp.%d.%s", (int)getpid(), key->name) >= (int)sizeof(tmp))
		return;
	make_room(sizeof(h) + rows);
	h.machine = STITCH_ELF_MACHINE;
	h.row_size = sizeof(*t->rows);
	h.nr = t->nr;
	memcpy(h.digest, key->digest, sizeof(h.digest));
	unlinkat(tc.dirfd, tmp, 0);
	fd = openat(tc.dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	err = fd_write_all(fd, &h, sizeof(h));
	if (!err)
		err = fd_write_all(fd, t->rows, rows);
	if (close(fd) != 0 && !err)
		err = -errno;
	/* Whole or not there: a reader never sees a file being written. */
	if (!err && renameat(tc.dirfd, tmp, tc.dirfd, key->name) != 0)
		err = -errno;
	if (err)
		unlinkat(tc.dirfd, tmp, 0);
	else
		tc.st.written++;
}
