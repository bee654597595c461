// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbolize/jit_names.h"
#include "symbolize/kallsyms.h"
#include "symbolize/ksym_namer.h"
#include "profile/debug_prefetch.h"
#include "profile/resolve.h"
#include "profile/values_frame.h"
#include "profile/stack_tag.h"
#include "symbolize/symbolize.h"
#include "util/arch.h"
#include "util/array.h"
#include "util/elf_util.h"

#define MAX_INLINE 16

struct frame_key {
	struct binary *bin;
	uint64_t addr;
	uint8_t exact;
};

struct cached_frame {
	struct hmap_node node;
	struct frame_key key;
	int n;				/* innermost first, like sym_source_lookup */
	struct named_frame f[];
};

static bool frame_eq(const struct hmap_node *n, const void *key)
{
	const struct frame_key *a = &((const struct cached_frame *)n)->key, *b = key;

	return a->bin == b->bin && a->addr == b->addr && a->exact == b->exact;
}

int resolver_init(struct resolver *r, struct kallsyms *ks)
{
	memset(r, 0, sizeof(*r));
	r->ks = ks;
	r->verbose = getenv("STITCH_DEBUG") != NULL;
	return hmap_init(&r->cache, 4096);
}

void resolver_release_gone(struct resolver *r, struct binary_cache *bins)
{
	r->release_gone = bins;
}

void resolver_name_kernel_lazily(struct resolver *r, const char *path)
{
	r->ks = NULL;
	r->ks_path = path;
	r->ks_tried = false;
}

void resolver_name_kernel_shared(struct resolver *r, const char *path, struct ksym_namer **kn,
				 bool *tried)
{
	resolver_name_kernel_lazily(r, path);
	r->shared_kn = kn;
	r->shared_kn_tried = tried;
}

/* The namer's program: the caller's if shared (opened once), else ours. */
static struct ksym_namer *kernel_namer_open(struct resolver *r)
{
	if (!r->shared_kn)
		return ksym_namer_open();
	if (!*r->shared_kn_tried) {
		*r->shared_kn_tried = true;
		*r->shared_kn = ksym_namer_open();
	}
	return *r->shared_kn;
}

static void kernel_namer_close(struct resolver *r)
{
	if (!r->shared_kn)
		ksym_namer_close(r->kn);
	r->kn = NULL;
}

/* A kernel address named by the kernel (with r->kn). */
struct kname {
	struct hmap_node node;
	uint64_t addr;
	bool exact;
	bool queued;		/* in a batch being gathered */
	bool done;		/* name and module are set */
	const char *name;	/* NULL: the kernel knows no symbol there */
	const char *module;
};

static bool kname_eq(const struct hmap_node *n, const void *key)
{
	const struct kname *a = (const struct kname *)n, *b = key;

	return a->addr == b->addr && a->exact == b->exact;
}

static uint64_t kname_hash(uint64_t addr, bool exact)
{
	return hash_u64(addr ^ (exact ? 0x9e3779b97f4a7c15ull : 0));
}

/* At the first kernel frame: the kernel names them if it can, else the kallsyms file. */
static void start_kernel_naming(struct resolver *r)
{
	r->ks_tried = true;
	r->kn = kernel_namer_open(r);
	if (r->kn) {
		if (!hmap_init(&r->knames, 1024))
			return;
		kernel_namer_close(r);
	}
	r->ks = kallsyms_load(r->ks_path);
	if (!r->ks)
		fprintf(stderr, "stitch: cannot read %s: kernel frames stay addresses\n", r->ks_path);
	else if (kallsyms_all_zero(r->ks))
		fprintf(stderr, "stitch: %s hides addresses (kernel.kptr_restrict): "
			"kernel frames stay addresses\n", r->ks_path);
}

void resolver_free(struct resolver *r)
{
	size_t i;

	if (r->ks_path)
		kallsyms_free(r->ks);
	if (r->kn) {
		hmap_free_all(&r->knames);
		kernel_namer_close(r);
	}
	hmap_free_all(&r->cache);
	for (i = 0; i < r->nstrings; i++)
		free(r->strings[i]);
	free(r->strings);
}

