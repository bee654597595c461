#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What tracing allocations costs the traced program: `stitch record -e
# alloc` next to BCC's memleak (Debian's bpfcc-tools), on the same
# programs, in one run:
#
#   C loop   tests/workloads/alloc_paths.c paths N: 3 mallocs a round
#            (100 bytes kept, 2 x 300 freed): the realistic allocator-bound
#            case, every call a uprobe trap
#   Python   tests/workloads/alloc_grow.py N: a list grown by 2000-byte
#            bytearrays, then 1000-byte ones dropped (the interpreter's
#            own small objects come from its arenas: an mmap each, rare)
#
# Tracers, each attached to the waiting program (-p) before it starts:
#   none         the program alone
#   stitch       record -e alloc (one sample per 512 KiB, the default)
#   stitch-all   record -e alloc --alloc-sample 1 (every allocation's stack)
#   inuse        record -e alloc --inuse (sampled, as stitch; the blocks
#                still allocated at the end: memleak's question)
#   inuse-all    record -e alloc --inuse --alloc-sample 1 (every block)
#   memleak      memleak-bpfcc -p PID (every allocation and free, and the
#                stack of every allocation: its default)
#
# For each, RUNS runs; the median of the program's own wall time for its
# loops (it prints elapsed_ns), and the slowdown: that over the untraced
# median.  Each allocator call traps into the kernel once per uprobe on it
# (stitch: one, at entry; --inuse and memleak: entry and return, and
# free's entry), which is the floor of any uprobe-based tracer: the "floor"
# row is stitch with a sample period no allocation reaches (1G): the traps
# and the sampling test, no stack; "inuse-floor" is the same with --inuse.
#
#   bench/alloc_cost.sh     (RUNS=3 N=400000 PY_N=100000; as root)
set -u
cd "$(dirname "$0")/.."

RUNS=${RUNS:-3}
N=${N:-400000}
PY_N=${PY_N:-100000}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
bench_start allocbench

MEMLEAK=$(command -v memleak-bpfcc || echo /usr/sbin/memleak-bpfcc)
[ -x "$MEMLEAK" ] || { echo "bench: needs bpfcc-tools (scripts/install-deps.sh)" >&2; exit 1; }
# BCC compiles memleak's program against the running kernel's headers.  A
# kernel with none (this VM's) gets Debian's (linux-headers-amd64), seen
# as its own in a mount namespace of memleak's: its uprobe programs read
# only pt_regs, the same in every kernel.
memleak() {
	local h
	if [ -e "/lib/modules/$(uname -r)/build" ]; then
		"$MEMLEAK" "$@"
		return
	fi
	h=$(ls -d /usr/src/linux-headers-*-"$(dpkg --print-architecture)" 2>/dev/null | tail -1)
	[ -n "$h" ] || { echo "bench: memleak needs kernel headers (linux-headers-$(dpkg --print-architecture))" >&2; return 1; }
	unshare -m sh -c 'mount -t tmpfs none /lib/modules && mkdir "/lib/modules/$(uname -r)" &&
		ln -s "$1" "/lib/modules/$(uname -r)/build" && ln -s "${1%-*}-common" "/lib/modules/$(uname -r)/source" &&
		shift && exec "$@"' sh "$h" "$MEMLEAK" "$@"
}
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -o build/workloads/alloc_paths tests/workloads/alloc_paths.c || exit 1
PATHS=$(realpath build/workloads/alloc_paths)

# run TRACER WORKLOAD -> the program's elapsed_ns (empty if it failed)
run() {
	local tracer=$1 wl=$2 wpid tp='' ready=2 i
	rm -f "$T/go" "$T/out"
	mkfifo "$T/go"
	case $wl in
	c) "$PATHS" paths "$N" wait <"$T/go" >"$T/out" & ;;
	py) python3 tests/workloads/alloc_grow.py "$PY_N" wait <"$T/go" >"$T/out" & ;;
	esac
	wpid=$!
	exec 3>"$T/go"
	case $tracer in
	stitch) "$STITCH" record -e alloc -p "$wpid" -o "$T/s.folded" 2>"$T/s.err" & tp=$! ;;
	stitch-all) "$STITCH" record -e alloc --alloc-sample 1 -p "$wpid" -o "$T/s.folded" 2>"$T/s.err" & tp=$! ;;
	floor) "$STITCH" record -e alloc --alloc-sample 1G -p "$wpid" -o "$T/s.folded" 2>"$T/s.err" & tp=$! ;;
	inuse) "$STITCH" record -e alloc --inuse -p "$wpid" -o "$T/s.folded" 2>"$T/s.err" & tp=$! ;;
	inuse-all) "$STITCH" record -e alloc --inuse --alloc-sample 1 -p "$wpid" -o "$T/s.folded" 2>"$T/s.err" & tp=$! ;;
	inuse-floor) "$STITCH" record -e alloc --inuse --alloc-sample 1G -p "$wpid" -o "$T/s.folded" 2>"$T/s.err" & tp=$! ;;
	memleak) memleak -p "$wpid" 3600 >"$T/m.out" 2>&1 & tp=$! ready=0 ;;
	esac
	# Attached: memleak says so once its program is compiled (~4 s here).
	if [ "$tracer" = memleak ]; then
		for i in $(seq 300); do
			grep -q '^Attaching' "$T/m.out" 2>/dev/null && break
			sleep 0.1
		done
		grep -q '^Attaching' "$T/m.out" || { cat "$T/m.out" >&2; kill "$wpid"; return; }
	fi
	[ -n "$tp" ] && sleep "${ready:-1}"
	echo g >&3
	exec 3>&-
	wait "$wpid"
	if [ -n "$tp" ]; then
		# memleak runs under unshare, in a subshell: signalled by name
		[ "$tracer" = memleak ] && pkill -INT -f "memleak-bpfcc -p $wpid " 2>/dev/null
		kill -INT "$tp" 2>/dev/null
		# A memleak left running keeps its uprobe on malloc, and the kernel
		# then refuses stitch's there (attach.c): never leave one behind.
		if [ "$tracer" = memleak ]; then
			sleep 2
			pkill -KILL -f "memleak-bpfcc -p $wpid " 2>/dev/null
		fi
		wait "$tp" 2>/dev/null
	fi
	awk '$1 == "elapsed_ns" { print $2 }' "$T/out"
}

echo "bench: $(uname -r), $(nproc) CPUs; C loop: alloc_paths paths $N ($((N * 3)) mallocs); Python: alloc_grow.py $PY_N; $RUNS runs each, medians"
printf '%-8s %-11s %12s %9s\n' workload tracer ms slowdown
for wl in c py; do
	base=''
	for tracer in none floor stitch stitch-all inuse-floor inuse inuse-all memleak; do
		ms=$(for i in $(seq "$RUNS"); do run "$tracer" "$wl"; done |
			awk 'NF { printf "%.1f\n", $1 / 1e6 }' | median)
		[ "$tracer" = none ] && base=$ms
		printf '%-8s %-11s %12s %9s\n' "$wl" "$tracer" "$ms" \
			"$(awk -v a="$ms" -v b="$base" 'BEGIN { if (a + 0 > 0 && b + 0 > 0) printf "%.2fx", a / b; else print "-" }')"
	done
done
