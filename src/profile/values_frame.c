// SPDX-License-Identifier: GPL-2.0
/* A values frame's pairs: see values_frame.h. */
#include <string.h>

#include "profile/values_frame.h"

/* Where a value starting at p ends (exclusive), in the name ending at end. */
static const char *value_end(const char *p, const char *end, const char **body,
			     size_t *len)
{
	const char *q = p;

	if (*p == '"') {
		for (q = p + 1; q < end && *q != '"'; q++)
			if (*q == '\\' && q + 1 < end)
				q++;
		*body = p + 1;
		*len = q - (p + 1);
		return q < end ? q + 1 : end;
	}
	if (*p == '<') {
		q = memchr(p, '>', end - p);
		q = q ? q + 1 : end;
	} else {
		while (q < end && *q != ' ')
			q++;
	}
	*body = p;
	*len = q - p;
	return q;
}

int values_frame_pairs(const char *name, struct value_pair *out, int max)
{
	size_t len = strlen(name);
	const char *p, *end, *eq;
	int n = 0;

	if (len < 2 || name[0] != '[' || name[len - 1] != ']')
		return 0;
	p = name + 1;
	end = name + len - 1;
	while (p < end && n < max) {
		while (p < end && *p == ' ')
			p++;
		eq = memchr(p, '=', end - p);
		if (!eq || eq == p)
			break;
		out[n].key = p;
		out[n].keylen = eq - p;
		out[n].quoted = eq[1] == '"';
		p = value_end(eq + 1, end, &out[n].val, &out[n].vallen);
		n++;
	}
	return n;
}
