# SPDX-License-Identifier: GPL-2.0
# Helpers for stitch's integration tests: run a test function, keep its log,
# count passes and failures, and query folded output.

# Under emulation, rates and timings are the machine's, not stitch's: the
# kernel matrix's guests (QEMU without KVM) run several times slower, and
# less evenly, than this machine (STITCH_TEST_SLOWDOWN=4 there).  A count of
# events a workload makes in a fixed time is expected divided by it
# (slowed), and the tolerance of a comparison of two clocks multiplied by it.
# Shares of frames are never scaled.
SLOWDOWN=${STITCH_TEST_SLOWDOWN:-1}

# slowed N: N events in a fixed time, on this machine.
slowed() {
	echo $(($1 / SLOWDOWN))
}

# The architecture under test: this machine's (x86), or arm64 (the kernel
# matrix's arm64 guest, STITCH_TEST_ARCH=arm64): its workloads are built on
# the host by Debian's cross compiler into the build tree `make ARCH=arm64`
# makes, and the frames asserted are that architecture's own where they
# differ (the kernel's syscall entry, the signal trampoline).
TEST_ARCH=${STITCH_TEST_ARCH:-x86}
case $TEST_ARCH in
x86) BUILD_DIR=build WCC=gcc ;;
arm64) BUILD_DIR=build-arm64 WCC=aarch64-linux-gnu-gcc ;;
*) echo "STITCH_TEST_ARCH=$TEST_ARCH: x86 or arm64" >&2; exit 1 ;;
esac

# The kernel's wrapper of a system call, for kprobes by name.
case $TEST_ARCH in
x86) KSYS=__x64_sys_ ;;
arm64) KSYS=__arm64_sys_ ;;
esac

# arch_re REGEX: the tests' regexes name x86-64's frames where the
# architectures differ; on arm64 those become arm64's own.  The syscall
# entry (entry_SYSCALL_64_after_hwframe, do_syscall_64) is el0t_64_sync,
# el0t_64_sync_handler, el0_svc, do_el0_svc (el0_svc_common); the syscall
# wrappers are __arm64_sys_*; glibc's thread entry is thread_start (clone3
# on x86-64); the signal trampoline is the vDSO's __kernel_rt_sigreturn
# (libc's __restore_rt); glibc's epoll_wait() is its epoll_pwait() there
# (no epoll_wait call); arm64 libruby 3.1 and 3.3 tail-call rb_block_call_kw
# from rb_block_call, whose frame is then not on the stack.  What follows
# them in a regex stays as it is.
arch_re() {
	if [ "$TEST_ARCH" = x86 ]; then
		printf '%s' "$1"
		return
	fi
	printf '%s' "$1" | sed \
		-e 's/entry_SYSCALL_64_after_hwframe_\\\[k\\\];do_syscall_64_\\\[k\\\];/el0t_64_sync_\\[k\\];el0t_64_sync_handler_\\[k\\];el0_svc_\\[k\\];do_el0_svc_\\[k\\];(el0_svc_common[.a-z0-9]*_\\[k\\];)?/g' \
		-e 's/entry_SYSCALL_64_after_hwframe/el0t_64_sync/g; s/entry_SYSCALL_64/el0t_64_sync/g' \
		-e 's/entry_SYSCALL/el0t_64_sync/g; s/do_syscall_64/do_el0_svc/g' \
		-e 's/__(x64|do)_sys_/__(arm64|do)_sys_/g; s/__x64_sys_/__arm64_sys_/g' \
		-e 's/__clone3?/thread_start/g; s/clone3/thread_start/g' \
		-e 's/__restore_rt/__kernel_rt_sigreturn/g' \
		-e 's/epoll_wait;epoll_wait_a/epoll_pwait;epoll_wait_a/g; s/loop=epoll_wait /loop=epoll_pwait /g' \
		-e 's/waits in epoll_wait\\(/waits in epoll_pwait\\(/g' \
		-e 's/rb_block_call;/rb_block_call(_kw)?;/g'
}

PASSED=0
FAILED=0
FAILED_NAMES=()

# run_test NAME: run function NAME with its output in $TMP/NAME.log.
run_test() {
	local name=$1 start end rc
	start=$(date +%s.%N)
	# Not inside 'if': bash ignores set -e in a condition, even in a subshell.
	( set -e; "$name" ) >"$TMP/$name.log" 2>&1
	rc=$?
	reap_tracked
	if [ "$rc" -eq 0 ]; then
		end=$(date +%s.%N)
		PASSED=$((PASSED + 1))
		printf 'ok    %-40s %5.1fs\n' "$name" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
	else
		FAILED=$((FAILED + 1))
		FAILED_NAMES+=("$name")
		printf 'FAIL  %s\n' "$name"
		sed 's/^/      | /' "$TMP/$name.log" | tail -n 40
	fi
}

# track_pid PID: a background server or workload that run_test stops after the
# test, if the test died before it did.  Kept with its start time, so that a pid
# the kernel gave to another process since is never killed.
track_pid() {
	local start
	start=$(awk '{ print $22 }' "/proc/$1/stat" 2>/dev/null) || return 0
	echo "$1 $start" >>"$TMP/tracked.pids"
}

