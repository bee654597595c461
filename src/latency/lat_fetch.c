// SPDX-License-Identifier: GPL-2.0
/* stitch latency --fetch: see lat_fetch.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "kernel/features.h"
#include "kernel/tp_format.h"
#include "latency/lat_fetch.h"
#include "probe/fetch_btf.h"
#include "probe/fetch_tp.h"
#include "util/cli.h"
#include "util/elf_util.h"
#include "interp/interp.h"	/* the skeleton's root_L */
#include "latency.skel.h"

_Static_assert(FETCH_MAX_VARS == 8, "lat_fetch_add's message");

int lat_fetch_add(struct lat_fetch *f, const char *expr)
{
	if (f->n >= FETCH_MAX_VARS)
		return cli_usage_error("latency", "%s", "--fetch: at most 8 expressions");
	f->exprs[f->n++] = expr;
	return 0;
}

/*
 * The copy of r's function its uprobe goes to: the one whose entry is the
 * symbol's address (libbpf attaches by the symbol), else the out-of-line one.
 */
static const struct line_site *root_site(struct line_dwarf *ld, const struct line_site *s,
					 size_t n, const char *function)
{
	uint64_t value = 0;
	size_t i;

	if (elf_sym_find(ld->elf, SHT_SYMTAB, function, &value, NULL) ||
	    elf_dynsym_find(ld->elf, function, &value, NULL))
		for (i = 0; i < n; i++)
			if (s[i].vaddr == value)
				return &s[i];
	for (i = 0; i < n; i++)
		if (!s[i].caller[0])
			return &s[i];
	return NULL;
}

/* A function root: its arguments at its entry, from the binary's DWARF. */
static int compile_function(struct lat_fetch *f, const struct lat_root *r, char *why,
			    size_t whylen)
{
	struct line_spec spec = { .func = r->function, .line = -1 };
	const struct line_site *site;
	struct line_site *sites;
	struct line_dwarf ld;
	size_t n;
	int rc;

	rc = line_dwarf_open(&ld, r->binary, why, whylen);
	if (rc)
		return rc;
	rc = line_sites(&ld, &spec, &sites, &n, why, whylen);
	if (rc == 0) {
		site = root_site(&ld, sites, n, r->function);
		if (site)
			rc = fetch_compile(&ld, site, f->exprs, f->n, &f->steps, f->site.fmt, why,
					   whylen);
		else
			snprintf(why, whylen, "%s is only inlined: no call of its own to time",
				 r->function);
		rc = site ? rc : -ENOENT;
		free(sites);
	}
	line_dwarf_close(&ld);
	return rc;
}

int lat_fetch_compile(struct lat_fetch *f, const struct lat_root *r)
{
	char why[512] = "", ev[160];
	int rc;

	if (!f->n)
		return 0;
	f->site.nvars = f->n;
	switch (r->kind) {
	case ROOT_FUNCTION:
		rc = compile_function(f, r, why, sizeof(why));
		break;
	case ROOT_SYSCALL:
		/* A system call's arguments are its user registers: bpf_task_pt_regs */
		if (!kfeat_has(KFEAT_TASK_PT_REGS)) {
			snprintf(why, sizeof(why), "--fetch at a system call reads its registers "
				 "with bpf_task_pt_regs (Linux 5.15), which this kernel lacks: "
				 "time it without --fetch");
			rc = -EOPNOTSUPP;
			break;
		}
		snprintf(ev, sizeof(ev), "sys_enter_%s", r->name);
		rc = fetch_tp_compile(TP_TRACEFS, "syscalls", ev, f->exprs, f->n, &f->steps,
				      f->site.fmt, why, sizeof(why));
		break;
	case ROOT_KFUNCTION:
		rc = fetch_btf_compile(r->function, f->exprs, f->n, &f->steps, f->site.fmt, why,
				       sizeof(why));
		break;
	default:
		snprintf(why, sizeof(why), "--fetch reads at the entry of a function (uprobe:, "
			 "kprobe:) or a system call (syscall:), not of a %s root",
			 r->kind == ROOT_INTERP ? "script function" : "begin/end pair");
		rc = -EINVAL;
	}
	if (rc) {
		fprintf(stderr, "stitch latency: %s: %s\n", r->spec, why[0] ? why : strerror(-rc));
		return 1;
	}
	return 0;
}

void lat_fetch_configure(const struct lat_fetch *f, struct latency_bpf *skel)
{
	skel->rodata->fetch_on = f->n > 0;
	/* Without --fetch the values' map is 1 entry, not one per thread */
	if (!f->n)
		bpf_map__set_max_entries(skel->maps.open_fetched, 1);
}

int lat_fetch_write(const struct lat_fetch *f, struct latency_bpf *skel)
{
	uint32_t zero = 0;

	if (!f->n)
		return 0;
	return bpf_map__update_elem(skel->maps.lat_fetch_prog, &zero, sizeof(zero), &f->steps,
				    sizeof(f->steps), 0);
}

void lat_fetch_format(const struct lat_fetch *f, const struct fetch_values *v, char *buf,
		      size_t size)
{
	fetch_format_values(&f->site, v, buf, size);
}
