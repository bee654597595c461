# SPDX-License-Identifier: GPL-2.0
# Integration tests of `stitch latency` (issue 15); sourced by run.sh, which
# gives $STITCH, $TMP, $W and the helpers of lib.sh (and offcpu.sh's).

workload gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -pthread \
	-o "$W/slow_calls" tests/workloads/slow_calls.c || exit 1
SLOW_CALLS=$(realpath "$W/slow_calls")
workload gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -o "$W/two_way" tests/workloads/two_way.c || exit 1
TWO_WAY=$(realpath "$W/two_way")
workload gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -pthread -o "$W/three_way" \
	tests/workloads/three_way.c || exit 1
THREE_WAY=$(realpath "$W/three_way")
LIBC=$(ldd "$SLOW_CALLS" 2>/dev/null | awk '$1 ~ /^libc[.]so/ { print $3 }')

# lat_run MODE N OUT -- STITCH-ARGS...: start slow_calls MODE N (two_way N
# or three_way N for MODE two_way or three_way), trace it
# with -p and the arguments given, let it run once stitch is attached; the
# workload's own line in OUT.wl, stitch's output in OUT.out and OUT.err.
# Under emulation a fast call takes a millisecond itself (a uprobe is a slow
# trap there: 929 of 2000 lookups were over 1 ms in a guest of 6.1): slow
# from 3 ms there, still well below the designed 5 ms.  A test's own -t,
# after it, wins.
LAT_SLOW=
[ "$SLOWDOWN" -gt 1 ] && LAT_SLOW="-t 3ms"

