// SPDX-License-Identifier: GPL-2.0
/*
 * --fetch on a tracepoint or a system call: its fields by name, from the
 * format the kernel publishes for it (tracefs events/CAT/NAME/format, the
 * "field:TYPE NAME; offset:N; size:N; signed:N;" lines).  A tracepoint's
 * field is read from its record; a system call's argument from the
 * registers the thread entered the kernel with, so that the same steps
 * serve the raw sys_enter tracepoint stitch attaches where the syscall
 * tracepoints give no kernel stack.  A system call's "const char *" is the
 * caller's memory (:string reads it there); a tracepoint's pointer, the
 * kernel's; a __data_loc char[] is a string in the record.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/fetch_path.h"
#include "probe/fetch_tp.h"

#define FORMAT_MAX_BYTES (64 << 10)

struct tp_field {
	char type[96];		/* as declared, without the name */
	char name[64];
	unsigned int offset, size;
	bool is_signed, array, data_loc;
};

/* "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;" */
static bool parse_field(const char *line, struct tp_field *f)
{
	const char *decl = strstr(line, "field:"), *semi, *name, *end;
	const char *off = strstr(line, "offset:"), *size = strstr(line, "size:");
	const char *sgn = strstr(line, "signed:");
	size_t tlen;

	if (!decl || !off || !size || !sgn)
		return false;
	decl += 6;
	semi = strchr(decl, ';');
	if (!semi)
		return false;
	memset(f, 0, sizeof(*f));
	end = semi;
	/* "char comm[16]": the name before its brackets */
	if (end > decl && end[-1] == ']') {
		while (end > decl && *end != '[')
			end--;
		f->array = true;
	}
	name = end;
	while (name > decl && (isalnum((unsigned char)name[-1]) || name[-1] == '_'))
		name--;
	if (name == end || (size_t)(end - name) >= sizeof(f->name))
		return false;
	memcpy(f->name, name, end - name);
	tlen = name - decl;
	while (tlen && decl[tlen - 1] == ' ')
		tlen--;
	if (tlen >= sizeof(f->type))
		return false;
	memcpy(f->type, decl, tlen);
	f->data_loc = strncmp(f->type, "__data_loc ", 11) == 0;
	f->offset = (unsigned int)strtoul(off + 7, NULL, 10);
	f->size = (unsigned int)strtoul(size + 5, NULL, 10);
	f->is_signed = sgn[7] == '1';
	return f->offset < 0x10000 && f->size <= 0x10000;
}

/* The field called name in the format at path: 0, -ENOENT, or -errno (unreadable). */
static int find_field(const char *path, const char *name, struct tp_field *out,
		      char *names, size_t nsize)
{
	char line[512];
	size_t len = 0, bytes = 0;
	FILE *f = fopen(path, "r");
	int rc = -ENOENT;

	if (!f)
		return -errno;
	names[0] = '\0';
	while (fgets(line, sizeof(line), f) && (bytes += strlen(line)) < FORMAT_MAX_BYTES) {
		struct tp_field fl;

		if (!parse_field(line, &fl) || strncmp(fl.name, "common_", 7) == 0)
			continue;
		if (strcmp(fl.name, name) == 0 && rc == -ENOENT) {
			*out = fl;
			rc = 0;
		}
		if (strcmp(fl.name, "__syscall_nr") != 0 && len < nsize)
			len += snprintf(names + len, nsize - len, "%s%s", len ? ", " : "", fl.name);
	}
	fclose(f);
	return rc;
}

/* A C integer type's bytes, where a system call's argument says 8 for all. */
static unsigned int c_type_size(const char *t)
{
	static const char *const four[] = { "int", "unsigned int", "unsigned", "pid_t", "uid_t",
					    "gid_t", "u32", "s32", "__u32", "__s32", "key_t",
					    "clockid_t", "timer_t", "qid_t", "rwf_t" };
	size_t i;

	if (strncmp(t, "const ", 6) == 0)
		t += 6;
	if (strchr(t, '*'))
		return 8;
	for (i = 0; i < sizeof(four) / sizeof(four[0]); i++)
		if (strcmp(t, four[i]) == 0)
			return 4;
	if (strcmp(t, "umode_t") == 0 || strcmp(t, "unsigned short") == 0 ||
	    strcmp(t, "short") == 0)
		return 2;
	if (strcmp(t, "char") == 0 || strcmp(t, "unsigned char") == 0)
		return 1;
	return 8;
}

static bool char_pointer(const char *t)
{
	size_t n = strlen(t);

	if (strncmp(t, "const ", 6) == 0)
		t += 6;
	n = strlen(t);
	return (strncmp(t, "char *", 6) == 0 || strncmp(t, "unsigned char *", 15) == 0) &&
	       t[n - 1] == '*' && !strstr(t, "**");
}

static void step(struct fetch_step *s, int *n, int kind, unsigned int arg, int64_t imm)
{
	s[*n].kind = kind;
	s[*n].arg = arg;
	s[*n].imm = imm;
	(*n)++;
}

static int compile_one(const char *path, bool syscall, const char *expr, struct fetch_step *s,
		       struct fetch_format *f, char *err, size_t errlen)
{
	char name[64], names[400];
	const char *colon = strchr(expr, ':'), *cast = colon ? colon + 1 : "";
	size_t nlen = colon ? (size_t)(colon - expr) : strlen(expr);
	bool string = strcmp(cast, "string") == 0;
	struct tp_field fl;
	int n = 0, rc;

