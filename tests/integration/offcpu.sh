# SPDX-License-Identifier: GPL-2.0
# Integration tests of off-CPU time (`stitch record -e offcpu`); sourced by
# run.sh, which gives $STITCH, $TMP, $W and the helpers of lib.sh.

workload gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -pthread \
	-o "$W/waits" tests/workloads/waits.c || exit 1
WAITS=$(realpath "$W/waits")

# offcpu_total FOLDED REGEX: seconds of off-CPU time (folded: microseconds)
# on stacks matching REGEX, to 4 decimals.
offcpu_total() {
	RE=$2 awk '$0 ~ ENVIRON["RE"] { n += $NF } END { printf "%.4f\n", n / 1e6 }' "$1"
}

# waited OUT KIND: the workload's own off-CPU seconds for KIND.
waited() {
	awk -v k="$2" '$1 == "waited" && $2 == k { print $3 }' "$1"
}

# within_pct WHAT GOT WANT PCT: |GOT - WANT| <= PCT% of WANT.
within_pct() {
	echo "$1: stitch $2 s, the workload $3 s"
	awk -v g="$2" -v w="$3" -v p="$(($4 * SLOWDOWN))" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w * p / 100) }' ||
		die "$1: $2 s is not within $(($4 * SLOWDOWN))% of $3 s"
}

# Threads that sleep, read a pipe, wait on a mutex and fsync, for 2 s each:
# each blocked stack, from the blocking call down to the thread's start, and
# its total within 5% of what the thread measured itself (wall less CPU time
# around the call).
test_offcpu_totals_match_the_workload() {
	"$STITCH" record -e offcpu -o "$TMP/off.folded" -o "$TMP/off.pb.gz" -- \
		"$WAITS" blockers 2 >"$TMP/off.out" 2>"$TMP/off.err"
	cat "$TMP/off.out" "$TMP/off.err"
	within_pct "nanosleep" "$(offcpu_total "$TMP/off.folded" \
		';start_thread;run_waiter;wait_sleep;sleep_ns_\[i\];__nanosleep;clock_nanosleep;.*;do_nanosleep_\[k\];')" \
		"$(waited "$TMP/off.out" sleep)" 5
	within_pct "read of a pipe" "$(offcpu_total "$TMP/off.folded" \
		';start_thread;run_waiter;wait_pipe;read;.*;(anon_)?pipe_read_\[k\];')" \
		"$(waited "$TMP/off.out" pipe)" 5
	within_pct "pthread mutex" "$(offcpu_total "$TMP/off.folded" \
		';start_thread;run_waiter;wait_mutex;pthread_mutex_lock;.*__lll_lock_wait;.*;futex_wait_\[k\];')" \
		"$(waited "$TMP/off.out" mutex)" 5
	# fsync: the stack, in D, with its block-layer wait, where there is a disk
	# to wait for (the kernel matrix's guests write to memory: no wait).
	case $(stat -f -c %T .) in
	tmpfs | overlayfs | v9fs) echo "fsync: no disk under $(pwd)" ;;
	*) expect_ge "fsync stacks waiting in D" \
		"$(grep -c ';wait_fsync;fsync;.*;\[D uninterruptible\] ' "$TMP/off.folded")" 1 ;;
	esac
	# Every interval has a state leaf, and the pprof says what it measures.
	expect_eq "stacks without a state leaf" \
		"$(grep -vc '\[\(S sleeping\|D uninterruptible\|runnable\|stopped or traced\)\] [0-9]*$' "$TMP/off.folded")" 0
	go tool pprof -raw "$TMP/off.pb.gz" 2>/dev/null | grep -q '^Sample types:' || true
	"$STITCH" report "$TMP/off.pb.gz" -o "$TMP/off.back.txt"
	expect_grep "$TMP/off.back.txt" '^stitch: [0-9.]+ s of off_cpu'
}

