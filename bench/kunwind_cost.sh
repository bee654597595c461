#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What one event costs in the kernel, in-kernel unwinding against copying
# the stack.  The headline row is a stack that changes at every sample
# (tests/workloads/recurse.c: 40-deep recursion passing a counter down, 32
# code paths, a 100 Hz signal handler); beside it, the best case, `chain
# deep N` (a loop that never leaves one stack), at several depths.  One
# process (-O2, no frame pointers) pinned to each CPU, both traced with -p
# at HZ, so that every run of the sampling program is an event of ours.  For
# each workload and --unwind mode, RUNS runs, alternating; medians of
#   BPF ns/event  on_perf_event's run_time_ns / run_cnt (bpf_stats) over
#                 0.5 s windows once recording is steady (after 1.5 s: tables
#                 loaded, stacks stored); the median window of each run.  The
#                 whole program: filter, walk, counting, bpf_stats' clocks.
#   frames        user frames per walk, walk ns  time in the walk alone
#                 (from a --stats=walks run, whose clock reads add ~100 ns)
#   ns/frame      walk ns / frames: the walk's cost per frame (on chain deep
#                 rows most walks end as the CPU's last: not a frame's cost)
#   fixed         BPF ns/event (kernel) - walk ns: what an event costs
#                 outside the walk (filter, registers, counting, clocks)
#   bytes/event   ring buffer bytes per event
# then python3.11 -p startup (tables parsed, loaded, list written) and the
# time the kernel takes to load the BPF program.
#
#   bench/kunwind_cost.sh     (DEPTHS="1 36 100" HZ=999 RUNS=3; as root)
set -u
cd "$(dirname "$0")/.."

HZ=${HZ:-999}
RUNS=${RUNS:-3}
DEPTHS=${DEPTHS:-1 36 100}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start kcost

command -v bpftool >/dev/null || { echo "bench: needs bpftool" >&2; exit 1; }
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -pthread -o build/workloads/chain tests/workloads/chain.c || exit 1
gcc -O2 -fomit-frame-pointer -g -o build/workloads/recurse tests/workloads/recurse.c || exit 1
CHAIN=$(realpath build/workloads/chain)
RECURSE=$(realpath build/workloads/recurse)
NCPU=$(nproc)

# The command of a row: "recurse" (the headline) or a chain deep depth.
row_cmd() {	# ROW SECONDS
	if [ "$1" = recurse ]; then
		echo "$RECURSE 40 $2"
	else
		echo "$CHAIN deep $1 $2"
	fi
}

steady() {	# MODE ROW -> "median_ns_per_event bytes_per_event"
	local pids="" i bytes
	for i in $(seq 0 $((NCPU - 1))); do
		# shellcheck disable=SC2046 # the command's words
		taskset -c "$i" $(row_cmd "$2" 6) >/dev/null &
		pids="$pids${pids:+,}$!"
	done
	sleep 0.2
	"$STITCH" record --stats --unwind="$1" -F "$HZ" -d 5 -p "$pids" -o "$T/out.folded" \
		2>"$T/err" &
	local st=$!
	sleep 1.5
	bpf_ns_per_run on_perf_event 6 0.5 >"$T/win"
	wait "$st"
	wait
	bytes=$(sed -n 's/.*bytes\/event \([0-9]*\)$/\1/p' "$T/err")
	echo "$(cat "$T/win") ${bytes:--}"
}

walk() {	# ROW -> "walk_ns frames"
	# shellcheck disable=SC2046 # the command's words
	taskset -c 0 "$STITCH" record --stats=walks -F "$HZ" -o "$T/out.folded" -- \
		$(row_cmd "$1" 2) 2>"$T/err" >/dev/null
	sed -n 's/.*kernel unwinding: \([0-9]*\) ns per walk, \([0-9.]*\) frames.*/\1 \2/p' "$T/err"
}

for d in recurse $DEPTHS; do
	for i in $(seq "$RUNS"); do
		steady copy "$d" >>"$T/copy.$d"
		steady kernel "$d" >>"$T/kernel.$d"
	done
	walk "$d" >"$T/walk.$d"
done
col() { awk -v c="$2" '$c != "-" { print $c }' "$1" | median; }

echo "bench: on each of $NCPU CPUs at $HZ Hz, medians of $RUNS runs, $(uname -r)"
echo "  recurse: 40 levels, a stack that changes at every sample (headline);"
echo "  N: chain deep N, one stack that never changes (best case)"
printf '| %7s | %6s | %8s | %8s | %22s | %6s | %24s | %17s |\n' workload frames "walk ns" \
	"ns/frame" "BPF ns/event (kernel)" fixed "BPF ns/event (copy)" "bytes/event k/c"
printf '|%s|\n' "---------|--------|----------|----------|------------------------|--------|--------------------------|-------------------"
for d in recurse $DEPTHS; do
	read -r wns frames <"$T/walk.$d"
	kns=$(col "$T/kernel.$d" 1)
	printf '| %7s | %6s | %8s | %8s | %22s | %6s | %24s | %17s |\n' "$d" "${frames:--}" \
		"${wns:--}" "$(awk -v w="${wns:-}" -v f="${frames:-}" 'BEGIN {
			if (w != "" && f > 0) printf "%.1f", w / f; else printf "-" }')" \
		"$kns" "$(awk -v k="$kns" -v w="${wns:-}" 'BEGIN {
			if (k != "" && w != "") printf "%d", k - w; else printf "-" }')" \
		"$(col "$T/copy.$d" 1)" "$(col "$T/kernel.$d" 2) / $(col "$T/copy.$d" 2)"
done

# Startup on a running python3.11: its 19 or so binaries' tables.
if command -v python3.11 >/dev/null; then
	python3.11 -c 'while True: pass' &
	py=$!
	sleep 0.5
	for i in $(seq "$RUNS"); do
		"$STITCH" record --stats -F 99 -p "$py" -d 0.2 -o "$T/py.folded" 2>&1 |
			sed -n 's/.*tables loaded in \([0-9]*\) ms$/\1/p'
	done | median >"$T/py"
	kill "$py"
	wait "$py" 2>/dev/null
	echo "python3.11 -p startup (tables parsed, loaded, list written): $(cat "$T/py") ms (median)"
fi

# Loading the capture programs: the kernel verifies and JITs them at every
# start (a native COMMAND: its entry point and the worker without walkers).
if command -v strace >/dev/null; then
	for i in $(seq "$RUNS"); do
		strace -T -e trace=bpf -o "$T/strace" "$STITCH" record -F 99 -d 0.1 \
			-o "$T/out.folded" -- sleep 0.2 2>/dev/null
		grep 'BPF_PROG_LOAD' "$T/strace" | sed -n 's/.*<\([0-9.]*\)>$/\1/p' |
			awk '{ s += $1 } END { printf "%.0f\n", s * 1000 }'
	done | median >"$T/load"
	echo "loading the BPF programs (verifier + JIT, all of them): $(cat "$T/load") ms (median)"
fi
