// SPDX-License-Identifier: GPL-2.0
/* HotSpot's vmStructs, read from a running JVM: see hotspot_meta.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "symbolize/hotspot_meta.h"
#include "util/elf_util.h"

/* Bounds on what a JVM's tables may make us read: 17 has 801 structs, 769 types. */
#define HS_MAX_ENTRIES	8192
#define HS_MAX_STRIDE	256
#define HS_NAME_MAX	80

int hotspot_mem_v(uint32_t pid, const struct hotspot_piece *p, unsigned n)
{
	struct iovec local[HOTSPOT_PIECES_MAX], remote[HOTSPOT_PIECES_MAX];
	ssize_t want = 0;
	unsigned i;

	if (!n || n > HOTSPOT_PIECES_MAX)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (!p[i].addr || p[i].addr + p[i].size < p[i].addr)
			return -EFAULT;
		local[i] = (struct iovec){ p[i].buf, p[i].size };
		remote[i] = (struct iovec){ (void *)(uintptr_t)p[i].addr, p[i].size };
		want += (ssize_t)p[i].size;
	}
	return process_vm_readv((pid_t)pid, local, n, remote, n, 0) == want ? 0 : -EFAULT;
}

int hotspot_mem(uint32_t pid, uint64_t addr, void *buf, size_t size)
{
	struct hotspot_piece p = { addr, buf, size };

	return hotspot_mem_v(pid, &p, 1);
}

int hotspot_get(uint32_t pid, uint64_t obj, struct hotspot_field f, bool is_signed, int64_t *out)
{
	uint8_t b[8];

	if (!f.width || f.width > 8 || hotspot_mem(pid, obj + f.off, b, f.width))
		return -EFAULT;
	switch (f.width) {
	case 1:
		*out = is_signed ? (int64_t)(int8_t)b[0] : (int64_t)b[0];
		return 0;
	case 2: {
		uint16_t v;

		memcpy(&v, b, 2);
		*out = is_signed ? (int64_t)(int16_t)v : (int64_t)v;
		return 0;
	}
	case 4: {
		uint32_t v;

		memcpy(&v, b, 4);
		*out = is_signed ? (int64_t)(int32_t)v : (int64_t)v;
		return 0;
	}
	case 8: {
		uint64_t v;

		memcpy(&v, b, 8);
		*out = (int64_t)v;
		return 0;
	}
	}
	return -EFAULT;
}

int hotspot_syms_read(Elf *elf, struct hotspot_syms *s)
{
	static const struct {
		const char *name;
		size_t off;
	} syms[] = {
#define HS_SYM(n, f) { n, offsetof(struct hotspot_syms, f) }
		HS_SYM("gHotSpotVMStructs", structs),
		HS_SYM("gHotSpotVMTypes", types),
		HS_SYM("gHotSpotVMIntConstants", int_consts),
		HS_SYM("gHotSpotVMStructEntryTypeNameOffset", s_type),
		HS_SYM("gHotSpotVMStructEntryFieldNameOffset", s_field),
		HS_SYM("gHotSpotVMStructEntryTypeStringOffset", s_tstring),
		HS_SYM("gHotSpotVMStructEntryIsStaticOffset", s_static),
		HS_SYM("gHotSpotVMStructEntryOffsetOffset", s_offset),
		HS_SYM("gHotSpotVMStructEntryAddressOffset", s_address),
		HS_SYM("gHotSpotVMStructEntryArrayStride", s_stride),
		HS_SYM("gHotSpotVMTypeEntryTypeNameOffset", t_name),
		HS_SYM("gHotSpotVMTypeEntrySizeOffset", t_size),
		HS_SYM("gHotSpotVMTypeEntryArrayStride", t_stride),
		HS_SYM("gHotSpotVMIntConstantEntryNameOffset", i_name),
		HS_SYM("gHotSpotVMIntConstantEntryValueOffset", i_value),
		HS_SYM("gHotSpotVMIntConstantEntryArrayStride", i_stride),
#undef HS_SYM
	};
	size_t i;

	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		uint64_t v;

		if (!elf_dynsym_find(elf, syms[i].name, &v, NULL) || !v)
			return -ENOENT;
		memcpy((char *)s + syms[i].off, &v, sizeof(v));
	}
	return 0;
}

