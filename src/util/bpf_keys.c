// SPDX-License-Identifier: GPL-2.0
/* Every key of a BPF hash map: see bpf_keys.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

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

#ifndef ENOTSUPP
#define ENOTSUPP 524	/* the kernel's, not in userspace errno.h */
#endif

/* The kernel has no batch operation for this map (or none at all). */
static bool no_batches(int err)
{
	return err == -EINVAL || err == -ENOTSUPP || err == -EOPNOTSUPP || err == -ENOSYS;
}

/* Entry by entry: every key, then each one's value (an entry gone meanwhile is left out). */
static int entries_one_by_one(int fd, size_t key_size, size_t value_size, char **keys,
			      char **values, size_t *n)
{
	size_t i, all;

	*keys = bpf_map_keys(fd, key_size, &all);
	*values = malloc(all ? all * value_size : 1);
	if (!*keys || !*values)
		return -ENOMEM;
	for (i = 0; i < all; i++) {
		if (bpf_map_lookup_elem(fd, *keys + i * key_size, *values + *n * value_size))
			continue;
		memmove(*keys + *n * key_size, *keys + i * key_size, key_size);
		(*n)++;
	}
	return 0;
}

int bpf_map_entries(int fd, size_t key_size, size_t value_size, void **keys_out,
		    void **values_out, size_t *n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	char *keys = NULL, *values = NULL, *in = NULL, *out, *tokens;
	size_t kcap = 0, vcap = 0, chunk = 1024, tok = key_size > 8 ? key_size : 8;
	__u32 count;
	int err = 0;

	*n = 0;
	/* The batch token: a hash map's is a bucket number, another map's a key. */
	tokens = out = calloc(2, tok);
	if (!tokens)
		return -ENOMEM;
	for (;;) {
		if (array_reserve((void **)&keys, &kcap, *n + chunk, key_size, chunk) ||
		    array_reserve((void **)&values, &vcap, *n + chunk, value_size, chunk)) {
			err = -ENOMEM;
			break;
		}
		count = chunk;
		err = bpf_map_lookup_batch(fd, in, out, keys + *n * key_size,
					   values + *n * value_size, &count, &opts);
		if (err)
			err = -errno;
		if (err == -ENOSPC && !count && chunk < (1u << 20)) {
			/* One bucket holds more than chunk entries. */
			chunk *= 4;
			continue;
		}
		if (err && err != -ENOENT)
			break;
		*n += count;
		if (err == -ENOENT) {	/* that was the last batch */
			err = 0;
			break;
		}
		/* The next batch starts where this one ended: its token in, the other buffer out. */
		in = out;
		out = out == tokens ? tokens + tok : tokens;
	}
	if (no_batches(err) && !*n) {
		free(keys);
		free(values);
		keys = values = NULL;
		err = entries_one_by_one(fd, key_size, value_size, &keys, &values, n);
	}
	free(tokens);
	if (err) {
		free(keys);
		free(values);
		*n = 0;
		return err;
	}
	*keys_out = keys;
	*values_out = values;
	return 0;
}

size_t bpf_map_delete_keys(int fd, const void *keys, size_t key_size, size_t n)
{
	LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 count = n;
	size_t i, done = 0;

	if (!n)
		return 0;
	if (bpf_map_delete_batch(fd, keys, &count, &opts) == 0)
		return count;
	if (!no_batches(-errno))
		return count;
	for (i = 0; i < n; i++)
		done += bpf_map_delete_elem(fd, (const char *)keys + i * key_size) == 0;
	return done;
}