# --min-block drops short intervals; --no-runnable drops preempted time.
test_offcpu_min_block_and_runnable() {
	"$STITCH" record -e offcpu --min-block 5ms --no-runnable -o "$TMP/mb.folded" -- \
		"$WAITS" blockers 1 >"$TMP/mb.out"
	cat "$TMP/mb.out"
	# 10 ms sleeps stay, ~130 us fsyncs go.
	within_pct "nanosleep over 5ms" "$(offcpu_total "$TMP/mb.folded" ';wait_sleep;')" \
		"$(waited "$TMP/mb.out" sleep)" 5
	# Most fsyncs take ~0.1 ms here; the odd one over 5 ms stays.
	local kept all
	kept=$(offcpu_total "$TMP/mb.folded" ';wait_fsync;fsync;')
	all=$(waited "$TMP/mb.out" fsync)
	echo "fsync: $kept s kept of $all s"
	awk -v k="$kept" -v a="$all" 'BEGIN { exit !(k < a * 0.3) }' || die "short fsyncs were kept"
	expect_eq "runnable stacks" "$(grep -c '\[runnable\]' "$TMP/mb.folded")" 0
}

# A thread that never wakes again is reported at the end with its time so
# far (here a command that sleeps past the recording).
test_offcpu_blocked_at_end_counted() {
	"$STITCH" record -e offcpu -d 1.5 -o "$TMP/end.folded" -- sleep 7.25
	pkill -f '^sleep 7.25$' || true
	cat "$TMP/end.folded"
	within_pct "sleep blocked through the recording" \
		"$(offcpu_total "$TMP/end.folded" '^sleep;.*;do_nanosleep_\[k\];.*;\[S sleeping\] ')" 1.5 10
	expect_error 2 "record it alone, or with cpu" -- record -e offcpu -e syscall:getpid -a -d 1
	expect_error 2 "--min-block: 'x' is not a time" -- record -e offcpu --min-block x -a -d 1
	no_programs_left
}

# -p attaches to a running process (its threads already waiting are seen
# from their next switch), -a traces every thread of the machine.
test_offcpu_pid_and_all() {
	"$WAITS" blockers 4 >"$TMP/p.out" &
	local w=$!
	sleep 0.5
	"$STITCH" record -e offcpu -p "$w" -d 2 -o "$TMP/p.folded"
	"$STITCH" record -e offcpu -a -d 0.5 -o "$TMP/a.folded"
	wait "$w"
	# 10 ms sleeps: from the first switch on, 2 s of them, less one tick.
	within_pct "nanosleep under -p" "$(offcpu_total "$TMP/p.folded" ';wait_sleep;')" 2 6
	expect_ge "threads of other processes under -a" \
		"$(cut -d';' -f1 "$TMP/a.folded" | sort -u | wc -l)" 2
	no_programs_left
}

# The Python twin: each blocked stack with its script frames and lines
# (time.sleep, os.read, Lock.acquire), within 5% of what the threads measured.
test_offcpu_python_lines() {
	offcpu_python_lines /usr/bin/python3.11
}

# The same with CPython 3.13 (pyenv's, layout from its _Py_DebugOffsets).
test_offcpu_python313_lines() {
	offcpu_python_lines /root/.pyenv/versions/3.13.0/bin/python3.13
}

# Debian sid's python3.15 in its root: a waiting thread's state is still found
# through its own thread-local (3.15 has no pthread key), its frames at their lines.
test_offcpu_python315_sid_lines() {
	offcpu_python_lines python3.15 sid
}

