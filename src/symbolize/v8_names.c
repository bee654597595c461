// SPDX-License-Identifier: GPL-2.0
/* Names of V8's JavaScript frames from the process's heap: see v8_names.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbolize/v8_heap.h"
#include "symbolize/v8_names.h"
#include "util/hashmap.h"

/* Bytes of a name or a file name kept; longer ones are cut. */
#define V8_NAME_MAX 256
/* Characters of a script's source read to find lines; a longer script's lines stay unknown. */
#define V8_SOURCE_MAX (16u << 20)
/*
 * Characters of sources read per process, at most: a process that makes up
 * script after script (its memory is its own to fake) costs this much, then
 * its lines are unknown.
 */
#define V8_SOURCE_BUDGET (64ull << 20)
/* Line starts kept over every script, at most (4 bytes each); past it, they are read again. */
#define V8_LINES_MAX (4u << 20)
/* Functions remembered per program before the cache starts again. */
#define V8_FNS_MAX 65536
/* Strings are ropes (ConsString) and slices: this deep, at most. */
#define V8_STR_DEPTH 8

struct v8_proc {
	struct hmap_node node;
	uint32_t pid;
	uint64_t start;		/* its start time (/proc/PID/stat), to tell a reused pid */
	uint64_t source_read;	/* characters of its scripts' sources read (V8_SOURCE_BUDGET) */
	struct v8_meta m;
};

/*
 * A function pointer as a frame kept it, and what it was last read as:
 * while the process lives, one read (its SharedFunctionInfo still the
 * same) confirms it; once the process is gone, the name read while it
 * lived stands (the last stacks are read from the kernel after its exit).
 * A SharedFunctionInfo the event read (KFRAME_V8_SFI) is kept the same
 * way, its fn the pointer with V8_PTR_SFI set, confirmed by its
 * name-or-ScopeInfo.
 */
#define V8_PTR_SFI (1ull << 63)
struct v8_ptr {
	struct hmap_node node;
	uint32_t pid;
	uint64_t fn;
	uint64_t seen;	/* what the confirming read gave */
	const struct v8_name *name;
};

/*
 * A function, by what its name is made of: the SharedFunctionInfo and its
 * name-or-ScopeInfo and script.  An address the GC reused for another
 * function would have to be reused for all three at once to be taken for it.
 */
struct v8_fn {
	struct hmap_node node;
	uint32_t pid;
	uint64_t sfi, name_or_scope, script;
	const struct v8_name *name;	/* NULL: read, and not nameable */
};

/* A script's line starts, from its source: offsets of the '\n's. */
struct v8_lines {
	struct hmap_node node;
	uint32_t pid;
	uint64_t script, source;
	uint32_t *nl;
	size_t n;
	bool ok;
};

/* An interned name (reg.names). */
struct v8_name_node {
	struct hmap_node node;
	struct v8_name n;
	char *file;
	char name[];
};

static struct {
	bool ready;
	struct hmap procs, fns, ptrs, names, lines;
	size_t nprocs, nfns, nptrs, nlines;
} reg;

/*
 * Lines of positions, by script and source (a script's address reused
 * must also have its source at the same address to be taken for it): a
 * function's positions are few (a loop's instructions share a handful),
 * and its pcs many, each a chain of its own (v8_inlined.c), so each line
 * is found once, not by a binary search of V8's line ends (a read a step)
 * per pc.  Direct-mapped: an entry's collision replaces it.
 */
#define POS_LINES 4096
static struct pos_line {
	uint32_t pid, line;
	uint64_t script, source;
	int64_t pos;
} pos_lines[POS_LINES];

static bool proc_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct v8_proc *)n)->pid == *(const uint32_t *)key;
}

static bool fn_eq(const struct hmap_node *n, const void *key)
{
	const struct v8_fn *a = (const struct v8_fn *)n, *b = key;

	return a->pid == b->pid && a->sfi == b->sfi && a->name_or_scope == b->name_or_scope &&
	       a->script == b->script;
}

