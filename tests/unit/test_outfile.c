// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for safe output files (util/outfile.c) and their stale temporaries
 * (util/outfile_stale.c), in a directory of the test's own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>
#include <cmocka.h>

#include "util/outfile.h"
#include "util/outfile_stale.h"
#include "unit_helpers.h"

static char dir[] = "/tmp/stitch_outfile_XXXXXX";

static int make_dir(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
	return test_shell("rm -rf %s", dir);
}

/* dir/name, in a static buffer. */
static const char *at(const char *name)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return path;
}

/* A file in dir, last changed age seconds ago. */
static void make_file(const char *name, long age)
{
	struct timeval tv[2];
	int fd = open(at(name), O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
	gettimeofday(&tv[0], NULL);
	tv[0].tv_sec -= age;
	tv[1] = tv[0];
	assert_int_equal(utimes(at(name), tv), 0);
}

static bool exists(const char *name)
{
	struct stat st;

	return lstat(at(name), &st) == 0;
}

/* Entries of dir, not "." or "..". */
static int entries(void)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		n += strcmp(de->d_name, ".") && strcmp(de->d_name, "..");
	closedir(d);
	return n;
}

static void test_temp_name(void **state)
{
	static const char *const ours[] = {
		".stitch-0.tmp", ".stitch-1a2b3c4d.tmp", ".stitch-ffffffff.tmp", ".stitch-abc.tmp",
	};
	static const char *const others[] = {
		"", ".stitch-.tmp", ".stitch-123456789.tmp", ".stitch-1A.tmp", ".stitch-12.tmpx",
		"stitch-12.tmp", ".stitch-12.TMP", ".stitch-1g.tmp", ".stitch-12", ".stitch-",
		"x.stitch-12.tmp", ".stitch-12.tmp.svg", ".stitch--1.tmp", ".stitch-1 .tmp",
	};
	size_t i;

	for (i = 0; i < sizeof(ours) / sizeof(ours[0]); i++)
		assert_true(outfile_temp_name(ours[i]));
	for (i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		assert_false(outfile_temp_name(others[i]));
}

/* Only old, unlocked temporaries of ours go; everything else stays. */
static void test_clean_stale(void **state)
{
	char victim[PATH_MAX];
	int locked;

	make_file(".stitch-1.tmp", OUTFILE_STALE_AGE + 60);	/* stale */
	make_file(".stitch-2.tmp", 60);				/* being written, maybe */
	make_file(".stitch-3.tmp", OUTFILE_STALE_AGE + 60);	/* a live writer's lock */
	make_file(".stitch-4.tmpx", OUTFILE_STALE_AGE + 60);	/* not our name */
	make_file("victim", OUTFILE_STALE_AGE + 60);
	snprintf(victim, sizeof(victim), "%s", at("victim"));
	assert_int_equal(symlink(victim, at(".stitch-5.tmp")), 0);
	assert_int_equal(mkdir(at(".stitch-6.tmp"), 0700), 0);
	locked = open(at(".stitch-3.tmp"), O_RDONLY);
	assert_true(locked >= 0);
	assert_int_equal(flock(locked, LOCK_EX | LOCK_NB), 0);

	outfile_clean_stale(dir);
	assert_false(exists(".stitch-1.tmp"));
	assert_true(exists(".stitch-2.tmp"));
	assert_true(exists(".stitch-3.tmp"));
	assert_true(exists(".stitch-4.tmpx"));
	assert_true(exists(".stitch-5.tmp"));
	assert_true(exists(".stitch-6.tmp"));
	assert_true(exists("victim"));
	close(locked);
	/* The writer gone (its lock with it): stale now. */
	outfile_clean_stale(dir);
	assert_false(exists(".stitch-3.tmp"));
	test_shell_ok("rm -rf %s/.stitch-* %s/victim", dir, dir);
}

/*
 * Writing a file is when the stale ones go.  Ours has no name while it is
 * written (O_TMPFILE on this tmpfs or ext4): a kill -9 then leaves
 * nothing.  It is locked, for the instant it has a name before the rename.
 */
static void test_open_cleans_and_locks(void **state)
{
	char err[PATH_MAX + 128], proc[64];
	struct outfile of;
	int fd;

	make_file(".stitch-abc.tmp", OUTFILE_STALE_AGE + 1);
	assert_int_equal(outfile_open(&of, at("out.txt"), false, err, sizeof(err)), 0);
	assert_false(exists(".stitch-abc.tmp"));
	assert_true(of.unnamed);
	assert_int_equal(entries(), 0);
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", of.fd);
	fd = open(proc, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), -1);
	assert_int_equal(errno, EWOULDBLOCK);
	close(fd);
	fputs("whole\n", of.f);
	assert_int_equal(outfile_commit(&of, err, sizeof(err)), 0);
	assert_int_equal(entries(), 1);
	assert_true(exists("out.txt"));
	fd = open(at("out.txt"), O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(read(fd, err, sizeof(err)), 6);
	assert_memory_equal(err, "whole\n", 6);
	close(fd);
	/* An abort leaves nothing, and the old file as it was. */
	assert_int_equal(outfile_open(&of, at("out.txt"), false, err, sizeof(err)), 0);
	fputs("other\n", of.f);
	outfile_abort(&of);
	assert_int_equal(entries(), 1);
	unlink(at("out.txt"));
}

/*
 * A directory that passes access checks but takes no new file is found
 * by outfile_check, as the write would find it: /proc (ENOENT) and /sys
 * (EACCES), which let root pass any access check.  A directory that takes one is left as it was.
 */
static void test_check_makes_a_file(void **state)
{
	char err[PATH_MAX + 128];

	/* Root: ENOENT, "does not take new files"; anyone else: EACCES, "not writable". */
	assert_true(outfile_check("/proc/x.svg", false, err, sizeof(err)) < 0);
	assert_int_equal(strncmp(err, "/proc/x.svg: its directory ", 27), 0);
	if (geteuid() == 0)
		assert_string_equal(err, "/proc/x.svg: its directory does not take new files "
					 "(No such file or directory)");
	assert_true(outfile_check("/sys/x.svg", false, err, sizeof(err)) < 0);
	assert_int_equal(strncmp(err, "/sys/x.svg: its directory ", 26), 0);
	assert_int_equal(outfile_check(at("new.svg"), false, err, sizeof(err)), 0);
	assert_int_equal(entries(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_temp_name),
		cmocka_unit_test(test_clean_stale),
		cmocka_unit_test(test_open_cleans_and_locks),
		cmocka_unit_test(test_check_makes_a_file),
	};

	return cmocka_run_group_tests(tests, make_dir, remove_dir);
}
