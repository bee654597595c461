// SPDX-License-Identifier: GPL-2.0
/* A tracepoint's format: its fields, from tracefs's text (tp_format.h). */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/tp_format.h"

/* A format is a few KiB: beyond this, it is no format. */
#define TP_FORMAT_MAX_BYTES (64u << 10)

static bool ident(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;" into f. */
static bool parse_field(const char *line, struct tp_field *f)
{
	const char *decl = strstr(line, "field:"), *semi, *name, *end;
	const char *off = strstr(line, "offset:"), *size = strstr(line, "size:");
	const char *sgn = strstr(line, "signed:");
	size_t tlen;

	if (!decl || !off || !size)
		return false;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return false;
	memset(f, 0, sizeof(*f));
	end = semi;
	while (end > decl && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	/* "char comm[16]": the name before its brackets */
	if (end > decl && end[-1] == ']') {
		while (end > decl && *end != '[')
			end--;
		f->array = true;
	}
	name = end;
	while (name > decl && ident(name[-1]))
		name--;
	if (name == end || (size_t)(end - name) >= sizeof(f->name))
		return false;
	memcpy(f->name, name, end - name);
	tlen = name - decl;
	while (tlen && (decl[tlen - 1] == ' ' || decl[tlen - 1] == '\t'))
		tlen--;
	if (tlen >= sizeof(f->type))
		return false;
	memcpy(f->type, decl, tlen);
	f->data_loc = strncmp(f->type, "__data_loc ", 11) == 0;
	f->off = (uint32_t)strtoul(off + 7, NULL, 10);
	f->size = (uint32_t)strtoul(size + 5, NULL, 10);
	f->is_signed = sgn && sgn[7] == '1';
	return f->off < 0x10000 && f->size <= 0x10000;
}

int tp_format_read(FILE *f, struct tp_field *fields, int max)
{
	char line[512];
	size_t bytes = 0;
	int n = 0;

	while (n < max && fgets(line, sizeof(line), f)) {
		bytes += strlen(line);
		if (bytes > TP_FORMAT_MAX_BYTES)
			break;
		if (parse_field(line, &fields[n]) && strncmp(fields[n].name, "common_", 7) != 0)
			n++;
	}
	return n;
}

int tp_format_fields(const char *events_dir, const char *cat, const char *name,
		     struct tp_field *fields, int max)
{
	char path[512];
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/%s/%s/format", events_dir, cat, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = tp_format_read(f, fields, max);
	fclose(f);
	return n;
}