lat_run() {
	local mode=$1 n=$2 out=$3 pid i st
	shift 4
	if [ "$mode" = two_way ]; then
		"$TWO_WAY" "$n" >"$out.wl" &
	elif [ "$mode" = three_way ]; then
		"$THREE_WAY" "$n" >"$out.wl" &
	else
		"$SLOW_CALLS" "$mode" "$n" >"$out.wl" &
	fi
	pid=$!
	for i in $(seq 100); do grep -q ready "$out.wl" && break; sleep 0.05; done
	"$STITCH" latency -p "$pid" $LAT_SLOW "$@" >"$out.out" 2>"$out.err" &
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

# wl_fd OUT: the read end of the workload's pipe, as it said when ready.
wl_fd() {
	awk '$1 == "ready" && $3 == "fd" { print $4 }' "$1.wl"
}

# expect_slow_count JSON OUT DESIGNED: stitch's slow calls are the
# workload's own count, or a few fewer, never more.  stitch times a call
# inside the workload's two clock reads, so a call at the threshold's edge
# can be slow for the workload and not for stitch (a CI run on a busy machine
# counted 55 and 54), never the other way; at most 2% of them (and 1) differ.
# Of the DESIGNED slow calls, a busy machine can make one fast (a reader
# held up past a late byte finds it there: CI counted 99 of 100), so the
# workload's count is only asked for 90% of them.
expect_slow_count() {
	local got all edge
	got=$(jq .slow "$1")
	all=$(wl "$2" slow)
	expect_ge "slow calls: at most the workload's own count, $all" "$((all - got))" 0
	expect_ge "the workload's slow calls: 90% of the $3 slow by design" "$((all * 10 / 9))" "$3"
	# Under emulation a fast call takes ~1 ms itself, on either clock: the
	# two counts at that edge are not compared there, only ours against the
	# design (5 ms each, far from it).
	if [ "$SLOWDOWN" -gt 1 ]; then
		expect_ge "slow calls: 90% of the $3 slow by design" "$((got * 10 / 9))" "$3"
		return
	fi
	edge=$((all * 2 / 100 > 1 ? all * 2 / 100 : 1))
	[ $((all - got)) -le "$edge" ] ||
		die "slow calls: $got, more than the threshold's edge (2%: $edge) below the workload's $all"
	echo "slow calls: $got, at most the threshold's edge ($edge) below the workload's $all"
}

# The designed wait of every slow call the latency workloads make
# (slow_calls.c's DELAY_NS, pl_slow_calls.pl's sleep), in us.
WAIT_US=5000

# expect_slow_time JSON OUT DESIGNED: stitch times a call from its entry
# probe to its return, inside the workload's own clock reads around it, so
# a call slow by stitch is slow by the workload and no longer: the slow
# calls' time is within the workload's.  And it holds the DESIGNED 5 ms
# waits, 90% of them at least.  Not "the workload's within 5%": on a busy
# machine a call is preempted between the workload's clock and the probe,
# and near the 1 ms bar one side counts it and the other not (sid's perl
# beside the kernel matrix's guests: 0.537 s against 0.572 s in the
# workload's calls over 2 ms alone).  Under emulation stitch's bar is 3 ms.
expect_slow_time() {
	local got all
	got=$(jq .slow_ns "$1")
	all=$(wl "$2" slow_ns)
	expect_ge "slow calls' time: within the workload's, $all ns" "$(awk "BEGIN { printf \"%d\", $all - $got }")" 0
	expect_ge "slow calls' time: the $3 designed 5 ms waits, 90%" "$((got - $3 * WAIT_US * 900))" 0
}

# share_of_slow FOLDED REGEX: percent (integer) of the slow calls' time on stacks matching REGEX.
share_of_slow() {
	local all part
	all=$(total "$1" '.')
	part=$(total "$1" "$2")
	echo $((100 * part / all))
}

# expect_slow_share LABEL DESIGNED FOLDED REGEX: the designed waits (DESIGNED
# of them, 5 ms each) are 90% of the slow calls' time at least, on stacks
# matching REGEX.  Under emulation that share depends on the guest's pace
# (fast calls of a millisecond and more join the slow ones: 32% of Perl's
# subs' slow time in sid's guest once, 65% another time): there the waits'
# own time is asked for, 70% of DESIGNED x 5 ms at least (a wait starts a
# little after its call, later in a slow guest).
expect_slow_share() {
	if [ "$SLOWDOWN" -gt 1 ]; then
		expect_ge "$1 (under emulation: us of the $2 designed 5 ms waits, 70%)" \
			"$(total "$3" "$4")" $(($2 * WAIT_US * 70 / 100))
		return
	fi
	expect_ge "$1" "$(share_of_slow "$3" "$4")" 90
}

# read(2) of a pipe whose writer is late for every 20th byte: every call
# counted, the slow ones' time in the kernel's pipe read under read_byte.
test_latency_syscall_pipe_breakdown() {
	lat_run pipe 2000 "$TMP/lp" -- -e syscall:read --top 3 -o "$TMP/lp.json" \
		-o "$TMP/lp.folded" -o "$TMP/lp.svg" -o "$TMP/lp.txt"
	head -40 "$TMP/lp.txt"
	expect_eq "calls counted" "$(jq .calls "$TMP/lp.json")" 2000
	expect_slow_count "$TMP/lp.json" "$TMP/lp" 100
	within_pct "p99" "$(jq '.p99_ns / 1e9' "$TMP/lp.json")" "$(awk "BEGIN { print $(wl "$TMP/lp" p99_ns) / 1e9 }")" 10
	expect_slow_time "$TMP/lp.json" "$TMP/lp" 100
	expect_eq "histogram total" "$(jq '[.histogram[].count] | add' "$TMP/lp.json")" 2000
	expect_eq "slowest listed" "$(jq '.slowest | length' "$TMP/lp.json")" 3
	expect_eq "slowest: fd of the pipe, 1 byte, returned 1 (named as the syscall's format names them)" \
		"$(jq -r --argjson fd "$(wl_fd "$TMP/lp")" '[.slowest[] | select(.args.fd == $fd and .args.count == 1 and .ret == 1 and .duration_ns >= 1000000 and .on_cpu_ns + .off_cpu_ns == .duration_ns)] | length' "$TMP/lp.json")" 3
	expect_slow_share "% of the slow calls' time blocked in the pipe read under read_byte" 100 \
		"$TMP/lp.folded" '^read;\[off-cpu\];_start;__libc_start_main;__libc_start_call_main;main;read_byte;read;.*;(anon_)?pipe_read_\[k\];'
	expect_grep "$TMP/lp.txt" '^stitch latency: syscall:read: 2000 calls in'
	expect_grep "$TMP/lp.txt" 'off-CPU in (anon_)?pipe_read <- (new_sync_read|vfs_read) <- \.\.\. <- .*read_byte$'
	expect_grep "$TMP/lp.svg" '<svg'
	no_programs_left
}

# --wakers: each blocked stack of a slow call joined to the stack of who
# woke the thread (the writer thread's write), drawn above it past '--'.
test_latency_wakers() {
	lat_run pipe 1000 "$TMP/lw" -- -e syscall:read --wakers -o "$TMP/lw.folded" \
		-o "$TMP/lw.json"
	# The workload's own count: 50 by design, one more when a fast read is
	# held up (a CI run of the sanitizer build measured 51, and so did stitch).
	expect_slow_count "$TMP/lw.json" "$TMP/lw" 50
	expect_slow_share "% of the slow calls' time blocked in read_byte and woken by the writer's write" 50 \
		"$TMP/lw.folded" '^read;\[off-cpu\];.*;main;read_byte;read;.*;(anon_)?pipe_read_\[k\];.*\[S sleeping\];--;try_to_wake_up_\[k\];.*;(anon_)?pipe_write_\[k\];.*;write;writer;start_thread;clone3;\[woken by slow_calls tid [0-9]+\] '
	no_programs_left
}

# --fetch at the root's entry, shown with each slow call: lookup_record's
# argument i by name (its DWARF), and a system call's fd and count (its
# format, read from its registers).  Every slow call has its own call's
# values: the i of the calls slow by design are those with i % 20 == 19
# (a busy runner makes the odd other one slow too), and never twice.
test_latency_fetch_at_entry() {
	lat_run lock 400 "$TMP/lf" -- -e "uprobe:$SLOW_CALLS:lookup_record" --fetch i --top 1000 \
		-o "$TMP/lf.json" -o "$TMP/lf.txt"
	sed -n '/slowest/,$p' "$TMP/lf.txt" | grep 'tid ' | head -3
	local slow
	slow=$(jq .slow "$TMP/lf.json")
	expect_ge "slow calls" "$slow" 18
	expect_eq "slow calls with their values" \
		"$(jq '[.slowest[] | select(.values | test("^i=[0-9]+$"))] | length' "$TMP/lf.json")" \
		"$slow"
	expect_eq "calls' i seen twice" "$(jq -r '.slowest[].values' "$TMP/lf.json" | sort |
		uniq -d | wc -l)" 0
	expect_ge "slow by design (i % 20 == 19): 90% of the workload's $(wl "$TMP/lf" slow_meant)" \
		"$(($(jq '[.slowest[].values | ltrimstr("i=") | tonumber |
			select(. % 20 == 19 and . < 400)] | length' "$TMP/lf.json") * 10 / 9))" \
		"$(wl "$TMP/lf" slow_meant)"
	expect_grep "$TMP/lf.txt" "^  [0-9.]+ ms: tid [0-9]+, .*; i=[0-9]*19\$"

	# A system call's registers are bpf_task_pt_regs' (5.15): 5.10 says so.
	if ! grep -qE '^  bpf_task_pt_regs .* yes ' <<<"$("$STITCH" features 2>/dev/null)"; then
		local rc=0
		"$STITCH" latency -e syscall:read --fetch fd -- true 2>"$TMP/lfp.err" || rc=$?
		cat "$TMP/lfp.err"
		expect_eq "exit status without bpf_task_pt_regs" "$rc" 1
		expect_grep "$TMP/lfp.err" "reads its registers with bpf_task_pt_regs \\(Linux 5\\.15\\)"
		return
	fi
	lat_run pipe 400 "$TMP/lfp" -- -e syscall:read --fetch fd --fetch count --top 3 \
		-o "$TMP/lfp.json"
	expect_eq "slowest reads: the pipe's fd, 1 byte" \
		"$(jq -r --arg v "fd=$(wl_fd "$TMP/lfp") count=1" '[.slowest[] | select(.values == $v)] |
			length' "$TMP/lfp.json")" 3
}