static bool ptr_eq(const struct hmap_node *n, const void *key)
{
	const struct v8_ptr *a = (const struct v8_ptr *)n, *b = key;

	return a->pid == b->pid && a->fn == b->fn;
}

static bool lines_eq(const struct hmap_node *n, const void *key)
{
	const struct v8_lines *a = (const struct v8_lines *)n, *b = key;

	return a->pid == b->pid && a->script == b->script && a->source == b->source;
}

struct name_key {
	const char *name, *file;
	uint32_t line;
};

static bool name_eq(const struct hmap_node *n, const void *key)
{
	const struct v8_name *a = (const struct v8_name *)n;
	const struct name_key *k = key;

	return a->line == k->line && !strcmp(a->name, k->name) &&
	       (a->file ? k->file && !strcmp(a->file, k->file) : !k->file);
}

static void ready(void)
{
	if (reg.ready)
		return;
	hmap_init(&reg.procs, 16);
	hmap_init(&reg.fns, 1024);
	hmap_init(&reg.ptrs, 1024);
	hmap_init(&reg.names, 1024);
	hmap_init(&reg.lines, 64);
	reg.ready = true;
}

static struct v8_proc *find_proc(uint32_t pid)
{
	if (!reg.ready)
		return NULL;
	return (struct v8_proc *)hmap_find(&reg.procs, hash_u64(pid), proc_eq, &pid);
}

/* The process's start time, in clock ticks since boot (0: unknown). */
static uint64_t start_time(uint32_t pid)
{
	char path[64], buf[1024], *p;
	unsigned long long t = 0;
	ssize_t n;
	int fd, i;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* After the command's closing parenthesis (the command may hold any). */
	p = strrchr(buf, ')');
	for (i = 0; p && i < 20; i++)
		p = strchr(p + 1, ' ');
	if (p)
		sscanf(p + 1, "%llu", &t);
	return t;
}

static void drop_pid(uint32_t pid);

static void forget(struct v8_proc *p)
{
	hmap_remove(&reg.procs, &p->node);
	drop_pid(p->pid);
	free(p);
	reg.nprocs--;
}

/* At the limit: the processes that are gone make room. */
static void sweep_gone(void)
{
	struct v8_proc *gone[64];
	struct hmap_node *n;
	size_t i, k = 0;

	hmap_for_each(&reg.procs, i, n) {
		if (k < 64 && kill((pid_t)((struct v8_proc *)n)->pid, 0) && errno == ESRCH)
			gone[k++] = (struct v8_proc *)n;
	}
	for (i = 0; i < k; i++)
		forget(gone[i]);
}

void v8_names_watch(uint32_t pid, const struct v8_meta *m)
{
	uint64_t start = start_time(pid);
	struct v8_proc *p;

	ready();
	p = find_proc(pid);
	if (p && p->start == start) {
		p->m = *m;
		return;
	}
	if (p)
		forget(p);
	if (reg.nprocs >= V8_NAMES_MAX_PROCS)
		sweep_gone();
	if (reg.nprocs >= V8_NAMES_MAX_PROCS)
		return;
	p = calloc(1, sizeof(*p));
	if (!p)
		return;
	p->pid = pid;
	p->start = start;
	p->m = *m;
	hmap_insert(&reg.procs, &p->node, hash_u64(pid));
	reg.nprocs++;
}

static void lines_release(struct hmap_node *n)
{
	reg.nlines -= ((struct v8_lines *)n)->n;
	free(((struct v8_lines *)n)->nl);
	free(n);
}

/* Every script's lines forgotten (too many kept): read again when asked. */
static void lines_release_all(void)
{
	struct hmap_node *n, *first;
	size_t i;

	/* One at a time: a node is not removed while the table is visited. */
	for (;;) {
		first = NULL;
		hmap_for_each(&reg.lines, i, n)
			if (!first)
				first = n;
		if (!first)
			break;
		hmap_remove(&reg.lines, first);
		lines_release(first);
	}
}

