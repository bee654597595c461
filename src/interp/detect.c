// SPDX-License-Identifier: GPL-2.0
/*
 * Finding interpreters in traced processes: a mapped module named like a
 * supported interpreter (python3.11, libpython3.11.so...) whose dynamic
 * symbols give the runtime's addresses, and a glibc whose struct pthread
 * layout we know.  The result goes into the BPF interp_procs map, so the
 * walker runs for that process from then on.  Looked at again whenever the
 * process's mappings change (exec, dlopen).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <gelf.h>

#include "interp/common.h"

#define PENDING_SLOTS 256

static bool pid_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct interp_proc *)n)->pid == *(const uint32_t *)key;
}

int interp_init(struct interp_state *st, int procs_fd, int layouts_fd, bool no_lines)
{
	uint32_t i;

	memset(st, 0, sizeof(*st));
	st->procs_fd = procs_fd;
	st->no_lines = no_lines;
	st->pending = calloc(PENDING_SLOTS, sizeof(*st->pending));
	st->pending_strs = calloc(PENDING_SLOTS, INTERP_STR_BYTES);
	st->pending_str_len = calloc(PENDING_SLOTS, sizeof(*st->pending_str_len));
	if (!st->pending || !st->pending_strs || !st->pending_str_len ||
	    hmap_init(&st->procs, 64) || hmap_init(&st->names, 1024) ||
	    hmap_init(&st->codes, 1024) || hmap_init(&st->lines, 1024) ||
	    hmap_init(&st->rb_classes, 64) ||
	    hmap_init(&st->cfis, 64))
		return -ENOMEM;
	for (i = 0; i < interp_nversions && i < INTERP_MAX_LAYOUTS; i++) {
		if (layouts_fd >= 0 &&
		    bpf_map_update_elem(layouts_fd, &i, &interp_versions[i].layout, BPF_ANY))
			return -errno;
	}
	return 0;
}

static void free_code(struct hmap_node *n)
{
	struct interp_code *c = (struct interp_code *)n;

	interp_code_clear(c);
}

void interp_free(struct interp_state *st)
{
	struct hmap_node *n;
	size_t i;

	/* A map never initialized is empty (no buckets): nothing to free. */
	hmap_for_each(&st->codes, i, n)
		free_code(n);
	hmap_for_each(&st->names, i, n)
		free(((struct interp_name *)n)->file);
	hmap_free_all(&st->procs);
	hmap_free_all(&st->names);
	hmap_free_all(&st->codes);
	hmap_free_all(&st->lines);
	hmap_free_all(&st->rb_classes);
	hmap_free_all(&st->cfis);
	free(st->pending);
	st->pending = NULL;
	free(st->pending_strs);
	st->pending_strs = NULL;
	free(st->pending_str_len);
	st->pending_str_len = NULL;
}

/* A symbol of the dynamic symbol table, by name: what stripped builds keep. */
static bool dynsym_find(Elf *elf, const char *name, uint64_t *value, uint64_t *size)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i, n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		n = sh.sh_size / sh.sh_entsize;
		for (i = 0; i < n; i++) {
			GElf_Sym sym;
			const char *s;

			if (!gelf_getsym(d, i, &sym) || sym.st_shndx == SHN_UNDEF)
				continue;
			s = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (s && strcmp(s, name) == 0) {
				*value = sym.st_value;
				if (size)
					*size = sym.st_size;
				return true;
			}
		}
	}
	return false;
}

bool interp_dynsym_find(Elf *elf, const char *name, uint64_t *value, uint64_t *size)
{
	return dynsym_find(elf, name, value, size);
}

/* glibc's version, from the newest GLIBC_2.N version its libc defines. */
static bool glibc_version(Elf *elf, int *major, int *minor)
{
	Elf_Scn *scn = NULL;
	bool found = false;

	*major = *minor = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t off = 0;
		unsigned int i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_GNU_verdef)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_info && i < 4096; i++) {
			GElf_Verdef vd;
			GElf_Verdaux va;
			const char *s;
			int a, b;

			if (!gelf_getverdef(d, off, &vd) ||
			    !gelf_getverdaux(d, off + vd.vd_aux, &va))
				break;
			s = elf_strptr(elf, sh.sh_link, va.vda_name);
			if (s && sscanf(s, "GLIBC_%d.%d", &a, &b) == 2 &&
			    (a > *major || (a == *major && b > *minor))) {
				*major = a;
				*minor = b;
				found = true;
			}
			if (!vd.vd_next)
				break;
			off += vd.vd_next;
		}
	}
	return found;
}