static const char *keep_string(struct resolver *r, char *s)
{
	if (!s)
		return "[unknown]";
	if (r->nstrings == r->capstrings) {
		size_t cap = r->capstrings ? r->capstrings * 2 : 256;
		char **v = realloc(r->strings, cap * sizeof(*v));

		if (!v) {
			free(s);
			return "[unknown]";
		}
		r->strings = v;
		r->capstrings = cap;
	}
	r->strings[r->nstrings++] = s;
	return s;
}

static const char *format_string(struct resolver *r, const char *fmt, const char *a, uint64_t v)
{
	char *s = NULL;

	if (asprintf(&s, fmt, a, (unsigned long long)v) < 0)
		s = NULL;
	return keep_string(r, s);
}

static uint64_t frame_hash(const struct uframe *u)
{
	return hash_u64((uintptr_t)u->bin ^ hash_u64(u->addr) ^ u->exact);
}

static struct cached_frame *resolve_user(struct resolver *r, const struct uframe *u)
{
	struct frame_key key = { u->bin, u->addr, u->exact };
	uint64_t h = frame_hash(u);
	struct sym_frame sf[MAX_INLINE];
	struct cached_frame *c;
	struct sym_source *syms;
	const char *label;
	uint64_t at;
	int n = 0, i;

	c = (struct cached_frame *)hmap_find(&r->cache, h, frame_eq, &key);
	if (c)
		return c;
	/* A return address points after the call: name the call itself. */
	syms = binary_syms(u->bin);
	at = u->exact ? u->addr : u->addr - 1;
	if (syms)
		n = sym_source_lookup(syms, at, sf, MAX_INLINE);
	c = malloc(sizeof(*c) + (n ? n : 1) * sizeof(c->f[0]));
	if (!c)
		return NULL;
	c->key = key;
	if (n <= 0 && syms && at >= u->bin->entry_lo && at < u->bin->entry_hi &&
	    (label = sym_source_entry_label(syms, u->bin->entry_lo, at))) {
		c->n = 1;
		c->f[0].name = label;
		c->f[0].file = NULL;
		c->f[0].line = 0;
		c->f[0].kind = FRAME_USER;
	} else if (n <= 0) {
		c->n = 1;
		c->f[0].name = format_string(r, "%s+0x%llx", u->bin->name, u->addr);
		c->f[0].file = NULL;
		c->f[0].line = 0;
		c->f[0].kind = FRAME_USER;
	} else {
		c->n = n;
		for (i = 0; i < n; i++) {
			c->f[i].name = sf[i].name;
			c->f[i].file = sf[i].file;
			c->f[i].line = sf[i].line;
			c->f[i].kind = sf[i].inlined ? FRAME_INLINED : FRAME_USER;
		}
	}
	hmap_insert(&r->cache, &c->node, h);
	return c;
}

/* A copy of s kept as long as r; NULL stays NULL. */
static const char *keep_copy(struct resolver *r, const char *s)
{
	return s ? keep_string(r, strdup(s)) : NULL;
}

static int by_binary(const void *x, const void *y)
{
	uintptr_t a = (uintptr_t)(*(const struct uframe *const *)x)->bin;
	uintptr_t b = (uintptr_t)(*(const struct uframe *const *)y)->bin;

	return a < b ? -1 : a > b;
}

/* Appends to *v the ELF frames of u[0..n) not named yet; -ENOMEM. */
static int add_unnamed(struct resolver *r, const struct uframe *u, int n,
		       const struct uframe ***v, size_t *len, size_t *cap)
{
	int i;

	for (i = 0; i < n; i++) {
		struct frame_key key = { u[i].bin, u[i].addr, u[i].exact };
		if (u[i].kind != UFRAME_ELF || hmap_find(&r->cache, frame_hash(&u[i]), frame_eq, &key))
			continue;
		if (array_reserve((void **)v, cap, *len + 1, sizeof(**v), 1024))
			return -ENOMEM;
		(*v)[(*len)++] = &u[i];
	}
	return 0;
}

/*
 * The symbols of live processes' binaries kept open between periods, at
 * most about this many bytes of their files.  An agent names each
 * period's frames, and kept every binary's symbols and DWARF that a live
 * process mapped at that moment: under a churn of short-lived binaries
 * with DWARF (bench/agent_churn.sh MIXED=30) that was 25 to 30 of them at
 * once, ~2.5 MB each, peaks of 150 MB where the floor is 85.
 */
