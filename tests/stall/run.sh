#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# libstitch-stall tests: a real event loop (tests/stall/stall_loop.c, -O2
# -fomit-frame-pointer) linked with the library, stalling on purpose; the
# reports are checked against the binary (addr2line, build-id) and
# /proc/kallsyms.  Needs root for kernel callchains and kallsyms addresses.
# A test that cannot run here fails; nothing is skipped.
#
#   tests/stall/run.sh [TEST...]     (default: all)
set -u
cd "$(dirname "$0")/../.."

# Another build's (make ARCH=arm64's, in the arm64 guest: tests/vm/matrix.sh)
# through STITCH_STALL_BUILD.
BUILD_DIR=${STITCH_STALL_BUILD:-build}
B=$BUILD_DIR/stall/stall_loop
PLUGIN=$BUILD_DIR/stall/plugin.so
TMP=$(mktemp -d /tmp/stitch-stall.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0

fail() {
	echo "  FAIL: $*"
	return 1
}

# Each report on one line, its lines joined by '|'.
reports() {
	awk '/^stitch-stall: tid=/ { if (r != "") print r; r = $0; next }
	     /^  / && r != "" { r = r "|" $0; next }
	     { if (r != "") print r; r = "" }
	     END { if (r != "") print r }' "$1"
}

nreports() {
	grep -c '^stitch-stall: tid=' "$1"
}

# Function names of a report's user frames in MODULE (path), innermost first.
funcs_in() {	# REPORT-LINE MODULE
	echo "$1" | tr '|' '\n' | sed -n "s|^  user $2+\(0x[0-9a-f]*\) .*|\1|p" |
		xargs -r addr2line -f -i -e "$2" | awk 'NR % 2 == 1'
}

build_id() {
	readelf -n "$1" | awk '/Build ID/ { print $3 }'
}

# Every report carries spin_for_stall (and the build-id of the binary) and
# unwinds to OUTER (main, or a thread's start function).  With no third
# argument, no kernel line either: the spin never enters the kernel.  Threads
# that share too few CPUs may be sampled on the way back from a reschedule
# IPI, a true kernel-mode sample, so their tests pass "kernel-ok".
check_user_reports() {	# FILE OUTER [kernel-ok]
	local bin id r n=0 outer=$2 kernel_ok=${3:-}
	bin=$(realpath "$B")
	id=$(build_id "$B")
	[ "$(nreports "$1")" -ge 1 ] || { fail "no report"; return 1; }
	while read -r r; do
		n=$((n + 1))
		funcs_in "$r" "$bin" | grep -qx spin_for_stall ||
			{ fail "report $n has no spin_for_stall frame: $r"; return 1; }
		echo "$r" | grep -q "$bin+0x[0-9a-f]* build-id=$id" ||
			{ fail "report $n lacks the build-id $id"; return 1; }
		# The spin's clock read is a system call (from the vDSO): beside
		# make -j2, a report in 1 of 10 runs was taken in it, kernel frames
		# and all.  A kernel line anywhere else is wrong.
		[ -z "$kernel_ok" ] && echo "$r" | grep -q '|  kernel' &&
			! echo "$r" | grep -q '|  user \[vdso\]+0x[0-9a-f]* build-id=[0-9a-f]*|  user [^|]*libc' &&
			{ fail "report $n of a user-mode stall has a kernel line"; return 1; }
		# The unwind reaches OUTER and ends cleanly: CFI, no frame pointers.
		funcs_in "$r" "$bin" | grep -qx "$outer" ||
			{ fail "report $n does not unwind to $outer"; return 1; }
		echo "$r" | grep -q '|  user-stop' && { fail "report $n: unwind cut: $r"; return 1; }
	done < <(reports "$1")
	return 0
}

# Runs of a test that short tasks give no report.  Under emulation (a guest
# under TCG: STITCH_TEST_SLOWDOWN > 1) a 50 us task can take 20 ms of the
# guest's CPU time once, while QEMU translates new code or the host holds
# the vCPU (an arm64 guest beside two busy host CPUs: a 21 and a 65 ms
# report): there a run with reports is run again, up to 3 runs.  A detector
# that reports short tasks does so in every run.
quiet_runs=$((${STITCH_TEST_SLOWDOWN:-1} > 1 ? 3 : 1))

# Runs `$B ARG...` into $TMP/out and $TMP/err until a run gives no report,
# $quiet_runs runs at most; the caller checks the last run's reports.
run_until_quiet() {
	local i
	for i in $(seq "$quiet_runs"); do
		$B "$@" > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; cat "$TMP/out" "$TMP/err"; return 1; }
		[ "$(nreports "$TMP/err")" -eq 0 ] && return 0
		echo "run $i: $(nreports "$TMP/err") reports"
	done
}

