// SPDX-License-Identifier: GPL-2.0
/* stitch snapshot's -o files: see snap_outputs.h. */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "formats/output.h"
#include "snapshot/snap_outputs.h"

int snap_outputs_open(struct snap_outputs *so, const char *const *paths, const int *formats,
		      int n, bool force)
{
	char err[PATH_MAX + 128];
	int i;

	memset(so, 0, sizeof(*so));
	so->paths = paths;
	so->formats = formats;
	so->n = n;
	so->force = force;
	for (i = 0; i < n; i++) {
		bool json = formats[i] == OUTPUT_JSON;
		FILE *f = stdout;

		if (!json && formats[i] != OUTPUT_TEXT) {
			so->profiles = true;
			continue;
		}
		if (strcmp(paths[i], "-")) {
			if (outfile_open(&so->files[i], paths[i], force, err, sizeof(err))) {
				fprintf(stderr, "stitch snapshot: cannot write %s\n", err);
				snap_outputs_close(so, false);
				return -1;
			}
			f = so->files[i].f;
		}
		if (json)
			so->jsons[so->njsons++] = f;
		else
			so->texts[so->ntexts++] = f;
	}
	if (!n)
		so->texts[so->ntexts++] = stdout;
	return 0;
}

const char *snap_outputs_json_sep(struct snap_outputs *so)
{
	bool first = !so->json_started;

	so->json_started = true;
	return first ? "[" : ",";
}

int snap_outputs_close(struct snap_outputs *so, bool ok)
{
	char err[PATH_MAX + 128];
	int i, rc = 0;

	for (i = 0; ok && i < so->njsons; i++)
		fprintf(so->jsons[i], "%s]\n", so->json_started ? "" : "[");
	for (i = 0; i < so->n; i++) {
		struct outfile *of = &so->files[i];

		if (!of->f)
			continue;
		if (!ok) {
			outfile_abort(of);
			continue;
		}
		if (outfile_commit(of, err, sizeof(err))) {
			fprintf(stderr, "stitch snapshot: cannot write %s\n", err);
			rc = -1;
		}
	}
	if (fflush(stdout) != 0 && ok) {
		fprintf(stderr, "stitch snapshot: cannot write to stdout: %s\n", strerror(errno));
		rc = -1;
	}
	return ok ? rc : -1;
}
