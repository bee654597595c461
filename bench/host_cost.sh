#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What always-on profiling of the whole host costs (issue 26): stitch
# sampling every CPU (-a) at each rate of HZS, beside `perf record -a -F HZ
# -g` for the same sampling, in one run.  The headline workload changes its
# stacks at every sample and has many threads: 4 tests/workloads/recurse.c
# processes per CPU (40-deep recursion, 32 code paths, a 100 Hz signal
# handler) and a `chain threads` (3 threads) per CPU, all -O2 without frame
# pointers.  Beside it, labelled, the best case: one `chain deep 10` per
# CPU, a stack that never changes.  For each tracer, from 2 s after its
# start (tables loaded, programs attached) to 1 s before its end:
#   CPU ms/s    user+sys of the tracer's process (/proc/PID/stat), per
#               second of recording
#   BPF ms/s    run_time_ns of the tracer's BPF programs (the ids its fds
#               hold; kernel.bpf_stats_enabled), per second: it runs in the
#               sampled threads, so the process's own times miss it
#   total ms/s  the two: the CPU the host gives the profiler
#   RSS MB      the process's peak resident set (VmHWM), and at the end
#   vs perf     total ms/s over perf's at the same rate and workload
# stitch names its frames before it exits; perf leaves that to `perf
# script`, whose user+sys per second of recording is perf's "BPF ms/s"
# column here (it has no BPF), so that both totals include naming.  perf's
# -g follows frame pointers, which this workload does not keep: perf's
# stacks are incomplete where stitch's are whole.
#
#   bench/host_cost.sh            (HZS="19 99" SECS=20; as root)
#   STITCH_CMD="./stitch agent -a --push ..." bench/host_cost.sh
#
# STITCH_CMD is stitch's command line without -F and -d (added here), so
# that `stitch agent` (the same engine) can be measured the same way.
set -u
cd "$(dirname "$0")/.."

HZS=${HZS:-19 99}
SECS=${SECS:-20}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start hostcost
STITCH_CMD=${STITCH_CMD:-$STITCH record -a -o $T/stitch.folded}

command -v perf >/dev/null || { echo "bench: needs perf" >&2; exit 1; }
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -pthread -o build/workloads/chain tests/workloads/chain.c || exit 1
gcc -O2 -fomit-frame-pointer -g -o build/workloads/recurse tests/workloads/recurse.c || exit 1
CHAIN=$(realpath build/workloads/chain)
RECURSE=$(realpath build/workloads/recurse)
NCPU=$(nproc)
TICK=$(getconf CLK_TCK)

# Start workload KIND (headline | best) for SECONDS; its pids in $T/wl.
workload_start() {	# KIND SECONDS
	local i j
	: >"$T/wl"
	for i in $(seq "$NCPU"); do
		if [ "$1" = headline ]; then
			for j in 1 2 3 4; do
				"$RECURSE" 40 "$2" >/dev/null &
				echo $! >>"$T/wl"
			done
			"$CHAIN" threads "$2" >/dev/null &
		else
			"$CHAIN" deep 10 "$2" >/dev/null &
		fi
		echo $! >>"$T/wl"
	done
}

workload_stop() {
	# shellcheck disable=SC2046 # one pid a word
	kill $(cat "$T/wl") 2>/dev/null
	# shellcheck disable=SC2046
	wait $(cat "$T/wl") 2>/dev/null
}