test_short_tasks_no_report() {
	run_until_quiet short || return 1
	[ "$(nreports "$TMP/err")" -eq 0 ] || { fail "reports for short tasks:"; head -20 "$TMP/err"; return 1; }
	grep -q '^done' "$TMP/out"
}

test_user_stall() {
	$B user > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; return 1; }
	check_user_reports "$TMP/err" main || { head -20 "$TMP/err"; return 1; }
	# The first one is due at the threshold, then at growing intervals (20, 40, 80...).
	reports "$TMP/err" | head -2 | grep -o 'stall=[0-9]*ms' | tr '\n' ' ' |
		grep -Eq '^stall=(19|20|21|22|23|24|25)ms stall=(39|4[0-9])ms $' ||
		{ fail "reports not at threshold then 2x: $(grep -o 'stall=[0-9]*ms' "$TMP/err" | tr '\n' ' ')"; return 1; }
	grep -q "^stitch-stall: tid=$(sed -n 's/^main tid=//p' "$TMP/out") comm=stall_loop " "$TMP/err" ||
		fail "report names the wrong thread"
}

test_vdso_stall() {
	local r n=0 invdso=0 bin
	bin=$(realpath "$B")
	$B vdso > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; return 1; }
	[ "$(nreports "$TMP/err")" -ge 1 ] || { fail "no report"; return 1; }
	# Through the vDSO's own CFI (read from its mapped image) back into the
	# program: every report reaches main, none is cut.
	while read -r r; do
		n=$((n + 1))
		echo "$r" | grep -q '|  user \[vdso\]+0x' && invdso=$((invdso + 1))
		echo "$r" | grep -q '|  user-stop' && { fail "report $n: unwind cut: $r"; return 1; }
		funcs_in "$r" "$bin" | grep -qx spin_in_clock ||
			{ fail "report $n has no spin_in_clock frame: $r"; return 1; }
		funcs_in "$r" "$bin" | grep -qx main || { fail "report $n does not reach main: $r"; return 1; }
	done < <(reports "$TMP/err")
	[ "$invdso" -ge 1 ] || { fail "no report caught the thread in the vDSO"; head -20 "$TMP/err"; return 1; }
}

test_kernel_stall() {
	local r ok=0 a i
	# The report's sample is the stall's last: now and then it lands just
	# after the populate's return to user mode (a CI run: 1 report, user
	# frames only, at mmap's return; another: kernel frames of the return
	# itself, arch_do_signal_or_restart under exit_to_user_mode_loop), a true
	# stack without the populate's frames.  Up to 3 runs, as
	# tests/integration/stalls.sh's kernel_stall_log does.
	for i in 1 2 3; do
		$B kernel > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; return 1; }
		r=$(reports "$TMP/err" | grep '|  kernel' | head -1)
		if [ -n "$r" ]; then
			echo "$r" | tr '|' '\n' | $B ksyms > "$TMP/ksyms"
			grep -Eq ' .*(populate|fault|clear_page|alloc|zero)' "$TMP/ksyms" && break
			echo "run $i: kernel frames without the populate's:"
			cat "$TMP/ksyms"
		else
			echo "run $i: no report with kernel frames"
		fi
	done
	[ -n "$r" ] || { fail "no report with kernel frames"; head -30 "$TMP/err"; return 1; }
	for a in $(echo "$r" | tr '|' '\n' | sed -n 's/^  kernel //p'); do
		# Kernel half of the address space (LA57 or not).
		[[ "$a" =~ ^0xffff[89a-f][0-9a-f]{11}$ ]] || { fail "not a kernel address: $a"; return 1; }
	done
	grep -Eq ' .*(populate|fault|clear_page|alloc|zero)' "$TMP/ksyms" ||
		{ fail "no populate/fault path symbol:"; cat "$TMP/ksyms"; return 1; }
	# Below the kernel frames, the user side: the mmap call in populate().
	funcs_in "$r" "$(realpath "$B")" | grep -qx populate || fail "user side lacks populate()"
}

