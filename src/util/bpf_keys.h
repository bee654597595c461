/* SPDX-License-Identifier: GPL-2.0 */
/* Every key (and value) of a BPF hash map, read at once. */
#ifndef STITCH_UTIL_BPF_KEYS_H
#define STITCH_UTIL_BPF_KEYS_H

#include <stddef.h>

/*
 * The keys (key_size bytes each) in one allocation, *n of them; NULL with
 * *n = 0 if none or out of memory.  Collected first, then used: deleting
 * while walking a hash map can restart the walk.
 */
void *bpf_map_keys(int fd, size_t key_size, size_t *n);

/*
 * Every key and its value: by batches (BPF_MAP_LOOKUP_BATCH, one syscall
 * per thousand entries instead of two per entry: the kernel's counts are
 * read every second, ~300 keys on a changing stack), else entry by entry
 * (kernels without batches for the map; an entry deleted meanwhile is left
 * out).  0 with *keys and *values allocated (free both), *n entries of
 * key_size and value_size bytes; or -errno.
 */
int bpf_map_entries(int fd, size_t key_size, size_t value_size, void **keys, void **values,
		    size_t *n);

/* Delete n keys, at once where the kernel can; how many were deleted. */
size_t bpf_map_delete_keys(int fd, const void *keys, size_t key_size, size_t n);

#endif /* STITCH_UTIL_BPF_KEYS_H */
