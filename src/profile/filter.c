// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/filter.h"

void filter_init(struct profile_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->pid = f->tid = -1;
}

int filter_set_regex(struct profile_filter *f, bool focus, const char *re, char *err, size_t errlen)
{
	regex_t *r = focus ? &f->focus : &f->hide;
	bool *has = focus ? &f->has_focus : &f->has_hide;
	int rc;

	if (*has)
		regfree(r);
	*has = false;
	rc = regcomp(r, re, REG_EXTENDED | REG_NOSUB);
	if (rc) {
		char msg[256];

		regerror(rc, r, msg, sizeof(msg));
		snprintf(err, errlen, "%s '%s': %s", focus ? "--focus" : "--hide", re, msg);
		return -EINVAL;
	}
	*has = true;
	return 0;
}

void filter_free(struct profile_filter *f)
{
	if (f->has_focus)
		regfree(&f->focus);
	if (f->has_hide)
		regfree(&f->hide);
	f->has_focus = f->has_hide = false;
}

bool filter_is_empty(const struct profile_filter *f)
{
	return f->pid < 0 && f->tid < 0 && !f->comm && !f->has_focus && !f->has_hide && !f->reverse;
}

static bool frame_matches(const struct profile *p, uint32_t fi, const regex_t *re)
{
	return regexec(re, profile_s(p, p->frames[fi].name), 0, NULL, 0) == 0;
}

/* Copy frame fi of in into out, once (map caches in -> out indices). */
static uint32_t copy_frame(const struct profile *in, struct profile *out, uint32_t fi,
			   uint32_t *map)
{
	const struct prof_frame *src = &in->frames[fi];
	struct prof_frame f = *src;

	if (map[fi] != UINT32_MAX)
		return map[fi];
	f.name = profile_str(out, profile_s(in, src->name));
	f.file = profile_str(out, profile_s(in, src->file));
	f.module = profile_str(out, profile_s(in, src->module));
	if (f.name == UINT32_MAX || f.file == UINT32_MAX || f.module == UINT32_MAX)
		return UINT32_MAX;
	map[fi] = profile_frame(out, &f);
	return map[fi];
}

static bool sample_passes(const struct profile *in, const struct prof_sample *s,
			  const struct profile_filter *f)
{
	uint32_t j;

	if (f->pid >= 0 && s->pid != (uint64_t)f->pid)
		return false;
	if (f->tid >= 0 && s->tid != (uint64_t)f->tid)
		return false;
	if (f->comm && strcmp(profile_s(in, s->comm), f->comm) != 0)
		return false;
	if (!f->has_focus)
		return true;
	for (j = 0; j < s->nframes; j++)
		if (frame_matches(in, s->frames[j], &f->focus))
			return true;
	return false;
}

int profile_filter(const struct profile *in, struct profile *out, const struct profile_filter *f)
{
	uint32_t *map = malloc((in->nframes ? in->nframes : 1) * sizeof(*map));
	uint32_t *ids = NULL, cap = 0, i;
	int rc = 0;
	size_t si;

	profile_init(out);
	if (!map)
		return -ENOMEM;
	memset(map, 0xff, (in->nframes ? in->nframes : 1) * sizeof(*map));
	out->title = profile_str(out, profile_s(in, in->title));
	out->period_ns = in->period_ns;
	out->time_ns = in->time_ns;
	out->duration_ns = in->duration_ns;
	/* A count merged past 2^53 in the input stays inexact in any part of it. */
	out->saturated = in->saturated;
	for (i = 0; i < in->nmodules; i++)
		profile_module(out, profile_s(in, in->modules[i].path),
			       profile_s(in, in->modules[i].build_id));
	for (si = 0; si < in->nsamples && !rc; si++) {
		const struct prof_sample *s = &in->samples[si];
		struct prof_sample labels = *s;
		uint32_t n = 0, j;

		if (!sample_passes(in, s, f))
			continue;
		if (s->nframes > cap) {
			uint32_t *t = realloc(ids, s->nframes * sizeof(*ids));

			if (!t) {
				rc = -ENOMEM;
				break;
			}
			ids = t;
			cap = s->nframes;
		}
		for (j = 0; j < s->nframes; j++) {
			uint32_t fi = s->frames[f->reverse ? s->nframes - 1 - j : j];

			if (f->has_hide && frame_matches(in, fi, &f->hide))
				continue;
			ids[n] = copy_frame(in, out, fi, map);
			if (ids[n] == UINT32_MAX) {
				rc = -ENOMEM;
				break;
			}
			n++;
		}
		labels.comm = profile_str(out, profile_s(in, s->comm));
		labels.event = profile_str(out, profile_s(in, s->event));
		if (!rc && (labels.comm == UINT32_MAX || labels.event == UINT32_MAX ||
			    profile_add_sample(out, ids, n, &labels)))
			rc = -ENOMEM;
	}
	free(ids);
	free(map);
	if (!rc)
		rc = profile_merge_samples(out);
	return rc;
}
