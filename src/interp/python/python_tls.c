// SPDX-License-Identifier: GPL-2.0
/*
 * CPython 3.15 keeps no pthread key for its threads' states: the state a
 * thread is bound to is the thread-local _Py_tss_gilstate
 * (Python/pystate.c), which PyGILState_GetThisThreadState() returns as it
 * is.  The variable has no symbol in a stripped build, but the exported
 * function's code names its place: in an executable (local-exec TLS) it
 * is one load at a fixed offset from the thread pointer, the same for
 * every thread.  Debian sid's python3.15 (3.15.2) is exactly
 *	endbr64; mov %fs:-0x28,%rax; ret
 * and on arm64 (its block follows the 16-byte TCB at tpidr_el0: variant I)
 *	bti c; mrs x0, tpidr_el0; paciasp; stp x29, x30, [sp, #-16]!; nop;
 *	add x0, x0, #0x20; mov x29, sp; ldp x29, x30, [sp], #16; autiasp;
 *	ldr x0, [x0]; ret
 * Anything else (a libpython, whose TLS needs ld.so's help, or a build
 * that does more there) is not recognized: no guess.
 */
#include <string.h>

#include "interp/python/python_new.h"
#include "util/elf_util.h"

/* The executable's TLS segment. */
static bool tls_segment(Elf *elf, uint64_t *memsz, uint64_t *align)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_TLS) {
			*memsz = ph.p_memsz;
			*align = ph.p_align ? ph.p_align : 1;
			return true;
		}
	}
	return false;
}

#if defined(__aarch64__)
/* What the frame's setup and branch protection add, which moves no data. */
static bool neutral(uint32_t insn)
{
	switch (insn) {
	case 0xd503201f:	/* nop */
	case 0xd503245f:	/* bti c */
	case 0xd503233f:	/* paciasp */
	case 0xd50323bf:	/* autiasp */
	case 0xa9bf7bfd:	/* stp x29, x30, [sp, #-16]! */
	case 0x910003fd:	/* mov x29, sp */
	case 0xa8c17bfd:	/* ldp x29, x30, [sp], #16 */
		return true;
	}
	return false;
}

/*
 * "mrs x0, tpidr_el0", "add x0, x0, #imm{, lsl #12}"s, "ldr x0, [x0, #imm]",
 * "ret", amid neutral instructions: the load's offset from the thread
 * pointer, -1 if the code is anything else.
 */
static int64_t tp_load_offset(const uint8_t *code, size_t size)
{
	int64_t off = 0;
	bool tp = false, loaded = false;
	size_t i;

	for (i = 0; i + 4 <= size; i += 4) {
		uint32_t insn;

		memcpy(&insn, code + i, 4);
		if (neutral(insn))
			continue;
		if (insn == 0xd53bd040 && !tp) {		/* mrs x0, tpidr_el0 */
			tp = true;
		} else if ((insn & 0xff8003ff) == 0x91000000 && tp && !loaded) {
			/* add x0, x0, #imm12 (sh: lsl #12) */
			off += (int64_t)((insn >> 10) & 0xfff) << ((insn >> 22) & 1 ? 12 : 0);
		} else if ((insn & 0xffc003ff) == 0xf9400000 && tp && !loaded) {
			off += (int64_t)((insn >> 10) & 0xfff) * 8;	/* ldr x0, [x0, #imm] */
			loaded = true;
		} else if (insn == 0xd65f03c0 && loaded) {	/* ret */
			return off;
		} else {
			return -1;
		}
	}
	return -1;
}
#endif

bool py_tls_tstate(Elf *elf, int64_t *tpoff)
{
	uint64_t fn, size, memsz, align, block;
	const uint8_t *code;
#if defined(__aarch64__)
	int64_t off;

	if (!elf || !elf_dynsym_find(elf, "PyGILState_GetThisThreadState", &fn, &size) ||
	    size < 16 || size > 64 || !tls_segment(elf, &memsz, &align))
		return false;
	code = py_text_at(elf, fn, size);
	off = code ? tp_load_offset(code, size) : -1;
	/* Inside the executable's own block: [roundup(16, align), + memsz - 8]. */
	block = (16 + align - 1) / align * align;
	if (off < 0 || off % 8 || (uint64_t)off < block || (uint64_t)off + 8 > block + memsz)
		return false;
	*tpoff = off;
	return true;
#else
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	/* mov %fs:disp32,%rax: 64 (fs) 48 (REX.W) 8b (mov r64, r/m64) 04 25 (SIB, no base) */
	static const uint8_t mov_fs[] = { 0x64, 0x48, 0x8b, 0x04, 0x25 };
	size_t at = 0;
	int32_t disp;

	if (!elf || !elf_dynsym_find(elf, "PyGILState_GetThisThreadState", &fn, &size) ||
	    size < sizeof(mov_fs) + 5 || size > 64 || !tls_segment(elf, &memsz, &align))
		return false;
	code = py_text_at(elf, fn, size);
	if (!code)
		return false;
	if (memcmp(code, endbr64, sizeof(endbr64)) == 0)
		at = sizeof(endbr64);
	if (at + sizeof(mov_fs) + 5 > size || memcmp(code + at, mov_fs, sizeof(mov_fs)) != 0 ||
	    code[at + sizeof(mov_fs) + 4] != 0xc3)	/* ret */
		return false;
	memcpy(&disp, code + at + sizeof(mov_fs), 4);
	/* Inside the executable's own block: [tp - roundup(memsz, align), tp - 8]. */
	block = (memsz + align - 1) / align * align;
	if (disp >= 0 || disp % 8 || (uint64_t)-(int64_t)disp > block)
		return false;
	*tpoff = disp;
	return true;
#endif
}
