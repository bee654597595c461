// SPDX-License-Identifier: GPL-2.0
/*
 * System call numbers by name: the table the Makefile made from the
 * compiler's <asm/unistd.h> (build/syscall_numbers.h), sorted by name.  The
 * kernel has no file that says them; a syscall event that must be taken by
 * the raw tracepoint sys_enter (record/attach.c) is matched by number.
 */
#include <asm/unistd.h>
#include <stdlib.h>
#include <string.h>

#include "record/syscall_nr.h"

struct syscall_name {
	const char *name;
	int nr;
};

static const struct syscall_name syscalls[] = {
#include "syscall_numbers.h"
};

static int by_name(const void *key, const void *elem)
{
	return strcmp(key, ((const struct syscall_name *)elem)->name);
}

int syscall_nr_of(const char *name)
{
	const struct syscall_name *s = bsearch(name, syscalls, sizeof(syscalls) / sizeof(syscalls[0]),
					       sizeof(syscalls[0]), by_name);

	return s ? s->nr : -1;
}
