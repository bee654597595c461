// SPDX-License-Identifier: GPL-2.0
/*
 * Finding Ruby's VM in a process: libruby's exported symbols and the code
 * of a few exported functions give the eval loop, where the triggering
 * thread's execution context is (a TLS variable, or 2.7's pthread key) and
 * the global symbol table; rb_cObject (for naming) is exported.  Runs after
 * all mappings were seen: it needs ld.so's list of loaded objects for
 * libruby's TLS module id.
 *
 * Where a value comes from the code, the instruction patterns were read in
 * Debian's builds (2.7.4, 3.1.2, 3.3.8, 3.3.14, 3.4.11: docs/interpreters.md); code
 * that differs gives 0, and the version is then not walked (or not named),
 * never a guessed address.
 */
#include <stdio.h>
#include <string.h>

#include "interp/ruby/ruby.h"
#include "unwind/cfi.h"
#include "util/elf_util.h"

/* The code of exported function name (at most n bytes), its address and size; false if absent. */
static bool rb_func_code(pid_t pid, const struct map *m, const char *name, uint8_t *code,
			 size_t n, uint64_t *addr, uint64_t *size)
{
	uint64_t sz;

	if (!elf_dynsym_find(m->bin->elf, name, addr, &sz) || !sz)
		return false;
	*addr += m->bias;
	*size = sz < n ? sz : n;
	return interp_read(pid, *addr, code, *size) == 0;
}

/* t into out[0..*k) unless there already (the caller bounds *k). */
static void add_target(uint64_t *out, size_t *k, uint64_t t)
{
	size_t j;

	for (j = 0; j < *k && out[j] != t; j++)
		;
	if (j == *k)
		out[(*k)++] = t;
}

/* rb_find_ec_tls found no second source of libruby's TLS module id. */
#define RB_MODID_UNCHECKED UINT64_MAX

#if defined(__aarch64__)
/*
 * arm64: the same values from the same functions, in arm64's code (read in
 * Debian's arm64 builds of 2.7.4, 3.1.2, 3.3.8 and 3.4.11).  Its
 * instructions are 4 bytes; a global's address is "adrp" (its 4 KiB page,
 * pc-relative) and a 12-bit offset in the instruction that uses it.
 */

static uint32_t insn_at(const uint8_t *code, size_t i)
{
	uint32_t w;

	memcpy(&w, code + i, 4);
	return w;
}

/* "adrp xN, page" at pc: the page (and N), 0 if not one. */
static uint64_t adrp_page(uint32_t adrp, uint64_t pc, uint32_t *rd)
{
	/* 1 immlo(2) 10000 immhi(19) Rd */
	if ((adrp & 0x9f000000) != 0x90000000)
		return 0;
	*rd = adrp & 31;
	return (pc & ~0xfffull) +
	       (uint64_t)(((int64_t)((uint64_t)((adrp >> 5) & 0x7ffff) << 45) >> 31) |
			  (int64_t)(((adrp >> 29) & 3) << 12));
}

/* "b" or "bl" (imm26) at pc: its target, 0 if neither. */
static uint64_t b_target(uint32_t insn, uint64_t pc)
{
	if ((insn & 0x7c000000) != 0x14000000)
		return 0;
	return pc + (uint64_t)((int64_t)((uint64_t)(insn & 0x03ffffff) << 38) >> 36);
}

/*
 * "adrp xN, page" at code + i, then within the next three instructions
 * "ldr wT, [xN, #imm]" (unsigned offset, 32-bit: b94 imm12 Rn Rt): the
 * word's address, and where the ldr is; 0 if not.  gcc schedules the
 * frame's setup between the two (2.7's ruby_native_thread_p).
 */
static uint64_t adrp_ldr_w(const uint8_t *code, size_t n, size_t i, uint64_t pc, uint32_t *rt,
			   size_t *ldr_at)
{
	uint64_t page;
	uint32_t rd;
	size_t j;

	page = adrp_page(insn_at(code, i), pc, &rd);
	if (!page)
		return 0;
	for (j = i + 4; j < i + 16 && j + 4 <= n; j += 4) {
		uint32_t ldr = insn_at(code, j);

		if ((ldr & 0xffc00000) != 0xb9400000 || ((ldr >> 5) & 31) != rd)
			continue;
		*rt = ldr & 31;
		*ldr_at = j;
		return page + ((ldr >> 10) & 0xfff) * 4;
	}
	return 0;
}

