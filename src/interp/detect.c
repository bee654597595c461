// SPDX-License-Identifier: GPL-2.0
/*
 * Finding interpreters in traced processes: a mapped module named like a
 * supported interpreter (python3.11, libpython3.11.so...) whose dynamic
 * symbols give the runtime's addresses (the language's from_module and
 * attach), and a glibc whose struct pthread layout we know.  The result
 * goes into the BPF interp_procs map, so the walker runs for that process
 * from then on.  Looked at again whenever the
 * process's mappings change (exec, dlopen).
 */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <gelf.h>

#include "interp/interp_internal.h"

/*
 * pthread_getspecific() inlined: glibc's struct pthread holds
 * specific_1stblock, 32 entries of { seq, data }; ld.so's struct r_debug
 * and struct link_map give a library's TLS module id.  Both offsets from
 * the thread pointer are per architecture and glibc version; a version not
 * listed is named and left native rather than assumed to be like its
 * neighbours.
 */
#if defined(__aarch64__)
/*
 * arm64 (TLS variant I): the thread pointer (tpidr_el0) points at the
 * 16-byte TCB and struct pthread lies right below it (glibc's THREAD_SELF:
 * (struct pthread *)tp - 1), so both offsets move with its size.  Read
 * with gdb from each release's arm64 libc6-dbg DWARF (sizeof(struct
 * pthread), &->specific_1stblock in libc.so.6; struct link_map and struct
 * r_debug in ld.so), and measured on Debian 12's 2.36 by a program printing
 * pthread_self(), tpidr_el0 and &r_debug fields under qemu-user:
 * pthread_self() == tp - 0x740, specific_1stblock at pthread_self() +
 * 0x110 == tp - 1584, l_tls_modid at 1192 (r_map, l_name, l_next as on
 * x86-64), as the DWARF says.
 */
static const struct interp_glibc glibc_layouts[] = {
	{ .major = 2, .minor = 31,	/* Debian 11: struct pthread 1792 bytes */
	  .pthread_specific = -1792 + 0x110, .pthread_self = -1792,
	  .r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1152 },
	{ .major = 2, .minor = 36,	/* Debian 12: 1856 */
	  .pthread_specific = -1856 + 0x110, .pthread_self = -1856,
	  .r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1192 },
	{ .major = 2, .minor = 41,	/* Debian 13: 1824 */
	  .pthread_specific = -1824 + 0x110, .pthread_self = -1824,
	  .r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1176 },
	{ .major = 2, .minor = 43,	/* Debian sid, 2026 */
	  .pthread_specific = -1824 + 0x110, .pthread_self = -1824,
	  .r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1176 },
	{ .major = 2, .minor = 44,	/* Debian experimental, 2026 */
	  .pthread_specific = -1824 + 0x110, .pthread_self = -1824,
	  .r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1176 },
};
#else
/*
 * x86-64 (TLS variant II): struct pthread is at the thread pointer
 * (pthread_self() == fsbase).  Each offset read with gdb's ptype/o from
 * that release's libc6-dbg DWARF (struct pthread in libc.so.6, struct
 * link_map and struct r_debug in ld.so): Debian 11, 12, 13 and sid.  Only
 * link_map's TLS module id moves between them.
 */
static const struct interp_glibc glibc_layouts[] = {
	{ .major = 2, .minor = 31,	/* Debian 11 */
	  .pthread_specific = 784,
	  .r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1112 },
	{ .major = 2, .minor = 36,	/* Debian 12 */
	  .pthread_specific = 784,
	  .r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1152 },
	{ .major = 2, .minor = 41,	/* Debian 13 */
	  .pthread_specific = 784,
	  .r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1168 },
	{ .major = 2, .minor = 43,	/* Debian sid, 2026 */
	  .pthread_specific = 784,
	  .r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1168 },
	{ .major = 2, .minor = 44,	/* Debian experimental, 2026 (gdb 13 on its DWARF) */
	  .pthread_specific = 784,
	  .r_map = 8, .lm_name = 8, .lm_next = 24, .lm_tls_modid = 1168 },
};
#endif

const struct interp_glibc *interp_glibc_layout(int major, int minor)
{
	size_t i;

	for (i = 0; i < sizeof(glibc_layouts) / sizeof(glibc_layouts[0]); i++)
		if (glibc_layouts[i].major == major && glibc_layouts[i].minor == minor)
			return &glibc_layouts[i];
	return NULL;
}

/*
 * glibc's release from the banner its libc prints when run ("... release
 * version 2.31."), in .rodata: false if there is none.
 */
static bool glibc_banner_version(Elf *elf, int *major, int *minor)
{
	static const char banner[] = "release version ";
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name, *at, *end;
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(name = elf_strptr(elf, shstrndx, sh.sh_name)) || strcmp(name, ".rodata"))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf)
			return false;
		at = memmem(d->d_buf, d->d_size, banner, sizeof(banner) - 1);
		end = (const char *)d->d_buf + d->d_size;
		/* "2.31." at most 16 bytes on, inside the section */
		if (!at || end - at < (ptrdiff_t)sizeof(banner) + 16)
			return false;
		at += sizeof(banner) - 1;
		return isdigit((unsigned char)at[0]) && sscanf(at, "%d.%d", major, minor) == 2;
	}
	return false;
}

