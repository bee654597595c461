// SPDX-License-Identifier: GPL-2.0
/*
 * Perl frames (5.32 to 5.42), user side: finding the runtime in perl, and
 * turning a walk (perl.bpf.h) into named frames grouped by the
 * Perl_runops_standard call they run in.  See docs/interpreters.md "Perl".
 *
 * The walk carries its own strings (names and files copied by the walker):
 * nothing is read from the target here, so a sub freed since the event
 * cannot lend its name to another.  The strings are still untrusted.
 */
#include <stdio.h>
#include <string.h>

#include "interp/perl/perl.h"
#include "profile/profile.h"
#include "util/elf_util.h"

/*
 * Where the executable's static TLS variable at offset off of its block
 * lies from the thread pointer (glibc lays out the executable's block
 * first); false if it is not inside that block.  x86-64, TLS variant II:
 * it ends at the thread pointer, so it starts below it.  arm64, variant I:
 * it follows the 16-byte TCB at tpidr_el0, at roundup(16, p_align), as the
 * linker's local-exec offsets say (a block whose p_vaddr is not aligned
 * would move by its first byte's padding: not seen, not guessed).
 */
static bool exe_tls_var(Elf *elf, uint64_t off, int64_t *tpoff)
{
	size_t i, n;
	bool has_interp = false, has_tls = false;
	uint64_t vaddr = 0, memsz = 0, align = 1, firstbyte;
#if !defined(__aarch64__)
	uint64_t block;
#endif

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph))
			return false;
		if (ph.p_type == PT_INTERP)
			has_interp = true;
		if (ph.p_type == PT_TLS) {
			has_tls = true;
			vaddr = ph.p_vaddr;
			memsz = ph.p_memsz;
			align = ph.p_align ? ph.p_align : 1;
		}
	}
	/* Only the main program's block sits at a fixed place from the thread pointer. */
	if (!has_interp || !has_tls || (align & (align - 1)) || align > 4096 || memsz > 1 << 20)
		return false;
	firstbyte = -vaddr & (align - 1);
#if defined(__aarch64__)
	if (firstbyte || off >= memsz || memsz - off < 8)
		return false;
	*tpoff = (int64_t)(((16 + align - 1) & ~(align - 1)) + off);
	return true;
#else
	block = ((memsz - firstbyte + align - 1) & ~(align - 1)) + firstbyte;
	*tpoff = -(int64_t)(block - off);
	return off < block;
#endif
}

/* A shared library whose TLS block holds 8 bytes at offset off. */
static bool lib_tls_holds(Elf *elf, uint64_t off)
{
	size_t i, n;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type == PT_INTERP)
			return false;
		if (ph.p_type == PT_TLS)
			return off < ph.p_memsz && ph.p_memsz - off >= 8 && !(off & 7);
	}
	return false;
}

/*
 * Find perl's runtime in module m (the executable, or libperl.so); false,
 * and *unsupported naming it if it is a perl we cannot walk, otherwise.
 */
static bool perl_from_module(struct interp_proc *ip, const struct interp_version *v,
			     const struct map *m, char *unsupported, size_t unsupported_len)
{
	Elf *elf = m->bin->elf;
	uint64_t ctx, key, eval, eval_size;
	int64_t tpoff;
	unsigned int rev, ver;

	if (!elf || !perl_file_version(elf, &rev, &ver))
		return false;
	/*
	 * The module's name ("perl", "libperl.so.5.40") only says it is a
	 * perl: the table is the one of its own PL_revision/PL_version.
	 */
	v = perl_version_of(elf, &rev, &ver);
	if (!v) {
		if (!unsupported[0])
			snprintf(unsupported, unsupported_len, "perl %u.%u", rev, ver);
		return false;
	}
	if (!elf_dynsym_find(elf, v->eval_func, &eval, &eval_size) || !eval_size)
		return false;
	/*
	 * perl: PL_current_context in the executable's static TLS block, at a
	 * fixed place from fs_base.  A program embedding libperl.so: in the
	 * library's block, found through the thread's DTV once ld.so has
	 * given the library its module id (perl_attach).
	 */
	ip->cfg.pl.tls_tpoff = 0;
	ip->cfg.pl.thr_key_addr = 0;
	if (!elf_dynsym_find(elf, "PL_current_context", &ctx, NULL)) {
		/*
		 * Before 5.36 (no PERL_THREAD_LOCAL): the thread's interpreter is
		 * pthread_getspecific(PL_thr_key), in the executable or in
		 * libperl.so alike.
		 */
		if (!elf_dynsym_find(elf, "PL_thr_key", &key, NULL))
			return false;
		ip->cfg.pl.thr_key_addr = key + m->bias;
	} else if (exe_tls_var(elf, ctx, &tpoff)) {
		/* never 0: x86-64's block ends below fs_base, arm64's starts past the TCB */
		ip->cfg.pl.tls_tpoff = (uint64_t)tpoff;
	} else if (lib_tls_holds(elf, ctx)) {
		ip->cfg.pl.tls_sym = ctx;
	} else {
		if (!unsupported[0])
			snprintf(unsupported, unsupported_len,
				 "perl %s in %s (PL_current_context not found in its TLS)",
				 v->version, m->bin->name);
		return false;
	}
	interp_proc_found(ip, v, m->bin, eval, eval_size);
	return true;
}

