// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's BTF cut down to one object's CO-RE relocations (core_btf.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/btf.h>
#include <gelf.h>

#include "util/array.h"
#include "util/cache_dir.h"
#include "util/core_btf.h"
#include "util/elf_util.h"

/* Bumped when what a subset holds changes: older cached files are not used. */
#define CORE_BTF_FORMAT "1"

/* libbpf's relocation kinds (enum bpf_core_relo_kind) that matter here. */
enum {
	RELO_FIELD_FIRST = 0,		/* byte offset, size, exists, signed, shifts */
	RELO_FIELD_LAST = 5,
	RELO_TYPE_ID_LOCAL = 6,		/* the object's own type: no kernel type needed */
	RELO_TYPE_ID_TARGET = 7,	/* the kernel's type ID: not the subset's */
	RELO_TYPE_EXISTS = 8,
	RELO_TYPE_SIZE = 9,
	RELO_ENUMVAL_EXISTS = 10,
	RELO_ENUMVAL_VALUE = 11,
};

/* The head of .BTF.ext (include/uapi does not have it; libbpf keeps it inside). */
struct btf_ext_head {
	uint16_t magic;
	uint8_t version;
	uint8_t flags;
	uint32_t hdr_len;
	uint32_t func_info_off, func_info_len;
	uint32_t line_info_off, line_info_len;
	uint32_t core_relo_off, core_relo_len;
};

/* One relocation record, as clang writes them (struct bpf_core_relo). */
struct core_relo {
	uint32_t insn_off;
	uint32_t type_id;
	uint32_t access_str_off;
	uint32_t kind;
};

/* A type some relocation starts from: its kind and its name without any ___flavour. */
struct root {
	uint16_t kind;
	char name[128];
};

struct roots {
	struct root *v;
	size_t n, cap;
};

static char status[160] = "not asked";

const char *core_btf_status(void)
{
	return status;
}

/* A name's length without libbpf's "___flavour" suffix. */
static size_t essential_len(const char *name)
{
	const char *p = strstr(name, "___");

	return p ? (size_t)(p - name) : strlen(name);
}

static bool same_essential(const char *a, const char *b)
{
	size_t n = essential_len(a);

	return n == essential_len(b) && !strncmp(a, b, n);
}

static const struct btf_type *skip_mods_and_typedefs(const struct btf *btf, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	int hops;

	for (hops = 0; t && hops < 32; hops++) {
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
		case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST:
		case BTF_KIND_RESTRICT:
		case BTF_KIND_TYPE_TAG:
			t = btf__type_by_id(btf, t->type);
			break;
		default:
			return t;
		}
	}
	return NULL;
}

/* Add the root a relocation of kind starts from (local type id); -errno. */
static int add_root(struct roots *r, const struct btf *local, uint32_t id, uint32_t kind)
{
	const struct btf_type *t = btf__type_by_id(local, id), *base;
	const char *name;
	size_t i, n;

	if (kind == RELO_TYPE_ID_LOCAL)
		return 0;
	if (kind > RELO_ENUMVAL_VALUE || kind == RELO_TYPE_ID_TARGET || !t)
		return -ENOTSUP;
	/*
	 * Type relocations compare the types themselves, pointees included:
	 * only kinds whose comparison a subset keeps (names, sizes).
	 */
	if (kind == RELO_TYPE_EXISTS || kind == RELO_TYPE_SIZE) {
		base = skip_mods_and_typedefs(local, id);
		if (!base || btf_kind(base) == BTF_KIND_PTR || btf_kind(base) == BTF_KIND_ARRAY ||
		    btf_kind(base) == BTF_KIND_FUNC_PROTO)
			return -ENOTSUP;
	}
	name = btf__name_by_offset(local, t->name_off);
	n = name ? essential_len(name) : 0;
	if (!n || n >= sizeof(r->v[0].name))
		return -ENOTSUP;
	for (i = 0; i < r->n; i++)
		if (r->v[i].kind == btf_kind(t) && !strncmp(r->v[i].name, name, n) &&
		    !r->v[i].name[n])
			return 0;
	if (array_reserve((void **)&r->v, &r->cap, r->n + 1, sizeof(r->v[0]), 16))
		return -ENOMEM;
	r->v[r->n].kind = btf_kind(t);
	memcpy(r->v[r->n].name, name, n);
	r->v[r->n].name[n] = 0;
	r->n++;
	return 0;
}

