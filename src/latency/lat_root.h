/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stitch latency's roots: what -e names (a system call, a user or kernel
 * function, a USDT or tracepoint begin/end pair, a script function), parsed
 * and checked before anything is loaded, then set into latency.bpf.c's
 * read-only data and attached.
 */
#ifndef STITCH_LATENCY_ROOT_H
#define STITCH_LATENCY_ROOT_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "interp/interp_api.h"
#include "latency/latency.h"

struct latency_bpf;
struct bpf_link;

enum lat_root_kind {
	ROOT_SYSCALL,		/* syscall:NAME */
	ROOT_FUNCTION,		/* uprobe:BINARY:FUNCTION */
	ROOT_KFUNCTION,		/* kprobe:FUNCTION */
	ROOT_USDT_PAIR,		/* usdt:BINARY:PROVIDER:BEGIN,END */
	ROOT_TP_PAIR,		/* tracepoint:CATEGORY:BEGIN,END */
	ROOT_INTERP,		/* LANG:NAME, an interpreted function: its language's call path */
};

/* A field of a tracepoint's record, from its format file. */
struct lat_field {
	char name[64];
	uint32_t off, size;
	bool is_signed;
};

struct lat_root {
	const char *spec;		/* as given */
	enum lat_root_kind kind;
	char name[128];			/* the call, as the breakdown's root frame names it */
	char binary[PATH_MAX];		/* function, USDT and interpreter roots: the file */
	char provider[64];		/* USDT: the provider; tracepoints: the category */
	char begin[64], end[64];	/* the pair's two probes or events */
	char function[128];		/* function roots: the symbol */
	/* The call's arguments and return value as shown (syscalls, tracepoints). */
	struct lat_field args[LAT_NARGS];
	int nargs;
	struct lat_field ret;		/* size 0: none */
	/* Keyed pairs (--key): the fields matched, in the begin and in the end. */
	struct lat_field key_begin[LAT_NKEYS], key_end[LAT_NKEYS];
	int nkeys;
	/* LANG:NAME: where its probes go, and its interpreter's layout (interp/) */
	struct interp_root interp;
};

/* Links a root attaches: two, or an interpreter root's probes. */
#define LAT_ROOT_LINKS INTERP_ROOT_PROBES
_Static_assert(LAT_ROOT_LINKS >= 2, "a root's begin and end");

/*
 * Parse -e SPEC into r; keys is --key (NULL: by thread).  pid (the first -p
 * target, or 0) and command (-- COMMAND, or NULL) say where an interpreter
 * root's interpreter is.  On error, prints one line and returns 2 (usage) or 1.
 */
int lat_root_parse(struct lat_root *r, const char *spec, const char *keys, pid_t pid,
		   char *const *command);

/* Before load: the root's read-only data and which programs load. */
void lat_root_configure(const struct lat_root *r, struct latency_bpf *skel);

/*
 * Attach the root's programs; links[0..LAT_ROOT_LINKS) get its links (NULL
 * where unused).  pid: the one -p target, or 0.  On error, prints one line
 * and returns -1.
 */
int lat_root_attach(const struct lat_root *r, struct latency_bpf *skel, struct bpf_link **links,
		    int pid);

/* A call's argument i as JSON wants it named ("fd", or "arg0"). */
const char *lat_root_arg_name(const struct lat_root *r, int i, char *buf, size_t len);

/* Whether the root has arguments and a return value worth showing. */
bool lat_root_has_args(const struct lat_root *r);
bool lat_root_has_ret(const struct lat_root *r);

/*
 * A tracepoint's format: the fields of CATEGORY/NAME past the common ones
 * (arrays and __data_loc strings left out: not values we read), up to max.
 * Returns how many, or -errno.  _read parses an open format file.
 */
int lat_tp_fields(const char *category, const char *name, struct lat_field *fields, int max);
int lat_tp_fields_read(FILE *f, struct lat_field *fields, int max);

#endif /* STITCH_LATENCY_ROOT_H */
