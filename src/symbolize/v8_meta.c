// SPDX-License-Identifier: GPL-2.0
/* V8's postmortem metadata, read from a node binary: see v8_meta.h. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/v8_meta.h"

/* What a field's symbol is called, up to its type ("..__shared__" of "..__shared__SharedFunctionInfo"). */
struct want {
	const char *name;	/* after "v8dbg_"; a trailing "__" matches any type */
	size_t off;		/* in struct v8_meta */
	uint8_t size;		/* of that member: 2 or 4 */
	bool found;
};

#define W(n, member) { n, offsetof(struct v8_meta, member), sizeof(((struct v8_meta *)0)->member), false }

static struct want wants_init[] = {
	W("off_fp_function", fp_function),
	W("off_fp_context", fp_context),
	W("off_fp_bytecode_array", fp_bytecode_array),
	W("SmiShiftSize", smi_shift),
	W("class_HeapObject__map__", obj_map),
	W("class_Map__instance_type__", map_type),
	W("class_JSFunction__shared__", fn_shared),
	W("class_SharedFunctionInfo__name_or_scope_info__", sfi_name_or_scope),
	/* V8 10, 11: script_or_debug_info; 12: script; 13: raw_script */
	W("class_SharedFunctionInfo__script_or_debug_info__", sfi_script),
	W("class_SharedFunctionInfo__script__", sfi_script),
	W("class_SharedFunctionInfo__raw_script__", sfi_script),
	W("class_Script__name__", script_name),
	W("class_Script__source__", script_source),
	W("class_Script__line_ends__", script_line_ends),
	W("class_FixedArrayBase__length__", fixed_array_length),
	W("class_FixedArray__data__", fixed_array_data),
	W("class_String__length__", str_length),
	W("class_SeqOneByteString__chars__", seq1_chars),
	W("class_SeqTwoByteString__chars__", seq2_chars),
	W("class_ConsString__first__", cons_first),
	W("class_ConsString__second__", cons_second),
	W("class_SlicedString__parent__", sliced_parent),
	W("class_SlicedString__offset__", sliced_offset),
	W("class_ThinString__actual__", thin_actual),
	W("type_JSFunction__JS_FUNCTION_TYPE", type_js_function),
	W("type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE", type_sfi),
	W("type_Script__SCRIPT_TYPE", type_script),
	W("type_ScopeInfo__SCOPE_INFO_TYPE", type_scope_info),
	W("type_FixedArray__FIXED_ARRAY_TYPE", type_fixed_array),
	W("type_BytecodeArray__BYTECODE_ARRAY_TYPE", type_bytecode_array),
	W("FirstNonstringType", first_nonstring),
	W("StringRepresentationMask", str_repr_mask),
	W("SeqStringTag", str_seq),
	W("ConsStringTag", str_cons),
	W("SlicedStringTag", str_sliced),
	W("ThinStringTag", str_thin),
	W("ExternalStringTag", str_external),
	W("class_ExternalString__resource__", ext_resource),
	W("StringEncodingMask", str_enc_mask),
	W("OneByteStringTag", str_one_byte),
};

/* Symbols whose value must be what stitch's reading assumes. */
static const struct {
	const char *name;
	int64_t value;
} musts[] = {
	{ "HeapObjectTag", 1 },
	{ "HeapObjectTagMask", 3 },
	{ "SmiTagMask", 1 },
	{ "SystemPointerSize", 8 },
	/* 4: pointer compression (Electron, Chrome): not read yet */
	{ "TaggedSize", 8 },
};

/*
 * Symbols of optimized code's layout, where a version has them: each must
 * agree with code_layouts below, and the types and kinds are taken from
 * them.  By name, as wants' (a trailing "__" matches any type).
 */
enum {
	OPT_TYPE_CODE, OPT_TYPE_BYTE_ARRAY, OPT_TYPE_TRUSTED_BYTE_ARRAY,
	OPT_KIND_BASELINE, OPT_KIND_MASK, OPT_KIND_SHIFT,
	OPT_FN_CODE, OPT_STREAM_HEADER, OPT_ISTART, OPT_ISIZE, OPT_FLAGS, OPT_DEOPT, OPT_POSITIONS,
	OPT_DI_SFI, OPT_DI_WRAPPED_SFI, OPT_DI_LITERALS, OPT_DI_INLINING, OPT_SFI_WRAPPED,
	OPT_FP_BYTECODE_OFFSET, OPT_BC_DATA, OPT_SFI_DATA, OPT_CODE_BYTECODE,
	NR_OPTS
};

