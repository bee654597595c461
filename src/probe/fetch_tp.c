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
 * kernel's; a __data_loc char[] is a string in the record.  The format is
 * read by kernel/tp_format.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel/tp_format.h"
#include "probe/fetch_path.h"
#include "probe/fetch_tp.h"

#define MAX_FIELDS 64

/* The field called name of the format at dir/cat/name: 0, -ENOENT, or -errno (unreadable). */
static int find_field(const char *dir, const char *cat, const char *ev, const char *name,
		      struct tp_field *out, char *names, size_t nsize)
{
	struct tp_field fl[MAX_FIELDS];
	size_t len = 0;
	int n = tp_format_fields(dir, cat, ev, fl, MAX_FIELDS), i, rc = -ENOENT;

	if (n < 0)
		return n;
	names[0] = '\0';
	for (i = 0; i < n; i++) {
		if (strcmp(fl[i].name, name) == 0 && rc == -ENOENT) {
			*out = fl[i];
			rc = 0;
		}
		if (strcmp(fl[i].name, "__syscall_nr") != 0 && len < nsize)
			len += snprintf(names + len, nsize - len, "%s%s", len ? ", " : "",
					fl[i].name);
	}
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

/* :string on the pointer just fetched, read by step kind: 0, or -EINVAL for no char pointer. */
static int string_at(const char *expr, const char *type, int kind, struct fetch_step *s, int *n,
		     struct fetch_format *f, char *err, size_t errlen)
{
	if (!char_pointer(type)) {
		snprintf(err, errlen, "--fetch '%s': :string on a %s", expr, type);
		return -EINVAL;
	}
	step(s, n, kind, 0, 0);
	f->print = FETCH_PRINT_STRING;
	return 0;
}

static int compile_one(const char *dir, const char *cat, const char *ev, bool syscall,
		       const char *expr, struct fetch_step *s, struct fetch_format *f, char *err,
		       size_t errlen)
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
	rc = find_field(dir, cat, ev, name, &fl, names, sizeof(names));
	if (rc == -ENOENT) {
		snprintf(err, errlen, "--fetch '%s': no field '%s' (its fields: %s)", expr, name,
			 names[0] ? names : "none");
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "--fetch '%s': cannot read %s/%s/%s/format: %s", expr, dir, cat,
			 ev, strerror(-rc));
		return rc;
	}
	if (cast[0] && !string && !fetch_cast_parse(cast, f)) {
		snprintf(err, errlen, "--fetch '%s': ':%s' is not string, u8..u64, s8..s64 or "
			 "x8..x64", expr, cast);
		return -EINVAL;
	}
	if (syscall) {
		/* The arguments follow __syscall_nr, 8 bytes each, from offset 16. */
		if (fl.off < 16 || (fl.off - 16) % 8 || (fl.off - 16) / 8 > 5) {
			snprintf(err, errlen, "--fetch '%s': not an argument", expr);
			return -EINVAL;
		}
		step(s, &n, FETCH_STEP_SYSARG, (fl.off - 16) / 8, 0);
		/* A system call's pointer is the caller's memory */
		if (string)
			return string_at(expr, fl.type, FETCH_STEP_STR, s, &n, f, err, errlen);
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
			step(s, &n, FETCH_STEP_CTX, 4, fl.off);
			step(s, &n, FETCH_STEP_DATA_LOC_STR, 0, 0);
		} else {
			step(s, &n, FETCH_STEP_CTX_STR, 0, fl.off);
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
	step(s, &n, FETCH_STEP_CTX, fl.size, fl.off);
	/* A tracepoint's pointer is the kernel's */
	if (string)
		return string_at(expr, fl.type, FETCH_STEP_KSTR, s, &n, f, err, errlen);
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
	char dir[512];
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
	snprintf(dir, sizeof(dir), "%s/events", tracefs);
	prog->nvars = n;
	for (i = 0; i < n; i++) {
		memset(&fmt[i], 0, sizeof(fmt[i]));
		rc = compile_one(dir, cat, name, syscall, exprs[i], prog->steps[i], &fmt[i], err,
				 errlen);
		if (rc)
			return rc;
	}
	return 0;
}
