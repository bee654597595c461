// SPDX-License-Identifier: GPL-2.0
/*
 * kstacks BUSY QUIET: for BUSY seconds, system calls of many kinds (files in
 * /proc, directories, pipes, memory mappings), so that samples find the
 * kernel in many distinct stacks; then QUIET seconds of user-space work only,
 * where samples have no kernel stack.  For the test that the agent's kernel
 * stack maps let go of a period's stacks once later periods are read.
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void busy_once(int devnull, int pipefd[2])
{
	static const char *const files[] = {
		"/proc/self/status", "/proc/self/maps", "/proc/self/stat", "/proc/meminfo",
		"/proc/cpuinfo", "/proc/self/environ", "/proc/loadavg", "/proc/self/mountinfo",
	};
	char buf[8192];
	struct stat st;
	struct dirent *d;
	unsigned int i;
	DIR *dir;
	char *m;
	int fd;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		fd = open(files[i], O_RDONLY);
		if (fd < 0)
			continue;
		while (read(fd, buf, sizeof(buf)) > 0)
			;
		close(fd);
	}
	stat("/usr/bin", &st);
	dir = opendir("/usr/lib/x86_64-linux-gnu");
	while (dir && (d = readdir(dir)))
		lstat(d->d_name, &st);
	if (dir)
		closedir(dir);
	memset(buf, 'x', sizeof(buf));
	if (write(devnull, buf, sizeof(buf)) < 0 || write(pipefd[1], buf, 4096) < 0 ||
	    read(pipefd[0], buf, 4096) < 0)
		exit(1);
	m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m != MAP_FAILED) {
		for (i = 0; i < 1 << 20; i += 4096)
			m[i] = 1;
		munmap(m, 1 << 20);
	}
}

int main(int argc, char **argv)
{
	double busy = argc > 1 ? atof(argv[1]) : 3, quiet = argc > 2 ? atof(argv[2]) : 5;
	double t0 = now();
	volatile unsigned long spin = 0;
	int devnull = open("/dev/null", O_WRONLY), pipefd[2];

	if (devnull < 0 || pipe(pipefd))
		return 1;
	while (now() - t0 < busy)
		busy_once(devnull, pipefd);
	printf("quiet\n");
	fflush(stdout);
	t0 = now();
	while (now() - t0 < quiet) {
		unsigned int i;

		/* clock_gettime is vDSO: no system call in this loop. */
		for (i = 0; i < 100000; i++)
			spin += i;
	}
	return 0;
}
