// SPDX-License-Identifier: GPL-2.0
/* JSON strings from untrusted text: see json.h. */
#include <stdint.h>
#include <string.h>

#include "formats/json.h"
#include "util/utf8.h"

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
		} else if ((len = utf8_char_len(s + i, n - i)) == 0) {
			fputs("\\ufffd", f);
			i++;
		} else {
			fwrite(s + i, 1, len, f);
			i += len;
		}
	}
	fputc('"', f);
}
