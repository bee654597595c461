// SPDX-License-Identifier: GPL-2.0
/* Every key of a BPF hash map: see bpf_keys.h. */
#include <stdlib.h>
#include <bpf/bpf.h>

#include "util/array.h"
#include "util/bpf_keys.h"

void *bpf_map_keys(int fd, size_t key_size, size_t *n)
{
	char *keys = NULL, *prev = NULL;
	size_t cap = 0;

	*n = 0;
	for (;;) {
		if (array_reserve((void **)&keys, &cap, *n + 1, key_size, 256))
			break;
		/* The previous key, where it now lives: the array may have moved. */
		prev = *n ? keys + (*n - 1) * key_size : NULL;
		if (bpf_map_get_next_key(fd, prev, keys + *n * key_size) != 0)
			return keys;
		(*n)++;
	}
	free(keys);
	*n = 0;
	return NULL;
}
