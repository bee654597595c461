#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Tracer CPU per sample, stitch against `perf record --call-graph dwarf`
# followed by `perf script` (perf's way to FP-less user stacks: it copies
# 8 KiB of stack per sample, and perf script unwinds and names them), on
# the same workload in one run: tests/workloads/recurse.c (40-deep
# recursion passing a counter down, so the stack changes at every sample;
# -O2, no frame pointers), one process pinned to each CPU, both traced
# with -p at HZ.  Each tool runs for SHORT and LONG seconds, RUNS times,
# alternating; its CPU is
#   stitch  task-clock of `stitch record` (user + system, to a symbolized
#           folded file) + the BPF time its programs ran (--stats)
#   perf    task-clock of `perf record` + task-clock of `perf script`
# Steady cost per sample = (median CPU at LONG - at SHORT) / (samples at
# LONG - at SHORT); the fixed cost of a run is what is left at SHORT.
# Not counted on perf's side: the kernel's copy of each sample's 8 KiB
# stack, done in the target's context (stitch's in-kernel work is counted,
# as BPF time).  So, second: what the workload loses, everything included
# (both CPUs are busy with it, so a tracer's own CPU is taken from it too):
# its iterations in SLOW_RUNS runs of 2 s alone, under stitch record and
# under perf record (perf script runs after, as it would), and under
# perf record without stacks (the floor: the sampling interrupt alone),
# alternating; median and min-max.
#
#   bench/vs_perf.sh     (HZ=999 RUNS=3 SHORT=1 LONG=5 SLOW_RUNS=10; as root)
set -u
cd "$(dirname "$0")/.."

HZ=${HZ:-999}
RUNS=${RUNS:-3}
SHORT=${SHORT:-1}
LONG=${LONG:-5}
SLOW_RUNS=${SLOW_RUNS:-10}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start vsperf

command -v perf >/dev/null || { echo "bench: needs perf (apt-get install linux-perf)" >&2; exit 1; }
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -o build/workloads/recurse tests/workloads/recurse.c || exit 1
RECURSE=$(realpath build/workloads/recurse)
NCPU=$(nproc)

# ms of task-clock in a `perf stat -x,` output file.
task_ms() { awk -F, '$3 ~ /^task-clock/ { printf "%.1f\n", $1 }' "$1"; }

start_workload() {	# SECONDS -> pids in $T/pids
	local pids="" i
	for i in $(seq 0 $((NCPU - 1))); do
		taskset -c "$i" "$RECURSE" 40 "$1" >/dev/null &
		pids="$pids${pids:+,}$!"
	done
	echo "$pids" >"$T/pids"
	sleep 0.3
}

# One run of each tool: appends "cpu_ms samples" to $T/TOOL.SECONDS.
run_stitch() {	# SECONDS
	start_workload $(($1 + 2))
	perf stat -x, -e task-clock -o "$T/stat" -- "$STITCH" record --stats -F "$HZ" -d "$1" \
		-p "$(cat "$T/pids")" -o "$T/stitch.folded" 2>"$T/err"
	wait
	local bpf ev
	bpf=$(sed -n 's/.*bpf time \([0-9.]*\) ms.*/\1/p' "$T/err")
	ev=$(sed -n 's/^stitch stats: events \([0-9]*\),.*/\1/p' "$T/err")
	echo "$(task_ms "$T/stat") ${bpf:-0} ${ev:-0}" |
		awk '{ printf "%.1f %d\n", $1 + $2, $3 }' >>"$T/stitch.$1"
}

run_perf() {	# SECONDS
	start_workload $(($1 + 2))
	perf stat -x, -e task-clock -o "$T/stat" -- perf record -q --call-graph dwarf -F "$HZ" \
		-p "$(cat "$T/pids")" -o "$T/perf.data" -- sleep "$1" 2>/dev/null
	wait
	local rec
	rec=$(task_ms "$T/stat")
	perf stat -x, -e task-clock -o "$T/stat" -- perf script -i "$T/perf.data" \
		>"$T/perf.txt" 2>/dev/null
	# Samples: perf script starts each one with an unindented header line.
	echo "$rec $(task_ms "$T/stat") $(grep -c '^[^[:space:]]' "$T/perf.txt")" |
		awk '{ printf "%.1f %d\n", $1 + $2, $3 }' >>"$T/perf.$1"
}

