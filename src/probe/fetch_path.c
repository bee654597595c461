// SPDX-License-Identifier: GPL-2.0
/* --fetch expressions parsed (fetch_path.h): the text only, no types yet. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "probe/fetch_path.h"

static bool ident_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_';
}

static int take_ident(const char **s, char *out, size_t size)
{
	size_t n = 0;

	if (!ident_char(**s) || isdigit((unsigned char)**s))
		return -EINVAL;
	while (ident_char(**s)) {
		if (n + 1 >= size)
			return -EINVAL;
		out[n++] = *(*s)++;
	}
	out[n] = '\0';
	return 0;
}

int fetch_path_parse(const char *text, struct fetch_path *p, char *label, size_t lsize)
{
	const char *s = text, *colon = strrchr(text, ':');
	size_t len = colon ? (size_t)(colon - text) : strlen(text);

	memset(p, 0, sizeof(*p));
	if (colon) {
		if (!colon[1] || strlen(colon + 1) >= sizeof(p->cast))
			return -EINVAL;
		strcpy(p->cast, colon + 1);
	}
	if (len >= lsize)
		return -EINVAL;
	memcpy(label, text, len);
	label[len] = '\0';
	if (take_ident(&s, p->base, sizeof(p->base)))
		return -EINVAL;
	while (s < text + len) {
		struct fetch_access *a;
		char *end;

		if (p->nsteps >= FETCH_PATH_MAX_STEPS)
			return -EINVAL;
		a = &p->step[p->nsteps++];
		if (s[0] == '-' && s[1] == '>') {
			s += 2;
			a->kind = ACC_ARROW;
		} else if (s[0] == '.') {
			s++;
			a->kind = ACC_DOT;
		} else if (s[0] == '[') {
			errno = 0;
			a->index = strtol(s + 1, &end, 10);
			if (errno || end == s + 1 || *end != ']' || a->index < 0 ||
			    a->index > INT_MAX)
				return -EINVAL;
			a->kind = ACC_INDEX;
			s = end + 1;
			continue;
		} else {
			return -EINVAL;
		}
		if (take_ident(&s, a->name, sizeof(a->name)))
			return -EINVAL;
	}
	return s == text + len ? 0 : -EINVAL;
}

bool fetch_cast_parse(const char *cast, struct fetch_format *f)
{
	char *end;
	long bits;

	if (!cast[0] || !strchr("usx", cast[0]))
		return false;
	bits = strtol(cast + 1, &end, 10);
	if (*end || (bits != 8 && bits != 16 && bits != 32 && bits != 64))
		return false;
	f->size = bits / 8;
	f->print = cast[0] == 'u' ? FETCH_PRINT_UNSIGNED :
		   cast[0] == 's' ? FETCH_PRINT_SIGNED : FETCH_PRINT_HEX;
	return true;
}
