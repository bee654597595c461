# SPDX-License-Identifier: GPL-2.0
# Integration tests of interpreter frames (sourced by run.sh): real CPython
# processes traced by the real binary, with exact chains and lines asserted.

PYW=$(realpath tests/workloads/interp/py_stitch.py)
# The regex for the workload's path in a frame's (file:line).
PYW_RE=$(printf '%s' "$PYW" | sed 's/[.]/\\./g')
PY_DEBIAN=/usr/bin/python3.11			# libpython linked in, non-PIE
PY_PYENV=/root/.pyenv/versions/3.11.7/bin/python3.11	# libpython3.11.so, PIE
PY_312=/root/.pyenv/versions/3.12.1/bin/python3.12	# libpython3.12.so, PIE
PY_313=/root/.pyenv/versions/3.13.0/bin/python3.13	# libpython3.13.so, PIE
PY_37=/root/.pyenv/versions/3.7.16/bin/python3.7	# a version we do not walk

# Line of a MARK comment in the workload.
mark() {
	local l
	l=$(grep -n "# MARK: $1\$" "$PYW" | cut -d: -f1)
	is_number "$l" "MARK $1"
	echo "$l"
}

# f NAME MARK: a Python frame of the workload as a folded regex.
f() {
	echo "$1 \\($PYW_RE:$(mark "$2")\\)"
}

need() {
	[ -x "$1" ] || die "$1 is missing: these tests need it (scripts/install-deps.sh, pyenv)"
}

# Folded lines carrying Python frames (name (file.py:line)).
PYFRAME='\.py:[0-9]+\)'
# Any run of native frames (their names have no "(", Python frames do).
NAT='([^;()]+;)*'
BOOT="Thread\\._bootstrap \\([^)]*threading\\.py:[0-9]+\\);Thread\\._bootstrap_inner \\([^)]*threading\\.py:[0-9]+\\);Thread\\.run \\([^)]*threading\\.py:[0-9]+\\);$NAT"
# From the user frames into the kernel.
SYSCALL='getppid;entry_SYSCALL_64_after_hwframe_\[k\];'

# The two getppid paths of thread A, outermost to the syscall.  Native frames
# between Python frames stay (C glue, builtins); python3.11 is stripped, so
# only the exported ones have names there.
# What calls os.getppid() from leaf() and key_fn(): sid's builds call the C function from
# their loop.
PY_LEAF_CALL='PyObject_Vectorcall;'
a_leaf_chain() {
	echo "$BOOT$(f thread_a a_outer);$(f outer outer);$(f middle middle);$(f leaf leaf);$PY_LEAF_CALL$NAT$SYSCALL"
}
# What calls sorted() from thread_a: 3.12's eval loop calls builtin_sorted directly.
PY_SORT_CALL='PyObject_Vectorcall;'
a_sort_chain() {
	echo "$BOOT$(f thread_a a_sorted);$PY_SORT_CALL$NAT""PyObject_CallOneArg;$NAT$(f key_fn key_fn);$PY_LEAF_CALL$NAT$SYSCALL"
}

# Stacks with Python frames that do not come from thread A: must be none.
wrong_thread() {
	awk -v re="$PYFRAME" '$0 ~ re && $0 !~ /;thread_a \(|;cpu_a \(|;deep \(/ { n += $NF } END { print n + 0 }' "$1"
}

# The comm of the workload's threads: 3.14 names threads after their Thread.name.
PY_COMM='^python'
check_threads() {
	local out=$1
	show "$out"
	expect_ge "getppid events in python" "$(total "$out" "$PY_COMM")" "$(slowed 3000)"
	expect_ge "thread A: nested chain" "$(total "$out" "$(a_leaf_chain)")" "$(slowed 1000)"
	expect_ge "thread A: sorted -> key_fn chain" "$(total "$out" "$(a_sort_chain)")" \
		"$(slowed 1000)"
	# Every stack through leaf() / key_fn() is the whole exact chain, or
	# says what it lacks.  Under emulation one in a thousand may: 5.10's
	# guest once (CI 2026-12-06) cut 1 key_fn() stack of 4,869 at its
	# eval loop's native frames, marked [truncated] above key_fn (its
	# frames true, thread A's outer Python frames missing); here none.
	local cut_re='\[truncated\]|\[interpreter frames lost\]' cut all_a skip_re
	skip_re="\\[user stack unreadable\\]|$cut_re"
	expect_eq "% of leaf() stacks exact, of those not marked incomplete" \
		"$(SKIP="$skip_re" share_all "$out" ';leaf \(' "$(a_leaf_chain)")" 100
	expect_eq "% of key_fn() stacks exact, of those not marked incomplete" \
		"$(SKIP="$skip_re" share_all "$out" ';key_fn \(' "$(a_sort_chain)")" 100
	all_a=$(total "$out" ';(leaf|key_fn) \(')
	cut=$(grep -E ';(leaf|key_fn) \(' "$out" | grep -E "$cut_re" | awk '{ n += $NF } END { print n + 0 }')
	expect_ge "leaf() and key_fn() stacks marked incomplete: at most $((SLOWDOWN > 1 ? all_a / 1000 : 0))" \
		"$((SLOWDOWN > 1 ? all_a / 1000 - cut : -cut))" 0
	expect_eq "B's or main's frames in getppid stacks" \
		"$(total "$out" 'b_write|b_sleep|main_join|<module>')" 0
	expect_eq "python stacks not from thread A" "$(wrong_thread "$out")" 0
	# Only the first ring buffer drain, before the process was recognized, lacks them.
	expect_ge "% of python getppid stacks with Python frames" \
		"$(share "$out" "$PY_COMM" "$PYFRAME")" 95
}

# Interpreter events are counted in the kernel: each distinct walk (here
# two: thread A's leaf and key_fn chains) goes to user space once, and the
# ~900k events of a 3 s run cost a few dozen bytes each (bench/interp_cost.sh
# measures it).
test_python_threads_syscall_debian() {
	need "$PY_DEBIAN"
	"$STITCH" record --stats -e syscall:getppid -o "$TMP/pyd.folded" -- \
		"$PY_DEBIAN" "$PYW" threads 3 2>"$TMP/pyd.err"
	grep -E 'events|counted|walkers' "$TMP/pyd.err"
	check_threads "$TMP/pyd.folded"
	# python3.11 is the command: known before anything is loaded.
	expect_grep "$TMP/pyd.err" 'interpreter walkers: loaded with the capture program'
	local events counted walks bytes
	events=$(stats_events "$TMP/pyd.err")
	counted=$(stats_counted "$TMP/pyd.err")
	walks=$(sed -n 's/.*kernel: \([0-9]*\) distinct walks sent once.*/\1/p' "$TMP/pyd.err")
	bytes=$(sed -n 's/^stitch stats: .*bytes\/event \([0-9]*\)$/\1/p' "$TMP/pyd.err")
	expect_ge "% of events counted in the kernel" "$((counted * 100 / events))" 95
	expect_ge "distinct walks sent: at least A's two chains" "${walks:-0}" 2
	# Not once per event: a sanitizer build (slower to load the tables,
	# so more events copied first) sent 18 walks and 113 bytes an event,
	# against ~2,000 bytes an event when every walk is sent.
	expect_ge "distinct walks sent: at most 200" "$((200 - ${walks:-999}))" 0
	expect_ge "bytes per event under 500" "$((499 - ${bytes:-99999}))" 0
}

# Every interpreter walk (and native stack) hashed to one value: the first
# walk sent owns it; every other one must go with its sample, never be
# counted under the first one's frames.
test_python_walks_that_share_a_hash() {
	need "$PY_DEBIAN"
	STITCH_TEST_HASH_MASK=0 "$STITCH" record --stats -e syscall:getppid \
		-o "$TMP/pyh.folded" -- "$PY_DEBIAN" "$PYW" threads 3 2>"$TMP/pyh.err"
	grep 'interpreter stacks counted' "$TMP/pyh.err"
	expect_ge "walks sent with their samples (collisions)" \
		"$(sed -n 's/.* \([0-9]*\) walks sent with their samples.*/\1/p' "$TMP/pyh.err")" 1000
	check_threads "$TMP/pyh.folded"
}

test_python_threads_syscall_pyenv_shared_libpython() {
	need "$PY_PYENV"
	"$STITCH" record -e syscall:getppid -o "$TMP/pye.folded" -- "$PY_PYENV" "$PYW" threads 3
	check_threads "$TMP/pye.folded"
}

test_python_tracepoint_pid_target() {
	need "$PY_DEBIAN"
	# Outlasts stitch's start (seconds under emulation), then is stopped.
	"$PY_DEBIAN" "$PYW" threads $((15 * SLOWDOWN)) &
	local pid=$!
	sleep 0.5
	# Twice as long under emulation: 5.10's guest verifying its walkers
	# beside the arm64 guest left 229 of thread A's chains for 250.
	"$STITCH" record -e tracepoint:syscalls:sys_enter_getppid -p "$pid" \
		-d $((SLOWDOWN > 1 ? 4 : 2)) -o "$TMP/pyt.folded"
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	check_threads "$TMP/pyt.folded"
	# Known from the start: every stack has them, unless the ring buffer overflowed
	# (the ASan build on a busy machine), and then the loss is marked.  Under
	# emulation one in a thousand may have neither: 5.10's guest once gave 1
	# stack of 2411 with the eval loop's native frames and no Python ones,
	# unmarked (not explained yet; never seen outside a guest).
	local all bare
	all=$(total "$TMP/pyt.folded" '^python')
	bare=$(grep '^python' "$TMP/pyt.folded" | grep -Ev "$PYFRAME|\\[interpreter frames lost\\]" |
		awk '{ n += $NF } END { print n + 0 }')
	expect_ge "stacks with neither Python frames nor the loss marked: at most $((SLOWDOWN > 1 ? all / 1000 : 0))" \
		"$((SLOWDOWN > 1 ? all / 1000 - bare : -bare))" 0
}

