/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the unit tests (linked into every test binary). */
#ifndef STITCH_UNIT_HELPERS_H
#define STITCH_UNIT_HELPERS_H

#include <stddef.h>

/* Run a shell command built from fmt; 0 if it exited 0, else -1. */
int test_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, failing the current test (with the command) if it fails. */
void test_shell_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The whole file in a malloc'd buffer; fails the current test if unreadable. */
void *test_read_file(const char *path, size_t *len);

#endif /* STITCH_UNIT_HELPERS_H */