/* Every function and script of pid forgotten. */
static void drop_pid(uint32_t pid)
{
	reg.nfns -= hmap_remove_pid(&reg.fns, offsetof(struct v8_fn, pid), pid, NULL);
	reg.nptrs -= hmap_remove_pid(&reg.ptrs, offsetof(struct v8_ptr, pid), pid, NULL);
	hmap_remove_pid(&reg.lines, offsetof(struct v8_lines, pid), pid, lines_release);
	for (size_t i = 0; i < POS_LINES; i++)
		if (pos_lines[i].pid == pid)
			pos_lines[i].pid = 0;
}

/* Every function forgotten (the cache is full); scripts' lines stay. */
static void drop_all_fns(void)
{
	hmap_free_all(&reg.fns);
	hmap_init(&reg.fns, 1024);
	reg.nfns = 0;
	hmap_free_all(&reg.ptrs);
	hmap_init(&reg.ptrs, 1024);
	reg.nptrs = 0;
}

/* Append a UTF-16 code unit as UTF-8 (surrogates as U+FFFD). */
static size_t put_utf8(char *out, size_t at, size_t cap, uint16_t c)
{
	if (c >= 0xd800 && c < 0xe000)
		c = 0xfffd;
	if (c < 0x80 && at + 1 < cap) {
		out[at++] = (char)c;
	} else if (c < 0x800 && at + 2 < cap) {
		out[at++] = (char)(0xc0 | c >> 6);
		out[at++] = (char)(0x80 | (c & 0x3f));
	} else if (c >= 0x800 && at + 3 < cap) {
		out[at++] = (char)(0xe0 | c >> 12);
		out[at++] = (char)(0x80 | ((c >> 6) & 0x3f));
		out[at++] = (char)(0x80 | (c & 0x3f));
	}
	return at;
}

/*
 * Characters [start, start + count) of V8 string str, appended to out
 * (UTF-8, at most cap - 1 bytes, NUL-terminated) from *at; 0 or -1.
 * Sequential strings are read; ropes, slices and thin strings followed;
 * external strings (node's own modules' sources) are not read.
 */
static int str_range(uint32_t pid, const struct v8_meta *m, uint64_t str, uint32_t start,
		     uint32_t count, char *out, size_t cap, size_t *at, int depth)
{
	int t = v8_type_of(pid, m, str);
	uint64_t a, b, base;
	int32_t len;
	int64_t off;

	if (t < 0 || t >= m->first_nonstring || depth > V8_STR_DEPTH ||
	    v8_rd(pid, str - 1 + m->str_length, &len, sizeof(len)) || len < 0 ||
	    start > (uint32_t)len || count > (uint32_t)len - start)
		return -1;
	/*
	 * An external string (node's own modules' sources, V8 11 on) keeps its
	 * characters outside the heap, their address cached in the word after
	 * the embedder's resource, unless marked uncached (V8's
	 * kUncachedExternalStringMask, 1 << 4: types 50 and 58).
	 */
	if ((t & m->str_repr_mask) == m->str_external) {
		if (t & 0x10 || v8_field(pid, str, m->ext_resource + 8, &a) || !a)
			return -1;
		base = a;
	} else if ((t & m->str_repr_mask) == m->str_seq) {
		base = 0;
	} else {
		base = 1;
	}
	if (base != 1) {
		bool one = (t & m->str_enc_mask) == m->str_one_byte;
		uint64_t at1 = base ? base + start : str - 1 + m->seq1_chars + start;
		uint64_t at2 = base ? base + 2ull * start : str - 1 + m->seq2_chars + 2ull * start;
		uint8_t buf[4096];

		while (count && *at + 1 < cap) {
			uint32_t n = count, i;

			if (n > (one ? sizeof(buf) : sizeof(buf) / 2))
				n = one ? sizeof(buf) : sizeof(buf) / 2;
			if (v8_rd(pid, one ? at1 : at2, buf, one ? n : 2 * n))
				return -1;
			at1 += n;
			at2 += 2ull * n;
			for (i = 0; i < n && *at + 1 < cap; i++) {
				uint16_t c = one ? buf[i] : (uint16_t)(buf[2 * i] | buf[2 * i + 1] << 8);

				*at = put_utf8(out, *at, cap, c);
			}
			start += n;
			count -= n;
		}
		out[*at] = 0;
		return 0;
	}
	if ((t & m->str_repr_mask) == m->str_cons) {
		int32_t flen;

		if (v8_field(pid, str, m->cons_first, &a) || v8_field(pid, str, m->cons_second, &b) ||
		    v8_rd(pid, a - 1 + m->str_length, &flen, sizeof(flen)) || flen < 0 || flen > len)
			return -1;
		if (start < (uint32_t)flen) {
			uint32_t n = count < (uint32_t)flen - start ? count : (uint32_t)flen - start;

			if (str_range(pid, m, a, start, n, out, cap, at, depth + 1))
				return -1;
			start += n;
			count -= n;
		}
		if (!count || *at + 1 >= cap)
			return 0;
		return str_range(pid, m, b, start - flen, count, out, cap, at, depth + 1);
	}
	if ((t & m->str_repr_mask) == m->str_sliced) {
		if (v8_field(pid, str, m->sliced_parent, &a) || v8_field(pid, str, m->sliced_offset, &b) ||
		    !v8_smi(m, b, &off) || off < 0 || off > INT32_MAX)
			return -1;
		return str_range(pid, m, a, start + (uint32_t)off, count, out, cap, at, depth + 1);
	}
	if ((t & m->str_repr_mask) == m->str_thin) {
		if (v8_field(pid, str, m->thin_actual, &a))
			return -1;
		return str_range(pid, m, a, start, count, out, cap, at, depth + 1);
	}
	return -1;
}

