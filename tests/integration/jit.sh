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

# Node.js (V8 keeps frame pointers; --interpreted-frames-native-stack gives
# interpreted functions a frame of their own code): the chain outer ->
# middle -> inner named, from node's main down, in >= 80% of the process's
# samples once it runs (attached with -p: its mappings read from /proc; 99%
# measured in 3 runs of ~800 samples, load average 8-11 on 2 CPUs; over a
# whole run of 4 s, startup included, 90-91%).  Before issue 30:
# node;[unknown] in 94%.
test_jit_node_chain_named() {
	local f=$TMP/node.folded pct pid i
	cd "$TMP"
	node $NODE_JIT_FLAGS "$JIT_JS/chain.js" 8 >"$TMP/node.out" &
	pid=$!
	cd - >/dev/null
	for i in $(seq 100); do
		grep -q ready "$TMP/node.out" && break
		sleep 0.1
	done
	"$STITCH" record -F 499 -p "$pid" -d 2.5 -o "$f" -o "$TMP/node.pb.gz"
	kill "$pid"
	wait "$pid" || true
	show "$f"
	# Whole, or outer alone once TurboFan has inlined middle and inner into
	# it (which V8's deoptimization data would tell, not read yet).  When it
	# does varies with the run: 57 to 259 samples of ~1,250 in 7 runs, the
	# whole chain's share 78% (a CI run under ASan, against the 80 asked
	# then) to 99%; whole or inlined, 99% in each of 6 more.  Any other
	# stack is a naming failure.
	pct=$(share "$f" '^node;' \
		"$NODE_MAIN.*$(js_frame outer chain.js);$(js_frame middle chain.js);$(
			js_frame inner chain.js)")
	expect_ge "% of node's samples in outer;middle;inner" "$pct" 60
	pct=$(share "$f" '^node;' \
		"$NODE_MAIN.*$(js_frame outer chain.js)(;$(js_frame middle chain.js);$(
			js_frame inner chain.js)|(;[^;]*_\\[k\\])* [0-9]+$)")
	expect_ge "% of node's samples in the chain, or in outer with it inlined" "$pct" 97
	# pprof: JIT frames in their own mapping, read back as JIT frames; --focus on one.
	"$STITCH" report "$TMP/node.pb.gz" --focus 'JS:.*inner' -o "$TMP/node-report.folded"
	show "$TMP/node-report.folded"
	pct=$(share "$TMP/node-report.folded" '.' "$(js_frame inner chain.js)")
	expect_eq "% of the focused report through inner" "$pct" 100
	drop_maps "$JIT_JS/chain.js"
}

# --unwind=check on node: the kernel's walk and the user-space one agree
# (0 of 155-421 stacks differed, in each of 8 runs).
test_jit_node_unwind_check() {
	in_tmp "$STITCH_BIN" record -F 499 --unwind=check -o "$TMP/node-check.folded" -- \
		node $NODE_JIT_FLAGS "$JIT_JS/chain.js" 1.5 2>"$TMP/node-check.err"
	cat "$TMP/node-check.err"
	check_agreed "$TMP/node-check.err"
	expect_grep "$TMP/node-check.folded" "$(js_frame inner chain.js)"
	drop_maps "$JIT_JS/chain.js"
}

# Off-CPU stacks go through the same walk and names: node blocked in
# Atomics.wait under waiter <- middle <- outer, the whole chain, from node's
# main, in >= 95% of waiter's off-CPU time (100% measured).
test_jit_node_offcpu_chain_named() {
	local f=$TMP/node-offcpu.folded pct
	in_tmp "$STITCH_BIN" record -e offcpu -o "$f" -- node $NODE_JIT_FLAGS "$JIT_JS/wait.js" 1.5
	show "$f"
	expect_ge "us off-CPU under waiter" "$(total "$f" 'JS:[~^+*]?waiter ')" 1000000
	pct=$(share "$f" 'JS:[~^+*]?waiter ' \
		"$NODE_MAIN.*$(js_frame outer wait.js);$(js_frame middle wait.js);$(
			js_frame waiter wait.js);")
	expect_ge "% of waiter's off-CPU time under the named chain" "$pct" 95
	drop_maps "$JIT_JS/wait.js"
}

# System call events and wall-clock profiles take the same walk and names:
# node's futex calls (Atomics.wait, 10 ms each) under waiter <- middle <-
# outer, from node's main, and in -e wall the blocked time under that chain.
test_jit_node_syscall_and_wall() {
	local f=$TMP/node-sys.folded w=$TMP/node-wall.folded chain
	chain="$NODE_MAIN.*$(js_frame outer wait.js);$(js_frame middle wait.js);$(js_frame waiter wait.js);"
	in_tmp "$STITCH_BIN" record -e syscall:futex -o "$f" -- node $NODE_JIT_FLAGS "$JIT_JS/wait.js" 1
	show "$f"
	# ~100 waits of 10 ms in 1 s; a busy machine makes fewer.
	expect_ge "futex calls under the named chain" "$(total "$f" "$chain")" 40
	expect_ge "% of waiter's futex calls under the named chain" \
		"$(share "$f" 'JS:[~^+*]?waiter ' "$chain")" 95
	in_tmp "$STITCH_BIN" record -e wall -o "$w" -- node $NODE_JIT_FLAGS "$JIT_JS/wait.js" 1
	show "$w"
	expect_ge "% of waiter's wall time under the named chain" \
		"$(share "$w" 'JS:[~^+*]?waiter ' "$chain")" 95
	drop_maps "$JIT_JS/wait.js"
}

