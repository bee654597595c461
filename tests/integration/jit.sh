# SPDX-License-Identifier: GPL-2.0
# Integration tests of JIT runtimes (issue 30): frame-pointer steps through
# code without CFI, and names from perf maps; sourced by run.sh, which gives
# $STITCH, $TMP, $W and the helpers of lib.sh.

workload gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -o "$W/jit_code" tests/workloads/jit_code.c ||
	exit 1
JIT_CODE=$(realpath "$W/jit_code")
JIT_JS=$(realpath tests/workloads/jit)
NODE_JIT_FLAGS="--perf-basic-prof --interpreted-frames-native-stack"
# With --perf-basic-prof node also writes isolate-*-v8.log into its cwd: run it in $TMP.
STITCH_BIN=$(realpath "$STITCH")
in_tmp() {
	(cd "$TMP" && "$@")
}
JAVA_JIT_FLAGS="-XX:+PreserveFramePointer -XX:+UnlockDiagnosticVMOptions -XX:+DumpPerfMapAtExit"
# Node's main thread from its start, to V8's entry into JavaScript.
NODE_MAIN="^node;$LIBC_START;node::Start\(int, char\*\*\);.*;Builtins_JSEntry;"
# A V8 frame of a function (~ interpreted, ^ baseline, + or * optimized), named by its perf map.
js_frame() {
	echo "JS:[~^+*]?$1 [^;]*$2:[0-9]+:[0-9]+_\[j\]"
}
# A V8 frame named from node's own heap (issue 39: no flag): "FUNCTION (PATH/FILE:LINE)";
# LINE (a regex) where an optimized frame is, or, for an interpreted or
# baseline frame, where the function is defined.
v8_frame() {
	echo "$1 \\([^;]*/$2:$3\\)_\\[j\\]"
}
# The same in a text output (snapshot, stalls, latency): "FUNCTION [jit]  (FILE:LINE)".
v8_line() {
	echo "^ +$1 \\[jit\\] +\\($2:$3\\)$"
}
# A node run from its start is recorded for NODE_D seconds of the NODE_RUN
# it would run: the last stacks are named while node still lives (a V8
# frame is named from the process's heap; stacks counted in the kernel are
# read every second, and those first read after node exited keep V8's
# frames unnamed, unless the same function was named before).
NODE_D=$((SLOWDOWN > 1 ? 30 : 2))
NODE_RUN=$((SLOWDOWN > 1 ? 90 : 6))
# The lines chain.js's functions may be named at: inner defined at 4, its
# body 5-8 (its loop: 6-7); middle and outer are one line each; the
# module's wrapper defined at 1 (its own line), its body 13-18 (outer
# called at 17).
CHAIN_INNER='[4-8]'
CHAIN_WRAPPER='(1|1[3-8])'
V8_CHAIN="$(v8_frame outer chain.js 11);$(v8_frame middle chain.js 10);$(v8_frame inner chain.js "$CHAIN_INNER")"
V8_WAIT_CHAIN="$(v8_frame outer wait.js 7);$(v8_frame middle wait.js 6);$(v8_frame waiter wait.js 5);"

# drop_maps REGEX: remove the perf maps our workloads left in /tmp (runtimes keep them).
drop_maps() {
	grep -lE -- "$1" /tmp/perf-*.map 2>/dev/null | xargs -r rm -f
}

# check_agreed LOG: --unwind=check compared stacks and found (nearly) no difference.
check_agreed() {
	local compared differ
	compared=$(sed -n 's/.*check: \([0-9]*\) stacks compared.*/\1/p' "$1")
	differ=$(sed -n 's/.*check: .*, \([0-9]*\) differ$/\1/p' "$1")
	is_number "$compared" "stacks compared"
	is_number "$differ" "stacks differing"
	expect_ge "stacks compared" "$compared" 50
	echo "stacks differing: $differ of $compared"
	# A mapping list the kernel has not been given yet hands the stack over rather than differ.
	[ "$((differ * 100))" -le "$compared" ] || die "check: $differ of $compared stacks differ"
}

# Hand-made JIT code in an anonymous mapping, named by the perf map the
# workload writes: with a frame pointer, its stack is complete through it
# (the frame-pointer step, then DWARF again in run_jit); without one (rbp a
# counter), the stack is cut at it, visibly, and never stepped to a wrong
# caller.  Under --unwind=check: the kernel's walk and the user-space one
# agree, frame-pointer steps and all.  Before issue 30: [unknown];spin_under_*.
test_jit_handmade_code_frame_pointer_or_cut() {
	local f=$TMP/handmade.folded fp nofp cut
	"$STITCH" record -F 499 --unwind=check -o "$f" -- "$JIT_CODE" 2 >"$TMP/handmade.out" \
		2>"$TMP/handmade.err"
	cat "$TMP/handmade.err"
	show "$f"
	check_agreed "$TMP/handmade.err"
	fp=$(share "$f" 'spin_under_fp' \
		"^jit_code;$LIBC_START;main;run_jit[^;]*;jit_with_fp_\[j\];spin_under_fp(;|$| )")
	expect_ge "% of spin_under_fp complete through jit_with_fp" "$fp" 95
	nofp=$(total "$f" 'spin_under_nofp|jit_without_fp')
	cut=$(total "$f" '^jit_code;\[unknown\];jit_without_fp_\[j\](;|$| )')
	expect_ge "samples under jit_without_fp" "$nofp" 300
	# Every one: a cut is the only true answer without a frame pointer.
	expect_eq "samples under jit_without_fp cut there" "$cut" "$nofp"
	drop_maps ' jit_with_fp$'
}

