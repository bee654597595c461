// SPDX-License-Identifier: GPL-2.0
/*
 * A test event loop for libstitch-stall: short tasks that must never be
 * reported, and stalls on purpose (a spin in user code, a populate in the
 * kernel, a sleep for the wall clock).  Built -O2 -fomit-frame-pointer, so
 * reports only name spin_for_stall if the library unwinds with CFI.
 *
 *   stall_loop short|user|vdso|kernel|ratelimit|merged|wall|sigio|appsigio|seccomp|dlopen [--timer]
 *   stall_loop threads N
 *   stall_loop ksyms < report     (names the report's kernel addresses)
 *
 * Reports go to stderr (the library's default); the test script reads them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/perf_event.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "stitch/stall.h"

static unsigned int flags;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

#include "../workloads/cpu_spin.h"
#include "../workloads/task_clock.h"

/* Spins for ms of this thread's CPU time (cpu_spin.h). */
__attribute__((noinline)) void spin_for_stall(unsigned int ms)
{
	SPIN_CPU_MS(ms);
}

__attribute__((noinline)) static void short_task(unsigned int us)
{
	uint64_t end = mono_ns() + us * 1000ull;

	while (mono_ns() < end)
		sink++;
}

static struct stitch_stall *start(unsigned int threshold_ms, unsigned int rpm)
{
	struct stitch_stall_config cfg = STITCH_STALL_CONFIG_DEFAULT;
	struct stitch_stall *d;

	cfg.threshold_ms = threshold_ms;
	cfg.reports_per_minute = rpm;
	cfg.flags = flags;
	d = stitch_stall_start(&cfg);
	if (!d) {
		fprintf(stdout, "stitch_stall_start: %s\n", strerror(errno));
		exit(2);
	}
	return d;
}

/* n short tasks, idling (a real blocking poll) every 50. */
static void run_short(struct stitch_stall *d, int n, unsigned int us)
{
	int i;

	for (i = 0; i < n; i++) {
		if (i % 50 == 0) {
			stitch_stall_idle(d);
			poll(NULL, 0, 1);
		}
		stitch_stall_task_begin(d);
		short_task(us);
		stitch_stall_task_end(d);
	}
}

/* The loop blocked waiting for work: never a stall, so never in a report. */
__attribute__((noinline)) static void idle_wait(struct stitch_stall *d, int ms)
{
	stitch_stall_idle(d);
	poll(NULL, 0, ms);
	__asm__ volatile("" ::: "memory");	/* not a tail call: keep this frame */
}

/*
 * A stall spent reading this thread's CPU clock: a system call made from the
 * vDSO, so the library's signal finds the thread in the vDSO, just past the
 * syscall instruction, most of the time.
 */
__attribute__((noinline)) void spin_in_clock(unsigned int ms)
{
	uint64_t end = cpu_ns() + ms * 1000000ull;

	while (cpu_ns() < end)
		sink++;
}

/*
 * Ticks from the CPU-timer fallback (--timer, seccomp, or the environment).
 * The kernel notices its expiries only at a scheduler tick that finds the
 * thread running: at load 9 on 2 CPUs, 650 signals in 10 s of CPU instead of
 * 2,000, up to 209 ms of CPU apart.  A stall is seen once two signals fall in
 * it 20 ms apart, so stalls watched by the timer last 200 ms more.
 */
static bool cpu_timer;

static void stall_user(struct stitch_stall *d, unsigned int ms)
{
	if (cpu_timer)
		ms += 200;
	stitch_stall_task_begin(d);
	spin_for_stall(ms);
	stitch_stall_task_end(d);
}

__attribute__((noinline)) static void populate(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED) {
		perror("mmap");
		exit(2);
	}
	munmap(p, bytes);
}

static volatile int app_sigio_count, stop_sender;
static pid_t target;

static void app_sigio(int sig)
{
	app_sigio_count++;
}

static void *sigio_sender(void *arg)
{
	while (!stop_sender) {
		struct timespec ts = { 0, 2000000 };

		syscall(SYS_tgkill, getpid(), target, SIGIO);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* Refuse perf_event_open with EACCES, as a container runtime's seccomp profile does. */
static void refuse_perf_event_open(void)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("seccomp");
		exit(2);
	}
}

