// SPDX-License-Identifier: GPL-2.0
/* UTF-8 from untrusted bytes: see utf8.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/utf8.h"

size_t utf8_char_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and out-of-range code points are invalid. */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

bool utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, len;

	while (i < n) {
		/* ASCII runs first: nearly every name is ASCII. */
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		len = utf8_char_len(s + i, n - i);
		if (!len)
			return false;
		i += len;
	}
	return true;
}

char *utf8_clean(const char *str, size_t n, size_t *len)
{
	const unsigned char *s = (const unsigned char *)str;
	char *out = malloc(n * 3 + 1);
	size_t i = 0, o = 0, k;

	if (!out)
		return NULL;
	while (i < n) {
		k = utf8_char_len(s + i, n - i);
		if (k) {
			memcpy(out + o, s + i, k);
			o += k;
			i += k;
		} else {
			memcpy(out + o, "\xef\xbf\xbd", 3);
			o += 3;
			i++;
		}
	}
	out[o] = '\0';
	*len = o;
	return out;
}