/* Say once per version that we cannot walk it. */
static void warn_once(const char *what)
{
	static char said[32][64];
	static int nsaid;
	int i;

	for (i = 0; i < nsaid; i++)
		if (strcmp(said[i], what) == 0)
			return;
	if (nsaid < 32)
		snprintf(said[nsaid++], sizeof(said[0]), "%s", what);
	fprintf(stderr, "stitch: %s: its frames show as native code only\n", what);
}

/* Fill ip from the module m carrying version v; false if its symbols are not there. */
static bool python_from_module(struct interp_proc *ip, const struct interp_version *v,
			       const struct map *m)
{
	Elf *elf = m->bin->elf;
	uint64_t runtime, code, unicode, bytes, eval, eval_size;

	if (!elf || !dynsym_find(elf, "_PyRuntime", &runtime, NULL) ||
	    !dynsym_find(elf, "PyCode_Type", &code, NULL) ||
	    !dynsym_find(elf, "PyUnicode_Type", &unicode, NULL) ||
	    !dynsym_find(elf, "PyBytes_Type", &bytes, NULL) ||
	    !dynsym_find(elf, v->eval_func, &eval, &eval_size) || !eval_size)
		return false;
	ip->ver = v;
	ip->eval_bin = m->bin;
	ip->eval_start = eval;
	ip->eval_end = eval + eval_size;
	ip->code_type = code + m->bias;
	ip->unicode_type = unicode + m->bias;
	ip->bytes_type = bytes + m->bias;
	ip->tss_key_addr = runtime + m->bias + v->tss_key_off;
	return true;
}

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

/* libruby's TLS module id, from ld.so's list of loaded objects; 0 if not there (yet). */
static uint64_t tls_modid_of(pid_t pid, const struct map *ld, const struct interp_glibc *g,
			     const char *lib_prefix)
{
	uint64_t rdebug, lm = 0, modid = 0;
	int i;

	if (!ld || !ld->bin->elf || !dynsym_find(ld->bin->elf, "_r_debug", &rdebug, NULL) ||
	    interp_read(pid, rdebug + ld->bias + g->r_map, &lm, 8))
		return 0;
	for (i = 0; lm && i < 1024; i++) {
		uint64_t name_ptr;
		char name[256], *base;

		size_t len;

		if (interp_read(pid, lm + g->lm_name, &name_ptr, 8))
			return 0;
		/* A path, up to the buffer, never across the end of its page. */
		len = 4096 - (name_ptr & 4095);
		if (len > sizeof(name) - 1)
			len = sizeof(name) - 1;
		memset(name, 0, sizeof(name));
		if (interp_read(pid, name_ptr, name, len))
			return 0;
		base = strrchr(name, '/');
		base = base ? base + 1 : name;
		if (strncmp(base, lib_prefix, strlen(lib_prefix)) == 0) {
			if (interp_read(pid, lm + g->lm_tls_modid, &modid, 8))
				return 0;
			return modid;
		}
		if (interp_read(pid, lm + g->lm_next, &lm, 8))
			return 0;
	}
	return 0;
}

static bool ruby_from_module(struct interp_proc *ip, const struct interp_version *v,
			     const struct map *m, const struct map *ld,
			     const struct interp_glibc *g)
{
	Elf *elf = m->bin->elf;
	uint64_t tls, eval, eval_size, id2str, cobject, symbols;

	if (!elf || !g || !dynsym_find(elf, v->tls_sym, &tls, NULL) ||
	    !dynsym_find(elf, v->eval_func, &eval, &eval_size) || !eval_size)
		return false;
	ip->ver = v;
	ip->eval_bin = m->bin;
	ip->eval_start = eval;
	ip->eval_end = eval + eval_size;
	ip->tls_sym = tls;
	ip->tls_modid = tls_modid_of(ip->pid, ld, g, v->lib_prefix);
	symbols = dynsym_find(elf, "rb_id2str", &id2str, NULL) ?
		  rb_find_symbols(ip->pid, id2str + m->bias) : 0;
	/* Another program (or none yet): the IDs found for class names are not its own. */
	if (symbols != ip->rb_symbols) {
		ip->rb_classpath_id = 0;
		ip->rb_attached_ok = 0;
		ip->rb_id_tries = 0;
	}
	ip->rb_symbols = symbols;
	ip->rb_cobject = dynsym_find(elf, "rb_cObject", &cobject, NULL) ? cobject + m->bias : 0;
	/* Loaded but not registered with ld.so yet: look again at the next event. */
	ip->retry = ip->tls_modid == 0;
	return true;
}