# The same in a container: its own mount and pid namespaces (bookworm's
# root), where the workload is pid 1 and writes /tmp/perf-1.map in its root:
# stitch reads that map, through /proc/PID/root, under the pid from NSpid.
test_jit_handmade_code_in_container() {
	local f=$TMP/handmade-ns.folded dir fp
	dir=$(root_of bookworm)
	root_put bookworm "$JIT_CODE"
	rm -f "$dir/tmp/perf-1.map"
	"$STITCH" record -F 499 -o "$f" -- \
		unshare --mount --pid --fork --root="$dir" /stitch-tests/jit_code 2
	show "$f"
	[ -s "$dir/tmp/perf-1.map" ] || die "the workload wrote no /tmp/perf-1.map in its root"
	if [ -e /tmp/perf-1.map ] && grep -q jit_with_fp /tmp/perf-1.map; then
		die "a /tmp/perf-1.map of ours names the workload's code: the test proves nothing"
	fi
	fp=$(share "$f" 'spin_under_fp' \
		"^jit_code;_start;.*;main;run_jit[^;]*;jit_with_fp_\[j\];spin_under_fp(;|\$| )")
	expect_ge "% of spin_under_fp complete through jit_with_fp" "$fp" 95
	expect_eq "samples under jit_without_fp cut there" \
		"$(total "$f" '^jit_code;\[unknown\];jit_without_fp_\[j\](;|$| )')" \
		"$(total "$f" 'spin_under_nofp|jit_without_fp')"
	rm -f "$dir/tmp/perf-1.map"
}

# start_chain SECONDS [NODE_FLAGS...]: node running chain.js in $TMP, once it
# runs; sets $pid.  Under emulation (the kernel matrix) node starts in
# seconds and stitch in tens of them (its programs verified beside another
# guest's): node is waited for SLOWDOWN times longer and runs 5 minutes,
# killed once recorded.
start_chain() {
	start_js chain.js "$@"
}
# start_js SCRIPT SECONDS [NODE_FLAGS...]: as start_chain, any workload that says "ready".
start_js() {
	local js=$1 secs=$((SLOWDOWN > 1 ? 300 : $2)) i
	shift 2
	cd "$TMP"
	node "$@" "$JIT_JS/$js" "$secs" >"$TMP/node.out" &
	pid=$!
	cd - >/dev/null
	for i in $(seq $((100 * SLOWDOWN))); do
		grep -q ready "$TMP/node.out" && return
		sleep 0.1
	done
	die "node did not start $js in $((10 * SLOWDOWN)) s"
}

# chain_js_shares FOLDED PATH_RE: of the samples of node's main thread
# (under node::Start, which libnode exports: its workers' are not), the
# frames of chain.js (its path matching PATH_RE) outermost first: the
# wrapper, then outer, middle, inner in that order, each at one of its
# lines (above); any other order or line is a wrong frame.  Prints the % in
# order, the % in order reaching inner, and the count of samples out of
# order.
chain_js_shares() {
	PATH_RE=$2 INNER="^inner:$CHAIN_INNER\$" WRAPPER="^\\(anonymous\\):$CHAIN_WRAPPER\$" \
	awk '!/;node::Start\(int, char\*\*\);/ { next }
	     { n = $NF; all += n; k = split($0, fr, ";"); at = 0; wrong = 0; seen = 0
	       for (i = 1; i <= k; i++) {
		       if (fr[i] !~ (ENVIRON["PATH_RE"] ":[0-9]+\\)_\\[j\\]"))
			       continue
		       x = fr[i]; sub(/ .*chain\.js:/, ":", x); sub(/\)_\[j\].*/, "", x)
		       r = x ~ ENVIRON["WRAPPER"] ? 1 : x == "outer:11" ? 2 : x == "middle:10" ? 3 : 99
		       if (x ~ ENVIRON["INNER"]) r = 4
		       if (r <= at || r == 99 || (!seen && r != 1)) wrong = 1
		       at = r; seen = 1 }
	       if (wrong) bad += n; else if (seen) ok += n
	       if (!wrong && at == 4) whole += n
	     } END { print int(100 * ok / (all ? all : 1)), int(100 * whole / (all ? all : 1)), bad + 0 }' \
		"$1"
}

# node_chain_expect FOLDED: chain.js's frames never out of order, and the
# whole chain (anonymous);outer;middle;inner in >= 97% of node's main
# thread's samples (the rest: in Date.now(), called from the loop).
# Under emulation, 90%: on 5.10 (stacks copied) a guest once had 95%, the
# ring full (1,800 of 5,233 events lost) and the samples named seconds
# after they were taken, by when the code at a pc may have been freed
# (a Code whose function is not the frame's gives no inlined function).
node_chain_expect() {
	local pct whole bad
	chain_js_shares "$1" '/chain\.js' >"$1.shares"
	read -r pct whole bad <"$1.shares"
	show_outside "$1" '^node;' "$NODE_MAIN.*;$(v8_frame '\(anonymous\)' chain.js "$CHAIN_WRAPPER");$V8_CHAIN"
	expect_eq "samples with chain.js's frames out of order" "$bad" 0
	# ASan's build of stitch: 92, 93 and 96% in 3 of 12 runs of the copy
	# test (one in CI), 97-100% in the others and in every plain run.
	expect_ge "% of node's samples in (anonymous);outer;middle;inner" "$whole" \
		"$([ "$SLOWDOWN" -gt 1 ] || [ "${STITCH_TEST_SET:-}" = asan ] && echo 90 || echo 97)"
}

