// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/kallsyms: "ffffffff821ecbe0 T do_syscall_64" or
 * "ffffffffc0201000 t ftrace_trampoline\t[__builtin__ftrace]".
 *
 * Which symbols name code: t/T (text) and w/W (weak; in kallsyms these are
 * weak functions, weak objects print as v/V).  Data symbols (d, D, b, B, r,
 * R, v, V) never name an address but end the range of the text symbol before
 * them; so do text-typed section markers (_etext, __entry_text_end and other
 * "*text_end" names), which is how we know about the gaps after them.
 * Absolute (a, A) and undefined (U) entries are ignored: their values are
 * not addresses in the kernel's text.
 *
 * Several names at one address: a text symbol beats a boundary; then T over
 * W over t over w; then the name with fewer leading underscores (so
 * "_stext" loses to a real function); then the shorter name; then the first.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/kallsyms.h"
#include "util/array.h"

enum ksym_kind { KSYM_TEXT, KSYM_BOUNDARY };

struct ksym {
	uint64_t addr;
	const char *name;	/* points into kallsyms.buf */
	const char *module;	/* "[mod]" in kallsyms.buf, or NULL for vmlinux */
	uint32_t order;
	uint8_t kind;
	uint8_t rank;
};

struct kallsyms {
	char *buf;		/* the file, parsed in place */
	struct ksym *syms;	/* sorted, one per address */
	size_t nr;
	bool all_zero;
};

static char *read_file(const char *path, size_t *len)
{
	size_t cap = 1 << 20, used = 0;
	char *buf = malloc(cap + 1), *p;
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f || !buf)
		goto fail;
	/* /proc files report size 0: read until EOF, within a cap. */
	while ((n = fread(buf + used, 1, cap - used, f)) > 0) {
		used += n;
		if (used < cap)
			continue;
		if (cap >= KALLSYMS_MAX_FILE) {
			errno = EFBIG;
			goto fail;
		}
		cap *= 2;
		p = realloc(buf, cap + 1);
		if (!p)
			goto fail;
		buf = p;
	}
	if (ferror(f)) {
		/* The read's own reason (EISDIR for a directory), else EIO. */
		if (!errno)
			errno = EIO;
		goto fail;
	}
	fclose(f);
	buf[used] = '\0';
	*len = used;
	return buf;
fail:
	n = errno;
	if (f)
		fclose(f);
	free(buf);
	errno = n ? (int)n : ENOMEM;
	return NULL;
}

static bool parse_hex(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	int digits = 0;

	for (; *s; s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return false;
		if (digits >= 16)
			return false;
		v = v << 4 | (uint64_t)d;
	}
	*out = v;
	return digits > 0;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcmp(s + ls - lx, suffix) == 0;
}

static bool is_section_marker(const char *name)
{
	return strcmp(name, "_etext") == 0 || strcmp(name, "_einittext") == 0 ||
	       ends_with(name, "text_end");
}

/* Classify the type letter; false for entries we ignore. */
static bool classify(char type, const char *name, struct ksym *s)
{
	/* Text symbols rank by how good a name they are: global, weak, local, local weak. */
	static const char text[] = "TWtw";
	const char *t = type ? strchr(text, type) : NULL;

	if (t) {
		s->rank = t - text;
		s->kind = is_section_marker(name) ? KSYM_BOUNDARY : KSYM_TEXT;
		return true;
	}
	/* Data, bss, read-only and the rest: no function reaches past one. */
	if (type && strchr("dDbBrRvVgGsS", type)) {
		s->kind = KSYM_BOUNDARY;
		s->rank = 4;
		return true;
	}
	return false;
}

/* Split one line in place; false for a line that is not a symbol. */
static bool parse_line(char *line, struct ksym *s)
{
	char *fields[4] = { 0 }, *save = NULL, *tok;
	int n = 0;

	for (tok = strtok_r(line, " \t\r", &save); tok && n < 4;
	     tok = strtok_r(NULL, " \t\r", &save))
		fields[n++] = tok;
	if (n < 3 || tok || strlen(fields[1]) != 1 || !parse_hex(fields[0], &s->addr))
		return false;
	s->name = fields[2];
	s->module = NULL;
	if (fields[3]) {
		size_t len = strlen(fields[3]);

		if (len < 3 || fields[3][0] != '[' || fields[3][len - 1] != ']')
			return false;
		s->module = fields[3];
	}
	return classify(fields[1][0], s->name, s);
}

static size_t leading_underscores(const char *s)
{
	return strspn(s, "_");
}