void interp_proc_update(struct interp_state *st, struct proc *proc)
{
	const struct interp_glibc *glibc = NULL;
	const struct map *ld = NULL, *interp_map = NULL;
	const struct interp_version *found = NULL;
	struct interp_proc *ip;
	struct interp_proc_cfg cfg;
	bool have_libc = false;
	char unsupported[64] = "";
	size_t i;

	if (!proc || st->disabled)
		return;
	ip = (struct interp_proc *)hmap_find(&st->procs, hash_u64(proc->pid), pid_eq, &proc->pid);
	if (ip && ip->gen == proc->gen && !ip->retry)
		return;
	if (!ip) {
		ip = calloc(1, sizeof(*ip));
		if (!ip)
			return;
		ip->pid = proc->pid;
		hmap_insert(&st->procs, &ip->node, hash_u64(proc->pid));
	}
	ip->ver = NULL;
	ip->eval_bin = NULL;
	ip->retry = false;
	ip->tls_modid = ip->tls_sym = 0;
	ip->gen = proc->gen;
	for (i = 0; i < proc->nr; i++) {
		const struct map *m = &proc->maps[i];
		const struct interp_version *v;
		char lang[16], ver[16];
		int major, minor;

		if (!m->bin)
			continue;
		if (!have_libc && strncmp(m->bin->name, "libc.so.", 8) == 0 && m->bin->elf &&
		    glibc_version(m->bin->elf, &major, &minor)) {
			have_libc = true;
			glibc = interp_glibc_layout(major, minor);
			if (!glibc)
				snprintf(unsupported, sizeof(unsupported), "glibc %d.%d", major,
					 minor);
		}
		if (!ld && strncmp(m->bin->name, "ld-linux", 8) == 0)
			ld = m;
		if (found && interp_map)
			continue;
		v = interp_version_for_module(m->bin->name, lang, sizeof(lang), ver, sizeof(ver));
		if (v && !found) {
			/* python3.11 linking libpython3.11.so has no runtime of its own. */
			if (v->lang == INTERP_PYTHON && !python_from_module(ip, v, m))
				continue;
			if (v->lang == INTERP_PERL &&
			    !perl_from_module(ip, v, m, unsupported, sizeof(unsupported)))
				continue;
			found = v;
			interp_map = m;
		} else if (!v && lang[0] && !unsupported[0]) {
			snprintf(unsupported, sizeof(unsupported), "%s %s", lang, ver);
		}
	}
	if (found && found->lang == INTERP_RUBY && !ruby_from_module(ip, found, interp_map, ld,
								      glibc))
		found = NULL;
	if (found && found->lang == INTERP_PERL && ip->perl_dtv) {
		/* Loaded but not registered with ld.so yet: look again at the next event. */
		ip->tls_modid = glibc ? tls_modid_of(ip->pid, ld, glibc, found->lib_prefix) : 0;
		ip->retry = glibc && ip->tls_modid == 0;
	}
	if (!found)
		ip->ver = NULL;
	if (getenv("STITCH_DEBUG"))
		fprintf(stderr, "stitch: pid %u: %s %s, glibc %s\n", proc->pid,
			ip->ver ? ip->ver->lang_name : "no interpreter",
			ip->ver ? ip->ver->version : "", glibc ? "known" : "unknown");
	if (ip->ver && glibc && !ip->retry) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.layout = ip->ver - interp_versions;
		cfg.lang = ip->ver->lang;
		cfg.tss_key_addr = ip->tss_key_addr;
		cfg.code_type = ip->code_type;
		cfg.pthread_specific = glibc->pthread_specific;
		cfg.tls_modid = ip->tls_modid;
		cfg.tls_sym = ip->tls_sym;
		cfg.perl_tls_off = ip->perl_tls_off;
		if (st->any_procs)
			*st->any_procs = 1;
		if (bpf_map_update_elem(st->procs_fd, &proc->pid, &cfg, BPF_ANY) == 0)
			return;
		warn_once("too many interpreter processes (interp_procs is full)");
	} else if (ip->ver && ip->retry) {
		/* Not ready: keep ip->ver for nothing, look again at the next event. */
	} else if (ip->ver && have_libc) {
		char what[96];

		snprintf(what, sizeof(what), "%s %s with %s is not supported yet",
			 ip->ver->lang_name, ip->ver->version, unsupported);
		warn_once(what);
	} else if (!ip->ver && unsupported[0]) {
		char what[96];

		snprintf(what, sizeof(what), "%s is not supported yet", unsupported);
		warn_once(what);
	}
	ip->ver = NULL;
	bpf_map_delete_elem(st->procs_fd, &proc->pid);
}
