// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the pprof reader: the input is read as a pprof file
 * (gzipped or raw).  Whatever the reader accepts must be writable, and our
 * own output of it must be accepted again: a profile `stitch report` loads
 * can always be saved and reloaded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "formats/pprof.h"
#include "profile/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct profile p, q;
	char err[256], err2[256];
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	profile_init(&p);
	if (pprof_read(data, size, &p, err, sizeof(err)) != 0) {
		if (!err[0])
			abort();	/* every refusal must say why */
		profile_free(&p);
		return 0;
	}
	f = open_memstream(&buf, &len);
	if (!f)
		abort();
	if (pprof_write(f, &p) != 0)
		abort();
	fclose(f);
	profile_init(&q);
	if (pprof_read((const uint8_t *)buf, len, &q, err2, sizeof(err2)) != 0) {
		fprintf(stderr, "re-read of our own output failed: %s\n", err2);
		abort();
	}
	if (q.nsamples != p.nsamples || q.total != p.total)
		abort();
	profile_free(&q);
	profile_free(&p);
	free(buf);
	return 0;
}