#define LIVE_SYMS_BUDGET (16u << 20)

/*
 * The frames not named yet named binary by binary, each frame's names
 * copied, and the binary's symbols, DWARF and file pages let go before the
 * next one's are read when no live process maps it (exited processes'),
 * or when it is new (named in no earlier period) and the symbols kept open
 * are over LIVE_SYMS_BUDGET: a short-lived process's binary is rarely
 * named twice, a long-running one's (node, a JVM) is opened again at most
 * once.  Named stack by stack, every such binary of a period held its
 * symbols at once: an agent's RSS went to 370-600 MB while 10 short-lived
 * binaries with DWARF a second ran (tests/workloads/named_brief.c), at
 * ~2.7 MB each held over a 15 s period and its processes' grace.  A
 * binary whose processes come again and again (a build's cc1 and as, a
 * script's python3), named in two periods or more, keeps its symbols
 * while a process mapped it lately (binary_cache_sweep lets its file and
 * them go after the grace): read again each period, their symbols were
 * 20% of an agent's CPU over a build's churn (31 of 151 samples).
 */
static void name_binary_by_binary(struct resolver *r, struct stack_table *t)
{
	const struct uframe **v = NULL;
	size_t len = 0, cap = 0, i, j;
	struct hmap_node *hn;
	uint64_t open_bytes;
	int k;

	if (!r->release_gone)
		return;
	hmap_for_each(&t->map, i, hn) {
		const struct stack_key *key = &((const struct stack *)hn)->key;

		if (add_unnamed(r, stack_user(key), key->nuser, &v, &len, &cap) ||
		    add_unnamed(r, stack_waker(key), key->nwaker, &v, &len, &cap))
			goto out;
	}
	if (!len)
		goto out;
	open_bytes = binary_cache_syms_bytes(r->release_gone);
	qsort(v, len, sizeof(*v), by_binary);
	for (i = 0; i < len; i = j) {
		struct binary *b = v[i]->bin;
		bool was_open = b->syms_opened;

		for (j = i; j < len && v[j]->bin == b; j++) {
			struct cached_frame *c = resolve_user(r, v[j]);

			for (k = 0; c && k < c->n; k++) {
				c->f[k].name = keep_copy(r, c->f[k].name);
				c->f[k].file = keep_copy(r, c->f[k].file);
			}
		}
		if (!was_open && b->syms_opened) {
			open_bytes += b->size;
			if (r->verbose)
				fprintf(stderr, "stitch: symbols of %s read to name its frames\n",
					b->path);
		}
		if (b->periods_named < UINT_MAX)
			b->periods_named++;
		if (!binary_recurs(b) &&
		    (binary_cache_is_gone(r->release_gone, b) || open_bytes > LIVE_SYMS_BUDGET)) {
			if (b->syms_opened)
				open_bytes -= b->size;
			binary_cache_release_syms(r->release_gone, b);
		} else {
			binary_drop_pages(b);
		}
	}
out:
	free(v);
}

/* The cache entry of (addr, exact), created unnamed if new; NULL if out of memory. */
static struct kname *kname_get(struct resolver *r, uint64_t addr, bool exact)
{
	struct kname key = { .addr = addr, .exact = exact }, *k;
	bool added;

	k = (struct kname *)hmap_find_or_add(&r->knames, kname_hash(addr, exact), kname_eq, &key,
					     sizeof(*k), &added);
	if (k && added) {
		k->addr = addr;
		k->exact = exact;
	}
	return k;
}

/* A BPF program's symbol: bpf_prog_<16 hex digits of its tag>[_name]. */
static bool is_bpf_prog_symbol(const char *name)
{
	size_t i;

	if (strncmp(name, "bpf_prog_", 9) != 0)
		return false;
	for (i = 9; i < 25; i++)
		if (!name[i] || !strchr("0123456789abcdef", name[i]))
			return false;
	return name[25] == '\0' || name[25] == '_';
}