/* One table as read: its entries' bytes, and where each entry's fields lie. */
struct hs_table {
	uint8_t *buf;
	size_t n, stride;
};

static uint64_t word_at(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* A variable of libjvm (bias + st_value) as a word: 0 if unreadable. */
static uint64_t var(uint32_t pid, uint64_t bias, uint64_t st_value)
{
	uint64_t v = 0;

	return hotspot_mem(pid, bias + st_value, &v, sizeof(v)) ? 0 : v;
}

/*
 * A table of entries stride bytes apart, up to the first whose name (the
 * word at name_off) is NULL: read in chunks, at most HS_MAX_ENTRIES.
 */
static int table_read(uint32_t pid, uint64_t addr, size_t stride, size_t name_off,
		      struct hs_table *t)
{
	size_t cap = 0, chunk = 256;

	t->buf = NULL;
	t->n = 0;
	t->stride = stride;
	if (!addr || stride < 16 || stride > HS_MAX_STRIDE || name_off + 8 > stride)
		return -EFAULT;
	for (;;) {
		size_t i;
		uint8_t *nb;

		if (t->n + chunk > HS_MAX_ENTRIES)
			return -EFAULT;
		nb = realloc(t->buf, (cap + chunk) * stride);
		if (!nb)
			return -ENOMEM;
		t->buf = nb;
		/*
		 * A chunk may run past the mapping: read entry by entry then,
		 * up to the last (a table ending near its mapping's end).
		 */
		if (hotspot_mem(pid, addr + cap * stride, t->buf + cap * stride, chunk * stride)) {
			for (i = 0; i < chunk; i++) {
				if (hotspot_mem(pid, addr + (cap + i) * stride,
						t->buf + (cap + i) * stride, stride))
					return -EFAULT;
				if (!word_at(t->buf + (cap + i) * stride + name_off))
					break;
			}
		}
		for (i = 0; i < chunk; i++) {
			if (!word_at(t->buf + (cap + i) * stride + name_off))
				return 0;
			t->n++;
		}
		cap += chunk;
	}
}

/*
 * A string of the process (a name in a table) into out: false if
 * unreadable or too long.  Up to the end of its page first: the next one
 * may not be mapped.
 */
static bool name_read(uint32_t pid, uint64_t addr, char out[HS_NAME_MAX])
{
	size_t first = 4096 - (addr & 4095), got = 0;

	if (!addr)
		return false;
	if (first > HS_NAME_MAX)
		first = HS_NAME_MAX;
	if (hotspot_mem(pid, addr, out, first))
		return false;
	got = first;
	if (!memchr(out, 0, got) && got < HS_NAME_MAX) {
		if (hotspot_mem(pid, addr + got, out + got, HS_NAME_MAX - got))
			return false;
		got = HS_NAME_MAX;
	}
	return memchr(out, 0, got) != NULL;
}

/* Each entry's names (up to three), read once: NULL where unreadable. */
static char **names_read(uint32_t pid, const struct hs_table *t, const uint64_t *offs,
			 size_t noffs)
{
	char **names = calloc(t->n * noffs + 1, sizeof(*names));
	char buf[HS_NAME_MAX];
	size_t i, j;

	if (!names)
		return NULL;
	for (i = 0; i < t->n; i++)
		for (j = 0; j < noffs; j++)
			if (name_read(pid, word_at(t->buf + i * t->stride + offs[j]), buf))
				names[i * noffs + j] = strdup(buf);
	return names;
}

static void names_free(char **names, size_t n)
{
	size_t i;

	for (i = 0; names && i < n; i++)
		free(names[i]);
	free(names);
}

struct hs_tables {
	struct hs_table structs, types, ints;
	char **snames, **tnames, **inames;	/* structs: type, field, type string */
	/* the entry layout, as the process says it */
	uint64_t s_type, s_field, s_tstring, s_static, s_offset, s_address;
	uint64_t t_name, t_size, i_name, i_value;
};

/* The size of a type named name, from the types table: 0 if absent. */
static uint64_t type_size(struct hs_tables *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->types.n; i++)
		if (t->tnames[i] && !strcmp(t->tnames[i], name))
			return word_at(t->types.buf + i * t->types.stride + t->t_size);
	return 0;
}

