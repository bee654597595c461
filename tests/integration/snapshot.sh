# SPDX-License-Identifier: GPL-2.0
# Integration tests of `stitch snapshot` (issue 16, phase 1: kernel and
# native frames); sourced by run.sh, which gives $STITCH, $TMP, $W and the
# helpers of lib.sh.

workload gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -pthread \
	-o "$W/snapshot_threads" tests/workloads/snapshot_threads.c || exit 1
SNAP_THREADS=$(realpath "$W/snapshot_threads")
SNAP_PIDS=()

# snap_start [BINARY] [ARGS...]: start the workload, wait for its "ready";
# its pid in $SNAP_PID.  Killed by snap_cleanup.
snap_start() {
	local bin=${1:-$SNAP_THREADS} out i
	shift || true
	out=$TMP/snap_ready.$RANDOM
	"$bin" "$@" >"$out" &
	SNAP_PID=$!
	SNAP_PIDS+=("$SNAP_PID")
	for i in $(seq 100); do
		grep -q ready "$out" && return 0
		sleep 0.05
	done
	die "$bin never said ready"
}

snap_cleanup() {
	local p
	for p in "${SNAP_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	SNAP_PIDS=()
}

# Neither our iterator nor record's programs may stay loaded.
snap_no_programs_left() {
	if programs_left | grep -q 'name snapshot_tasks'; then
		programs_left
		die "the snapshot iterator is still loaded after stitch exited"
	fi
	no_programs_left
}

# snap_chains JSON: one line per thread, "STATE|frame;frame;..." innermost
# first, each frame its name (kernel frames with [k]) without file:line.
snap_chains() {
	jq -r '.[] | .state + "|" + ([.frames[] | (split(" ")[0]) +
		(if test(" \\[k\\]") then "[k]" else "" end)] | join(";"))' "$1"
}

# count_chains JSON REGEX: threads whose chain matches REGEX (extended).
count_chains() {
	snap_chains "$1" | grep -cE -- "$(arch_re "$2")" || true
}

# one_group JSON FRAME: the threads with FRAME in their stack all share one group.
one_group() {
	jq --arg f "$2" '[.[] | select(any(.frames[]; startswith($f + " "))) | .group] |
		unique | length' "$1"
}

K='([^;|]*\[k\];)*'		# any kernel frames
SYS_ENTRY="${K}entry_SYSCALL_64_after_hwframe\\[k\\];"
THREAD_END='start_thread;clone3$'

# The chains of snapshot_threads.c, as the kernel names them on 6.18
# (do_nanosleep and ep_poll are inlined: hrtimer_nanosleep, do_epoll_wait).
MUTEX_RE="^S\\|${K}futex_wait\\[k\\];${SYS_ENTRY}(futex_wait;)?__lll_lock_wait;(lll_mutex_lock_optimized;)?pthread_mutex_lock;mutex_wait_b;mutex_wait_a;mutex_worker;$THREAD_END"
PIPE_RE="^S\\|${K}(anon_)?pipe_read\\[k\\];${K}vfs_read\\[k\\];${SYS_ENTRY}(__libc_read;)?read;pipe_wait_a;pipe_worker;$THREAD_END"
SLEEP_RE="^S\\|${K}hrtimer_nanosleep\\[k\\];${SYS_ENTRY}clock_nanosleep;__nanosleep;sleep_wait_a;sleep_worker;$THREAD_END"
EPOLL_RE="^S\\|${K}do_epoll_wait\\[k\\];${SYS_ENTRY}epoll_wait;epoll_wait_a;epoll_worker;$THREAD_END"
SPIN_RE="^R\\|${K}spin_loop;spin_worker;$THREAD_END"
DEEP_RE="^S\\|${K}hrtimer_nanosleep\\[k\\];${SYS_ENTRY}clock_nanosleep;__nanosleep;(deep_recurse;){100}deep_worker;$THREAD_END"
MAIN_RE="^S\\|${K}hrtimer_nanosleep\\[k\\];${SYS_ENTRY}clock_nanosleep;__nanosleep;main_report;main;__libc_start_call_main;__libc_start_main;_start$"