# stitch snapshot names JIT frames too, marked [jit]: node's main thread,
# running its chain, caught in it in at least one of 3 snapshots (all 3 in
# each of 3 runs: inner is where it runs).
test_jit_node_snapshot() {
	local out=$TMP/node-snapshot.txt pid
	cd "$TMP"
	node $NODE_JIT_FLAGS "$JIT_JS/chain.js" 4 >/dev/null &
	pid=$!
	cd - >/dev/null
	sleep 1.5
	"$STITCH" snapshot -p "$pid" --count 3 --interval 200ms >"$out"
	wait "$pid"
	grep -A40 "node pid $pid, tid $pid)" "$out" | head -50
	# inner, then middle, then outer: consecutive lines, each marked [jit].
	awk '/JS:[~^+*]?inner .*chain\.js:[0-9:]+ \[jit\]$/ { i = NR }
	     /JS:[~^+*]?middle .*chain\.js:[0-9:]+ \[jit\]$/ && NR == i + 1 { m = NR }
	     /JS:[~^+*]?outer .*chain\.js:[0-9:]+ \[jit\]$/ && NR == m + 1 { n++ }
	     END { exit n ? 0 : 1 }' "$out" ||
		die "no snapshot shows inner, middle, outer as [jit] frames"
	drop_maps "$JIT_JS/chain.js"
}

# stitch stalls on node's event loop: a timer callback that spins 100 ms in
# JavaScript is a stall, its samples named spinFor <- stallOnce as [jit]
# frames, down to uv_run and node's main (>= 90% of the stalls' samples;
# 97-99% measured in 3 runs of 9-11 stalls).
test_jit_node_stalls() {
	local out=$TMP/node-stalls.txt n pct
	in_tmp "$STITCH_BIN" stalls -- node $NODE_JIT_FLAGS "$JIT_JS/stall.js" 2 >"$out"
	head -40 "$out"
	n=$(grep -c '^stall: .*comm=node' "$out" || true)
	expect_ge "stalls" "$n" 5
	pct=$(awk '/^    [0-9]+ of [0-9]+ samples:$/ { n = $1; all += n; at = NR; next }
		   NR == at + 1 && /JS:[~^+*]?spinFor .*stall\.js:[0-9:]+ \[jit\]$/ { first = NR }
		   NR == at + 2 && NR == first + 1 &&
		   /JS:[~^+*]?stallOnce .*stall\.js:[0-9:]+ \[jit\]$/ { hit += n }
		   END { print all ? int(100 * hit / all) : 0 }' "$out")
	expect_ge "% of the stalls' samples in spinFor <- stallOnce" "$pct" 90
	grep -q '^        uv_run ' "$out" || die "no stack reaches uv_run"
	drop_maps "$JIT_JS/stall.js"
}

# stitch latency: slow futex calls (node's Atomics.wait, 10 ms each) broken
# down to the JavaScript that made them, waiter <- middle <- outer as [jit]
# frames, named while node runs (the breakdown merges processes and pids).
test_jit_node_latency() {
	local out=$TMP/node-latency.txt
	in_tmp "$STITCH_BIN" latency -e syscall:futex --threshold 5ms -- \
		node $NODE_JIT_FLAGS "$JIT_JS/wait.js" 1 >"$out"
	grep -A3 'off-CPU in .*JS:[~^+*]\?waiter ' "$out" || die "no breakdown names waiter"
	awk '/JS:[~^+*]?waiter .*wait\.js:[0-9:]+ \[jit\]$/ { w = NR }
	     /JS:[~^+*]?middle .*wait\.js:[0-9:]+ \[jit\]$/ && NR == w + 1 { m = NR }
	     /JS:[~^+*]?outer .*wait\.js:[0-9:]+ \[jit\]$/ && NR == m + 1 { n++ }
	     END { exit n ? 0 : 1 }' "$out" ||
		die "no breakdown shows waiter, middle, outer as [jit] frames"
	drop_maps "$JIT_JS/wait.js"
}

# The JVM with -XX:+PreserveFramePointer, its perf map dumped at exit (so
# read after the process is gone): the hot method, named, with its stack
# complete below it to the Java main thread's start, in >= 80% of the
# process's samples (95-96% measured in 3 runs at load average 11 on 2 CPUs,
# the loop timed by CPU time; the rest: JVM start, C1/C2 compiling).
# Threads keep the names the JVM gives them.
test_jit_java_hot_method() {
	local f=$TMP/java.folded pct main hot
	javac -d "$TMP/java" "$JIT_JS/Hot.java"
	"$STITCH" record -F 499 -o "$f" -- java $JAVA_JIT_FLAGS -cp "$TMP/java" Hot 2
	show "$f"
	main='^java;clone3;start_thread;ThreadJavaMain;JavaMain;jni_CallStaticVoidMethod;'
	hot='JavaCalls::call_helper\(JavaValue\*, [^;]*;([^;]*_\[j\];)*double Hot\.hotLoop\(int\)_\[j\]( |;)'
	pct=$(share "$f" '^[^;]*;' "$main.*;$hot")
	expect_ge "% of the JVM's samples in Hot.hotLoop, complete" "$pct" 80
	expect_grep "$f" '^C[12] CompilerThre;clone3;start_thread;'
	drop_maps 'Hot\.hotLoop'
}
