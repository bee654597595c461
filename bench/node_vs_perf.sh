#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Node's JavaScript call chain named, stitch against perf, on the same
# process in the same run (issue 39's check): node runs
# bench/workloads/flat.js (loop -> f1 -> ... -> f17, each too big for
# TurboFan to inline, so the chain is the same whatever node has optimized
# by then) with --perf-basic-prof --interpreted-frames-native-stack, so
# that perf can name its frames (frame pointers, and the perf map); 2 s
# into it, `perf record -g` and `stitch record` sample it at once, each at
# HZ, for SECONDS.  For each, the share of node's main thread's samples
# whose stack names the whole chain, f1 to f17: perf from its perf map
# (`JS:*f17 ...`), stitch from node's heap (`f17 (flat.js:N)`) where it
# can read it, else from the same perf map.  Then the same workload started
# with no flag, where perf has nothing to name it by: stitch alone.  RUNS
# runs; each share per run.
#
#   bench/node_vs_perf.sh     (HZ=499 SECONDS_=3 RUNS=3; as root)
set -u
cd "$(dirname "$0")/.."

HZ=${HZ:-499}
SECS=${SECONDS_:-3}
RUNS=${RUNS:-3}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start nodeperf

command -v perf >/dev/null || { echo "bench: needs perf (apt-get install linux-perf)" >&2; exit 1; }
FLAT_JS=$(realpath bench/workloads/flat.js)

start_node() {	# FLAGS... -> pid in $T/pid, once chain.js runs
	local i
	(cd "$T" && exec node "$@" "$FLAT_JS" $((SECS + 8)) >"$T/node.out") &
	echo $! >"$T/pid"
	sleep 2
}

# % of the main thread's samples (perf script) naming f1 .. f17.
perf_share() {	# PERF_DATA PID
	perf script -i "$1" -F tid,ip,sym 2>/dev/null | awk -v pid="$2" '
		function done() { if (tid == pid) { all++; if (n == 17) hit++ } }
		/^ *[0-9]+ *$/ { done(); tid = $1; n = 0; delete seen; next }
		match($0, / JS:[~^+*]?f[0-9]+ /) {
			f = substr($0, RSTART + 1, RLENGTH - 2); sub(/^JS:[~^+*]?/, "", f)
			if (!(f in seen)) { seen[f] = 1; n++ } }
		END { done(); printf "%d\n", all ? 100 * hit / all : 0 }'
}

# % of the main thread's samples (stitch's folded stacks) naming f1 .. f17.
stitch_share() {	# FOLDED
	awk '/;node::Start\(int, char\*\*\);/ { all += $NF; n = 0
		for (i = 1; i <= 17; i++)
			if ($0 ~ ("(;f" i " \\(|;JS:[~^+*]?f" i " )")) n++
		if (n == 17) hit += $NF }
	     END { printf "%d\n", all ? 100 * hit / all : 0 }' "$1"
}

echo "bench: node $(node --version), flat.js, $HZ Hz, $SECS s, $(uname -r)"
printf '| %3s | %22s | %24s | %22s |\n' run "perf (perf map) %" "stitch (same process) %" "stitch, node plain %"
printf '|%s|\n' "-----|------------------------|--------------------------|------------------------"
for r in $(seq "$RUNS"); do
	start_node --perf-basic-prof --interpreted-frames-native-stack
	pid=$(cat "$T/pid")
	perf record -q -F "$HZ" -g -p "$pid" -o "$T/perf.data" -- sleep "$SECS" 2>/dev/null &
	"$STITCH" record -F "$HZ" -p "$pid" -d "$SECS" -o "$T/flags.folded" 2>/dev/null
	wait %1 2>/dev/null
	p=$(perf_share "$T/perf.data" "$pid")
	s=$(stitch_share "$T/flags.folded")
	kill "$pid" 2>/dev/null
	wait 2>/dev/null
	rm -f "/tmp/perf-$pid.map"
	start_node
	pid=$(cat "$T/pid")
	"$STITCH" record -F "$HZ" -p "$pid" -d "$SECS" -o "$T/plain.folded" 2>/dev/null
	n=$(stitch_share "$T/plain.folded")
	kill "$pid" 2>/dev/null
	wait 2>/dev/null
	printf '| %3s | %22s | %24s | %22s |\n' "$r" "$p" "$s" "$n"
done
