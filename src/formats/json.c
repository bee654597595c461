// SPDX-License-Identifier: GPL-2.0
/* JSON strings from untrusted text: see json.h. */
#include <stdint.h>
#include <string.h>

#include "formats/json.h"

/* Length of the valid UTF-8 sequence at s (max n bytes), 0 if invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
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

void json_string(FILE *f, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str), i = 0;

	fputc('"', f);
	while (i < n) {
		unsigned char c = s[i];
		size_t len;

		if (c == '"' || c == '\\') {
			fputc('\\', f);
			fputc(c, f);
			i++;
		} else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&') {
			/* < > & too: the file may end up inside HTML. */
			fprintf(f, "\\u%04x", c);
			i++;
		} else if ((len = utf8_len(s + i, n - i)) == 0) {
			fputs("\\ufffd", f);
			i++;
		} else {
			fwrite(s + i, 1, len, f);
			i += len;
		}
	}
	fputc('"', f);
}