# Node.js started plainly, as it runs in production (issue 39): V8 keeps
# frame pointers, and each JavaScript frame keeps its JSFunction, which
# stitch names from node's heap with the layout node's own v8dbg_* metadata
# gives, and the functions TurboFan inlined into an optimized frame from its
# code's source positions and deoptimization data: the chain outer -> middle
# -> inner, each at its line (where an optimized frame is, from the same
# source positions; else where its function is defined), from node's main, in >= 97%
# of the process's samples once it runs (attached with -p), however much
# TurboFan inlined (after a few seconds, all three into the module's loop,
# on-stack replaced: "(anonymous) (chain.js:1)" alone before they were
# read).  Measured: 1,493 of 1,498.  Before issue 39: node;[unknown] in 94%,
# as without the old flags.
test_jit_node_chain_named() {
	local f=$TMP/node.folded pct pid
	start_chain 8
	"$STITCH" record -F 499 -p "$pid" -d 2.5 -o "$f" -o "$TMP/node.pb.gz"
	# --no-lines: one function, one frame, as interpreters' are.  A second
	# run on the same process: where stacks are copied (bullseye's guest),
	# node's V8 metadata and tables were read at its first event, 5.7 s
	# under emulation, every event behind it waited, and the copies' frames
	# were checked against a process seconds on (6% of the samples named
	# once, 1 run in 3), while "-d 1" sampled 6-26 s.  They are read before
	# the events are attached now (copy_unwind_prepare): at most 1.5 s of
	# samples for 1 s.
	"$STITCH" record -F 499 -p "$pid" -d 1 --no-lines -o "$TMP/node-no-lines.folded" \
		2>"$TMP/node-no-lines.err"
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	show "$f"
	node_chain_expect "$f"
	# Where inner is: its loop's lines (6, 7), from its optimized code's
	# source position table, not where it is defined (4), in >= 90% of its
	# samples (1,147 of 1,147 measured).
	expect_ge "% of inner's samples at its loop's lines" \
		"$(share "$f" "$(v8_frame inner chain.js "$CHAIN_INNER")" "$(v8_frame inner chain.js '(6|7)')")" 90
	show "$TMP/node-no-lines.folded"
	cat "$TMP/node-no-lines.err"
	expect_le "events of a 1 s recording at 499 Hz" \
		"$(sed -n 's/^stitch: \([0-9]*\) events.*/\1/p' "$TMP/node-no-lines.err")" 748
	expect_ge "% of node's samples in outer;middle;inner with --no-lines" \
		"$(share "$TMP/node-no-lines.folded" '^node;' \
		  'outer \([^;]*/chain\.js\)_\[j\];middle \([^;]*/chain\.js\)_\[j\];inner \([^;]*/chain\.js\)_\[j\]')" 90
	expect_eq "frames with a line in chain.js with --no-lines" \
		"$(total "$TMP/node-no-lines.folded" 'chain\.js:[0-9]')" 0
	# pprof: JIT frames in their own mapping, with file and line, read back as JIT frames.
	"$STITCH" report "$TMP/node.pb.gz" --focus '^outer$' -o "$TMP/node-report.folded"
	show "$TMP/node-report.folded"
	pct=$(share "$TMP/node-report.folded" '.' "$(v8_frame outer chain.js 11)")
	expect_eq "% of the focused report through outer" "$pct" 100
}

# -d is the time sampled, however long stitch takes over a stack.  Under
# -a a running node is first seen at its first event; where stacks are
# copied (bullseye's guest, TCG) its tables and V8's metadata were read
# then, 5-10 s, while the programs kept sampling: "-d 2" took 9,966 and
# 21,808 events of 2 CPUs at 499 Hz.  The programs stop at the end now
# (capture_end_ns), and the events before it are all read: node's among
# them (~900 of its spinning thread's here; not its chain's share: in
# sid's guest a turn whose new JIT code the kernel's list of mappings has
# not caught up with copies node's stacks, and their interpreted frames,
# named a turn later against frames gone by then, stay [unknown]: 12% and
# 0% of node's samples with the chain in 2 runs of 8).
test_jit_node_all_duration_kept() {
	local f=$TMP/node-all.folded pid cpus
	start_chain 8
	cpus=$(nproc)
	"$STITCH" record -a -F 499 -d 2 -o "$f" 2>"$TMP/node-all.err"
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	cat "$TMP/node-all.err"
	show "$f"
	expect_le "events of a 2 s recording of $cpus CPUs at 499 Hz" \
		"$(sed -n 's/^stitch: \([0-9]*\) events.*/\1/p' "$TMP/node-all.err")" \
		$((2 * 499 * cpus * 5 / 4))
	expect_ge "node's samples" "$(total "$f" '^node;')" 100
}

# An interpreted frame that called another is at the line of its call,
# from the bytecode offset its frame keeps (symbolize/v8_bytecode.h), in
# the kernel's walk and in copied stacks alike: calls.js run by the
# interpreter alone, the module at 25, top at 18, mid at 13 (their
# functions are defined at 1, 16 and 11, where they were named before).
# leaf, where the thread is, keeps its function's line or the line of a
# call it makes (an interrupt at its loop, 7).
test_jit_node_interpreted_call_lines() {
	local pid mode chain copy
	chain="$(v8_frame '\(anonymous\)' calls.js 25);$(v8_frame top calls.js 18);$(v8_frame mid calls.js 13);$(v8_frame leaf calls.js '(5|6|7|8)')"
	start_js calls.js 8 --no-opt --no-sparkplug
	for mode in kernel copy; do
		copy=()
		[ "$mode" = copy ] && copy=(--unwind=copy)
		"$STITCH" record -F 499 -p "$pid" -d 1 -o "$TMP/calls-$mode.folded" "${copy[@]}"
	done
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	for mode in kernel copy; do
		show "$TMP/calls-$mode.folded"
		show_outside "$TMP/calls-$mode.folded" ';leaf \(' "$chain"
		expect_ge "% of leaf's samples under its callers at their calls' lines ($mode)" \
			"$(share "$TMP/calls-$mode.folded" ';leaf \(' "$chain")" 97
	done
}

# The same named in the user-space walk of copied stacks (kernels without
# bpf_loop, and a stack the kernel hands over): >= 97% whole, as above.
test_jit_node_chain_named_copy() {
	local f=$TMP/node-copy.folded pct pid
	start_chain 6
	"$STITCH" record -F 499 --unwind=copy -p "$pid" -d 2 -o "$f"
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	show "$f"
	node_chain_expect "$f"
}