static const char *const opt_names[NR_OPTS] = {
	[OPT_TYPE_CODE] = "type_Code__CODE_TYPE",
	[OPT_TYPE_BYTE_ARRAY] = "type_ByteArray__BYTE_ARRAY_TYPE",
	[OPT_TYPE_TRUSTED_BYTE_ARRAY] = "type_TrustedByteArray__TRUSTED_BYTE_ARRAY_TYPE",
	[OPT_KIND_BASELINE] = "CodeKindBaseline",
	[OPT_KIND_MASK] = "CodeKindFieldMask",
	[OPT_KIND_SHIFT] = "CodeKindFieldShift",
	[OPT_FN_CODE] = "class_JSFunction__code__",
	[OPT_STREAM_HEADER] = "class_InstructionStream__instruction_start__",
	[OPT_ISTART] = "class_Code__instruction_start__",
	[OPT_ISIZE] = "class_Code__instruction_size__",
	[OPT_FLAGS] = "class_Code__flags__",
	[OPT_DEOPT] = "class_Code__deoptimization_data__",
	[OPT_POSITIONS] = "class_Code__source_position_table__",
	[OPT_DI_SFI] = "DeoptimizationDataSharedFunctionInfoIndex",
	[OPT_DI_WRAPPED_SFI] = "DeoptimizationDataWrappedSharedFunctionInfoIndex",
	[OPT_DI_LITERALS] = "DeoptimizationDataLiteralArrayIndex",
	[OPT_DI_INLINING] = "DeoptimizationDataInliningPositionsIndex",
	[OPT_SFI_WRAPPED] = "class_SharedFunctionInfoWrapper__shared_info__",
	[OPT_FP_BYTECODE_OFFSET] = "off_fp_bytecode_offset",
	[OPT_BC_DATA] = "class_BytecodeArray__data__",
	[OPT_SFI_DATA] = "class_SharedFunctionInfo__function_data__",
	[OPT_CODE_BYTECODE] = "class_Code__bytecode_or_interpreter_data__",
};

struct opts {
	int64_t v[NR_OPTS];
	bool found[NR_OPTS];
};

/* The value stored in a symbol's bytes (.bss: 0); false if outside every segment. */
static bool sym_value(Elf *elf, const char *raw, size_t raw_size, const GElf_Sym *s, int64_t *v)
{
	size_t i, n;

	if (s->st_size == 0 || s->st_size > 8 || elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t rel, off;
		union {
			int8_t b;
			int16_t h;
			int32_t w;
			int64_t q;
		} u = { .q = 0 };

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (s->st_value < ph.p_vaddr || s->st_value - ph.p_vaddr + s->st_size > ph.p_memsz)
			continue;
		rel = s->st_value - ph.p_vaddr;
		if (rel + s->st_size > ph.p_filesz) {
			*v = 0;		/* zero-initialised: .bss */
			return true;
		}
		off = ph.p_offset + rel;
		if (off > raw_size || raw_size - off < s->st_size)
			return false;
		memcpy(&u, raw + off, s->st_size);
		*v = s->st_size == 1 ? u.b : s->st_size == 2 ? u.h : s->st_size == 4 ? u.w : u.q;
		return true;
	}
	return false;
}

static bool name_matches(const char *sym, const char *want)
{
	size_t n = strlen(want);

	if (n >= 2 && want[n - 2] == '_' && want[n - 1] == '_')
		return strncmp(sym, want, n) == 0;
	return strcmp(sym, want) == 0;
}

/* V8's version, from the string node embeds ("11.3.244.8-node.33"). */
static bool find_version(const char *raw, size_t size, int *major, int *minor)
{
	static const char tag[] = "-node.";
	const char *p = raw, *end = raw + size, *hit;

	while (p < end && (hit = memmem(p, end - p, tag, sizeof(tag) - 1))) {
		const char *s = hit;
		int dots = 0;

		while (s > raw && ((s[-1] >= '0' && s[-1] <= '9') || s[-1] == '.') && hit - s < 24) {
			dots += s[-1] == '.';
			s--;
		}
		if (dots == 3 && sscanf(s, "%d.%d.", major, minor) == 2 && *major > 0)
			return true;
		p = hit + 1;
	}
	return false;
}