# One run of the rate-limit scenario; says what was wrong, if anything.
rate_limit_run() {
	local win=5000 span n
	STITCH_STALL_RATE_WINDOW_MS=$win $B ratelimit > "$TMP/out" 2> "$TMP/err" ||
		{ echo "exit $?"; return 1; }
	span=$(sed -n 's/^6 stalls in \([0-9]*\) ms, .*/\1/p' "$TMP/out")
	[ -n "$span" ] && [ "$span" -lt "$win" ] ||
		{ echo "the 6 stalls took ${span:-?} ms, not within the ${win} ms window"; return 1; }
	reports "$TMP/err" > "$TMP/r"
	n=$(wc -l < "$TMP/r")
	[ "$n" -eq 3 ] || { echo "expected 2 + 1 reports, got $n"; return 1; }
	head -2 "$TMP/r" | grep -q 'suppressed=0' || { echo "first reports claim suppressions"; return 1; }
	# Exactly the 4 stalls over the limit: each stall is one report, never
	# two (stall_loop.c, one_report_stall: it ends before 2x the threshold,
	# where a second report is due).
	tail -1 "$TMP/r" | grep -q ' suppressed=4$\| suppressed=4|' ||
		{ echo "last report does not count 4 suppressed: $(tail -1 "$TMP/r" | cut -d'|' -f1)"; return 1; }
}

# 2 reports a window (5 s here, a minute normally), 6 one-report stalls,
# then one after the window.  The 6 took 0.2 s idle, 1.9 s at most in 40
# runs at load 9 on 2 CPUs.  They must end within the window, else this
# fails: the count would mean nothing.  Under TCG the host may hold the
# vCPU for tens of ms in any task or spin, a stall in the guest's clocks
# (test_short_tasks_no_report): there a wrong run is run again, up to 3.
test_rate_limit() {
	local i why=
	for i in $(seq "$quiet_runs"); do
		why=$(rate_limit_run) && return 0
		echo "run $i: $why"
		cat "$TMP/out"
		grep -v '^  ' "$TMP/err"
	done
	fail "$why"
}

# The CPU timer's expiries merged into one late signal while short tasks ran
# and ended: not a stall.  Before the fix, the merged time was taken for quiet
# time (a stall=55ms report); under load it gave a phantom report after each
# real stall of the timer tests (4 of 40 runs at load 9).
test_timer_merged_expiries() {
	run_until_quiet merged --timer || return 1
	grep -qx 'signal pending at unblock: yes' "$TMP/out" ||
		{ fail "no merged expiries: $(cat "$TMP/out")"; return 1; }
	grep -q 'using a CPU timer' "$TMP/err" || { fail "not the CPU timer"; return 1; }
	[ "$(nreports "$TMP/err")" -eq 0 ] || { fail "reports for short tasks:"; head -20 "$TMP/err"; return 1; }
}

test_timer_fallback_flag() {
	$B user --timer > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; return 1; }
	[ "$(grep -c 'perf_event_open disabled .*using a CPU timer' "$TMP/err")" -eq 1 ] ||
		{ fail "no one-time fallback line"; head -5 "$TMP/err"; return 1; }
	check_user_reports "$TMP/err" main || { head -20 "$TMP/err"; return 1; }
}

# perf_event_open really refused (seccomp, EACCES): the timer takes over, and says so.
test_timer_fallback_seccomp() {
	$B seccomp > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; cat "$TMP/out"; return 1; }
	[ "$(grep -c 'perf_event_open refused (Permission denied), using a CPU timer' "$TMP/err")" -eq 1 ] ||
		{ fail "no one-time refusal line"; head -5 "$TMP/err"; return 1; }
	check_user_reports "$TMP/err" main || { head -20 "$TMP/err"; return 1; }
}

