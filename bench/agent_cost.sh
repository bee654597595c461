#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What `stitch agent` costs, always on: the whole host (-a) at HZ (19 and
# 99 by default), pushing every PERIOD seconds to tests/agent/backend.py
# (Pyroscope's push, decoded and checked), beside `perf record -a -g` for
# the same sampling, in one run.  Two workloads, all -O2 without frame
# pointers:
#   headline  what a host runs: stacks that change at every sample, many
#             threads, processes that come and go.  Per CPU two
#             tests/workloads/recurse.c (40-deep recursion, 32 code paths, a
#             100 Hz signal handler) and a `chain threads` (3 threads); and
#             CHURN short-lived processes a second (`chain spin 0.02`, the
#             same binary again and again, as a build's or a shell loop's)
#   best      labelled as such: one `chain deep 10` per CPU, a stack that
#             never changes, nothing starting or exiting
#   build     a build's churn, as issue 41 measured it: a gcc -O2 -c of
#             tests/workloads/chain.c and two short python3 runs, over and
#             over (cc1, as, collect2, python3: the same binaries again and
#             again, each process gone in well under a second)
# Once start-up is past (WARM seconds), over WINDOW seconds:
#   stitch  CPU per second: its threads' run time (schedstat, ns) + the
#           run time of its BPF programs (bpf_stats, the programs bpftool
#           shows held by its pid); RSS at the window's end and its peak
#   perf    `perf record -a -g` at the same HZ for the same time (frame
#           pointers: the cheapest stacks perf takes, though the workloads
#           have none; its DWARF copies cost more), its task-clock per
#           second and peak RSS; perf script, which perf needs to name
#           anything, not counted
#
#   bench/agent_cost.sh     (HZS="19 99" KINDS="headline best build" WARM=15
#                            WINDOW=30 PERIOD=5 CHURN=20; as root)
#
# An hour's soak: RSS_LOG=FILE logs the agent's RSS and peak every 2 s of
# the window (TSV: elapsed_s, rss_kb, peak_kb); when the peak rises by 4 MB
# or more, the agent's stacks at that moment (stitch snapshot) are appended
# to FILE.jumps.  PERF=0 leaves out perf's rows.
#   KINDS=build HZS=19 PERIOD=10 WINDOW=3600 PERF=0 RSS_LOG=/tmp/rss.tsv \
#   bench/agent_cost.sh
set -u
cd "$(dirname "$0")/.." || exit 1

HZS=${HZS:-19 99}
KINDS=${KINDS:-headline best build}
CHURN=${CHURN:-20}
WARM=${WARM:-15}
WINDOW=${WINDOW:-30}
PERIOD=${PERIOD:-5}
STITCH=${STITCH:-./stitch}
RSS_LOG=${RSS_LOG:-}
PERF=${PERF:-1}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start agentcost

command -v perf >/dev/null || { echo "bench: needs perf (apt-get install linux-perf)" >&2; exit 1; }
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -o build/workloads/recurse tests/workloads/recurse.c || exit 1
gcc -O2 -fomit-frame-pointer -g -pthread -o build/workloads/chain tests/workloads/chain.c || exit 1
RECURSE=$(realpath build/workloads/recurse)
CHAIN=$(realpath build/workloads/chain)
NCPU=$(nproc)
TOTAL=$((WARM + WINDOW + 2))

WORKLOAD=""
# Start workload KIND (headline | best) for TOTAL + 5 seconds.
start_workload() {	# KIND
	local i
	WORKLOAD=""
	if [ "$1" = build ]; then
		(
			end=$((SECONDS + TOTAL + 5))
			while [ $SECONDS -lt $end ]; do
				# (to /dev/null: a compile running at the end outlived $T)
				gcc -O2 -c tests/workloads/chain.c -o /dev/null
				/usr/bin/python3 -c 'import json; json.dumps(list(range(1000)))'
				/usr/bin/python3 -c 'import re; re.compile("a+b")'
			done
		) &
		WORKLOAD=$!
		return
	fi
	for i in $(seq 0 $((NCPU - 1))); do
		if [ "$1" = best ]; then
			taskset -c "$i" "$CHAIN" deep 10 $((TOTAL + 5)) >/dev/null &
			WORKLOAD="$WORKLOAD $!"
			continue
		fi
		for _ in 1 2; do
			"$RECURSE" 40 $((TOTAL + 5)) >/dev/null &
			WORKLOAD="$WORKLOAD $!"
		done
		"$CHAIN" threads $((TOTAL + 5)) >/dev/null &
		WORKLOAD="$WORKLOAD $!"
	done
	[ "$1" = best ] && return
	# About CHURN processes a second, each 20 ms of CPU, one after the other.
	(
		end=$((SECONDS + TOTAL + 5))
		gap=$(awk -v c="$CHURN" 'BEGIN { g = 1 / c - 0.02; printf "%.3f", (g > 0 ? g : 0) }')
		while [ $SECONDS -lt $end ]; do
			"$CHAIN" spin 0.02 >/dev/null
			sleep "$gap"
		done
	) &
	WORKLOAD="$WORKLOAD $!"
}