/*
 * ScopeInfo's flags are a bit field the symbols do not describe, nor where
 * the function's name lies among its slots (src/objects/scope-info.tq of
 * each version), read off live processes of node 18, 20, 22 and 24 and
 * checked against fn.name, Error().stack and the inspector's CPU profile
 * for plain functions, closures, methods, getters, arrows, class
 * constructors, async functions and generators:
 *
 *   V8 10.2 - 12.4: map, flags (Smi), parameter count, context local count,
 *     the locals' names (inline below 75, else one hash table slot), their
 *     infos, [saved class variable: bit 10], [function variable: name,
 *     index: bits 12-13 not 0], [inferred name: bit 14], start, end.
 *   V8 13.6: map, flags (a raw 32-bit word), parameter count, context
 *     local count, start, end, [module variable count: modules], the
 *     locals' names, ... as above, without the positions.
 */
static const struct {
	int major, minor;
	bool flags_smi, pos_first;
	uint8_t first_slot, module_type;
} scope_infos[] = {
	{ 10, 2, true, false, 4, 3 },	/* node 18 */
	{ 11, 3, true, false, 4, 3 },	/* node 20 */
	{ 12, 4, true, false, 4, 3 },	/* node 22 */
	{ 13, 6, false, true, 6, 5 },	/* node 24 */
};

static bool scope_info_layout(struct v8_meta *m)
{
	size_t i;

	for (i = 0; i < sizeof(scope_infos) / sizeof(scope_infos[0]); i++) {
		if (scope_infos[i].major != m->major || scope_infos[i].minor != m->minor)
			continue;
		m->si_flags_smi = scope_infos[i].flags_smi;
		m->si_pos_first = scope_infos[i].pos_first;
		m->si_first_slot = scope_infos[i].first_slot;
		m->si_module_type = scope_infos[i].module_type;
		m->si_saved_class_bit = 10;
		m->si_fn_var_shift = 12;
		m->si_inferred_bit = 14;
		m->si_inline_locals = 75;
		return true;
	}
	return false;
}

/*
 * Optimized code's layout (x86-64, no pointer compression), from each
 * version's src/objects/code.h, instruction-stream.h and
 * deoptimization-data.h, checked on live processes of node 18, 20, 22 and
 * 24 started without flags (the chains read matched their sources): where
 * a Code's instructions start (inside it in V8 10; after an
 * InstructionStream's header from 11), its size, flags (its kind), its
 * deoptimization data and source position table; in the deoptimization
 * data, the optimized function's SharedFunctionInfo (V8 13: wrapped), the
 * literals (the inlined functions' SharedFunctionInfos, by id) and the
 * inlining positions.
 */
static const struct {
	int major, minor;
	uint32_t fn_code, stream_header, istart, isize, flags, deopt, positions;
	uint8_t di_sfi, di_literals, di_inlining, sfi_wrapped;
} code_layouts[] = {
	{ 10, 2, 48, 0, 128, 40, 48, 16, 24, 6, 2, 7, 0 },	/* node 18 */
	{ 11, 3, 48, 16, 40, 56, 48, 16, 24, 6, 2, 7, 0 },	/* node 20 */
	{ 12, 4, 24, 32, 40, 52, 48, 8, 16, 6, 2, 7, 0 },	/* node 22 */
	{ 13, 6, 0, 32, 40, 56, 52, 8, 16, 7, 3, 8, 8 },	/* node 24 */
};

/* A symbol that gives a field must agree with the table. */
static bool opt_agrees(const struct opts *o, int k, int64_t v)
{
	return !o->found[k] || o->v[k] == v;
}