/* The whole of string str into out (cut at cap - 1 bytes); 0 or -1. */
static int str_read(uint32_t pid, const struct v8_meta *m, uint64_t str, char *out, size_t cap)
{
	int32_t len;
	size_t at = 0;

	out[0] = 0;
	if (v8_type_of(pid, m, str) < 0 || v8_rd(pid, str - 1 + m->str_length, &len, sizeof(len)) ||
	    len < 0)
		return -1;
	if ((uint32_t)len > cap)
		len = (int32_t)cap;	/* each character is a byte at least */
	return str_range(pid, m, str, 0, (uint32_t)len, out, cap, &at, 0);
}

/* ---- functions ---- */

/*
 * The function's name and where it starts, from its ScopeInfo (every
 * compiled function has one): the function variable's name, else the name
 * V8 inferred (`obj.m = function () {}` is "obj.m"), else none.
 */
static int scope_info(uint32_t pid, const struct v8_meta *m, uint64_t si, char *name, size_t cap,
		      int64_t *start)
{
	uint64_t w[2];
	int64_t flags, nlocals;
	uint32_t slot, raw;
	bool fn_var, inferred;

	*start = -1;
	name[0] = 0;
	if (v8_field(pid, si, 8, &w[0]) || v8_field(pid, si, 24, &w[1]) || !v8_smi(m, w[1], &nlocals) ||
	    nlocals < 0 || nlocals > 65536)
		return -1;
	if (m->si_flags_smi) {
		if (!v8_smi(m, w[0], &flags))
			return -1;
	} else {
		raw = (uint32_t)w[0];
		flags = raw;
	}
	slot = m->si_first_slot;
	if (m->si_pos_first) {
		if (!v8_field(pid, si, 32, &w[0]) && v8_smi(m, w[0], start) && *start < 0)
			*start = -1;
		if ((flags & 15) == m->si_module_type)
			slot++;
	}
	slot += nlocals >= m->si_inline_locals ? 1 + (uint32_t)nlocals : 2 * (uint32_t)nlocals;
	if (flags >> m->si_saved_class_bit & 1)
		slot++;
	fn_var = (flags >> m->si_fn_var_shift & 3) != 0;
	inferred = flags >> m->si_inferred_bit & 1;
	if (fn_var) {
		if (v8_field(pid, si, 8 * slot, &w[0]))
			return -1;
		/* A Smi 0 there: no name of its own. */
		if (v8_is_heap(w[0]))
			str_read(pid, m, w[0], name, cap);
		slot += 2;
	}
	if (inferred) {
		if (v8_field(pid, si, 8 * slot, &w[0]))
			return -1;
		if (!name[0] && v8_is_heap(w[0]))
			str_read(pid, m, w[0], name, cap);
		slot++;
	}
	if (!m->si_pos_first && !v8_field(pid, si, 8 * slot, &w[0]) && v8_smi(m, w[0], start) &&
	    *start < 0)
		*start = -1;
	return 0;
}

