// SPDX-License-Identifier: GPL-2.0
/*
 * Finding Ruby's VM in a process: libruby's exported symbols give the eval
 * loop and the TLS variable holding the thread's execution context; the
 * global symbol table and rb_cObject (for naming) are found once per
 * program.  Runs after all mappings were seen: it needs ld.so's list of
 * loaded objects for libruby's TLS module id.
 */
#include <string.h>

#include "interp/ruby/ruby.h"

/*
 * &ruby_global_symbols is not exported.  rb_id2str (exported) ends in a
 * "jmp rel32" to the lookup, which starts by comparing the serial with
 * ruby_global_symbols.last_id: "cmp %edi, rel32(%rip)" (39 3d rel32).
 * Checked on Debian's 3.1.2 (docs/interpreters.md); 0 if the code differs.
 */
static uint64_t rb_find_symbols(pid_t pid, uint64_t id2str)
{
	uint8_t code[24], body[96];
	uint64_t target;
	int32_t rel;
	size_t i;

	if (interp_read(pid, id2str, code, sizeof(code)) || code[19] != 0xe9)
		return 0;
	memcpy(&rel, code + 20, 4);
	target = id2str + 24 + rel;
	if (interp_read(pid, target, body, sizeof(body)))
		return 0;
	for (i = 0; i + 6 <= sizeof(body); i++) {
		if (body[i] == 0x39 && body[i + 1] == 0x3d) {
			memcpy(&rel, body + i + 2, 4);
			return target + i + 6 + rel;
		}
	}
	return 0;
}

bool ruby_attach(struct interp_proc *ip, const struct interp_version *v, const struct map *m,
		 const struct map *ld, const struct interp_glibc *g)
{
	Elf *elf = m->bin->elf;
	uint64_t tls, id2str, cobject, symbols;
	struct ruby_proc *rp;

	if (!elf || !g || !interp_dynsym_find(elf, v->tls_sym, &tls, NULL))
		return false;
	rp = interp_proc_take(ip, v, m, ruby_versions, sizeof(*rp));
	if (!rp)
		return false;
	ip->cfg.rb.tls_sym = tls;
	ip->cfg.rb.tls_modid = interp_tls_modid(ip->pid, ld, g, v->lib_prefix);
	symbols = interp_dynsym_find(elf, "rb_id2str", &id2str, NULL) ?
		  rb_find_symbols(ip->pid, id2str + m->bias) : 0;
	/* Another program (or none yet): the IDs found for class names are not its own. */
	if (symbols != rp->symbols) {
		rp->classpath_id = 0;
		rp->attached_ok = 0;
		rp->id_tries = 0;
	}
	rp->symbols = symbols;
	rp->cobject = interp_dynsym_find(elf, "rb_cObject", &cobject, NULL) ? cobject + m->bias : 0;
	/* Loaded but not registered with ld.so yet: look again at the next event. */
	ip->retry = ip->cfg.rb.tls_modid == 0;
	return true;
}