/* Name v[0..n) through the kernel, KSYM_BATCH per call. */
static void kname_fill(struct resolver *r, struct kname **v, size_t n)
{
	uint64_t addrs[KSYM_BATCH];
	bool exact[KSYM_BATCH];
	const char *name[KSYM_BATCH], *mod[KSYM_BATCH];
	size_t done, i, k;

	for (done = 0; done < n; done += k) {
		k = n - done < KSYM_BATCH ? n - done : KSYM_BATCH;
		for (i = 0; i < k; i++) {
			addrs[i] = v[done + i]->addr;
			exact[i] = v[done + i]->exact;
		}
		if (ksym_namer_name(r->kn, addrs, exact, k, name, mod))
			for (i = 0; i < k; i++)
				name[i] = "";	/* unknown: the address is shown */
		for (i = 0; i < k; i++) {
			struct kname *kn = v[done + i];

			kn->done = true;
			kn->queued = false;
			if (!name[i][0])
				continue;
			kn->name = keep_string(r, strdup(name[i]));
			/* As /proc/kallsyms says: modules "[ext4]", BPF programs "[bpf]". */
			if (mod[i])
				kn->module = keep_string(r, strdup(mod[i]));
			else if (is_bpf_prog_symbol(name[i]))
				kn->module = "[bpf]";
		}
	}
}

/*
 * Name every kernel address of t in a few kernel calls, before the stacks
 * are resolved one by one.  The innermost frame of a kernel stack is where
 * the event happened (exact); the others are return addresses.
 */
static void kname_prefetch(struct resolver *r, struct stack_table *t)
{
	struct kname **v = NULL, **nv;
	size_t n = 0, cap = 0, i;
	struct hmap_node *hn;
	int j;

	if (!r->ks_path)
		return;
	hmap_for_each(&t->map, i, hn) {
		const struct stack_key *key = &((const struct stack *)hn)->key;
		const uint64_t *kern = stack_kernel(key);

		for (j = 0; j < key->nkernel; j++) {
			struct kname *k;

			if (stack_kernel_is_tag(kern[j]))
				continue;
			if (!r->ks_tried)
				start_kernel_naming(r);
			if (!r->kn)
				goto out;
			k = kname_get(r, kern[j], j == 0);
			if (!k || k->done || k->queued)
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				nv = realloc(v, cap * sizeof(*v));
				if (!nv)
					goto out;
				v = nv;
			}
			k->queued = true;
			v[n++] = k;
		}
	}
out:
	if (r->kn)
		kname_fill(r, v, n);
	free(v);
}

/* Kernel symbol of addr; *module is "[mod]" for module code, else NULL. */
static const char *kernel_name(struct resolver *r, uint64_t addr, bool exact,
			       const char **module)
{
	const char *name = NULL;
	uint64_t off;

	*module = NULL;
	if (r->ks_path && !r->ks_tried)
		start_kernel_naming(r);
	if (r->kn) {
		struct kname *k = kname_get(r, addr, exact);

		if (k && !k->done)
			kname_fill(r, &k, 1);
		if (k && k->name) {
			*module = k->module;
			return k->name;
		}
	} else if (r->ks) {
		name = kallsyms_lookup(r->ks, addr, module, &off);
	}
	if (name)
		return name;
	return format_string(r, "%s0x%llx", "", addr);
}

static int put(struct named_frame *out, int n, int max, const char *name, const char *file,
	       unsigned int line, uint8_t kind)
{
	if (n >= max)
		return n;
	out[n].name = name;
	out[n].file = file;
	out[n].line = line;
	out[n].kind = kind;
	out[n].module = NULL;
	out[n].addr = 0;
	return n + 1;
}

/* Like put(), for a frame with a known module and address. */
static int put_at(struct named_frame *out, int n, int max, const char *name, const char *file,
		  unsigned int line, uint8_t kind, const char *module, uint64_t addr)
{
	int m = put(out, n, max, name, file, line, kind);

	if (m > n) {
		out[n].module = module;
		out[n].addr = addr;
	}
	return m;
}

/*
 * A pc in no binary, named by the perf map of the process (pid; 0: none
 * to ask), as JIT code; else [unknown].
 */
