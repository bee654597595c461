// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output.h"

int output_format_for(const char *path)
{
	size_t n = strlen(path);

	if (strcmp(path, "-") == 0)
		return OUTPUT_TEXT;
	if (n >= 4 && strcmp(path + n - 4, ".txt") == 0)
		return OUTPUT_TEXT;
	if (n >= 7 && strcmp(path + n - 7, ".folded") == 0)
		return OUTPUT_FOLDED;
	return -1;
}

void folded_clean(char *buf, size_t len, const char *name)
{
	size_t i;

	/* Bound first: name may be a full fixed-size field (comm) with no NUL. */
	for (i = 0; i + 1 < len && name[i]; i++) {
		unsigned char c = name[i];

		buf[i] = c == ';' ? ':' : (c < 0x20 || c == 0x7f) ? '?' : c;
	}
	buf[i] = '\0';
}

/* A growable string for building one folded line. */
struct sbuf {
	char *s;
	size_t len, cap;
};

static int sbuf_add(struct sbuf *b, const char *s, const char *suffix)
{
	size_t need = strlen(s) + strlen(suffix) + 2;
	size_t start;

	if (b->len + need > b->cap) {
		size_t cap = (b->len + need) * 2;
		char *n = realloc(b->s, cap);

		if (!n)
			return -ENOMEM;
		b->s = n;
		b->cap = cap;
	}
	if (b->len)
		b->s[b->len++] = ';';
	start = b->len;
	folded_clean(b->s + start, b->cap - start, s);
	b->len += strlen(b->s + start);
	strcpy(b->s + b->len, suffix);
	b->len += strlen(suffix);
	return 0;
}

static const char *kind_suffix(uint8_t kind)
{
	switch (kind) {
	case FRAME_KERNEL:
		return "_[k]";
	case FRAME_INLINED:
		return "_[i]";
	default:
		return "";
	}
}

/* Identical lines (same comm and frames, other pid/tid) are merged. */
struct line {
	struct hmap_node node;
	uint64_t count;
	char text[];
};

static bool line_eq(const struct hmap_node *n, const void *key)
{
	return strcmp(((const struct line *)n)->text, key) == 0;
}

static int cmp_line(const void *a, const void *b)
{
	const struct line *x = *(const struct line *const *)a, *y = *(const struct line *const *)b;

	return strcmp(x->text, y->text);
}

int write_folded(FILE *f, struct stack_table *t, struct resolver *r)
{
	struct named_frame *frames = malloc(RESOLVE_MAX_FRAMES * sizeof(*frames));
	struct sbuf b = { NULL, 0, 0 };
	struct line **lines = NULL;
	struct hmap_node *hn;
	struct hmap merged;
	size_t i, nl = 0;
	int rc = 0;

	if (!frames || hmap_init(&merged, t->map.count) != 0) {
		free(frames);
		return -ENOMEM;
	}
	hmap_for_each(&t->map, i, hn) {
		struct stack *s = (struct stack *)hn;
		char comm[STITCH_COMM_LEN + 1];
		int n = resolve_stack(r, &s->key, frames, RESOLVE_MAX_FRAMES), j;
		struct line *l;
		uint64_t h;

		memcpy(comm, s->key.comm, STITCH_COMM_LEN);
		comm[STITCH_COMM_LEN] = '\0';
		b.len = 0;
		rc = sbuf_add(&b, comm[0] ? comm : "[unknown]", "");
		for (j = 0; j < n && !rc; j++)
			rc = sbuf_add(&b, frames[j].name, kind_suffix(frames[j].kind));
		if (rc)
			break;
		h = hash_bytes(b.s, b.len, 0);
		l = (struct line *)hmap_find(&merged, h, line_eq, b.s);
		if (l) {
			l->count += s->count;
			continue;
		}
		l = malloc(sizeof(*l) + b.len + 1);
		if (!l) {
			rc = -ENOMEM;
			break;
		}
		l->count = s->count;
		memcpy(l->text, b.s, b.len + 1);
		hmap_insert(&merged, &l->node, h);
	}
	if (!rc) {
		lines = malloc((merged.count + 1) * sizeof(*lines));
		if (!lines)
			rc = -ENOMEM;
	}
	if (!rc) {
		hmap_for_each(&merged, i, hn)
			lines[nl++] = (struct line *)hn;
		/* Sorted output: diffable, and what FlameGraph expects anyway. */
		qsort(lines, nl, sizeof(*lines), cmp_line);
		for (i = 0; i < nl; i++)
			fprintf(f, "%s %llu\n", lines[i]->text, (unsigned long long)lines[i]->count);
	}
	for (i = 0; i < merged.nbuckets; i++) {
		struct hmap_node *next;

		for (hn = merged.buckets[i]; hn; hn = next) {
			next = hn->next;
			free(hn);
		}
	}
	hmap_free(&merged);
	free(lines);
	free(b.s);
	free(frames);
	return rc;
}

static const char *basename_of(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

int write_text(FILE *f, struct stack_table *t, struct resolver *r, const struct output_info *info)
{
	struct named_frame *frames = malloc(RESOLVE_MAX_FRAMES * sizeof(*frames));
	size_t i;

	if (!frames || stacks_sort(t) != 0) {
		free(frames);
		return -ENOMEM;
	}
	fprintf(f, "stitch: %llu events (%s) in %.1f s, %zu distinct stacks\n",
		(unsigned long long)t->total, info->title, info->seconds, t->nsorted);
	for (i = 0; i < t->nsorted && (int)i < info->top; i++) {
		const struct stack *s = t->sorted[i];
		char comm[STITCH_COMM_LEN + 1];
		int n = resolve_stack(r, &s->key, frames, RESOLVE_MAX_FRAMES), j;
		const char *ev = s->key.event_idx < (uint32_t)info->nevents ?
				 info->event_names[s->key.event_idx] : "?";

		folded_clean(comm, sizeof(comm), s->key.comm);
		fprintf(f, "\n%6.2f%% %8llu  %s  pid %u tid %u  [%s]\n",
			100.0 * s->count / (t->total ? t->total : 1),
			(unsigned long long)s->count, comm, s->key.pid, s->key.tid, ev);
		/* Innermost first, like a debugger backtrace. */
		for (j = n - 1; j >= 0; j--) {
			char name[512];

			folded_clean(name, sizeof(name), frames[j].name);
			fprintf(f, "        %s%s", name, kind_suffix(frames[j].kind));
			if (frames[j].file && frames[j].kind == FRAME_KERNEL)
				fprintf(f, "  %s", frames[j].file);
			else if (frames[j].file)
				fprintf(f, "  (%s:%u)", basename_of(frames[j].file), frames[j].line);
			fputc('\n', f);
		}
	}
	if (t->nsorted > (size_t)info->top)
		fprintf(f, "\n... %zu more stacks (write -o FILE.folded for all of them)\n",
			t->nsorted - info->top);
	free(frames);
	return 0;
}
