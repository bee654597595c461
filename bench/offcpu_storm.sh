#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Off-CPU tracing on a context-switch storm: two threads ping-ponging a byte
# over pipes on one CPU (tests/workloads/waits.c storm, ~500k-800k switches
# a second), traced with -p by
#   stitch record -e offcpu           whole stitched stacks, counted in the kernel
#   offcputime (libbpf-tools)         kernel + frame-pointer user stacks
# For each, RUNS runs; medians of
#   switches/s    the storm's own rate while traced (untraced beside it)
#   BPF ns/run    the sched_switch program's run_time_ns / run_cnt (bpf_stats):
#                 every switch of the machine runs it, the storm's are most
#   tracer CPU    user + system seconds of the tracer process for the run
#   lost          what stitch says it lost (offcputime does not say)
#
#   bench/offcpu_storm.sh     (SECONDS_RUN=4 RUNS=3; as root)
set -u
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
DUR=${SECONDS_RUN:-4}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start offcpu

OFFCPUTIME=$(command -v offcputime || echo /usr/sbin/offcputime)
[ -x "$OFFCPUTIME" ] || { echo "bench: needs libbpf-tools (apt-get install libbpf-tools)" >&2; exit 1; }
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -pthread -o build/workloads/waits tests/workloads/waits.c || exit 1
WAITS=$(realpath build/workloads/waits)

# run TRACER -> "switches_per_s bpf_ns_per_run tracer_cpu_s"
run() {
	local w t rate a b ns cnt cpu
	"$WAITS" storm $((DUR + 2)) >"$T/storm.out" &
	w=$!
	sleep 0.5
	case "$1" in
	stitch)
		/usr/bin/time -f '%U %S' -o "$T/time" "$STITCH" record -e offcpu -p "$w" -d "$DUR" \
			--stats -o "$T/s.folded" 2>"$T/s.err" &
		t=$!
		prog=on_sched_switch ;;
	offcputime)
		/usr/bin/time -f '%U %S' -o "$T/time" "$OFFCPUTIME" -p "$w" "$DUR" \
			>"$T/o.folded" 2>"$T/o.err" &
		t=$!
		prog=sched_switch ;;
	none)
		sleep "$DUR" &
		t=$!
		prog= ;;
	esac
	sleep 1
	a=$( [ -n "$prog" ] && prog_stats_by_name "$prog" )
	sleep 2
	b=$( [ -n "$prog" ] && prog_stats_by_name "$prog" )
	wait "$t"
	wait "$w"
	rate=$(awk -v d=$((DUR + 2)) '/^switches/ { printf "%.0f", $2 / d }' "$T/storm.out")
	ns=-
	if [ -n "$a" ] && [ -n "$b" ]; then
		read -r a1 a2 <<<"$a"
		read -r b1 b2 <<<"$b"
		[ $((b2 - a2)) -gt 0 ] && ns=$(( (b1 - a1) / (b2 - a2) ))
	fi
	cpu=-
	[ -s "$T/time" ] && [ "$1" != none ] && cpu=$(awk 'NF == 2 && $1 ~ /^[0-9.]+$/ { printf "%.3f", $1 + $2 }' "$T/time")
	echo "$rate $ns $cpu"
}

printf '%-12s %14s %12s %12s\n' tracer "switches/s" "BPF ns/run" "tracer CPU"
for tracer in none stitch offcputime; do
	: >"$T/rows"
	for i in $(seq "$RUNS"); do
		run "$tracer" >>"$T/rows"
	done
	printf '%-12s %14s %12s %12s\n' "$tracer" \
		"$(cut -d' ' -f1 "$T/rows" | median)" "$(cut -d' ' -f2 "$T/rows" | median)" \
		"$(cut -d' ' -f3 "$T/rows" | median)"
	[ "$tracer" = stitch ] && grep -E 'LOST|off-CPU:' "$T/s.err" | sed 's/^/    /'
done
echo "offcputime: user stacks by frame pointers (the storm is built without them);"
echo "stitch: whole stacks unwound by CFI, counted in the kernel."