static bool int_const(struct hs_tables *t, const char *name, int32_t *out)
{
	size_t i;

	for (i = 0; i < t->ints.n; i++)
		if (t->inames[i] && !strcmp(t->inames[i], name)) {
			memcpy(out, t->ints.buf + i * t->ints.stride + t->i_value, sizeof(*out));
			return true;
		}
	return false;
}

/* The width of a field of type type_string: pointers 8; else the type's size. */
static uint8_t field_width(struct hs_tables *t, const char *ts)
{
	static const struct {
		const char *name;
		uint8_t width;
	} known[] = {
		{ "int", 4 }, { "jint", 4 }, { "juint", 4 }, { "u4", 4 }, { "uint32_t", 4 },
		{ "unsigned int", 4 }, { "u2", 2 }, { "uint16_t", 2 }, { "int16_t", 2 },
		{ "u1", 1 }, { "bool", 1 }, { "address", 8 }, { "size_t", 8 },
	};
	size_t i, len = strlen(ts);
	uint64_t size;

	if (len && ts[len - 1] == '*')
		return 8;
	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (!strcmp(ts, known[i].name))
			return known[i].width;
	size = type_size(t, ts);
	return size == 1 || size == 2 || size == 4 || size == 8 ? (uint8_t)size : 0;
}

/*
 * The entry for type.field: a non-static one's offset and width into *f,
 * a static one's address into *addr.  False if absent.
 */
static bool field(struct hs_tables *t, const char *type, const char *name,
		  struct hotspot_field *f, uint64_t *addr)
{
	size_t i;

	for (i = 0; i < t->structs.n; i++) {
		const uint8_t *e = t->structs.buf + i * t->structs.stride;
		const char *tn = t->snames[i * 3], *fn = t->snames[i * 3 + 1];
		const char *ts = t->snames[i * 3 + 2];
		int32_t is_static;
		uint64_t off;

		if (!tn || !fn || strcmp(fn, name) || strcmp(tn, type))
			continue;
		memcpy(&is_static, e + t->s_static, sizeof(is_static));
		if (is_static) {
			if (!addr)
				return false;
			*addr = word_at(e + t->s_address);
			return *addr != 0;
		}
		if (!f)
			return false;
		off = word_at(e + t->s_offset);
		if (off > 4096)
			return false;
		/* Width 0: an embedded structure (CodeHeap._memory), used as an offset only. */
		f->off = (uint32_t)off;
		f->width = ts ? field_width(t, ts) : 0;
		return true;
	}
	return false;
}

static void tables_free(struct hs_tables *t)
{
	names_free(t->snames, t->structs.n * 3);
	names_free(t->tnames, t->types.n);
	names_free(t->inames, t->ints.n);
	free(t->structs.buf);
	free(t->types.buf);
	free(t->ints.buf);
}

int hotspot_meta_read(uint32_t pid, uint64_t bias, const struct hotspot_syms *s,
		      struct hotspot_meta *m, char *why, size_t why_len)
{
	struct hs_tables t = { 0 };
	const char *missing = NULL;
	int err;

