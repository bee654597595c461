#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What an event costs when its stack runs through V8's JavaScript frames,
# named from node's heap, or HotSpot's Java frames, named from the JVM's
# vmStructs (issue 39), against a native process of the same depth, in the
# same run:
#   node     bench/workloads/flat.js, node with no flag: ~27 JavaScript
#            frames (loop, f1..f17, node's own module loader), every one a
#            different function, over node's ~13 native frames; each frame
#            stepped by frame pointer and its function slot read (a
#            KFRAME_V8 word after it)
#   java     bench/workloads/Flat.java, java with no flag: main, loop,
#            f17..f1 (leaf inlined into f1) over the JVM's ~9 native frames;
#            the kernel hands the stack over (a pc in the code cache) and
#            user space steps the compiled frames by their nmethods' sizes
#   native   bench/workloads/depth.c at node's number of frames, every one
#            a different function, unwound from its CFI (-O2, no frame pointer)
# One process pinned to each CPU, traced with -p at HZ, so that every run of
# the sampling program is an event of ours.  RUNS runs each, alternating;
# medians of
#   BPF ns/event  on_perf_event's run_time_ns / run_cnt (bpf_stats) over
#                 0.5 s windows once recording is steady (after 1.5 s)
#   bytes/event   bytes from the kernel per event (--stats)
#   user us/event stitch's own CPU time (user + system) per event: what the
#                 stacks handed over cost it (the copy's unwinding, naming)
#   frames        of the heaviest stack
#
#   bench/jit_cost.sh       (HZ=999 RUNS=3; as root)
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
command -v javac >/dev/null || { echo "bench: needs javac" >&2; exit 1; }
mkdir -p "$T/classes" && javac -d "$T/classes" bench/workloads/Flat.java || exit 1
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
	java) echo "java -cp $T/classes Flat $2" ;;
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
	/usr/bin/time -f 'cpu %U %S' -o "$T/time" \
		"$STITCH" record --stats -F "$HZ" -d 5 -p "$pids" -o "$T/$1.folded" 2>"$T/err" &
	local st=$!
	sleep 1.5
	bpf_ns_per_run on_perf_event 6 0.5 >"$T/win"
	wait "$st"
	wait
	bytes=$(sed -n 's/.*bytes\/event \([0-9]*\)$/\1/p' "$T/err")
	events=$(sed -n 's/.*stats: events \([0-9]*\),.*/\1/p' "$T/err")
	us=$(awk -v e="${events:-0}" '/^cpu/ { if (e > 0) printf "%.1f", ($2 + $3) * 1e6 / e }' "$T/time")
	echo "$(cat "$T/win") ${bytes:--} $(frames "$T/$1.folded") ${us:--}"
}

# node's depth first: the native row is built to match it.
steady node >"$T/first"
DEPTH=$(awk '{ print $3 }' "$T/first")
for i in $(seq "$RUNS"); do
	for r in node java native; do
		steady "$r" >>"$T/$r"
	done
done
col() { awk -v c="$2" '$c != "-" { print $c }' "$1" | median; }

echo "bench: on each of $NCPU CPUs at $HZ Hz, medians of $RUNS runs, $(uname -r)," \
	"node $(node --version), $(java -version 2>&1 | head -1)"
printf '| %6s | %6s | %12s | %11s | %13s |\n' row frames "BPF ns/event" "bytes/event" \
	"user us/event"
printf '|%s|\n' "--------|--------|--------------|-------------|---------------"
for r in node java native; do
	printf '| %6s | %6s | %12s | %11s | %13s |\n' "$r" "$(col "$T/$r" 3)" "$(col "$T/$r" 1)" \
		"$(col "$T/$r" 2)" "$(col "$T/$r" 4)"
done
awk -v n="$(col "$T/node" 1)" -v j="$(col "$T/java" 1)" -v c="$(col "$T/native" 1)" \
	-v ju="$(col "$T/java" 4)" -v cu="$(col "$T/native" 4)" 'BEGIN {
	if (c > 0) printf "node / native, BPF ns per event: %.2f\n", n / c
	if (c > 0) printf "java / native, BPF ns per event: %.2f\n", j / c
	if (cu > 0) printf "java / native, stitch CPU per event: %.1f\n", ju / cu }'
