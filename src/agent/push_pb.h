/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the three encoders share beyond protobuf.h: a length-delimited
 * field's header written before its body, so a big body (a period's
 * pprof, megabytes) is copied into the request once instead of once per
 * level of nesting.  Private to src/agent/push_*.c.
 */
#ifndef STITCH_AGENT_PUSH_PB_H
#define STITCH_AGENT_PUSH_PB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "agent/push.h"
#include "formats/protobuf.h"

/* Bytes a varint of v takes. */
static inline size_t pb_varint_size(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/* Bytes a length-delimited field of len bytes takes, header included. */
static inline size_t pb_len_field_size(uint32_t field, size_t len)
{
	return pb_varint_size((uint64_t)field << 3 | PB_LEN) + pb_varint_size(len) + len;
}

/* The tag and length of a length-delimited field whose len bytes the caller puts next. */
static inline void pb_put_len_header(struct pb_buf *b, uint32_t field, size_t len)
{
	pb_put_varint(b, (uint64_t)field << 3 | PB_LEN);
	pb_put_varint(b, len);
}

static inline void pb_put_str(struct pb_buf *b, uint32_t field, const char *s)
{
	pb_put_string(b, field, s, strlen(s));
}

/* A label worth sending: a name and a value, both non-empty (empty means absent). */
static inline bool push_label_set(const struct push_label *l)
{
	return l->name && l->name[0] && l->value && l->value[0];
}

#endif /* STITCH_AGENT_PUSH_PB_H */