# offcpu_python_lines PYTHON [RELEASE]: with RELEASE, PYTHON runs in that root.
offcpu_python_lines() {
	local python=$1 rel=${2:-} py run re call sleep read lock
	py=$(realpath tests/workloads/interp/py_waits.py)
	if [ -n "$rel" ]; then
		root_put "$rel" "$py"
		run="$(in_root_cmd "$rel") $python /stitch-tests/py_waits.py"
		re='/stitch-tests/py_waits\.py'
	else
		[ -x "$python" ] || die "$python is missing: this test needs it"
		run="$python $py"
		re=$(printf '%s' "$py" | sed 's/[.]/\\./g')
	fi
	# The lines marked in the workload.
	call=$(grep -n '# CALL_LINE$' "$py" | cut -d: -f1)
	sleep=$(grep -n '# SLEEP_LINE$' "$py" | cut -d: -f1)
	read=$(grep -n '# READ_LINE$' "$py" | cut -d: -f1)
	lock=$(grep -n '# LOCK_LINE$' "$py" | cut -d: -f1)
	# shellcheck disable=SC2086 # run is a command and its arguments
	"$STITCH" record -e offcpu -o "$TMP/py.folded" -- $run 2 >"$TMP/py.out"
	cat "$TMP/py.out"
	# CPython 3.8 - 3.10 name a lambda by co_name alone, and run each
	# function in its own eval call, the call machinery between frames;
	# before 3.11, time.sleep waits in select(2).
	local n='([^;()]+;)*' lambda='(sleeper\.<locals>\.)?<lambda>'
	within_pct "python time.sleep" "$(offcpu_total "$TMP/py.folded" \
		"sleeper \\($re:$sleep\\);${n}timed \\($re:$call\\);$n$lambda \\($re:$sleep\\);.*;(do_nanosleep|do_select)_\\[k\\];")" \
		"$(waited "$TMP/py.out" sleep)" 5
	lambda='(reader\.<locals>\.)?<lambda>'
	within_pct "python os.read of a pipe" "$(offcpu_total "$TMP/py.folded" \
		"reader \\($re:$read\\);${n}timed \\($re:$call\\);$n$lambda \\($re:$read\\);.*;(anon_)?pipe_read_\\[k\\];")" \
		"$(waited "$TMP/py.out" pipe)" 5
	within_pct "python Lock.acquire" "$(offcpu_total "$TMP/py.folded" \
		"locker \\($re:$lock\\);${n}timed \\($re:$call\\);.*;futex_wait_\\[k\\];")" \
		"$(waited "$TMP/py.out" lock)" 5
}

# The Ruby twin, for Ruby 2.7, 3.3 and 3.4 in their release roots (rb_in_root,
# interp_tests.sh): each blocked stack with its own thread's script frames and
# lines (sleep, IO#sysread, Mutex#lock: none holds the GVL while it waits),
# within 5% of what the threads measured (2.2% and less in 2 runs each).
offcpu_ruby_root() {
	local rel=$1 rb re call sleep read lock n='([^;()]+;)*'
	rb=$(realpath tests/workloads/interp/rb_waits.rb)
	rw_mark() { grep -n "# MARK: $1\$" "$rb" | cut -d: -f1; }
	call=$(rw_mark call) sleep=$(rw_mark sleep) read=$(rw_mark read) lock=$(rw_mark lock)
	rb_in_root "$rel" "$rb"
	re=$(printf '%s' "$RB_DIR/rb_waits.rb" | sed 's/[.]/\\./g')
	"$STITCH" record -e offcpu -o "$TMP/rw.folded" -- $RB_CMD "$RB_DIR/rb_waits.rb" 2 \
		>"$TMP/rw.out"
	cat "$TMP/rw.out"
	within_pct "ruby sleep" "$(offcpu_total "$TMP/rw.folded" \
		";sleeper \\($re:$sleep\\);${n}timed \\($re:$call\\);${n}block in sleeper \\($re:$sleep\\);${n}Kernel#sleep;")" \
		"$(waited "$TMP/rw.out" sleep)" 5
	within_pct "ruby IO#sysread of a pipe" "$(offcpu_total "$TMP/rw.folded" \
		";reader \\($re:$read\\);${n}timed \\($re:$call\\);${n}block in reader \\($re:$read\\);${n}IO#sysread;")" \
		"$(waited "$TMP/rw.out" pipe)" 5
	within_pct "ruby Mutex#lock" "$(offcpu_total "$TMP/rw.folded" \
		";locker \\($re:$lock\\);${n}timed \\($re:$call\\);${n}block in locker \\($re:$lock\\);${n}Thread::Mutex#lock;")" \
		"$(waited "$TMP/rw.out" lock)" 5
	# Thread truth: no blocked stack of one thread carries another's methods.
	expect_eq "stacks mixing two threads' methods" "$(awk '{
		n = 0; split("", seen); s = $0
		while (match(s, /(sleeper|reader|locker|feeder|holder) \(/)) {
			w = substr(s, RSTART, RLENGTH)
			if (!(w in seen)) { seen[w] = 1; n++ }
			s = substr(s, RSTART + RLENGTH)
		}
		if (n > 1) c++
	} END { print c + 0 }' "$TMP/rw.folded")" 0
}

