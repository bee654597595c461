#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What an event costs in the kernel when its stack runs through V8's
# JavaScript frames, named from node's heap (issue 39), against a native
# process of the same depth, in the same run:
#   node     bench/workloads/flat.js, node with no flag: ~27 JavaScript
#            frames (loop, f1..f17, node's own module loader), every one a
#            different function, over node's ~13 native frames; each frame
#            stepped by frame pointer and its function slot read (a
#            KFRAME_V8 word after it)
#   native   bench/workloads/depth.c at the same number of frames, every one
#            a different function, unwound from its CFI (-O2, no frame pointer)
# One process pinned to each CPU, traced with -p at HZ, so that every run of
# the sampling program is an event of ours.  RUNS runs each, alternating;
# medians of
#   BPF ns/event  on_perf_event's run_time_ns / run_cnt (bpf_stats) over
#                 0.5 s windows once recording is steady (after 1.5 s)
#   bytes/event   bytes from the kernel per event (--stats)
#   frames        of the heaviest stack
#
#   bench/jit_cost.sh       (HZ=999 RUNS=3; as root)
# The JVM's row waits for HotSpot's frames read without flags (not yet).
set -u
cd "$(dirname "$0")/.."

HZ=${HZ:-999}
RUNS=${RUNS:-3}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start jitcost

command -v bpftool >/dev/null || { echo "bench: needs bpftool" >&2; exit 1; }
command -v node >/dev/null || { echo "bench: needs node" >&2; exit 1; }
NCPU=$(nproc)
gcc -O2 -g -fomit-frame-pointer -Wall -Wextra -Werror -o "$T/depth" bench/workloads/depth.c ||
	exit 1

# Frames of the heaviest stack of a folded file, the comm aside.
frames() {
	awk '{ print $NF, $0 }' "$1" | sort -n | tail -1 | cut -d' ' -f2- | sed 's/ [0-9]*$//' |
		tr ';' '\n' | tail -n +2 | wc -l
}

row_cmd() {	# ROW SECONDS
	case $1 in
	node) echo "node bench/workloads/flat.js $2" ;;
	# main, the leaf and glibc's start: 5 frames besides the levels
	native) echo "$T/depth $2 $((DEPTH - 5))" ;;
	esac
}

steady() {	# ROW -> "median_ns_per_event bytes_per_event"
	local i bytes pids=""
	for i in $(seq 0 $((NCPU - 1))); do
		# shellcheck disable=SC2046 # the command's words
		taskset -c "$i" $(row_cmd "$1" 7) >/dev/null &
		pids="$pids${pids:+,}$!"
	done
	sleep 1
	"$STITCH" record --stats -F "$HZ" -d 5 -p "$pids" -o "$T/$1.folded" 2>"$T/err" &
	local st=$!
	sleep 1.5
	bpf_ns_per_run on_perf_event 6 0.5 >"$T/win"
	wait "$st"
	wait
	bytes=$(sed -n 's/.*bytes\/event \([0-9]*\)$/\1/p' "$T/err")
	echo "$(cat "$T/win") ${bytes:--} $(frames "$T/$1.folded")"
}

# node's depth first: the native row is built to match it.
steady node >"$T/first"
DEPTH=$(awk '{ print $3 }' "$T/first")
for i in $(seq "$RUNS"); do
	for r in node native; do
		steady "$r" >>"$T/$r"
	done
done
col() { awk -v c="$2" '$c != "-" { print $c }' "$1" | median; }

echo "bench: on each of $NCPU CPUs at $HZ Hz, medians of $RUNS runs, $(uname -r), $(node --version)"
printf '| %6s | %6s | %12s | %11s |\n' row frames "BPF ns/event" "bytes/event"
printf '|%s|\n' "--------|--------|--------------|-------------"
for r in node native; do
	printf '| %6s | %6s | %12s | %11s |\n' "$r" "$(col "$T/$r" 3)" "$(col "$T/$r" 1)" \
		"$(col "$T/$r" 2)"
done
awk -v n="$(col "$T/node" 1)" -v c="$(col "$T/native" 1)" \
	'BEGIN { if (c > 0) printf "node / native, BPF ns per event: %.2f\n", n / c }'
