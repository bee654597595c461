// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/line_probe.h"
#include "record/events.h"

static bool is_ident(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return false;
	return true;
}

/* Split s at its last ':' into head and tail (both non-empty). */
static int split_last(const char *s, char **head, char **tail)
{
	const char *colon = strrchr(s, ':');

	if (!colon || colon == s || !colon[1])
		return -EINVAL;
	*head = strndup(s, colon - s);
	*tail = strdup(colon + 1);
	return *head && *tail ? 0 : -ENOMEM;
}

static int fail(char *err, size_t errlen, const char *text, const char *why)
{
	snprintf(err, errlen, "bad event '%s': %s", text, why);
	return -EINVAL;
}

/*
 * A uprobe on a function by name, as a line probe on its entry: the entry
 * of each copy of its code (inlined ones too, as perf probe puts them),
 * where DWARF says where its arguments are.  --fetch reads them there; a
 * bare uprobe has only the symbol's address, not their locations.
 */
int event_uprobe_entry_as_line(struct event_spec *ev)
{
	if (ev->kind != EVENT_UPROBE || ev->line || !is_ident(ev->b) ||
	    isdigit((unsigned char)ev->b[0]))
		return -EINVAL;
	/* ev->b stays "FUNC": line_spec_parse reads it as the function, no line (its entry) */
	ev->line = true;
	return 0;
}

int event_parse(const char *text, struct event_spec *ev, char *err, size_t errlen)
{
	const char *rest;

	memset(ev, 0, sizeof(*ev));
	ev->text = strdup(text);
	if (!ev->text)
		return -ENOMEM;

	if (strcmp(text, "cpu") == 0 || strcmp(text, "cpu-clock") == 0) {
		ev->kind = EVENT_CPU;
		return 0;
	}
	if (strcmp(text, "offcpu") == 0 || strcmp(text, "off-cpu") == 0) {
		ev->kind = EVENT_OFFCPU;
		return 0;
	}
	if (strcmp(text, "alloc") == 0) {
		ev->kind = EVENT_ALLOC;
		return 0;
	}
	if (strncmp(text, "syscall:", 8) == 0) {
		rest = text + 8;
		ev->kind = EVENT_SYSCALL;
		if (!is_ident(rest))
			return fail(err, errlen, text, "expected syscall:NAME, e.g. syscall:openat");
		ev->a = strdup("syscalls");
		if (asprintf(&ev->b, "sys_enter_%s", rest) < 0)
			ev->b = NULL;
		return ev->a && ev->b ? 0 : -ENOMEM;
	}
	if (strncmp(text, "tracepoint:", 11) == 0) {
		ev->kind = EVENT_TRACEPOINT;
		if (split_last(text + 11, &ev->a, &ev->b) != 0 || !is_ident(ev->a) || !is_ident(ev->b))
			return fail(err, errlen, text,
				    "expected tracepoint:CATEGORY:NAME, e.g. tracepoint:sched:sched_switch");
		return 0;
	}
	if (strncmp(text, "uprobe:", 7) == 0) {
		ev->kind = EVENT_UPROBE;
		int rc = line_probe_split(text + 7, &ev->a, &ev->b, &ev->line);

		if (rc == -ENOMEM)
			return rc;
		if (ev->line) {
			struct line_spec spec;
			char *copy = rc ? NULL : strdup(ev->b);

			rc = rc ? rc : copy ? line_spec_parse(copy, &spec) : -ENOMEM;

			free(copy);
			if (rc == -ENOMEM)
				return rc;
			if (rc)
				return fail(err, errlen, text, "expected uprobe:PATH:FUNC:RELLINE or "
					    "uprobe:PATH@FILE:LINE, e.g. uprobe:./server:handle:4");
			return 0;
		}
		free(ev->a);
		free(ev->b);
		ev->a = ev->b = NULL;
		ev->line = false;
		if (split_last(text + 7, &ev->a, &ev->b) != 0)
			return fail(err, errlen, text,
				    "expected uprobe:PATH:SYMBOL, e.g. uprobe:libc.so.6:malloc");
		return 0;
	}
	if (strncmp(text, "usdt:", 5) == 0) {
		char *head = NULL;
		int rc;

		ev->kind = EVENT_USDT;
		rc = split_last(text + 5, &head, &ev->c);
		if (rc == 0)
			rc = split_last(head, &ev->a, &ev->b);
		free(head);
		if (rc != 0)
			return fail(err, errlen, text,
				    "expected usdt:PATH:PROVIDER:NAME, e.g. usdt:/usr/bin/python3.11:python:gc__start");
		return 0;
	}
	if (strncmp(text, "kprobe:", 7) == 0) {
		struct line_spec spec;
		char *copy;
		int rc;

		ev->kind = EVENT_KPROBE;
		if (is_ident(text + 7)) {
			ev->a = strdup(text + 7);
			return ev->a ? 0 : -ENOMEM;
		}
		/* A kernel source line, FUNC:RELLINE or @FILE:LINE: the kernel's DWARF places it */
		copy = strdup(text + 7);
		if (!copy)
			return -ENOMEM;
		rc = line_spec_parse(copy, &spec);
		free(copy);
		if (rc || spec.line < 0)
			return fail(err, errlen, text, "expected kprobe:FUNCTION, kprobe:FUNC:RELLINE "
				    "or kprobe:@FILE:LINE (a kernel source line)");
		ev->line = true;
		ev->b = strdup(text + 7);
		return ev->b ? 0 : -ENOMEM;
	}
	snprintf(err, errlen, "unknown event '%s': expected %s", text, EVENT_SYNTAX);
	return -EINVAL;
}

void event_free(struct event_spec *ev)
{
	free(ev->text);
	free(ev->a);
	free(ev->b);
	free(ev->c);
	memset(ev, 0, sizeof(*ev));
}