# A young JSFunction moves at V8's next scavenge, which rewrites its
# frame's slot, not the words stitch took at the event: read a second
# later (stacks counted in the kernel), its address held other objects,
# or another function.  closures.js makes a new closure at every call
# (two literals taking turns, each under a caller of its own), dead before
# any scavenge would promote it; --no-turbo-inlining keeps each in a frame
# of its own.  The kernel's walk sends each function's SharedFunctionInfo
# too, read at the event: >= 80% of the samples under runLeft and runRight
# name the closure under them (97-98% measured, 91-96% beside a build;
# read from the function a second later: 4%, 1,333 of 1,929 unnamed), and
# none names the other (13 of 1,929 did).  A copied stack, named later by
# the user-space walk, keeps a function only while the live frame still
# holds it and its code or BytecodeArray is the one copied at the event,
# which the later the fewer do (runLeft and runRight themselves half the
# time, alternating at one address; the closures 2-8 of ~950): none named
# wrong either (17 of 1,922 were when only the function's slot was
# checked; with it alone, closures made at one address in turn could
# still pass).
test_jit_node_moved_functions_named_by_event() {
	local f=$TMP/node-moved.folded c=$TMP/node-moved-copy.folded pct
	local under='run(Left|Right) \([^;]*closures\.js:[0-9]+\)_\[j\];'
	local wrong='runLeft [^;]*;workRight |runRight [^;]*;workLeft '
	in_tmp "$STITCH_BIN" record -F 499 -d "$NODE_D" -o "$f" -- \
		node --no-turbo-inlining "$JIT_JS/closures.js" "$NODE_RUN"
	show "$f"
	# ~840 alone; beside a build on both CPUs node gets half of one: 340-400.
	expect_ge "samples under runLeft or runRight" "$(total "$f" "$under")" "$(slowed 250)"
	pct=$(share "$f" "$under" 'runLeft [^;]*;workLeft |runRight [^;]*;workRight ')
	expect_ge "% of those naming their own closure under them" "$pct" 80
	expect_eq "samples naming the other closure" "$(total "$f" "$wrong")" 0
	in_tmp "$STITCH_BIN" record -F 499 --unwind=copy -d "$NODE_D" -o "$c" -- \
		node --no-turbo-inlining "$JIT_JS/closures.js" "$NODE_RUN"
	expect_ge "copied samples in closures.js" \
		"$(total "$c" '\(anonymous\) \([^;]*closures\.js:(1|5[0-4])\)_\[j\]')" \
		"$(slowed 250)"
	expect_eq "copied samples naming the other closure" "$(total "$c" "$wrong")" 0
}

# A builtin that builds no frame on its fast path (TurboFan leaves it out):
# Builtins_GrowFastSmiOrObjectElements, growing keep[] at its push, 20-25%
# of closures.js's samples once TurboFan inlined workLeft and workRight into
# runLeft and runRight.  rbp is still the optimized caller's, and a
# frame-pointer step from the builtin skipped the caller's pc, and with it
# the inlined function: runLeft;Builtins_GrowFast... in 503 of 508 such
# samples.  Both walks step to the return address the call left at sp
# instead (ku_v8_frameless_leaf, copy_unwind.c's v8_step): every such leaf
# under work(Left|Right) (480 of 492 kernel, all named ones copied), none
# directly under run(Left|Right).  Where the step could not be taken (the
# caller's code not yet in the kernel's mapping list: 1-3 samples of ~230
# beside a busy machine, and CI once showed one as runLeft;Builtins_GrowFast...),
# an [unknown] frame stands between (jit_frames.c).
test_jit_node_frameless_builtin_leaf() {
	local f=$TMP/node-frameless.folded c=$TMP/node-frameless-copy.folded mode out
	local leaf='Builtins_GrowFastSmiOrObjectElements [0-9]+$'
	local run='run(Left|Right) \([^;]*closures\.js:[0-9]+\)_\[j\];'
	local work='work(Left|Right) \([^;]*closures\.js:[0-9]+\)_\[j\];'
	for mode in kernel copy; do
		out=$f
		[ $mode = copy ] && out=$c
		in_tmp "$STITCH_BIN" record -F 499 --unwind=$mode -d "$NODE_D" -o "$out" -- \
			node "$JIT_JS/closures.js" "$NODE_RUN"
		show "$out"
		expect_ge "$mode: samples in GrowFastSmiOrObjectElements" "$(total "$out" "$leaf")" \
			"$(slowed 50)"
		expect_eq "$mode: samples with it right under runLeft or runRight" \
			"$(total "$out" "$run$leaf")" 0
	done
	expect_ge "% of the kernel walk's such samples under workLeft or workRight" \
		"$(share "$f" "$leaf" "$work$leaf")" 90
}

# Debian's own node in each release's root, as a container runs it: node
# 18 (bookworm), 20 (trixie) and 24 (sid), whose /usr/bin/node runs V8 from
# libnode.so.NNN (the v8dbg_* symbols are there; libnode is stripped, its
# v8dbg_* and node::Start are dynamic symbols).  The chain named, each
# function with its line, under the module's wrapper, in call order in
# >= 97% of node's main thread's samples, never out of order, and reaching
# inner in >= 80%, whatever TurboFan inlined (92-100% in 4 runs of each; the
# rest in builtins outer calls before it is optimized, or in Date.now();
# before the inlined functions were read: 0-10% on node 24, outer and
# middle inlined into the wrapper's loop, or middle and inner into outer).
node_in_release() {	# RELEASE MIN_INNER
	local rel=$1 f=$TMP/node-$1.folded dir pid pct i bad
	dir=$(root_of "$rel") || exit 1
	root_put "$rel" "$JIT_JS/chain.js"
	unshare --mount --root="$dir" node /stitch-tests/chain.js $((6 * SLOWDOWN)) \
		>"$TMP/node-$rel.out" &
	pid=$!
	for i in $(seq $((100 * SLOWDOWN))); do
		grep -q ready "$TMP/node-$rel.out" && break
		sleep 0.1
	done
	"$STITCH" record -F 499 -p "$pid" -d 2 -o "$f"
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	show "$f"
	# The frames of chain.js in each sample of node's main thread (under
	# node::Start, which libnode exports: its workers' are not; node 24
	# calls it MainThread), outermost first: the wrapper, then outer,
	# middle, inner in that order, each at one of its lines; any other
	# order or line is a wrong frame.
	chain_js_shares "$f" '/stitch-tests/chain\.js' >"$TMP/node-$rel.shares"
	read -r pct i bad <"$TMP/node-$rel.shares"
	expect_ge "% of node's samples with chain.js's frames in order" "$pct" 97
	expect_ge "% of node's samples reaching inner" "$i" "$2"
	expect_eq "samples with chain.js's frames out of order" "$bad" 0
}
test_jit_node_bookworm_18() { node_in_release bookworm 80; }
test_jit_node_trixie_20() { node_in_release trixie 80; }
test_jit_node_sid_24() { node_in_release sid 80; }