# A process that becomes Python after recording started (-p of a shell
# that execs it): the capture program was loaded without the interpreter
# walkers (none was traced at the start), and they are loaded when Python
# is recognized.  Its stacks are as exact as when they are there from the
# start; a native process never loads them.
test_python_walkers_loaded_on_demand() {
	need "$PY_DEBIAN"
	sh -c "sleep 0.5; exec $PY_DEBIAN $PYW threads 3" &
	local pid=$!
	"$STITCH" record --stats -e syscall:getppid -p "$pid" -d 3.5 -o "$TMP/pyl.folded" \
		2>"$TMP/pyl.err"
	wait "$pid"
	grep walkers "$TMP/pyl.err"
	expect_grep "$TMP/pyl.err" 'interpreter walkers: loaded when the first interpreter was recognized'
	check_threads "$TMP/pyl.folded"
	"$STITCH" record --stats -F 99 -d 0.5 -o "$TMP/native.folded" -- "$CHAIN" spin 1 \
		2>"$TMP/native.err"
	grep walkers "$TMP/native.err"
	expect_grep "$TMP/native.err" 'interpreter walkers: not loaded \(no interpreter seen\)'
}

test_python_uprobe_whole_system() {
	need "$PY_DEBIAN"
	# The workload outlives the recording by far, whatever its setup takes
	# (CI once saw 0 events: the 4 s workload had ended, reason unseen),
	# and is stopped after it; --stats says what a failed run saw.
	"$PY_DEBIAN" "$PYW" threads 60 &
	local pid=$!
	sleep 0.5
	"$STITCH" record -e uprobe:libc.so.6:getppid -a -d 2 --stats -o "$TMP/pyu.folded" \
		2>"$TMP/pyu.err" || { cat "$TMP/pyu.err"; false; }
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	grep -q '^stitch: [1-9]' "$TMP/pyu.err" || cat "$TMP/pyu.err"
	# Whole system: keep our workload's stacks (other Python processes may run here).
	grep '^python' "$TMP/pyu.folded" | grep -E "$PYW_RE|^python[^ ]*;[^(]* [0-9]+$" \
		>"$TMP/pyu-py.folded" || true
	show "$TMP/pyu-py.folded"
	expect_ge "thread A: nested chain" \
		"$(total "$TMP/pyu-py.folded" "$(a_leaf_chain | sed 's/;entry_SYSCALL.*//') [0-9]+$")" 500
	expect_eq "% of leaf() stacks exact" \
		"$(share "$TMP/pyu-py.folded" ';leaf \(' "$(a_leaf_chain | sed 's/;entry_SYSCALL.*//') [0-9]+$")" 100
	expect_eq "python stacks not from thread A" "$(wrong_thread "$TMP/pyu-py.folded")" 0
}

test_python_cpu_samples() {
	need "$PY_DEBIAN"
	# Under emulation the walkers' on-demand load takes seconds, and samples
	# are copied meanwhile: 6.12 in TCG lost 1614 of 4489 to the 8 MiB ring
	# (the consumer does not drain it while loading).  32 MiB holds ~6 s.
	# And the workload runs twice as long: the samples taken before the
	# walkers were there (5.10's verified up front) weigh half as much
	# (85% named beside the arm64 guest, for 90).
	# shellcheck disable=SC2046
	"$STITCH" record -F 999 $([ "$SLOWDOWN" -gt 1 ] && echo --ringbuf-mb 32) \
		-o "$TMP/pyc.folded" -- "$PY_DEBIAN" "$PYW" cpu $((SLOWDOWN > 1 ? 6 : 3))
	show "$TMP/pyc.folded"
	local burn
	burn="$BOOT$(f cpu_a cpu_a);$(py_burn "$PYW_RE")"
	# 99% in sid's CI guest (2026-12-03) and arm64's (2026-12-06): the
	# latter's one stack outside was cpu_burn at its return line, true
	# (py_burn takes it now); the whole of such stacks is shown.
	show_outside "$TMP/pyc.folded" ';cpu_burn \(' "$burn|\[user stack unreadable\]"
	expect_ge "samples in cpu_a -> cpu_burn" "$(total "$TMP/pyc.folded" "$burn")" "$(slowed 600)"
	# It said, in trixie's CI guest (2026-12-05): 2 of 5780 with their
	# native part cut short mid-walk, marked [truncated] (a stack page not
	# there at the event), the Python frames after it right.  Marked, not
	# wrong: left out of the exact share, and at most 1% of them.
	expect_eq "% of cpu_burn() samples with the exact chain" \
		"$(SKIP='\[user stack unreadable\]|\[truncated\]' share_all "$TMP/pyc.folded" ';cpu_burn \(' "$burn")" 100
	expect_ge "cpu_burn() samples cut short and marked [truncated]: at most 1%" \
		"$(($(total "$TMP/pyc.folded" ';cpu_burn \(') / 100 - $(total "$TMP/pyc.folded" '\[truncated\].*;cpu_burn \(')))" 0
	expect_eq "B's frames under cpu_burn" "$(total "$TMP/pyc.folded" 'b_sleep.*cpu_burn|cpu_burn.*b_sleep')" 0
	# Thread A's own: the main thread's start (Py_InitializeFromConfig's
	# imports, before stitch has read the new process) is never named, 12
	# samples here but 1.3 s of a busy CI guest's (bookworm, 2026-12-05: 72%
	# when they were counted as A's).
	expect_ge "% of thread A's samples named" \
		"$(share "$TMP/pyc.folded" '^python3\.11;clone3;start_thread;.*(cpu_|_PyEval_EvalFrameDefault)' ';cpu_burn \(')" 90
}

# The last function a script runs, 50 ms before it exits: its walks are
# new (definitions, counted in the kernel), and the reader must name them
# while the process still exists.  Left to the reader's idle turns (up to
# 100 ms), it was "[unknown python frame]" in 8 of 10 runs.
test_python_last_function_before_exit_named() {
	need "$PY_DEBIAN"
	"$STITCH" record -F 999 -o "$TMP/pylast.folded" -- "$PY_DEBIAN" "$PYW" last 1
	show "$TMP/pylast.folded"
	expect_ge "samples in main -> last_burn" \
		"$(total "$TMP/pylast.folded" ";$(f main l_last);$(f last_burn last_burn)")" "$(slowed 15)"
	expect_eq "unknown frames called from main" \
		"$(total "$TMP/pylast.folded" ';main \([^)]*\);\[unknown python frame\]')" 0
}

test_python_deep_stack_truncated_and_marked() {
	need "$PY_DEBIAN"
	"$STITCH" record -e syscall:getppid -o "$TMP/pydeep.folded" -- "$PY_DEBIAN" "$PYW" deep 2
	show "$TMP/pydeep.folded"
	# 128 frames walked: the innermost 127 recursive calls and the leaf, then the mark.
	local deep rec127="" i
	# Spelled out: awk here (mawk) has no {n} intervals.
	for i in $(seq 127); do rec127="$rec127$(f rec rec);"; done
	deep="_PyEval_EvalFrameDefault;$NAT\\[truncated\\];$rec127$(f rec rec_leaf);PyObject_Vectorcall;$NAT$SYSCALL"
	expect_ge "deep stacks truncated and marked" "$(total "$TMP/pydeep.folded" "$deep")" 500
	expect_eq "% of rec() stacks exactly so" "$(share "$TMP/pydeep.folded" ';rec \(' "$deep")" 100
}

test_python_no_lines() {
	need "$PY_DEBIAN"
	"$STITCH" record -e syscall:getppid --no-lines -o "$TMP/pyn.folded" -- "$PY_DEBIAN" "$PYW" threads 1
	show "$TMP/pyn.folded"
	expect_ge "chain without lines" "$(total "$TMP/pyn.folded" \
		";thread_a \\($PYW_RE\\);outer \\($PYW_RE\\);middle \\($PYW_RE\\);leaf \\($PYW_RE\\);PyObject_Vectorcall;")" 300
	expect_eq "frames with lines" "$(total "$TMP/pyn.folded" "$PYFRAME")" 0
}

test_python_unsupported_version_says_so() {
	need "$PY_37"
	"$STITCH" record -e syscall:getppid -o "$TMP/py37.folded" -- "$PY_37" "$PYW" threads 1 \
		2>"$TMP/py37.err"
	cat "$TMP/py37.err"
	show "$TMP/py37.folded"
	expect_eq "lines naming the version" "$(grep -c 'python 3\.7 is not supported yet' "$TMP/py37.err")" 1
	expect_ge "native stacks still shown" \
		"$(total "$TMP/py37.folded" '_PyEval_EvalFrameDefault;.*;os_getppid;.*getppid;entry_SYSCALL')" 1000
	expect_eq "Python frames" "$(total "$TMP/py37.folded" "$PYFRAME")" 0
}

test_python_text_and_pprof() {
	need "$PY_DEBIAN"
	"$STITCH" record -e syscall:getppid -o "$TMP/pyx.txt" -o "$TMP/pyx.pb.gz" --top 20 -- \
		"$PY_DEBIAN" "$PYW" threads 1
	cat "$TMP/pyx.txt"
	expect_grep "$TMP/pyx.txt" "^ +key_fn +\\(py_stitch\\.py:$(mark key_fn)\\)"
	"$STITCH" report "$TMP/pyx.pb.gz" -o "$TMP/pyx-re.folded"
	expect_ge "pprof keeps name, file and line" "$(total "$TMP/pyx-re.folded" "$(a_sort_chain)")" 300
}