static int cmp_ksym(const void *pa, const void *pb)
{
	const struct ksym *a = pa, *b = pb;
	size_t ua, ub, la, lb;

	if (a->addr != b->addr)
		return a->addr < b->addr ? -1 : 1;
	if (a->kind != b->kind)
		return a->kind < b->kind ? -1 : 1;
	if (a->rank != b->rank)
		return a->rank < b->rank ? -1 : 1;
	ua = leading_underscores(a->name);
	ub = leading_underscores(b->name);
	if (ua != ub)
		return ua < ub ? -1 : 1;
	la = strlen(a->name);
	lb = strlen(b->name);
	if (la != lb)
		return la < lb ? -1 : 1;
	return a->order < b->order ? -1 : a->order > b->order;
}

static int parse_all(struct kallsyms *ks, size_t len)
{
	size_t cap = 0, nr = 0;
	char *line = ks->buf, *end = ks->buf + len;
	bool any_nonzero = false;

	while (line < end) {
		char *nl = memchr(line, '\n', (size_t)(end - line));
		struct ksym s = { 0 };

		if (nl)
			*nl = '\0';
		if (parse_line(line, &s)) {
			if (nr == cap) {
				size_t ncap = cap ? cap * 2 : 4096;
				void *p = reallocarray(ks->syms, ncap, sizeof(*ks->syms));

				if (!p)
					return -ENOMEM;
				ks->syms = p;
				cap = ncap;
			}
			s.order = (uint32_t)nr;
			any_nonzero |= s.addr != 0;
			ks->syms[nr++] = s;
		}
		line = nl ? nl + 1 : end;
	}
	ks->nr = nr;
	ks->all_zero = nr > 0 && !any_nonzero;
	return 0;
}

/* Keep the preferred entry of each address (the first after sorting). */
static void dedup(struct kallsyms *ks)
{
	size_t i, out = 0;

	for (i = 0; i < ks->nr; i++) {
		if (out && ks->syms[out - 1].addr == ks->syms[i].addr)
			continue;
		ks->syms[out++] = ks->syms[i];
	}
	ks->nr = out;
}

struct kallsyms *kallsyms_load(const char *path)
{
	struct kallsyms *ks = calloc(1, sizeof(*ks));
	size_t len;
	int err;

	if (!ks)
		return NULL;
	ks->buf = read_file(path, &len);
	if (!ks->buf) {
		err = errno;
		free(ks);
		errno = err;
		return NULL;
	}
	err = parse_all(ks, len);
	if (err) {
		kallsyms_free(ks);
		errno = -err;
		return NULL;
	}
	if (ks->nr == 0) {
		kallsyms_free(ks);
		errno = ENOENT;
		return NULL;
	}
	qsort(ks->syms, ks->nr, sizeof(*ks->syms), cmp_ksym);
	dedup(ks);
	return ks;
}

void kallsyms_free(struct kallsyms *ks)
{
	if (!ks)
		return;
	free(ks->syms);
	free(ks->buf);
	free(ks);
}

bool kallsyms_all_zero(const struct kallsyms *ks)
{
	return ks && ks->all_zero;
}

unsigned long kallsyms_count(const struct kallsyms *ks)
{
	return ks ? ks->nr : 0;
}

static bool same_module(const char *a, const char *b)
{
	if (!a || !b)
		return a == b;
	return strcmp(a, b) == 0;
}

/*
 * Does the range of s (followed by next, or nothing) reach addr?  In vmlinux
 * the next symbol ends it.  Modules (and the bpf/ftrace pseudo modules) are
 * separate allocations, so a different module's symbol says nothing, and even
 * within one module we do not believe a function longer than the cap.
 */
static bool reaches(const struct ksym *s, const struct ksym *next, uint64_t addr)
{
	uint64_t dist = addr - s->addr;

	if (next && same_module(s->module, next->module) && !s->module)
		return addr < next->addr;
	if (next && addr >= next->addr)
		return false;
	return dist < KALLSYMS_MODULE_MAX_FUNC;
}

const char *kallsyms_lookup(const struct kallsyms *ks, uint64_t addr, const char **module,
			    uint64_t *offset)
{
	const struct ksym *s;
	size_t lo;

	if (!ks || ks->all_zero)
		return NULL;
	lo = array_first_above(ks->syms, ks->nr, sizeof(*ks->syms), offsetof(struct ksym, addr),
			       addr);
	if (lo == 0)
		return NULL;
	s = &ks->syms[lo - 1];
	if (s->kind != KSYM_TEXT || !reaches(s, lo < ks->nr ? &ks->syms[lo] : NULL, addr))
		return NULL;
	if (module)
		*module = s->module;
	if (offset)
		*offset = addr - s->addr;
	return s->name;
}
