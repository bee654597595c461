// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>

#include "unwind/table_edit.h"

static void put_row(struct stitch_unwind_row *rows, size_t *n, const struct stitch_unwind_row *r)
{
	if (*n && unwind_row_same_rule(&rows[*n - 1], r))
		return;
	rows[(*n)++] = *r;
}

int unwind_table_mark(struct unwind_table *t, uint64_t lo, uint64_t hi, uint8_t rule,
		      uint8_t after)
{
	struct stitch_unwind_row marked = { .pc = (uint32_t)lo, .cfa_rule = rule };
	struct stitch_unwind_row next = { .pc = (uint32_t)hi, .cfa_rule = after };
	struct stitch_unwind_row *rows;
	size_t i = 0, n = 0;

	rows = calloc(t->nr + 2, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (; i < t->nr && t->rows[i].pc < lo; i++)
		put_row(rows, &n, &t->rows[i]);
	put_row(rows, &n, &marked);
	/* Rows inside [lo, hi) are the ones this range replaces. */
	while (i < t->nr && t->rows[i].pc < hi)
		i++;
	if (i == t->nr || t->rows[i].pc != hi)
		put_row(rows, &n, &next);
	for (; i < t->nr; i++)
		put_row(rows, &n, &t->rows[i]);
	free(t->rows);
	t->rows = rows;
	t->nr = n;
	return 0;
}
