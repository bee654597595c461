/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HotSpot's own description of its structures, as every libjvm.so exports
 * it for the serviceability agent: the gHotSpotVMStructs table (type, field,
 * offset or a static's address: 801 entries in OpenJDK 17.0.21), the
 * gHotSpotVMTypes table (sizes) and the integer constants.  The tables hold
 * pointers relocated at load and their entry layout is itself exported in
 * .bss variables filled at start: they are read from the process.  A process
 * can fake them, and so only its own frames: every value read through them
 * is bounded and checked again at each use (symbolize/hotspot_names.c).
 */
#ifndef STITCH_SYMBOLIZE_HOTSPOT_META_H
#define STITCH_SYMBOLIZE_HOTSPOT_META_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

/* Where libjvm keeps the tables: its symbols' file addresses (st_value). */
struct hotspot_syms {
	uint64_t structs, types, int_consts;		/* pointer variables: each table */
	uint64_t s_type, s_field, s_tstring, s_static, s_offset, s_address, s_stride;
	uint64_t t_name, t_size, t_stride;
	uint64_t i_name, i_value, i_stride;
};

/* A field: its offset and width in bytes (1, 2, 4 or 8); width 0: absent. */
struct hotspot_field {
	uint32_t off;
	uint8_t width;
};

struct hotspot_meta {
	/* JDK 25's compressed streams never use a zero byte (UNSIGNED5, X = 1); 17's do (X = 0) */
	uint8_t stream_x;
	/* statics: absolute addresses in the process */
	uint64_t code_heaps;		/* CodeCache::_heaps: GrowableArray<CodeHeap*>* */
	uint64_t code_low, code_high;	/* CodeCache::_low_bound, _high_bound: address */
	struct hotspot_field ga_len, ga_data;
	struct hotspot_field heap_memory, heap_segmap, heap_log2;
	struct hotspot_field vs_low, vs_high;
	uint32_t heap_block_size;	/* sizeof(HeapBlock): the blob follows it */
	struct hotspot_field hb_used;
	/* CodeBlob */
	struct hotspot_field blob_name, blob_size, blob_frame_complete, blob_frame_size;
	struct hotspot_field blob_code_begin;	/* 17: an address */
	struct hotspot_field blob_code_offset;	/* 25: from the blob */
	struct hotspot_field blob_data_offset;
	struct hotspot_field blob_kind;		/* 25 */
	int32_t kind_nmethod;
	/* nmethod (17: CompiledMethod's) */
	struct hotspot_field nm_method, nm_compile_id;
	struct hotspot_field nm_pcs_offset, nm_pcs_end_offset;	/* 17: from the nmethod */
	struct hotspot_field nm_scopes_begin;			/* 17: an address */
	struct hotspot_field nm_metadata_offset;		/* 17: from the nmethod */
	struct hotspot_field nm_immutable;			/* 25: pcs and scopes in it */
	struct hotspot_field nm_scopes_offset;			/* 25: from _immutable_data */
	struct hotspot_field blob_mutable, blob_reloc_size;	/* 25: metadata after the relocations */
	/* Method, ConstMethod, ConstantPool, Klass, Symbol */
	struct hotspot_field method_const;
	struct hotspot_field cm_constants, cm_flags, cm_code_size, cm_name_index, cm_sig_index;
	uint32_t cm_size;		/* sizeof(ConstMethod): its bytecodes follow it */
	int32_t cm_has_lines;		/* the flag saying a line number table follows them */
	struct hotspot_field cp_holder, cp_source_file, cp_cache;
	bool source_in_klass;		/* cp_source_file is InstanceKlass's (11), not the pool's */
	uint32_t cp_size;		/* sizeof(ConstantPool): its slots follow it */
	struct hotspot_field klass_name;
	struct hotspot_field sym_length, sym_body;
	struct hotspot_field pcd_pc, pcd_scope;
	uint32_t pcd_size;		/* sizeof(PcDesc) */
	/*
	 * What tells that a Method's memory may now hold another method
	 * (symbolize/hotspot_names.c): the count of classes unloaded, in the
	 * JVM's perf data (symbolize/hotspot_perfdata.h, set by the caller;
	 * 0: none found: -XX:-UsePerfData, -XX:+PerfDisableSharedMem), and
	 * JvmtiExport's flag that an agent may redefine classes (a static's
	 * address, 0: not exported).
	 */
	uint64_t unloaded_count;
	uint64_t can_redefine;
};

/* libjvm's table symbols in elf: 0, or -ENOENT (not a libjvm). */
int hotspot_syms_read(Elf *elf, struct hotspot_syms *s);

/*
 * The layout of the JVM running in pid, its libjvm loaded at bias: 0;
 * -ENOTSUP with why set (a layout stitch cannot use: a field it needs is
 * absent); -EFAULT (the tables were unreadable: not started yet, or gone).
 */
int hotspot_meta_read(uint32_t pid, uint64_t bias, const struct hotspot_syms *s,
		      struct hotspot_meta *m, char *why, size_t why_len);

/* Read size bytes of pid's memory at addr: 0 or -EFAULT. */
int hotspot_mem(uint32_t pid, uint64_t addr, void *buf, size_t size);

/* One piece of a read of several places at once: size bytes at addr into buf. */
struct hotspot_piece {
	uint64_t addr;
	void *buf;
	size_t size;
};
#define HOTSPOT_PIECES_MAX 4
/*
 * The n pieces of pid's memory in one system call (a Java stack's naming
 * reads two places at its start): 0, or -EFAULT if any is short.
 */
int hotspot_mem_v(uint32_t pid, const struct hotspot_piece *p, unsigned n);

/* The field f of the object at obj (zero-extended; int16_t and int sign-extended): 0 or -EFAULT. */
int hotspot_get(uint32_t pid, uint64_t obj, struct hotspot_field f, bool is_signed, int64_t *out);

#endif /* STITCH_SYMBOLIZE_HOTSPOT_META_H */