# With the old flags (--perf-basic-prof --interpreted-frames-native-stack)
# node writes a perf map too: a frame named from V8's heap is named once,
# never twice.  The chain as without flags (>= 60% whole); no function's
# heap name followed by its perf map name, or the other way round; perf map
# names only where the heap could not be read (a leaf in JIT code before its
# frame is built): under 5% of the samples.
test_jit_node_chain_with_flags_named_once() {
	local f=$TMP/node-flags.folded pct pid twice fn
	start_chain 6 $NODE_JIT_FLAGS
	"$STITCH" record -F 499 -p "$pid" -d 2 -o "$f"
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	show "$f"
	pct=$(share "$f" '^node;' "$NODE_MAIN.*;$V8_CHAIN")
	expect_ge "% of node's samples in outer;middle;inner" "$pct" 60
	for fn in inner middle outer; do
		twice=$(total "$f" "$fn \\([^;]*chain\\.js:[0-9]+\\)_\\[j\\];JS:[~^+*]?$fn |JS:[~^+*]?$fn [^;]*_\\[j\\];$fn \\(")
		expect_eq "samples with $fn named twice" "$twice" 0
	done
	pct=$(share "$f" '^node;' 'JS:[~^+*]?(inner|middle|outer) ')
	[ "$pct" -le 5 ] || die "$pct% of node's samples have a perf map name in the chain (> 5%)"
	drop_maps "$JIT_JS/chain.js"
}

# --unwind=check on node: the kernel's walk and the user-space one agree,
# compared as walked (V8's frames named by neither: a JIT leaf's name
# rests on its code's bytes, which the kernel reads at the event and the
# copy later), and the stacks kept name the chain.
test_jit_node_unwind_check() {
	in_tmp "$STITCH_BIN" record -F 499 --unwind=check -o "$TMP/node-check.folded" -- \
		node "$JIT_JS/chain.js" 1.5 2>"$TMP/node-check.err"
	cat "$TMP/node-check.err"
	check_agreed "$TMP/node-check.err"
	expect_grep "$TMP/node-check.folded" "$V8_CHAIN"
}

# Off-CPU stacks go through the same walk and names: node (no flag) blocked
# in Atomics.wait under waiter <- middle <- outer, the whole chain, from
# node's main, in >= 95% of waiter's off-CPU time (100% measured).
test_jit_node_offcpu_chain_named() {
	local f=$TMP/node-offcpu.folded pct
	in_tmp "$STITCH_BIN" record -e offcpu -d "$NODE_D" -o "$f" -- node "$JIT_JS/wait.js" "$NODE_RUN"
	show "$f"
	expect_ge "us off-CPU under waiter" "$(total "$f" 'waiter \(')" 1000000
	pct=$(share "$f" 'waiter \(' "$NODE_MAIN.*$V8_WAIT_CHAIN")
	expect_ge "% of waiter's off-CPU time under the named chain" "$pct" 95
}

# System call events and wall-clock profiles take the same walk and names:
# node's futex calls (Atomics.wait, 10 ms each) under waiter <- middle <-
# outer, from node's main, and in -e wall the blocked time under that chain.
test_jit_node_syscall_and_wall() {
	local f=$TMP/node-sys.folded w=$TMP/node-wall.folded chain
	chain="$NODE_MAIN.*$V8_WAIT_CHAIN"
	in_tmp "$STITCH_BIN" record -e syscall:futex -d "$NODE_D" -o "$f" -- node "$JIT_JS/wait.js" \
		"$NODE_RUN"
	show "$f"
	# ~100 waits of 10 ms in 1 s; a busy machine makes fewer.
	expect_ge "futex calls under the named chain" "$(total "$f" "$chain")" 40
	expect_ge "% of waiter's futex calls under the named chain" \
		"$(share "$f" 'waiter \(' "$chain")" 95
	in_tmp "$STITCH_BIN" record -e wall -d "$NODE_D" -o "$w" -- node "$JIT_JS/wait.js" "$NODE_RUN"
	show "$w"
	expect_ge "% of waiter's wall time under the named chain" \
		"$(share "$w" 'waiter \(' "$chain")" 95
}

# stitch snapshot names JIT frames too, marked [jit]: node's main thread
# (no flag), running its chain, caught in it in at least one of 3 snapshots
# (all 3 in each of 3 runs: inner is where it runs).
test_jit_node_snapshot() {
	local out=$TMP/node-snapshot.txt pid
	start_chain 4
	sleep 1
	"$STITCH" snapshot -p "$pid" --count 3 --interval 200ms >"$out"
	wait "$pid"
	grep -A40 "node pid $pid, tid $pid)" "$out" | head -50
	# inner, then middle, then outer: consecutive lines, each marked [jit].
	I=$(v8_line inner chain.js "$CHAIN_INNER") M=$(v8_line middle chain.js 10) O=$(v8_line outer chain.js 11) \
	awk '$0 ~ ENVIRON["I"] { i = NR }
	     $0 ~ ENVIRON["M"] && NR == i + 1 { m = NR }
	     $0 ~ ENVIRON["O"] && NR == m + 1 { n++ }
	     END { exit n ? 0 : 1 }' "$out" ||
		die "no snapshot shows inner, middle, outer as [jit] frames"
}

