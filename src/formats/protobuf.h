/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The protobuf wire format, just enough for profile.proto: a growable
 * buffer to encode into, and a bounds-checked cursor to decode untrusted
 * bytes with.  No schema here; the caller knows the field numbers.
 */
#ifndef STITCH_PROTOBUF_H
#define STITCH_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pb_wire {
	PB_VARINT = 0,
	PB_FIXED64 = 1,
	PB_LEN = 2,		/* strings, bytes, messages, packed repeated */
	PB_FIXED32 = 5,		/* 3 and 4 (groups) are refused by the reader */
};

/* ---- encoding ---- */

struct pb_buf {
	uint8_t *data;
	size_t len, cap;
	bool oom;		/* sticky: checked once at the end */
};

void pb_buf_free(struct pb_buf *b);
static inline void pb_buf_reset(struct pb_buf *b)
{
	b->len = 0;
}
void pb_put_raw(struct pb_buf *b, const void *data, size_t len);
void pb_put_varint(struct pb_buf *b, uint64_t v);
/* A varint field (uint64, int64 as two's complement, bool). */
void pb_put_uint(struct pb_buf *b, uint32_t field, uint64_t v);
/* A length-delimited field: bytes or an encoded message. */
void pb_put_bytes(struct pb_buf *b, uint32_t field, const void *data, size_t len);
/*
 * A string field: valid UTF-8 always (protobuf's rule; a peer refuses the
 * whole message otherwise), each byte of s that starts no valid sequence
 * sent as U+FFFD.
 */
void pb_put_string(struct pb_buf *b, uint32_t field, const char *s, size_t len);

/* ---- decoding ---- */

struct pb_reader {
	const uint8_t *p, *end;
};

struct pb_field {
	uint32_t num;
	uint8_t wire;		/* enum pb_wire */
	uint64_t v;		/* PB_VARINT, PB_FIXED64, PB_FIXED32 */
	const uint8_t *data;	/* PB_LEN */
	size_t len;
};

static inline void pb_reader_init(struct pb_reader *r, const uint8_t *data, size_t len)
{
	r->p = data;
	r->end = data + len;
}

/* One varint; false if truncated or longer than 10 bytes / 64 bits. */
bool pb_read_varint(struct pb_reader *r, uint64_t *v);

/*
 * The next field with its value (so unknown fields are skipped by simply
 * ignoring them): 1 if one was read, 0 at the clean end, -1 on malformed
 * input (bad tag, field number 0, group wire types, length past the end).
 */
int pb_next(struct pb_reader *r, struct pb_field *f);

/*
 * Iterate a repeated varint field that may come packed (PB_LEN) or not
 * (PB_VARINT): start with pb_scalars_init on each occurrence, then
 * pb_scalars_next until it returns 0 (done) or -1 (malformed).
 */
struct pb_scalars {
	struct pb_reader r;
	uint64_t single;
	int state;		/* 0: packed, 1: single value left, 2: done */
};
int pb_scalars_init(struct pb_scalars *s, const struct pb_field *f);
int pb_scalars_next(struct pb_scalars *s, uint64_t *v);

#endif /* STITCH_PROTOBUF_H */
