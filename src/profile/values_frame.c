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

/* The pairs, and whether they are the whole name (*whole). */
static int pairs(const char *name, struct value_pair *out, int max, bool *whole)
{
	size_t len = strlen(name);
	const char *p, *end, *eq;
	int n = 0;

	*whole = false;
	if (len < 2 || name[0] != '[' || name[len - 1] != ']')
		return 0;
	p = name + 1;
	end = name + len - 1;
	while (p < end && n < max) {
		if (n && *p++ != ' ')
			return n;
		eq = memchr(p, '=', end - p);
		if (!eq || eq == p || memchr(p, ' ', eq - p))
			return n;
		out[n].key = p;
		out[n].keylen = eq - p;
		out[n].quoted = eq[1] == '"';
		p = value_end(eq + 1, end, &out[n].val, &out[n].vallen);
		n++;
	}
	*whole = n > 0 && p == end;
	return n;
}

int values_frame_pairs(const char *name, struct value_pair *out, int max)
{
	bool whole;

	return pairs(name, out, max, &whole);
}

bool values_frame_is(const char *name)
{
	struct value_pair v[VALUE_PAIRS_MAX];
	bool whole;

	pairs(name, v, VALUE_PAIRS_MAX, &whole);
	return whole;
}
