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

#include "interp_internal.h"

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
	if (!st->pending || hmap_init(&st->procs, 64) || hmap_init(&st->names, 1024) ||
	    hmap_init(&st->codes, 1024))
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

	free(c->name);
	free(c->file);
	free(c->linetable);
}

void interp_free(struct interp_state *st)
{
	struct hmap_node *n;
	size_t i;

	if (st->codes.buckets)
		hmap_for_each(&st->codes, i, n)
			free_code(n);
	if (st->names.buckets)
		hmap_for_each(&st->names, i, n)
			free(((struct interp_name *)n)->file);
	if (st->procs.buckets)
		hmap_free_all(&st->procs);
	if (st->names.buckets)
		hmap_free_all(&st->names);
	if (st->codes.buckets)
		hmap_free_all(&st->codes);
	free(st->pending);
	st->pending = NULL;
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

void interp_proc_update(struct interp_state *st, struct proc *proc)
{
	struct interp_proc *ip;
	struct interp_proc_cfg cfg;
	uint32_t pthread_specific = 0;
	bool have_libc = false;
	char unsupported[64] = "";
	size_t i;

	if (!proc || st->disabled)
		return;
	ip = (struct interp_proc *)hmap_find(&st->procs, hash_u64(proc->pid), pid_eq, &proc->pid);
	if (ip && ip->gen == proc->gen)
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
			pthread_specific = interp_glibc_pthread_specific(major, minor);
			if (!pthread_specific) {
				snprintf(unsupported, sizeof(unsupported), "glibc %d.%d", major,
					 minor);
			}
		}
		if (ip->ver)
			continue;
		v = interp_version_for_module(m->bin->name, lang, sizeof(lang), ver, sizeof(ver));
		if (v && python_from_module(ip, v, m))
			continue;
		if (!v && lang[0] && !unsupported[0])
			snprintf(unsupported, sizeof(unsupported), "%s %s", lang, ver);
	}
	ip->gen = proc->gen;
	if (getenv("STITCH_DEBUG"))
		fprintf(stderr, "stitch: pid %u: %s %s, glibc pthread_specific %u\n", proc->pid,
			ip->ver ? ip->ver->lang_name : "no interpreter",
			ip->ver ? ip->ver->version : "", pthread_specific);
	if (ip->ver && pthread_specific) {
		memset(&cfg, 0, sizeof(cfg));
		cfg.layout = ip->ver - interp_versions;
		cfg.lang = ip->ver->lang;
		cfg.tss_key_addr = ip->tss_key_addr;
		cfg.code_type = ip->code_type;
		cfg.pthread_specific = pthread_specific;
		if (bpf_map_update_elem(st->procs_fd, &proc->pid, &cfg, BPF_ANY) == 0)
			return;
		warn_once("too many interpreter processes (interp_procs is full)");
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