/*
 * A script's newlines, read once from its source (within the process's
 * budget), for scripts whose line ends V8 has not computed.
 */
static struct v8_lines *script_lines(struct v8_proc *p, uint64_t script)
{
	struct v8_lines key = { .pid = p->pid, .script = script }, *l;
	const struct v8_meta *m = &p->m;
	uint32_t pid = p->pid;
	int32_t len;
	char *src;
	size_t at = 0, i, cap = 0;
	uint64_t h;

	if (v8_field(pid, script, m->script_source, &key.source))
		return NULL;
	h = hash_u64(script ^ key.source ^ ((uint64_t)pid << 48));
	l = (struct v8_lines *)hmap_find(&reg.lines, h, lines_eq, &key);
	if (l)
		return l;
	if (reg.nlines >= V8_LINES_MAX)
		lines_release_all();
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	*l = key;
	hmap_insert(&reg.lines, &l->node, h);
	if (v8_type_of(pid, m, key.source) < 0 ||
	    v8_rd(pid, key.source - 1 + m->str_length, &len, sizeof(len)) || len < 0 ||
	    (uint32_t)len > V8_SOURCE_MAX || p->source_read + (uint64_t)len > V8_SOURCE_BUDGET)
		return l;
	p->source_read += (uint64_t)len;
	/* UTF-8 of a two-byte source may be 3 bytes a character: lines count the same. */
	src = malloc((size_t)len * 3 + 1);
	if (!src)
		return l;
	if (str_range(pid, m, key.source, 0, (uint32_t)len, src, (size_t)len * 3 + 1, &at, 0) == 0) {
		/* Offsets in characters: count characters, not UTF-8 bytes. */
		uint32_t ch = 0;

		l->ok = true;
		for (i = 0; i < at; i++) {
			if (((unsigned char)src[i] & 0xc0) == 0x80)
				continue;
			if (src[i] == '\n') {
				if (l->n == cap) {
					size_t c = cap ? cap * 2 : 256;
					uint32_t *d = realloc(l->nl, c * sizeof(*d));

					if (!d) {
						l->ok = false;
						break;
					}
					l->nl = d;
					cap = c;
				}
				l->nl[l->n++] = ch;
			}
			ch++;
		}
	}
	reg.nlines += l->n;
	free(src);
	return l;
}

/*
 * The 1-based line of character position pos in the line ends V8 keeps
 * for a script once something asked for a line (a stack trace, the
 * inspector): a FixedArray of Smis, each the position of a '\n' (and the
 * source's length last), searched in place; 0 if there is none.
 */
