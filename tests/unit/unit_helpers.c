// SPDX-License-Identifier: GPL-2.0
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "profile/profile.h"

#include "unit_helpers.h"

static int vshell(char *cmd, size_t len, const char *fmt, va_list ap)
{
	int n = vsnprintf(cmd, len, fmt, ap);

	if (n <= 0 || (size_t)n >= len)
		fail_msg("command too long: %.80s...", cmd);
	return system(cmd) == 0 ? 0 : -1;
}

int test_shell(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vshell(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return rc;
}

void test_shell_ok(const char *fmt, ...)
{
	char cmd[8192];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vshell(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (rc != 0)
		fail_msg("command failed: %s", cmd);
}

void *test_read_file(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		fail_msg("cannot open %s", path);
	assert_int_equal(fstat(fd, &st), 0);
	buf = malloc(st.st_size ? st.st_size : 1);
	assert_non_null(buf);
	assert_int_equal(read(fd, buf, st.st_size), st.st_size);
	close(fd);
	*len = st.st_size;
	return buf;
}

uint32_t test_profile_frame(struct profile *p, const char *name, const char *file, uint32_t line,
			    const char *module, uint64_t addr, uint8_t kind)
{
	struct prof_frame f = {
		.name = profile_str(p, name),
		.file = profile_str(p, file),
		.line = line,
		.module = profile_str(p, module),
		.addr = addr,
		.kind = kind,
	};

	return profile_frame(p, &f);
}

void test_profile_sample(struct profile *p, const uint32_t *frames, uint32_t n, const char *comm,
			 const char *event, uint32_t pid, uint32_t tid, uint64_t count)
{
	struct prof_sample s = {
		.comm = profile_str(p, comm),
		.event = profile_str(p, event),
		.pid = pid,
		.tid = tid,
		.count = count,
	};

	assert_int_equal(profile_add_sample(p, frames, n, &s), 0);
}