static int put_unknown(const struct uframe *u, uint32_t pid, struct named_frame *out, int n,
		       int max)
{
	const char *name = pid && u->kind == UFRAME_UNKNOWN ? jit_names_find(pid, u->addr) : NULL;

	if (!name)
		return put(out, n, max, "[unknown]", NULL, 0, FRAME_MARK);
	/* The map's names move as it grows: keep a copy that lasts. */
	name = stacks_name(name);
	if (!name)
		return put(out, n, max, "[unknown]", NULL, 0, FRAME_MARK);
	return put_at(out, n, max, name, NULL, 0, FRAME_JIT, FRAME_JIT_MODULE, u->addr);
}

/*
 * One stored frame, as the frames it stands for (inlined ones too).
 * inner_first: the waker's section is drawn innermost first, so its
 * inlined frames come in that order too.  pid: whose perf map names JIT
 * frames (0: none).
 */
static int put_uframe(struct resolver *r, const struct uframe *u, struct named_frame *out,
		      int n, int max, bool inner_first, uint32_t pid)
{
	struct cached_frame *c;
	const char *module, *name;
	int j;

	switch (u->kind) {
	case UFRAME_TRUNCATED:
		return put(out, n, max, "[truncated]", NULL, 0, FRAME_MARK);
	case UFRAME_UNREADABLE:
		return put(out, n, max, "[user stack unreadable]", NULL, 0, FRAME_MARK);
	case UFRAME_CUT:
	case UFRAME_UNKNOWN:
		return put_unknown(u, pid, out, n, max);
	case UFRAME_NAME:
		return put(out, n, max, (const char *)(uintptr_t)u->addr, NULL, 0, FRAME_MARK);
	case UFRAME_VALUES:
		return put_at(out, n, max, (const char *)(uintptr_t)u->addr, NULL, 0, FRAME_MARK,
			      FRAME_VALUES_MODULE, 0);
	case UFRAME_JIT:
		return put_at(out, n, max, (const char *)(uintptr_t)u->addr, NULL, 0, FRAME_JIT,
			      FRAME_JIT_MODULE, 0);
	case UFRAME_KERNEL:
		name = kernel_name(r, u->addr, false, &module);
		return put_at(out, n, max, name, module, 0, FRAME_KERNEL,
			      module ? module : "[kernel]", u->addr);
	case UFRAME_INTERP: {
		const struct interp_name *in = (const struct interp_name *)(uintptr_t)u->addr;

		return put(out, n, max, in->name, in->file, in->line, in->kind);
	}
	case UFRAME_ELF:
		c = resolve_user(r, u);
		if (!c)
			return put(out, n, max, "[unknown]", NULL, 0, FRAME_MARK);
		for (j = 0; j < c->n; j++) {
			int at = inner_first ? j : c->n - 1 - j;

			n = put_at(out, n, max, c->f[at].name, c->f[at].file, c->f[at].line,
				   c->f[at].kind, u->bin->path, u->addr);
		}
		return n;
	}
	return n;
}

/*
 * Frames of the BPF program that took an off-CPU or waker stack, and of the
 * tracepoint that ran it: ours, not the thread's.  Left out only of those
 * stacks; in a CPU profile they are real work.
 */
static bool tracing_glue(const char *name)
{
	return !strncmp(name, "bpf_prog_", 9) || !strncmp(name, "bpf_trace_run", 13) ||
	       !strncmp(name, "__traceiter_", 12) || !strncmp(name, "__bpf_trace_", 12);
}

/*
 * The kernel's softirq loop (handle_softirqs since 6.8, __do_softirq
 * before).  Pending softirqs run where bottom halves are enabled again: at
 * an interrupt's exit (an asm_* stub below, handled as the interrupt), in
 * ksoftirqd, or in whatever thread calls local_bh_enable().  There the
 * thread is only the stack the softirq ran on: a loopback TCP send runs the
 * receive that wakes its peer (its own doing), but a timer that fired
 * while some other thread had bottom halves off runs there too (seen:
 * "[woken by stitch tid N]" for a sleeper of another process).
 */
static bool softirq_frame(const char *name)
{
	return !strcmp(name, "handle_softirqs") || !strcmp(name, "__do_softirq");
}

/*
 * "[woken by COMM tid N]" said of a softirq's host thread as what it is:
 * "[softirq in COMM tid N]", its frames below the softirq's kept.
 */