/* The types the relocations in .BTF.ext (ext, len bytes) start from. */
static int read_roots(const uint8_t *ext, size_t len, const struct btf *local, struct roots *r)
{
	struct btf_ext_head h = { 0 };
	const uint8_t *p, *end;
	uint32_t rec, sec[2], i;
	struct core_relo relo;
	int err;

	if (len < 8)
		return -EINVAL;
	memcpy(&h, ext, len < sizeof(h) ? len : sizeof(h));
	if (h.magic != BTF_MAGIC || h.hdr_len > len)
		return -EINVAL;
	/* No relocation section: nothing needs the kernel's types. */
	if (h.hdr_len < sizeof(h) || !h.core_relo_len)
		return 0;
	if (h.core_relo_off > len - h.hdr_len || h.core_relo_len > len - h.hdr_len - h.core_relo_off ||
	    h.core_relo_len < 4)
		return -EINVAL;
	p = ext + h.hdr_len + h.core_relo_off;
	end = p + h.core_relo_len;
	memcpy(&rec, p, 4);
	p += 4;
	if (rec < sizeof(relo))
		return -EINVAL;
	while (p < end) {
		if ((size_t)(end - p) < sizeof(sec))
			return -EINVAL;
		memcpy(sec, p, sizeof(sec));
		p += sizeof(sec);
		if (sec[1] > (size_t)(end - p) / rec)
			return -EINVAL;
		for (i = 0; i < sec[1]; i++, p += rec) {
			memcpy(&relo, p, sizeof(relo));
			err = add_root(r, local, relo.type_id, relo.kind);
			if (err)
				return err;
		}
	}
	return 0;
}

/* The object's BTF and its relocations' roots. */
static int object_roots(const void *obj, size_t size, struct roots *r)
{
	struct elf_section btf_sec, ext_sec;
	struct btf *local;
	Elf *elf;
	int err;

	elf_util_init();
	elf = elf_memory((char *)obj, size);
	if (!elf)
		return -EINVAL;
	err = elf_find_section(elf, ".BTF", &btf_sec);
	if (!err)
		err = elf_find_section(elf, ".BTF.ext", &ext_sec);
	if (err || !btf_sec.data || !ext_sec.data) {
		elf_end(elf);
		return err ? err : -ENOENT;
	}
	local = btf__new(btf_sec.data, btf_sec.size);
	if (!local) {
		err = -errno;
		elf_end(elf);
		return err;
	}
	err = read_roots(ext_sec.data, ext_sec.size, local, r);
	btf__free(local);
	elf_end(elf);
	return err;
}

/* ---- the subset: a copy of each root, cut at every pointer ---- */

struct builder {
	const struct btf *k;	/* the kernel's */
	struct btf *out;
	int *map;		/* kernel type id -> its copy's id, 0: not copied yet */
	int void_ptr;		/* the one pointer every pointer becomes */
	int depth;
};

static int copy_type(struct builder *b, uint32_t id);

static int copy_composite(struct builder *b, const struct btf_type *t, const char *name)
{
	const struct btf_member *m = btf_members(t);
	int i, vlen = btf_vlen(t), id, err = 0;
	int *ids = calloc(vlen ? vlen : 1, sizeof(*ids));

	if (!ids)
		return -ENOMEM;
	/* Members' types first: a struct's fields must follow it directly. */
	for (i = 0; i < vlen && err >= 0; i++)
		err = ids[i] = copy_type(b, m[i].type);
	if (err < 0) {
		free(ids);
		return err;
	}
	id = btf_kind(t) == BTF_KIND_STRUCT ? btf__add_struct(b->out, name, t->size) :
					       btf__add_union(b->out, name, t->size);
	for (i = 0; i < vlen && id > 0; i++) {
		err = btf__add_field(b->out, btf__name_by_offset(b->k, m[i].name_off), ids[i],
				     btf_member_bit_offset(t, i), btf_member_bitfield_size(t, i));
		if (err)
			id = err;
	}
	free(ids);
	return id;
}

static int copy_enum(struct builder *b, const struct btf_type *t, const char *name)
{
	int i, id, err = 0, vlen = btf_vlen(t);

	if (btf_kind(t) == BTF_KIND_ENUM) {
		const struct btf_enum *e = btf_enum(t);

		id = btf__add_enum(b->out, name, t->size);
		for (i = 0; i < vlen && id > 0 && !err; i++)
			err = btf__add_enum_value(b->out, btf__name_by_offset(b->k, e[i].name_off),
						  btf_kflag(t) ? (int64_t)e[i].val :
								 (int64_t)(uint32_t)e[i].val);
	} else {
		const struct btf_enum64 *e = btf_enum64(t);

		id = btf__add_enum64(b->out, name, t->size, btf_kflag(t));
		for (i = 0; i < vlen && id > 0 && !err; i++)
			err = btf__add_enum64_value(b->out,
						    btf__name_by_offset(b->k, e[i].name_off),
						    btf_enum64_value(&e[i]));
	}
	return err ? err : id;
}

