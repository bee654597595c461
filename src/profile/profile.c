// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile.h"
#include "util/array.h"

struct str_node {
	struct hmap_node node;
	uint32_t idx;
};

struct frame_node {
	struct hmap_node node;
	uint32_t idx;
};

struct str_key {
	const struct profile *p;
	const char *s;
};

struct frame_key {
	const struct profile *p;
	const struct prof_frame *f;
};

static bool str_eq(const struct hmap_node *n, const void *key)
{
	const struct str_key *k = key;

	return strcmp(k->p->str[((const struct str_node *)n)->idx], k->s) == 0;
}

static bool frame_eq(const struct hmap_node *n, const void *key)
{
	const struct frame_key *k = key;
	const struct prof_frame *a = &k->p->frames[((const struct frame_node *)n)->idx], *b = k->f;

	return a->name == b->name && a->file == b->file && a->line == b->line &&
	       a->module == b->module && a->addr == b->addr && a->kind == b->kind;
}

static uint64_t frame_hash(const struct prof_frame *f)
{
	uint64_t h = hash_u64(f->name ^ ((uint64_t)f->file << 32));

	h = hash_u64(h ^ f->line ^ ((uint64_t)f->module << 32));
	return hash_u64(h ^ f->addr ^ ((uint64_t)f->kind << 56));
}

void profile_init(struct profile *p)
{
	memset(p, 0, sizeof(*p));
	hmap_init(&p->str_index, 256);
	hmap_init(&p->frame_index, 1024);
	profile_str(p, "");	/* index 0 */
}

void profile_free(struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nstr; i++)
		free(p->str[i]);
	for (i = 0; i < p->nsamples; i++)
		free(p->samples[i].frames);
	free(p->str);
	free(p->frames);
	free(p->samples);
	free(p->modules);
	hmap_free_all(&p->str_index);
	hmap_free_all(&p->frame_index);
	memset(p, 0, sizeof(*p));
}

bool profile_unit_ns(const struct profile *p)
{
	return p->value_unit && strcmp(profile_s(p, p->value_unit), "nanoseconds") == 0;
}

bool profile_unit_bytes(const struct profile *p)
{
	return p->value_unit && strcmp(profile_s(p, p->value_unit), "bytes") == 0;
}

const char *profile_value_str(const struct profile *p, uint64_t v, char *buf, size_t len)
{
	if (profile_unit_bytes(p)) {
		if (v < 1024)
			snprintf(buf, len, "%llu B", (unsigned long long)v);
		else if (v < 1024 * 1024)
			snprintf(buf, len, "%.1f KiB", v / 1024.0);
		else if (v < 1024ULL * 1024 * 1024)
			snprintf(buf, len, "%.1f MiB", v / (1024.0 * 1024));
		else
			snprintf(buf, len, "%.2f GiB", v / (1024.0 * 1024 * 1024));
	} else if (!profile_unit_ns(p))
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else if (v < 1000)
		snprintf(buf, len, "%llu ns", (unsigned long long)v);
	else if (v < 1000000)
		snprintf(buf, len, "%.1f us", v / 1e3);
	else if (v < 1000000000)
		snprintf(buf, len, "%.1f ms", v / 1e6);
	else
		snprintf(buf, len, "%.2f s", v / 1e9);
	return buf;
}

uint32_t profile_str(struct profile *p, const char *s)
{
	struct str_key key = { p, s ? s : "" };
	uint64_t h = hash_bytes(key.s, strlen(key.s), 0);
	struct str_node *n;
	size_t cap = p->capstr;
	char *copy;

	if (p->nstr && !key.s[0])
		return 0;
	n = (struct str_node *)hmap_find(&p->str_index, h, str_eq, &key);
	if (n)
		return n->idx;
	if (p->nstr == UINT32_MAX - 1 ||
	    array_reserve((void **)&p->str, &cap, p->nstr + 1, sizeof(char *), 64))
		return UINT32_MAX;
	p->capstr = cap;
	copy = strdup(key.s);
	n = malloc(sizeof(*n));
	if (!copy || !n) {
		free(copy);
		free(n);
		return UINT32_MAX;
	}
	n->idx = p->nstr;
	p->str[p->nstr++] = copy;
	hmap_insert(&p->str_index, &n->node, h);
	return n->idx;
}

uint32_t profile_frame(struct profile *p, const struct prof_frame *f)
{
	struct frame_key key = { p, f };
	uint64_t h = frame_hash(f);
	size_t cap = p->capframes;
	struct frame_node *n = (struct frame_node *)hmap_find(&p->frame_index, h, frame_eq, &key);

	if (n)
		return n->idx;
	if (p->nframes == UINT32_MAX - 1 ||
	    array_reserve((void **)&p->frames, &cap, p->nframes + 1, sizeof(*f), 64))
		return UINT32_MAX;
	p->capframes = cap;
	n = malloc(sizeof(*n));
	if (!n)
		return UINT32_MAX;
	n->idx = p->nframes;
	p->frames[p->nframes++] = *f;
	hmap_insert(&p->frame_index, &n->node, h);
	return n->idx;
}

int profile_add_sample(struct profile *p, const uint32_t *frames, uint32_t n,
		       const struct prof_sample *labels)
{
	size_t cap = p->capsamples;
	struct prof_sample *s;

	if (array_reserve((void **)&p->samples, &cap, p->nsamples + 1, sizeof(*s), 64))
		return -ENOMEM;
	p->capsamples = cap;
	s = &p->samples[p->nsamples];
	*s = *labels;
	s->nframes = n;
	s->frames = malloc((n ? n : 1) * sizeof(*frames));
	if (!s->frames)
		return -ENOMEM;
	if (n)
		memcpy(s->frames, frames, n * sizeof(*frames));
	p->nsamples++;
	p->total = count_add_noting(p->total, s->count, &p->saturated);
	return 0;
}

