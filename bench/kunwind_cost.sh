#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What in-kernel unwinding costs per event, against copying the stack:
# `chain deep N` (-O2, no frame pointers) sampled at HZ with --unwind=copy
# and --unwind=kernel, RUNS times each, alternating; medians of
#   walk ns      time in the kernel's user-stack walk (bpf_ktime around it)
#   frames       user frames per walk
#   BPF ns/event all BPF run time (kernel.bpf_stats_enabled) over the events
#                recorded: the whole program, kernel stack walk included; an
#                upper bound, as runs for filtered-out tasks count too
#   bytes/event  ring buffer bytes per event
# and a python3.11 process's table load time (-p: parse, build, write).
#
#   bench/kunwind_cost.sh     (DEPTH=36 gives ~40 frames; HZ=999 RUNS=5; as root)
set -u
cd "$(dirname "$0")/.."

HZ=${HZ:-999}
RUNS=${RUNS:-5}
DEPTH=${DEPTH:-36}
SECS=${SECS:-2}
STITCH=${STITCH:-./stitch}
T=$(mktemp -d /tmp/stitch-kcost.XXXXXX)
trap 'rm -rf "$T"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
[ -x "$STITCH" ] || { echo "bench: build stitch first (make)" >&2; exit 1; }
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -pthread -o build/workloads/chain tests/workloads/chain.c || exit 1
CHAIN=$(realpath build/workloads/chain)
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -qw kernel.bpf_stats_enabled=1
trap 'sysctl -qw kernel.bpf_stats_enabled=$old_stats; rm -rf "$T"' EXIT

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "-") }'; }

one() {	# MODE -> "walk_ns frames bpf_ns_per_event bytes"
	taskset -c 1 "$STITCH" record --stats=walks --unwind="$1" -F "$HZ" -o "$T/out.folded" -- \
		"$CHAIN" deep "$DEPTH" "$SECS" 2>"$T/err"
	local walk frames bpf bytes
	walk=$(sed -n 's/.*kernel unwinding: \([0-9]*\) ns per walk, \([0-9.]*\) frames.*/\1/p' "$T/err")
	frames=$(sed -n 's/.*kernel unwinding: \([0-9]*\) ns per walk, \([0-9.]*\) frames.*/\2/p' "$T/err")
	bpf=$(sed -n 's/.*ns\/run, \([0-9]*\) ns per event$/\1/p' "$T/err")
	bytes=$(sed -n 's/.*bytes\/event \([0-9]*\)$/\1/p' "$T/err")
	echo "${walk:--} ${frames:--} ${bpf:--} ${bytes:--}"
}

for i in $(seq "$RUNS"); do
	one copy >>"$T/copy"
	one kernel >>"$T/kernel"
done
col() { awk -v c="$2" '$c != "-" { print $c }' "$1" | median; }

echo "bench: chain deep $DEPTH at $HZ Hz, medians of $RUNS runs, $(uname -r)"
printf '| %-16s | %8s | %7s | %13s | %11s |\n' mode "walk ns" frames "BPF ns/event" bytes/event
printf '|%s|\n' "------------------|----------|---------|---------------|-------------"
for m in copy kernel; do
	printf '| %-16s | %8s | %7s | %13s | %11s |\n' "--unwind=$m" "$(col "$T/$m" 1)" \
		"$(col "$T/$m" 2)" "$(col "$T/$m" 3)" "$(col "$T/$m" 4)"
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