/* The copy's id of kernel type id (0 is void), or -errno. */
static int copy_type(struct builder *b, uint32_t id)
{
	const struct btf_type *t;
	const struct btf_array *a;
	const char *name;
	int ref, idx, ret;

	if (!id)
		return 0;
	if (id >= btf__type_cnt(b->k))
		return -EINVAL;
	if (b->map[id])
		return b->map[id];
	t = btf__type_by_id(b->k, id);
	/* Embedding only nests so deep; anything deeper is not a kernel's BTF. */
	if (!t || ++b->depth > 64)
		return -EINVAL;
	name = btf__name_by_offset(b->k, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_INT:
		if (btf_int_offset(t) || btf_int_bits(t) != t->size * 8)
			ret = -ENOTSUP;
		else
			ret = btf__add_int(b->out, name, t->size, btf_int_encoding(t));
		break;
	case BTF_KIND_FLOAT:
		ret = btf__add_float(b->out, name, t->size);
		break;
	case BTF_KIND_PTR:
		if (!b->void_ptr)
			b->void_ptr = btf__add_ptr(b->out, 0);
		ret = b->void_ptr;
		break;
	case BTF_KIND_ARRAY:
		a = btf_array(t);
		ret = ref = copy_type(b, a->type);
		if (ref >= 0)
			ret = idx = copy_type(b, a->index_type);
		if (ref >= 0 && idx >= 0)
			ret = btf__add_array(b->out, idx, ref, a->nelems);
		break;
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		ret = copy_composite(b, t, name);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		ret = copy_enum(b, t, name);
		break;
	case BTF_KIND_FWD:
		ret = btf__add_fwd(b->out, name, btf_kflag(t) ? BTF_FWD_UNION : BTF_FWD_STRUCT);
		break;
	case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE:
	case BTF_KIND_CONST:
	case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		ret = ref = copy_type(b, t->type);
		if (ref < 0)
			break;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF:
			ret = btf__add_typedef(b->out, name, ref);
			break;
		case BTF_KIND_VOLATILE:
			ret = btf__add_volatile(b->out, ref);
			break;
		case BTF_KIND_CONST:
			ret = btf__add_const(b->out, ref);
			break;
		case BTF_KIND_RESTRICT:
			ret = btf__add_restrict(b->out, ref);
			break;
		default:
			ret = btf__add_type_tag(b->out, name, ref);
		}
		break;
	default:
		/* Functions and variables are never embedded in a type. */
		ret = -ENOTSUP;
	}
	b->depth--;
	if (ret > 0)
		b->map[id] = ret;
	return ret;
}

static struct btf *build_from_roots(const struct roots *r, const struct btf *kernel)
{
	struct builder b = { .k = kernel };
	uint32_t id, n = btf__type_cnt(kernel);
	size_t i;
	int err = 0;
	bool found;

	b.out = btf__new_empty();
	b.map = calloc(n, sizeof(*b.map));
	if (!b.out || !b.map) {
		err = -ENOMEM;
		goto out;
	}
	for (i = 0; i < r->n && !err; i++) {
		found = false;
		/* Every kernel type of that kind and name: libbpf's candidates. */
		for (id = 1; id < n && !err; id++) {
			const struct btf_type *t = btf__type_by_id(kernel, id);

			if (btf_kind(t) != r->v[i].kind ||
			    !same_essential(btf__name_by_offset(kernel, t->name_off), r->v[i].name))
				continue;
			found = true;
			if (copy_type(&b, id) < 0)
				err = -ENOTSUP;
		}
		/* libbpf would look in the modules' BTF next: the subset cannot answer. */
		if (!found)
			err = -ENOTSUP;
	}
out:
	free(b.map);
	if (err) {
		btf__free(b.out);
		errno = -err;
		return NULL;
	}
	return b.out;
}

struct btf *core_btf_build(const void *obj, size_t size, const struct btf *kernel)
{
	struct roots r = { 0 };
	struct btf *out;
	int err;

	err = object_roots(obj, size, &r);
	if (err) {
		free(r.v);
		errno = -err;
		return NULL;
	}
	out = build_from_roots(&r, kernel);
	free(r.v);
	return out;
}

/* ---- the cache ---- */

/* The running kernel's GNU build ID, in hex (len >= 2 * STITCH_BUILD_ID_MAX + 1); false if none. */
static bool kernel_build_id(char *hex)
{
	uint8_t buf[4096], id[STITCH_BUILD_ID_MAX];
	int fd = open("/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	ssize_t n;
	size_t len;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n <= 0)
		return false;
	elf_util_init();
	len = elf_build_id_in_notes(buf, n, id);
	build_id_hex(id, len, hex);
	return len > 0;
}