# A C function root (uprobe + uretprobe): every 20th lookup waits for a
# mutex another thread holds.
# --children: read_block and wait_for_lock timed exactly inside each slow
# call, nested by our own entry/return order (pthread_mutex_lock in libc
# under wait_for_lock).
test_latency_function_lock_breakdown() {
	lat_run lock 2000 "$TMP/ll" -- -e "uprobe:$SLOW_CALLS:lookup_record" -o "$TMP/ll.json" \
		-o "$TMP/ll.folded" -o "$TMP/ll.txt" \
		--children "read_block,wait_for_lock,$LIBC:pthread_mutex_lock"
	sed -n '/^Nested/,/^$/p' "$TMP/ll.txt"
	sed -n '/slowest/,$p' "$TMP/ll.txt" | head -12
	local slow
	slow=$(jq .slow "$TMP/ll.json")
	expect_eq "calls counted" "$(jq .calls "$TMP/ll.json")" 2000
	expect_slow_count "$TMP/ll.json" "$TMP/ll" 100
	within_pct "p99" "$(jq '.p99_ns / 1e9' "$TMP/ll.json")" "$(awk "BEGIN { print $(wl "$TMP/ll" p99_ns) / 1e9 }")" 10
	# The whole chain: main, lookup_record and wait_for_lock returned to a
	# uretprobe's trampoline (the root and two children), which the kernel
	# walk looks through into the thread's return instances.
	expect_slow_share "% of the slow calls' time waiting for the mutex in lookup_record" 100 \
		"$TMP/ll.folded" '^lookup_record;\[off-cpu\];_start;__libc_start_main;__libc_start_call_main;main;lookup_record;wait_for_lock;pthread_mutex_lock;.*;futex_wait_\[k\];'
	# Calls are sampled from their start: a fast call's stacks (a sample that
	# hit it, a switch-out) are taken and then dropped, so they are bounded
	# by the sampling rate over the run, not by the calls.
	expect_ge "stacks taken outside slow calls: at most 999 a second of the run" \
		"$(jq '(.seconds * 999 | floor) - (.stacks_taken - .stacks_in_slow_calls)' "$TMP/ll.json")" 0
	expect_ge "stacks taken" "$(jq .stacks_taken "$TMP/ll.json")" 100
	# The tree: every slow call read a block and waited once, the wait was
	# pthread_mutex_lock, and it is the slow calls' time less what they spent
	# on CPU, within 5%.
	expect_eq "tree: the root's calls" "$(jq .children.calls "$TMP/ll.json")" "$slow"
	# A busy runner makes the odd call slow without the lock (CI once saw
	# 101 slow calls, 100 of them waits): wait_for_lock is counted against
	# the slow calls that waited, as the workload saw them.
	# Under emulation (3 ms) a wait that began late, its thread held up
	# after the holder's turn, can be fast for stitch and slow for the
	# workload (1 ms): 97 of 99 on a loaded 2-CPU host at that threshold.
	local waited waits
	waited=$(wl "$TMP/ll" slow_meant)
	waits=$(jq '.children.children[] | select(.name == "wait_for_lock") | .calls' "$TMP/ll.json")
	if [ "$SLOWDOWN" -gt 1 ]; then
		expect_ge "tree: lookup_record > wait_for_lock: at most once per slow call that waited ($waited)" \
			"$((waited - waits))" 0
		expect_ge "tree: lookup_record > wait_for_lock: 90% of the slow calls that waited" \
			"$((waits * 10 / 9))" "$waited"
		waited=$waits
	else
		expect_eq "tree: lookup_record > wait_for_lock, once per slow call that waited" "$waits" "$waited"
	fi
	expect_eq "tree: lookup_record > read_block, once per slow call" \
		"$(jq '.children.children[] | select(.name == "read_block") | .calls' "$TMP/ll.json")" "$slow"
	expect_eq "tree: wait_for_lock > pthread_mutex_lock" \
		"$(jq '.children.children[] | select(.name == "wait_for_lock") | .children[0] | "\(.name) \(.calls)"' -r "$TMP/ll.json")" \
		"pthread_mutex_lock $waited"
	# The stacks taken at the calls' switch-outs weigh what the calls spent
	# switched out, never more (their CPU time read from se.sum_exec_runtime
	# once missed up to a tick, and 5.13 ms stacks sat in 4.92 ms off-CPU).
	# Folded weights are in us, rounded: 1 us a line of slack.  Under
	# emulation the two programs that read the clock at a switch (the call's
	# and the off-CPU stack's) run microseconds apart, and the stacks came
	# out 280 us over 580 ms (0.05%, 6.1's guest), once 3.6 ms over ~600 ms
	# (0.6%, 6.1's guest beside the arm64 one in CI): 2% of slack there.
	# On this VM too, once: 3 us over 507 ms of 100 calls (a CI run, busy
	# with the tests before): 0.1% of slack here.
	expect_ge "the slow calls' off-CPU time covers their off-CPU stacks" \
		"$(($(jq --argjson s $((SLOWDOWN > 1 ? 1020 : 1001)) '.slow_off_cpu_ns * $s / 1e6 | floor' "$TMP/ll.json") \
			+ $(grep -c . "$TMP/ll.folded") - $(total "$TMP/ll.folded" '^lookup_record;\[off-cpu\];_start;')))" 0
	local wfl
	wfl='.children.children[] | select(.name == "wait_for_lock") | .total_ns'
	if [ "$SLOWDOWN" -gt 1 ]; then
		# Under emulation wait_for_lock's and pthread_mutex_lock's four
		# probes take ~0.3 ms each on CPU (sid's guest: 688 ms in the
		# waits, 568 ms of it off-CPU): the waits hold the off-CPU time,
		# and the rest of theirs is the calls' CPU time.
		expect_ge "tree: wait_for_lock's time holds the slow calls' off-CPU time (5%)" \
			"$(jq "($wfl) * 105 / 100 - .slow_off_cpu_ns | floor" "$TMP/ll.json")" 0
		expect_ge "tree: wait_for_lock's time less that: the slow calls' CPU time at most" \
			"$(jq ".slow_on_cpu_ns - ($wfl) + .slow_off_cpu_ns" "$TMP/ll.json")" 0
	else
		within_pct "tree: wait_for_lock's time = the slow calls' off-CPU time" \
			"$(jq "($wfl) / 1e9" "$TMP/ll.json")" "$(jq '.slow_off_cpu_ns / 1e9' "$TMP/ll.json")" 5
	fi
	# Each read a block and waited; under emulation a slowest call may be one
	# that did not wait (a block read slowly from the host's files): read only.
	expect_eq "every slowest call has its own tree" \
		"$(jq --argjson min $((SLOWDOWN > 1 ? 1 : 2)) '[.slowest[] | select(.children.calls == 1 and (.children.children | length) >= $min)] | length' "$TMP/ll.json")" \
		"$(jq '.slowest | length' "$TMP/ll.json")"
	expect_grep "$TMP/ll.txt" '^      wait_for_lock +[0-9]+x '
	expect_grep "$TMP/ll.txt" 'off-CPU in futex_.* <- \.\.\. <- wait_for_lock$'
	no_programs_left
}