static void code_layout(struct v8_meta *m, const struct opts *o, char *why, size_t why_len)
{
	size_t i;

	for (i = 0; i < sizeof(code_layouts) / sizeof(code_layouts[0]); i++)
		if (code_layouts[i].major == m->major && code_layouts[i].minor == m->minor)
			break;
	if (i == sizeof(code_layouts) / sizeof(code_layouts[0]) || !o->found[OPT_TYPE_CODE] ||
	    !o->found[OPT_KIND_BASELINE] || !o->found[OPT_KIND_MASK] ||
	    !o->found[OPT_KIND_SHIFT] || !o->found[OPT_TYPE_BYTE_ARRAY]) {
		snprintf(why, why_len, "V8 %d.%d's optimized code is not known to stitch",
			 m->major, m->minor);
		return;
	}
	if (!opt_agrees(o, OPT_FN_CODE, code_layouts[i].fn_code) ||
	    !opt_agrees(o, OPT_STREAM_HEADER, code_layouts[i].stream_header) ||
	    !opt_agrees(o, OPT_ISTART, code_layouts[i].istart) ||
	    !opt_agrees(o, OPT_ISIZE, code_layouts[i].isize) ||
	    !opt_agrees(o, OPT_FLAGS, code_layouts[i].flags) ||
	    !opt_agrees(o, OPT_DEOPT, code_layouts[i].deopt) ||
	    !opt_agrees(o, OPT_POSITIONS, code_layouts[i].positions) ||
	    !opt_agrees(o, code_layouts[i].sfi_wrapped ? OPT_DI_WRAPPED_SFI : OPT_DI_SFI,
			code_layouts[i].di_sfi) ||
	    !opt_agrees(o, OPT_DI_LITERALS, code_layouts[i].di_literals) ||
	    !opt_agrees(o, OPT_DI_INLINING, code_layouts[i].di_inlining) ||
	    !opt_agrees(o, OPT_SFI_WRAPPED, code_layouts[i].sfi_wrapped) ||
	    (code_layouts[i].sfi_wrapped && !o->found[OPT_SFI_WRAPPED])) {
		snprintf(why, why_len, "its optimized code is not laid out as V8 %d.%d's known to stitch",
			 m->major, m->minor);
		return;
	}
	m->fn_code = code_layouts[i].fn_code;
	m->stream_header = code_layouts[i].stream_header;
	m->code_istart = code_layouts[i].istart;
	m->code_isize = code_layouts[i].isize;
	m->code_flags = code_layouts[i].flags;
	m->code_deopt = code_layouts[i].deopt;
	m->code_positions = code_layouts[i].positions;
	m->di_sfi = code_layouts[i].di_sfi;
	m->di_literals = code_layouts[i].di_literals;
	m->di_inlining = code_layouts[i].di_inlining;
	m->sfi_wrapped = code_layouts[i].sfi_wrapped;
	m->type_code = (uint16_t)o->v[OPT_TYPE_CODE];
	m->type_byte_array = (uint16_t)o->v[OPT_TYPE_BYTE_ARRAY];
	m->type_trusted_byte_array = o->found[OPT_TYPE_TRUSTED_BYTE_ARRAY] ?
		(uint16_t)o->v[OPT_TYPE_TRUSTED_BYTE_ARRAY] : m->type_byte_array;
	m->code_kind_mask = (uint32_t)o->v[OPT_KIND_MASK];
	m->code_kind_shift = (uint32_t)o->v[OPT_KIND_SHIFT];
	/* CodeKind: ..., INTERPRETED_FUNCTION, BASELINE, MAGLEV, TURBOFAN (code-kind.h, 10 to 13). */
	m->kind_maglev = (uint8_t)(o->v[OPT_KIND_BASELINE] + 1);
	m->kind_turbofan = (uint8_t)(o->v[OPT_KIND_BASELINE] + 2);
	m->code_known = m->code_kind_shift < 32;
}

/*
 * Where an interpreted frame's line is read from (x86-64, no pointer
 * compression, no sandbox: node's builds), from each version's
 * src/objects/code.tq (10.2, 11.3) or bytecode-array.tq (12.4, 13.6),
 * shared-function-info.tq and code.h, checked against the symbols node
 * 18.20.4, 20.19.2, 22.22.2 and 24.21.0 export and on node 20's live
 * frames: a BytecodeArray's header size (its first bytecode, which the
 * frame's offset counts from) and its source position table (before the
 * frame size in 10.2 and 11.3, after the wrapper from 12.4 on), the
 * SharedFunctionInfo's slot that holds its bytecode, or the baseline Code
 * whose own slot holds it.  Node records every function's positions as
 * it compiles it (DETAILED_SOURCE_POSITIONS_FOR_PROFILING).
 */
static const struct {
	int major, minor;
	uint32_t data, positions, sfi_data, code_bytecode;
} bytecode_layouts[] = {
	{ 10, 2, 56, 32, 8, 16 },	/* node 18 */
	{ 11, 3, 54, 32, 8, 16 },	/* node 20 */
	{ 12, 4, 64, 24, 8, 8 },	/* node 22 */
	{ 13, 6, 64, 24, 8, 8 },	/* node 24 */
};

static void bytecode_layout(struct v8_meta *m, const struct opts *o)
{
	size_t i;

	for (i = 0; i < sizeof(bytecode_layouts) / sizeof(bytecode_layouts[0]); i++)
		if (bytecode_layouts[i].major == m->major && bytecode_layouts[i].minor == m->minor)
			break;
	if (i == sizeof(bytecode_layouts) / sizeof(bytecode_layouts[0]) || !m->code_known ||
	    !o->found[OPT_FP_BYTECODE_OFFSET] || !o->found[OPT_BC_DATA] ||
	    o->v[OPT_BC_DATA] != bytecode_layouts[i].data ||
	    !opt_agrees(o, OPT_SFI_DATA, bytecode_layouts[i].sfi_data) ||
	    !opt_agrees(o, OPT_CODE_BYTECODE, bytecode_layouts[i].code_bytecode) ||
	    o->v[OPT_FP_BYTECODE_OFFSET] >= 0 || o->v[OPT_FP_BYTECODE_OFFSET] < -256)
		return;
	m->fp_bytecode_offset = (int32_t)o->v[OPT_FP_BYTECODE_OFFSET];
	m->bc_data = bytecode_layouts[i].data;
	m->bc_positions = bytecode_layouts[i].positions;
	m->sfi_data = bytecode_layouts[i].sfi_data;
	m->code_bytecode = bytecode_layouts[i].code_bytecode;
	m->bc_known = true;
}

