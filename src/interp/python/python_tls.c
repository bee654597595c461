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
 * Anything else (a libpython, whose TLS needs ld.so's help, or a build
 * that does more there) is not recognized: no guess.
 */
#include <string.h>

#include "interp/python/python_new.h"
#include "util/elf_util.h"

#if !defined(__aarch64__)
/* The executable's TLS segment, whose block ends at the thread pointer (x86-64). */
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
#endif

bool py_tls_tstate(Elf *elf, int64_t *tpoff)
{
#if defined(__aarch64__)
	/*
	 * arm64's code (mrs tpidr_el0 and a variant I offset) is not decoded
	 * yet: python 3.15 is named and left native there.
	 */
	return false;
#else
	static const uint8_t endbr64[] = { 0xf3, 0x0f, 0x1e, 0xfa };
	/* mov %fs:disp32,%rax: 64 (fs) 48 (REX.W) 8b (mov r64, r/m64) 04 25 (SIB, no base) */
	static const uint8_t mov_fs[] = { 0x64, 0x48, 0x8b, 0x04, 0x25 };
	uint64_t fn, size, memsz, align, block;
	const uint8_t *code;
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