# Where the kernel has no BPF cookies (5.10), a child's probe cannot say
# which function it is: --children is left out, said once, and the calls
# are timed as without it.
test_latency_children_without_cookies() {
	STITCH_KFEAT_OFF=cookie lat_run lock 1000 "$TMP/lc" -- -e "uprobe:$SLOW_CALLS:lookup_record" \
		--children read_block,wait_for_lock -o "$TMP/lc.json" -o "$TMP/lc.folded"
	expect_eq "said once" "$(grep -c 'has no BPF cookies (Linux 5.15): --children is left out, the calls are timed without their children' "$TMP/lc.err")" 1
	expect_eq "calls counted" "$(jq .calls "$TMP/lc.json")" 1000
	expect_slow_count "$TMP/lc.json" "$TMP/lc" 50
	expect_eq "no tree" "$(jq '.children // "none"' -r "$TMP/lc.json")" none
	expect_slow_share "% of the slow calls' time waiting for the mutex in lookup_record" 50 \
		"$TMP/lc.folded" '^lookup_record;\[off-cpu\];_start;__libc_start_main;__libc_start_call_main;main;lookup_record;wait_for_lock;pthread_mutex_lock;.*;futex_wait_\[k\];'
	no_programs_left
}

# A handler slow two ways (two_way.c): of every 25 calls one sleeps 20 ms,
# one computes for 10 ms.  The slow calls' time is on the stacks that cause
# it, the computing calls' from their first microsecond (sampled from the
# call's start, kept because the call ended slow), and nothing is lost.
test_latency_two_way_whole_time() {
	lat_run two_way 2000 "$TMP/l2" -- -e "uprobe:$TWO_WAY:handle" -t 5ms -F 999 \
		-o "$TMP/l2.json" -o "$TMP/l2.folded" -o "$TMP/l2.txt"
	sed -n '/where it went/,/^$/p' "$TMP/l2.txt" | grep -v '^        '
	local sleep compute
	expect_eq "calls counted" "$(jq .calls "$TMP/l2.json")" 2000
	# 160 by design (80 of each kind); stitch's window is inside the workload's.
	expect_slow_count "$TMP/l2.json" "$TMP/l2" 160
	sleep=$(share_of_slow "$TMP/l2.folded" '^handle;\[off-cpu\];_start;__libc_start_main;__libc_start_call_main;main;handle;fetch_slow;.*;do_nanosleep_\[k\];')
	# Preempted while computing (a busy machine) is the computing call's own stack too.
	compute=$(share_of_slow "$TMP/l2.folded" '^handle;\[(on|off)-cpu\];_start;__libc_start_main;__libc_start_call_main;main;handle;compute_slow(;|$| )')
	echo "sleeping: $sleep%, computing: $compute%"
	expect_ge "% of the slow calls' time on the two stacks that cause it" $((sleep + compute)) 90
	# 80 x 10 ms of 80 x 20 ms + 80 x 10 ms: a third
	expect_ge "% of it computing (a third by design)" "$compute" 28
	expect_grep "$TMP/l2.txt" 'on CPU in crunch <- compute_slow <- handle$'
	expect_eq "slow calls lost" "$(jq .slow_lost "$TMP/l2.json")" 0
	expect_no_lost_time "$TMP/l2"
	no_programs_left
}