	memset(m, 0, sizeof(*m));
	t.s_type = var(pid, bias, s->s_type);
	t.s_field = var(pid, bias, s->s_field);
	t.s_tstring = var(pid, bias, s->s_tstring);
	t.s_static = var(pid, bias, s->s_static);
	t.s_offset = var(pid, bias, s->s_offset);
	t.s_address = var(pid, bias, s->s_address);
	t.t_name = var(pid, bias, s->t_name);
	t.t_size = var(pid, bias, s->t_size);
	t.i_name = var(pid, bias, s->i_name);
	t.i_value = var(pid, bias, s->i_value);
	err = table_read(pid, var(pid, bias, s->structs), var(pid, bias, s->s_stride), t.s_field,
			 &t.structs);
	if (!err)
		err = table_read(pid, var(pid, bias, s->types), var(pid, bias, s->t_stride),
				 t.t_name, &t.types);
	if (!err)
		err = table_read(pid, var(pid, bias, s->int_consts), var(pid, bias, s->i_stride),
				 t.i_name, &t.ints);
	if (err || t.s_type + 8 > t.structs.stride || t.s_static + 4 > t.structs.stride ||
	    t.s_tstring + 8 > t.structs.stride ||
	    t.s_offset + 8 > t.structs.stride || t.s_address + 8 > t.structs.stride ||
	    t.t_size + 8 > t.types.stride || t.i_value + 4 > t.ints.stride) {
		tables_free(&t);
		return err == -ENOMEM ? -ENOMEM : -EFAULT;
	}
	{
		uint64_t so[3] = { t.s_type, t.s_field, t.s_tstring };

		t.snames = names_read(pid, &t.structs, so, 3);
		t.tnames = names_read(pid, &t.types, &t.t_name, 1);
		t.inames = names_read(pid, &t.ints, &t.i_name, 1);
	}
	if (!t.snames || !t.tnames || !t.inames) {
		tables_free(&t);
		return -ENOMEM;
	}

#define NEED(type, name, f) \
	do { if (!missing && !field(&t, type, name, f, NULL)) missing = type "." name; } while (0)
#define NEED_STATIC(type, name, a) \
	do { if (!missing && !field(&t, type, name, NULL, a)) missing = type "." name; } while (0)

	NEED_STATIC("CodeCache", "_heaps", &m->code_heaps);
	NEED_STATIC("CodeCache", "_low_bound", &m->code_low);
	NEED_STATIC("CodeCache", "_high_bound", &m->code_high);
	/* 11's GrowableArrays keep their length in GenericGrowableArray. */
	if (!field(&t, "GrowableArrayBase", "_len", &m->ga_len, NULL))
		NEED("GenericGrowableArray", "_len", &m->ga_len);
	NEED("GrowableArray<int>", "_data", &m->ga_data);
	NEED("CodeHeap", "_memory", &m->heap_memory);
	NEED("CodeHeap", "_segmap", &m->heap_segmap);
	NEED("CodeHeap", "_log2_segment_size", &m->heap_log2);
	NEED("VirtualSpace", "_low", &m->vs_low);
	NEED("VirtualSpace", "_high", &m->vs_high);
	NEED("HeapBlock::Header", "_used", &m->hb_used);
	NEED("CodeBlob", "_name", &m->blob_name);
	NEED("CodeBlob", "_size", &m->blob_size);
	NEED("CodeBlob", "_frame_complete_offset", &m->blob_frame_complete);
	NEED("CodeBlob", "_frame_size", &m->blob_frame_size);
	NEED("CodeBlob", "_data_offset", &m->blob_data_offset);
	NEED("Method", "_constMethod", &m->method_const);
	NEED("ConstMethod", "_constants", &m->cm_constants);
	NEED("ConstMethod", "_code_size", &m->cm_code_size);
	NEED("ConstMethod", "_name_index", &m->cm_name_index);
	NEED("ConstMethod", "_signature_index", &m->cm_sig_index);
	NEED("ConstantPool", "_pool_holder", &m->cp_holder);
	/* 11 keeps a class's source file index in the class, later ones in its pool. */
	if (!field(&t, "ConstantPool", "_source_file_name_index", &m->cp_source_file, NULL)) {
		m->source_in_klass = true;
		NEED("InstanceKlass", "_source_file_name_index", &m->cp_source_file);
	}
	NEED("ConstantPool", "_cache", &m->cp_cache);
	NEED("Klass", "_name", &m->klass_name);
	NEED("Symbol", "_length", &m->sym_length);
	NEED("Symbol", "_body", &m->sym_body);
	NEED("PcDesc", "_pc_offset", &m->pcd_pc);
	NEED("nmethod", "_compile_id", &m->nm_compile_id);
	NEED("PcDesc", "_scope_decode_offset", &m->pcd_scope);
	/* Symbol._body is a u1 array: its entry's type names no size. */
	if (missing && !strcmp(missing, "Symbol._body") && field(&t, "Symbol", "_body[0]", &m->sym_body, NULL))
		missing = NULL;
	m->heap_block_size = (uint32_t)type_size(&t, "HeapBlock");
	m->cm_size = (uint32_t)type_size(&t, "ConstMethod");
	m->cp_size = (uint32_t)type_size(&t, "ConstantPool");
	m->pcd_size = (uint32_t)type_size(&t, "PcDesc");
	if (!missing && (!m->heap_block_size || m->heap_block_size > 64))
		missing = "sizeof(HeapBlock)";
	if (!missing && (!m->cm_size || m->cm_size > 256 || !m->cp_size || m->cp_size > 256))
		missing = "sizeof(ConstMethod), sizeof(ConstantPool)";
	if (!missing && (m->pcd_size < 8 || m->pcd_size > 64))
		missing = "sizeof(PcDesc)";

