// SPDX-License-Identifier: GPL-2.0
/*
 * Perl subs as stitch latency's roots (perl:NAME), user side: which perl
 * the target runs, and where in it the probes go (perl_probes.c).  Every
 * call of a Perl sub of that name (in any package) is timed on perl's own
 * sub-call path: uprobes on Perl_pp_entersub (the sub about to be called is
 * on top of the argument stack; its context is the next one),
 * Perl_pp_leavesub and Perl_pp_leavesublv (which every return goes through,
 * `return` included) and Perl_dounwind (die, last out of a sub: the
 * contexts above an index popped at once).  A call is its context: where
 * it is, not a nesting count, tells its end.  Kernel side: perl_root.bpf.h.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "interp/perl/perl.h"
#include "util/elf_util.h"
#include "util/exec_path.h"

_Static_assert(4 + PERL_DIE_PROBES <= INTERP_ROOT_PROBES, "perl's root probes fit");

static const char sub_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_";

/* A script's interpreter from its "#!" line ("#!/usr/bin/env perl": perl, searched). */
static bool shebang_of(const char *file, char *out, size_t len)
{
	char line[256], *p, *arg;
	FILE *f = fopen(file, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(line, sizeof(line), f) && !strncmp(line, "#!", 2);
	fclose(f);
	if (!ok)
		return false;
	p = line + 2 + strspn(line + 2, " \t");
	p[strcspn(p, " \t\n")] = '\0';
	if (!*p)
		return false;
	if (!strcmp(p, "/usr/bin/env") || !strcmp(p, "/bin/env")) {
		arg = p + strlen(p) + 1;
		if (arg >= line + sizeof(line))
			return false;
		arg += strspn(arg, " \t");
		arg[strcspn(arg, " \t\n")] = '\0';
		return *arg && exec_path_find(arg, out, len);
	}
	snprintf(out, len, "%s", p);
	return true;
}

/*
 * The layout of the perl in elf (an executable or libperl.so) if we can
 * follow its sub calls: its version is one we know, and p is where the
 * probes go.  NULL and why otherwise.
 */
static const struct interp_perl_layout *perl_layout_of_file(Elf *elf,
							    struct perl_sub_probes *p,
							    char *why, size_t why_len)
{
	const struct interp_version *v;
	unsigned int rev, ver;
	char what[160];

	v = perl_version_of(elf, &rev, &ver);
	if (!v) {
		if (rev)
			snprintf(why, why_len, "perl %u.%u, whose layout we do not know "
				 "(5.32, 5.36, 5.40, 5.42)", rev, ver);
		else
			snprintf(why, why_len, "not a perl (no PL_revision/PL_version)");
		return NULL;
	}
	if (!perl_sub_probes_of(elf, &v->layout.pl, p, what, sizeof(what))) {
		snprintf(why, why_len, "perl %s: %s", v->version, what);
		return NULL;
	}
	return &v->layout.pl;
}

/* The perl layout of the ELF file at path and its probes, or NULL (why says why). */
static const struct interp_perl_layout *perl_at(const char *path, struct perl_sub_probes *p,
						char *why, size_t why_len)
{
	const struct interp_perl_layout *L;
	int fd;
	Elf *elf = elf_open_file(path, &fd);

	if (!elf) {
		snprintf(why, why_len, "%s", errno == ENOEXEC ? "not an ELF file" : strerror(errno));
		return NULL;
	}
	L = perl_layout_of_file(elf, p, why, why_len);
	elf_end(elf);
	close(fd);
	return L;
}

/*
 * Where a perl: root's subs run: -p, the process's executable or the
 * libperl.so it maps; -- COMMAND, the command (or its script's "#!"
 * interpreter); -a, /usr/bin/perl.  Its layout, and its path in binary.
 */
static const struct interp_perl_layout *find_perl(char *binary, size_t binary_len,
						  struct perl_sub_probes *probes, pid_t pid,
						  char *const *command, char *why, size_t why_len)
{
	char maps[64], line[PATH_MAX + 128], cand[PATH_MAX];
	const struct interp_perl_layout *L = NULL;
	FILE *f;

	if (pid > 0) {
		snprintf(cand, sizeof(cand), "/proc/%d/exe", (int)pid);
		L = perl_at(cand, probes, why, why_len);
		snprintf(maps, sizeof(maps), "/proc/%d/maps", (int)pid);
		f = L ? NULL : fopen(maps, "re");
		while (f && !L && fgets(line, sizeof(line), f)) {
			char *path = strchr(line, '/');

			if (!path || !strstr(path, "libperl.so"))
				continue;
			path[strcspn(path, "\n")] = '\0';
			snprintf(cand, sizeof(cand), "/proc/%d/root%s", (int)pid, path);
			L = perl_at(cand, probes, why, why_len);
		}
		if (f)
			fclose(f);
	} else if (command && command[0]) {
		if (!exec_path_find(command[0], cand, sizeof(cand))) {
			snprintf(why, why_len, "%s: not found", command[0]);
			return NULL;
		}
		L = perl_at(cand, probes, why, why_len);
		if (!L && shebang_of(cand, cand, sizeof(cand)))
			L = perl_at(cand, probes, why, why_len);
	} else {
		snprintf(cand, sizeof(cand), "/usr/bin/perl");
		L = perl_at(cand, probes, why, why_len);
	}
	if (L)
		snprintf(binary, binary_len, "%s", cand);
	return L;
}

/* perl_ops.root_find: perl:NAME, NAME a sub's name without its package. */
int perl_root_find(struct interp_root *r, const char *name, pid_t pid, char *const *command,
		   char *why, size_t why_len)
{
	const struct interp_perl_layout *L;
	struct perl_sub_probes pp;
	char found[256] = "";
	uint32_t i;

	if (!*name || strlen(name) >= INTERP_ROOT_NAME_MAX || strstr(name, "::") ||
	    strspn(name, sub_chars) != strlen(name)) {
		snprintf(why, why_len, "not perl:NAME (a sub's name, without its package)");
		return INTERP_ROOT_BAD_NAME;
	}
	L = find_perl(r->binary, sizeof(r->binary), &pp, pid, command, found, sizeof(found));
	if (!L) {
		snprintf(why, why_len, "no perl we can follow in this target (%s); perls followed: "
			 "5.32, 5.36, 5.40, 5.42 (the executable or libperl.so)", found);
		return INTERP_ROOT_NOT_FOUND;
	}
	r->layout.lang = INTERP_PERL;
	r->layout.pl = *L;
	/*
	 * By file offset (perl_probes.c): perl 5.40+ exports no pp function,
	 * they are found through PL_ppaddr[].
	 */
	r->probes[0] = (struct interp_root_probe_at){ INTERP_ROOT_ENTER, pp.enter, "pp_entersub" };
	r->probes[1] = (struct interp_root_probe_at){ INTERP_ROOT_LEAVE, pp.leave, "pp_leavesub" };
	r->probes[2] = (struct interp_root_probe_at){ INTERP_ROOT_LEAVE, pp.leavelv,
						      "pp_leavesublv" };
	r->probes[3] = (struct interp_root_probe_at){ INTERP_ROOT_UNWIND, pp.unwind,
						      "Perl_dounwind" };
	r->nprobes = 4;
	for (i = 0; i < pp.ndie && i < PERL_DIE_PROBES; i++)
		r->probes[r->nprobes++] = (struct interp_root_probe_at){ INTERP_ROOT_RAISE,
									 pp.die[i], "die" };
	return 0;
}