/* The newest GLIBC_2.N version a libc defines. */
static bool glibc_verdef_version(Elf *elf, int *major, int *minor)
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

/*
 * glibc's version, from the newest GLIBC_2.N version its libc defines.
 * Before 2.34 a release may add none (2.31's newest is GLIBC_2.30): there
 * its banner says which.  Such a libc's file is named libc-2.31.so, but
 * its mapping was seen named libc.so.6 (a 9p root in the arm64 guest, on
 * a second run): as 2.30 it was taken for a glibc stitch has no layout of.
 */
static bool glibc_version(Elf *elf, int *major, int *minor)
{
	bool found = glibc_verdef_version(elf, major, minor);
	int a, b;

	if (found && (*major < 2 || (*major == 2 && *minor < 34)) &&
	    glibc_banner_version(elf, &a, &b) && a == *major && b >= *minor) {
		*major = a;
		*minor = b;
	}
	return found;
}

/*
 * The answers for the last few libcs, by build ID: a build's churn starts
 * processes of the same libc again and again, and reading its version
 * definitions for each was 2.2% of an agent's CPU over that churn (20 of
 * 909 samples of a self-profile).  The answer is the file's bytes', so its
 * build ID says it is the same; a file without one is read again.  Used
 * from the recording's thread only.
 */
#define GLIBC_KEPT 8

static struct glibc_kept {
	uint8_t build_id[STITCH_BUILD_ID_MAX];
	size_t build_id_len;
	int major, minor;
	bool found;
} glibc_kept[GLIBC_KEPT];
static unsigned int glibc_kept_next;

