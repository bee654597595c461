// SPDX-License-Identifier: GPL-2.0
/*
 * Hand-made JIT code for stitch's frame-pointer step (tests/integration/jit.sh):
 * two tiny functions copied into an anonymous executable mapping, each
 * calling back into C, which spins there.  The first keeps a frame pointer
 * (push rbp; mov rbp,rsp), as V8 and HotSpot (-XX:+PreserveFramePointer) do:
 * its stack is complete, through it, to _start.  The second keeps none and
 * uses rbp as a counter, as code compiled without frame pointers may: the
 * walk must stop there, visibly, and never step to a wrong caller.  Both
 * are named in /tmp/perf-PID.map, as a JIT runtime names its code (left
 * behind at exit, as runtimes do: the caller removes it).
 *
 *   jit_code SECONDS    (half under each; prints "ready" once the map is written)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cpu_spin.h"

typedef void (*callback_fn)(void);
typedef void (*jit_fn)(callback_fn cb);

static const unsigned char with_fp[] = {
	0x55,				/* push rbp */
	0x48, 0x89, 0xe5,		/* mov rbp, rsp */
	0xff, 0xd7,			/* call rdi */
	0x5d,				/* pop rbp */
	0xc3,				/* ret */
};

static const unsigned char without_fp[] = {
	0x55,				/* push rbp: saved, not a frame pointer */
	0xbd, 0x39, 0x30, 0x00, 0x00,	/* mov ebp, 12345: a counter, say */
	0xff, 0xd7,			/* call rdi */
	0x5d,				/* pop rbp */
	0xc3,				/* ret */
};

static uint64_t half_ms;

__attribute__((noinline)) static void spin_under_fp(void)
{
	SPIN_CPU_MS(half_ms);
}

__attribute__((noinline)) static void spin_under_nofp(void)
{
	SPIN_CPU_MS(half_ms);
}

/* Called, not jumped to: the caller's frame stays on the stack. */
__attribute__((noinline)) static int run_jit(jit_fn volatile fn, callback_fn cb)
{
	fn(cb);
	asm volatile("" ::: "memory");
	return 1;
}

int main(int argc, char **argv)
{
	unsigned char *code;
	char path[64];
	FILE *map;

	if (argc != 2)
		return 2;
	half_ms = (uint64_t)(atof(argv[1]) * 500);
	code = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (code == MAP_FAILED)
		return 1;
	memcpy(code, with_fp, sizeof(with_fp));
	memcpy(code + 64, without_fp, sizeof(without_fp));
	if (mprotect(code, 4096, PROT_READ | PROT_EXEC))
		return 1;
	snprintf(path, sizeof(path), "/tmp/perf-%d.map", getpid());
	map = fopen(path, "w");
	if (!map)
		return 1;
	fprintf(map, "%lx %zx jit_with_fp\n", (unsigned long)code, sizeof(with_fp));
	fprintf(map, "%lx %zx jit_without_fp\n", (unsigned long)(code + 64), sizeof(without_fp));
	fclose(map);
	printf("ready\n");
	fflush(stdout);
	run_jit((jit_fn)(uintptr_t)code, spin_under_fp);
	run_jit((jit_fn)(uintptr_t)(code + 64), spin_under_nofp);
	/* The map stays, as runtimes leave theirs: stitch names frames after exit. */
	return 0;
}