int v8_meta_read(Elf *elf, struct v8_meta *m, char *why, size_t why_len)
{
	struct opts opts = { { 0 }, { false } };
	struct want wants[sizeof(wants_init) / sizeof(wants_init[0])];
	size_t raw_size, i, k, nsyms;
	bool any = false, musts_ok[sizeof(musts) / sizeof(musts[0])] = { false };
	Elf_Scn *scn = NULL;
	const char *raw;

	memcpy(wants, wants_init, sizeof(wants));
	memset(m, 0, sizeof(*m));
	raw = elf_rawfile(elf, &raw_size);
	if (!raw)
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		nsyms = d->d_size / sh.sh_entsize;
		for (i = 0; i < nsyms; i++) {
			GElf_Sym s;
			const char *name;
			int64_t v;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name || strncmp(name, "v8dbg_", 6))
				continue;
			name += 6;
			any = true;
			for (k = 0; k < sizeof(wants) / sizeof(wants[0]); k++) {
				if (wants[k].found || !name_matches(name, wants[k].name))
					continue;
				if (!sym_value(elf, raw, raw_size, &s, &v))
					break;
				if (wants[k].size == 2)
					*(uint16_t *)((char *)m + wants[k].off) = (uint16_t)v;
				else
					*(int32_t *)((char *)m + wants[k].off) = (int32_t)v;
				wants[k].found = true;
			}
			for (k = 0; k < sizeof(musts) / sizeof(musts[0]); k++)
				if (!strcmp(name, musts[k].name) && sym_value(elf, raw, raw_size, &s, &v))
					musts_ok[k] = v == musts[k].value;
			for (k = 0; k < NR_OPTS; k++)
				if (!opts.found[k] && name_matches(name, opt_names[k]) &&
				    sym_value(elf, raw, raw_size, &s, &v)) {
					opts.v[k] = v;
					opts.found[k] = true;
				}
		}
	}
	if (!any)
		return -ENOENT;
	for (k = 0; k < sizeof(wants) / sizeof(wants[0]); k++) {
		bool script = wants[k].off == offsetof(struct v8_meta, sfi_script);
		size_t j;

		/* The script field goes by one of three names. */
		for (j = 0; script && j < sizeof(wants) / sizeof(wants[0]); j++)
			if (wants[j].off == wants[k].off && wants[j].found)
				script = false;
		if (wants[k].off == offsetof(struct v8_meta, sfi_script) && !script)
			continue;
		/* Absent from the table where it is 0 in some builds: only these. */
		if (!wants[k].found && strcmp(wants[k].name, "class_HeapObject__map__") &&
		    strcmp(wants[k].name, "SeqStringTag")) {
			snprintf(why, why_len, "its metadata has no v8dbg_%s", wants[k].name);
			return -ENOTSUP;
		}
	}
	for (k = 0; k < sizeof(musts) / sizeof(musts[0]); k++) {
		if (!musts_ok[k]) {
			snprintf(why, why_len, "v8dbg_%s is not %lld (pointer compression?)",
				 musts[k].name, (long long)musts[k].value);
			return -ENOTSUP;
		}
	}
	/* A Smi is its value << 32 with no compression: SmiShiftSize 31 + tag 1. */
	m->smi_shift += 1;
	if (m->smi_shift != 32 || !m->fp_function || !m->fp_context) {
		snprintf(why, why_len, "its Smis or frames are not laid out as stitch reads them");
		return -ENOTSUP;
	}
	if (!find_version(raw, raw_size, &m->major, &m->minor)) {
		snprintf(why, why_len, "its V8 version string was not found");
		return -ENOTSUP;
	}
	if (!scope_info_layout(m)) {
		snprintf(why, why_len, "V8 %d.%d's ScopeInfo layout is not known to stitch", m->major,
			 m->minor);
		return -ENOTSUP;
	}
	why[0] = 0;
	code_layout(m, &opts, why, why_len);
	bytecode_layout(m, &opts);
	return 0;
}