# expect_no_lost_time OUT: no off-CPU interval lost, at most 1% of the slow
# calls' off-CPU time without its stack, and on CPU "between samples" at
# most half a sampling period (999 Hz, latency's default) per slow call: a
# call's last run leaves what follows its last sample, half a period on
# average, a whole run when it is shorter than a period (a woken call's
# return).  8% of the on-CPU time was the bound once: three_way's 150 slow
# calls left 32 ms of 358 (9%) in a CI run, 8-23 ms in ten runs before.  A
# switch-in no sched_switch shows (0-10 of ~400 switch-outs of a two_way run
# on our VM: its pid 1's threads switch to ours unseen) once lost its
# interval; now it is timed from the thread's CPU time, which a call's end
# reads up to a tick old: such an interval that ends with its call can weigh
# up to a tick more in the call's off-CPU time than on its stack (0.4 and
# 0.8 ms seen in a run).  A vCPU stolen by the host under a computing call,
# and its runs' ends between their last sample and a switch-out, were
# "between samples" (up to 40% of its time on a busy machine).
expect_no_lost_time() {
	local half off
	expect_eq "LOST lines" "$(grep -c LOST "$1.err")" 0
	off=$(jq '.slow_off_cpu_ns / 1000 | floor' "$1.json")
	expect_ge "off-CPU time with no stack: at most 1% of $off us" \
		$((off / 100 - $(total "$1.folded" '\[no stack taken\]'))) 0
	half=$(($(jq .slow "$1.json") * 1000000 / 999 / 2))
	expect_ge "on-CPU time between samples: at most half a period a slow call, $half us" \
		$((half - $(total "$1.folded" '\[not sampled: between samples\]'))) 0
}

