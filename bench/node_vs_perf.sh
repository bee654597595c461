#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Node's JavaScript call chain named, stitch against perf, on the same
# process in the same run (issue 39's check), on two workloads:
#   flat:    bench/workloads/flat.js (loop -> f1 -> ... -> f17, each too big
#            for TurboFan to inline, so the chain is the same whatever node
#            has optimized by then);
#   inlined: tests/workloads/jit/chain.js (outer -> middle -> inner, small:
#            TurboFan inlines them into one another and into the module's
#            loop within seconds, as it does a real program's small functions).
# Node runs each with --perf-basic-prof --interpreted-frames-native-stack,
# so that perf can name its frames (frame pointers, and the perf map); 2 s
# into it, `perf record -g` and `stitch record` sample it at once, each at
# HZ, for SECONDS.  For each, the share of node's main thread's samples
# whose stack names the whole chain: perf from its perf map (`JS:*f17
# ...`), stitch from node's heap (`f17 (flat.js:N)`, and the functions
# inlined into an optimized frame) where it can read it, else from the same
# perf map.  Then the same workload started with no flag, where perf has
# nothing to name it by: stitch alone.  RUNS runs of each; each share per run.
#
#   bench/node_vs_perf.sh     (HZ=499 SECONDS_=3 RUNS=3 WORKLOADS="flat inlined"; as root)
set -u
cd "$(dirname "$0")/.."

HZ=${HZ:-499}
SECS=${SECONDS_:-3}
RUNS=${RUNS:-3}
WORKLOADS=${WORKLOADS:-flat inlined}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start nodeperf

command -v perf >/dev/null || { echo "bench: needs perf (apt-get install linux-perf)" >&2; exit 1; }
FLAT_JS=$(realpath bench/workloads/flat.js)
CHAIN_JS=$(realpath tests/workloads/jit/chain.js)

start_node() {	# FLAGS... -> pid in $T/pid, 2 s into $JS
	local i
	(cd "$T" && exec node "$@" "$JS" $((SECS + 8)) >"$T/node.out") &
	echo $! >"$T/pid"
	sleep 2
}

# % of the main thread's samples (perf script) naming every function of $NAMES.
perf_share() {	# PERF_DATA PID
	perf script -i "$1" -F tid,ip,sym 2>/dev/null | awk -v pid="$2" -v names="$NAMES" '
		BEGIN { want = split(names, w, " "); for (i = 1; i <= want; i++) wanted[w[i]] = 1 }
		function done() { if (tid == pid) { all++; if (n == want) hit++ } }
		/^ *[0-9]+ *$/ { done(); tid = $1; n = 0; delete seen; next }
		match($0, / JS:[~^+*]?[A-Za-z0-9_]+ /) {
			f = substr($0, RSTART + 1, RLENGTH - 2); sub(/^JS:[~^+*]?/, "", f)
			if ((f in wanted) && !(f in seen)) { seen[f] = 1; n++ } }
		END { done(); printf "%d\n", all ? 100 * hit / all : 0 }'
}

# % of the main thread's samples (stitch's folded stacks) naming every function of $NAMES.
stitch_share() {	# FOLDED
	awk -v names="$NAMES" '
		BEGIN { want = split(names, w, " ") }
		/;node::Start\(int, char\*\*\);/ { all += $NF; n = 0
		for (i = 1; i <= want; i++)
			if ($0 ~ ("(;" w[i] " \\(|;JS:[~^+*]?" w[i] " )")) n++
		if (n == want) hit += $NF }
	     END { printf "%d\n", all ? 100 * hit / all : 0 }' "$1"
}

echo "bench: node $(node --version), $HZ Hz, $SECS s, $(uname -r)"
for wl in $WORKLOADS; do
	case $wl in
	flat) JS=$FLAT_JS NAMES="f1 f2 f3 f4 f5 f6 f7 f8 f9 f10 f11 f12 f13 f14 f15 f16 f17" ;;
	inlined) JS=$CHAIN_JS NAMES="outer middle inner" ;;
	*) echo "bench: no workload $wl (flat, inlined)" >&2; exit 1 ;;
	esac
	echo
	echo "$wl: $(basename "$JS"), the chain $NAMES"
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
done
