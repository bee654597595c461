/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the event kinds' attaching shares (attach.c, and attach_alloc.c
 * for -e alloc): a link kept for attach_destroy and an event's cookie
 * (attach_links.c), a library found in a process's mappings
 * (lib_in_maps.c).
 */
#ifndef STITCH_RECORD_ATTACH_INTERNAL_H
#define STITCH_RECORD_ATTACH_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "record/attach.h"

struct bpf_link;

/* The cookie that tells a program which event it serves (0 on the legacy path). */
uint64_t attach_cookie(struct attacher *a, uint32_t idx);
/* Keep link until attach_destroy: 0, or -ENOMEM (the link destroyed). */
int attach_add_link(struct attacher *a, struct bpf_link *link);
/*
 * Library lib (a file name, or a name's start: "libc") in the executable
 * mappings of process pid (0: ours): a path to open it by, from here.
 */
/*
 * A mapped file's name (base) is library lib's: "libc.so.6" exactly, "libc"
 * matching "libc.so.6" or "libc-2.36.so", "libc.so.6" matching glibc's
 * files before 2.34 ("libc-2.31.so", which the soname links to).
 */
bool lib_name_matches(const char *base, const char *lib);
/*
 * A library found by name in a process's executable mappings: a path to
 * open it by in out (0: ours); _as also gives its path as the process sees
 * it (its maps').
 */
bool attach_find_in_maps(uint32_t pid, const char *lib, char *out, size_t outlen);
bool attach_find_in_maps_as(uint32_t pid, const char *lib, char *out, size_t outlen,
			    char *seen, size_t seenlen);

/* attach_alloc.c: -e alloc, on every allocator the targets map. */
int attach_alloc(struct attacher *a, const struct event_spec *ev, uint32_t idx,
		 char *err, size_t errlen);

#endif /* STITCH_RECORD_ATTACH_INTERNAL_H */