# A request handler slow three ways with helper threads (three_way.c): of
# every 20 calls one waits for a mutex another thread holds, one for a
# pipe's late reply, one computes in nested functions.  The slow calls'
# time is on the three stacks that cause it, and nothing is lost.
test_latency_three_way_whole_time() {
	local P lock pipe compute
	lat_run three_way 1000 "$TMP/l3" -- -e "uprobe:$THREE_WAY:handle_request" -t 5ms \
		-o "$TMP/l3.json" -o "$TMP/l3.folded" -o "$TMP/l3.txt"
	sed -n '/where it went/,/^$/p' "$TMP/l3.txt" | grep -v '^        '
	expect_eq "calls counted" "$(jq .calls "$TMP/l3.json")" 1000
	expect_slow_count "$TMP/l3.json" "$TMP/l3" 150
	P='^handle_request;\[(on|off)-cpu\];_start;__libc_start_main;__libc_start_call_main;main;handle_request;'
	lock=$(share_of_slow "$TMP/l3.folded" "${P}lock_state;pthread_mutex_lock;.*;futex_wait_\\[k\\];")
	pipe=$(share_of_slow "$TMP/l3.folded" "${P}fetch_reply[^;]*;read;.*;(anon_)?pipe_read_\\[k\\];")
	# parse() tail-calls checksum(): no frame of its own
	compute=$(share_of_slow "$TMP/l3.folded" "${P}checksum(;|\$| )")
	echo "locked: $lock%, reading: $pipe%, computing: $compute%"
	expect_ge "% of the slow calls' time on the three stacks that cause it" \
		$((lock + pipe + compute)) 90
	expect_ge "% of it locked" "$lock" 15
	expect_ge "% of it reading" "$pipe" 10
	expect_ge "% of it computing" "$compute" 15
	expect_no_lost_time "$TMP/l3"
	no_programs_left
}