static int put_softirq_who(struct named_frame *out, int n, int max, const char *who)
{
	static const char prefix[] = "[woken by ";
	char buf[96];

	if (strncmp(who, prefix, sizeof(prefix) - 1) != 0)
		return put(out, n, max, who, NULL, 0, FRAME_MARK);
	snprintf(buf, sizeof(buf), "[softirq in %s", who + sizeof(prefix) - 1);
	return put(out, n, max, stacks_name(buf), NULL, 0, FRAME_MARK);
}

int resolve_jit_frames(uint32_t pid, struct uframe *uf, int n, int cap)
{
	bool cut = n && uf[n - 1].kind == UFRAME_UNKNOWN;
	const char *name;
	int i;

	for (i = 0; i < n; i++) {
		if (uf[i].kind != UFRAME_UNKNOWN)
			continue;
		name = jit_names_find(pid, uf[i].addr);
		name = name ? stacks_name(name) : NULL;
		if (!name)
			continue;
		uf[i].kind = UFRAME_JIT;
		uf[i].addr = (uint64_t)(uintptr_t)name;
	}
	/* As resolve_stack shows it: the walk stopped there. */
	if (cut && uf[n - 1].kind == UFRAME_JIT && n < cap) {
		memset(&uf[n], 0, sizeof(uf[n]));
		uf[n++].kind = UFRAME_CUT;
	}
	return n;
}

int resolve_stack(struct resolver *r, const struct stack_key *k, struct named_frame *out, int max)
{
	bool ours = k->nkernel && stack_kernel_is_tag(stack_kernel(k)[0]);
	const struct uframe *user = stack_user(k);
	const uint64_t *kern = stack_kernel(k);
	int n = 0, i;

	/*
	 * User frames are stored innermost first: walk them backwards.  A
	 * stack whose walk stopped in a pc of no binary ends in it, with no
	 * marker after (copy_unwind.c, kunwind_decode): named as JIT code, it
	 * would look complete, so the cut is shown outside it.
	 */
	i = k->nuser - 1;
	if (k->nuser && user[i].kind == UFRAME_UNKNOWN) {
		struct named_frame outermost;

		if (put_unknown(&user[i], k->pid, &outermost, 0, 1) && outermost.kind == FRAME_JIT)
			n = put(out, n, max, "[unknown]", NULL, 0, FRAME_MARK);
		if (n < max)
			out[n++] = outermost;
		i--;
	}
	for (; i >= 0; i--)
		n = put_uframe(r, &user[i], out, n, max, false, k->pid);
	for (i = k->nkernel - 1; i >= 0; i--) {
		const char *module, *name;

		if (stack_kernel_is_tag(kern[i])) {
			if (kern[i] != STACK_TAG_GLUE)
				n = put(out, n, max, offcpu_tag_name(kern[i]), NULL, 0, FRAME_MARK);
			continue;
		}
		/* After a tag, the innermost kernel frame is a return address too. */
		name = kernel_name(r, kern[i], i == 0, &module);
		if (ours && tracing_glue(name))
			continue;

		/* For kernel frames, file holds the module ("[ext4]"), if any. */
		n = put_at(out, n, max, name, module, 0, FRAME_KERNEL,
			   module ? module : "[kernel]", kern[i]);
	}
	/*
	 * Who woke the thread stands above its blocked stack, past a "--", its
	 * innermost frame (the wakeup) first, as offwaketime draws it.
	 */
	if (k->nwaker) {
		const struct uframe *w = stack_waker(k);
		bool softirq = false;

		n = put(out, n, max, "--", NULL, 0, FRAME_MARK);
		for (i = 0; i < k->nwaker; i++) {
			int m;

			if (w[i].kind == UFRAME_NAME && softirq) {
				n = put_softirq_who(out, n, max, (const char *)(uintptr_t)w[i].addr);
				continue;
			}
			m = put_uframe(r, &w[i], out, n, max, true, 0);

			/*
			 * Below an interrupt's entry (x86-64's asm_* stubs,
			 * arm64's vectors) is the thread the interrupt stopped,
			 * which woke nobody.  The interrupt's own frames stay.
			 */
			if (w[i].kind == UFRAME_KERNEL && m > n && tracing_glue(out[n].name))
				continue;
			if (w[i].kind == UFRAME_KERNEL && m > n &&
			    stitch_kframe_irq_entry(out[n].name)) {
				n = put(out, n, max, "[woken by an interrupt]", NULL, 0, FRAME_MARK);
				break;
			}
			if (w[i].kind == UFRAME_KERNEL && m > n && softirq_frame(out[n].name))
				softirq = true;
			n = m;
		}
	}
	return n;
}