/*
 * "adrp; ldr wT, [...]; cmp wA, wT" (subs wzr, either order, no shift),
 * the cmp right after the ldr: the 32-bit word compared with, 0 if none.
 */
static uint64_t find_cmp_w_adrp(const uint8_t *code, size_t n, uint64_t base)
{
	size_t i, at_ldr;

	for (i = 0; i + 12 <= n; i += 4) {
		uint64_t at;
		uint32_t rt, cmp;

		at = adrp_ldr_w(code, n, i, base + i, &rt, &at_ldr);
		if (!at || at_ldr + 8 > n)
			continue;
		cmp = insn_at(code, at_ldr + 4);
		if ((cmp & 0xffe0fc1f) == 0x6b00001f &&
		    (((cmp >> 16) & 31) == rt || ((cmp >> 5) & 31) == rt))
			return at;
	}
	return 0;
}

/*
 * &ruby_global_symbols is not exported.  rb_id2str (exported) compares the
 * serial with ruby_global_symbols.last_id: inline in 2.7, in the lookup its
 * last instruction ("b") goes to in 3.1, 3.3 and 3.4, which does "adrp x0,
 * page; ldr w1, [x0, #off]; cmp w19, w1" (124 bytes in, in 3.4.11).  0 if
 * the code differs.
 */
static uint64_t rb_find_symbols(pid_t pid, const struct map *m)
{
	uint8_t code[64], body[192];
	uint64_t id2str, size, at, target;

	if (!rb_func_code(pid, m, "rb_id2str", code, sizeof(code), &id2str, &size))
		return 0;
	size &= ~3ull;
	at = find_cmp_w_adrp(code, size, id2str);
	if (at || size < 4)
		return at;
	target = b_target(insn_at(code, size - 4), id2str + size - 4);
	if (!target || (insn_at(code, size - 4) & 0x80000000))	/* bl: a call, not the tail */
		return 0;
	if (interp_read(pid, target, body, sizeof(body)))
		return 0;
	return find_cmp_w_adrp(body, sizeof(body), target);
}

/*
 * 3.3, 3.4: rb_thread_current() is GET_EC()->thread_ptr->self, and GET_EC() a
 * function of its own (rb_current_ec_noinline), its first "bl": its address,
 * 0 if the code differs.
 */
static uint64_t rb_ec_getter(pid_t pid, const struct map *m)
{
	uint8_t code[32];
	uint64_t fn, size;
	size_t i;

	if (!rb_func_code(pid, m, "rb_thread_current", code, sizeof(code), &fn, &size))
		return 0;
	for (i = 0; i + 4 <= (size & ~3ull); i += 4) {
		uint32_t insn = insn_at(code, i);

		if ((insn & 0xfc000000) == 0x94000000)
			return b_target(insn, fn + i);
	}
	return 0;
}

/* The offset libruby's TLS descriptor at vaddr asks for (its R_AARCH64_TLSDESC's). */
static bool tlsdesc_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	GElf_Rela r;
	uint64_t sym;

	if (!elf_rela_at(elf, vaddr, &r, &sym) || GELF_R_TYPE(r.r_info) != R_AARCH64_TLSDESC)
		return false;
	*off = sym + (uint64_t)r.r_addend;
	return true;
}

/*
 * 3.3, 3.4: ruby_current_ec is in libruby's TLS block but not exported.
 * GET_EC() reaches it by a TLS descriptor: "adrp x0, page; ldr x1, [x0,
 * #lo]; add x0, x0, #lo; blr x1", then "mrs x1, tpidr_el0; ldr x0, [x1, x0]"
 * (trixie's 3.3.8 reads tpidr_el0 first, sid's 3.3.8 and 3.4.11 after the
 * call).  The descriptor's
 * relocation in the file holds the variable's offset in the block (the
 * descriptor itself holds a resolver and, once resolved, an offset from the
 * thread pointer: not the module id x86-64's GOT pair gives).  *modid is
 * RB_MODID_UNCHECKED: ld.so's list is the only source.
 */
