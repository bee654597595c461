// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "formats/protobuf.h"
#include "util/utf8.h"

void pb_buf_free(struct pb_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

static bool pb_reserve(struct pb_buf *b, size_t more)
{
	size_t cap;
	uint8_t *d;

	if (b->oom)
		return false;
	if (more <= b->cap - b->len)
		return true;
	cap = b->cap ? b->cap : 256;
	while (cap - b->len < more) {
		if (cap > SIZE_MAX / 2) {
			b->oom = true;
			return false;
		}
		cap *= 2;
	}
	d = realloc(b->data, cap);
	if (!d) {
		b->oom = true;
		return false;
	}
	b->data = d;
	b->cap = cap;
	return true;
}

void pb_put_raw(struct pb_buf *b, const void *data, size_t len)
{
	if (!len || !pb_reserve(b, len))
		return;
	memcpy(b->data + b->len, data, len);
	b->len += len;
}

void pb_put_varint(struct pb_buf *b, uint64_t v)
{
	uint8_t tmp[10];
	size_t n = 0;

	while (v >= 0x80) {
		tmp[n++] = (uint8_t)v | 0x80;
		v >>= 7;
	}
	tmp[n++] = (uint8_t)v;
	pb_put_raw(b, tmp, n);
}

static void pb_put_tag(struct pb_buf *b, uint32_t field, enum pb_wire wire)
{
	pb_put_varint(b, (uint64_t)field << 3 | wire);
}

void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v)
{
	pb_put_tag(b, field, PB_VARINT);
	pb_put_varint(b, v);
}

void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len)
{
	pb_put_tag(b, field, PB_LEN);
	pb_put_varint(b, len);
	pb_put_raw(b, data, len);
}

void pb_put_string(struct pb_buf *b, uint32_t field, const char *s, size_t len)
{
	char *clean;
	size_t n;

	if (utf8_valid(s, len)) {
		pb_put_bytes(b, field, s, len);
		return;
	}
	clean = utf8_clean(s, len, &n);
	if (!clean) {
		b->oom = true;
		return;
	}
	pb_put_bytes(b, field, clean, n);
	free(clean);
}

bool pb_read_varint(struct pb_reader *r, uint64_t *v)
{
	uint64_t x = 0;
	int shift;

	for (shift = 0; shift < 64; shift += 7) {
		uint8_t c;

		if (r->p >= r->end)
			return false;
		c = *r->p++;
		/* The 10th byte may only carry the top bit of 64. */
		if (shift == 63 && c > 1)
			return false;
		x |= (uint64_t)(c & 0x7f) << shift;
		if (!(c & 0x80)) {
			*v = x;
			return true;
		}
	}
	return false;
}

int pb_next(struct pb_reader *r, struct pb_field *f)
{
	uint64_t tag, len;

	if (r->p >= r->end)
		return 0;
	if (!pb_read_varint(r, &tag) || tag >> 3 == 0 || tag >> 3 > UINT32_MAX >> 3)
		return -1;
	f->num = tag >> 3;
	f->wire = tag & 7;
	f->v = 0;
	f->data = NULL;
	f->len = 0;
	switch (f->wire) {
	case PB_VARINT:
		return pb_read_varint(r, &f->v) ? 1 : -1;
	case PB_FIXED64:
		if (r->end - r->p < 8)
			return -1;
		memcpy(&f->v, r->p, 8);	/* little-endian host (x86) */
		r->p += 8;
		return 1;
	case PB_FIXED32:
		if (r->end - r->p < 4)
			return -1;
		{
			uint32_t v32;

			memcpy(&v32, r->p, 4);
			f->v = v32;
		}
		r->p += 4;
		return 1;
	case PB_LEN:
		if (!pb_read_varint(r, &len) || len > (uint64_t)(r->end - r->p))
			return -1;
		f->data = r->p;
		f->len = len;
		r->p += len;
		return 1;
	default:
		return -1;
	}
}

int pb_scalars_init(struct pb_scalars *s, const struct pb_field *f)
{
	if (f->wire == PB_VARINT) {
		s->single = f->v;
		s->state = 1;
		return 0;
	}
	if (f->wire == PB_LEN) {
		pb_reader_init(&s->r, f->data, f->len);
		s->state = 0;
		return 0;
	}
	return -1;
}

int pb_scalars_next(struct pb_scalars *s, uint64_t *v)
{
	if (s->state == 1) {
		*v = s->single;
		s->state = 2;
		return 1;
	}
	if (s->state == 2 || s->r.p >= s->r.end)
		return 0;
	return pb_read_varint(&s->r, v) ? 1 : -1;
}