test_python_generator_comprehension_signal_handler() {
	need "$PY_DEBIAN"
	"$STITCH" record -e syscall:getppid -o "$TMP/pyr.folded" -- "$PY_DEBIAN" "$PYW" reenter 2
	show "$TMP/pyr.folded"
	local top gen comp handler
	# reenter() at some line: completed below.
	top="PyEval_EvalCode;$(f '<module>' module);$(f main r_main);reenter \\($PYW_RE:"
	gen="$top$(mark r_next)\\);PyObject_Vectorcall;$NAT$(f ticker g_ppid);PyObject_Vectorcall;$NAT$SYSCALL"
	comp="$top$(mark r_comp)\\);$(f 'reenter\.<locals>\.<listcomp>' r_comp);PyObject_Vectorcall;$NAT$SYSCALL"
	# The handler runs inside whatever Python frame was running: a C call back into Python.
	handler=";$NAT$(f on_alarm h_ppid);PyObject_Vectorcall;$NAT$SYSCALL"
	expect_ge "generator frame above next()" "$(total "$TMP/pyr.folded" "$gen")" 1000
	expect_ge "comprehension frame" "$(total "$TMP/pyr.folded" "$comp")" 1000
	expect_ge "signal handler above the interrupted frame" \
		"$(total "$TMP/pyr.folded" "$top[0-9]+\\);.*$handler")" 10
	# (The handler may also interrupt ticker(): those stacks are checked below.)
	expect_eq "% of ticker() -> getppid stacks exact" \
		"$(share "$TMP/pyr.folded" ';ticker \([^)]*\);PyObject_Vectorcall' "$gen")" 100
	expect_eq "% of on_alarm() stacks exact" \
		"$(share "$TMP/pyr.folded" ';on_alarm \(' "$top[0-9]+\\);.*$handler")" 100
	expect_eq "stacks not stitched" "$(total "$TMP/pyr.folded" 'not stitched')" 0
}

# Two forked children on one CPU, their frames at the same addresses: one's
# walk must never be read from what the other's left in the per-CPU scratch
# (the frame window is emptied at every walk; without that, twin_y's stacks
# show x_* frames).
test_python_forked_twins_never_mix() {
	need "$PY_DEBIAN"
	"$STITCH" record -e syscall:getppid -o "$TMP/pytw.folded" -- \
		taskset -c 1 "$PY_DEBIAN" "$PYW" twins 2
	show "$TMP/pytw.folded"
	local x y
	x="^twin_x;.*$(f twin twin);$(f x_outer x_outer);$(f x_mid x_mid);$(f x_leaf x_leaf);PyObject_Vectorcall;$NAT$SYSCALL"
	y="^twin_y;.*$(f twin twin);$(f y_outer y_outer);$(f y_mid y_mid);$(f y_leaf y_leaf);PyObject_Vectorcall;$NAT$SYSCALL"
	expect_ge "twin_x's chain" "$(total "$TMP/pytw.folded" "$x")" 50000
	expect_ge "twin_y's chain" "$(total "$TMP/pytw.folded" "$y")" 50000
	expect_eq "% of twin_x's stacks with Python frames that are its chain" \
		"$(share "$TMP/pytw.folded" "^twin_x;.*$PYFRAME" "$x")" 100
	expect_eq "% of twin_y's stacks with Python frames that are its chain" \
		"$(share "$TMP/pytw.folded" "^twin_y;.*$PYFRAME" "$y")" 100
}

# ---- CPython 3.8, 3.9, 3.10: the PyFrameObject walk ---------------------------

# Each Python function runs in its own _PyEval_EvalFrameDefault call there:
# native frames (the call machinery) lie between any two Python frames, and
# every loop frame of a stitched stack is replaced.  Names are co_name, as
# those versions' tracebacks say (no co_qualname before 3.11).
PYOLD_BOOT="_bootstrap \\([^)]*threading\\.py:[0-9]+\\);$NAT""_bootstrap_inner \\([^)]*threading\\.py:[0-9]+\\);$NAT""run \\([^)]*threading\\.py:[0-9]+\\);$NAT"

# py_old_check TAG SCRIPT CMD...: CMD (a python3.X, maybe in a release root)
# runs the workload, found at SCRIPT by the traced process, in its threads,
# cpu and reenter modes; every chain is asserted exactly, lines included.
py_old_check() {
	local script=$2 re o=$TMP/pyold-$1
	shift 2
	re=$(printf '%s' "$script" | sed 's/[.]/\\./g')
	# fo NAME MARK: a frame of the workload at the line of its MARK.
	fo() { echo "$1 \\($re:$(mark "$2")\\)"; }
	local leaf sorted burn top gen comp handler
	leaf="$PYOLD_BOOT$(fo thread_a a_outer);$NAT$(fo outer outer);$NAT$(fo middle middle);$NAT$(fo leaf leaf);$NAT$SYSCALL"
	sorted="$PYOLD_BOOT$(fo thread_a a_sorted);$NAT$(fo key_fn key_fn);$NAT$SYSCALL"

	"$STITCH" record --stats -e syscall:getppid -o "$o-threads.folded" -- "$@" "$script" threads 2 \
		2>"$o-threads.err"
	grep -E 'not stitched|walks that failed' "$o-threads.err"
	show "$o-threads.folded"
	expect_ge "getppid events" "$(total "$o-threads.folded")" 2000
	expect_ge "thread A: nested chain" "$(total "$o-threads.folded" "$leaf")" 500
	expect_ge "thread A: sorted -> key_fn chain" "$(total "$o-threads.folded" "$sorted")" 500
	expect_eq "% of leaf() stacks exact" "$(share "$o-threads.folded" ';leaf \(' "$leaf")" 100
	expect_eq "% of key_fn() stacks exact" "$(share "$o-threads.folded" ';key_fn \(' "$sorted")" 100
	expect_eq "B's or main's frames in getppid stacks" \
		"$(total "$o-threads.folded" 'b_write|b_sleep|main_join|<module>')" 0
	expect_eq "stacks with Python frames not from thread A" "$(wrong_thread "$o-threads.folded")" 0
	expect_eq "loop frames left among Python frames" \
		"$(total "$o-threads.folded" "_PyEval_EvalFrameDefault;.*$PYFRAME|$PYFRAME.*;_PyEval_EvalFrameDefault")" 0
	expect_ge "% of getppid stacks with Python frames" \
		"$(share "$o-threads.folded" . "$PYFRAME|\\[interpreter frames lost\\]")" 95
	# A walk whose thread state names another thread (thread_id != fs_base) fails, marked.
	expect_grep "$o-threads.err" 'interpreter stacks not stitched 0,.* interpreter walks that failed 0$'

	"$STITCH" record -F 999 -o "$o-cpu.folded" -- "$@" "$script" cpu 2
	show "$o-cpu.folded"
	burn="$PYOLD_BOOT$(fo cpu_a cpu_a);$NAT$(py_burn "$re")( |;)"
	expect_ge "samples in cpu_a -> cpu_burn" "$(total "$o-cpu.folded" "$burn")" 300
	show_outside "$o-cpu.folded" ';cpu_burn \(' "$burn"
	expect_eq "% of cpu_burn() samples with the exact chain" \
		"$(share "$o-cpu.folded" ';cpu_burn \(' "$burn")" 100
	expect_eq "B's frames with cpu_burn" \
		"$(total "$o-cpu.folded" 'b_sleep.*cpu_burn|cpu_burn.*b_sleep')" 0

	"$STITCH" record -e syscall:getppid -o "$o-reenter.folded" -- "$@" "$script" reenter 2
	show "$o-reenter.folded"
	top="PyEval_EvalCode;$NAT$(fo '<module>' module);$NAT$(fo main r_main);$NAT""reenter \\($re:"
	gen="$top$(mark r_next)\\);$NAT$(fo ticker g_ppid);$NAT$SYSCALL"
	comp="$top$(mark r_comp)\\);$NAT$(fo '<listcomp>' r_comp);$NAT$SYSCALL"
	# The handler runs inside whatever Python frame was running, from its loop.
	handler="${top}[0-9]+\\);(.*;)?$(fo on_alarm h_ppid);$NAT$SYSCALL"
	expect_ge "generator frame above next()" "$(total "$o-reenter.folded" "$gen")" 500
	expect_ge "comprehension frame" "$(total "$o-reenter.folded" "$comp")" 500
	expect_ge "signal handler above the interrupted frame" \
		"$(total "$o-reenter.folded" "$handler")" 5
	expect_eq "% of ticker() -> getppid stacks exact" \
		"$(share "$o-reenter.folded" ';ticker \([^)]*\);[^(]*getppid;' "$gen")" 100
	expect_eq "% of <listcomp> -> getppid stacks exact" \
		"$(share "$o-reenter.folded" ';<listcomp> \([^)]*\);[^(]*getppid;' "$comp")" 100
	expect_eq "% of on_alarm() stacks exact" \
		"$(share "$o-reenter.folded" ';on_alarm \(' "$handler")" 100
	expect_eq "stacks not stitched" "$(total "$o-reenter.folded" 'not stitched')" 0
}

test_python38_pyenv() {
	need /root/.pyenv/versions/3.8.18/bin/python3.8
	py_old_check 38 "$PYW" /root/.pyenv/versions/3.8.18/bin/python3.8
}

test_python39_pyenv() {
	need /root/.pyenv/versions/3.9.18/bin/python3.9
	py_old_check 39 "$PYW" /root/.pyenv/versions/3.9.18/bin/python3.9
}

test_python310_pyenv() {
	need /root/.pyenv/versions/3.10.13/bin/python3.10
	py_old_check 310 "$PYW" /root/.pyenv/versions/3.10.13/bin/python3.10
}

