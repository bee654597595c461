#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Line profile of stitch's sampling program while it traces EVENT: stitch
# records EVENT for COMMAND on CPU 1, perf samples CPU 1 for SECONDS, and
# bpf-lineprof maps the samples that landed in stitch's programs to source
# lines.  Use an event whose program runs with interrupts enabled (syscall:,
# tracepoint:, uprobe:): a cpu-clock sample cannot land inside the program
# of another cpu-clock event.
#
#   tools/bpf-lineprof/run.sh syscall:getppid build/workloads/chain deep-syscall 36 8
#   (as root; SECONDS=3 STITCH=./stitch)
set -eu
cd "$(dirname "$0")/../.."
STITCH=${STITCH:-./stitch}
SECS=${SECONDS_SAMPLED:-3}
T=$(mktemp -d /tmp/stitch-lineprof.XXXXXX)
trap 'rm -rf "$T"' EXIT
[ $# -ge 2 ] || { echo "usage: $0 EVENT COMMAND [ARGS...]" >&2; exit 2; }
gcc -O2 -Wall -Wextra -Werror -o "$T/bpf-lineprof" tools/bpf-lineprof/bpf-lineprof.c -lbpf
ev=$1
shift
taskset -c 1 "$STITCH" record --stats -e "$ev" -o "$T/out.folded" -- "$@" 2>"$T/stats" &
st=$!
sleep 1.5
perf record -q -e cpu-clock -F 9999 -C 1 -o "$T/perf.data" -- sleep "$SECS" 2>/dev/null
perf script -i "$T/perf.data" -F ip,sym 2>/dev/null | awk '/bpf_prog_/ { print $1 }' >"$T/ips"
ids=$(bpftool prog show | awk '/ name (on|capture)_(tracepoint|uprobe|kprobe|perf_event) / { sub(":", "", $1); print $1 }')
for id in $ids; do
	"$T/bpf-lineprof" "$id" <"$T/ips" 2>/dev/null
done | sort -rn | head -"${LINES_SHOWN:-40}"
wait "$st" || true
sed -n 's/^stitch stats: bpf runs/bpf runs/p' "$T/stats"
