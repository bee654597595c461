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
	struct stitch_unwind_row marked = { .cfa_rule = rule };
	struct table_range r = { lo, hi };

	return unwind_table_mark_ranges(t, &r, 1, &marked, after);
}

int unwind_table_mark_ranges(struct unwind_table *t, const struct table_range *r, size_t n,
			     const struct stitch_unwind_row *row, uint8_t after)
{
	struct stitch_unwind_row *rows, marked = *row, next = { .cfa_rule = after };
	size_t i = 0, k, nr = 0;

	rows = calloc(t->nr + 2 * n + 1, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (k = 0; k < n; k++) {
		for (; i < t->nr && t->rows[i].pc < r[k].lo; i++)
			put_row(rows, &nr, &t->rows[i]);
		marked.pc = (uint32_t)r[k].lo;
		put_row(rows, &nr, &marked);
		/* Rows inside [lo, hi) are the ones this range replaces. */
		while (i < t->nr && t->rows[i].pc < r[k].hi)
			i++;
		/* What follows: the next range, a row of its own, or `after`. */
		if ((k + 1 == n || r[k + 1].lo != r[k].hi) && (i == t->nr || t->rows[i].pc != r[k].hi)) {
			next.pc = (uint32_t)r[k].hi;
			put_row(rows, &nr, &next);
		}
	}
	for (; i < t->nr; i++)
		put_row(rows, &nr, &t->rows[i]);
	free(t->rows);
	t->rows = rows;
	t->nr = nr;
	unwind_table_unindex(t);
	return 0;
}