# Debian 11's python3.9 (libpython linked in, stripped; glibc 2.31) in its
# own root, as a container runs it: the frames' files are the root's paths.
test_python39_bullseye_root() {
	root_put bullseye "$PYW"
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	py_old_check 39deb /stitch-tests/py_stitch.py $(in_root_cmd bullseye) python3.9
}

# Forked children keep the forking thread's fs_base, so their thread state
# still names their own thread; their frames lie at the same addresses in
# each, and one's walk never shows in the other's stacks.
test_python310_forked_twins_never_mix() {
	local py=/root/.pyenv/versions/3.10.13/bin/python3.10 x y
	need "$py"
	"$STITCH" record --stats -e syscall:getppid -o "$TMP/pyotw.folded" -- \
		taskset -c 1 "$py" "$PYW" twins 3 2>"$TMP/pyotw.err"
	show "$TMP/pyotw.folded"
	x="^twin_x;.*$(f twin twin);$NAT$(f x_outer x_outer);$NAT$(f x_mid x_mid);$NAT$(f x_leaf x_leaf);$NAT$SYSCALL"
	y="^twin_y;.*$(f twin twin);$NAT$(f y_outer y_outer);$NAT$(f y_mid y_mid);$NAT$(f y_leaf y_leaf);$NAT$SYSCALL"
	expect_ge "twin_x's chain" "$(total "$TMP/pyotw.folded" "$x")" 20000
	expect_ge "twin_y's chain" "$(total "$TMP/pyotw.folded" "$y")" 20000
	expect_eq "% of twin_x's stacks with Python frames that are its chain" \
		"$(share "$TMP/pyotw.folded" "^twin_x;.*$PYFRAME" "$x")" 100
	expect_eq "% of twin_y's stacks with Python frames that are its chain" \
		"$(share "$TMP/pyotw.folded" "^twin_y;.*$PYFRAME" "$y")" 100
	expect_grep "$TMP/pyotw.err" 'interpreter walks that failed 0$'
}

# stitch snapshot walks other threads with the same walker (snapshot.sh's
# helpers): 3.8 and 3.10 from pyenv, bullseye's 3.9 in its root, in one
# snapshot; every thread's frames exact, with lines, identical threads one group.
# (time.sleep waits in select() before 3.11.)
test_snapshot_python_old() {
	trap snap_cleanup EXIT
	local f=tests/workloads/interp/py_snapshot.py p38 p310 p39 p nat='([^;@]+;)*'
	local end="${nat}run;${nat}_bootstrap_inner;${nat}_bootstrap;.*;start_thread;(__)?clone3?$"
	need /root/.pyenv/versions/3.8.18/bin/python3.8
	need /root/.pyenv/versions/3.10.13/bin/python3.10
	root_put bullseye "$f"
	snap_start /root/.pyenv/versions/3.8.18/bin/python3.8 "$f"
	p38=$SNAP_PID
	snap_start /root/.pyenv/versions/3.10.13/bin/python3.10 "$f"
	p310=$SNAP_PID
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	snap_start $(in_root_cmd bullseye) python3.9 /stitch-tests/py_snapshot.py
	p39=$SNAP_PID
	"$STITCH" snapshot -p "$p38,$p310,$p39" -o "$TMP/so.json"
	script_chains "$TMP/so.json" | sort | uniq -c | sort -nr | cut -c1-400
	expect_eq "threads" "$(jq length "$TMP/so.json")" 30
	for p in $p38 $p310 $p39; do
		expect_chains "$TMP/so.json" "$p" "$p: Lock.acquire" 4 \
			"S\\|.*;PyThread_acquire_lock_timed;$nat""lock_wait@$(script_mark "$f" lock_wait);${nat}lock_worker@$(script_mark "$f" lock_worker);$end"
		expect_chains "$TMP/so.json" "$p" "$p: time.sleep" 3 \
			"S\\|.*;(clock_nanosleep|__select);$nat""sleep_wait@$(script_mark "$f" sleep_wait);${nat}sleep_worker@$(script_mark "$f" sleep_worker);$end"
		expect_chains "$TMP/so.json" "$p" "$p: os.read" 2 \
			"S\\|.*;$nat""wait@$(script_mark "$f" pipe_wait);${nat}run@$(script_mark "$f" pipe_worker);$end"
		expect_chains "$TMP/so.json" "$p" "$p: main" 1 \
			"S\\|.*;(clock_nanosleep|__select);$nat""main@$(script_mark "$f" main_wait);$nat<module>@$(script_mark "$f" module);.*;_start$"
	done
	snap_no_programs_left
}

# ---- CPython 3.12 and 3.13 ---------------------------------------------------

# 3.12: offsets from its headers; entry frames are shims owned by the C stack.
test_python312_threads_syscall() {
	need "$PY_312"
	"$STITCH" record -e syscall:getppid -o "$TMP/p312.folded" -- "$PY_312" "$PYW" threads 3
	PY_SORT_CALL='builtin_sorted;PyObject_Vectorcall;' check_threads "$TMP/p312.folded"
}

# 3.13: the layout the process states (_Py_DebugOffsets), checked at attach.
test_python313_threads_syscall() {
	need "$PY_313"
	"$STITCH" record -e syscall:getppid -o "$TMP/p313.folded" -- "$PY_313" "$PYW" threads 3
	check_threads "$TMP/p313.folded"
}

# The thread state found through a thread's TSD slot must name that thread
# (tstate->thread_id == pthread_self() == fs_base), checked on every walk:
# with the check reading another field (a test hook), every walk is refused
# as corrupt, and no stack shows a Python frame, though the native ones stay.
test_python_thread_state_of_another_thread_refused() {
	need "$PY_312"
	# PyThreadState.interp (+16 in 3.12): a pointer, never this thread's fs_base.
	STITCH_TEST_PY_THREAD_ID_OFF=16 "$STITCH" record --stats -e syscall:getppid \
		-o "$TMP/ptid.folded" -- "$PY_312" "$PYW" threads 1 2>"$TMP/ptid.err"
	grep 'walks that failed' "$TMP/ptid.err"
	show "$TMP/ptid.folded"
	expect_eq "Python frames" "$(total "$TMP/ptid.folded" "$PYFRAME")" 0
	expect_ge "native getppid stacks" \
		"$(total "$TMP/ptid.folded" '_PyEval_EvalFrameDefault;.*;os_getppid;.*getppid;entry_SYSCALL')" 1000
	expect_ge "walks refused" \
		"$(sed -n 's/.*interpreter walks that failed \([0-9]*\).*/\1/p' "$TMP/ptid.err")" 1
	# The same run without the hook: the walks pass the check.
	"$STITCH" record --stats -e syscall:getppid -o "$TMP/ptid-ok.folded" -- \
		"$PY_312" "$PYW" threads 1 2>"$TMP/ptid-ok.err"
	expect_eq "walks refused without the hook" \
		"$(sed -n 's/.*interpreter walks that failed \([0-9]*\).*/\1/p' "$TMP/ptid-ok.err")" 0
}

# Copy the workload into a release root (roots.sh); prints its path inside the root.
py_root_put() {
	root_put "$1" "$PYW"
	echo /stitch-tests/py_stitch.py
}

# Debian trixie's python3.13 (stripped, libpython linked in, glibc 2.41) in its
# own mount namespace, as a container runs it: frames name the in-root path.
test_python313_trixie_in_its_root() {
	local inroot PYW_RE
	inroot=$(py_root_put trixie)
	PYW_RE=$(printf '%s' "$inroot" | sed 's/[.]/\\./g')
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	"$STITCH" record -e syscall:getppid -o "$TMP/p313t.folded" -- \
		$(in_root_cmd trixie) python3.13 "$inroot" threads 3 2>"$TMP/p313t.err"
	cat "$TMP/p313t.err"
	expect_eq "warnings" "$(grep -c 'not supported' "$TMP/p313t.err")" 0
	check_threads "$TMP/p313t.folded"
	expect_grep "$TMP/p313t.folded" "Thread\\.run \\(/usr/lib/python3\\.13/threading\\.py:[0-9]+\\)"
}

# Debian sid's python3.14 (stripped, glibc 2.43) in its own mount namespace: its
# layout from its _Py_DebugOffsets (3.14's), f_executable tagged, the eval
# call's shim owned "by the interpreter", and its eval loop outside its symbol
# (gcc's hot/cold split, python_split.c).  3.14 runs a thread's run() through
# its context's Context.run (C): a native run between the bootstrap frames.
test_python314_sid_in_its_root() {
	local inroot PYW_RE BOOT
	inroot=$(py_root_put sid)
	PYW_RE=$(printf '%s' "$inroot" | sed 's/[.]/\\./g')
	BOOT="Thread\\._bootstrap \\([^)]*threading\\.py:[0-9]+\\);Thread\\._bootstrap_inner \\([^)]*threading\\.py:[0-9]+\\);$NAT""Thread\\.run \\([^)]*threading\\.py:[0-9]+\\);$NAT"
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	"$STITCH" record -e syscall:getppid -o "$TMP/p314s.folded" -- \
		$(in_root_cmd sid) python3.14 "$inroot" threads 3 2>"$TMP/p314s.err"
	cat "$TMP/p314s.err"
	expect_eq "warnings" "$(grep -c 'not supported' "$TMP/p314s.err")" 0
	PY_LEAF_CALL='' PY_COMM='^(python3\.14|Thread-[0-9]+ \([a-z_]*);' check_threads "$TMP/p314s.folded"
	expect_grep "$TMP/p314s.folded" "Thread\\.run \\(/usr/lib/python3\\.14/threading\\.py:[0-9]+\\)"
}

