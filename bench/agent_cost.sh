#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What `stitch agent` costs, always on: the whole host (-a) at HZ (19 and
# 99 by default) with a changing-stack workload (tests/workloads/recurse.c,
# 40-deep recursion passing a counter down, one process pinned to each CPU),
# pushing every PERIOD seconds to tests/agent/backend.py (Pyroscope's
# push, decoded and checked).  Once start-up is past (WARM seconds), over
# WINDOW seconds:
#   stitch  CPU per second: its user + system time (/proc/PID/stat) + the
#           run time of its BPF programs (bpf_stats, the programs bpftool
#           shows held by its pid); RSS at the window's end and its peak
#   perf    `perf record -a -g` at the same HZ for the same time (frame
#           pointers: the cheapest stacks perf takes, though recurse has
#           none; its DWARF copies cost more), its task-clock per second and
#           peak RSS; perf script, which perf needs to name anything, not
#           counted
# in one run, side by side.
#
#   bench/agent_cost.sh     (HZS="19 99" WARM=15 WINDOW=30 PERIOD=5; as root)
set -u
cd "$(dirname "$0")/.."

HZS=${HZS:-19 99}
WARM=${WARM:-15}
WINDOW=${WINDOW:-30}
PERIOD=${PERIOD:-5}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start agentcost

command -v perf >/dev/null || { echo "bench: needs perf (apt-get install linux-perf)" >&2; exit 1; }
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -o build/workloads/recurse tests/workloads/recurse.c || exit 1
RECURSE=$(realpath build/workloads/recurse)
NCPU=$(nproc)
TICK=$(getconf CLK_TCK)
TOTAL=$((WARM + WINDOW + 2))

WORKLOAD=""
start_workload() {
	local i
	WORKLOAD=""
	for i in $(seq 0 $((NCPU - 1))); do
		taskset -c "$i" "$RECURSE" 40 $((TOTAL + 5)) >/dev/null &
		WORKLOAD="$WORKLOAD $!"
	done
}

stop_workload() {
	# shellcheck disable=SC2086
	kill $WORKLOAD 2>/dev/null
	# shellcheck disable=SC2086
	wait $WORKLOAD 2>/dev/null
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# ns its BPF programs have run, all together: the programs its file
# descriptors hold (fdinfo's prog_id), whatever bpftool knows of pids.
bpf_ns() {	# PID
	local id
	for id in $(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' |
		    sort -u); do
		bpftool prog show id "$id" 2>/dev/null |
			sed -n 's/.*run_time_ns \([0-9]*\) run_cnt.*/\1/p'
	done | awk '{ n += $1 } END { printf "%.0f\n", n }'
}

rss_kb() { awk -v k="$2" '$1 == k ":" { print $2 }' "/proc/$1/status"; }

/usr/bin/python3 tests/agent/backend.py \
	--kind pyroscope --port-file "$T/port" --out /dev/null >/dev/null 2>"$T/backend.err" &
BACKEND=$!
for i in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
[ -s "$T/port" ] || { cat "$T/backend.err"; exit 1; }

echo "bench: stitch agent -a vs perf record -a -g, recurse 40 on each of $NCPU CPUs," \
	"window ${WINDOW} s after ${WARM} s, $(uname -r), $(perf --version)"
printf '| %-24s | %4s | %12s | %14s | %11s | %12s |\n' tool Hz "CPU ms/s" "of which BPF" \
	"RSS MB" "peak RSS MB"
printf '|%s|\n' "--------------------------|------|--------------|----------------|-------------|--------------"
for hz in $HZS; do
	start_workload
	"$STITCH" agent -F "$hz" -d "$TOTAL" --period "$PERIOD" --spool "$T/spool" \
		--push "pyroscope=http://127.0.0.1:$(cat "$T/port")" 2>"$T/agent.err" &
	pid=$!
	sleep "$WARM"
	c0=$(cpu_ticks $pid) b0=$(bpf_ns $pid)
	sleep "$WINDOW"
	c1=$(cpu_ticks $pid) b1=$(bpf_ns $pid)
	rss=$(rss_kb $pid VmRSS) hwm=$(rss_kb $pid VmHWM)
	wait $pid
	awk -v c="$((c1 - c0))" -v t="$TICK" -v b="$((b1 - b0))" -v w="$WINDOW" -v r="$rss" \
		-v h="$hwm" -v hz="$hz" 'BEGIN {
		printf "| %-24s | %4d | %12.1f | %14.1f | %11.0f | %12.0f |\n", "stitch agent (+ BPF)",
			hz, (c * 1000 / t + b / 1e6) / w, b / 1e6 / w, r / 1024, h / 1024 }'
	stop_workload
	start_workload
	/usr/bin/time -f '%M' -o "$T/perf.rss" perf stat -x, -e task-clock -o "$T/perf.stat" -- \
		perf record -q -a -g -F "$hz" -o "$T/perf.data" -- sleep "$WINDOW" 2>/dev/null
	awk -F, -v w="$WINDOW" -v hz="$hz" -v h="$(cat "$T/perf.rss")" '$3 ~ /^task-clock/ {
		printf "| %-24s | %4d | %12.1f | %14s | %11s | %12.0f |\n", "perf record -a -g", hz,
			$1 / w, "-", "-", h / 1024 }' "$T/perf.stat"
	stop_workload
	rm -f "$T/perf.data"
done
kill $BACKEND
wait $BACKEND 2>/dev/null || true