# stitch stalls on node's event loop (no flag): a timer callback that spins
# 100 ms in JavaScript is a stall, its samples named spinFor <- stallOnce as
# [jit] frames (under cpuUsage too, which spinFor calls), down to uv_run and
# node's main (>= 90% of the stalls' samples).
test_jit_node_stalls() {
	local out=$TMP/node-stalls.txt n pct
	in_tmp "$STITCH_BIN" stalls -- node "$JIT_JS/stall.js" 2 >"$out"
	head -40 "$out"
	n=$(grep -c '^stall: .*comm=node' "$out" || true)
	expect_ge "stalls" "$n" 5
	# A stack's spinFor, wherever it is (the leaf may be what it calls:
	# cpuUsage, a JavaScript frame of node's own), right above stallOnce.
	# spinFor is defined at line 7, its body 8-13.  Past the first stall,
	# ~100 ms after node's start: its stacks often have no JavaScript name
	# at all ([unknown] over the interpreter's trampolines, 46-52 of ~55
	# samples in 5 runs of 8 on an idle host, 2026-12-08's binary and the
	# one before alike), unknown rather than wrong; not explained yet (a
	# leaf in JIT code not yet in the kernel's list of mappings would be
	# copied, and named at the stall's end against frames gone by then).
	pct=$(S=$(v8_line spinFor stall.js '([7-9]|1[0-3])') O=$(v8_line stallOnce stall.js 15) \
	      awk '/^stall: / { stalls++ } stalls < 2 { next }
		   /^    [0-9]+ of [0-9]+ samples:$/ { n = $1; all += n; counted = 0; next }
		   $0 ~ ENVIRON["S"] { first = NR }
		   !counted && NR == first + 1 && $0 ~ ENVIRON["O"] { hit += n; counted = 1 }
		   END { print all ? int(100 * hit / all) : 0 }' "$out")
	expect_ge "% of the stalls' samples in spinFor <- stallOnce" "$pct" 90
	grep -q '^        uv_run ' "$out" || die "no stack reaches uv_run"
}

# stitch latency: slow futex calls (node's Atomics.wait, 10 ms each; no
# flag) broken down to the JavaScript that made them, waiter <- middle <-
# outer as [jit] frames, named while node runs (the breakdown merges
# processes and pids).
test_jit_node_latency() {
	local out=$TMP/node-latency.txt
	in_tmp "$STITCH_BIN" latency -e syscall:futex --threshold 5ms -d "$NODE_D" -- \
		node "$JIT_JS/wait.js" "$NODE_RUN" >"$out"
	grep -A3 'off-CPU in .*waiter (wait.js:5)' "$out" || die "no breakdown names waiter"
	W=$(v8_line waiter wait.js 5) M=$(v8_line middle wait.js 6) O=$(v8_line outer wait.js 7) \
	awk '$0 ~ ENVIRON["W"] { w = NR }
	     $0 ~ ENVIRON["M"] && NR == w + 1 { m = NR }
	     $0 ~ ENVIRON["O"] && NR == m + 1 { n++ }
	     END { exit n ? 0 : 1 }' "$out" ||
		die "no breakdown shows waiter, middle, outer as [jit] frames"
}

# The JVM's main thread under the hot method, from JavaMain down through
# JavaCalls::call_helper into the call stub and Hot.main's frame (its line:
# the call's, 30, as the frame saved it) to Hot.hotLoop, every frame named from
# the JVM's own metadata (vmStructs: its code cache, methods and line
# tables; symbolize/hotspot_names.h).
JAVA_MAIN='^java;clone3;start_thread;ThreadJavaMain;JavaMain;jni_CallStaticVoidMethod;'
JAVA_HOT='JavaCalls::call_helper\(JavaValue\*, [^;]*;StubRoutines \(1\)_\[j\];Hot\.main \(Hot\.java:30\)_\[j\];Hot\.hotLoop( \(Hot\.java(:[0-9]+)?\))?_\[j\]( |;)'

# A JVM started with no flag at all: its compiled frames have no frame
# pointer and no CFI, only their size in their nmethod; the kernel hands
# its stacks to the user-space walk, which steps them by that size.  The
# hot method, named, on its whole stack, in >= 80% of the JVM's samples,
# as the flags' perf map gave (92% here; the rest: the JVM's start, C1/C2
# compiling), and in every sample at the loop's call (Hot.java:30) but
# those stitch marks.  Under emulation the JVM's start and its class
# loading take seconds of the run (74-79% in Java code in the kernel
# matrix's guests): there the count and the exactness are asked.
test_jit_java_plain() {
	local f=$TMP/javap.folded
	mkdir -p "$TMP/java"
	javac -d "$TMP/java" "$JIT_JS/Hot.java"
	"$STITCH" record -F 499 -o "$f" -- java -cp "$TMP/java" Hot "$SLOWDOWN" 2>"$TMP/javap.err"
	cat "$TMP/javap.err"
	show "$f"
	expect_ge "samples in Hot.hotLoop, complete" "$(total "$f" "$JAVA_MAIN.*;$JAVA_HOT")" \
		"$(slowed 400)"
	expect_ge "% of samples at Hot.main's call of hotLoop so" \
		"$(share "$f" 'Hot\.main \(Hot\.java:30\)' "$JAVA_MAIN.*;$JAVA_HOT")" 99
	[ "$SLOWDOWN" -gt 1 ] ||
		expect_ge "% of the JVM's samples in Hot.hotLoop, complete" \
			"$(share "$f" '^[^;]*;' "$JAVA_MAIN.*;$JAVA_HOT")" 80
	expect_eq "HotSpot said it could not read" "$(grep -c 'HotSpot' "$TMP/javap.err")" 0
	expect_grep "$f" '^C[12] CompilerThre;clone3;start_thread;'
}

# Where the JVM's main thread sleeps (Hot.nap's Thread.sleep), off the CPU:
# the Java frames between the call stub and the JVM's own JVM_Sleep, their
# lines the calls', in >= 80% of its blocked time; and a snapshot of a JVM
# running Hot.hotLoop names the same frames (its stacks are copies too).
test_jit_java_offcpu_and_snapshot() {
	local f=$TMP/javao.folded pid
	mkdir -p "$TMP/java"
	javac -d "$TMP/java" "$JIT_JS/Hot.java"
	"$STITCH" record -e offcpu -o "$f" -- java -cp "$TMP/java" Hot "$SLOWDOWN" nap
	show "$f"
	expect_ge "% of main's blocked time in Hot.nap's sleep, named" \
		"$(share "$f" "${JAVA_MAIN}" "${JAVA_MAIN}.*;StubRoutines \\(1\\)_\\[j\\];Hot\\.main \\(Hot\\.java:21\\)_\\[j\\];Hot\\.nap \\(Hot\\.java:16\\)_\\[j\\];java\\.lang\\.Thread\\.sleep( \\(Thread\\.java\\))?_\\[j\\];JVM_Sleep;")" 80
	java -cp "$TMP/java" Hot $((3 * SLOWDOWN)) &
	pid=$!
	sleep $((2 * SLOWDOWN))
	"$STITCH" snapshot -p "$pid" -o "$TMP/javas.txt"
	wait "$pid"
	cat "$TMP/javas.txt"
	# Line 29 is the loop's test, its CPU clock read: where a busy machine
	# preempts main (at that system call's return; 1 snapshot in 4 beside
	# make -j2), and as true a place as the call at 30.
	expect_grep "$TMP/javas.txt" '^ +Hot\.main \[jit\] \(Hot\.java:(29|30)\)$'
	expect_grep "$TMP/javas.txt" '^ +StubRoutines \(1\) \[jit\]$'
}

# With the flags of perf's way (-XX:+PreserveFramePointer, the perf map
# dumped at exit): the same frames, named once, from the JVM's metadata;
# the perf map's name ("double Hot.hotLoop(int)") only for a frame that
# was not (a sample before stitch had read the JVM's tables), never both.
test_jit_java_hot_method() {
	local f=$TMP/java.folded
	mkdir -p "$TMP/java"
	javac -d "$TMP/java" "$JIT_JS/Hot.java"
	"$STITCH" record -F 499 -o "$f" -- java $JAVA_JIT_FLAGS -cp "$TMP/java" Hot "$SLOWDOWN"
	show "$f"
	expect_ge "% of main's samples in Java code in Hot.hotLoop, complete" \
		"$(share "$f" "$JAVA_MAIN.*JavaCalls::call_helper" "$JAVA_MAIN.*;$JAVA_HOT")" 80
	expect_eq "stacks naming Hot.hotLoop twice" \
		"$(total "$f" 'Hot\.hotLoop( \(Hot\.java[:0-9]*\))?_\[j\];.*double Hot\.hotLoop\(int\)|double Hot\.hotLoop\(int\).*;Hot\.hotLoop( \(Hot\.java[:0-9]*\))?_\[j\]')" 0
	expect_grep "$f" '^C[12] CompilerThre;clone3;start_thread;'
	drop_maps 'Hot\.hotLoop'
}

# The JVMs Debian ships besides the host's 17, each in its release's root as
# a container runs it, started with no flag: OpenJDK 11 (bullseye: its
# growable arrays' length in GenericGrowableArray, a class's source file in
# InstanceKlass), 21 (trixie: ConstMethodFlags, its streams UNSIGNED5 with
# no zero byte) and 25 (trixie: blobs of kinds, offsets from the blob).
# Each: Hot.hotLoop under Hot.main's call at line 30, down to the launcher's
# thread.  The root needs its /proc: the java launcher finds libjli.so by
# $ORIGIN, which ld.so reads from /proc/self/exe.
JAVA_ROOT_HOT='^java;.*;ThreadJavaMain;JavaMain;(invokeStaticMainWithArgs;)?jni_CallStaticVoidMethod;.*;JavaCalls::call_helper\([^;]*;StubRoutines \([a-z0-9 ]+\)_\[j\];Hot\.main \(Hot\.java:30\)_\[j\];Hot\.hotLoop( \(Hot\.java(:[0-9]+)?\))?_\[j\]( |;)'
test_jit_java_releases() {
	local spec rel v dir f
	mkdir -p "$TMP/java11"
	javac --release 11 -d "$TMP/java11" "$JIT_JS/Hot.java"
	for spec in bullseye:11 trixie:21 trixie:25; do
		rel=${spec%:*} v=${spec#*:} f=$TMP/java$v.folded
		root_put "$rel" "$TMP/java11/Hot.class"
		dir=$(root_of "$rel") || exit 1
		"$STITCH" record -F 499 -o "$f" -- unshare --mount --pid --fork --mount-proc --root="$dir" \
			"/usr/lib/jvm/java-$v-openjdk-amd64/bin/java" -cp /stitch-tests Hot $((2 * SLOWDOWN)) \
			2>"$TMP/java$v.err"
		cat "$TMP/java$v.err"
		show "$f" 2 | cut -c1-60,240-400
		expect_eq "OpenJDK $v: HotSpot said it could not read" "$(grep -c 'HotSpot' "$TMP/java$v.err")" 0
		expect_ge "OpenJDK $v: samples in Hot.hotLoop, complete" "$(total "$f" "$JAVA_ROOT_HOT")" \
			"$(slowed 600)"
		expect_ge "OpenJDK $v: % of samples at Hot.main's call of hotLoop so" \
			"$(share "$f" 'Hot\.main \(Hot\.java:30\)' "$JAVA_ROOT_HOT")" 99
	done
}

# Two classes of one shape, Alpha and Gamma, loaded in turn by loaders
# thrown away and unloaded (tests/workloads/jit/Reload.java): the JVM puts
# each where the last one was (its unload log shows one Klass address for
# both), its methods too.  Samples under Reload.viaGamma are named
# Gamma.spin and under viaAlpha Alpha.spin, never the other: all 828 of
# viaGamma's were Alpha.spin when a method, once named, was kept by its
# address.  With the JVM's perf data, its count of unloaded classes says
# when to read methods again, and which stacks were taken before the last
# unloading (not named: ~410 of ~890 here, a class unloaded every ~55 ms):
# none wrong.  Without it (-XX:-UsePerfData) each stack reads its methods
# again, and a sample whose class was replaced before it was read can
# still be named as the next one: 0 to 2 of ~870 in 6 runs, asked here as
# at most 1% (symbolize/hotspot_names.c says why it is not 0).
test_jit_java_classes_reloaded_named_anew() {
	local flag f log n=0 named wrong
	mkdir -p "$TMP/reload" "$TMP/reload-cls"
	javac -d "$TMP/reload" "$JIT_JS/Reload.java" &&
		javac -d "$TMP/reload-cls" "$JIT_JS/Alpha.java" "$JIT_JS/Gamma.java" || exit 1
	for flag in -XX:+UsePerfData -XX:-UsePerfData; do
		n=$((n + 1)) f=$TMP/reload$n.folded log=$TMP/reload$n.log
		"$STITCH" record -F 499 -o "$f" -- java "$flag" "-Xlog:class+unload:file=$log" \
			-cp "$TMP/reload" Reload $((3 * SLOWDOWN)) "$TMP/reload-cls" 2>"$TMP/reload.err"
		cat "$TMP/reload.err"
		show "$f" 2 | cut -c1-60,250-520
		expect_ge "$flag: addresses both classes were unloaded from" \
			"$(sed -nE 's/.*unloading class (Alpha|Gamma) (0x[0-9a-f]+).*/\1 \2/p' "$log" |
				sort -u | awk '{ n[$2]++ } END { for (a in n) if (n[a] == 2) k++; print k + 0 }')" 1
		expect_ge "$flag: samples of Alpha.spin under viaAlpha" \
			"$(total "$f" ';Reload\.viaAlpha [^;]*;.*;Alpha\.spin ')" "$(slowed 100)"
		expect_ge "$flag: samples of Gamma.spin under viaGamma" \
			"$(total "$f" ';Reload\.viaGamma [^;]*;.*;Gamma\.spin ')" "$(slowed 100)"
		named=$(total "$f" ';Reload\.via(Alpha|Gamma) [^;]*;.*;(Alpha|Gamma)\.spin ')
		wrong=$(total "$f" ';Reload\.via(Alpha [^;]*;.*;Gamma|Gamma [^;]*;.*;Alpha)\.spin ')
		grep -E ';Reload\.via(Alpha [^;]*;.*;Gamma|Gamma [^;]*;.*;Alpha)\.spin ' "$f" |
			sed -E 's/^.*;Reload\.once[^;]*;//' | cut -c1-300
		if [ "$flag" = -XX:+UsePerfData ]; then
			expect_eq "$flag: samples named the other class's method" "$wrong" 0
		else
			expect_ge "$flag: samples named the other class's method, at most 1% of $named" \
				$((named / 100)) "$wrong"
		fi
	done
}

# A process that fakes libjvm's tables (tests/workloads/jit/fake_jvm.c):
# a segment map that never reaches a block, 65,536-word and 2-word frames,
# 64 KiB names, a Method pointing at itself, and one honest stub blob.
# Recorded machine-wide beside chain: stitch reads its tables (the stub is
# named, so they were), names none of its lies, and stays whole: chain's
# stacks complete, no JIT frame outside the fake, stitch ending on time.
# Before, a table ending near the end of its mapping (as these do) was
# never read: its last chunk was read entry by entry up to a fault.
test_jit_hostile_jvm_own_frames_only() {
	local f=$TMP/hostile.folded st fj ch
	workload gcc -O2 -g -Wall -Wextra -Werror -rdynamic -pthread -o "$W/fake_jvm" \
		tests/workloads/jit/fake_jvm.c || exit 1
	# Both outlive any record, and are stopped after it (CI's sanitizer
	# pass once took 7 s for its 3: chain's 8 s had ended, and its kill
	# failed the test).
	"$W/fake_jvm" 120 &
	fj=$!
	track_pid "$fj"
	"$CHAIN" spin 120 &
	ch=$!
	track_pid "$ch"
	sleep 1
	st=$(date +%s)
	timeout 120 "$STITCH" record -a -F 99 -d $((3 * SLOWDOWN)) -o "$f" 2>"$TMP/hostile.err" ||
		die "record: exit $? ($(tail -n 3 "$TMP/hostile.err"))"
	echo "record took $(($(date +%s) - st)) s for $((3 * SLOWDOWN)) s"
	kill "$ch"
	wait "$ch" || true
	kill -0 "$fj" || die "the fake JVM is gone"
	kill "$fj"
	wait "$fj" || true
	cat "$TMP/hostile.err"
	grep -E '^(loop|huge|small|self|stub);' "$f" | cut -c1-300
	# Its samples are the stub thread's share of two CPUs beside five
	# others: 87 here alone, 48 beside a TCG guest.  What is asked is that
	# they are named, each of them, not how many the scheduler gave.
	expect_ge "samples of the stub's thread" "$(total "$f" '^stub;')" "$(slowed 20)"
	expect_ge "% of the stub thread's samples named" \
		"$(share "$f" '^stub;' '^stub;.*StubRoutines \(fake\)_\[j\]')" 95
	expect_ge "samples of the lying threads" "$(total "$f" '^(loop|huge|small|self);')" \
		"$(slowed 200)"
	expect_eq "JIT frames of the lying threads" \
		"$(total "$f" '^(loop|huge|small|self);.*_\[j\]')" 0
	expect_eq "JIT frames outside the fake JVM" "$(total "$f" '^(chain|stitch);.*_\[j\]')" 0
	expect_ge "% of chain's samples in burn complete" \
		"$(share "$f" '^chain;.*;burn ' "$COMPLETE$MAIN_ABC")" 95
}