static bool rb_find_ec_tls(pid_t pid, const struct map *m, uint64_t *off, uint64_t *modid)
{
	uint8_t code[48];
	uint64_t fn, desc = 0;
	bool mrs = false;
	size_t i;

	fn = rb_ec_getter(pid, m);
	if (!fn || interp_read(pid, fn, code, sizeof(code)))
		return false;
	for (i = 0; i + 4 <= sizeof(code); i += 4) {
		uint32_t rd;
		uint64_t page;

		if ((insn_at(code, i) & 0xffffffe0) == 0xd53bd040)	/* mrs xT, tpidr_el0 */
			mrs = true;
		page = i + 16 <= sizeof(code) ? adrp_page(insn_at(code, i), fn + i, &rd) : 0;
		if (page && !desc) {
			uint32_t ldr = insn_at(code, i + 4), add = insn_at(code, i + 8);
			uint32_t blr = insn_at(code, i + 12);

			/* ldr xM, [xN, #lo]; add xN, xN, #lo (the same byte); blr xM */
			if ((ldr & 0xffc00000) == 0xf9400000 && ((ldr >> 5) & 31) == rd &&
			    (add & 0xffc00000) == 0x91000000 && ((add >> 5) & 31) == rd &&
			    (add & 31) == rd && ((add >> 10) & 0xfff) == ((ldr >> 10) & 0xfff) * 8 &&
			    (blr & 0xfffffc1f) == 0xd63f0000 && ((blr >> 5) & 31) == (ldr & 31))
				desc = page + ((add >> 10) & 0xfff);
		}
	}
	if (!mrs || !desc || desc < m->bias || !tlsdesc_offset(m->bin->elf, desc - m->bias, off))
		return false;
	*modid = RB_MODID_UNCHECKED;
	return true;
}

/* The "b" and "bl" targets in code (at most max), deduplicated. */
static size_t branch_targets(const uint8_t *code, size_t n, uint64_t base, uint64_t *out,
			     size_t max)
{
	size_t i, k = 0;

	for (i = 0; i + 4 <= n && k < max; i += 4) {
		uint64_t t = b_target(insn_at(code, i), base + i);

		if (!t)
			continue;
		add_target(out, &k, t);
	}
	return k;
}

static size_t call_targets(pid_t pid, const struct map *m, const uint8_t *code, size_t n,
			   uint64_t base, uint64_t *out, size_t max)
{
	size_t k, i, j;
	uint64_t ec = rb_ec_getter(pid, m);

	/* Both call GET_EC() first: not the loop. */
	k = branch_targets(code, n & ~3ull, base, out, max);
	for (i = j = 0; i < k; i++)
		if (out[i] != ec)
			out[j++] = out[i];
	return j;
}

/*
 * 2.7: ruby_native_thread_p() is pthread_getspecific(ruby_native_thread_key)
 * != 0: "adrp xN, page; ldr w0, [xN, #off]; bl": the key's address, 0 if
 * the code differs.
 */
static uint64_t rb_find_thread_key(pid_t pid, const struct map *m)
{
	uint8_t code[32];
	uint64_t fn, size;
	size_t i, at_ldr;

	if (!rb_func_code(pid, m, "ruby_native_thread_p", code, sizeof(code), &fn, &size))
		return 0;
	size &= ~3ull;
	for (i = 0; i + 8 <= size; i += 4) {
		uint32_t rt;
		uint64_t at = adrp_ldr_w(code, size, i, fn + i, &rt, &at_ldr);

		if (at && rt == 0 && at_ldr + 8 <= size &&
		    (insn_at(code, at_ldr + 4) & 0xfc000000) == 0x94000000)
			return at;
	}
	return 0;
}
#else
static uint64_t rel32_target(const uint8_t *code, size_t i, uint64_t base, size_t insn_end)
{
	int32_t rel;

	memcpy(&rel, code + i, 4);
	return base + insn_end + rel;
}

/* "cmp rel32(%rip), %edi" (39 3d or 3b 3d): the address compared with, 0 if none. */
static uint64_t find_cmp_edi_rip(const uint8_t *code, size_t n, uint64_t base)
{
	size_t i;

	for (i = 0; i + 6 <= n; i++)
		if ((code[i] == 0x39 || code[i] == 0x3b) && code[i + 1] == 0x3d)
			return rel32_target(code, i + 2, base, i + 6);
	return 0;
}

/*
 * &ruby_global_symbols is not exported.  rb_id2str (exported) compares the
 * serial with ruby_global_symbols.last_id, "cmp rel32(%rip), %edi": inline
 * in 2.7, in the lookup its last instruction ("jmp rel32") goes to in 3.1,
 * 3.3 and 3.4.  0 if the code differs.
 */