static uint32_t line_in_line_ends(uint32_t pid, const struct v8_meta *m, uint64_t script,
				  int64_t pos)
{
	uint64_t le, w;
	int64_t n, v;
	uint64_t lo = 0, hi;

	if (v8_field(pid, script, m->script_line_ends, &le) ||
	    v8_type_of(pid, m, le) != m->type_fixed_array ||
	    v8_field(pid, le, m->fixed_array_length, &w) || !v8_smi(m, w, &n) || n <= 0 ||
	    n > (1 << 26))
		return 0;
	hi = (uint64_t)n;
	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (v8_field(pid, le, m->fixed_array_data + 8 * mid, &w) || !v8_smi(m, w, &v))
			return 0;
		if (v < pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < (uint64_t)n ? (uint32_t)lo + 1 : 0;
}

/* The 1-based line of character position pos of script, or 0. */
static uint32_t line_of(struct v8_proc *p, uint64_t script, int64_t pos)
{
	struct v8_lines *l;
	size_t lo = 0, hi;
	uint32_t line;

	if (pos < 0 || pos > UINT32_MAX)
		return 0;
	line = line_in_line_ends(p->pid, &p->m, script, pos);
	if (line)
		return line;
	l = script_lines(p, script);
	if (!l || !l->ok)
		return 0;
	/* Newlines before pos: the line is one more. */
	hi = l->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (l->nl[mid] < (uint32_t)pos)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (uint32_t)lo + 1;
}

/* Names in stacks: no ';' (folded stacks' separator) nor control characters. */
static void clean(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == ';' || *s == 0x7f)
			*s = '?';
}

static const struct v8_name *intern(const char *name, const char *file, uint32_t line)
{
	struct name_key k = { name, file, line };
	uint64_t h = hash_bytes(name, strlen(name), line);
	struct v8_name_node *in;

	if (file)
		h = hash_bytes(file, strlen(file), h);
	in = (struct v8_name_node *)hmap_find(&reg.names, h, name_eq, &k);
	if (in)
		return &in->n;
	in = calloc(1, sizeof(*in) + strlen(name) + 1);
	if (!in)
		return NULL;
	strcpy(in->name, name);
	in->file = file ? strdup(file) : NULL;
	if (file && !in->file) {
		free(in);
		return NULL;
	}
	in->n.name = in->name;
	in->n.file = in->file;
	in->n.line = line;
	hmap_insert(&reg.names, &in->node, h);
	return &in->n;
}

static const struct v8_name *name_fn(struct v8_proc *p, uint64_t nos, uint64_t script)
{
	const struct v8_meta *m = &p->m;
	uint32_t pid = p->pid;
	char name[V8_NAME_MAX], file[V8_NAME_MAX];
	int64_t start = -1;
	int t = v8_type_of(pid, m, nos);
	bool has_file = false;

	name[0] = 0;
	if (t == m->type_scope_info) {
		if (scope_info(pid, m, nos, name, sizeof(name), &start))
			return NULL;
	} else if (t >= 0 && t < m->first_nonstring) {
		if (str_read(pid, m, nos, name, sizeof(name)))
			return NULL;
	} else if (t >= 0 || (nos & 1)) {
		return NULL;	/* a heap object of another kind: not what we read */
	}
	if (v8_type_of(pid, m, script) == m->type_script) {
		uint64_t sname;

		if (!v8_field(pid, script, m->script_name, &sname) && v8_is_heap(sname) &&
		    v8_type_of(pid, m, sname) < m->first_nonstring &&
		    str_read(pid, m, sname, file, sizeof(file)) == 0 && file[0])
			has_file = true;
	}
	if (!name[0])
		strcpy(name, "(anonymous)");
	clean(name);
	clean(file);
	return intern(name, has_file ? file : NULL,
		      has_file && start >= 0 ? line_of(p, script, start) : 0);
}

/* sfi read as a SharedFunctionInfo: its name, cached by what makes it. */
static const struct v8_name *read_sfi(struct v8_proc *p, uint64_t sfi)
{
	const struct v8_meta *m = &p->m;
	uint32_t pid = p->pid;
	struct v8_fn key = { .pid = pid, .sfi = sfi }, *f;
	uint64_t h;

	if (v8_type_of(pid, m, sfi) != m->type_sfi ||
	    v8_field(pid, sfi, m->sfi_name_or_scope, &key.name_or_scope) ||
	    v8_field(pid, sfi, m->sfi_script, &key.script))
		return NULL;
	h = hash_u64(key.sfi ^ (key.name_or_scope * 31) ^ (key.script * 17) ^ ((uint64_t)pid << 48));
	f = (struct v8_fn *)hmap_find(&reg.fns, h, fn_eq, &key);
	if (f)
		return f->name;
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	*f = key;
	f->name = name_fn(p, key.name_or_scope, key.script);
	hmap_insert(&reg.fns, &f->node, h);
	reg.nfns++;
	return f->name;
}