	if (nlen == 0 || nlen >= sizeof(name) || nlen >= sizeof(f->label)) {
		snprintf(err, errlen, "--fetch '%s': not FIELD[:string|:u8..:u64|:s8..:s64|"
			 ":x8..:x64]", expr);
		return -EINVAL;
	}
	memcpy(name, expr, nlen);
	name[nlen] = '\0';
	memcpy(f->label, expr, nlen);
	f->label[nlen] = '\0';
	rc = find_field(path, name, &fl, names, sizeof(names));
	if (rc == -ENOENT) {
		snprintf(err, errlen, "--fetch '%s': no field '%s' (its fields: %s)", expr, name,
			 names[0] ? names : "none");
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "--fetch '%s': cannot read %s: %s", expr, path, strerror(-rc));
		return rc;
	}
	if (cast[0] && !string && !fetch_cast_parse(cast, f)) {
		snprintf(err, errlen, "--fetch '%s': ':%s' is not string, u8..u64, s8..s64 or "
			 "x8..x64", expr, cast);
		return -EINVAL;
	}
	if (syscall) {
		/* The arguments follow __syscall_nr, 8 bytes each, from offset 16. */
		if (fl.offset < 16 || (fl.offset - 16) % 8 || (fl.offset - 16) / 8 > 5) {
			snprintf(err, errlen, "--fetch '%s': not an argument", expr);
			return -EINVAL;
		}
		step(s, &n, FETCH_STEP_SYSARG, (fl.offset - 16) / 8, 0);
		if (string) {
			if (!char_pointer(fl.type)) {
				snprintf(err, errlen, "--fetch '%s': :string on a %s", expr, fl.type);
				return -EINVAL;
			}
			step(s, &n, FETCH_STEP_STR, 0, 0);
			f->print = FETCH_PRINT_STRING;
			return 0;
		}
		if (!cast[0]) {
			f->size = c_type_size(fl.type);
			f->print = strchr(fl.type, '*') ? FETCH_PRINT_HEX :
				   strncmp(fl.type, "unsigned", 8) == 0 ||
				   strstr(fl.type, "size_t") || strcmp(fl.type, "umode_t") == 0 ?
				   FETCH_PRINT_UNSIGNED : FETCH_PRINT_SIGNED;
		}
		return 0;
	}
	if (fl.data_loc || (fl.array && string)) {
		if (fl.data_loc && !strstr(fl.type, "char")) {
			snprintf(err, errlen, "--fetch '%s': a %s, not text", expr, fl.type);
			return -EINVAL;
		}
		if (fl.data_loc) {
			step(s, &n, FETCH_STEP_CTX, 4, fl.offset);
			step(s, &n, FETCH_STEP_DATA_LOC_STR, 0, 0);
		} else {
			step(s, &n, FETCH_STEP_CTX_STR, 0, fl.offset);
		}
		f->print = FETCH_PRINT_STRING;
		return 0;
	}
	if (fl.array) {
		snprintf(err, errlen, "--fetch '%s': an array: add :string for text", expr);
		return -EINVAL;
	}
	if (fl.size != 1 && fl.size != 2 && fl.size != 4 && fl.size != 8) {
		snprintf(err, errlen, "--fetch '%s': a field of %u bytes", expr, fl.size);
		return -EINVAL;
	}
	step(s, &n, FETCH_STEP_CTX, fl.size, fl.offset);
	if (string) {
		if (!char_pointer(fl.type)) {
			snprintf(err, errlen, "--fetch '%s': :string on a %s", expr, fl.type);
			return -EINVAL;
		}
		step(s, &n, FETCH_STEP_KSTR, 0, 0);
		f->print = FETCH_PRINT_STRING;
		return 0;
	}
	if (!cast[0]) {
		f->size = fl.size;
		f->print = strchr(fl.type, '*') ? FETCH_PRINT_HEX :
			   fl.is_signed ? FETCH_PRINT_SIGNED : FETCH_PRINT_UNSIGNED;
	}
	return 0;
}

int fetch_tp_compile(const char *tracefs, const char *cat, const char *name,
		     const char *const *exprs, int n, struct fetch_steps *prog,
		     struct fetch_format *fmt, char *err, size_t errlen)
{
	bool syscall = strcmp(cat, "syscalls") == 0 && strncmp(name, "sys_enter_", 10) == 0;
	char path[512];
	int i, rc;

	memset(prog, 0, sizeof(*prog));
	if (n > FETCH_MAX_VARS) {
		snprintf(err, errlen, "at most %d --fetch", FETCH_MAX_VARS);
		return -EINVAL;
	}
	if (strcmp(cat, "syscalls") == 0 && !syscall) {
		snprintf(err, errlen, "--fetch on a system call's exit is not read yet");
		return -EINVAL;
	}
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, cat, name);
	prog->nvars = n;
	for (i = 0; i < n; i++) {
		memset(&fmt[i], 0, sizeof(fmt[i]));
		rc = compile_one(path, syscall, exprs[i], prog->steps[i], &fmt[i], err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}
