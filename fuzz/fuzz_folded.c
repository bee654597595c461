// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the folded-stack reader (`stitch report FILE.folded`):
 * whatever it accepts must write back as folded text that reads again into
 * the same total, and every refusal must say why.  Counts stay within
 * PROFILE_MAX_COUNT and sums never wrap.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "formats/input.h"
#include "formats/output.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p, q;
	char err[256] = "", err2[256] = "";
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	profile_init(&p);
	if (profile_read_folded((const char *)data, size, &p, "fuzz", err, sizeof(err)) != 0) {
		if (!err[0])
			abort();
		profile_free(&p);
		return 0;
	}
	for (i = 0; i < p.nsamples; i++)
		if (p.samples[i].count > PROFILE_MAX_COUNT)
			abort();
	if (p.total > PROFILE_MAX_COUNT)
		abort();
	f = open_memstream(&buf, &len);
	if (!f || profile_write_folded(f, &p) != 0)
		abort();
	fclose(f);
	profile_init(&q);
	if (profile_read_folded(buf, len, &q, "again", err2, sizeof(err2)) != 0) {
		fprintf(stderr, "re-read of our own folded output failed: %s\n", err2);
		abort();
	}
	if (q.total != p.total)
		abort();
	profile_free(&q);
	profile_free(&p);
	free(buf);
	return 0;
}