/* Read fn as a function: its SharedFunctionInfo's name. */
static const struct v8_name *read_fn(struct v8_proc *p, uint64_t fn, uint64_t *sfi)
{
	int t = v8_type_of(p->pid, &p->m, fn);

	/* JS_FUNCTION_TYPE and the kinds of function after it (class constructors, ...). */
	if (t < p->m.type_js_function || t >= p->m.type_js_function + 32 ||
	    v8_field(p->pid, fn, p->m.fn_shared, sfi))
		return NULL;
	return read_sfi(p, *sfi);
}

const struct v8_name *v8_names_sfi(uint32_t pid, uint64_t sfi)
{
	struct v8_proc *p = find_proc(pid);

	if (!p || !v8_is_heap(sfi))
		return NULL;
	if (reg.nfns >= V8_FNS_MAX || reg.nptrs >= V8_FNS_MAX)
		drop_all_fns();
	return read_sfi(p, sfi);
}

const struct v8_name *v8_names_sfi_at(uint32_t pid, uint64_t sfi, int64_t pos)
{
	const struct v8_name *def = v8_names_sfi(pid, sfi);
	struct v8_proc *p = find_proc(pid);
	uint64_t script, source;
	struct pos_line *e;

	if (!def || !p || !def->file || pos < 0 ||
	    v8_field(pid, sfi, p->m.sfi_script, &script) ||
	    v8_field(pid, script, p->m.script_source, &source))
		return def;
	e = &pos_lines[hash_u64(script ^ ((uint64_t)pos << 20) ^ ((uint64_t)pid << 48)) %
		       POS_LINES];
	if (e->pid != pid || e->script != script || e->source != source || e->pos != pos) {
		e->pid = pid;
		e->script = script;
		e->source = source;
		e->pos = pos;
		e->line = line_of(p, script, pos);
	}
	return e->line ? intern(def->name, def->file, e->line) : def;
}

const struct v8_meta *v8_names_meta(uint32_t pid)
{
	struct v8_proc *p = find_proc(pid);

	return p ? &p->m : NULL;
}

const struct v8_name *v8_names_frame(uint32_t pid, uint64_t fn, uint64_t sfi)
{
	struct v8_proc *p = find_proc(pid);
	uint64_t at = sfi ? sfi | V8_PTR_SFI : fn;
	struct v8_ptr key = { .pid = pid, .fn = at }, *ptr;
	const struct v8_name *in;
	uint64_t h = hash_u64(at ^ ((uint64_t)pid << 48)), now = 0;
	uint64_t obj = sfi ? sfi : fn;
	uint32_t field;

	if (!p || !v8_is_heap(fn) || (sfi && !v8_is_heap(sfi)))
		return NULL;
	field = sfi ? p->m.sfi_name_or_scope : p->m.fn_shared;
	ptr = (struct v8_ptr *)hmap_find(&reg.ptrs, h, ptr_eq, &key);
	/* Gone (it cannot be read), or still the same: what it was read as. */
	if (ptr && (v8_field(pid, obj, field, &now) || now == ptr->seen))
		return ptr->name;
	if (reg.nfns >= V8_FNS_MAX || reg.nptrs >= V8_FNS_MAX) {
		drop_all_fns();
		ptr = NULL;
	}
	in = sfi ? read_sfi(p, sfi) : read_fn(p, fn, &now);
	if (!in || (sfi && v8_field(pid, obj, field, &now)))
		return NULL;
	if (!ptr) {
		ptr = calloc(1, sizeof(*ptr));
		if (!ptr)
			return in;
		ptr->pid = pid;
		ptr->fn = at;
		hmap_insert(&reg.ptrs, &ptr->node, h);
		reg.nptrs++;
	}
	ptr->seen = now;
	ptr->name = in;
	return in;
}