# check_workload_chains JSON: every thread of one snapshot_threads in place.
check_workload_chains() {
	local j=$1
	snap_chains "$j" | cut -c1-300 | sort | uniq -c | sort -nr
	expect_eq "threads" "$(jq length "$j")" 51
	expect_eq "mutex waiters with the exact chain" "$(count_chains "$j" "$MUTEX_RE")" 20
	expect_eq "pipe readers with the exact chain" "$(count_chains "$j" "$PIPE_RE")" 10
	expect_eq "sleepers with the exact chain" "$(count_chains "$j" "$SLEEP_RE")" 10
	expect_eq "epoll waiters with the exact chain" "$(count_chains "$j" "$EPOLL_RE")" 8
	expect_eq "spinner with the exact chain" "$(count_chains "$j" "$SPIN_RE")" 1
	expect_eq "100-deep recursion with the exact chain" "$(count_chains "$j" "$DEEP_RE")" 1
	expect_eq "main with the exact chain" "$(count_chains "$j" "$MAIN_RE")" 1
}

# Without a task iterator (kernels before 5.18; forced here): every blocked
# thread's whole chain from /proc, the spinner running with no stack to give
# (only the iterator reads a running thread's saved registers).
test_snapshot_from_proc() {
	trap snap_cleanup EXIT
	snap_start
	STITCH_KFEAT_OFF=copy_from_user_task "$STITCH" snapshot -p "$SNAP_PID" -o "$TMP/sp.json" \
		-o "$TMP/sp.txt" 2>"$TMP/sp.err"
	cat "$TMP/sp.err"
	head -40 "$TMP/sp.txt"
	expect_grep "$TMP/sp.err" 'no sleepable task iterators .*: reading the threads from /proc instead'
	snap_chains "$TMP/sp.json" | cut -c1-300 | sort | uniq -c | sort -nr
	expect_eq "threads" "$(jq length "$TMP/sp.json")" 51
	expect_eq "mutex waiters with the exact chain" "$(count_chains "$TMP/sp.json" "$MUTEX_RE")" 20
	expect_eq "pipe readers with the exact chain" "$(count_chains "$TMP/sp.json" "$PIPE_RE")" 10
	expect_eq "sleepers with the exact chain" "$(count_chains "$TMP/sp.json" "$SLEEP_RE")" 10
	expect_eq "epoll waiters with the exact chain" "$(count_chains "$TMP/sp.json" "$EPOLL_RE")" 8
	expect_eq "100-deep recursion with the exact chain" "$(count_chains "$TMP/sp.json" "$DEEP_RE")" 1
	expect_eq "main with the exact chain" "$(count_chains "$TMP/sp.json" "$MAIN_RE")" 1
	expect_eq "the spinner: running" "$(jq '[.[] | select(.on_cpu and .state == "R")] | length' "$TMP/sp.json")" 1
	expect_eq "how long a thread slept: not known" \
		"$(jq '[.[] | select(.on_cpu | not) | select(.since_ran_ns != null)] | length' "$TMP/sp.json")" 0
	expect_grep "$TMP/sp.txt" "^20 threads \\(snapshot_thread pid $SNAP_PID, tids [0-9]+-[0-9]+\\) in S \\(sleeping\\):$"
	expect_grep "$TMP/sp.txt" '^    waits in read\(fd [0-9]+: pipe:\[[0-9]+\]\)$'
}

test_snapshot_exact_chains_states_groups() {
	trap snap_cleanup EXIT
	snap_start
	"$STITCH" snapshot -p "$SNAP_PID" -o "$TMP/s.json" -o "$TMP/s.txt"
	head -60 "$TMP/s.txt"
	check_workload_chains "$TMP/s.json"
	# Identical threads: one group each, seven groups in all, largest first.
	local f
	for f in mutex_worker pipe_worker sleep_worker epoll_worker spin_worker deep_worker main; do
		expect_eq "groups holding $f" "$(one_group "$TMP/s.json" "$f")" 1
	done
	expect_eq "groups" "$(jq '[.[].group] | unique | length' "$TMP/s.json")" 7
	expect_eq "group 0 is the mutex waiters" \
		"$(jq '[.[] | select(.group == 0)] | length' "$TMP/s.json")" 20
	expect_grep "$TMP/s.txt" "^20 threads \\(snapshot_thread pid $SNAP_PID, tids [0-9]+-[0-9]+\\) in S for [0-9.]+( ms| s)?(-[0-9.]+)? (s|ms) \\(sleeping\\):$"
	expect_grep "$TMP/s.txt" '^    waits in read\(fd [0-9]+: pipe:\[[0-9]+\]\)$'
	expect_grep "$TMP/s.txt" '^    waits in epoll_wait\(fd [0-9]+: anon_inode:\[eventpoll\]\)$'
	expect_grep "$TMP/s.txt" '^        mutex_wait_b \(snapshot_threads\.c:[0-9]+\)$'
	expect_grep "$TMP/s.txt" '^        futex_wait \[k\]$'
	# The sleepers have slept since the workload started (>= 0.2 s before ready).
	expect_eq "sleepers last ran >= 200 ms ago" \
		"$(jq '[.[] | select(any(.frames[]; startswith("sleep_worker "))) | select(.since_ran_ns >= 200000000)] | length' "$TMP/s.json")" 10
	snap_no_programs_left
}