/*
 * libperl.so: its TLS module id, once ld.so has registered it (else look
 * again at the next event).  cfg.pl.tls_tpoff is 0 exactly then: the
 * executable's block is never at the thread pointer itself.
 */
static bool perl_attach(struct interp_proc *ip, const struct interp_version *v,
			const struct map *m, const struct map *ld, const struct interp_glibc *g)
{
	if (!ip->cfg.pl.tls_tpoff && !ip->cfg.pl.thr_key_addr) {
		/* ip->ver: the table perl_from_module chose by the file's version */
		ip->cfg.pl.tls_modid = g ? interp_tls_modid(ip->pid, ld, g, ip->ver->lib_prefix)
					 : 0;
		ip->retry = g && ip->cfg.pl.tls_modid == 0;
	}
	return true;
}

/* A string of the walk, cleaned for folded output; false if out of bounds. */
static bool walk_str(const uint8_t *strs, size_t str_len, uint64_t ref, char *out, size_t outsz)
{
	size_t off = PERL_STR_OFF(ref), len = PERL_STR_LEN(ref), i;

	if (len >= outsz || off > str_len || len > str_len - off)
		return false;
	for (i = 0; i < len; i++) {
		uint8_t c = strs[off + i];

		/* ';' separates folded frames; control bytes break lines. */
		out[i] = c == ';' || c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	out[len] = '\0';
	return true;
}

static const struct interp_name *perl_name(struct interp_state *st, const struct interp_frame *f,
					   const uint8_t *strs, size_t str_len)
{
	char name[2 * INTERP_STR_MAX + 4], pkg[INTERP_STR_MAX + 1], sub[INTERP_STR_MAX + 1];
	char file[INTERP_STR_MAX + 1];

	if (!walk_str(strs, str_len, f->id2, file, sizeof(file)))
		return NULL;
	if (f->flags & PERL_FRAME_EVAL) {
		snprintf(name, sizeof(name), "(eval)");
	} else if (f->flags & PERL_FRAME_MAIN) {
		snprintf(name, sizeof(name), "<main>");
	} else {
		if (!walk_str(strs, str_len, f->id1 & 0xffffffff, sub, sizeof(sub)))
			return NULL;
		if (f->flags & PERL_FRAME_NO_PKG)
			snprintf(name, sizeof(name), "%s", sub);
		else if (walk_str(strs, str_len, f->id1 >> 32, pkg, sizeof(pkg)))
			snprintf(name, sizeof(name), "%s::%s", pkg, sub);
		else
			return NULL;
	}
	return interp_intern(st, FRAME_PERL, name, file, f->id3 > 0x7fffffff ? 0 : (int)f->id3);
}

/* call_sv(G_EVAL)'s own eval: the same native call_sv as the frame inside it. */
static bool callsv_eval(const struct interp_frame *f)
{
	uint32_t want = PERL_FRAME_EVAL | PERL_FRAME_FROM_C | PERL_FRAME_OLDOP0;

	return (f->flags & want) == want;
}

/*
 * Groups, innermost first (docs/interpreters.md, "Rule for BPF"): a group
 * ends after a frame entered from C, except when call_sv's own G_EVAL eval
 * follows, and at the end of a nested stackinfo unless it just ended (a
 * sort block runs in pp_sort's runops without a frame of its own).
 */
void perl_groups(struct interp_state *st, const struct interp_event *ev, const uint8_t *strs,
		 size_t str_len, struct groups *g)
{
	bool ended = false;
	int i;

	g->n = g->ng = 0;
	g->start[0] = 0;
	g->last_partial = false;
	for (i = 0; i < ev->nframes && i < INTERP_MAX_FRAMES; i++) {
		const struct interp_frame *f = &ev->frames[i];
		const struct interp_name *name;

		g->func_bin[g->n] = NULL;	/* ruby's C methods only */
		g->func_addr[g->n] = 0;

		if (f->flags & PERL_FRAME_SI_END) {
			if (!ended)
				g->start[++g->ng] = g->n;
			ended = true;
			continue;
		}
		name = perl_name(st, f, strs, str_len);
		if (!name) {
			/* Strings out of bounds: stop here, marked, never guess. */
			g->last_partial = true;
			break;
		}
		g->names[g->n++] = name;
		ended = false;
		if ((f->flags & PERL_FRAME_FROM_C) &&
		    !(i + 1 < ev->nframes && callsv_eval(&ev->frames[i + 1]) && !callsv_eval(f))) {
			g->start[++g->ng] = g->n;
			ended = true;
		}
	}
	if (g->n > g->start[g->ng] || (g->ng == 0 && ev->flags))
		g->start[++g->ng] = g->n;
	if (ev->flags & (INTERP_EV_TRUNCATED | INTERP_EV_FAULT | INTERP_EV_CORRUPT))
		g->last_partial = true;
}

static void perl_ops_groups(struct interp_state *st, struct interp_proc *ip,
			    const struct interp_event *ev, const uint8_t *strs, size_t str_len,
			    struct groups *g)
{
	perl_groups(st, ev, strs, str_len, g);
}

static const char *const perl_lookalikes[] = { "libperl.so.", NULL };

const struct interp_ops perl_ops = {
	.versions = perl_versions,
	.lookalikes = perl_lookalikes,
	.from_module = perl_from_module,
	.attach = perl_attach,
	.walk_strings = true,
	.groups = perl_ops_groups,
	.root_find = perl_root_find,
};