# sid's root also has python3.13, a later patch release (3.13.18) than trixie's: the
# layout its own debug offsets give, checked against 3.13's headers, still holds.
test_python313_later_patch_release_sid() {
	local inroot PYW_RE
	inroot=$(py_root_put sid)
	PYW_RE=$(printf '%s' "$inroot" | sed 's/[.]/\\./g')
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	"$STITCH" record -e syscall:getppid -o "$TMP/p313s.folded" -- \
		$(in_root_cmd sid) python3.13 "$inroot" threads 3 2>"$TMP/p313s.err"
	cat "$TMP/p313s.err"
	expect_eq "warnings" "$(grep -c 'not supported' "$TMP/p313s.err")" 0
	# Built by sid's gcc: the eval loop outside its symbol, os.getppid() called directly.
	PY_LEAF_CALL='' check_threads "$TMP/p313s.folded"
	expect_grep "$TMP/p313s.folded" "Thread\\.run \\(/usr/lib/python3\\.13/threading\\.py:[0-9]+\\)"
}

# Debian sid's python3.15 (3.15.2, stripped, linked in): the layout from its
# _Py_DebugOffsets, which moved (a grown thread state section); the thread state
# from its own thread-local (no pthread key any more); each thread's chain ends
# in a sentinel frame of its thread state, which is no eval call's.
test_python315_sid_in_its_root() {
	local inroot PYW_RE BOOT
	inroot=$(py_root_put sid)
	PYW_RE=$(printf '%s' "$inroot" | sed 's/[.]/\\./g')
	BOOT="Thread\\._bootstrap \\([^)]*threading\\.py:[0-9]+\\);Thread\\._bootstrap_inner \\([^)]*threading\\.py:[0-9]+\\);$NAT""Thread\\.run \\([^)]*threading\\.py:[0-9]+\\);$NAT"
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	"$STITCH" record -e syscall:getppid -o "$TMP/p315s.folded" -- \
		$(in_root_cmd sid) python3.15 "$inroot" threads 3 2>"$TMP/p315s.err"
	cat "$TMP/p315s.err"
	expect_eq "warnings" "$(grep -c 'not supported' "$TMP/p315s.err")" 0
	# Its loop calls sorted() through _Py_VectorCall_StackRefSteal (3.14's: PyObject_Vectorcall).
	PY_LEAF_CALL='' PY_SORT_CALL='_Py_VectorCall_StackRefSteal;' \
		PY_COMM='^(python3\.15|Thread-[0-9]+ \([a-z_]*);' check_threads "$TMP/p315s.folded"
	expect_grep "$TMP/p315s.folded" "Thread\\.run \\(/usr/lib/python3\\.15/threading\\.py:[0-9]+\\)"
	expect_eq "stacks not stitched" "$(total "$TMP/p315s.folded" 'not stitched')" 0
}

# CPU samples of a busy 3.15 thread, at any instruction of its loop.
test_python315_cpu_samples_sid() {
	local inroot PYW_RE BOOT burn
	inroot=$(py_root_put sid)
	PYW_RE=$(printf '%s' "$inroot" | sed 's/[.]/\\./g')
	BOOT="Thread\\._bootstrap \\([^)]*threading\\.py:[0-9]+\\);Thread\\._bootstrap_inner \\([^)]*threading\\.py:[0-9]+\\);$NAT""Thread\\.run \\([^)]*threading\\.py:[0-9]+\\);$NAT"
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	"$STITCH" record -F 999 -o "$TMP/p315c.folded" -- \
		$(in_root_cmd sid) python3.15 "$inroot" cpu 3 2>"$TMP/p315c.err"
	cat "$TMP/p315c.err"
	show "$TMP/p315c.folded"
	expect_eq "warnings" "$(grep -c 'not supported' "$TMP/p315c.err")" 0
	burn="$BOOT$(f cpu_a cpu_a);$(py_burn "$PYW_RE")"
	expect_ge "samples in cpu_a -> cpu_burn" "$(total "$TMP/p315c.folded" "$burn")" 600
	show_outside "$TMP/p315c.folded" ';cpu_burn \(' "$burn"
	expect_eq "% of cpu_burn() samples with the exact chain" \
		"$(share "$TMP/p315c.folded" ';cpu_burn \(' "$burn")" 100
	expect_eq "B's frames under cpu_burn" \
		"$(total "$TMP/p315c.folded" 'b_sleep.*cpu_burn|cpu_burn.*b_sleep')" 0
	# In the arm64 guest 1 of 6,389 samples once carried the marker (cause not
	# found yet: an honest [not stitched], never a wrong frame); there at most
	# 1 in 1000 of them, here none.
	if [ "$TEST_ARCH" = x86 ]; then
		expect_eq "stacks not stitched" "$(total "$TMP/p315c.folded" 'not stitched')" 0
	else
		expect_ge "a thousandth of the samples (the stacks not stitched at most)" \
			"$(($(total "$TMP/p315c.folded" '.') / 1000))" "$(total "$TMP/p315c.folded" 'not stitched')"
	fi
}

# 3.15 finds a thread's state another way (its thread-local): the state must
# still name the walked thread on every walk.  With the check reading
# PyThreadState.interp (+16, a pointer, never a thread's fs_base), no walk passes.
test_python315_thread_state_of_another_thread_refused() {
	local inroot
	inroot=$(py_root_put sid)
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	STITCH_TEST_PY_THREAD_ID_OFF=16 "$STITCH" record --stats -e syscall:getppid \
		-o "$TMP/p315t.folded" -- $(in_root_cmd sid) python3.15 "$inroot" threads 1 \
		2>"$TMP/p315t.err"
	grep 'walks that failed' "$TMP/p315t.err"
	show "$TMP/p315t.folded"
	expect_eq "Python frames" "$(total "$TMP/p315t.folded" "$PYFRAME")" 0
	expect_ge "native getppid stacks" "$(total "$TMP/p315t.folded" ';getppid;entry_SYSCALL')" 1000
	expect_ge "walks refused" \
		"$(sed -n 's/.*interpreter walks that failed \([0-9]*\).*/\1/p' "$TMP/p315t.err")" 1
}

# 3.15's generator frames (owned by their objects, linked into the chain while they
# run), the comprehension inlined in its function's frame, a signal handler run
# from the eval breaker above the frame it interrupted: as 3.12's, in sid's root.
test_python315_generator_comprehension_signal_handler_sid() {
	local inroot PYW_RE out top gen comp handler
	inroot=$(py_root_put sid)
	PYW_RE=$(printf '%s' "$inroot" | sed 's/[.]/\\./g')
	out=$TMP/p315r.folded
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	"$STITCH" record -e syscall:getppid -o "$out" -- \
		$(in_root_cmd sid) python3.15 "$inroot" reenter 2 2>"$TMP/p315r.err"
	cat "$TMP/p315r.err"
	show "$out"
	expect_eq "warnings" "$(grep -c 'not supported' "$TMP/p315r.err")" 0
	top="$(f '<module>' module);$(f main r_main);reenter \\($PYW_RE:"
	# Its loop calls next() through _Py_BuiltinCallFast_StackRef, os.getppid() directly.
	gen="$top$(mark r_next)\\);_Py_BuiltinCallFast_StackRef;$NAT$(f ticker g_ppid);$NAT$SYSCALL"
	comp="$top$(mark r_comp)\\);$NAT$SYSCALL"
	handler="_Py_HandlePending;$NAT$(f on_alarm h_ppid);$NAT$SYSCALL"
	expect_ge "generator frame above next()" "$(total "$out" "$gen")" 1000
	expect_ge "comprehension in reenter's frame" "$(total "$out" "$comp")" 1000
	expect_eq "comprehension frames" "$(total "$out" 'listcomp')" 0
	expect_ge "signal handler above the interrupted frame" \
		"$(total "$out" "${top}[0-9]+\\);(.*;)?$handler")" 10
	expect_eq "% of ticker() -> getppid stacks exact" \
		"$(share "$out" ';ticker \([^)]*\);([^;()]+;)*getppid;' "$gen")" 100
	expect_eq "% of on_alarm() stacks exact" \
		"$(share "$out" ';on_alarm \(' "${top}[0-9]+\\);(.*;)?$handler")" 100
	expect_eq "stacks not stitched" "$(total "$out" 'not stitched')" 0
}

