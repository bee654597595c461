/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Ruby: the language module.  ruby_detect.c finds the VM in libruby,
 * ruby.c names frames, ruby_lines.c finds their lines, ruby_versions.c
 * lists the layouts; the walker is ruby.bpf.h.
 */
#ifndef STITCH_INTERP_RUBY_H
#define STITCH_INTERP_RUBY_H

#include "interp/interp_internal.h"

extern const struct interp_ops ruby_ops;
extern const struct interp_version ruby_versions[];

/* What naming needs of a process (interp_proc_priv), beside ip->cfg. */
struct ruby_proc {
	uint64_t symbols;		/* &ruby_global_symbols, 0 if not found */
	uint64_t cobject;		/* &rb_cObject (the variable), 0 if not found */
	uint64_t classpath_id;		/* ID of __classpath__, 0 until found */
	int attached_ok;		/* the table's ID of __attached__ checked: 1 ok,
					 * -1 wrong (no Klass.meth names), 0 not yet */
	int id_tries;			/* looks for __classpath__'s ID so far */
};

/* ruby_detect.c: the ops' attach (the VM, its TLS variable, the symbol table). */
bool ruby_attach(struct interp_proc *ip, const struct interp_version *v, const struct map *m,
		 const struct map *ld, const struct interp_glibc *g);

/* What a Ruby label names, for adding the class. */
enum rb_label_kind {
	RB_LABEL_PLAIN,		/* <main>, <class:Foo>, <top (required)>, a block outside a method */
	RB_LABEL_METHOD,	/* a method's name: the class goes before it */
	RB_LABEL_IN_METHOD,	/* "block in m", "block (2 levels) in m", "rescue in m" */
};

/*
 * The frame name from label, its kind and the class prefix ("Work::Pinger#",
 * "Process.", "" for none): "Work::Pinger#run", "block in Work::Pinger#run".
 * Returns out, or label when there is nothing to add or out is too small (a
 * cut name would be another name).
 */
const char *rb_compose_name(const char *label, enum rb_label_kind kind, const char *prefix,
			    char *out, size_t outsz);

/*
 * ruby_lines.c.  rb_lines_copy: code c's line tables (c->body read), copied
 * into c->linetable while the process lives.  rb_lines_find: the line of
 * the instruction before pc in code c, -1 if unknown.
 */
void rb_lines_copy(struct interp_code *c, const struct interp_ruby_layout *L);
int rb_lines_find(const struct interp_code *c, const struct interp_ruby_layout *L, uint64_t pc);
/* The rank of position x in a succinct index of len bytes; false if x is past it. */
bool rb_succ_rank(const uint8_t *table, size_t len, uint32_t x, uint32_t *rank);
/* Is table (len bytes) the index of an iseq of max_pos positions and nentries entries? */
bool rb_succ_check(const uint8_t *table, size_t len, uint32_t max_pos, uint32_t nentries);

#endif /* STITCH_INTERP_RUBY_H */
