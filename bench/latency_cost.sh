#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What timing every call costs when no call is slow: `stitch latency` on a
# root that fires hundreds of thousands of times a second (tests/workloads/
# chain.c syscall: getppid() in a loop), next to the one-liners people write
# for it, in one run:
#
#   syscall root  stitch latency -e syscall:getppid -t 1s
#                 bpftrace: @start[tid] = nsecs at sys_enter, hist() at sys_exit
#   uprobe root   stitch latency -e uprobe:LIBC:getppid -t 1s
#                 bpftrace: the same with uprobe/uretprobe
#                 funclatency (libbpf-tools) LIBC:getppid
#
# For each, RUNS runs; medians of
#   calls/s       the root's calls per second while traced (untraced: the
#                 syscall rate with no tracer, from a bpftrace count at the end)
#   BPF ns/call   the root's entry and exit programs' run_time_ns per call
#                 (bpf_stats; uprobe traps are not in it: they cost the same
#                 for every tracer)
#   all ns/call   every BPF program the tracer loaded, per call: stitch's
#                 samplers (gated: closed outside slow calls) included
#   ratio         stitch's BPF ns/call over the peer's
#
#   bench/latency_cost.sh     (SECONDS_RUN=3 RUNS=3; as root)
set -u
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
DUR=${SECONDS_RUN:-3}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start latbench

for tool in bpftrace bpftool jq; do
	command -v $tool >/dev/null || { echo "bench: $tool missing (scripts/install-deps.sh)" >&2; exit 1; }
done
FUNCLATENCY=$(command -v funclatency || echo /usr/sbin/funclatency)
[ -x "$FUNCLATENCY" ] || { echo "bench: needs libbpf-tools (scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -pthread -o build/workloads/chain tests/workloads/chain.c || exit 1
CHAIN=$(realpath build/workloads/chain)
LIBC=$(ldd "$CHAIN" | awk '$1 ~ /^libc[.]so/ { print $3 }')

# "id name run_time_ns run_cnt" of every loaded program.
prog_stats() {
	bpftool -j prog show | jq -r '.[] | "\(.id) \(.name // "-") \(.run_time_ns // 0) \(.run_cnt // 0)"'
}

# Programs loaded after BEFORE's ids, between two snapshots A and B: their
# deltas as "name ns cnt".
new_deltas() {
	awk 'FILENAME == ARGV[1] { old[$1] = 1; next }
	     FILENAME == ARGV[2] { if (!($1 in old)) { n[$1] = $2; t[$1] = $3; c[$1] = $4 }; next }
	     ($1 in n) { print n[$1], $3 - t[$1], $4 - c[$1] }' "$1" "$2" "$3"
}

# run TRACER ROOT -> "calls_per_s root_ns_per_call all_ns_per_call"
run() {
	local tracer=$1 root=$2 w t prog_re
	prog_stats >"$T/before"
	"$CHAIN" syscall $((DUR + 3)) &
	w=$!
	sleep 0.3
	case "$tracer/$root" in
	stitch/syscall)
		"$STITCH" latency -e syscall:getppid -t 1s -p "$w" -d "$DUR" -o "$T/s.json" \
			>/dev/null 2>"$T/err" &
		prog_re='^lat_' ;;
	stitch/uprobe)
		"$STITCH" latency -e "uprobe:$LIBC:getppid" -t 1s -p "$w" -d "$DUR" -o "$T/s.json" \
			>/dev/null 2>"$T/err" &
		prog_re='^lat_' ;;
	bpftrace/syscall)
		timeout -s INT "$((DUR + 1))" bpftrace -e "
			tracepoint:syscalls:sys_enter_getppid /pid == $w/ { @start[tid] = nsecs; }
			tracepoint:syscalls:sys_exit_getppid /@start[tid]/ {
				@ns = hist(nsecs - @start[tid]); delete(@start[tid]); }" \
			>/dev/null 2>"$T/err" &
		prog_re='sys_e' ;;
	bpftrace/uprobe)
		timeout -s INT "$((DUR + 1))" bpftrace -e "
			uprobe:$LIBC:getppid /pid == $w/ { @start[tid] = nsecs; }
			uretprobe:$LIBC:getppid /@start[tid]/ {
				@ns = hist(nsecs - @start[tid]); delete(@start[tid]); }" \
			>/dev/null 2>"$T/err" &
		prog_re='getppid' ;;
	funclatency/uprobe)
		"$FUNCLATENCY" -p "$w" -d "$DUR" c:getppid >/dev/null 2>"$T/err" &
		prog_re='.' ;;
	esac
	t=$!
	sleep 1.2
	prog_stats >"$T/a"
	sleep 1
	prog_stats >"$T/b"
	wait "$t"
	kill "$w" 2>/dev/null
	wait "$w" 2>/dev/null
	new_deltas "$T/before" "$T/a" "$T/b" >"$T/d"
	# Calls: the busiest root program's runs (its entry; the exit runs as often).
	awk -v re="$prog_re" '
		$1 ~ re { if ($3 > calls) calls = $3; root += $2 }
		{ all += $2 }
		END { if (calls > 0) printf "%d %.0f %.0f\n", calls, root / calls, all / calls;
		      else print "- - -" }' "$T/d"
}

untraced_rate() {
	local w
	"$CHAIN" syscall $((DUR + 1)) &
	w=$!
	sleep 1
	timeout -s INT 1 bpftrace -e "tracepoint:raw_syscalls:sys_enter /pid == $w/ { @n = count(); }" \
		2>/dev/null | awk '/^@n:/ { print $2 }'
	wait "$w"
}

printf '%-10s %-12s %12s %12s %12s %8s\n' root tracer "calls/s" "BPF ns/call" "all ns/call" ratio
printf '%-10s %-12s %12s\n' syscall untraced "$(untraced_rate) (+raw_syscalls count)"
for root in syscall uprobe; do
	tracers="stitch bpftrace"
	[ "$root" = uprobe ] && tracers="stitch bpftrace funclatency"
	stitch_ns=
	for tracer in $tracers; do
		: >"$T/rows"
		for i in $(seq "$RUNS"); do
			run "$tracer" "$root" >>"$T/rows"
		done
		calls=$(cut -d' ' -f1 "$T/rows" | median)
		ns=$(cut -d' ' -f2 "$T/rows" | median)
		all=$(cut -d' ' -f3 "$T/rows" | median)
		[ "$tracer" = stitch ] && stitch_ns=$ns
		ratio=-
		[ "$tracer" != stitch ] && [ "${stitch_ns:--}" != - ] && [ "$ns" != - ] && [ "$ns" -gt 0 ] &&
			ratio=$(awk -v a="$stitch_ns" -v b="$ns" 'BEGIN { printf "%.2f", a / b }')
		printf '%-10s %-12s %12s %12s %12s %8s\n' "$root" "$tracer" "$calls" "$ns" "$all" "$ratio"
	done
done
echo "calls/s: root calls in one second of the run; ratio: stitch's BPF ns/call over the peer's."
