/* SPDX-License-Identifier: GPL-2.0 */
/* Interpreter frames: what interp_detect.c, interp_python.c and interp_stitch.c share. */
#ifndef STITCH_INTERP_INTERNAL_H
#define STITCH_INTERP_INTERNAL_H

#include "interp_user.h"

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
};

/*
 * The code object of frame f in process ip, read and checked on first
 * sight, then cached by (pid, address) and revalidated against the
 * identity fields the walker sent.  NULL on allocation failure.
 */
struct interp_code *py_code_get(struct interp_state *st, const struct interp_proc *ip,
				const struct interp_frame *f);

#endif /* STITCH_INTERP_INTERNAL_H */