# Roots made of a begin/end pair: the workload's own USDT probes around each
# call, and the read system call's two tracepoints (matched by thread, like
# syscall:read); then a pair matched by a field (a wakeup of a thread and its
# switch-in), whose slow calls have no thread to break down.
test_latency_pairs() {
	lat_run pipe 1000 "$TMP/lu" -- -e "usdt:$SLOW_CALLS:slowcalls:call__begin,call__end" \
		-o "$TMP/lu.json" -o "$TMP/lu.folded"
	expect_eq "usdt pair: calls" "$(jq .calls "$TMP/lu.json")" 1000
	expect_slow_count "$TMP/lu.json" "$TMP/lu" 50
	expect_slow_share "usdt pair: % of the slow calls' time blocked in the pipe read" 50 \
		"$TMP/lu.folded" '^slowcalls:call__begin;\[off-cpu\];_start;.*;main;read_byte;read;.*;(anon_)?pipe_read_\[k\];'
	# Five slowest, each a late byte's call by its number (under emulation
	# a preempted fast call can be as slow: three of them at least, two in
	# arm64's slower emulation, where 2 of 5 were seen).
	expect_ge "usdt pair: the slowest's argument is its call number" \
		"$(jq '[.slowest[] | select(.args.arg0 % 20 == 19)] | length' "$TMP/lu.json")" \
		$((SLOWDOWN > 4 ? 2 : SLOWDOWN > 1 ? 3 : 5))

	lat_run pipe 1000 "$TMP/lt" -- -e tracepoint:syscalls:sys_enter_read,sys_exit_read \
		-o "$TMP/lt.json"
	expect_eq "tracepoint pair: calls" "$(jq .calls "$TMP/lt.json")" 1000
	expect_slow_count "$TMP/lt.json" "$TMP/lt" 50
	expect_eq "tracepoint pair: fields as arguments, ret as the end's" \
		"$(jq --argjson fd "$(wl_fd "$TMP/lt")" '[.slowest[] | select(.args.fd == $fd and .args.count == 1 and .ret == 1)] | length' "$TMP/lt.json")" 5

	lat_run pipe 1000 "$TMP/lk" -- -e tracepoint:sched:sched_waking,sched_switch \
		--key pid=next_pid -t 1us -o "$TMP/lk.json" -o "$TMP/lk.txt"
	head -4 "$TMP/lk.txt"
	# The writer wakes the reader at least once per late byte (-p keeps the
	# wakeups done by the workload's threads, a timer interrupt's too when
	# it hit one of them); from wakeup to running, microseconds.
	expect_ge "keyed pair: wakeups" "$(jq .calls "$TMP/lk.json")" "$(wl "$TMP/lk" slow)"
	expect_ge "keyed pair: p50 under 1 ms" "$((1000000 - $(jq .p50_ns "$TMP/lk.json")))" 0
	expect_eq "keyed pair: each slowest has its key and who began it" \
		"$(jq '[.slowest[] | select(.key.pid > 0 and .tid > 0 and .on_cpu_ns == 0)] | length' "$TMP/lk.json")" \
		"$(jq '.slowest | length' "$TMP/lk.json")"
	expect_grep "$TMP/lk.txt" 'matched by key, so no thread waits in them: no breakdown'
	no_programs_left
}

test_latency_errors() {
	expect_error 2 "say what to time with -e" -- latency -a -d 1
	expect_error 2 "exactly one of: -p PID, -a, or -- COMMAND" -- latency -e syscall:read
	expect_error 2 "this kernel has no system call 'nosuchcall'" -- latency -e syscall:nosuchcall -a
	if ! has_kprobes; then
		expect_error 1 "this kernel has no kprobes \\(CONFIG_KPROBES is off" -- \
			latency -e kprobe:vfs_read -a
		expect_error 1 "kernel functions need kprobes" -- \
			latency -e syscall:read --children vfs_read -a -d 1
	fi
	expect_error 2 "fentry roots are not supported; use kprobe:FUNCTION" -- latency -e fentry:vfs_read -a
	expect_error 2 "CPython 3.11, Ruby 3.1: only while a tracer or profiler hook is set" -- \
		latency -e python:handle -a
	expect_error 2 "is not perl:NAME \\(a sub's name, without its package\\)" -- \
		latency -e perl:Foo::bar -a
	expect_error 2 "no perl we can follow in this target \\(not a perl" -- \
		latency -e perl:handle -- /bin/true
	expect_error 2 "is not uprobe:BINARY:FUNCTION" -- latency -e uprobe:/bin/true -a
	expect_error 2 "is not usdt:BINARY:PROVIDER:BEGIN,END" -- latency -e "usdt:$SLOW_CALLS:slowcalls:call__begin" -a
	expect_error 2 "has no USDT probe slowcalls:call__nope" -- \
		latency -e "usdt:$SLOW_CALLS:slowcalls:call__begin,call__nope" -a
	expect_error 2 "is not tracepoint:CATEGORY:BEGIN,END" -- latency -e tracepoint:sched:sched_switch -a
	expect_error 2 "this kernel has no tracepoint sched:sched_nope" -- \
		latency -e tracepoint:sched:sched_waking,sched_nope -a
	expect_error 2 "sched:sched_switch has no field 'nope'" -- \
		latency -e tracepoint:sched:sched_waking,sched_switch --key pid=nope -a
	expect_error 2 "only tracepoint pairs are matched by key" -- latency -e syscall:read --key fd -a
	expect_error 2 "children: 'f': name its binary" -- \
		latency -e "usdt:$SLOW_CALLS:slowcalls:call__begin,call__end" --children f -a
	expect_error 2 "--threshold: 'soon' is not a time" -- latency -e syscall:read -a -t soon
	expect_error 1 "cannot attach to uprobe:$SLOW_CALLS:no_such_function" -- \
		latency -e "uprobe:$SLOW_CALLS:no_such_function" -a -d 1
	no_programs_left
}