# 3.15's thread state is found only through code stitch knows: sid's python3.15
# with PyGILState_GetThisThreadState()'s endbr64 made a 4-byte nop (the same code
# to run, another to read) is refused with one line naming the version, its
# native frames kept, no Python frame shown.
test_python315_unknown_thread_state_code_says_so() {
	local root bin fn off=''
	root=$(root_of sid)
	bin=$TMP/python3.15
	cp "$root/usr/bin/python3.15" "$bin"
	fn=$(readelf -Ws --dyn-syms "$bin" | awk '$8 == "PyGILState_GetThisThreadState" { print $2; exit }')
	# The file offset of that address, from its LOAD segment (Offset VirtAddr _ FileSiz).
	while read -r _ o va _ fsz _; do
		if (( 16#$fn >= va && 16#$fn < va + fsz )); then off=$((16#$fn - va + o)); fi
	done < <(readelf -lW "$bin" | awk '$1 == "LOAD"')
	is_number "$off" "PyGILState_GetThisThreadState's file offset"
	expect_eq "its first bytes" "$(od -An -tx1 -j "$off" -N4 "$bin" | tr -d ' ')" f30f1efa
	printf '\x0f\x1f\x40\x00' | dd of="$bin" bs=1 seek="$off" conv=notrunc status=none
	root_put sid "$bin" "$PYW"
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	"$STITCH" record -e syscall:getppid -o "$TMP/p315u.folded" -- \
		$(in_root_cmd sid) /stitch-tests/python3.15 /stitch-tests/py_stitch.py threads 1 \
		2>"$TMP/p315u.err"
	cat "$TMP/p315u.err"
	show "$TMP/p315u.folded"
	expect_eq "lines naming the version" \
		"$(grep -c 'python 3\.15 (thread state not found) is not supported yet' "$TMP/p315u.err")" 1
	expect_eq "lines saying something is not supported" "$(grep -c 'not supported' "$TMP/p315u.err")" 1
	expect_ge "native getppid stacks" "$(total "$TMP/p315u.folded" ';getppid;entry_SYSCALL')" 1000
	expect_eq "Python frames" "$(total "$TMP/p315u.folded" "$PYFRAME")" 0
}

test_python313_cpu_samples() {
	need "$PY_313"
	"$STITCH" record -F 999 -o "$TMP/p313c.folded" -- "$PY_313" "$PYW" cpu 3
	show "$TMP/p313c.folded"
	local burn
	burn="$BOOT$(f cpu_a cpu_a);$(py_burn "$PYW_RE")"
	expect_ge "samples in cpu_a -> cpu_burn" "$(total "$TMP/p313c.folded" "$burn")" 600
	expect_eq "% of cpu_burn() samples with the exact chain" \
		"$(share "$TMP/p313c.folded" ';cpu_burn \(' "$burn")" 100
	expect_eq "B's frames under cpu_burn" \
		"$(total "$TMP/p313c.folded" 'b_sleep.*cpu_burn|cpu_burn.*b_sleep')" 0
}

# 3.12 inlines list comprehensions (PEP 709): the comprehension runs in
# reenter's own frame, at its line.  Generators and signal handlers as 3.11.
py312_reenter() {
	local py=$1 out=$2 top gen comp handler
	"$STITCH" record -e syscall:getppid -o "$out" -- "$py" "$PYW" reenter 2
	show "$out"
	top="$(f '<module>' module);$(f main r_main);reenter \\($PYW_RE:"
	gen="$top$(mark r_next)\\);$NAT$(f ticker g_ppid);PyObject_Vectorcall;$NAT$SYSCALL"
	comp="$top$(mark r_comp)\\);PyObject_Vectorcall;$NAT$SYSCALL"
	handler=";$NAT$(f on_alarm h_ppid);PyObject_Vectorcall;$NAT$SYSCALL"
	expect_ge "generator frame above next()" "$(total "$out" "$gen")" 1000
	expect_ge "comprehension in reenter's frame" "$(total "$out" "$comp")" 1000
	expect_eq "comprehension frames" "$(total "$out" 'listcomp')" 0
	expect_ge "signal handler above the interrupted frame" \
		"$(total "$out" "$top[0-9]+\\);.*$handler")" 10
	expect_eq "% of ticker() -> getppid stacks exact" \
		"$(share "$out" ';ticker \([^)]*\);PyObject_Vectorcall' "$gen")" 100
	expect_eq "% of on_alarm() stacks exact" \
		"$(share "$out" ';on_alarm \(' "$top[0-9]+\\);.*$handler")" 100
	expect_eq "stacks not stitched" "$(total "$out" 'not stitched')" 0
}

test_python312_generator_comprehension_signal_handler() {
	need "$PY_312"
	py312_reenter "$PY_312" "$TMP/p312r.folded"
}

test_python313_generator_comprehension_signal_handler() {
	need "$PY_313"
	py312_reenter "$PY_313" "$TMP/p313r.folded"
}

# ---- Ruby 3.1 (the host), 2.7, 3.3 and 3.4 (release roots) -----------------

RBW=$(realpath tests/workloads/interp/rb_stitch.rb)
RNW=$(realpath tests/workloads/interp/rb_names.rb)
RXW=$(realpath tests/workloads/interp/rb_exit_lines.rb)
RUBY=/usr/bin/ruby3.1

# rb_in_root RELEASE FILE...: the files copied into the release's root; sets RB_CMD
# (its ruby, in its own mount namespace and root, as a container runs it: words) and
# RB_DIR (where the files are, inside).  experimental's ruby is 3.3 (sid's): its 3.4
# is ruby3.4.
rb_in_root() {
	local rel=$1 exe=ruby
	shift
	[ "$rel" != experimental ] || exe=ruby3.4
	root_put "$rel" "$@"
	RB_CMD="$(in_root_cmd "$rel") $exe" RB_DIR=/stitch-tests
}

# The Ruby a test runs, set by rb_use: the command (words), the workloads' paths as
# that ruby sees them (RB_RBW, RB_RNW, and their directory as a regex in frames), the
# main thread's comm, and what differs in the frames of Ruby's own methods.
rb_use() {
	local rel=$1
	RB_LINE0=0 RB_WRITE_MIN=5
	case $rel in
	host)
		need "$RUBY"
		RB_CMD=$RUBY RB_RBW=$RBW RB_RNW=$RNW RB_RXW=$RXW RB_MAIN_COMM='ruby3\.1'
		RB_TIMES="${NAT}Integer#times;$NAT" RB_TIME_NOW=';Time\.now \(<internal:timev>:'
		RB_START='__libc_start_main;__libc_start_call_main;' RB_BLOCK_MIN=300
		;;
	bullseye | bookworm | trixie | experimental)
		rb_in_root "$rel" "$RBW" "$RNW" "$RXW"
		RB_RBW=$RB_DIR/rb_stitch.rb RB_RNW=$RB_DIR/rb_names.rb RB_MAIN_COMM=ruby
		RB_RXW=$RB_DIR/rb_exit_lines.rb
		if [ "$rel" = bullseye ]; then
			# 2.7: Integer#times and Time.now are C methods (burn's block: 200
			# of 644 samples on a loaded machine); glibc 2.31 starts
			# main from __libc_start_main itself.
			RB_TIMES="${NAT}Integer#times;$NAT" RB_TIME_NOW=';Time\.now;'
			RB_START='__libc_start_main;' RB_BLOCK_MIN=150 RB_LINE0=1
			# A top C method is shown only at its own function's frame (2.7's
			# frame push, RUBY_FRAME_UNSURE): IO#write tail-calls io_write, so
			# few of its samples keep it (0-2 of ~25).
			RB_WRITE_MIN=0
		elif [ "$rel" = bookworm ]; then
			# 3.1, the host's Ruby, in Debian 12's root.
			RB_TIMES="${NAT}Integer#times;$NAT" RB_TIME_NOW=';Time\.now \(<internal:timev>:'
			RB_START="__libc_start_main;$NAT" RB_BLOCK_MIN=200	# 274 on a loaded machine
		else
			# 3.3 and 3.4: Integer#times is written in Ruby (numeric.rb), and
			# its own loop takes most of burn's samples: its block had 266 of
			# 1154 (140 on a loaded machine).  __libc_start_call_main is not
			# exported by glibc 2.41 or 2.44.
			RB_TIMES='Integer#times \(<internal:numeric>:[0-9]+\);'
			RB_TIME_NOW=';Time\.now \(<internal:timev>:'
			RB_START="__libc_start_main;$NAT" RB_BLOCK_MIN=100
			[ "$rel" != experimental ] || RB_MAIN_COMM='ruby3\.4'
		fi
		;;
	*) die "rb_use: no release $rel" ;;
	esac
	RBW_RE=$(printf '%s' "$RB_RBW" | sed 's/[.]/\\./g')
	RNW_RE=$(printf '%s' "$RB_RNW" | sed 's/[.]/\\./g')
}

rmark() {
	local l
	l=$(grep -n "# MARK: $1\$" "$RBW" | cut -d: -f1)
	is_number "$l" "MARK $1"
	echo "$l"
}

# r NAME MARK: a Ruby frame of the workload as a folded regex.
r() {
	echo "$1 \\($RBW_RE:$(rmark "$2")\\)"
}

# rb_burn [?]: burn's frame at any line of its body, as py_burn's (the loop's,
# "n = 0" before it, "n" after it); "?": its line may be missing.
rb_burn() {
	local l
	l=$(rmark a_burn)
	echo "$RB_PINGER#burn \\($RBW_RE(:($((l - 1))|$l|$((l + 1))))${1:-}\\)"
}

# Ruby names its threads after where they were created: thread A's and B's comm.
rb_comm() {
	echo "^rb_stitch\\.rb:$1;"
}

# Process.ppid from thread A, directly and from a sort_by block.  C methods (each, sort_by,
# pid) sit just before their own C function, after the VM's call frames.  Names as Ruby
# 3.4 prints them: the class (or module) owning the method, '.' for a singleton method.
RB_PINGER='Work::Pinger'
rb_pid_chain() {
	echo "$(r 'block in <main>' a_thread);$(r "$RB_PINGER#run" a_each);${NAT}Array#each;rb_ary_each;rb_yield;$(r "block in $RB_PINGER#run" a_block);$(r "$RB_PINGER#spin_a" a_pid);${NAT}Process\\.ppid;${NAT}getppid;entry_SYSCALL"
}
rb_sort_chain() {
	echo "$(r "$RB_PINGER#spin_a" a_sort);${NAT}Enumerable#sort_by;${NAT}rb_block_call;${NAT}Array#each;rb_ary_each;rb_yield;$NAT$(r "block in $RB_PINGER#spin_a" a_sort);${NAT}Process\\.ppid;${NAT}getppid;entry_SYSCALL"
}
# A method of a module mixed into Pinger: the module owns it.
rb_greet_chain() {
	echo "$(r "$RB_PINGER#spin_a" a_greet_call);$(r 'Work::Greeter#greet' a_greet);${NAT}Process\\.ppid;${NAT}getppid;entry_SYSCALL"
}
# def self.tick, with a block in a block: "block (2 levels) in Work::Pinger.tick".
rb_tick_chain() {
	echo "$(r "$RB_PINGER#spin_a" a_tick_call);$(r "$RB_PINGER\\.tick" a_tick);$RB_TIMES$(r "block in $RB_PINGER\\.tick" a_tick);${NAT}Array#each;$NAT$(r "block \\(2 levels\\) in $RB_PINGER\\.tick" a_tick);${NAT}Process\\.ppid;${NAT}getppid;entry_SYSCALL"
}

