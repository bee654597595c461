/* SPDX-License-Identifier: GPL-2.0 */
/* Interpreter frames: what interp_detect.c, interp_python.c and interp_stitch.c share. */
#ifndef STITCH_INTERP_COMMON_H
#define STITCH_INTERP_COMMON_H

#include <gelf.h>

#include "unwind/cfi.h"

#include "interp/interp_user.h"

/* A process running a supported interpreter, as found in its mappings. */
struct interp_proc {
	struct hmap_node node;
	uint32_t pid;
	uint64_t gen;			/* proc->gen when last looked at */
	const struct interp_version *ver;	/* NULL: no interpreter */
	struct binary *eval_bin;	/* holds eval_func */
	uint64_t eval_start, eval_end;	/* its ELF vaddr range */
	uint64_t code_type, unicode_type, bytes_type;	/* python: type objects */
	uint64_t tss_key_addr;		/* python: the runtime's pthread key */
	uint64_t tls_modid, tls_sym;	/* ruby: where the thread's ec is */
	uint64_t rb_symbols;		/* ruby: &ruby_global_symbols, 0 if not found */
	uint64_t rb_cobject;		/* ruby: &rb_cObject (the variable), 0 if not found */
	uint64_t rb_classpath_id;	/* ruby: ID of __classpath__, 0 until found */
	int rb_attached_ok;		/* ruby: the table's ID of __attached__ checked: 1 ok,
					 * -1 wrong (no Klass.meth names), 0 not yet */
	int rb_id_tries;		/* ruby: looks for __classpath__'s ID so far */
	bool retry;			/* found, but not ready yet (ld.so still loading) */
	uint64_t perl_tls_off;		/* perl: my_perl = *(fs_base - perl_tls_off) */
	bool perl_dtv;			/* libperl.so: my_perl = *(dtv[tls_modid].val + tls_sym) */
};

/* A code object read from the target, with the fields that identify it. */
struct interp_code {
	struct hmap_node node;
	uint32_t pid;
	uint64_t addr;
	uint64_t id1, id2;
	uint32_t id3;
	bool valid;			/* false: could not be read or did not match */
	int firsttraceable;
	int firstlineno;
	char *name, *file;
	uint8_t *linetable;
	size_t linetable_len;
	uint8_t *body;			/* ruby: a copy of the iseq body */
	uint8_t rb_kind;		/* ruby: enum rb_label_kind of name */
};

/* ruby: a class's name prefix for its methods, cached per (pid, class). */
struct rb_class {
	struct hmap_node node;
	uint32_t pid;
	uint64_t klass;
	uint64_t symbols;		/* the process's &ruby_global_symbols: a new
					 * program in the same pid has another */
	char prefix[];			/* "Work::Pinger#", "Process.", or "" */
};

/* A binary's .eh_frame_hdr table, to find the function a native frame is in. */
struct interp_cfi {
	struct hmap_node node;
	struct binary *bin;
	struct cfi_hdr_index index;
};

/* ruby: line of (iseq, pc), cached: finding it takes two reads of the target. */
struct interp_line {
	struct hmap_node node;
	uint32_t pid;
	int line;
	uint64_t iseq, body, pc;
};

/*
 * The code object of frame f in process ip, read and checked on first
 * sight, then cached by (pid, address) and revalidated against the
 * identity fields the walker sent.  NULL on allocation failure.
 */
struct interp_code *py_code_get(struct interp_state *st, const struct interp_proc *ip,
				const struct interp_frame *f);

/* Same for Ruby: an iseq, or a C method's entry (name only). */
struct interp_code *rb_code_get(struct interp_state *st, const struct interp_proc *ip,
				const struct interp_frame *f);
/*
 * Name of frame f (code c, valid) as Ruby 3.4 prints it: Class#method,
 * Klass.method, block in Class#method; the bare label when the class is
 * unknown.  Written to buf (or c->name returned).
 */
const char *rb_frame_name(struct interp_state *st, struct interp_proc *ip,
			  const struct interp_code *c, const struct interp_frame *f, char *buf,
			  size_t size);
/* Line of frame f in code c (an iseq), -1 if unknown. */
int rb_frame_line(struct interp_state *st, const struct interp_proc *ip,
		  const struct interp_code *c, const struct interp_frame *f);

/* Shared by the decoders: the code cache. */
struct interp_code *interp_code_slot(struct interp_state *st, uint32_t pid, uint64_t addr,
				     bool *fresh, const struct interp_frame *f);
void interp_code_clear(struct interp_code *c);

/* The walked frames as names, innermost first, and where each group starts. */
struct groups {
	const struct interp_name *names[INTERP_MAX_FRAMES];
	/* ruby C methods: where their C function is, to place them at its frame */
	struct binary *func_bin[INTERP_MAX_FRAMES];
	uint64_t func_addr[INTERP_MAX_FRAMES];	/* 0: not a C method */
	int start[INTERP_MAX_FRAMES + 2];	/* group g: names[start[g] .. start[g+1]) */
	int n, ng;
	bool last_partial;		/* the outermost group was cut short */
};

/* An interned frame name (interp_stitch.c); line <= 0 or --no-lines: none. */
const struct interp_name *interp_intern(struct interp_state *st, uint8_t kind, const char *name,
					const char *file, int line);

/* A defined symbol of an ELF's dynamic symbol table (interp_detect.c). */
bool interp_dynsym_find(Elf *elf, const char *name, uint64_t *value, uint64_t *size);

/*
 * Perl (interp_perl.c): find /usr/bin/perl's runtime in module m; false
 * (and *unsupported naming it, if it is a perl we cannot walk) otherwise.
 */
bool perl_from_module(struct interp_proc *ip, const struct interp_version *v,
		      const struct map *m, char *unsupported, size_t unsupported_len);

/*
 * Perl: cut the walk (ev + its strings, str_len bytes) into groups, one per
 * Perl_runops_standard call, innermost first.
 */
void perl_groups(struct interp_state *st, const struct interp_event *ev, const uint8_t *strs,
		 size_t str_len, struct groups *g);

#endif /* STITCH_INTERP_COMMON_H */
