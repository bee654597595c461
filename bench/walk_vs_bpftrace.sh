#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What a whole stack costs per event in the kernel, stitch against the
# cheapest whole stack the kernel offers: bpftrace's `@[kstack, ustack] =
# count()`, the kernel's frame-pointer walk (bpf_get_stackid), on a frame-
# pointer build of tests/workloads/recurse.c (40-deep recursion passing a
# counter down, 32 code paths: a stack that changes at every sample), in
# the same run.  stitch walks what production runs: the same recursion
# built without frame pointers (DWARF CFI, in the kernel), and interpreter
# stacks (bench/workloads/flat.*: ~20 frames of 17 different functions over
# a leaf that computes) with their native frames.  Issue 41's targets: the
# native walk at most 0.35x of bpftrace's, Python's at most 1.0x.
# Rows labelled "best" are the best cases beside them: the recursion of one
# function (deep.*), whose repeated frames a walk reads once.
# One process pinned to each CPU, all traced at HZ (bpftrace filters on the
# pids; stitch with -p), so that nearly every run of the sampling program
# is an event of ours; rows alternate, RUNS times; medians of the median
# BPF ns per run (bpf_stats) over 0.5 s windows once recording is steady.
#
#   bench/walk_vs_bpftrace.sh     (HZ=999 RUNS=3 ROWS="native python ruby
#                                  perl python-best ruby-best perl-best"; as root)
set -u
cd "$(dirname "$0")/.." || exit 1

HZ=${HZ:-999}
RUNS=${RUNS:-3}
ROWS=${ROWS:-native python ruby perl python-best ruby-best perl-best}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start walkbt

for tool in bpftool bpftrace; do
	command -v $tool >/dev/null || { echo "bench: needs $tool (scripts/install-deps.sh)" >&2; exit 1; }
done
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -o build/workloads/recurse tests/workloads/recurse.c || exit 1
gcc -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer -g \
	-o build/workloads/recurse-fp tests/workloads/recurse.c || exit 1
RECURSE=$(realpath build/workloads/recurse)
RECURSE_FP=$(realpath build/workloads/recurse-fp)
NCPU=$(nproc)

row_cmd() {	# ROW SECONDS
	case $1 in
	peer) echo "$RECURSE_FP 40 $2" ;;
	native) echo "$RECURSE 40 $2" ;;
	python) echo "/usr/bin/python3.11 bench/workloads/flat.py $2" ;;
	ruby) echo "/usr/bin/ruby bench/workloads/flat.rb $2" ;;
	perl) echo "/usr/bin/perl bench/workloads/flat.pl $2" ;;
	python-best) echo "/usr/bin/python3.11 bench/workloads/deep.py $2" ;;
	ruby-best) echo "/usr/bin/ruby bench/workloads/deep.rb $2" ;;
	perl-best) echo "/usr/bin/perl bench/workloads/deep.pl $2" ;;
	esac
}

# Frames of the heaviest stack of a folded file (its first is the process's name).
top_frames() {
	awk '{ print $NF, $0 }' "$1" | sort -n | tail -1 | cut -d' ' -f2- | tr ';' '\n' |
		awk 'END { print NR - 1 }'
}

steady() {	# ROW -> median ns per run
	local pids="" filter="" i tr
	for i in $(seq 0 $((NCPU - 1))); do
		# shellcheck disable=SC2046 # the command's words
		taskset -c "$i" $(row_cmd "$1" 7) >/dev/null &
		pids="$pids${pids:+,}$!"
		filter="$filter${filter:+ || }pid == $!"
	done
	sleep 0.5
	if [ "$1" = peer ]; then
		bpftrace -e "profile:hz:$HZ /$filter/ { @[kstack, ustack] = count(); }" \
			>"$T/peer.out" 2>&1 &
		tr=$!
		sleep 2
		bpf_ns_per_run "$HZ" 6 0.5
		kill -INT "$tr"
		wait "$tr"
	else
		"$STITCH" record --stats -F "$HZ" -d 5 -p "$pids" -o "$T/$1.folded" 2>"$T/err" &
		tr=$!
		sleep 1.5
		bpf_ns_per_run on_perf_event 6 0.5
		wait "$tr"
	fi
	wait
}

for i in $(seq "$RUNS"); do
	for r in peer $ROWS; do
		command -v "$(row_cmd "$r" 0 | cut -d' ' -f1)" >/dev/null || continue
		steady "$r" >>"$T/$r"
	done
done
col() { awk '$1 != "-" { print $1 }' "$1" | median; }
PEER=$(col "$T/peer")
# bpftrace's heaviest stack: user frames (between the blank line and the
# next "]") and kernel frames.
PEER_FRAMES=$(awk '/^@\[/ { n = 0; next } /^\]: / { if ($2 + 0 > best) { best = $2 + 0; f = n } next }
	NF { n++ } END { print f + 0 }' "$T/peer.out")

echo "bench: on each of $NCPU CPUs at $HZ Hz, medians of $RUNS runs, $(uname -r)"
printf '| %-46s | %6s | %12s | %14s |\n' row frames "BPF ns/event" "vs bpftrace FP"
printf '|%s|\n' "------------------------------------------------|--------|--------------|----------------"
printf '| %-46s | %6s | %12s | %14s |\n' "bpftrace kstack+ustack, recurse 40 (FP build)" \
	"$PEER_FRAMES" "$PEER" "1.00x"
for r in $ROWS; do
	[ -f "$T/$r" ] || continue
	case $r in
	native) label="stitch DWARF walk, recurse 40 (no FP)" ;;
	*-best) label="stitch ${r%-best}, one function recursing (best)" ;;
	python) label="stitch python3.11, 17 functions (flat.py)" ;;
	ruby) label="stitch ruby, 17 functions (flat.rb)" ;;
	perl) label="stitch perl, 17 functions (flat.pl)" ;;
	esac
	ns=$(col "$T/$r")
	printf '| %-46s | %6s | %12s | %14s |\n' "$label" "$(top_frames "$T/$r.folded")" "$ns" \
		"$(awk -v a="$ns" -v b="$PEER" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else printf "-" }')"
done
