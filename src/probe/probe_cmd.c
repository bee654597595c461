// SPDX-License-Identifier: GPL-2.0
/*
 * stitch probe: where a line probe goes, before recording with it.  Like
 * perf probe's -L and -V, and without an argument the addresses
 * `record -e uprobe:...` would attach to.  Reads files only: no root needed.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe/line_probe.h"
#include "probe/probe_cmd.h"
#include "util/cli.h"
#include "util/elf_util.h"
#include "util/exec_path.h"

enum probe_mode { PROBE_SITES, PROBE_LINES, PROBE_VARS };

struct probe_opts {
	enum probe_mode mode;
	const char *spec;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: stitch probe [-L | -V] [uprobe:]BINARY:FUNC[:RELLINE]\n"
"       stitch probe [-V] [uprobe:]BINARY@FILE:LINE\n"
"       stitch probe [-L | -V] kprobe:FUNC[:RELLINE] | kprobe:@FILE:LINE\n"
"\n"
"Show where a line probe goes, from the binary's DWARF (its own, or its debug\n"
"file's), before recording with it (stitch record -e uprobe:BINARY:FUNC:RELLINE).\n"
"RELLINE counts from the line that declares FUNC (0), as perf probe counts; FILE\n"
"is a source file's name or the tail of its path.  A line has one address in\n"
"every copy of its code: the function out of line and each place it is inlined.\n"
"FUNC without a line is its entry in each copy, where its arguments are as passed\n"
"(stitch record -e uprobe:BINARY:FUNC --fetch ARG reads them there).\n"
"kprobe: is the running kernel's: its DWARF from Debian's linux-image-*-dbg\n"
"(/usr/lib/debug/boot/vmlinux-RELEASE) or $STITCH_VMLINUX, used only if its\n"
"build-id is the running kernel's; addresses as /proc/kallsyms has them.\n"
"\n"
"  (no option)         the addresses the probe goes to, one per copy\n"
"  -L, --list-lines    FUNC's source, its lines numbered where they have code\n"
"                      (a probe can go there), blank where they have none\n"
"  -V, --list-vars     at the line (or entry): the arguments and locals in scope, their types,\n"
"                      and where each is there (a register, the stack, a constant,\n"
"                      or <optimized out>: not readable at that line)\n"
"\n"
"Examples:\n"
"  stitch probe -L ./server:handle_request\n"
"  stitch probe -V ./server:handle_request:4\n"
"  stitch probe -V libc.so.6:malloc\n"
"  stitch record -e uprobe:./server:handle_request:4 -- ./server\n");
}

static int take_opt(void *ctx, int opt, const char *arg)
{
	struct probe_opts *o = ctx;

	if (o->mode != PROBE_SITES)
		return cli_usage_error("probe", "%s", "give -L or -V, not both");
	o->mode = opt == 'L' ? PROBE_LINES : PROBE_VARS;
	return 0;
}

static const struct option longopts[] = {
	{ "list-lines", no_argument, NULL, 'L' },
	{ "list-vars", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int print_sites(struct line_dwarf *ld, const struct line_spec *spec, char *err,
		       size_t errlen)
{
	struct line_site *sites;
	size_t n, i;
	int rc = line_sites(ld, spec, &sites, &n, err, errlen);

	if (rc)
		return rc;
	/* The kernel's: where its text is now (KASLR), as /proc/kallsyms says */
	for (i = 0; i < n; i++)
		printf("0x%" PRIx64 "  %s:%d  %s:%d%s%s\n", sites[i].vaddr + ld->kernel_bias,
		       sites[i].func,
		       sites[i].rel, sites[i].file, sites[i].line,
		       sites[i].caller[0] ? "  inlined into " : "", sites[i].caller);
	free(sites);
	return 0;
}

/* What the options ask, of an open DWARF: 0, or -errno with err said. */
static int show(const struct probe_opts *o, struct line_dwarf *ld, const struct line_spec *spec,
		char *err, size_t errlen)
{
	if (o->mode == PROBE_LINES)
		return line_list_lines(stdout, ld, spec, err, errlen);
	if (o->mode == PROBE_VARS)
		return line_list_vars(stdout, ld, spec, err, errlen);
	return print_sites(ld, spec, err, errlen);
}

/* kprobe:FUNC[:RELLINE], kprobe:@FILE:LINE: the running kernel's DWARF. */
static int probe_kernel(const struct probe_opts *o, const char *text)
{
	char err[512] = "", *copy = strdup(text);
	struct line_spec spec;
	struct line_dwarf ld;
	int rc;

	if (!copy)
		return 1;
	if (line_spec_parse(copy, &spec) != 0) {
		free(copy);
		return cli_usage_error("probe", "'kprobe:%s' is not kprobe:FUNC, kprobe:FUNC:RELLINE "
				       "or kprobe:@FILE:LINE", text);
	}
	elf_util_init();
	rc = line_dwarf_open_kernel(&ld, err, sizeof(err));
	if (rc == 0) {
		rc = show(o, &ld, &spec, err, sizeof(err));
		line_dwarf_close(&ld);
	}
	if (rc)
		fprintf(stderr, "stitch probe: %s\n", err[0] ? err : strerror(-rc));
	free(copy);
	return rc ? 1 : 0;
}

int cmd_probe(int argc, char **argv)
{
	static const struct cli_cmd cmd = { .name = "probe", .usage = usage, .shortopts = "LVh",
					    .longopts = longopts };
	struct probe_opts o = { PROBE_SITES, NULL };
	char err[512] = "", *binary = NULL, *rest = NULL, lib[PATH_MAX];
	struct line_spec spec;
	struct line_dwarf ld;
	const char *text;
	bool has_line;
	int rc;

	rc = cli_parse(&cmd, argc, argv, take_opt, &o);
	if (rc)
		return rc;
	if (optind != argc - 1)
		return cli_usage_error("probe", "%s", "give one probe: BINARY:FUNC[:RELLINE] or "
				       "BINARY@FILE:LINE");
	text = argv[optind];
	if (strncmp(text, "uprobe:", 7) == 0)
		text += 7;
	if (strncmp(text, "kprobe:", 7) == 0)
		return probe_kernel(&o, text + 7);
	rc = line_probe_split(text, &binary, &rest, &has_line);
	if (rc == 0 && line_spec_parse(rest, &spec) != 0)
		rc = -EINVAL;
	if (rc) {
		free(binary);
		free(rest);
		return cli_usage_error("probe", "'%s' is not BINARY:FUNC, BINARY:FUNC:RELLINE or "
				       "BINARY@FILE:LINE", argv[optind]);
	}
	elf_util_init();
	/* A library by its name, as record's -e takes it (libc.so.6) */
	if (access(binary, F_OK) != 0 && lib_path_find(binary, lib, sizeof(lib)))
		rc = line_dwarf_open(&ld, lib, err, sizeof(err));
	else
		rc = line_dwarf_open(&ld, binary, err, sizeof(err));
	if (rc == 0) {
		rc = show(&o, &ld, &spec, err, sizeof(err));
		line_dwarf_close(&ld);
	}
	if (rc)
		fprintf(stderr, "stitch probe: %s\n", err[0] ? err : strerror(-rc));
	free(binary);
	free(rest);
	return rc ? 1 : 0;
}