# Several threads, each its own detector, via the environment: one fallback line in all.
test_timer_fallback_env_threads() {
	local tid
	STITCH_STALL_FORCE_TIMER=1 $B threads 3 > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; return 1; }
	[ "$(grep -c 'perf_event_open disabled (STITCH_STALL_FORCE_TIMER=1), using a CPU timer' "$TMP/err")" -eq 1 ] ||
		{ fail "fallback line not said exactly once"; head -5 "$TMP/err"; return 1; }
	grep -q '^  kernel' "$TMP/err" && { fail "kernel lines from the CPU timer"; return 1; }
	for tid in $(sed -n 's/^thread tid=//p' "$TMP/out"); do
		grep -q "^stitch-stall: tid=$tid " "$TMP/err" || { fail "no report for thread $tid"; return 1; }
	done
	check_user_reports "$TMP/err" thread_main
}

test_threads_own_reports() {
	local tid r n
	$B threads 4 > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; return 1; }
	n=$(grep -c '^thread tid=' "$TMP/out")
	[ "$n" -eq 4 ] || { fail "$n threads started"; return 1; }
	for tid in $(sed -n 's/^thread tid=//p' "$TMP/out"); do
		grep -q "^stitch-stall: tid=$tid " "$TMP/err" || { fail "no report for thread $tid"; return 1; }
	done
	# No report from a tid that is not one of the stalling threads.
	for tid in $(sed -n 's/^stitch-stall: tid=\([0-9]*\) .*/\1/p' "$TMP/err" | sort -u); do
		grep -qx "thread tid=$tid" "$TMP/out" || { fail "report for unknown tid $tid"; return 1; }
	done
	check_user_reports "$TMP/err" thread_main kernel-ok
}

test_wall_clock() {
	local bin r
	bin=$(realpath "$B")
	$B wall > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; return 1; }
	reports "$TMP/err" > "$TMP/r"
	grep -q 'clock=wall' "$TMP/r" || { fail "no wall-clock report"; cat "$TMP/err"; return 1; }
	# The task blocked in nanosleep: invisible to the CPU clock, seen here.
	head -1 "$TMP/r" | grep -q 'stall=2[0-9]ms' || { fail "first report not at the threshold"; return 1; }
	while read -r r; do
		funcs_in "$r" "$bin" | grep -qx idle_wait && { fail "idle reported as a stall"; return 1; }
	done < "$TMP/r"
	# After a long idle (timer stopped) and a short one, the spin is still caught.
	tail -1 "$TMP/r" | tr '|' '\n' > "$TMP/last"
	funcs_in "$(tail -1 "$TMP/r")" "$bin" | grep -qx spin_for_stall ||
		{ fail "stall after idle missed"; cat "$TMP/err"; return 1; }
}

test_sigio_fallback() {
	$B sigio > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; return 1; }
	# The SIGIO sender thread competes for the CPUs: a sample may be taken on
	# the way back from a preemption, in kernel mode, as in the threads tests.
	check_user_reports "$TMP/err" main kernel-ok || { head -20 "$TMP/err"; return 1; }
	grep -Eq '^app sigio handler ran [1-9][0-9]* times' "$TMP/out" ||
		{ fail "the program's SIGIO handler was not chained"; cat "$TMP/out"; return 1; }
}

# The program's own SIGIO runs through the library's handler: a signal with
# no tick must not take the task ends it saw for seen (3 to 21 reports of
# stalls that never were in every run of 1.5 s of 3 ms tasks before the
# fix).  Up to 3 runs, here too: beside make -j3, 1 run of 40 still had one
# report (stall=20ms, in a task, its sample on the way back from a
# reschedule IPI), a cause not found yet; the old bug fails all three.
test_app_sigio_no_phantom_stall() {
	quiet_runs=3 run_until_quiet appsigio || return 1
	grep -Eq '^app sigio handler ran [1-9][0-9]+ times' "$TMP/out" ||
		{ fail "too few of the program's SIGIOs: $(cat "$TMP/out")"; return 1; }
	[ "$(nreports "$TMP/err")" -eq 0 ] || { fail "reports of 3 ms tasks:"; grep -v '^  ' "$TMP/err" | head; return 1; }
}