# Threads asleep inside functions under uretprobes (bpftrace): a sleeping
# thread's copy brings its return instances too (capture/uret.bpf.h), so
# every chain is as exact as without them, never cut at the trampoline.
test_snapshot_under_uretprobes() {
	URET_CLEANUP=snap_cleanup uretprobes_on "$SNAP_THREADS" mutex_wait_a mutex_wait_b \
		pipe_wait_a sleep_wait_a epoll_wait_a main_report main
	snap_start
	expect_grep "/proc/$SNAP_PID/maps" '\[uprobes\]'
	"$STITCH" snapshot -p "$SNAP_PID" -o "$TMP/su.json"
	check_workload_chains "$TMP/su.json"
}

test_snapshot_json_no_group_outputs() {
	trap snap_cleanup EXIT
	snap_start
	"$STITCH" snapshot -p "$SNAP_PID" --no-group --count 2 --interval 100ms \
		-o "$TMP/n.txt" -o "$TMP/n.json" -o "$TMP/n.folded" -o "$TMP/n.svg" \
		-o "$TMP/n.pb.gz" -o "$TMP/n.speedscope.json"
	expect_eq "objects (51 threads x 2 rounds)" "$(jq length "$TMP/n.json")" 102
	expect_eq "objects with every key" "$(jq '[.[] | select(has("pid") and has("tid") and
		has("comm") and (.state | length == 1) and (.group | type == "number") and
		(.frames | type == "array") and has("round") and has("on_cpu") and
		has("cpu_ns") and has("since_ran_ns"))] | length' "$TMP/n.json")" 102
	expect_eq "round 1 objects" "$(jq '[.[] | select(.round == 1)] | length' "$TMP/n.json")" 51
	expect_eq "--no-group: one block per thread and round" "$(grep -c '^tid [0-9]* (snapshot_thread pid' "$TMP/n.txt")" 102
	expect_eq "folded: one sample per mutex waiter and round" \
		"$(total "$TMP/n.folded" ';mutex_worker;mutex_wait_a;mutex_wait_b;')" 40
	expect_grep "$TMP/n.svg" '<svg'
	expect_eq "speedscope parses" "$(jq -r '.shared.frames | length > 10' "$TMP/n.speedscope.json")" true
	"$STITCH" report "$TMP/n.pb.gz" -o "$TMP/n2.folded"
	expect_eq "pprof: the same samples" "$(total "$TMP/n2.folded" ';mutex_worker;')" 40
	snap_no_programs_left
}

# rate LOG FROM TO: the spinner's increments per second between two
# CLOCK_MONOTONIC times, from the workload's 100 ms log.
rate() {
	awk -v a="$2" -v b="$3" '$1 >= a && $1 <= b { if (!n++) { t0 = $1; c0 = $2 } t1 = $1; c1 = $2 }
		END { if (t1 > t0) printf "%d\n", (c1 - c0) / (t1 - t0); else print 0 }' "$1"
}

now_mono() {
	python3 -c 'import time; print("%.9f" % time.monotonic())'
}