# A Perl sub as the root (perl:handle, on perl's own sub-call path): every
# call counted, whether it returns at its end, returns early, or dies out
# to its caller's eval, and subs it calls, recursion and dies caught inside
# it do not end it; the slow ones' time is in the pipe read under
# read_byte, with the script's lines.
test_latency_perl_sub_root() {
	local pl re out=$TMP/lpl pid st i
	pl=$(realpath tests/workloads/interp/pl_slow_calls.pl)
	re=$(printf '%s' "$pl" | sed 's/[.]/\\./g')
	/usr/bin/perl "$pl" 1000 >"$out.wl" &
	pid=$!
	for i in $(seq 100); do grep -q ready "$out.wl" && break; sleep 0.05; done
	"$STITCH" latency -e perl:handle -p "$pid" $LAT_SLOW -o "$out.json" -o "$out.folded" -o "$out.txt" \
		2>"$out.err" &
	st=$!
	for i in $(seq 400); do grep -q 'stitch latency: timing' "$out.err" && break; sleep 0.05; done
	kill -USR1 "$pid"
	wait "$pid" || die "the workload failed"
	wait "$st" || { cat "$out.err"; die "stitch latency failed"; }
	cat "$out.wl" "$out.err"
	head -3 "$out.txt"
	expect_eq "calls counted" "$(jq .calls "$out.json")" 1000
	expect_slow_count "$out.json" "$out" 50
	within_pct "p99" "$(jq '.p99_ns / 1e9' "$out.json")" "$(awk "BEGIN { print $(wl "$out" p99_ns) / 1e9 }")" 10
	expect_slow_time "$out.json" "$out" 50
	expect_eq "calls open at the end" "$(jq .open_at_end "$out.json")" 0
	expect_slow_share "% of the slow calls' time blocked reading the pipe in read_byte" 50 \
		"$out.folded" "^handle;\\[off-cpu\\];.*;main::handle \\($re:$(grep -n '# READ_CALL$' "$pl" | cut -d: -f1)\\);main::read_byte \\($re:$(grep -n '# READ_LINE$' "$pl" | cut -d: -f1)\\);.*;(anon_)?pipe_read_\\[k\\];"
	no_programs_left
}

# A system call without arguments (getppid's record ends before args[0]:
# reading them would make the tracepoint refuse the program), hundreds of
# thousands of calls, none slow: all counted, none claimed any stack, and
# the stacks taken (calls are sampled from their start) are bounded by the
# sampling rate, not by the calls: at -F 999, 0.3 s gives ~300 at most.
test_latency_syscall_without_arguments() {
	"$STITCH" latency -e syscall:getppid -t 1s -o "$TMP/lg.json" -- "$CHAIN" syscall 0.3 \
		2>"$TMP/lg.err"
	cat "$TMP/lg.err"
	expect_ge "calls" "$(jq .calls "$TMP/lg.json")" 100000
	expect_eq "slow" "$(jq .slow "$TMP/lg.json")" 0
	expect_eq "stacks in slow calls" "$(jq .stacks_in_slow_calls "$TMP/lg.json")" 0
	expect_ge "stacks taken: at most the samples of 0.3 s at 999 Hz, with margin" \
		$((450 - $(jq .stacks_taken "$TMP/lg.json"))) 0
	expect_eq "no arguments" "$(jq -c '.slowest' "$TMP/lg.json")" "[]"
}