check_ruby_threads() {
	local out=$1 a b
	a=$(rb_comm "$(grep -n 'ta = Thread.new do' "$RBW" | cut -d: -f1)")
	b=$(rb_comm "$(rmark b_thread)")
	show "$out"
	expect_ge "thread A: Process.ppid chain" "$(total "$out" "$a.*$(rb_pid_chain)")" "$(slowed 1000)"
	expect_ge "thread A: sort_by block chain" "$(total "$out" "$a.*$(rb_sort_chain)")" \
		"$(slowed 1000)"
	expect_ge "thread A: module method chain" "$(total "$out" "$a.*$(rb_greet_chain)")" \
		"$(slowed 1000)"
	expect_ge "thread A: singleton method, nested blocks" \
		"$(total "$out" "$a.*$(rb_tick_chain)")" "$(slowed 1000)"
	# Every Process.ppid that reached its C function (a few getpid calls come from the
	# VM's interrupt checks, in the thread's own stack) is one of the exact chains.
	expect_eq "% of Process.ppid -> C function stacks exact" \
		"$(share "$out" ';Process\.ppid;[^;]+;getppid;' \
			"$(rb_pid_chain)|$(rb_sort_chain)|$(rb_greet_chain)|$(rb_tick_chain)")" 100
	# No bare method names left where Ruby knows the class.
	expect_eq "stacks with a bare ppid/each/sort_by/times" \
		"$(total "$out" ';(ppid|each|sort_by|times|run|spin_a|greet|tick) ?[;(]')" 0
	# Thread truth: B's methods never under Process.ppid, never in A's stacks and back.
	expect_eq "stacks with writer_b and pid" "$(total "$out" 'writer_b \(.*;Process\.ppid;')" 0
	expect_eq "thread A stacks with B's methods" "$(total "$out" "$a.*writer_b")" 0
	expect_eq "thread B stacks with A's methods" "$(total "$out" "$b.*(spin_a|Pinger|;run \\()")" 0
}

rb_threads_syscall() {
	# A Ruby thread's VM stack is alloca'd on its native stack (1 MiB): until
	# libruby's tables reach the kernel its events are copies, which end
	# [truncated] below thread_start.  Under arm64's emulation (SLOWDOWN 8)
	# that took ~3.5 s of the guest's: 8,601 of 10,605 events in a 3 s run,
	# none of the sort_by chain whole; 8,578 whole in an 8 s run.
	"$STITCH" record -e syscall:getppid -o "$TMP/rb.folded" -- $RB_CMD "$RB_RBW" threads \
		$((SLOWDOWN >= 8 ? 8 : 3))
	check_ruby_threads "$TMP/rb.folded"
}

test_ruby_tracepoint_pid_target() {
	rb_use host
	$RB_CMD "$RB_RBW" threads 4 &
	local pid=$!
	sleep 0.5
	"$STITCH" record -e tracepoint:syscalls:sys_enter_getppid -p "$pid" -d 2 -o "$TMP/rbt.folded"
	wait "$pid"
	check_ruby_threads "$TMP/rbt.folded"
}

# A Ruby thread's native stack reaches its start routine.  Ruby 3.1's
# thread_start_func_2 alloca()s the thread's VM stack (1 MiB) inside its own
# frame, so its CFA is ~1 MiB above the frames below it: only the kernel unwinder,
# which reads the words it needs, gets there; a stack copy cannot (docs/interpreters.md).
# The events copied while libruby's table was still loading are the only ones
# allowed to stop there.
test_ruby_thread_stack_reaches_start() {
	rb_use host
	"$STITCH" record --stats -e syscall:getppid -o "$TMP/rbs.folded" -- $RB_CMD "$RB_RBW" threads 2 \
		2>"$TMP/rbs.err"
	cat "$TMP/rbs.err"
	show "$TMP/rbs.folded"
	local a start copied cut
	a=$(rb_comm "$(grep -n 'ta = Thread.new do' "$RBW" | cut -d: -f1)")
	start="${a}clone3;start_thread;${NAT}rb_vm_invoke_proc;"
	expect_ge "thread A: clone3 down to Process.ppid" "$(total "$TMP/rbs.folded" "$start$(rb_pid_chain)")" 1000
	expect_ge "thread A: clone3 down to the sort_by block" \
		"$(total "$TMP/rbs.folded" "$start$(r 'block in <main>' a_thread);$(r "$RB_PINGER#run" a_each);${NAT}Array#each;rb_ary_each;rb_yield;$(r "block in $RB_PINGER#run" a_block);$(rb_sort_chain)")" 1000
	copied=$(sed -n 's/^stitch stats: kernel unwinding: .*, \([0-9]*\) events copied while tables were missing$/\1/p' \
		"$TMP/rbs.err")
	is_number "$copied" "events copied"
	cut=$(total "$TMP/rbs.folded" '^rb_stitch\.rb:[0-9]+;\[truncated\];')
	echo "thread stacks cut: $cut, events copied while tables were missing: $copied"
	expect_ge "events copied (>= thread stacks cut)" "$copied" "$cut"
}

rb_cpu_samples() {
	"$STITCH" record -F 999 -o "$TMP/rbc.folded" -- $RB_CMD "$RB_RBW" cpu 3
	show "$TMP/rbc.folded"
	local burn
	burn="$(r 'block in <main>' a_cpu);$(rb_burn)"
	# 2.7's compiler gives the nop after the block call its own insns_info entry with
	# line 0 (burn's entries: ... [44,0] [0,0] [44,0] ..., read with Fiddle): a
	# sample there has no line (about 1 in 1500).  Under emulation, where the
	# reader falls seconds behind, 1% of a guest's burn samples had no line either
	# (a pc first seen after the process was gone): a frame without its line, not
	# a wrong one.
	if [ "$RB_LINE0" = 1 ] || [ "$SLOWDOWN" -gt 1 ]; then
		burn="$(r 'block in <main>' a_cpu);$(rb_burn '?')"
	fi
	expect_ge "samples in burn" "$(total "$TMP/rbc.folded" "$burn")" "$(slowed 600)"
	# The odd 1% of a CI run (and of 2 in 180 loaded runs here) was burn without its line:
	# a pc first seen in the last turn, named after the process was gone, its line tables
	# read only then (test_ruby33_lines_at_exit; ruby_lines.c copies them).
	show_outside "$TMP/rbc.folded" ";$RB_PINGER#burn \\(" "$burn"
	expect_eq "% of burn samples with the exact chain" \
		"$(share "$TMP/rbc.folded" ";$RB_PINGER#burn \\(" "$burn")" 100
	expect_ge "samples in burn's block, called by Integer#times" "$(total "$TMP/rbc.folded" \
		"$burn;$RB_TIMES$(r "block in $RB_PINGER#burn" a_burn)")" "$(slowed "$RB_BLOCK_MIN")"
	# ~5% of the samples come while the block's frame is pushed and the VM's
	# loop not called yet, or popped and the loop not returned yet: stitched
	# without it (interp_splice), not left with native frames only.
	expect_eq "stacks not stitched" "$(total "$TMP/rbc.folded" 'not stitched')" 0
	expect_eq "B's frames with burn" "$(total "$TMP/rbc.folded" 'writer_b.*burn|burn.*writer_b')" 0
	# Thread B (about a third of the samples): a top-level method, its plain name
	# (owner Object), calling IO#write; and Time.now, a singleton method written in Ruby.
	expect_ge "thread B: samples in writer_b" "$(total "$TMP/rbc.folded" \
		"$(r 'block in <main>' b_thread);writer_b \\($RBW_RE:[0-9]+\\);")" "$(slowed 100)"
	expect_ge "thread B: writer_b -> IO#write" "$(total "$TMP/rbc.folded" \
		"$(r 'block in <main>' b_thread);$(r writer_b b_write);${NAT}IO#write;")" \
		"$(slowed "$RB_WRITE_MIN")"
	# IO#write is called from its own line only: never under writer_b's while line
	# (2.7 sets ec->cfp before it writes the frame: the top frame may still be the
	# IO#write popped before Time.now is pushed, dropped unless placed at its function).
	expect_eq "IO#write under writer_b's other line" "$(total "$TMP/rbc.folded" \
		"writer_b \\($RBW_RE:$(($(rmark b_write) - 1))\\);${NAT}IO#write;")" 0
	# (2.7 may keep none: share() of nothing is 0)
	[ "$(total "$TMP/rbc.folded" ';IO#write;')" -eq 0 ] && [ "$RB_WRITE_MIN" -eq 0 ] ||
		expect_eq "% of IO#write samples under writer_b" "$(share "$TMP/rbc.folded" \
			';IO#write;' "$(r 'block in <main>' b_thread);$(r writer_b b_write);${NAT}IO#write;")" 100
	expect_ge "Time.now" "$(total "$TMP/rbc.folded" "$RB_TIME_NOW")" "$(slowed 10)"
}

# A walk is named when it is read, up to 100 ms after it was defined in the kernel: a
# Ruby's last walks are named after it is gone.  rb_exit_lines.rb runs one line for a
# second (its method named while it lives), then 200 lines once each, at pcs no
# sample saw before, and exit!s.  Their lines come from the tables copied when the
# method was first named (ruby_lines.c); read from the process when asked, 2 to 14
# of its last samples in each of 5 runs had no line (and 1 burn sample in 100 loaded
# runs of test_ruby33_cpu_samples: a pc of burn first seen in its last turn).
rb_lines_at_exit() {
	local tail='tail \(tail\.rb:'
	"$STITCH" record -F 999 -o "$TMP/rbx.folded" -- $RB_CMD "$RB_RXW" 1
	show "$TMP/rbx.folded" 3
	# ~0.5 ms a line: 3.3 and 3.4 gave 130-205 samples, 2.7 46, 3.1 68.
	expect_ge "String#sum samples in tail's lines run once" \
		"$(total "$TMP/rbx.folded" "$tail([3-9]|[0-9][0-9]+)\\);.*String#sum")" 20
	expect_eq "% of tail frames with their line" \
		"$(share "$TMP/rbx.folded" ';tail \(' "$tail[0-9]+\\);")" 100
}

