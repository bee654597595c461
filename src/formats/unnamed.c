// SPDX-License-Identifier: GPL-2.0
/*
 * Unnamed native frames per binary (unnamed.h).  resolve.c names a frame it
 * cannot symbolize "<basename of its binary>+0x<vaddr>", kind FRAME_USER,
 * module the binary's path: that is what is recognised here, so the count
 * works on any profile that kept its modules (recorded, or read from pprof).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "formats/unnamed.h"

struct per_module {
	uint32_t module;	/* string index */
	uint32_t addrs;		/* distinct unnamed frames */
	uint64_t value;		/* of the samples holding one */
	size_t last_sample;	/* +1 of the last sample counted */
};

bool frame_is_unnamed(const struct profile *p, const struct prof_frame *fr)
{
	const char *name, *path, *base;
	size_t len;

	if (fr->kind != FRAME_USER || !fr->module)
		return false;
	name = profile_s(p, fr->name);
	path = profile_s(p, fr->module);
	base = strrchr(path, '/');
	base = base && base[1] ? base + 1 : path;
	len = strlen(base);
	if (!len || strncmp(name, base, len) != 0 || strncmp(name + len, "+0x", 3) != 0 ||
	    !name[len + 3])
		return false;
	return strspn(name + len + 3, "0123456789abcdef") == strlen(name + len + 3);
}

static int cmp_value(const void *a, const void *b)
{
	const struct per_module *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? 1 : -1;
	return x->module < y->module ? -1 : x->module > y->module;
}

int profile_write_unnamed(FILE *f, const struct profile *p)
{
	struct per_module *mods;
	uint32_t *slot, nmods = 0, i;
	size_t s;
	char v[32], t[32];

	if (!p->nstr)
		return 0;
	/* slot[string index of a module] = 1 + its entry in mods, 0: none yet */
	slot = calloc(p->nstr, sizeof(*slot));
	mods = calloc(p->nframes ? p->nframes : 1, sizeof(*mods));
	if (!slot || !mods) {
		free(slot);
		free(mods);
		return -ENOMEM;
	}
	for (i = 0; i < p->nframes; i++) {
		const struct prof_frame *fr = &p->frames[i];

		if (!frame_is_unnamed(p, fr) || fr->module >= p->nstr)
			continue;
		if (!slot[fr->module]) {
			mods[nmods].module = fr->module;
			slot[fr->module] = ++nmods;
		}
		mods[slot[fr->module] - 1].addrs++;
	}
	for (s = 0; s < p->nsamples && nmods; s++) {
		const struct prof_sample *ps = &p->samples[s];
		uint32_t j;

		for (j = 0; j < ps->nframes; j++) {
			const struct prof_frame *fr = &p->frames[ps->frames[j]];
			struct per_module *m;

			if (fr->module >= p->nstr || !slot[fr->module] || !frame_is_unnamed(p, fr))
				continue;
			m = &mods[slot[fr->module] - 1];
			if (m->last_sample == s + 1)
				continue;
			m->last_sample = s + 1;
			m->value = count_add(m->value, ps->count);
		}
	}
	qsort(mods, nmods, sizeof(*mods), cmp_value);
	if (nmods)
		fprintf(f, "\nFrames without a name (binary+0xOFFSET), by binary: %s\n",
			UNNAMED_HINT);
	for (i = 0; i < nmods && i < UNNAMED_MAX_SHOWN; i++)
		fprintf(f, "  %s: %u addresses, in %s of %s%s\n", profile_s(p, mods[i].module),
			mods[i].addrs, profile_value_str(p, mods[i].value, v, sizeof(v)),
			profile_value_str(p, p->total, t, sizeof(t)), profile_count_word(p));
	if (nmods > UNNAMED_MAX_SHOWN)
		fprintf(f, "  ... and %u more binaries\n", nmods - UNNAMED_MAX_SHOWN);
	free(slot);
	free(mods);
	return ferror(f) ? -EIO : 0;
}
