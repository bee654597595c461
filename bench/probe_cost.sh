#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What a probe on a source line with its variables costs the traced
# program, per event: `stitch record --fetch` next to `perf probe` + `perf
# record` on the same line of the same program, in one run.
#
#   tests/workloads/line_server.c N 0 bench: N calls of handle_request()
#   (-O2 -g, no frame pointers), nothing logged; the probe is on its
#   "if (!quiet)" line (RELLINE 5), where both tools put it at one address
#   and find r (a pointer) and weight (a register-held local); each event
#   reads r->len, r->path as a string, r->in->id and weight.
#
# Tracers, attached to the waiting program (-p) before it starts:
#   none          the program alone
#   stitch        record --fetch x4: values and the whole stack of every event,
#                 counted by stack and value (a flame graph's input)
#   stitch-print  the same, and --print: a line per event (to /dev/null)
#   perf          perf probe's event with the 4 values, perf record -e it:
#                 values per event into perf.data, no stack
#   perf-dwarf    the same with --call-graph dwarf: a stack copy per event
#                 for perf report to unwind later
#
# For each, RUNS runs; the median of the program's own time for its calls,
# its slowdown, and the cost per event in microseconds (the time over the
# untraced run's, over N).  Every tracer here takes a uprobe trap per
# event, the floor of them all.
#
#   bench/probe_cost.sh     (RUNS=3 N=200000; as root)
set -u
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
N=${N:-200000}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start probebench

command -v perf >/dev/null || { echo "bench: needs perf (scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -o build/workloads/line_server tests/workloads/line_server.c ||
	exit 1
LS=$(realpath build/workloads/line_server)
FETCH=(--fetch 'r->len' --fetch 'r->path:string' --fetch 'r->in->id' --fetch weight)
perf probe -q -d 'probe_line_server:*' 2>/dev/null
perf probe -q -x "$LS" -a 'handle_request:5 len=r->len path=r->path:string id=r->in->id weight' ||
	{ echo "bench: perf probe cannot put the probe on handle_request:5" >&2; exit 1; }
trap 'perf probe -q -d "probe_line_server:*" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled=$BENCH_OLD_STATS; rm -rf "$T"' EXIT
PERF_EVENT=probe_line_server:handle_request_L5

# run TRACER -> the program's elapsed_ns (empty if it failed)
run() {
	local tracer=$1 wpid tp=''
	rm -f "$T/go" "$T/out"
	mkfifo "$T/go"
	"$LS" "$N" 0 bench <"$T/go" >"$T/out" &
	wpid=$!
	exec 3>"$T/go"
	case $tracer in
	stitch) "$STITCH" record -e "uprobe:$LS:handle_request:5" "${FETCH[@]}" -p "$wpid" \
		-o "$T/s.folded" 2>"$T/s.err" & tp=$! ;;
	stitch-print) "$STITCH" record -e "uprobe:$LS:handle_request:5" "${FETCH[@]}" --print \
		-p "$wpid" -o "$T/s.folded" >/dev/null 2>"$T/s.err" & tp=$! ;;
	perf) perf record -q -e "$PERF_EVENT" -p "$wpid" -o "$T/perf.data" 2>"$T/p.err" & tp=$! ;;
	perf-dwarf) perf record -q -e "$PERF_EVENT" --call-graph dwarf -p "$wpid" \
		-o "$T/perf.data" 2>"$T/p.err" & tp=$! ;;
	esac
	[ -n "$tp" ] && sleep 1.5
	echo g >&3
	exec 3>&-
	wait "$wpid"
	if [ -n "$tp" ]; then
		kill -INT "$tp" 2>/dev/null
		wait "$tp" 2>/dev/null
	fi
	awk '$1 == "elapsed_ns" { print $2 }' "$T/out"
}

echo "bench: $(uname -r), $(nproc) CPUs; line_server $N calls, a probe on handle_request:5 reading 4 values; $RUNS runs each, medians"
printf '%-13s %10s %9s %12s\n' tracer ms slowdown us/event
base=''
for tracer in none stitch stitch-print perf perf-dwarf; do
	ms=$(for i in $(seq "$RUNS"); do run "$tracer"; done |
		awk 'NF { printf "%.1f\n", $1 / 1e6 }' | median)
	[ "$tracer" = none ] && base=$ms
	printf '%-13s %10s %9s %12s\n' "$tracer" "$ms" \
		"$(awk -v a="$ms" -v b="$base" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.1fx", a / b; else print "-" }')" \
		"$(awk -v a="$ms" -v b="$base" -v n="$N" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2f", (a - b) * 1000 / n; else print "-" }')"
done
# What stitch read, checked against the program's own values: one stack per distinct value set.
echo "stitch's last run: $(grep -c 'r->len=' "$T/s.folded" 2>/dev/null) distinct value sets, $(awk '{ n += $NF } END { print n + 0 }' "$T/s.folded" 2>/dev/null) events"
