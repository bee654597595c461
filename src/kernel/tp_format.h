/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracepoint's format, as the kernel publishes it in tracefs
 * (events/CAT/NAME/format): its fields, "field:TYPE NAME; offset:N;
 * size:N; signed:N;" each, read bounded.  latency's roots and keys and
 * record's --fetch both read it.
 */
#ifndef STITCH_KERNEL_TP_FORMAT_H
#define STITCH_KERNEL_TP_FORMAT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define TP_TRACEFS "/sys/kernel/tracing"
#define TP_EVENTS_DIR TP_TRACEFS "/events"

struct tp_field {
	char type[96];		/* as declared, without the name: "const char *" */
	char name[64];
	uint32_t off, size;	/* in the record */
	bool is_signed;
	bool array;		/* "char comm[16]" */
	bool data_loc;		/* "__data_loc char[] name": a u32, offset | length << 16 */
};

/*
 * The fields of the format text in f, the common_ ones left out, up to max:
 * how many.  A line too long, or not a field, is skipped.
 */
int tp_format_read(FILE *f, struct tp_field *fields, int max);

/* The same from events_dir/CAT/NAME/format: how many, or -errno. */
int tp_format_fields(const char *events_dir, const char *cat, const char *name,
		     struct tp_field *fields, int max);

#endif /* STITCH_KERNEL_TP_FORMAT_H */
