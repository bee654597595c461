// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for line probes (src/probe/): the input is a binary whose
 * DWARF says where lines, functions and variables are.  The user names that
 * binary, but it can be anything: a half-written file, a crafted one.  Its
 * lines resolved for a few probes, its lines and variables listed, and
 * --fetch expressions compiled at each address found: never a crash, a
 * hang or a read out of bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "probe/fetch_compile.h"
#include "probe/line_probe.h"
#include "util/elf_util.h"

static char path[64];

static void remove_input(void)
{
	unlink(path);
}

static void sites_and_fetches(struct line_dwarf *ld, const char *text)
{
	static const char *const exprs[] = { "r->len", "r->path:string", "r->in->id", "weight",
					     "argv[1]:string", "x.y[3]:x32" };
	struct fetch_format fmt[FETCH_MAX_VARS];
	struct fetch_steps prog;
	struct line_site *sites;
	struct line_spec spec;
	char copy[64], err[512];
	size_t n, i;
	int k;

	snprintf(copy, sizeof(copy), "%s", text);
	if (line_spec_parse(copy, &spec) != 0)
		return;
	if (line_sites(ld, &spec, &sites, &n, err, sizeof(err)) != 0)
		return;
	for (i = 0; i < n && i < 8; i++)
		for (k = 0; k < (int)(sizeof(exprs) / sizeof(exprs[0])); k++)
			fetch_compile(ld, &sites[i], &exprs[k], 1, &prog, fmt, err, sizeof(err));
	free(sites);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const specs[] = { "main:2", "handle_request:4", "pick_weight:2",
					     "@line_server.c:47", "main:0", "audit:1" };
	struct line_spec spec;
	struct line_dwarf ld;
	char err[512], copy[64];
	FILE *null;
	size_t i;
	int fd;

	if (!path[0]) {
		snprintf(path, sizeof(path), "/tmp/stitch_fuzz_line_%d", (int)getpid());
		elf_util_init();
		atexit(remove_input);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	close(fd);
	if (line_dwarf_open(&ld, path, err, sizeof(err)) != 0)
		return 0;
	null = fopen("/dev/null", "w");
	for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++)
		sites_and_fetches(&ld, specs[i]);
	if (null) {
		snprintf(copy, sizeof(copy), "handle_request");
		if (line_spec_parse(copy, &spec) == 0)
			line_list_lines(null, &ld, &spec, err, sizeof(err));
		snprintf(copy, sizeof(copy), "main:3");
		if (line_spec_parse(copy, &spec) == 0)
			line_list_vars(null, &ld, &spec, err, sizeof(err));
		fclose(null);
	}
	line_dwarf_close(&ld);
	return 0;
}