	if (!missing && field(&t, "CodeBlob", "_kind", &m->blob_kind, NULL)) {
		/* JDK 25: kinds, offsets from the blob, scopes in _immutable_data */
		if (!int_const(&t, "CodeBlobKind::Nmethod", &m->kind_nmethod))
			missing = "CodeBlobKind::Nmethod";
		NEED("CodeBlob", "_code_offset", &m->blob_code_offset);
		NEED("CodeBlob", "_mutable_data", &m->blob_mutable);
		NEED("CodeBlob", "_relocation_size", &m->blob_reloc_size);
		NEED("nmethod", "_method", &m->nm_method);
		NEED("nmethod", "_immutable_data", &m->nm_immutable);
		NEED("nmethod", "_scopes_pcs_offset", &m->nm_pcs_offset);
		NEED("nmethod", "_scopes_data_offset", &m->nm_scopes_offset);
	} else if (!missing) {
		/* JDK 11 to 24: nmethods by name, CompiledMethod's fields */
		NEED("CodeBlob", "_code_begin", &m->blob_code_begin);
		NEED("CompiledMethod", "_method", &m->nm_method);
		NEED("CompiledMethod", "_scopes_data_begin", &m->nm_scopes_begin);
		NEED("nmethod", "_scopes_pcs_offset", &m->nm_pcs_offset);
		NEED("nmethod", "_dependencies_offset", &m->nm_pcs_end_offset);
		NEED("nmethod", "_metadata_offset", &m->nm_metadata_offset);
	}
	/*
	 * A method's flags: 21 and later keep them in ConstMethodFlags
	 * (_flags._flags, their own bit constants); 11 and 17 in a u2 _flags.
	 * The same 21 writes its compressed streams as UNSIGNED5 with no zero
	 * byte (X = 1): 21.0.13 and 25.0.5 do, 17.0.x and 11.0.24 do not.
	 * Read with the wrong X, a scope names a method other than the
	 * nmethod's own and is not shown (hotspot_names.c): a frame loses
	 * its line, never gets a wrong one.
	 */
	if (!missing && field(&t, "ConstMethod", "_flags._flags", &m->cm_flags, NULL)) {
		m->stream_x = 1;
		if (!int_const(&t, "ConstMethodFlags::_misc_has_linenumber_table", &m->cm_has_lines))
			missing = "ConstMethodFlags::_misc_has_linenumber_table";
	} else if (!missing) {
		m->stream_x = 0;
		NEED("ConstMethod", "_flags", &m->cm_flags);
		if (!missing && !int_const(&t, "ConstMethod::_has_linenumber_table", &m->cm_has_lines))
			missing = "ConstMethod::_has_linenumber_table";
	}
	if (!field(&t, "JvmtiExport", "_can_hotswap_or_post_breakpoint", NULL, &m->can_redefine))
		m->can_redefine = 0;
#undef NEED
#undef NEED_STATIC
	tables_free(&t);
	if (missing) {
		snprintf(why, why_len, "its vmStructs have no %s", missing);
		return -ENOTSUP;
	}
	return 0;
}
