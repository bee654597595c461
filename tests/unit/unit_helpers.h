/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers shared by the unit tests (linked into every test binary). */
#ifndef STITCH_UNIT_HELPERS_H
#define STITCH_UNIT_HELPERS_H

#include <stddef.h>
#include <stdint.h>

struct profile;

/* Run a shell command built from fmt; 0 if it exited 0, else -1. */
int test_shell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same, failing the current test (with the command) if it fails. */
void test_shell_ok(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The whole file in a malloc'd buffer; fails the current test if unreadable. */
void *test_read_file(const char *path, size_t *len);

/* A frame interned in p (profile_frame); its index. */
uint32_t test_profile_frame(struct profile *p, const char *name, const char *file, uint32_t line,
			    const char *module, uint64_t addr, uint8_t kind);
/* A sample of frames (outermost first) added to p; fails the test if it cannot be. */
void test_profile_sample(struct profile *p, const uint32_t *frames, uint32_t n, const char *comm,
			 const char *event, uint32_t pid, uint32_t tid, uint64_t count);

#endif /* STITCH_UNIT_HELPERS_H */