/* FNV-1a over the roots: the cache file's name tells sets apart. */
static uint64_t roots_hash(const struct roots *r)
{
	uint64_t h = 0xcbf29ce484222325ull;
	const char *p;
	size_t i;

	for (p = CORE_BTF_FORMAT ";"; *p; p++)
		h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	for (i = 0; i < r->n; i++) {
		h = (h ^ r->v[i].kind) * 0x100000001b3ull;
		for (p = r->v[i].name; *p; p++)
			h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
		h = (h ^ ';') * 0x100000001b3ull;
	}
	return h;
}

/* A cached subset that parses and has a type for every root. */
static bool cached_ok(int dirfd, const char *name, const char *path, const struct roots *r)
{
	struct stat st;
	struct btf *btf;
	uint32_t id, n;
	size_t i;
	bool ok = true;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
	    !cache_ours(&st))
		return false;
	btf = btf__parse_raw(path);
	if (!btf)
		return false;
	n = btf__type_cnt(btf);
	for (i = 0; i < r->n && ok; i++) {
		ok = false;
		for (id = 1; id < n && !ok; id++) {
			const struct btf_type *t = btf__type_by_id(btf, id);

			ok = btf_kind(t) == r->v[i].kind &&
			     same_essential(btf__name_by_offset(btf, t->name_off), r->v[i].name);
		}
	}
	btf__free(btf);
	return ok;
}

/* Build the subset from the kernel's BTF and write it as name in dirfd. */
static int write_subset(int dirfd, const char *name, const struct roots *r)
{
	struct btf *kernel, *sub;
	const void *raw;
	char tmp[NAME_MAX];
	uint32_t size;
	int fd, err = 0;
	ssize_t n;

	kernel = btf__load_vmlinux_btf();
	if (!kernel)
		return -errno;
	sub = build_from_roots(r, kernel);
	err = sub ? 0 : -errno;
	btf__free(kernel);
	if (err)
		return err;
	raw = btf__raw_data(sub, &size);
	snprintf(tmp, sizeof(tmp), ".%s.%d", name, (int)getpid());
	unlinkat(dirfd, tmp, 0);
	fd = raw ? openat(dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644) :
		   -1;
	if (fd < 0) {
		err = raw ? -errno : -ENOMEM;
		btf__free(sub);
		return err;
	}
	n = write(fd, raw, size);
	if (n != (ssize_t)size)
		err = n < 0 ? -errno : -EIO;
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err && renameat(dirfd, tmp, dirfd, name) != 0)
		err = -errno;
	if (err)
		unlinkat(dirfd, tmp, 0);
	btf__free(sub);
	return err;
}

static struct {
	const void *obj;
	char path[PATH_MAX];
} known[8];

const char *core_btf_path(const void *obj, size_t size)
{
	const char *env = getenv("STITCH_CORE_BTF");
	char dir[PATH_MAX], id[2 * STITCH_BUILD_ID_MAX + 1], name[96], path[PATH_MAX];
	struct roots r = { 0 };
	const char *ret = NULL;
	size_t i;
	int dirfd = -1, err;

	if (env && !strcmp(env, "0")) {
		snprintf(status, sizeof(status), "the kernel's (STITCH_CORE_BTF=0)");
		return NULL;
	}
	for (i = 0; i < sizeof(known) / sizeof(known[0]) && known[i].obj; i++)
		if (known[i].obj == obj)
			return known[i].path;
	if (!kernel_build_id(id)) {
		snprintf(status, sizeof(status), "the kernel's (no build ID in /sys/kernel/notes)");
		return NULL;
	}
	err = object_roots(obj, size, &r);
	if (err) {
		snprintf(status, sizeof(status), "the kernel's (the object's relocations: %s)",
			 strerror(-err));
		goto out;
	}
	dirfd = cache_dir_open("btf", dir, sizeof(dir));
	if (dirfd < 0) {
		snprintf(status, sizeof(status), "the kernel's (no cache directory)");
		goto out;
	}
	snprintf(name, sizeof(name), "%s-%016llx.btf", id, (unsigned long long)roots_hash(&r));
	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		goto out;
	if (cached_ok(dirfd, name, path, &r)) {
		snprintf(status, sizeof(status), "the types of %zu relocation roots, cached", r.n);
	} else {
		err = write_subset(dirfd, name, &r);
		if (err) {
			snprintf(status, sizeof(status), "the kernel's (the subset: %s)",
				 strerror(-err));
			goto out;
		}
		snprintf(status, sizeof(status), "the types of %zu relocation roots, cut now", r.n);
	}
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (!known[i].obj) {
			known[i].obj = obj;
			snprintf(known[i].path, sizeof(known[i].path), "%s", path);
			ret = known[i].path;
			break;
		}
	}
out:
	if (dirfd >= 0)
		close(dirfd);
	free(r.v);
	return ret;
}