for i in $(seq "$RUNS"); do
	for d in "$SHORT" "$LONG"; do
		run_stitch "$d"
		run_perf "$d"
	done
done

col() { awk -v c="$2" '{ print $c }' "$1" | median; }
# "per_sample_us fixed_ms samples_long" of a tool
costs() {	# TOOL
	local cs cl ss sl
	cs=$(col "$T/$1.$SHORT" 1)
	cl=$(col "$T/$1.$LONG" 1)
	ss=$(col "$T/$1.$SHORT" 2)
	sl=$(col "$T/$1.$LONG" 2)
	awk -v cs="$cs" -v cl="$cl" -v ss="$ss" -v sl="$sl" 'BEGIN {
		per = (sl > ss) ? (cl - cs) / (sl - ss) : 0
		printf "%.1f %.0f %d %.0f\n", per * 1000, cs - per * ss, sl, cl }'
}
read -r s_per s_fixed s_n s_cpu <<<"$(costs stitch)"
read -r p_per p_fixed p_n p_cpu <<<"$(costs perf)"

echo "bench: recurse 40 on each of $NCPU CPUs at $HZ Hz, ${SHORT} s and ${LONG} s runs," \
	"medians of $RUNS, $(uname -r), $(perf --version)"
printf '| %-38s | %14s | %14s | %12s | %16s |\n' tool "us/sample" "fixed ms/run" \
	"samples (${LONG} s)" "CPU ms (${LONG} s)"
printf '|%s|\n' "----------------------------------------|----------------|----------------|--------------|------------------"
printf '| %-38s | %14s | %14s | %12s | %16s |\n' "stitch record (+ BPF time)" "$s_per" \
	"$s_fixed" "$s_n" "$s_cpu"
printf '| %-38s | %14s | %14s | %12s | %16s |\n' "perf record --call-graph dwarf + script" \
	"$p_per" "$p_fixed" "$p_n" "$p_cpu"
awk -v s="$s_per" -v p="$p_per" 'BEGIN { if (s > 0) printf "steady CPU per sample: stitch / perf = 1/%.0f\n", p / s }'

# Iterations of both workloads in 2 s, alone or under a tracer.  They start
# counting 1.5 s after the tracer: its start-up is a fixed cost, reported
# above, not what sampling takes from them.
slow_run() {	# alone|stitch|perf|nostack
	local pids="" i
	for i in $(seq 0 $((NCPU - 1))); do
		(sleep 1.5; echo) | taskset -c "$i" "$RECURSE" 40 2 wait >"$T/it.$i" &
		pids="$pids${pids:+,}$!"
	done
	{
		case $1 in
		stitch) "$STITCH" record -F "$HZ" -d 5 -p "$pids" -o "$T/slow.folded" ;;
		perf) perf record -q --call-graph dwarf -F "$HZ" -p "$pids" -o "$T/slow.data" \
			-- sleep 5 ;;
		nostack) perf record -q -F "$HZ" -p "$pids" -o "$T/slow.data" -- sleep 5 ;;
		esac
	} >/dev/null 2>&1
	wait
	cat "$T"/it.* | awk '/^iterations/ { n += $2 } END { print n }' >>"$T/slow.$1"
}
for i in $(seq "$SLOW_RUNS"); do
	for m in alone stitch perf nostack; do
		slow_run "$m"
	done
done
base=$(median <"$T/slow.alone")
echo "workload iterations in 2 s, $SLOW_RUNS runs each (median, min-max, median vs alone):"
for m in alone stitch perf nostack; do
	sort -n "$T/slow.$m" | awk -v m="$m" -v b="$base" -v med="$(median <"$T/slow.$m")" '
		NR == 1 { lo = $1 } { hi = $1 }
		END { printf "  %-7s %12d  %d-%d  %+.2f%%\n", m, med, lo, hi, 100 * (med - b) / b }'
done
