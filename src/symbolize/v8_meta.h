/* SPDX-License-Identifier: GPL-2.0 */
/*
 * V8's own description of its heap objects and frames, as a node binary (or
 * libnode) exports it for postmortem debuggers: the v8dbg_* symbols (531 in
 * node 20.20 and Debian 13's libnode115), each a constant in the symbol's own bytes
 * (v8dbg_class_JSFunction__shared__SharedFunctionInfo = 24: that field's
 * offset).  Read from the file, never from the process: a process cannot
 * fake its binary's layout to another process's walk.
 */
#ifndef STITCH_SYMBOLIZE_V8_META_H
#define STITCH_SYMBOLIZE_V8_META_H

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>

struct v8_meta {
	int major, minor;		/* V8's version ("11.3" of "11.3.244.8-node.33") */
	int32_t fp_function, fp_context;	/* JS frame slots from the frame pointer */
	int32_t fp_bytecode_array;	/* an interpreted or baseline frame's BytecodeArray */
	uint32_t smi_shift;		/* a Smi's value is the word >> smi_shift */
	/* object fields (offsets from the untagged address) */
	uint32_t obj_map, map_type;
	uint32_t fn_shared;
	uint32_t sfi_name_or_scope, sfi_script;
	uint32_t script_name, script_source, script_line_ends;
	uint32_t fixed_array_length, fixed_array_data;
	uint32_t str_length, seq1_chars, seq2_chars;
	uint32_t cons_first, cons_second, sliced_parent, sliced_offset, thin_actual;
	uint32_t ext_resource;		/* ExternalString: the embedder's resource; its data cached after it */
	/* instance types */
	uint16_t type_js_function, type_sfi, type_script, type_scope_info, type_fixed_array;
	uint16_t type_bytecode_array;
	uint16_t first_nonstring;
	uint16_t str_repr_mask, str_seq, str_cons, str_sliced, str_thin, str_external;
	uint16_t str_enc_mask, str_one_byte;
	/* ScopeInfo (v8_meta.c: per version, not in the symbols) */
	bool si_flags_smi;		/* flags a Smi (else a raw 32-bit word) */
	bool si_pos_first;		/* position info before the locals' names (V8 13) */
	uint8_t si_fn_var_shift, si_saved_class_bit, si_inferred_bit;
	uint8_t si_first_slot;		/* slot of the first context local's name */
	uint8_t si_inline_locals;	/* this many locals or more: names in a hash table (1 slot) */
	uint8_t si_module_type;		/* scope_type (flags & 15) of a module: one more slot */
	/*
	 * Optimized code, for the functions TurboFan and Maglev inlined into
	 * it (v8_meta.c: per version, checked against the symbols that give
	 * them; v8_inlined.h).  code_known false: not read (its frames are
	 * named, without what was inlined into them).
	 */
	bool code_known;
	uint16_t type_code, type_byte_array, type_trusted_byte_array;
	uint32_t fn_code;		/* JSFunction's Code; 0: none (V8 13: a dispatch handle) */
	uint32_t stream_header;		/* InstructionStream's header, instructions after it; 0: none */
	uint32_t code_istart;		/* Code's instruction start; without a stream, the instructions' offset */
	uint32_t code_isize, code_flags, code_deopt, code_positions;
	uint32_t code_kind_mask, code_kind_shift;
	uint8_t kind_maglev, kind_turbofan;
	uint8_t di_sfi, di_literals, di_inlining;	/* DeoptimizationData's slots */
	uint8_t sfi_wrapped;		/* the SFI slot holds a wrapper, its SFI at this offset; 0: not */
	/*
	 * Interpreted frames' lines (v8_bytecode.h; v8_meta.c: per version,
	 * checked against the symbols that give parts of it).  bc_known
	 * false: named at the line where their function is defined.
	 */
	bool bc_known;
	int32_t fp_bytecode_offset;	/* an interpreted frame's bytecode offset (a Smi) */
	uint32_t bc_data;		/* a BytecodeArray's first bytecode (its header's size) */
	uint32_t bc_positions;		/* ... its source position table */
	uint32_t sfi_data;		/* a SharedFunctionInfo's bytecode (or baseline Code, ...) */
	uint32_t code_bytecode;		/* a baseline Code's BytecodeArray */
};

/*
 * The layout of the V8 in elf: 0; -ENOENT: elf is not V8 (no v8dbg_*
 * symbols); -ENOTSUP: it is, of a version or build stitch cannot read
 * (why says which, for the one line the user gets).  0 with why not empty:
 * its frames can be named, not what was inlined into them (why says why).
 */
int v8_meta_read(Elf *elf, struct v8_meta *m, char *why, size_t why_len);

/*
 * Whether a leaf frame in V8's generated code has its frame built, from the
 * first bytes of code at its pc: not at the first instructions of V8's
 * x86-64 prologue (push rbp; mov rbp, rsp; push rsi (context); push rdi
 * (function)), where rbp is still the caller's or the function's slot not
 * written yet, nor at a ret, where rbp is the caller's again.  The kernel's
 * walk checks the same (capture/unwind_in_kernel_step.h, ku_v8_leaf_framed).
 * arm64's prologue is not checked yet: false.
 */
static inline bool v8_leaf_framed(const uint8_t code[3])
{
#if defined(__x86_64__)
	if (code[0] == 0x55 || code[0] == 0x56 || code[0] == 0x57 || code[0] == 0xc3 ||
	    code[0] == 0xc2)
		return false;
	/* mov rbp, rsp, in either of its encodings */
	if (code[0] == 0x48 && ((code[1] == 0x89 && code[2] == 0xe5) ||
				(code[1] == 0x8b && code[2] == 0xec)))
		return false;
	return true;
#else
	(void)code;
	return false;
#endif
}

#endif /* STITCH_SYMBOLIZE_V8_META_H */