static void *thread_main(void *arg)
{
	struct stitch_stall *d = start(20, 10);

	printf("thread tid=%d\n", gettid());
	fflush(stdout);
	run_short(d, 200, 50);
	stall_user(d, 60 + 10 * (int)(intptr_t)arg);
	run_short(d, 200, 50);
	stitch_stall_stop(d);
	return NULL;
}

/*
 * The clock the detector counts in: perf's task clock in its perf mode, this
 * thread's CPU clock under its CPU timer.  They part in a VM: the task clock
 * also counts the time the hypervisor took from the vCPU while the thread was
 * on it (steal), which the CPU clock leaves out.  On the 2-vCPU test VM, with
 * 5% steal over the minute, 30 ms spins of the CPU clock took up to 43 ms of
 * task clock (6.3 ms more at most in 280 spins at another time, 0.06 ms with
 * no steal at load 9): so a spin meant to get one report got two (stall=40ms
 * as well), in 6 of 80 runs of the rate-limit test.  A test that counts in
 * one clock while the detector counts in the other compares two clocks.
 */
static __thread int task_clock_fd = -1;

static uint64_t detector_ns(void)
{
	uint64_t v;

	if (cpu_timer)
		return cpu_ns();
	if (task_clock_fd < 0 && (task_clock_fd = task_clock_open()) < 0) {
		printf("task clock: %s\n", strerror(errno));
		exit(2);
	}
	if (!task_clock_read(task_clock_fd, &v)) {
		printf("task clock read: %s\n", strerror(errno));
		exit(2);
	}
	return v;
}

/*
 * A stall that gets exactly one report: one at 20 ms of quiet (the
 * threshold), none at 40.  The library measures quiet from its first tick
 * (every 5 ms of its clock) after the last task end, so a stall of L ms is
 * seen as L - 5 to L ms: L in [25, 39] gives one report.  A 30 ms spin
 * overran that band now and then when it read its clock every 1M
 * iterations: on a loaded VM a round of 1M took up to 24 ms when preempted
 * (cpu_spin.h), so the stall lasted 40 ms or more and its second report
 * (stall=40ms) was counted as suppressed too: in 100 runs at load 7 on 2
 * CPUs, 3 of the 700 stalls lasted 40 to 45.5 ms, and the 45.5 ms one was
 * reported at 20 and at 40 ms.  Reading the clock every 64K iterations (2.2
 * ms at most) keeps it in 30 to 32.2 ms (32.2 at most in 40 runs at load 9):
 * 5 ms of margin below, 7 above, in the detector's own clock (detector_ns).
 */
__attribute__((noinline)) static void one_report_stall(struct stitch_stall *d)
{
	uint64_t t, c;

	stitch_stall_task_begin(d);
	t = detector_ns();
	c = cpu_ns();
	SPIN_CLOCK_MS_EVERY(detector_ns, 30, 1ul << 16);
	t = detector_ns() - t;
	c = cpu_ns() - c;
	stitch_stall_task_end(d);
	printf("stall of %llu us of the detector's clock (%llu us of CPU)\n",
	       (unsigned long long)t / 1000, (unsigned long long)c / 1000);
}