# "cpu_ticks bpf_ns" of process PID now: its user+sys, its programs' run time.
usage_of() {	# PID
	local ticks ids id ns=0 t
	ticks=$(awk '{ print $14 + $15 }' "/proc/$1/stat" 2>/dev/null) || return
	ids=$(grep -h '^prog_id:' /proc/"$1"/fdinfo/* 2>/dev/null | awk '{ print $2 }' | sort -u)
	for id in $ids; do
		t=$(bpftool prog show id "$id" 2>/dev/null |
			sed -n 's/.*run_time_ns \([0-9]*\).*/\1/p')
		ns=$((ns + ${t:-0}))
	done
	echo "$ticks $ns"
}

# Measure tracer process PID over its steady window: one row's numbers,
# "cpu_ms_s bpf_ms_s hwm_mb rss_mb", in $T/row.
measure() {	# PID
	local a b t0 t1 hwm rss
	sleep 2
	a=$(usage_of "$1")
	t0=$(date +%s.%N)
	sleep $((SECS - 3))
	b=$(usage_of "$1")
	t1=$(date +%s.%N)
	hwm=$(awk '/^VmHWM:/ { print $2 }' "/proc/$1/status")
	rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/$1/status")
	echo "$a $b $t0 $t1 $hwm $rss" | awk -v tick="$TICK" '{
		s = $6 - $5
		printf "%.1f %.1f %.0f %.0f\n", ($3 - $1) * 1000 / tick / s,
			($4 - $2) / 1e6 / s, $7 / 1024, $8 / 1024 }' >"$T/row"
}

run_stitch() {	# KIND HZ
	workload_start "$1" $((SECS + 2))
	sleep 0.5
	# shellcheck disable=SC2086 # the command's words
	$STITCH_CMD -F "$2" -d "$SECS" 2>"$T/stitch.err" &
	local st=$!
	measure "$st"
	wait "$st"
	workload_stop
	cat "$T/row"
}

run_perf() {	# KIND HZ
	workload_start "$1" $((SECS + 2))
	sleep 0.5
	perf record -q -a -F "$2" -g -o "$T/perf.data" -- sleep "$SECS" 2>"$T/perf.err" &
	local pr=$!
	sleep 0.3
	# perf record is the parent of the sleep it runs.
	measure "$pr"
	wait "$pr"
	workload_stop
	# Naming perf's frames, per second of recording, in the row's second column.
	TIMEFORMAT='%U %S'
	{ time perf script -i "$T/perf.data" >/dev/null 2>&1; } 2>"$T/script.time"
	awk -v s="$SECS" 'NR == FNR { script = ($1 + $2) * 1000 / s; next }
		{ printf "%s %.1f %s %s\n", $1, script, $3, $4 }' "$T/script.time" "$T/row"
}

echo "bench: whole host (-a), $NCPU CPUs, $SECS s a row, $(uname -r)"
echo "  stitch: $STITCH_CMD -F HZ -d $SECS"
echo "  perf:   perf record -a -F HZ -g (frame pointers); perf's BPF column: perf script's CPU"
printf '| %-24s | %4s | %-6s | %8s | %8s | %10s | %15s | %8s |\n' workload Hz tracer \
	"CPU ms/s" "BPF ms/s" "total ms/s" "RSS MB peak/end" "vs perf"
printf '|%s|\n' "--------------------------|------|--------|----------|----------|------------|-----------------|----------"
for kind in headline best; do
	label="changing stacks+threads"
	[ "$kind" = best ] && label="best case: one stack"
	for hz in $HZS; do
		read -r pc pb ph pr < <(run_perf "$kind" "$hz")
		read -r sc sb sh sr < <(run_stitch "$kind" "$hz")
		ptot=$(awk -v c="$pc" -v b="$pb" 'BEGIN { printf "%.1f", c + b }')
		stot=$(awk -v c="$sc" -v b="$sb" 'BEGIN { printf "%.1f", c + b }')
		printf '| %-24s | %4s | %-6s | %8s | %8s | %10s | %15s | %8s |\n' "$label" "$hz" \
			stitch "$sc" "$sb" "$stot" "$sh / $sr" "$(awk -v s="$stot" -v p="$ptot" \
			'BEGIN { if (p > 0) printf "%.2fx", s / p; else printf "-" }')"
		printf '| %-24s | %4s | %-6s | %8s | %8s | %10s | %15s | %8s |\n' "" "$hz" perf \
			"$pc" "$pb" "$ptot" "$ph / $pr" 1
	done
done
