// SPDX-License-Identifier: GPL-2.0
/*
 * The part of _PyEval_EvalFrameDefault its symbol does not cover.  Debian
 * sid's python3.14 and python3.13 (gcc 15, hot/cold partitioning) keep
 * 1,184 and 2,384 bytes at the symbol, the entry, and the loop itself
 * (84,423 and 77,082 bytes) in a second part with an FDE of its own and no
 * symbol (stripped): every native frame of a running eval call is in that
 * part.  Debian 12's python3.11 has the usual cold part (13,913 bytes of
 * error paths, 379 jumps from the loop): a frame there is the loop's too.
 * Found by what only a part of the same function does: the entry jumps
 * (jmp/jcc, not calls) into the middle of it, many times; a tail call
 * would jump to a function's start.
 * Three jumps into one foreign FDE, and no other candidate, or nothing:
 * a wrong part would splice Python frames over another function's frames.
 */
#include <string.h>

#include "interp/python/python_new.h"
#include "unwind/cfi.h"
#include "util/elf_util.h"

#define MIN_JUMPS 3
#define MAX_CANDIDATES 8

/* The bytes of [vaddr, vaddr + size) in an executable section, or NULL. */
const uint8_t *py_text_at(Elf *elf, uint64_t vaddr, uint64_t size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR) || vaddr < sh.sh_addr ||
		    vaddr + size > sh.sh_addr + sh.sh_size)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return NULL;
		return (const uint8_t *)d->d_buf + (vaddr - sh.sh_addr);
	}
	return NULL;
}

/*
 * The jump (not a call) at code + off of a function at eval, if one starts
 * there: its target.  x86-64: jmp rel32, jcc rel32, at any byte.
 * arm64: b imm26, b.cond imm19, cbz/cbnz imm19, tbz/tbnz imm14, at 4-byte
 * aligned instructions only.
 */
static bool jump_at(const uint8_t *code, uint64_t size, uint64_t off, uint64_t eval,
		    uint64_t *target)
{
#if defined(__aarch64__)
	uint32_t insn;
	int64_t rel;

	if (off & 3 || off + 4 > size)
		return false;
	memcpy(&insn, code + off, 4);
	if ((insn & 0xfc000000) == 0x14000000)			/* b */
		rel = (int64_t)((uint64_t)(insn & 0x03ffffff) << 38) >> 36;
	else if ((insn & 0xff000010) == 0x54000000 ||		/* b.cond */
		 (insn & 0x7e000000) == 0x34000000)		/* cbz, cbnz */
		rel = (int64_t)((uint64_t)((insn >> 5) & 0x7ffff) << 45) >> 43;
	else if ((insn & 0x7e000000) == 0x36000000)		/* tbz, tbnz */
		rel = (int64_t)((uint64_t)((insn >> 5) & 0x3fff) << 50) >> 48;
	else
		return false;
	*target = eval + off + rel;
	return true;
#else
	uint64_t len;
	int32_t rel;

	if (off + 5 > size)
		return false;
	if (code[off] == 0xe9)					/* jmp rel32 */
		len = 5;
	else if (code[off] == 0x0f && off + 6 <= size &&
		 (code[off + 1] & 0xf0) == 0x80)		/* jcc rel32 */
		len = 6;
	else
		return false;
	memcpy(&rel, code + off + len - 4, 4);
	*target = eval + off + len + (int64_t)rel;
	return true;
#endif
}

static bool eval_part_found(Elf *elf, uint64_t eval, uint64_t size, uint64_t *start,
			    uint64_t *end)
{
	uint64_t cand[MAX_CANDIDATES], found = 0;
	int hits[MAX_CANDIDATES], ncand = 0, i, strong = 0;
	struct cfi_hdr_index ix;
	const uint8_t *code;
	uint64_t off;

	*start = *end = 0;
	if (!elf || size < 6 || size > (1u << 20) || cfi_hdr_index_read(elf, &ix) || !ix.count)
		return false;
	code = py_text_at(elf, eval, size);
	if (!code)
		return false;
	for (off = 0; off + 4 <= size; off++) {
		uint64_t target, fs;

		if (!jump_at(code, size, off, eval, &target))
			continue;
		if (target >= eval && target < eval + size)
			continue;
		fs = cfi_hdr_func_start(&ix, target);
		/*
		 * Not a jump at all (bytes of another instruction) when the
		 * target lies past the last FDE, or in a gap after this one.
		 */
		if (!fs || fs == target || fs == cfi_hdr_func_start(&ix, eval) ||
		    !py_text_at(elf, target, 1) || target >= cfi_hdr_next_start(&ix, fs))
			continue;
		for (i = 0; i < ncand && cand[i] != fs; i++)
			;
		if (i == ncand) {
			if (ncand == MAX_CANDIDATES)
				continue;
			cand[ncand] = fs;
			hits[ncand++] = 0;
		}
		hits[i]++;
	}
	for (i = 0; i < ncand; i++) {
		if (hits[i] >= MIN_JUMPS) {
			strong++;
			found = cand[i];
		}
	}
	if (strong != 1)
		return false;
	*start = found;
	*end = cfi_hdr_next_start(&ix, found);
	return *end > *start;
}

/*
 * The answers for the last few binaries, by build ID: a build's or a
 * shell's python3 starts again and again, and each start's search (every
 * jump of a 80 KB loop, each target's section looked for) was a tenth of
 * an agent's CPU over such a churn.  The answer is the file's bytes', so
 * its build ID says it is the same; a file without one is searched again.
 * Used from the recording's thread only.
 */
#define EVAL_PARTS_KEPT 8

static struct eval_part_kept {
	uint8_t build_id[STITCH_BUILD_ID_MAX];
	size_t build_id_len;
	uint64_t eval, size, start, end;
	bool found;
} eval_parts[EVAL_PARTS_KEPT];
static unsigned int eval_parts_next;

bool py_eval_part(Elf *elf, uint64_t eval, uint64_t size, uint64_t *start, uint64_t *end)
{
	uint8_t id[STITCH_BUILD_ID_MAX];
	struct eval_part_kept *k;
	size_t len = elf ? elf_build_id(elf, id) : 0;
	unsigned int i;
	bool found;

	for (i = 0; len && i < EVAL_PARTS_KEPT; i++) {
		k = &eval_parts[i];
		if (k->build_id_len == len && !memcmp(k->build_id, id, len) && k->eval == eval &&
		    k->size == size) {
			*start = k->start;
			*end = k->end;
			return k->found;
		}
	}
	found = eval_part_found(elf, eval, size, start, end);
	if (len) {
		k = &eval_parts[eval_parts_next++ % EVAL_PARTS_KEPT];
		memcpy(k->build_id, id, len);
		k->build_id_len = len;
		k->eval = eval;
		k->size = size;
		k->start = *start;
		k->end = *end;
		k->found = found;
	}
	return found;
}