static void sleep_until(uint64_t mono)
{
	struct timespec ts = { mono / 1000000000ull, mono % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

/*
 * 6 stalls of one report each, 2 reports a window: 2 written, 4 suppressed,
 * then a stall after the window, whose report tells suppressed=4.  The
 * window (STITCH_STALL_RATE_WINDOW_MS: the test shortens the minute) starts
 * at the first report, during the first stall: the 6 must end within it, and
 * the last stall must start after it, whatever the load.  Both times are
 * printed for the test.
 */
static void rate_limit(struct stitch_stall *d)
{
	const char *w = getenv("STITCH_STALL_RATE_WINDOW_MS");
	uint64_t window = (w ? strtoull(w, NULL, 10) : 60000) * 1000000ull;
	uint64_t begin = mono_ns(), first_end = 0;
	int i;

	/*
	 * Waiting for work, as a loop does before its first task: what ran
	 * since the start is not the first stall's.  In an arm64 guest under
	 * TCG on a busy host, a fflush after the start took 32 ms of the
	 * guest's CPU clock once (the host held the vCPU): a report, and the
	 * first stall, counted from it, got a second one at 50 ms.
	 */
	stitch_stall_idle(d);
	for (i = 0; i < 6; i++) {
		one_report_stall(d);
		if (!i)
			first_end = mono_ns();	/* after the window started */
		run_short(d, 100, 20);
	}
	printf("6 stalls in %llu ms, window %llu ms\n",
	       (unsigned long long)(mono_ns() - begin) / 1000000,
	       (unsigned long long)window / 1000000);
	stitch_stall_idle(d);
	sleep_until(first_end + window);
	one_report_stall(d);
}

/*
 * Short tasks only, but the detector's signal comes late, as one signal for
 * many expiries of its timer: blocked here from before the timer expires
 * (the kernel may notice that late) until 60 ms of CPU after the signal is
 * pending.  Under load the kernel does the same to the CPU timer without any
 * blocking: it notices an expiry only at a scheduler tick that finds the
 * thread running (cpu_timer above), while the tasks go on ending.  Not a
 * stall: no report.  Says whether the signal was pending when unblocked.
 */
static void merged_expiries(struct stitch_stall *d)
{
	uint64_t limit, end = 0;
	sigset_t set, pending;

	run_short(d, 200, 20);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMAX - 3);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	limit = cpu_ns() + 2000000000ull;
	while (cpu_ns() < limit && (!end || cpu_ns() < end)) {
		stitch_stall_task_begin(d);
		short_task(20);
		stitch_stall_task_end(d);
		sigpending(&pending);
		if (!end && sigismember(&pending, SIGRTMAX - 3))
			end = cpu_ns() + 60000000ull;
	}
	printf("signal pending at unblock: %s\n", end ? "yes" : "no");
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	run_short(d, 200, 20);
}

/* For each "  kernel 0x..." line on stdin: "0xADDR NAME" from /proc/kallsyms. */
static int ksyms(void)
{
	static struct sym { uint64_t a; char n[128]; } *syms;
	size_t nr = 0, cap = 0, lo, hi;
	char line[512], name[128], type;
	unsigned long long a;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return 2;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %127s", &a, &type, name) != 3 || !a)
			continue;
		if (nr == cap) {
			cap = cap ? 2 * cap : 4096;
			syms = realloc(syms, cap * sizeof(*syms));
		}
		syms[nr].a = a;
		snprintf(syms[nr].n, sizeof(syms[nr].n), "%s", name);
		nr++;
	}
	fclose(f);
	/* kallsyms is nearly sorted, not quite: sort it. */
	for (lo = 1; lo < nr; lo++) {
		struct sym s = syms[lo];

		for (hi = lo; hi > 0 && syms[hi - 1].a > s.a; hi--)
			syms[hi] = syms[hi - 1];
		syms[hi] = s;
	}
	while (fgets(line, sizeof(line), stdin)) {
		if (sscanf(line, "  kernel %llx", &a) != 1)
			continue;
		lo = 0;
		hi = nr;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;

			if (syms[mid].a <= a)
				lo = mid;
			else
				hi = mid;
		}
		printf("0x%llx %s\n", a, nr && syms[lo].a <= a ? syms[lo].n : "?");
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct stitch_stall *d;
	const char *mode = argc > 1 ? argv[1] : "", *env;
	int i;

	for (i = 2; i < argc; i++)
		if (!strcmp(argv[i], "--timer"))
			flags |= STITCH_STALL_FORCE_TIMER;
	env = getenv("STITCH_STALL_FORCE_TIMER");	/* read as the library does */
	cpu_timer = (flags & STITCH_STALL_FORCE_TIMER) || !strcmp(mode, "seccomp") ||
		    (env && *env && strcmp(env, "0"));
	if (!strcmp(mode, "ksyms"))
		return ksyms();
	if (!strcmp(mode, "threads")) {
		int n = argc > 2 ? atoi(argv[2]) : 4;
		pthread_t t[64];

		for (i = 0; i < n && i < 64; i++)
			pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)i);
		for (i = 0; i < n && i < 64; i++)
			pthread_join(t[i], NULL);
		return 0;
	}
	if (!strcmp(mode, "seccomp")) {
		refuse_perf_event_open();
		mode = "user";
	}
	if (!strcmp(mode, "wall"))
		flags |= STITCH_STALL_WALL_CLOCK;
	/*
	 * Printed before the start: the detector counts everything between its
	 * start and a loop's first wait as a task, the write included.
	 */
	printf("main tid=%d\n", gettid());
	fflush(stdout);
	/* ratelimit: its own limit, and no other detector's reports before */
	d = start(20, strcmp(mode, "ratelimit") ? 10 : 2);
	if (!strcmp(mode, "short")) {
		/* ~0.6 s of CPU in 30000 tasks of 20 us: many ticks, never a stall. */
		run_short(d, 30000, 20);
	} else if (!strcmp(mode, "user")) {
		run_short(d, 1000, 20);
		stall_user(d, 100);
		run_short(d, 1000, 20);
	} else if (!strcmp(mode, "vdso")) {
		run_short(d, 1000, 20);
		stitch_stall_task_begin(d);
		spin_in_clock(100);
		stitch_stall_task_end(d);
		run_short(d, 1000, 20);
	} else if (!strcmp(mode, "kernel")) {
		run_short(d, 1000, 20);
		stitch_stall_task_begin(d);
		populate(1ul << 30);
		stitch_stall_task_end(d);
		run_short(d, 1000, 20);
	} else if (!strcmp(mode, "ratelimit")) {
		rate_limit(d);
	} else if (!strcmp(mode, "merged")) {
		merged_expiries(d);
	} else if (!strcmp(mode, "wall")) {
		/* Blocked (not spinning) inside a task: only the wall clock sees it. */
		uint64_t end = mono_ns() + 100000000ull;

		run_short(d, 200, 20);
		stitch_stall_task_begin(d);
		while (mono_ns() < end) {
			struct timespec ts = { 0, 5000000 };

			nanosleep(&ts, NULL);	/* EINTR from our own ticks: loop */
		}
		stitch_stall_task_end(d);
		/* A long idle is not a stall, and the next stall is still caught. */
		idle_wait(d, 300);
		run_short(d, 200, 20);
		stitch_stall_idle(d);
		poll(NULL, 0, 3);	/* a short idle: the timer may still be armed */
		stall_user(d, 60);
	} else if (!strcmp(mode, "sigio") || !strcmp(mode, "appsigio")) {
		/*
		 * SIGIO from another thread every 2 ms, through the library's
		 * handler; the program's own SIGIO handler must still run.
		 * sigio: the real-time queue full, when the kernel sends SIGIO
		 * instead, simulated by blocking our real-time signal; a stall.
		 * appsigio: the program's own SIGIO (O_ASYNC sockets), while
		 * tasks of 3 ms end all the time: never a stall.
		 */
		struct sigaction sa = { .sa_handler = app_sigio };
		bool fallback = !strcmp(mode, "sigio");
		pthread_t t;
		sigset_t set;

		stitch_stall_stop(d);
		sigaction(SIGIO, &sa, NULL);	/* before start: the library chains to it */
		d = start(20, fallback ? 10 : 0);
		if (fallback) {
			sigemptyset(&set);
			sigaddset(&set, SIGRTMAX - 3);
			pthread_sigmask(SIG_BLOCK, &set, NULL);
		}
		target = gettid();
		pthread_create(&t, NULL, sigio_sender, NULL);
		if (fallback) {
			run_short(d, 1000, 20);
			stall_user(d, 60);
			run_short(d, 1000, 20);
		} else {
			for (i = 0; i < 500; i++) {
				stitch_stall_task_begin(d);
				SPIN_CLOCK_MS_EVERY(detector_ns, 3, 1ul << 14);
				stitch_stall_task_end(d);
			}
		}
		stop_sender = 1;
		pthread_join(t, NULL);
		printf("app sigio handler ran %d times\n", app_sigio_count);
	} else if (!strcmp(mode, "dlopen")) {
		/* A stall inside an object loaded after start: its frames must still unwind. */
		void *h = dlopen(argc > 2 ? argv[2] : "", RTLD_NOW);
		void (*fn)(unsigned int);

		if (!h) {
			printf("dlopen: %s\n", dlerror());
			return 2;
		}
		fn = (void (*)(unsigned int))dlsym(h, "plugin_spin");
		if (!fn)
			return 2;
		run_short(d, 2000, 5);	/* a task_end or idle notices the new object */
		stitch_stall_task_begin(d);
		fn(60);
		stitch_stall_task_end(d);
	} else {
		fprintf(stderr, "usage: %s short|user|kernel|ratelimit|merged|wall|sigio|appsigio|dlopen|"
			"threads|ksyms\n", argv[0]);
		return 2;
	}
	stitch_stall_stop(d);
	printf("done\n");
	return 0;
}
