// SPDX-License-Identifier: GPL-2.0
/* JIT frames named from their runtime's own data: see jit_frames.h. */
#include <stdlib.h>
#include <string.h>

#include "symbolize/v8_bytecode.h"
#include "symbolize/v8_inlined.h"
#include "symbolize/v8_names.h"
#include "profile/jit_frames.h"
#include "profile/profile.h"
#include "util/hashmap.h"

/* v8_names' names (kept for the program's life) as the frames stacks hold. */
struct held {
	struct hmap_node node;
	const struct v8_name *v8;
	struct interp_name *in;
};

static struct hmap held;
/* --no-lines: one function is one frame, 'name (file)'. */
static bool no_lines;

void jit_frames_no_lines(bool on)
{
	no_lines = on;
}

static bool held_eq(const struct hmap_node *n, const void *key)
{
	return ((const struct held *)n)->v8 == key;
}

static const struct interp_name *frame_name(const struct v8_name *v)
{
	uint64_t h = hash_u64((uintptr_t)v);
	struct held *e;

	if (!held.buckets && hmap_init(&held, 256))
		return NULL;
	e = (struct held *)hmap_find(&held, h, held_eq, v);
	if (e)
		return e->in;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->in = calloc(1, sizeof(*e->in) + strlen(v->name) + 1);
	if (!e->in) {
		free(e);
		return NULL;
	}
	strcpy(e->in->name, v->name);
	/* Both live as long as the program: v8_names keeps the file. */
	e->in->file = (char *)v->file;
	e->in->line = no_lines ? 0 : v->line;
	e->in->kind = FRAME_JIT;
	e->v8 = v;
	hmap_insert(&held, &e->node, h);
	return e->in;
}

/* Names by their text: HotSpot's (symbolize/hotspot_names.c interns name and file). */
struct named {
	struct hmap_node node;
	struct interp_name *in;
};

struct named_key {
	const char *name, *file;
	uint32_t line;
};

static struct hmap named;

static bool named_eq(const struct hmap_node *n, const void *key)
{
	const struct interp_name *in = ((const struct named *)n)->in;
	const struct named_key *k = key;

	return in->line == k->line && !strcmp(in->name, k->name) &&
	       (in->file && k->file ? !strcmp(in->file, k->file) : in->file == k->file);
}

const struct interp_name *jit_frame_name(const char *name, const char *file, uint32_t line)
{
	struct named_key k = { name, file, no_lines ? 0 : line };
	uint64_t h = hash_bytes(name, strlen(name), k.line) ^
		     (file ? hash_bytes(file, strlen(file), 1) : 0);
	struct named *e;

	if (!named.buckets && hmap_init(&named, 1024))
		return NULL;
	e = (struct named *)hmap_find(&named, h, named_eq, &k);
	if (e)
		return e->in;
	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->in = calloc(1, sizeof(*e->in) + strlen(name) + 1);
	if (!e->in || (file && !(e->in->file = strdup(file)))) {
		free(e->in);
		free(e);
		return NULL;
	}
	strcpy(e->in->name, name);
	e->in->line = k.line;
	e->in->kind = FRAME_JIT;
	hmap_insert(&named, &e->node, h);
	return e->in;
}

/*
 * An interpreted frame that made a call (its pc a return address in node's
 * binary), named at the line of that call from the bytecode offset its
 * frame kept (bco); NULL where that is not known.  A builtin with a
 * JavaScript frame (Array.prototype.forEach's) runs no bytecode: none.
 */
static const struct interp_name *interpreted_at_call(uint32_t pid, uint64_t sfi, uint64_t bco)
{
	const struct v8_meta *m;
	const struct v8_name *v;
	int64_t pos;

	if (no_lines || !bco || !sfi || !(m = v8_names_meta(pid)))
		return NULL;
	pos = v8_bytecode_position(pid, m, sfi, bco);
	v = pos >= 0 ? v8_names_sfi_at(pid, sfi, pos) : NULL;
	return v ? frame_name(v) : NULL;
}

int jit_frames_v8(uint32_t pid, uint64_t fn, uint64_t sfi, uint64_t bco, struct uframe *uf, int at,
		  int max)
{
	const struct v8_name *v = at ? v8_names_frame(pid, fn, sfi) : NULL;
	const struct interp_name *in = v ? frame_name(v) : NULL;
	const struct interp_name *names[V8_INLINED_MAX + 1];
	const struct v8_name *chain[V8_INLINED_MAX + 1];
	struct uframe *f;
	int n = 0, i;

	if (!in)
		return at;
	f = &uf[at - 1];
	if (f->exact && f->kind == UFRAME_ELF) {
		/*
		 * A builtin at the leaf, on the frame of a function whose code
		 * is optimized: TurboFan calls some builtins that build no
		 * frame, and when the walk could not step to their return
		 * address (ku_v8_frameless_leaf: the pc's code not yet in the
		 * kernel's mapping list), the caller's pc, and the functions
		 * inlined there, are missing.  An [unknown] frame says so,
		 * never the function right over the builtin (0-3 samples of
		 * ~230 a run of closures.js beside a busy machine).  A bytecode
		 * handler on an interpreted frame of a function optimized
		 * since gets one too: unknown, not wrong.
		 */
		if (at + 1 < max && v8_fn_optimized(pid, fn)) {
			memset(&uf[at], 0, sizeof(uf[at]));
			uf[at].kind = UFRAME_NAME;
			uf[at].addr = (uint64_t)(uintptr_t)"[unknown]";
			at++;
		}
		f = &uf[at++];
	} else if (f->kind == UFRAME_UNKNOWN) {
		/*
		 * Its code's: what TurboFan or Maglev inlined at its pc,
		 * innermost first, then its own function, each at its line.
		 */
		n = v8_inlined_at(pid, fn, sfi, f->addr, f->exact, chain);
		if (at + n - 1 > max)
			n = 0;
		for (i = 0; i < n; i++) {
			names[i] = frame_name(chain[i]);
			if (!names[i])
				n = 0;
		}
		/* Its own function, at its line, is the frame's name. */
		if (n)
			in = names[--n];
	} else if (f->kind == UFRAME_ELF && !(at >= 2 && uf[at - 2].exact &&
					       uf[at - 2].kind == UFRAME_ELF)) {
		/*
		 * Not right over a leaf in a binary: a bytecode handler that
		 * built a frame of its own (TurboFan builds one for a handler
		 * that may call out, JumpLoop's), whose interpreted frame's
		 * slot is as stale as a frameless handler's (a loop's line
		 * in 79 of 318 samples of calls.js, right by chance).
		 */
		const struct interp_name *call = interpreted_at_call(pid, sfi, bco);

		if (call)
			in = call;
	}
	names[n] = in;
	for (i = 0; i <= n; i++) {
		memset(&f[i], 0, sizeof(f[i]));
		f[i].kind = UFRAME_INTERP;
		f[i].addr = (uint64_t)(uintptr_t)names[i];
	}
	return at + n;
}