stop_workload() {
	# shellcheck disable=SC2086
	kill $WORKLOAD 2>/dev/null
	# shellcheck disable=SC2086
	wait $WORKLOAD 2>/dev/null
}

# ns of CPU its threads have run (schedstat's first field, summed): the
# clock ticks of /proc/PID/stat were 10 ms each, 0.25 ms/s in a 40 s
# window, as large as what a change cut.  Its threads live as long as it
# (the sender's among them), so none's time goes missing.
cpu_ns() { cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{ n += $1 } END { printf "%.0f\n", n }'; }

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

# The window: a sleep, or with RSS_LOG the agent's memory every 2 s.
window() {	# PID
	local t0=$SECONDS last=0 rss hwm
	[ -n "$RSS_LOG" ] || { sleep "$WINDOW"; return; }
	: >"$RSS_LOG"
	: >"$RSS_LOG.jumps"
	while [ $((SECONDS - t0)) -lt "$WINDOW" ] && kill -0 "$1" 2>/dev/null; do
		rss=$(rss_kb "$1" VmRSS) hwm=$(rss_kb "$1" VmHWM)
		printf '%s\t%s\t%s\n' "$((SECONDS - t0))" "$rss" "$hwm" >>"$RSS_LOG"
		if [ "$last" -gt 0 ] && [ "$hwm" -ge $((last + 4096)) ]; then
			{
				echo "== $((SECONDS - t0)) s: peak $last -> $hwm kB, RSS $rss kB"
				"$STITCH" snapshot -p "$1" 2>&1 | head -n 60
			} >>"$RSS_LOG.jumps"
		fi
		last=$hwm
		sleep 2
	done
}

/usr/bin/python3 tests/agent/backend.py \
	--kind pyroscope --port-file "$T/port" --out /dev/null >/dev/null 2>"$T/backend.err" &
BACKEND=$!
for i in $(seq 100); do [ -s "$T/port" ] && break; sleep 0.1; done
[ -s "$T/port" ] || { cat "$T/backend.err"; exit 1; }

echo "bench: stitch agent -a vs perf record -a -g, $NCPU CPUs," \
	"window ${WINDOW} s after ${WARM} s, $(uname -r), $(perf --version)"
echo "  headline: per CPU 2 recurse 40 + chain threads, $CHURN short-lived processes/s;" \
	"best case: one chain deep 10 per CPU; build: gcc -O2 -c and two python3 runs, looped"
printf '| %-24s | %-29s | %4s | %12s | %14s | %11s | %12s |\n' tool workload Hz "CPU ms/s" \
	"of which BPF" "RSS MB" "peak RSS MB"
printf '|%s%s|\n' "--------------------------|-------------------------------|------|" \
	"--------------|----------------|-------------|--------------"
for kind in $KINDS; do
	label="changing stacks+threads+churn"
	[ "$kind" = best ] && label="best case: one stack"
	[ "$kind" = build ] && label="build churn: gcc -c, python3"
	for hz in $HZS; do
		start_workload "$kind"
		"$STITCH" agent -F "$hz" -d "$TOTAL" --period "$PERIOD" --spool "$T/spool" \
			--push "pyroscope=http://127.0.0.1:$(cat "$T/port")" 2>"$T/agent.err" &
		pid=$!
		sleep "$WARM"
		c0=$(cpu_ns $pid) b0=$(bpf_ns $pid)
		window $pid
		c1=$(cpu_ns $pid) b1=$(bpf_ns $pid)
		rss=$(rss_kb $pid VmRSS) hwm=$(rss_kb $pid VmHWM)
		wait $pid
		awk -v c="$((c1 - c0))" -v b="$((b1 - b0))" -v w="$WINDOW" -v r="$rss" \
			-v h="$hwm" -v hz="$hz" -v l="$label" 'BEGIN {
			printf "| %-24s | %-29s | %4d | %12.1f | %14.1f | %11.0f | %12.0f |\n",
				"stitch agent (+ BPF)", l, hz, (c + b) / 1e6 / w, b / 1e6 / w,
				r / 1024, h / 1024 }'
		stop_workload
		[ "$PERF" = 0 ] && continue
		start_workload "$kind"
		/usr/bin/time -f '%M' -o "$T/perf.rss" perf stat -x, -e task-clock -o "$T/perf.stat" -- \
			perf record -q -a -g -F "$hz" -o "$T/perf.data" -- sleep "$WINDOW" 2>/dev/null
		awk -F, -v w="$WINDOW" -v hz="$hz" -v h="$(cat "$T/perf.rss")" -v l="$label" \
			'$3 ~ /^task-clock/ {
			printf "| %-24s | %-29s | %4d | %12.1f | %14s | %11s | %12.0f |\n",
				"perf record -a -g", l, hz, $1 / w, "-", "-", h / 1024 }' "$T/perf.stat"
		stop_workload
		rm -f "$T/perf.data"
	done
done
kill $BACKEND
wait $BACKEND 2>/dev/null || true