test_dlopen_after_start() {
	local r
	[ -f "$PLUGIN" ] || { fail "no $PLUGIN: run make stall-test"; return 1; }
	$B dlopen "$(realpath "$PLUGIN")" > "$TMP/out" 2> "$TMP/err" || { fail "exit $?"; cat "$TMP/out"; return 1; }
	# The plugin's stall.  Under emulation dlopen itself is one too (an arm64
	# guest: 20 ms in ld.so mapping the plugin), reported before it.
	r=$(reports "$TMP/err" | grep -F "$(realpath "$PLUGIN")+" | head -1)
	[ -n "$r" ] || { fail "no report in the plugin"; head -30 "$TMP/err"; return 1; }
	funcs_in "$r" "$(realpath "$PLUGIN")" | grep -qx plugin_spin || { fail "no plugin_spin frame: $r"; return 1; }
	# Unwound through the new object's CFI, back into the program.
	funcs_in "$r" "$(realpath "$B")" | grep -qx main || fail "did not unwind through the plugin: $r"
}

test_install_pkg_config() {
	local p="$TMP/prefix"
	make -s install PREFIX="$p" > "$TMP/make.log" 2>&1 || { fail "make install"; cat "$TMP/make.log"; return 1; }
	for f in include/stitch/stall.h lib/libstitch-stall.so lib/libstitch-stall.a \
		 lib/pkgconfig/stitch-stall.pc; do
		[ -f "$p/$f" ] || { fail "$f not installed"; return 1; }
	done
	cat > "$TMP/hello.c" <<-'EOF'
	#include <stdio.h>
	#include <stitch/stall.h>
	int main(void)
	{
		struct stitch_stall_config cfg = STITCH_STALL_CONFIG_DEFAULT;
		struct stitch_stall *d;
		int i;

		cfg.threshold_ms = 20;
		d = stitch_stall_start(&cfg);
		if (!d)
			return 1;
		for (i = 0; i < 1000; i++) {
			stitch_stall_task_begin(d);
			stitch_stall_task_end(d);
		}
		stitch_stall_idle(d);
		stitch_stall_stop(d);
		puts("hello ok");
		return 0;
	}
	EOF
	export PKG_CONFIG_PATH="$p/lib/pkgconfig"
	# shellcheck disable=SC2046
	gcc -Wall -Werror -o "$TMP/hello" "$TMP/hello.c" $(pkg-config --cflags --libs stitch-stall) ||
		{ fail "compile against the installed header"; return 1; }
	LD_LIBRARY_PATH="$p/lib" "$TMP/hello" | grep -qx 'hello ok' || { fail "run (shared)"; return 1; }
	# shellcheck disable=SC2046
	gcc -Wall -Werror -o "$TMP/hello-static" "$TMP/hello.c" \
		$(pkg-config --cflags stitch-stall) "$p/lib/libstitch-stall.a" \
		$(pkg-config --libs-only-l --static stitch-stall | sed 's/-lstitch-stall//') ||
		{ fail "link the static library"; return 1; }
	"$TMP/hello-static" | grep -qx 'hello ok' || { fail "run (static)"; return 1; }
	# Only the API is exported.
	[ "$(nm -D --defined-only "$p/lib/libstitch-stall.so" | awk '{ print $3 }' | grep -vc '^stitch_stall_')" -eq 0 ] ||
		fail "internal symbols exported"
}

if [ "$(id -u)" -ne 0 ]; then
	echo "stall tests need root (kernel callchains, kallsyms addresses): run them with sudo" >&2
	echo "stall: 0 passed, 1 failed"
	exit 1
fi
[ -x "$B" ] || { echo "no $B: run make stall-test" >&2; echo "stall: 0 passed, 1 failed"; exit 1; }

tests=("$@")
[ ${#tests[@]} -gt 0 ] || mapfile -t tests < <(declare -F | awk '{ print $3 }' | grep '^test_')
for t in "${tests[@]}"; do
	if "$t"; then
		echo "ok   $t"
		passed=$((passed + 1))
	else
		echo "FAIL $t"
		failed=$((failed + 1))
	fi
done
echo "stall: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