static uint64_t rb_find_symbols(pid_t pid, const struct map *m)
{
	uint8_t code[64], body[96];
	uint64_t id2str, size, at, target;

	if (!rb_func_code(pid, m, "rb_id2str", code, sizeof(code), &id2str, &size))
		return 0;
	at = find_cmp_edi_rip(code, size, id2str);
	if (at || size < 5 || code[size - 5] != 0xe9)
		return at;
	target = rel32_target(code, size - 4, id2str, size);
	if (interp_read(pid, target, body, sizeof(body)))
		return 0;
	return find_cmp_edi_rip(body, sizeof(body), target);
}

/*
 * 3.3, 3.4: ruby_current_ec is in libruby's TLS block but not exported.
 * rb_thread_current() is GET_EC()->thread_ptr->self: a general-dynamic TLS
 * access, "data16 lea rel32(%rip), %rdi; data16 data16 rex.W call
 * __tls_get_addr; mov (%rax), %rax", whose GOT pair (tls_index) holds the
 * module id (relocated) and the variable's offset in the block.  Sets the
 * offset and the GOT's module id; false if the code differs.
 */
static bool rb_find_ec_tls(pid_t pid, const struct map *m, uint64_t *off, uint64_t *modid)
{
	static const uint8_t lea[] = { 0x66, 0x48, 0x8d, 0x3d };
	static const uint8_t call[] = { 0x66, 0x66, 0x48, 0xe8 };
	static const uint8_t load[] = { 0x48, 0x8b, 0x00 };
	uint8_t code[48];
	uint64_t fn, size, got[2];
	size_t i;

	if (!rb_func_code(pid, m, "rb_thread_current", code, sizeof(code), &fn, &size))
		return false;
	for (i = 0; i + 19 <= size; i++) {
		if (memcmp(code + i, lea, 4) || memcmp(code + i + 8, call, 4) ||
		    memcmp(code + i + 16, load, 3))
			continue;
		if (interp_read(pid, rel32_target(code, i + 4, fn, i + 8), got, sizeof(got)))
			return false;
		*modid = got[0];
		*off = got[1];
		return true;
	}
	return false;
}

/* The rel32 call and jump targets in code (at most max), deduplicated. */
static size_t rel32_targets(const uint8_t *code, size_t n, uint64_t base, uint64_t *out,
			    size_t max)
{
	size_t i, k = 0;

	for (i = 0; i + 5 <= n && k < max; i++) {
		uint64_t t;

		if (code[i] != 0xe8 && code[i] != 0xe9)
			continue;
		t = rel32_target(code, i + 1, base, i + 5);
		add_target(out, &k, t);
	}
	return k;
}

static size_t call_targets(pid_t pid, const struct map *m, const uint8_t *code, size_t n,
			   uint64_t base, uint64_t *out, size_t max)
{
	(void)pid;
	(void)m;
	return rel32_targets(code, n, base, out, max);
}

/*
 * 2.7: ruby_native_thread_p() is pthread_getspecific(ruby_native_thread_key)
 * != 0: "mov rel32(%rip), %edi; call": the key's address, 0 if the code
 * differs.
 */
static uint64_t rb_find_thread_key(pid_t pid, const struct map *m)
{
	uint8_t code[32];
	uint64_t fn, size;
	size_t i;

	if (!rb_func_code(pid, m, "ruby_native_thread_p", code, sizeof(code), &fn, &size))
		return 0;
	for (i = 0; i + 7 <= size; i++)
		if (code[i] == 0x8b && code[i + 1] == 0x3d && code[i + 6] == 0xe8)
			return rel32_target(code, i + 2, fn, i + 6);
	return 0;
}

#endif /* __aarch64__ */

/*
 * 3.3, 3.4: the VM's loop (vm_exec) is not exported.  rb_iseq_eval() and
 * rb_iseq_eval_main() both end in vm_exec(ec): the one function both call
 * or jump to (on arm64 but GET_EC(), which both call first) that starts an
 * FDE of libruby (bytes that only look like a
 * call are not function starts).  Its range runs to the next FDE's start.
 * ELF vaddrs; false unless exactly one is found.
 */
