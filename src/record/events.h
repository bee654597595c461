/* SPDX-License-Identifier: GPL-2.0 */
/* Event specifications as the user writes them with -e. */
#ifndef STITCH_EVENTS_H
#define STITCH_EVENTS_H

#include <stdbool.h>
#include <stddef.h>

enum event_kind {
	EVENT_CPU,		/* cpu: software cpu-clock sampling */
	EVENT_SYSCALL,		/* syscall:NAME -> syscalls:sys_enter_NAME */
	EVENT_TRACEPOINT,	/* tracepoint:CATEGORY:NAME */
	EVENT_UPROBE,		/* uprobe:PATH:SYMBOL */
	EVENT_USDT,		/* usdt:PATH:PROVIDER:NAME */
	EVENT_KPROBE,		/* kprobe:FUNC */
	EVENT_OFFCPU,		/* offcpu: time off the CPU, stack at switch-out */
	EVENT_ALLOC,		/* alloc: bytes allocated (sampled), stack at the allocator's entry */
};

struct event_spec {
	enum event_kind kind;
	char *text;		/* as given, for reports */
	char *a, *b, *c;	/* tracepoint: category, name; uprobe: path, symbol
				 * (a line probe's: path, "FUNC:RELLINE" or "@FILE:LINE");
				 * usdt: path, provider, name; kprobe: function (a
				 * kernel line's: b, "FUNC:RELLINE" or "@FILE:LINE") */
	bool line;		/* uprobe, kprobe: on a source line (probe/line_probe.h) */
};

#define EVENT_SYNTAX \
	"cpu, offcpu, alloc, syscall:NAME, tracepoint:CATEGORY:NAME, uprobe:PATH:SYMBOL, " \
	"uprobe:PATH:FUNC:RELLINE, uprobe:PATH@FILE:LINE, usdt:PATH:PROVIDER:NAME, kprobe:FUNC, " \
	"kprobe:FUNC:RELLINE or kprobe:@FILE:LINE"

/* Parse text; on error fill err with a message for the user and return -EINVAL. */
int event_parse(const char *text, struct event_spec *ev, char *err, size_t errlen);
void event_free(struct event_spec *ev);
/* uprobe:PATH:FUNC as a line probe on FUNC's entry (for --fetch); -EINVAL if not a FUNC. */
int event_uprobe_entry_as_line(struct event_spec *ev);

#endif /* STITCH_EVENTS_H */