# -p of a running Ruby: every cpu sample walked in the kernel (its tables load
# before the first event) and none left unknown.  Ruby reads its execution
# context through TLS (__tls_get_addr, in ld.so: the last mapping before
# [vsyscall]) and stops in libruby's epilogues; before both were handled, this
# run copied 11 samples and left 47 inconsistent.
test_ruby_cpu_samples_pid_walked_in_kernel() {
	rb_use host
	$RB_CMD "$RB_RBW" cpu 4 &
	local pid=$!
	sleep 0.5
	"$STITCH" record --stats -F 999 -p "$pid" -d 2 -o "$TMP/rbk.folded" 2>"$TMP/rbk.err"
	wait "$pid"
	grep -E 'user stacks|copied' "$TMP/rbk.err"
	expect_grep "$TMP/rbk.err" ' 0 events copied while tables were missing$'
	expect_grep "$TMP/rbk.err" ' 0 truncated, 0 left a module, 0 without a rule, 0 inconsistent,'
	expect_ge "samples in burn" "$(total "$TMP/rbk.folded" ";$RB_PINGER#burn \\(")" 600
}

# How each kind of frame is named (rb_names.rb): with its class where Ruby 3.4 would
# give one, the bare label where the class is anonymous or not a class, never another.
# rn NAME MARK: a frame of rb_names.rb as a folded regex.
rn() {
	local l
	l=$(grep -n "# MARK: $2\$" "$RNW" | cut -d: -f1)
	is_number "$l" "MARK $2"
	echo "$1 \\($RNW_RE:$l\\)"
}

rb_name_rules() {
	local out=$TMP/rbn.folded pid=";${NAT}Process\\.ppid;" svar resc dm helper anon single blk rec vol
	"$STITCH" record -e syscall:getppid -o "$out" -- $RB_CMD "$RB_RNW" 2
	show "$out" 10
	# A method whose $~ turned its env's method entry slot into an svar.
	svar=";$(rn 'Names::Inner#svar_m' svar)$pid"
	resc=";$(rn 'rescue in Names::Inner#resc' resc)$pid"
	# define_method's body is a block of the class body: Ruby names it so too.
	dm=";$(rn 'block in <class:Inner>' dm)$pid"
	# module_function: the singleton copy shares the iseq of the private Util#helper.
	helper=";$(rn 'Names::Util\.helper' helper)$pid"
	anon=";$(rn am anon)$pid"
	single=";$(rn single single)$pid"
	blk=";$(rn top_blk top_blk);${NAT}Array#each;$NAT$(rn 'block in top_blk' top_blk)$pid"
	# Repeated frames (read once per walk) and alternating ones, each named whole.
	rec=";$(rn 'Names::Inner#rec' rec_call);$(rn 'Names::Inner#rec' rec_call)"
	rec="$rec;$(rn 'Names::Inner#rec' rec_call);$(rn 'Names::Inner#rec' rec)$pid"
	vol=";$(rn 'Names::Ping#volley' ping_call);$(rn 'Names::Pong#volley' pong_call)"
	vol="$vol;$(rn 'Names::Ping#volley' ping_call);$(rn 'Names::Pong#volley' pong)$pid"
	expect_ge "svar method" "$(total "$out" "$svar")" 200
	expect_ge "rescue clause" "$(total "$out" "$resc")" 200
	expect_ge "define_method block" "$(total "$out" "$dm")" 200
	expect_ge "module_function" "$(total "$out" "$helper")" 200
	expect_ge "anonymous class: bare name" "$(total "$out" "$anon")" 200
	expect_ge "singleton of an object: bare name" "$(total "$out" "$single")" 200
	expect_ge "block in a top-level method" "$(total "$out" "$blk")" 200
	expect_ge "recursion" "$(total "$out" "$rec")" 200
	expect_ge "two classes calling each other" "$(total "$out" "$vol")" 200
	# Nothing else under Process.ppid: no class invented, none left out.
	expect_eq "% of Process.ppid stacks named so" "$(share "$out" ';Process\.ppid;' \
		"$svar|$resc|$dm|$helper|$anon|$single|$blk|$rec|$vol")" 100
	expect_eq "Object# or Util# names" "$(total "$out" 'Object#|Names::Util#|#<')" 0
}

rb_main_thread_complete() {
	"$STITCH" record -e syscall:getppid -o "$TMP/rbm.folded" -- $RB_CMD "$RB_RBW" main 2
	show "$TMP/rbm.folded"
	local chain
	chain="^$RB_MAIN_COMM;_start;$RB_START${NAT}ruby_run_node;$NAT$(r '<main>' main_call);$(r main_loop main_pid);${NAT}Process\\.ppid;[^;]+;getppid;entry_SYSCALL"
	# (main_loop is a top-level method: its plain name, not Object#main_loop.)
	expect_ge "main thread: whole chain" "$(total "$TMP/rbm.folded" "$chain")" 1000
	expect_eq "% of Process.ppid stacks exactly so" \
		"$(share "$TMP/rbm.folded" ';Process\.ppid;' "$chain")" 100
	expect_eq "stacks not stitched" "$(total "$TMP/rbm.folded" 'not stitched')" 0
}
# Each Ruby: the host's 3.1, and Debian 12's 3.1, 11's 2.7, 13's 3.3 and experimental's 3.4
# in their roots.
test_ruby_threads_syscall() { rb_use host && rb_threads_syscall; }
test_ruby_cpu_samples() { rb_use host && rb_cpu_samples; }
test_ruby_name_rules() { rb_use host && rb_name_rules; }
test_ruby_main_thread_complete() { rb_use host && rb_main_thread_complete; }
test_ruby_lines_at_exit() { rb_use host && rb_lines_at_exit; }
test_ruby31_threads_syscall() { rb_use bookworm && rb_threads_syscall; }
test_ruby27_threads_syscall() { rb_use bullseye && rb_threads_syscall; }
test_ruby27_cpu_samples() { rb_use bullseye && rb_cpu_samples; }
test_ruby27_name_rules() { rb_use bullseye && rb_name_rules; }
test_ruby27_main_thread_complete() { rb_use bullseye && rb_main_thread_complete; }
test_ruby27_lines_at_exit() { rb_use bullseye && rb_lines_at_exit; }
test_ruby33_threads_syscall() { rb_use trixie && rb_threads_syscall; }
test_ruby33_cpu_samples() { rb_use trixie && rb_cpu_samples; }
test_ruby33_name_rules() { rb_use trixie && rb_name_rules; }
test_ruby33_main_thread_complete() { rb_use trixie && rb_main_thread_complete; }
test_ruby33_lines_at_exit() { rb_use trixie && rb_lines_at_exit; }
# Debian experimental's 3.4 (3.3's layout but for FL_SINGLETON and tLAST_OP_ID).
test_ruby34_threads_syscall() { rb_use experimental && rb_threads_syscall; }
test_ruby34_cpu_samples() { rb_use experimental && rb_cpu_samples; }
test_ruby34_name_rules() { rb_use experimental && rb_name_rules; }
test_ruby34_main_thread_complete() { rb_use experimental && rb_main_thread_complete; }
test_ruby34_lines_at_exit() { rb_use experimental && rb_lines_at_exit; }

# The 2.7, 3.3 and 3.4 entries of the table against each build's own offsets, read in
# roots (tools/interp-walk/check-ruby-roots.sh: 2.7's MJIT header compiled in its dev root,
# 3.3's and 3.4's RJIT bindings and live objects; 3.3.14 in trixie, 3.3.8 in sid, 3.4.11 in
# experimental's own root, whose ruby3.4 is all the script needs).
test_ruby_offsets_in_roots() {
	local d=${STITCH_DEV_ROOTS:-${STITCH_ROOTS:-/var/cache/stitch/roots}/dev} r exp
	for r in bullseye trixie sid; do
		[ -x "$d/$r/usr/bin/ruby" ] || die "$d/$r has no ruby: the dev roots are needed (STITCH_DEV_ROOTS)"
	done
	exp=$(root_of experimental)
	[ -x "$exp/usr/bin/ruby3.4" ] || die "$exp has no ruby3.4"
	tools/interp-walk/check-ruby-roots.sh "$d/bullseye" "$d/trixie" "$d/sid" "$exp" \
		>"$TMP/rbo.out" || { cat "$TMP/rbo.out"; die "Ruby offsets differ from the real builds'"; }
	tail -1 "$TMP/rbo.out"
	expect_grep "$TMP/rbo.out" '^ruby offsets: [0-9]+ passed, 0 failed$'
	# Each of the four builds compared (a root whose script printed nothing adds none).
	expect_ge "values compared" "$(sed -n 's/^ruby offsets: \([0-9]*\) passed.*/\1/p' "$TMP/rbo.out")" 190
}
