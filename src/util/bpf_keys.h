/* SPDX-License-Identifier: GPL-2.0 */
/* Every key of a BPF hash map, read at once. */
#ifndef STITCH_UTIL_BPF_KEYS_H
#define STITCH_UTIL_BPF_KEYS_H

#include <stddef.h>

/*
 * The keys (key_size bytes each) in one allocation, *n of them; NULL with
 * *n = 0 if none or out of memory.  Collected first, then used: deleting
 * while walking a hash map can restart the walk.
 */
void *bpf_map_keys(int fd, size_t key_size, size_t *n);

#endif /* STITCH_UTIL_BPF_KEYS_H */