reap_tracked() {
	local pid start now
	[ -s "$TMP/tracked.pids" ] || return 0
	while read -r pid start; do
		now=$(awk '{ print $22 }' "/proc/$pid/stat" 2>/dev/null) || continue
		if [ "$now" = "$start" ]; then
			echo "reaping pid $pid, left running by the test" >>"$TMP/reaped.log"
			kill "$pid" 2>/dev/null || true
		fi
	done <"$TMP/tracked.pids"
	rm -f "$TMP/tracked.pids"
}

# workload GCC-COMMAND...: build a workload (the command names it after -o).
# With STITCH_PREBUILT set (the kernel matrix: its guests see this tree
# read-only, and a compiler under emulation is slow) one that is there is
# taken as the host built it; so with STITCH_WORKLOADS_BUILT (make test,
# tests/all.sh: built once before the guests start, never rewritten while
# one may be running it).
workload() {
	local a out='' prev=''
	for a in "$@"; do
		[ "$prev" = -o ] && out=$a
		prev=$a
	done
	if [ -n "${STITCH_PREBUILT:-}${STITCH_WORKLOADS_BUILT:-}" ] && [ -n "$out" ] && [ -e "$out" ]; then
		return 0
	fi
	# The architecture's compiler for a C workload (the lines say gcc).
	[ "$1" != gcc ] || set -- "$WCC" "${@:2}"
	"$@"
}

# The running kernel has kprobes (this VM's has none; the kernel matrix's do).
has_kprobes() {
	[ -e /sys/bus/event_source/devices/kprobe/type ]
}

die() {
	echo "$*" >&2
	exit 1
}

# total FILE [REGEX]: sum of counts of folded lines matching REGEX (default all).
total() {
	local file=$1
	# Regexes go through the environment: awk -v would eat backslashes.  %.0f:
	# mawk prints a sum past 2^31 (bytes, nanoseconds) as 2.25575e+09.
	RE=$(arch_re "${2:-.}") awk '$0 ~ ENVIRON["RE"] { n += $NF } END { printf "%.0f\n", n }' "$file"
}

# share FILE OF_REGEX IN_REGEX: percent (integer) of the OF_REGEX events that
# also match IN_REGEX, of those whose user stack could be read at the event:
# a stack stitch marks [user stack unreadable] (its top page not present
# then: 3 of 7301 Python samples in a busy CI guest) has no chain to check.
# share_all counts those too.
share() {
	SKIP='\[user stack unreadable\]' share_all "$@"
}

share_all() {
	local file=$1
	OF=$(arch_re "$2") IN=$(arch_re "$3") awk '
		ENVIRON["SKIP"] != "" && $0 ~ ENVIRON["SKIP"] { next }
		$0 ~ ENVIRON["OF"] { all += $NF; if ($0 ~ ENVIRON["IN"]) hit += $NF }
		END { if (all == 0) print 0; else print int(100 * hit / all) }' "$file"
}

# A number, or the test dies: an empty value must never compare as a pass.
is_number() {
	case "$1" in
	'' | *[!0-9]*) die "$2: '$1' is not a number" ;;
	esac
}

# expect_ge WHAT VALUE MIN
expect_ge() {
	is_number "$2" "$1"
	if [ "$2" -lt "$3" ]; then
		die "$1: got $2, expected at least $3"
	fi
	echo "$1: $2 (>= $3)"
}

# expect_le WHAT VALUE MAX
expect_le() {
	is_number "$2" "$1"
	if [ "$2" -gt "$3" ]; then
		die "$1: got $2, expected at most $3"
	fi
	echo "$1: $2 (<= $3)"
}

# expect_eq WHAT VALUE WANT
expect_eq() {
	if [ "$2" != "$3" ]; then
		die "$1: got '$2', expected '$3'"
	fi
	echo "$1: $2"
}

# expect_grep FILE REGEX: the file has a line matching REGEX.
expect_grep() {
	if ! grep -qE -- "$(arch_re "$2")" "$1"; then
		echo "--- $1:"
		head -c 4000 "$1"
		die "no line of $1 matches: $2"
	fi
}

# py_burn PATH_RE: py_stitch.py's cpu_burn frame as a folded regex, at any
# line of it: the loop's, the "n = 0" before it and "return n" after it,
# and the "def" line, where a frame just pushed stands (its first
# instruction, RESUME, carries the def's line: dis shows it so), all of
# which a sample catches now and then in the arm64 guest of CI (line 58,
# the return, in 1 of 4,524 samples, 2026-12-06; line 55, the def, in 1 of
# ~2,700 of 3.15's, 2026-12-07, and once in 40 runs here).  True frames.
py_burn() {
	local l
	l=$(grep -n '# MARK: cpu_burn$' tests/workloads/interp/py_stitch.py | cut -d: -f1)
	is_number "$l" "MARK cpu_burn"
	echo "cpu_burn \\($1:($((l - 2))|$((l - 1))|$l|$((l + 1)))\\)"
}

# show FILE: the top lines of a folded file, for the log.
# show_outside FILE OF IN: the stacks matching OF but not IN, the ones a
# share() below 100 left out.
show_outside() {
	OF=$(arch_re "$2") IN=$(arch_re "$3") awk '
		$0 ~ ENVIRON["OF"] && $0 !~ ENVIRON["IN"] {
			# Whole: where a stack differs from the chain is anywhere in it.
			print "outside: " substr($0, 1, 4000) }' "$1" | head -n 20
}

show() {
	sort -t' ' -k2 -nr "$1" 2>/dev/null | awk '{ n = $NF; $NF = ""; print n, $0 }' |
		sort -nr | head -n "${2:-5}" | cut -c1-400
}