test_offcpu_ruby27_lines() { offcpu_ruby_root bullseye; }
test_offcpu_ruby33_lines() { offcpu_ruby_root trixie; }
test_offcpu_ruby34_lines() { offcpu_ruby_root experimental; }

# wall: a thread that computes for 1 s, then sleeps for 1 s: half and half,
# on-CPU samples weighed by their period, in one picture and per thread.
test_offcpu_wall_half_and_half() {
	"$STITCH" record -e wall -F 499 -o "$TMP/wall.folded" -o "$TMP/wall.txt" -- \
		"$WAITS" wall 1 >"$TMP/wall.out"
	cat "$TMP/wall.out"
	head -3 "$TMP/wall.txt"
	# Computing: samples in burn_cpu_ns and what it calls (its CPU clock),
	# less time it waited for a CPU there, against the thread's task clock in
	# the phase, the clock samples count in (a run at load 9 waited 294 ms
	# of its 1.3 s for a CPU; against its CPU time, which leaves the VM's
	# steal out, a CI run at ~5% steal read 1.056 s for 1.000 s).
	local computing
	computing=$(awk -v a="$(offcpu_total "$TMP/wall.folded" ';main;wall_\[i\];compute_phase;burn_cpu_ns[; ]')" \
		-v r="$(offcpu_total "$TMP/wall.folded" ';main;wall_\[i\];compute_phase;burn_cpu_ns;.*\[runnable\] ')" \
		'BEGIN { printf "%.4f\n", a - r }')
	within_pct "computing" "$computing" \
		"$(awk '$1 == "oncpu" { print $2 }' "$TMP/wall.out")" 5
	within_pct "sleeping" "$(offcpu_total "$TMP/wall.folded" ';main;wall_\[i\];sleep_phase[.a-z0-9]*;.*\[S sleeping\] ')" \
		"$(waited "$TMP/wall.out" sleep)" 5
	# The summary's thread line: about 1 s each way.  Within 10%: the
	# checks above hold each half to 5% of what the workload measured, but
	# a guest's stolen time moves both against the clock (a CI run read
	# outside 950-1049 ms once); under emulation 10% by SLOWDOWN (the
	# process's start, before the phases, took 110 ms of CPU in a guest).
	local line
	line=$(grep -E '^waits +pid [0-9]+ +tid [0-9]+ +[0-9.]+ ms on CPU, +[0-9.]+ ms blocked' "$TMP/wall.txt")
	echo "$line" | awk -v d=$((100 * SLOWDOWN)) '{ c = $6; b = $10
		exit !(c >= 1000 - d && c < 1000 + d && b >= 1000 - d && b < 1000 + d) }' ||
		die "thread line not ~1 s on CPU and ~1 s blocked: '$line'"
	expect_grep "$TMP/wall.txt" '^stitch: [0-9.]+ s of wall'
}

