#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# stitch snapshot against eu-stack and gdb (issue 16), as root:
#  1. time: 50 processes of 20 threads (tests/workloads/snapshot_threads.c
#     "quiet"), one stitch invocation of 3 rounds (the first cold: no unwind
#     table or symbol loaded yet; the next warm), then eu-stack -p on each;
#  2. stopping: a spinner's counter rate while nothing, stitch (40 rounds),
#     eu-stack (20 runs) and gdb (3 runs) look at its process;
#  3. script frames: 10 each of the Python, Ruby and Perl snapshot workloads
#     (300 threads), one stitch invocation of 3 rounds, then eu-stack.
#
#   bench/snapshot.sh          (make first; needs eu-stack (elfutils) and gdb)
set -eu
cd "$(dirname "$0")/.."
out=build/bench
mkdir -p "$out"
gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -pthread \
	-o "$out/snapshot_threads" tests/workloads/snapshot_threads.c
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
mono() { python3 -c 'import time; print("%.9f" % time.monotonic())'; }

for i in $(seq 50); do
	"$out/snapshot_threads" - quiet >/dev/null &
	pids+=("$!")
done
sleep 2
list=$(IFS=,; echo "${pids[*]}")
/usr/bin/time -f "stitch: whole invocation %e s (BPF load included)" \
	./stitch snapshot -p "$list" --count 3 --interval 10ms -o "$out/snapshot.txt"
grep '^stitch snapshot:' "$out/snapshot.txt"
a=$(mono)
for p in "${pids[@]}"; do eu-stack -p "$p" >/dev/null 2>&1; done
b=$(mono)
awk -v a="$a" -v b="$b" 'BEGIN { printf "eu-stack -p on each of the 50: %.0f ms\n", (b - a) * 1e3 }'
kill "${pids[@]}"
pids=()

# rate FROM TO: the spinner's increments per second, from its 100 ms log.
rate() {
	awk -v a="$1" -v b="$2" '$1 >= a && $1 <= b { if (!n++) { t0 = $1; c0 = $2 } t1 = $1; c1 = $2 }
		END { if (t1 > t0) printf "%.0f", (c1 - c0) / (t1 - t0); else print 0 }' "$out/counter.log"
}
"$out/snapshot_threads" "$out/counter.log" >/dev/null &
pids+=("$!")
sleep 1
# The spinner alone on CPU 1, the tools on CPU 0: what is measured is
# stopping, not sharing a CPU with the tool's own work.
for t in /proc/"${pids[0]}"/task/*; do
	[ "$(awk '{ print $3 }' "$t/stat")" = R ] && taskset -pc 1 "${t##*/}" >/dev/null
done
t0=$(mono); sleep 2; t1=$(mono)
taskset -c 0 ./stitch snapshot -p "${pids[0]}" --count 40 --interval 50ms -o "$out/ns.txt"
t2=$(mono)
for i in $(seq 20); do taskset -c 0 eu-stack -p "${pids[0]}" >/dev/null 2>&1; sleep 0.05; done
t3=$(mono)
for i in 1 2 3; do taskset -c 0 gdb -p "${pids[0]}" -batch -nx -ex 'thread apply all bt' >/dev/null 2>&1; done
t4=$(mono)
sleep 0.3
base=$(rate "$t0" "$t1")
for w in "stitch x40:$t1:$t2" "eu-stack x20:$t2:$t3" "gdb x3:$t3:$t4"; do
	IFS=: read -r name from to <<<"$w"
	r=$(rate "$from" "$to")
	awk -v n="$name" -v r="$r" -v b="$base" -v a="$from" -v z="$to" 'BEGIN {
		printf "%-13s spinner at %5.1f%% of its rate alone over %.2f s (%.0f ms not run)\n",
			n, 100 * r / b, z - a, (1 - r / b) * (z - a) * 1e3 }'
done

# 3. Interpreters: their threads' frames walked in the iterator, named from
# their memory (code objects, iseqs) the first time, from caches after.
kill "${pids[@]}" 2>/dev/null || true
pids=()
wl=tests/workloads/interp
for i in $(seq 10); do
	/usr/bin/python3.11 "$wl/py_snapshot.py" >/dev/null &
	pids+=("$!")
	/usr/bin/ruby3.1 "$wl/rb_snapshot.rb" >/dev/null &
	pids+=("$!")
	/usr/bin/perl "$wl/pl_snapshot.pl" >/dev/null &
	pids+=("$!")
done
sleep 3
list=$(IFS=,; echo "${pids[*]}")
./stitch snapshot -p "$list" --count 3 --interval 10ms -o "$out/interp.txt"
grep '^stitch snapshot:' "$out/interp.txt"
a=$(mono)
for p in "${pids[@]}"; do eu-stack -p "$p" >/dev/null 2>&1; done
b=$(mono)
awk -v a="$a" -v b="$b" 'BEGIN { printf "eu-stack -p on each of the 30 (native frames only): %.0f ms\n", (b - a) * 1e3 }'
