# SPDX-License-Identifier: GPL-2.0
# Integration tests of `stitch latency` (issue 15); sourced by run.sh, which
# gives $STITCH, $TMP, $W and the helpers of lib.sh (and offcpu.sh's).

gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -pthread \
	-o "$W/slow_calls" tests/workloads/slow_calls.c || exit 1
SLOW_CALLS=$(realpath "$W/slow_calls")

# lat_run MODE N OUT -- STITCH-ARGS...: start slow_calls MODE N, trace it
# with -p and the arguments given, let it run once stitch is attached; the
# workload's own line in OUT.wl, stitch's output in OUT.out and OUT.err.
lat_run() {
	local mode=$1 n=$2 out=$3 pid i st
	shift 4
	"$SLOW_CALLS" "$mode" "$n" >"$out.wl" &
	pid=$!
	for i in $(seq 100); do grep -q ready "$out.wl" && break; sleep 0.05; done
	"$STITCH" latency -p "$pid" "$@" >"$out.out" 2>"$out.err" &
	st=$!
	for i in $(seq 400); do grep -q 'stitch latency: timing' "$out.err" && break; sleep 0.05; done
	grep -q 'stitch latency: timing' "$out.err" || { cat "$out.err"; die "stitch never attached"; }
	kill -USR1 "$pid"
	wait "$pid" || die "the workload failed"
	wait "$st" || { cat "$out.err"; die "stitch latency failed"; }
	cat "$out.wl" "$out.err"
}

# wl OUT KEY: a number from the workload's own line.
wl() {
	awk -v k="$2" '$1 == "calls" { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' "$1.wl"
}

# share_of_slow FOLDED REGEX: percent (integer) of the slow calls' time on stacks matching REGEX.
share_of_slow() {
	local all part
	all=$(total "$1" '.')
	part=$(total "$1" "$2")
	echo $((100 * part / all))
}

# read(2) of a pipe whose writer is late for every 20th byte: every call
# counted, the slow ones' time in the kernel's pipe read under read_byte.
test_latency_syscall_pipe_breakdown() {
	lat_run pipe 2000 "$TMP/lp" -- -e syscall:read --top 3 -o "$TMP/lp.json" \
		-o "$TMP/lp.folded" -o "$TMP/lp.svg" -o "$TMP/lp.txt"
	head -40 "$TMP/lp.txt"
	expect_eq "calls counted" "$(jq .calls "$TMP/lp.json")" 2000
	expect_eq "calls at or over 1 ms (the workload's count)" "$(jq .slow "$TMP/lp.json")" \
		"$(wl "$TMP/lp" slow)"
	within_pct "p99" "$(jq '.p99_ns / 1e9' "$TMP/lp.json")" "$(awk "BEGIN { print $(wl "$TMP/lp" p99_ns) / 1e9 }")" 10
	within_pct "slow calls' time" "$(jq '.slow_ns / 1e9' "$TMP/lp.json")" \
		"$(awk "BEGIN { print $(wl "$TMP/lp" slow_ns) / 1e9 }")" 5
	expect_eq "histogram total" "$(jq '[.histogram[].count] | add' "$TMP/lp.json")" 2000
	expect_eq "slowest listed" "$(jq '.slowest | length' "$TMP/lp.json")" 3
	expect_eq "slowest: fd of the pipe, 1 byte, returned 1" \
		"$(jq -r '[.slowest[] | select(.args.arg0 == 3 and .args.arg2 == 1 and .ret == 1 and .duration_ns >= 1000000 and .on_cpu_ns + .off_cpu_ns == .duration_ns)] | length' "$TMP/lp.json")" 3
	expect_ge "% of the slow calls' time blocked in the pipe read under read_byte" \
		"$(share_of_slow "$TMP/lp.folded" '^read;\[off-cpu\];_start;__libc_start_main;__libc_start_call_main;main;read_byte;read;.*;anon_pipe_read_\[k\];')" 90
	expect_grep "$TMP/lp.txt" '^stitch latency: syscall:read: 2000 calls in'
	expect_grep "$TMP/lp.txt" 'off-CPU in anon_pipe_read <- vfs_read <- \.\.\. <- .*read_byte$'
	expect_grep "$TMP/lp.svg" '<svg'
	no_programs_left
}

# A C function root (uprobe + uretprobe): every 20th lookup waits for a
# mutex another thread holds.  The fast ones, which never block and end
# under the threshold, cost no stack: every stack taken is a slow call's.
test_latency_function_lock_breakdown() {
	lat_run lock 2000 "$TMP/ll" -- -e "uprobe:$SLOW_CALLS:lookup_record" -o "$TMP/ll.json" \
		-o "$TMP/ll.folded"
	cat "$TMP/ll.out" | head -30
	expect_eq "calls counted" "$(jq .calls "$TMP/ll.json")" 2000
	expect_eq "calls at or over 1 ms (the workload's count)" "$(jq .slow "$TMP/ll.json")" \
		"$(wl "$TMP/ll" slow)"
	within_pct "p99" "$(jq '.p99_ns / 1e9' "$TMP/ll.json")" "$(awk "BEGIN { print $(wl "$TMP/ll" p99_ns) / 1e9 }")" 10
	expect_ge "% of the slow calls' time waiting for the mutex in lookup_record" \
		"$(share_of_slow "$TMP/ll.folded" '^lookup_record;\[off-cpu\];.*;lookup_record;wait_for_lock;pthread_mutex_lock;.*;futex_wait_\[k\];')" 90
	expect_eq "stacks taken outside slow calls" \
		"$(jq '.stacks_taken - .stacks_in_slow_calls' "$TMP/ll.json")" 0
	expect_ge "stacks taken" "$(jq .stacks_taken "$TMP/ll.json")" 100
	no_programs_left
}

test_latency_errors() {
	expect_error 2 "say what to time with -e" -- latency -a -d 1
	expect_error 2 "exactly one of: -p PID, -a, or -- COMMAND" -- latency -e syscall:read
	expect_error 2 "this kernel has no system call 'nosuchcall'" -- latency -e syscall:nosuchcall -a
	expect_error 2 "kernel functions as roots are not supported yet" -- latency -e kprobe:vfs_read -a
	expect_error 2 "is not uprobe:BINARY:FUNCTION" -- latency -e uprobe:/bin/true -a
	expect_error 2 "--threshold: 'soon' is not a time" -- latency -e syscall:read -a -t soon
	expect_error 1 "cannot attach to uprobe:$SLOW_CALLS:no_such_function" -- \
		latency -e "uprobe:$SLOW_CALLS:no_such_function" -a -d 1
	no_programs_left
}