# --wakers: a consumer blocked in read() on a pipe is woken by the producer's
# write: the producer's stack, down to the line that wrote, stands above the
# consumer's blocked stack (past "--") for >= 90% of its blocked time.
test_offcpu_wakers_producer_above_consumer() {
	# SLOWDOWN times as long: until the producer's tables are in (a second
	# or more under emulation) its wakeups have kernel frames only.
	"$STITCH" record -e offcpu --wakers -o "$TMP/wk.folded" -o "$TMP/wk.txt" -- \
		"$WAITS" wakers $((2 * SLOWDOWN)) >"$TMP/wk.out"
	cat "$TMP/wk.out"
	head -30 "$TMP/wk.txt"
	local blocked='^waits;.*;main;wakers_\[i\];consume[.a-z0-9]*;read;.*;(anon_)?pipe_read_\[k\];.*\[S sleeping\]'
	local woken='\[S sleeping\];--;try_to_wake_up_\[k\];.*;(anon_)?pipe_write_\[k\];.*;__libc_write_\[i\];write;produce;producer;start_thread;clone3;\[woken by waits tid [0-9]+\] '
	# The rest, for the log: woken otherwise.
	B="$blocked" W="$woken" awk '$0 ~ ENVIRON["B"] && $0 !~ ENVIRON["W"]' "$TMP/wk.folded" |
		sort -t' ' -k2 -nr | head -3 | sed 's/.*\[S sleeping\];/other waker: /' | cut -c1-300
	# Under emulation 70%: the guest's CPUs come late to more wakeups, and
	# the producer's tables take seconds to load, its wakeups kernel frames
	# only until then (21% of a 2 s run's blocked time in a guest of 6.1,
	# 55% in sid's).
	expect_ge "% of the consumer's blocked time under the producer's write" \
		"$(share "$TMP/wk.folded" "$blocked" "$woken")" $((SLOWDOWN > 1 ? 70 : 90))
	expect_grep "$TMP/wk.txt" '^        produce  \(waits\.c:[0-9]+\)$'
	# Sleeps woken by their timer: the interrupt, never the thread it
	# stopped.  ~30 naps of 10 ms (one sleep of 0.3 s was a single wakeup,
	# and a CI run of the sanitizer build once showed none as an interrupt).
	"$STITCH" record -e offcpu --wakers -o "$TMP/wt.folded" -- "$WAITS" blockers 0.3 >/dev/null
	local naps='^waits;.*;wait_sleep;.*\[S sleeping\];--;'
	grep -E "$naps" "$TMP/wt.folded" | cut -c1-600
	expect_ge "% of the naps' time woken by their timer, shown as an interrupt" \
		"$(share "$TMP/wt.folded" "$naps" "$naps.*hrtimer_wakeup_\[k\];.*\[woken by an interrupt\] ")" 90
	expect_eq "naps shown as woken by a thread" \
		"$(total "$TMP/wt.folded" "$naps.*\[woken by [^]]* tid [0-9]+\] ")" 0
	expect_error 2 "--wakers goes with -e offcpu" -- record --wakers -a -d 1
}

# A wakeup in a softirq names the thread it ran on as its host, not as the
# waker: a loopback TCP receive runs in the sender's __local_bh_enable_ip,
# and so can a timer that fired while any thread had bottom halves off.
test_offcpu_wakers_softirq_host() {
	local py re blocked
	py=$(realpath tests/workloads/interp/py_tcp_wake.py)
	re=$(printf '%s' "$py" | sed 's/[.]/\\./g')
	"$STITCH" record -e offcpu --wakers -o "$TMP/sq.folded" -- /usr/bin/python3.11 "$py" 100
	blocked="reader \\($re:[0-9]+\\);.*;sk_wait_data_\\[k\\];.*\\[S sleeping\\];--;"
	grep -E "$blocked" "$TMP/sq.folded" | sed 's/.*;--;//' | cut -c1-400
	expect_ge "% of the reader's blocked time woken in the softirq on the sender's stack" \
		"$(share "$TMP/sq.folded" "$blocked" \
		   "$blocked.*;net_rx_action_\\[k\\];handle_softirqs_\\[k\\];.*;__local_bh_enable_ip_\\[k\\];.*tcp_sendmsg_\\[k\\];.*\\[softirq in python3\\.11 tid [0-9]+\\] ")" 90
	expect_eq "softirq wakeups said to be a thread's" \
		"$(total "$TMP/sq.folded" ";handle_softirqs_\\[k\\];.*\\[woken by [^]]* tid [0-9]+\\] ")" 0
}

# Interpreter threads' stacks are sent to user space, not counted in the
# kernel: their wakers follow them there.  Python's pipe reader, woken by the
# feeder thread's write.
test_offcpu_wakers_of_interpreter_threads() {
	local py re
	py=$(realpath tests/workloads/interp/py_waits.py)
	re=$(printf '%s' "$py" | sed 's/[.]/\\./g')
	"$STITCH" record -e offcpu --wakers -o "$TMP/pw.folded" -- /usr/bin/python3.11 "$py" 1 \
		>"$TMP/pw.out"
	cat "$TMP/pw.out"
	expect_ge "% of the python reader's blocked time woken by a write to its pipe" \
		"$(share "$TMP/pw.folded" "reader \\($re:[0-9]+\\);.*;(anon_)?pipe_read_\\[k\\];" \
		   ';--;try_to_wake_up_\[k\];.*;(anon_)?pipe_write_\[k\];.*\[woken by python3\.11 tid [0-9]+\] ')" 90
}