int profile_module(struct profile *p, const char *path, const char *build_id_hex)
{
	uint32_t ipath = profile_str(p, path), i;
	size_t cap = p->capmodules;

	if (ipath == UINT32_MAX)
		return -ENOMEM;
	for (i = 0; i < p->nmodules; i++)
		if (p->modules[i].path == ipath)
			return 0;
	if (array_reserve((void **)&p->modules, &cap, p->nmodules + 1, sizeof(*p->modules), 64))
		return -ENOMEM;
	p->capmodules = cap;
	p->modules[p->nmodules].path = ipath;
	p->modules[p->nmodules].build_id = profile_str(p, build_id_hex);
	p->nmodules++;
	return 0;
}

const char *profile_module_build_id(const struct profile *p, uint32_t path)
{
	uint32_t i;

	for (i = 0; i < p->nmodules; i++)
		if (p->modules[i].path == path && p->modules[i].build_id)
			return p->str[p->modules[i].build_id];
	return NULL;
}

/* ---- merging ---------------------------------------------------------------- */

struct sample_node {
	struct hmap_node node;
	size_t idx;
};

static bool sample_same(const struct prof_sample *a, const struct prof_sample *b)
{
	return a->nframes == b->nframes && a->comm == b->comm && a->event == b->event &&
	       a->pid == b->pid && a->tid == b->tid &&
	       memcmp(a->frames, b->frames, a->nframes * sizeof(*a->frames)) == 0;
}

struct sample_key {
	const struct profile *p;
	const struct prof_sample *s;
};

static bool sample_eq(const struct hmap_node *n, const void *key)
{
	const struct sample_key *k = key;

	return sample_same(&k->p->samples[((const struct sample_node *)n)->idx], k->s);
}

static uint64_t sample_hash(const struct prof_sample *s)
{
	uint64_t h = hash_bytes(s->frames, s->nframes * sizeof(*s->frames), s->nframes);

	return hash_u64(h ^ s->comm ^ ((uint64_t)s->event << 20) ^ ((uint64_t)s->pid << 40) ^
			s->tid);
}

static int cmp_count(const void *a, const void *b)
{
	const struct prof_sample *x = a, *y = b;

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->nframes != y->nframes)
		return x->nframes < y->nframes ? -1 : 1;
	return memcmp(x->frames, y->frames, x->nframes * sizeof(*x->frames));
}

int profile_merge_samples(struct profile *p)
{
	struct hmap seen;
	size_t i, out = 0;

	if (hmap_init(&seen, p->nsamples) != 0)
		return -ENOMEM;
	for (i = 0; i < p->nsamples; i++) {
		struct prof_sample *s = &p->samples[i];
		struct sample_key key = { p, s };
		uint64_t h = sample_hash(s);
		struct sample_node *n = (struct sample_node *)hmap_find(&seen, h, sample_eq, &key);

		if (n) {
			p->samples[n->idx].count = count_add_noting(p->samples[n->idx].count,
								    s->count, &p->saturated);
			p->samples[n->idx].objects = count_add(p->samples[n->idx].objects,
							       s->objects);
			free(s->frames);
			continue;
		}
		p->samples[out] = *s;
		n = malloc(sizeof(*n));
		if (!n) {
			hmap_free_all(&seen);
			return -ENOMEM;
		}
		n->idx = out++;
		hmap_insert(&seen, &n->node, h);
	}
	p->nsamples = out;
	hmap_free_all(&seen);
	if (p->nsamples > 1)
		qsort(p->samples, p->nsamples, sizeof(*p->samples), cmp_count);
	return 0;
}

/* ---- labels ----------------------------------------------------------------- */

size_t profile_frame_label(const struct profile *p, const struct prof_frame *f, char *buf,
			   size_t len)
{
	const char *name = profile_s(p, f->name), *suffix = "";
	size_t i, n = 0;

	if (!len)
		return 0;
	if (f->kind == FRAME_KERNEL)
		suffix = "_[k]";
	else if (f->kind == FRAME_INLINED)
		suffix = "_[i]";
	else if (f->kind == FRAME_JIT)
		suffix = "_[j]";	/* FlameGraph's mark for JIT frames */
	for (i = 0; name[i] && n + 1 < len; i++) {
		unsigned char c = name[i];

		buf[n++] = c == ';' ? ':' : (c < 0x20 || c == 0x7f) ? '?' : c;
	}
	buf[n] = '\0';
	/*
	 * Interpreter frames and JIT frames named from their runtime (V8's
	 * functions): "name (file:line)", or "name (file)" without a line;
	 * the mark after it, where FlameGraph looks for it.
	 */
	if ((frame_kind_is_interp(f->kind) || f->kind == FRAME_JIT) && f->file && n + 1 < len) {
		char where[64];
		const char *file = profile_s(p, f->file);
		int w = f->line ? snprintf(where, sizeof(where), ":%u)", f->line) :
				  snprintf(where, sizeof(where), ")");

		n += snprintf(buf + n, len - n, " (");
		if (n >= len)
			n = len - 1;
		for (i = 0; file[i] && n + 1 < len; i++) {
			unsigned char c = file[i];

			buf[n++] = c == ';' ? ':' : (c < 0x20 || c == 0x7f) ? '?' : c;
		}
		for (i = 0; i < (size_t)w && n + 1 < len; i++)
			buf[n++] = where[i];
	}
	for (i = 0; suffix[i] && n + 1 < len; i++)
		buf[n++] = suffix[i];
	buf[n] = '\0';
	return n;
}
