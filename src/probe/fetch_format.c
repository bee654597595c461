// SPDX-License-Identifier: GPL-2.0
/*
 * An event's fetched values as text: "r->len=10 r->path=\"/srv/item/0\"".
 * The strings come from the traced process's memory: every byte that is
 * not printable ASCII, and the characters that would end a quoted value or
 * a folded stack's frame (", \, ;), are written \xNN.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "probe/fetch_compile.h"

struct out {
	char *buf;
	size_t size, len;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len >= o->size)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->size - o->len, fmt, ap);
	va_end(ap);
	if (n > 0)
		o->len += (size_t)n < o->size - o->len ? (size_t)n : o->size - o->len - 1;
}

static void put_string(struct out *o, const char *s, size_t max)
{
	size_t i;

	put(o, "\"");
	for (i = 0; i < max && s[i]; i++) {
		unsigned char ch = (unsigned char)s[i];

		if (ch < 0x20 || ch >= 0x7f || ch == '"' || ch == '\\' || ch == ';')
			put(o, "\\x%02x", ch);
		else
			put(o, "%c", ch);
	}
	put(o, "\"");
}

static void put_value(struct out *o, const struct fetch_format *f, uint64_t v)
{
	unsigned int bits = f->bits ? f->bits : f->size * 8;
	union {
		uint32_t u;
		float f;
	} f32;
	union {
		uint64_t u;
		double d;
	} f64;

	v >>= f->shift & 63;	/* a bit field's first bit */

	if (bits && bits < 64)
		v &= (1ull << bits) - 1;
	switch (f->print) {
	case FETCH_PRINT_SIGNED:
		if (bits && bits < 64 && (v >> (bits - 1)) & 1)
			v |= ~0ull << bits;
		put(o, "%" PRId64, (int64_t)v);
		break;
	case FETCH_PRINT_HEX:
		put(o, "0x%" PRIx64, v);
		break;
	case FETCH_PRINT_BOOL:
		put(o, "%s", v ? "true" : "false");
		break;
	case FETCH_PRINT_FLOAT:
		if (f->size == 4) {
			f32.u = (uint32_t)v;
			put(o, "%g", (double)f32.f);
		} else {
			f64.u = v;
			put(o, "%g", f64.d);
		}
		break;
	default:
		put(o, "%" PRIu64, v);
	}
}

char *fetch_format_values(const struct fetch_site *site, const struct fetch_values *v, char *buf,
			  size_t size)
{
	struct out o = { buf, size, 0 };
	uint32_t i;

	if (!size)
		return buf;
	buf[0] = '\0';
	for (i = 0; i < site->nvars && i < FETCH_MAX_VARS; i++) {
		const struct fetch_format *f = &site->fmt[i];

		put(&o, "%s%s=", i ? " " : "", f->label);
		switch (v->status[i]) {
		case FETCH_VALUE_OK:
			put_value(&o, f, v->value[i]);
			break;
		case FETCH_VALUE_STR:
			put_string(&o, v->str[i], FETCH_STR_MAX);
			break;
		case FETCH_VALUE_OPTIMIZED_OUT:
			put(&o, "<optimized out>");
			break;
		default:
			put(&o, "<fault>");
		}
	}
	return buf;
}