/* Intern one resolved frame. */
static uint32_t intern_frame(struct profile *p, const struct named_frame *nf)
{
	struct prof_frame f = {
		.name = profile_str(p, nf->name),
		.file = nf->kind == FRAME_KERNEL ? 0 : profile_str(p, nf->file),
		.line = nf->line,
		.module = profile_str(p, nf->module),
		.addr = nf->addr,
		.kind = nf->kind,
	};

	if (f.name == UINT32_MAX || f.file == UINT32_MAX || f.module == UINT32_MAX)
		return UINT32_MAX;
	return profile_frame(p, &f);
}

static int note_modules(struct profile *p, const struct stack_key *k)
{
	const struct uframe *u = stack_user(k);
	char hex[2 * STITCH_BUILD_ID_MAX + 1];
	int i;

	for (i = 0; i < k->nuser; i++) {
		if (u[i].kind != UFRAME_ELF || !u[i].bin->build_id_len)
			continue;
		build_id_hex(u[i].bin->build_id, u[i].bin->build_id_len, hex);
		if (profile_module(p, u[i].bin->path, hex))
			return -ENOMEM;
	}
	return 0;
}

void resolver_name_all(struct resolver *r, struct stack_table *t)
{
	kname_prefetch(r, t);
	debug_prefetch_stacks(t);
	name_binary_by_binary(r, t);
}

int profile_from_stacks(struct profile *p, struct stack_table *t, struct resolver *r,
			const char *const *event_names, int nevents)
{
	struct named_frame *nf = malloc(RESOLVE_MAX_FRAMES * sizeof(*nf));
	uint32_t *ids = malloc(RESOLVE_MAX_FRAMES * sizeof(*ids));
	struct hmap_node *hn;
	int rc = 0;
	size_t i;

	if (!nf || !ids) {
		rc = -ENOMEM;
		goto out;
	}
	resolver_name_all(r, t);
	hmap_for_each(&t->map, i, hn) {
		const struct stack *s = (const struct stack *)hn;
		char comm[STITCH_COMM_LEN + 1];
		struct prof_sample labels = { 0 };
		int n = resolve_stack(r, &s->key, nf, RESOLVE_MAX_FRAMES), j;

		for (j = 0; j < n; j++) {
			ids[j] = intern_frame(p, &nf[j]);
			if (ids[j] == UINT32_MAX) {
				rc = -ENOMEM;
				goto out;
			}
		}
		memcpy(comm, s->key.comm, STITCH_COMM_LEN);
		comm[STITCH_COMM_LEN] = '\0';
		labels.comm = profile_str(p, comm[0] ? comm : "[unknown]");
		labels.event = profile_str(p, s->key.event_idx < (uint32_t)nevents ?
					   event_names[s->key.event_idx] : "?");
		labels.pid = s->key.pid;
		labels.tid = s->key.tid;
		labels.count = s->count;
		labels.objects = s->objects;
		if (labels.comm == UINT32_MAX || labels.event == UINT32_MAX ||
		    profile_add_sample(p, ids, n, &labels) || note_modules(p, &s->key)) {
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = profile_merge_samples(p);
out:
	free(nf);
	free(ids);
	return rc;
}

void resolve_frame_line(FILE *f, const struct named_frame *nf, const char *name,
			const char *sep)
{
	fprintf(f, "%s%s", name, frame_line_mark(nf->kind));
	if (nf->kind == FRAME_KERNEL && nf->file)
		fprintf(f, "%s%s", sep, nf->file);
	else if (nf->kind != FRAME_KERNEL && nf->file && nf->line)
		fprintf(f, "%s(%s:%u)", sep, path_base(nf->file), nf->line);
	else if (nf->kind != FRAME_KERNEL && nf->file)	/* line unknown */
		fprintf(f, "%s(%s)", sep, path_base(nf->file));
}