static bool rb_find_vm_exec(pid_t pid, const struct map *m, uint64_t *start, uint64_t *end)
{
	uint8_t a[256], b[256];
	uint64_t fa, fb, na, nb, ta[64], tb[64], found = 0;
	struct cfi_hdr_index ix;
	size_t i, j, ka, kb, hits = 0;

	if (!rb_func_code(pid, m, "rb_iseq_eval", a, sizeof(a), &fa, &na) ||
	    !rb_func_code(pid, m, "rb_iseq_eval_main", b, sizeof(b), &fb, &nb) ||
	    cfi_hdr_index_read(m->bin->elf, &ix))
		return false;
	ka = call_targets(pid, m, a, na, fa, ta, 64);
	kb = call_targets(pid, m, b, nb, fb, tb, 64);
	for (i = 0; i < ka; i++) {
		uint64_t v = ta[i] - m->bias;

		for (j = 0; j < kb && tb[j] != ta[i]; j++)
			;
		if (j < kb && ta[i] >= m->bias && cfi_hdr_func_start(&ix, v) == v) {
			found = v;
			hits++;
		}
	}
	if (hits != 1)
		return false;
	/* The loop is a few hundred bytes (597 in 3.3.14): 64 KiB is plenty. */
	for (*end = found + 1; *end < found + 65536; (*end)++)
		if (cfi_hdr_func_start(&ix, *end) != found)
			break;
	*start = found;
	return *end < found + 65536;
}

/* The loop and where the ec comes from; false: this libruby cannot be walked. */
static bool rb_find_vm(struct interp_proc *ip, const struct interp_version *v, const struct map *m,
		       const struct map *ld, const struct interp_glibc *g)
{
	Elf *elf = m->bin->elf;
	struct interp_ruby_cfg *cfg = &ip->cfg.rb;
	uint64_t start, end, tls, got_modid = 0, vm;

	if (!v->eval_func) {
		if (!rb_find_vm_exec(ip->pid, m, &start, &end) ||
		    !interp_proc_priv(ip, ruby_versions, sizeof(struct ruby_proc)))
			return false;
		interp_proc_found(ip, v, m->bin, start, end - start);
	} else if (!interp_proc_take(ip, v, m, ruby_versions, sizeof(struct ruby_proc))) {
		return false;
	}
	if (v->layout.rb.ec_from == RUBY_EC_TSD) {
		cfg->tsd_key_addr = rb_find_thread_key(ip->pid, m);
		cfg->vm_ptr_addr = elf_dynsym_find(elf, "ruby_current_vm_ptr", &vm, NULL) ?
				   vm + m->bias : 0;
		return cfg->tsd_key_addr && cfg->vm_ptr_addr;
	}
	if (v->tls_sym) {
		if (!elf_dynsym_find(elf, v->tls_sym, &tls, NULL))
			return false;
	} else if (!rb_find_ec_tls(ip->pid, m, &tls, &got_modid)) {
		return false;
	}
	cfg->tls_sym = tls;
	cfg->tls_modid = interp_tls_modid(ip->pid, ld, g, v->lib_prefix);
	if (got_modid == RB_MODID_UNCHECKED)
		got_modid = cfg->tls_modid;
	/* Loaded but not registered with ld.so yet: look again at the next event. */
	ip->retry = cfg->tls_modid == 0 || (!v->tls_sym && got_modid == 0);
	/* Two ways to the module id (ld.so's list, libruby's relocated GOT) must agree. */
	return ip->retry || v->tls_sym || got_modid == cfg->tls_modid;
}

bool ruby_attach(struct interp_proc *ip, const struct interp_version *v, const struct map *m,
		 const struct map *ld, const struct interp_glibc *g)
{
	Elf *elf = m->bin->elf;
	uint64_t cobject, symbols;
	struct ruby_proc *rp;

	if (!elf || !g)
		return false;
	if (!rb_find_vm(ip, v, m, ld, g)) {
		static const struct interp_version *said[8];
		size_t i;

		for (i = 0; i < 8 && said[i] && said[i] != v; i++)
			;
		if (i < 8 && !said[i]) {
			said[i] = v;
			fprintf(stderr, "stitch: ruby %s is not supported yet (its libruby's code is "
				"not as expected): its frames show as native code only\n", v->version);
		}
		ip->ver = NULL;
		return false;
	}
	rp = ip->priv;
	symbols = rb_find_symbols(ip->pid, m);
	/* Another program (or none yet): the IDs found for class names are not its own. */
	if (symbols != rp->symbols) {
		rp->classpath_id = 0;
		rp->attached_ok = 0;
		rp->id_tries = 0;
	}
	rp->symbols = symbols;
	rp->cobject = elf_dynsym_find(elf, "rb_cObject", &cobject, NULL) ? cobject + m->bias : 0;
	return true;
}