static bool libc_version(const struct binary *b, int *major, int *minor)
{
	size_t len = b->build_id_len;
	struct glibc_kept *k;
	unsigned int i;
	bool found;

	for (i = 0; len && len <= STITCH_BUILD_ID_MAX && i < GLIBC_KEPT; i++) {
		k = &glibc_kept[i];
		if (k->build_id_len == len && !memcmp(k->build_id, b->build_id, len)) {
			*major = k->major;
			*minor = k->minor;
			return k->found;
		}
	}
	found = glibc_version(b->elf, major, minor);
	if (len && len <= STITCH_BUILD_ID_MAX) {
		k = &glibc_kept[glibc_kept_next++ % GLIBC_KEPT];
		memcpy(k->build_id, b->build_id, len);
		k->build_id_len = len;
		k->major = *major;
		k->minor = *minor;
		k->found = found;
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

/* The BPF walkers are loaded: at once, or on demand the first time (load_walkers). */
static bool walkers_ready(struct interp_state *st)
{
	if (st->load_walkers) {
		st->walkers_err = st->load_walkers(st->walkers_ctx);
		st->load_walkers = NULL;
	}
	return st->walkers_err == 0;
}

/* What one look over a process's mappings found. */
struct maps_scan {
	const struct interp_glibc *glibc;
	const struct map *ld, *interp_map;
	const struct interp_version *found;
	const struct interp_ops *found_ops;
	bool have_libc;
	/* What stopped us: an interpreter's version or build, and glibc's. */
	char unsupported[64], unknown_glibc[32];
};

/* glibc's release and layout, ld.so, and the first interpreter module we walk. */
static void scan_maps(struct interp_proc *ip, const struct proc *proc, struct maps_scan *sc)
{
	size_t i;

	for (i = 0; i < proc->nr; i++) {
		const struct map *m = &proc->maps[i];
		const struct interp_version *v;
		const struct interp_ops *ops;
		char lang[16], ver[16];
		int major, minor;

		if (!m->bin)
			continue;
		/*
		 * glibc before 2.34 maps its files by their own names, which say
		 * the release: libc-2.31.so (its newest verdef is GLIBC_2.30:
		 * 2.31 added no symbol version), ld-2.31.so.
		 */
		if (!sc->have_libc && m->bin->elf &&
		    ((strncmp(m->bin->name, "libc.so.", 8) == 0 &&
		      libc_version(m->bin, &major, &minor)) ||
		     sscanf(m->bin->name, "libc-%d.%d.so", &major, &minor) == 2)) {
			sc->have_libc = true;
			sc->glibc = interp_glibc_layout(major, minor);
			if (!sc->glibc)
				snprintf(sc->unknown_glibc, sizeof(sc->unknown_glibc),
					 "glibc %d.%d", major, minor);
		}
		if (!sc->ld && (strncmp(m->bin->name, "ld-linux", 8) == 0 ||
				strncmp(m->bin->name, "ld-2.", 5) == 0))
			sc->ld = m;
		if (sc->found && sc->interp_map)
			continue;
		v = interp_module_version(m->bin->name, &ops, lang, sizeof(lang), ver,
					  sizeof(ver));
		if (v && !sc->found) {
			/* e.g. python3.11 linking libpython3.11.so has no runtime of its own */
			if (ops->from_module &&
			    !ops->from_module(ip, v, m, sc->unsupported, sizeof(sc->unsupported)))
				continue;
			sc->found = v;
			sc->found_ops = ops;
			sc->interp_map = m;
		} else if (!v && lang[0] && !sc->unsupported[0]) {
			snprintf(sc->unsupported, sizeof(sc->unsupported), "%s %s", lang, ver);
		}
	}
}

/* Hands a detected process's walker configuration to the kernel. */
static bool publish_cfg(struct interp_state *st, struct interp_proc *ip, const struct proc *proc,
			const struct interp_glibc *glibc)
{
	if (!walkers_ready(st))
		return false;	/* load_walkers said why */
	if (ip->own_layout) {
		int slot = interp_layout_slot(st, &ip->layout);

		if (slot < 0) {
			warn_once("too many distinct interpreter layouts (interp_layouts is full)");
			return false;
		}
		ip->cfg.layout = slot;
	} else {
		ip->cfg.layout = interp_version_index(ip->ver);
	}
	ip->cfg.lang = ip->ver->lang;
	ip->cfg.pthread_specific = glibc->pthread_specific;
	ip->cfg.pthread_self = glibc->pthread_self;
	ip->cfg.gen = ++st->cfg_gen;
	if (st->any_procs)
		*st->any_procs = 1;
	if (bpf_map_update_elem(st->procs_fd, &proc->pid, &ip->cfg, BPF_ANY) == 0) {
		ip->published = true;
		return true;
	}
	warn_once("too many interpreter processes (interp_procs is full)");
	return false;
}

/* Says once why a process with an interpreter is not walked. */
static void say_unsupported(const struct interp_proc *ip, const struct interp_version *attach_ver,
			    const struct maps_scan *sc)
{
	char what[96];

	if ((ip->ver || attach_ver) && sc->have_libc && !sc->glibc) {
		/* The interpreter is one we walk, its glibc is not (a newer release). */
		const struct interp_version *v = ip->ver ? ip->ver : attach_ver;

		snprintf(what, sizeof(what), "%s %s with %s is not supported yet",
			 v->lang_name, v->version, sc->unknown_glibc);
		warn_once(what);
	} else if (!ip->ver && sc->unsupported[0]) {
		/*
		 * An interpreter we do not walk is named by itself, whatever its
		 * glibc; a native program's glibc needs no layout, and is not.
		 */
		snprintf(what, sizeof(what), "%s is not supported yet", sc->unsupported);
		warn_once(what);
	}
}

bool interp_proc_update(struct interp_state *st, struct proc *proc)
{
	struct maps_scan sc = { 0 };
	const struct interp_version *attach_ver = NULL;
	struct interp_proc *ip;

	if (!proc || st->disabled)
		return false;
	ip = interp_proc_find(st, proc->pid);
	if (ip && ip->gen == proc->gen && !ip->retry)
		return ip->ver != NULL;
	if (!ip) {
		ip = calloc(1, sizeof(*ip));
		if (!ip)
			return false;
		ip->pid = proc->pid;
		hmap_insert(&st->procs, &ip->node, hash_u64(proc->pid));
	}
	ip->ver = NULL;
	ip->eval_bin = NULL;
	ip->retry = false;
	ip->own_layout = false;
	/* Each language sets the fields its walker reads, this time's only. */
	memset(&ip->cfg, 0, sizeof(ip->cfg));
	ip->gen = proc->gen;
	scan_maps(ip, proc, &sc);
	/* What needs ld.so's and glibc's mappings, which may come after the module. */
	if (sc.found && sc.found_ops->attach &&
	    !sc.found_ops->attach(ip, sc.found, sc.interp_map, sc.ld, sc.glibc)) {
		attach_ver = sc.found;
		sc.found = NULL;
	}
	if (!sc.found)
		ip->ver = NULL;
	ip->ops = sc.found_ops;
	if (getenv("STITCH_DEBUG"))
		fprintf(stderr, "stitch: pid %u: %s %s, glibc %s\n", proc->pid,
			ip->ver ? ip->ver->lang_name : "no interpreter",
			ip->ver ? ip->ver->version : "", sc.glibc ? "known" : "unknown");
	if (ip->ver && sc.glibc && !ip->retry) {
		if (publish_cfg(st, ip, proc, sc.glibc))
			return true;
	} else if (ip->ver && ip->retry) {
		/* Not ready: keep ip->ver for nothing, look again at the next event. */
	} else {
		say_unsupported(ip, attach_ver, &sc);
	}
	ip->ver = NULL;
	if (ip->published)
		bpf_map_delete_elem(st->procs_fd, &proc->pid);
	ip->published = false;
	return false;
}
