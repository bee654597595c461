// SPDX-License-Identifier: GPL-2.0
/*
 * speedscope's JSON file format: one "sampled" profile whose stacks run
 * root first, the comm as the root frame (as in folded output), weights as
 * counts.  Names come from traced processes: every string is escaped and
 * invalid UTF-8 becomes U+FFFD, so the file always parses.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/json.h"
#include "formats/output.h"
#include "util/hashmap.h"

/*
 * speedscope frames are functions: profile frames that differ only in
 * address or line (samples at several pcs of one function) share one, keyed
 * by label and file.
 */
struct sframe {
	struct hmap_node node;
	uint32_t idx;		/* speedscope frame index */
	uint32_t first;		/* profile frame that named it */
	char key[];
};

static bool sframe_eq(const struct hmap_node *n, const void *key)
{
	return strcmp(((const struct sframe *)n)->key, key) == 0;
}

/* Map every profile frame to a speedscope frame; returns how many there are. */
static int64_t map_frames(const struct profile *p, uint32_t *to, struct hmap *seen,
			  struct sframe ***order)
{
	uint32_t n = 0, i;
	char label[1024];

	*order = malloc((p->nframes ? p->nframes : 1) * sizeof(**order));
	if (!*order)
		return -ENOMEM;
	for (i = 0; i < p->nframes; i++) {
		const char *file = profile_s(p, p->frames[i].file);
		size_t ll = profile_frame_label(p, &p->frames[i], label, sizeof(label));
		size_t kl = ll + 1 + strlen(file) + 1;
		struct sframe *sf;
		uint64_t h;
		char *key = malloc(kl);

		if (!key)
			return -ENOMEM;
		snprintf(key, kl, "%s%c%s", label, 1, file);
		h = hash_bytes(key, strlen(key), 0);
		sf = (struct sframe *)hmap_find(seen, h, sframe_eq, key);
		if (!sf) {
			sf = malloc(sizeof(*sf) + kl);
			if (!sf) {
				free(key);
				return -ENOMEM;
			}
			memcpy(sf->key, key, kl);
			sf->idx = n;
			sf->first = i;
			(*order)[n++] = sf;
			hmap_insert(seen, &sf->node, h);
		}
		free(key);
		to[i] = sf->idx;
	}
	return n;
}

/* Frame indices: functions first, then one root frame per comm. */
int profile_write_speedscope(FILE *f, const struct profile *p)
{
	uint32_t *comm_slot = calloc(p->nstr ? p->nstr : 1, sizeof(*comm_slot));
	uint32_t *to = malloc((p->nframes ? p->nframes : 1) * sizeof(*to));
	struct sframe **order = NULL;
	uint32_t ncomm = 0, i;
	int64_t nfn = -ENOMEM;
	struct hmap seen;
	char label[1024];
	size_t si;

	if (comm_slot && to && hmap_init(&seen, p->nframes) == 0) {
		nfn = map_frames(p, to, &seen, &order);
		if (nfn < 0)
			hmap_free_all(&seen);
	}
	if (nfn < 0) {
		free(comm_slot);
		free(to);
		free(order);
		return -ENOMEM;
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",", f);
	fputs("\"exporter\":\"stitch\",\"name\":", f);
	json_string(f, profile_s(p, p->title)[0] ? profile_s(p, p->title) : "stitch");
	fputs(",\"activeProfileIndex\":0,\"shared\":{\"frames\":[", f);
	/*
	 * Comms become root frames after the functions, numbered in the
	 * order they are emitted below (string index order).
	 */
	for (si = 0; si < p->nsamples; si++)
		comm_slot[p->samples[si].comm] = 1;
	for (i = 0; i < p->nstr; i++)
		if (comm_slot[i])
			comm_slot[i] = ++ncomm;
	for (i = 0; i < (uint32_t)nfn; i++) {
		const struct prof_frame *fr = &p->frames[order[i]->first];

		profile_frame_label(p, fr, label, sizeof(label));
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		json_string(f, label);
		if (fr->file) {
			fputs(",\"file\":", f);
			json_string(f, profile_s(p, fr->file));
		}
		fputc('}', f);
	}
	for (i = 0; i < p->nstr; i++) {
		if (!comm_slot[i])
			continue;
		fputs(nfn || comm_slot[i] > 1 ? ",{\"name\":" : "{\"name\":", f);
		json_string(f, p->str[i][0] ? p->str[i] : "[unknown]");
		fputc('}', f);
	}
	fputs("]},\"profiles\":[{\"type\":\"sampled\",\"name\":", f);
	json_string(f, profile_s(p, p->title)[0] ? profile_s(p, p->title) : "stitch");
	fprintf(f, ",\"unit\":\"%s\",", profile_unit_ns(p) ? "nanoseconds" :
		profile_unit_bytes(p) ? "bytes" : "none");
	fprintf(f, "\"startValue\":0,\"endValue\":%llu,\"samples\":[",
		(unsigned long long)p->total);
	for (si = 0; si < p->nsamples; si++) {
		const struct prof_sample *s = &p->samples[si];

		fprintf(f, "%s[%u", si ? "," : "", (uint32_t)nfn + comm_slot[s->comm] - 1);
		for (i = 0; i < s->nframes; i++)
			fprintf(f, ",%u", to[s->frames[i]]);
		fputc(']', f);
	}
	fputs("],\"weights\":[", f);
	for (si = 0; si < p->nsamples; si++)
		fprintf(f, "%s%llu", si ? "," : "", (unsigned long long)p->samples[si].count);
	fputs("]}]}\n", f);
	hmap_free_all(&seen);
	free(order);
	free(to);
	free(comm_slot);
	return ferror(f) ? -EIO : 0;
}