# spinner_tid PID: the thread of snapshot_threads that is running (R).
spinner_tid() {
	local t
	for t in /proc/"$1"/task/*; do
		[ "$(awk '{ print $3 }' "$t/stat")" = R ] && { basename "$t"; return 0; }
	done
	die "no running thread in $1"
}

# The spinner on CPU 1, stitch on CPU 0: on this 2-CPU machine, sharing a
# CPU with stitch's own work (about 20 ms a round) costs the spinner ~9%
# of its rate, which is not being stopped; pinned, it keeps 97-103%.
# Rounds 100 ms apart: at 50 ms the sanitizer build keeps CPU 0 so busy
# that other work moves to CPU 1 (89%).
test_snapshot_never_stops_target() {
	trap snap_cleanup EXIT
	snap_start "$SNAP_THREADS" "$TMP/counter.log"
	local t0 t1 t2 before during ratio
	taskset -pc 1 "$(spinner_tid "$SNAP_PID")" >/dev/null
	sleep 0.5
	t0=$(now_mono)
	sleep 2
	t1=$(now_mono)
	taskset -c 0 "$STITCH" snapshot -p "$SNAP_PID" --count 20 --interval 100ms -o "$TMP/ns.txt"
	t2=$(now_mono)
	sleep 0.2
	before=$(rate "$TMP/counter.log" "$t0" "$t1")
	during=$(rate "$TMP/counter.log" "$t1" "$t2")
	ratio=$((100 * during / before))
	echo "spinner: $before/s before, $during/s during 20 snapshots: $ratio%"
	expect_eq "rounds" "$(grep -c '^round ' "$TMP/ns.txt")" 20
	# 97-103% on the VM this test was written on; 90-92% on today's, with
	# the code of then and of now alike (2026-11-26).  A target stopped
	# while each round's ~20 ms walks run would keep ~80%.
	expect_ge "progress during snapshots, % of before" "$ratio" 88
	snap_no_programs_left
}

test_snapshot_bad_cases_clean_lines() {
	trap snap_cleanup EXIT
	local z rc=0
	# A zombie: its parent execs and never reaps it.
	sh -c 'sleep 0.1 & exec sleep 30' &
	SNAP_PIDS+=("$!")
	sleep 0.5
	z=$(pgrep -P "${SNAP_PIDS[0]}")
	"$STITCH" snapshot -p "$z" -o "$TMP/z.txt" -o "$TMP/z.json"
	cat "$TMP/z.txt"
	expect_eq "zombie state" "$(jq -r '.[0].state' "$TMP/z.json")" Z
	expect_grep "$TMP/z.txt" '^1 thread \(sleep pid [0-9]+, tid [0-9]+\) in Z'
	expect_grep "$TMP/z.txt" 'no stack: zombie: exited, waiting for its parent to reap it'
	# A kernel thread: kernel frames only, said so.
	"$STITCH" snapshot --comm kthreadd -o "$TMP/k.txt" -o "$TMP/k.json"
	cat "$TMP/k.txt"
	expect_eq "kthreadd threads" "$(jq length "$TMP/k.json")" 1
	expect_eq "kthreadd innermost named frame" \
		"$(jq -r '[.[0].frames[] | select(startswith("kthreadd "))] | length' "$TMP/k.json")" 1
	expect_eq "kthreadd user frames" "$(jq '[.[0].frames[] | select(test(" \\[k\\]") | not)] | length' "$TMP/k.json")" 0
	expect_eq "kthreadd note" "$(jq -r '.[0].note' "$TMP/k.json")" "kernel thread: no user stack"
	# A deleted binary, still running: read through /proc/PID/map_files.
	cp "$SNAP_THREADS" "$TMP/deleted_threads"
	snap_start "$TMP/deleted_threads"
	rm "$TMP/deleted_threads"
	"$STITCH" snapshot -p "$SNAP_PID" -o "$TMP/d.json"
	check_workload_chains "$TMP/d.json"
	# Another mount namespace, its binary on a tmpfs only it sees.
	mkdir -p "$TMP/nsdir"
	unshare -m --propagation private sh -c "mount -t tmpfs none '$TMP/nsdir' &&
		cp '$SNAP_THREADS' '$TMP/nsdir/ns_threads' && exec '$TMP/nsdir/ns_threads'" \
		>"$TMP/ns.out" &
	SNAP_PIDS+=("$!")
	for _ in $(seq 100); do grep -q ready "$TMP/ns.out" && break; sleep 0.05; done
	[ ! -e "$TMP/nsdir/ns_threads" ] || die "the mount namespace leaked"
	"$STITCH" snapshot -p "${SNAP_PIDS[-1]}" -o "$TMP/m.json"
	check_workload_chains "$TMP/m.json"
	# Threads exiting mid-walk: 3 threads start and join threads all the time.
	snap_start "$SNAP_THREADS" - churn
	"$STITCH" snapshot -p "$SNAP_PID" --count 20 --interval 10ms -o "$TMP/c.json" \
		2>"$TMP/c.err" || rc=$?
	cat "$TMP/c.err"
	expect_eq "exit status with exiting threads" "$rc" 0
	expect_eq "rounds with all 20 mutex waiters in place" \
		"$(jq '[.[] | select(any(.frames[]; startswith("mutex_worker ")))] | length' "$TMP/c.json")" 400
	expect_eq "unnamed frames under churn_once/churn_worker" \
		"$(jq '[.[] | select(any(.frames[]; startswith("churn_worker "))) | .frames[] | select(test("^\\[unknown\\]|\\+0x"))] | length' "$TMP/c.json")" 0
	expect_eq "malformed records" "$(grep -c malformed "$TMP/c.err" || true)" 0
	snap_no_programs_left
}

test_snapshot_all_and_errors() {
	trap snap_cleanup EXIT
	snap_start
	"$STITCH" snapshot -a -o "$TMP/a.json" -o "$TMP/a.txt"
	expect_eq "our workload's mutex waiters under -a" "$(count_chains "$TMP/a.json" "$MUTEX_RE")" 20
	expect_ge "kernel threads under -a" "$(jq '[.[] | select(.note == "kernel thread: no user stack")] | length' "$TMP/a.json")" 2
	"$STITCH" snapshot -a --no-kthreads -o "$TMP/u.json"
	expect_eq "kernel threads with --no-kthreads" "$(jq '[.[] | select(.note == "kernel thread: no user stack")] | length' "$TMP/u.json")" 0
	expect_error 2 "exactly one of: -p PID, -a, --comm NAME" -- snapshot
	expect_error 1 "no process with pid 999999999" -- snapshot -p 999999999
	expect_error 1 "no process named 'nosuchname'" -- snapshot --comm nosuchname
	expect_error 2 "name it FILE.json" -- snapshot -a -o out.xyz
	expect_error 2 "--interval: 'soon' is not a time" -- snapshot -a --count 2 --interval soon
	snap_no_programs_left
}

# script_chains JSON: as snap_chains, but the frames of the *_snapshot
# scripts keep their line: "lock_wait@14".
script_chains() {
	jq -r '.[] | (.pid | tostring) + "|" + .state + "|" + ([.frames[] |
		if test(" \\([a-z]+_snapshot\\.[a-z]+:[0-9]+\\)$")
		then sub(" \\([a-z]+_snapshot\\.[a-z]+:(?<l>[0-9]+)\\)$"; "@\(.l)")
		else (split(" ")[0]) + (if test(" \\[k\\]") then "[k]" else "" end) end] |
		join(";"))' "$1"
}

# script_mark FILE NAME: the line of "# MARK: NAME" in FILE.
script_mark() {
	local l
	l=$(grep -n "MARK: $2\$" "$1" | cut -d: -f1)
	is_number "$l" "MARK $2 in $1"
	echo "$l"
}

# expect_chains JSON PID WHAT COUNT REGEX: COUNT threads of PID match REGEX
# (after "PID|"), and they form one group.
expect_chains() {
	local j=$1 pid=$2 what=$3 n=$4 re=$5 tids
	expect_eq "$what: threads with the exact chain" \
		"$(script_chains "$j" | grep -cE -- "$(arch_re "^$pid\\|$re")" || true)" "$n"
	tids=$(script_chains "$j" | awk -F'|' -v p="$pid" '$1 == p' | grep -nE -- "^$pid\\|$re" |
		cut -d: -f1 | paste -sd, -)
	expect_eq "$what: groups" "$(jq --arg p "$pid" --arg rows "$tids" '
		[.[] | select(.pid == ($p | tonumber))] as $t |
		[$rows | split(",")[] | tonumber | $t[. - 1].group] | unique | length' "$j")" 1
}

# Ruby 2.7, 3.3 and 3.4, each in its release's root (rb_in_root, interp_tests.sh): every
# thread in its own place with its lines (none of the waiting threads holds the GVL),
# identical threads one group.  3.3 and 3.4 have one thread more, their timer thread.
snapshot_ruby_root() {
	local rel=$1 threads=$2 f=tests/workloads/interp/rb_snapshot.rb rb
	# (libc's start_thread and clone3 are libc.so.6+0x... without libc6-dbg in the root)
	local rb_end='(.*;)?(start_thread;__clone3?|libc\.so\.6\+0x[0-9a-f]+;libc\.so\.6\+0x[0-9a-f]+)$'
	trap snap_cleanup EXIT
	rb_in_root "$rel" "$f"
	snap_start $RB_CMD "$RB_DIR/rb_snapshot.rb"
	rb=$SNAP_PID
	"$STITCH" snapshot -p "$rb" -o "$TMP/sr.json"
	script_chains "$TMP/sr.json" | sort | uniq -c | sort -nr | cut -c1-400
	expect_eq "threads" "$(jq length "$TMP/sr.json")" "$threads"
	expect_chains "$TMP/sr.json" "$rb" "ruby Mutex#synchronize" 4 \
		"S\\|.*;rb_mutex_synchronize;(.*;)?Thread::Mutex#synchronize;lock_wait@$(script_mark "$f" lock_wait);lock_worker@$(script_mark "$f" lock_worker);block \\(2 levels\\) in <main>@$(script_mark "$f" lock_threads);$rb_end"
	expect_chains "$TMP/sr.json" "$rb" "ruby sleep" 3 \
		"S\\|.*;Kernel#sleep;(.*;)?block in sleep_wait@$(script_mark "$f" sleep_wait);(.*;)?Kernel#loop;sleep_wait@$(script_mark "$f" sleep_wait);sleep_worker@$(script_mark "$f" sleep_worker);block \\(2 levels\\) in <main>@$(script_mark "$f" sleep_threads);$rb_end"
	expect_chains "$TMP/sr.json" "$rb" "ruby IO#sysread" 2 \
		"S\\|.*;IO#sysread;(.*;)?Reader#wait@$(script_mark "$f" pipe_wait);Reader#run@$(script_mark "$f" pipe_worker);block \\(2 levels\\) in <main>@$(script_mark "$f" pipe_threads);$rb_end"
	expect_chains "$TMP/sr.json" "$rb" "ruby main" 1 \
		"S\\|.*;Kernel#sleep;(.*;)?block in <main>@$(script_mark "$f" main_wait);(.*;)?Kernel#loop;<main>@$(script_mark "$f" main_wait);(.*;)?ruby_run_node;.*;_start$"
	expect_eq "frames of rb_snapshot.rb outside these chains" "$(script_chains "$TMP/sr.json" |
		grep -E '@[0-9]+' | grep -cvE 'synchronize;lock_wait@|Kernel#sleep;|IO#sysread;(.*;)?Reader#wait@' ||
		true)" 0
}

test_snapshot_ruby27_frames() { snapshot_ruby_root bullseye 10; }
test_snapshot_ruby33_frames() { snapshot_ruby_root trixie 11; }
test_snapshot_ruby34_frames() { snapshot_ruby_root experimental 11; }

# CPython 3.12 (offsets from its headers) and 3.13 (from its _Py_DebugOffsets),
# pyenv builds, in one snapshot: each thread its own script frames and lines.
# (Their eval loops call some builtins directly or through the generic path, as
# a call site is specialized or not: the native frames between vary, not groups.)
test_snapshot_python_312_313() {
	trap snap_cleanup EXIT
	local f=tests/workloads/interp/py_snapshot.py pid v c end
	local pys=(/root/.pyenv/versions/3.12.1/bin/python3.12 /root/.pyenv/versions/3.13.0/bin/python3.13)
	local pids=()
	for v in "${pys[@]}"; do
		[ -x "$v" ] || die "$v is missing: this test needs it (pyenv)"
		snap_start "$v" "$f"
		pids+=("$SNAP_PID")
	done
	"$STITCH" snapshot -p "${pids[0]},${pids[1]}" -o "$TMP/s13.json"
	script_chains "$TMP/s13.json" | sort | uniq -c | sort -nr | cut -c1-400
	end='(.*;)?Thread\.run;Thread\._bootstrap_inner;Thread\._bootstrap;.*;start_thread;clone3$'
	for pid in "${pids[@]}"; do
		c=$(script_chains "$TMP/s13.json" | grep "^$pid|")
		expect_eq "$pid: threads" "$(grep -c . <<<"$c")" 10
		expect_eq "$pid: Lock.acquire" "$(grep -cE "$(arch_re "^$pid\|S\|.*;PyThread_acquire_lock_timed;(.*;)?lock_wait@$(script_mark "$f" lock_wait);lock_worker@$(script_mark "$f" lock_worker);$end")" <<<"$c")" 4
		expect_eq "$pid: time.sleep" "$(grep -cE "$(arch_re "^$pid\|S\|.*;clock_nanosleep;(.*;)?sleep_wait@$(script_mark "$f" sleep_wait);sleep_worker@$(script_mark "$f" sleep_worker);$end")" <<<"$c")" 3
		expect_eq "$pid: os.read" "$(grep -cE "$(arch_re "^$pid\|S\|.*;_Py_read;(.*;)?Reader\.wait@$(script_mark "$f" pipe_wait);Reader\.run@$(script_mark "$f" pipe_worker);$end")" <<<"$c")" 2
		expect_eq "$pid: main" "$(grep -cE "$(arch_re "^$pid\|S\|.*;clock_nanosleep;(.*;)?main@$(script_mark "$f" main_wait);<module>@$(script_mark "$f" module);.*;Py_BytesMain;__libc_start_call_main;__libc_start_main;_start$")" <<<"$c")" 1
	done
	snap_cleanup
	snap_no_programs_left
}

# Python, Ruby and Perl twins of snapshot_threads, in one snapshot: every
# thread's script frames with their lines, stitched where the interpreter's
# loop ran them, in state S, identical threads one group.
test_snapshot_script_frames() {
	trap snap_cleanup EXIT
	local wl=tests/workloads/interp py rb pl f
	snap_start /usr/bin/python3.11 "$wl/py_snapshot.py"
	py=$SNAP_PID
	snap_start /usr/bin/ruby3.1 "$wl/rb_snapshot.rb"
	rb=$SNAP_PID
	snap_start /usr/bin/perl "$wl/pl_snapshot.pl"
	pl=$SNAP_PID
	"$STITCH" snapshot -p "$py,$rb,$pl" -o "$TMP/sf.json" -o "$TMP/sf.txt"
	script_chains "$TMP/sf.json" | sort | uniq -c | sort -nr | cut -c1-400
	expect_eq "threads" "$(jq length "$TMP/sf.json")" 30
	expect_eq "groups" "$(jq '[.[].group] | unique | length' "$TMP/sf.json")" 12

	f=$wl/py_snapshot.py
	# Native frames by the names every python3.11 has (its dynamic symbols):
	# with its debug file, more of them are named, and inlined ones shown.
	local py_end='(.*;)?Thread\.run;Thread\._bootstrap_inner;Thread\._bootstrap;.*;start_thread;clone3$'
	expect_chains "$TMP/sf.json" "$py" "python Lock.acquire" 4 \
		"S\\|.*;PyThread_acquire_lock_timed;.*;PyObject_Vectorcall;lock_wait@$(script_mark "$f" lock_wait);lock_worker@$(script_mark "$f" lock_worker);$py_end"
	expect_chains "$TMP/sf.json" "$py" "python time.sleep" 3 \
		"S\\|.*;clock_nanosleep;.*;PyObject_Vectorcall;sleep_wait@$(script_mark "$f" sleep_wait);sleep_worker@$(script_mark "$f" sleep_worker);$py_end"
	expect_chains "$TMP/sf.json" "$py" "python os.read" 2 \
		"S\\|.*;_Py_read;.*;PyObject_Vectorcall;Reader\\.wait@$(script_mark "$f" pipe_wait);Reader\\.run@$(script_mark "$f" pipe_worker);$py_end"
	expect_chains "$TMP/sf.json" "$py" "python main" 1 \
		"S\\|.*;clock_nanosleep;(.*;)?main@$(script_mark "$f" main_wait);<module>@$(script_mark "$f" module);.*;Py_BytesMain;__libc_start_call_main;__libc_start_main;_start$"
	expect_grep "$TMP/sf.txt" '^        lock_wait \(py_snapshot\.py:[0-9]+\)$'

	# Ruby's thread start function reserves 1 MiB of its stack, far past
	# the 28 KiB copied: the rest is read after (stack_rest.c), the thread
	# not having run since, and its threads reach their start.
	f=$wl/rb_snapshot.rb
	local rb_end='rb_vm_invoke_proc;([^;]*;){0,4}start_thread;clone3$'
	expect_chains "$TMP/sf.json" "$rb" "ruby Mutex#synchronize" 4 \
		"S\\|.*;rb_mutex_synchronize;.*;Thread::Mutex#synchronize;lock_wait@$(script_mark "$f" lock_wait);lock_worker@$(script_mark "$f" lock_worker);block \\(2 levels\\) in <main>@$(script_mark "$f" lock_threads);$rb_end"
	expect_chains "$TMP/sf.json" "$rb" "ruby sleep" 3 \
		"S\\|.*;Kernel#sleep;.*;block in sleep_wait@$(script_mark "$f" sleep_wait);.*;Kernel#loop;sleep_wait@$(script_mark "$f" sleep_wait);sleep_worker@$(script_mark "$f" sleep_worker);block \\(2 levels\\) in <main>@$(script_mark "$f" sleep_threads);$rb_end"
	expect_chains "$TMP/sf.json" "$rb" "ruby IO#sysread" 2 \
		"S\\|.*;IO#sysread;.*;Reader#wait@$(script_mark "$f" pipe_wait);Reader#run@$(script_mark "$f" pipe_worker);block \\(2 levels\\) in <main>@$(script_mark "$f" pipe_threads);$rb_end"
	expect_chains "$TMP/sf.json" "$rb" "ruby main" 1 \
		"S\\|.*;Kernel#sleep;.*;block in <main>@$(script_mark "$f" main_wait);.*;Kernel#loop;<main>@$(script_mark "$f" main_wait);.*;ruby_run_node;.*;_start$"

	f=$wl/pl_snapshot.pl
	local pl_end='Perl_call_sv;.*;start_thread;clone3$'
	expect_chains "$TMP/sf.json" "$pl" "perl lock" 4 \
		"S\\|.*;Perl_pp_lock;main::lock_wait@$(script_mark "$f" lock_wait);main::lock_worker@$(script_mark "$f" lock_worker);\\(eval\\)@$(script_mark "$f" lock_threads);$pl_end"
	expect_chains "$TMP/sf.json" "$pl" "perl sleep" 3 \
		"S\\|.*;Perl_pp_sleep;main::sleep_wait@$(script_mark "$f" sleep_wait);main::sleep_worker@$(script_mark "$f" sleep_worker);\\(eval\\)@$(script_mark "$f" sleep_threads);$pl_end"
	expect_chains "$TMP/sf.json" "$pl" "perl sysread" 2 \
		"S\\|.*;Perl_pp_sysread;Reader::wait_byte@$(script_mark "$f" pipe_wait);Reader::run@$(script_mark "$f" pipe_worker);\\(eval\\)@$(script_mark "$f" pipe_threads);$pl_end"
	expect_chains "$TMP/sf.json" "$pl" "perl main" 1 \
		"S\\|.*;Perl_pp_sleep;<main>@$(script_mark "$f" main_wait);perl_run;main;__libc_start_call_main;__libc_start_main;_start$"

	# --no-interp: the interpreters' own frames, no script frame.
	"$STITCH" snapshot -p "$py,$rb,$pl" --no-interp -o "$TMP/sn.json"
	expect_eq "script frames with --no-interp" \
		"$(jq '[.[].frames[] | select(test("\\.(py|rb|pl):[0-9]+\\)$"))] | length' "$TMP/sn.json")" 0
	expect_eq "python threads unwound to their start with --no-interp" \
		"$(jq --arg p "$py" --arg re "$(arch_re '^(clone3|_start)( |$)')" \
			'[.[] | select(.pid == ($p | tonumber)) | select(.frames[-1] | test($re))] | length' \
			"$TMP/sn.json")" 10
	snap_no_programs_left
}
