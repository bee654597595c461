#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# stitch record vs `perf record --call-graph dwarf` + `perf script` vs bpftrace
# `@[ustack, kstack] = count()`, on one workload at one rate, in one run.
#
# The workload (tests/workloads/chain.c, -O2 -fomit-frame-pointer) does a
# fixed amount of work in main -> a -> b -> c -> burn and starts only once the
# tracer is attached.  For each tracer we report:
#   slowdown   workload elapsed time vs. an untraced run just before it
#   tracer CPU user+sys seconds of the tracer, post-processing included
#              (perf script; stitch and bpftrace symbolize before exiting),
#              plus the run time of the BPF programs of stitch and bpftrace
#              (it runs in the traced threads' context, so `time` misses it)
#   BPF ns     average BPF program run time per run (kernel.bpf_stats_enabled)
#   BPF/event  stitch: all its sampling programs' run time over the events kept
#              (runs for other tasks, filtered out early, count too: an upper bound)
#   bytes/smp  bytes moved from the kernel per sample
#   complete   share of samples whose user stack reaches _start through
#              main;a;b;c (what you need to attribute the time)
#
#   bench/run.sh            (HZ=999 WORK=6000 THREADS=2 by default; as root)
#
# By default the workload runs one thread per CPU (main and THREADS-1
# workers, each doing WORK units) and every process may run anywhere: the
# tracer competes with the workload as it would in production.  THREADS=1
# WCPU=1 TCPU=0 gives the workload and the tracer a CPU each instead.
set -u
cd "$(dirname "$0")/.."

HZ=${HZ:-999}
THREADS=${THREADS:-$(nproc)}
WORK=${WORK:-6000}
STITCH=${STITCH:-./stitch}
UNWIND=${UNWIND:-kernel}	# stitch's --unwind mode: kernel (the default) or copy
WCPU=${WCPU:-0-$(($(nproc) - 1))}
TCPU=${TCPU:-0-$(($(nproc) - 1))}
T=$(mktemp -d /tmp/stitch-bench.XXXXXX)
trap 'rm -rf "$T"' EXIT

[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
for tool in perf bpftrace bpftool; do
	command -v $tool >/dev/null || { echo "bench: $tool missing (scripts/install-deps.sh)" >&2; exit 1; }
done
[ -x "$STITCH" ] || { echo "bench: build stitch first (make)" >&2; exit 1; }
mkdir -p build/workloads
gcc -O2 -fomit-frame-pointer -g -pthread -o build/workloads/chain tests/workloads/chain.c || exit 1
CHAIN=$(realpath build/workloads/chain)
sysctl -qw kernel.bpf_stats_enabled=1

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# Workload that waits for the go byte on a fifo; sets WPID.  With IDLE_FOR
# set, a process that only sleeps that long instead: the tracer's fixed cost.
start_workload() {
	rm -f "$T/go"
	mkfifo "$T/go"
	if [ -n "${IDLE_FOR:-}" ]; then
		{ sleep "$IDLE_FOR"; echo "$IDLE_FOR"; } <"$T/go" >"$T/elapsed" &
	else
		taskset -c "$WCPU" "$CHAIN" work "$WORK" wait "$THREADS" <"$T/go" >"$T/elapsed" &
	fi
	WPID=$!
	exec 3>"$T/go"
}

go_workload() {
	echo g >&3
	exec 3>&-
}

wait_pid_gone() {
	while kill -0 "$1" 2>/dev/null; do sleep 0.05; done
}

# BPF run time of perf_event programs not in the "before" snapshot.
bpf_snapshot() {
	bpftool prog show 2>/dev/null | awk '
		/^[0-9]+: perf_event/ { id = $1; ns = 0; n = 0
			for (i = 1; i < NF; i++) {
				if ($i == "run_time_ns") ns = $(i + 1)
				if ($i == "run_cnt") n = $(i + 1)
			}
			print id, ns, n }'
}

bpf_new_cost() {	# before after -> "ns_per_run total_seconds"
	awk 'FILENAME == ARGV[1] { seen[$1] = 1; next } !($1 in seen) { ns += $2; n += $3 }
	     END { if (n) printf "%.0f %.3f", ns / n, ns / 1e9; else print "- 0" }' "$1" "$2"
}

echo "bench: workload 'chain work $WORK' in $THREADS thread(s) on CPUs $WCPU, tracer on CPUs $TCPU, $HZ Hz, $(nproc) CPUs, $(uname -r)"
run_base() {
	start_workload
	go_workload
	wait "$WPID"
	cat "$T/elapsed"
}

TIMEFORMAT='%U %S'

# Each run_* prints: elapsed tracer_cpu bpf_ns bytes_per_sample samples complete
run_stitch() {
start_workload
{ time taskset -c "$TCPU" "$STITCH" record --stats --unwind="$UNWIND" -F "$HZ" -p "$WPID" -o "$T/stitch.folded" 2>"$T/stitch.err"; } 2>"$T/stitch.time" &
TP=$!
sleep 2
go_workload
wait "$WPID"
wait "$TP"
S_EL=$(cat "$T/elapsed")
S_BPF=$(sed -n 's/.*bpf runs [0-9]*, \([0-9]*\) ns\/run.*/\1/p' "$T/stitch.err")
S_RUNS=$(sed -n 's/.*bpf runs \([0-9]*\), .*/\1/p' "$T/stitch.err")
S_CPU=$(awk -v r="${S_RUNS:-0}" -v ns="${S_BPF:-0}" '{ printf "%.3f", $1 + $2 + r * ns / 1e9 }' "$T/stitch.time")
S_BPFEV=$(sed -n 's/.*ns\/run, \([0-9]*\) ns per event$/\1/p' "$T/stitch.err")
S_BYTES=$(sed -n 's/.*bytes\/event \([0-9]*\).*/\1/p' "$T/stitch.err")
S_ALL=$(awk '/^chain;/ { n += $NF } END { print n + 0 }' "$T/stitch.folded")
S_OK=$(awk '/^chain;(_start;__libc_start_main;__libc_start_call_main;main|clone3;start_thread;worker);a;b;c(;| )/ { n += $NF } END { print n + 0 }' "$T/stitch.folded")
echo "$S_EL $S_CPU ${S_BPF:--} ${S_BYTES:--} $S_ALL $S_OK ${S_BPFEV:--}"
}

# The sampling timer alone: perf at the same rate with no stack at all.  On
# a VM each timer interrupt may exit to the host; what a tracer costs is
# what it adds to this.
run_timer() {
start_workload
{ time taskset -c "$TCPU" perf record -q -e cpu-clock -F "$HZ" -p "$WPID" -o "$T/timer.data" \
	>/dev/null 2>&1; } 2>"$T/timer.time" &
TP=$!
sleep 2
go_workload
wait "$WPID"
wait "$TP"
echo "$(cat "$T/elapsed") $(awk '{ print $1 + $2 }' "$T/timer.time") - - - - -"
}

run_perf() {
start_workload
bpf_snapshot >/dev/null
{ time ( taskset -c "$TCPU" perf record -q -e cpu-clock -F "$HZ" --call-graph dwarf -p "$WPID" -o "$T/perf.data" >/dev/null 2>&1 &&
	 taskset -c "$TCPU" perf script -i "$T/perf.data" >"$T/perf.txt" 2>/dev/null ); } 2>"$T/perf.time" &
TP=$!
sleep 2
go_workload
wait "$WPID"
wait "$TP"
P_EL=$(cat "$T/elapsed")
P_CPU=$(awk '{ print $1 + $2 }' "$T/perf.time")
P_SIZE=$(stat -c %s "$T/perf.data")
read -r P_ALL P_OK < <(awk '
	/^chain / { n++; blk = "" ; inblk = 1; next }
	inblk && NF == 0 { if (complete(blk)) ok++; inblk = 0; next }
	inblk { blk = blk " " $2 }
	function complete(b) { return b ~ / a\+/ && b ~ / b\+/ && b ~ / c\+/ &&
		((b ~ / _start\+/ && b ~ / main\+/) || (b ~ / clone3\+/ && b ~ / worker\+/)) }
	END { if (inblk && complete(blk)) ok++; print n + 0, ok + 0 }' "$T/perf.txt")
P_BYTES=$(( P_ALL > 0 ? P_SIZE / P_ALL : 0 ))
echo "$P_EL $P_CPU - $P_BYTES $P_ALL $P_OK -"
}

run_bpftrace() {
start_workload
bpf_snapshot >"$T/bpf.before"
{ time ( taskset -c "$TCPU" bpftrace -e "profile:hz:$HZ /pid == $WPID/ { @[ustack, kstack] = count(); }" >"$T/bt.txt" 2>&1 &
	 bp=$!
	 while ! grep -q Attaching "$T/bt.txt" 2>/dev/null; do sleep 0.05; done
	 wait_pid_gone "$WPID"
	 bpf_snapshot >"$T/bpf.after"
	 kill -INT $bp
	 wait $bp ); } 2>"$T/bt.time" &
TP=$!
sleep 2
go_workload
wait "$WPID"
wait "$TP"
B_EL=$(cat "$T/elapsed")
read -r B_BPF B_BPFS < <(bpf_new_cost "$T/bpf.before" "$T/bpf.after")
B_CPU=$(awk -v b="$B_BPFS" '{ printf "%.3f", $1 + $2 + b }' "$T/bt.time")
read -r B_ALL B_OK < <(awk '
	/^@\[/ { blk = ""; inblk = 1; next }
	inblk && /\]: [0-9]+$/ { n += $NF; if (blk ~ / c\+/ && blk ~ / b\+/ && blk ~ / a\+/ && ((blk ~ /_start\+/ && blk ~ / main\+/) || blk ~ /start_thread\+/)) ok += $NF; inblk = 0; next }
	inblk { blk = blk " " $1 }
	END { print n + 0, ok + 0 }' "$T/bt.txt")
echo "$B_EL $B_CPU $B_BPF 0 $B_ALL $B_OK -"
}

# A tracer's fixed cost: the same run, as long, of a process that only
# sleeps (start-up, polling, symbolization setup, perf script's own start; no
# sample).  What the full run costs beyond it, over its samples, is the cost
# per sample.  (A run with a tenth of the work instead also ran 2.7 s less,
# and stitch's polling in that time weighed as much as all its samples.)
idle_run() {	# stitch|perf ELAPSED -> "tracer_cpu 0"
	local r
	r=$(IDLE_FOR=$(awk -v e="$2" 'BEGIN { printf "%.2f", e + 2 }') "run_$1")
	awk '{ print $2, 0 }' <<<"$r"
}

RUNS=${RUNS:-3}
# Median of each column over RUNS runs ("-" if a column has no value).
medians() {
	local rows cols i out=() v
	rows=$(cat)
	cols=$(head -n 1 <<<"$rows" | wc -w)
	for i in $(seq "$cols"); do
		v=$(awk -v c="$i" '$c != "-" { print $c }' <<<"$rows" | median)
		out+=("${v:--}")
	done
	echo "${out[*]}"
}
# Each traced run is paired with an untraced run just before it: this VM's
# speed drifts more between minutes than tracing costs.
for t in timer stitch perf bpftrace; do
	for i in $(seq "$RUNS"); do
		base=$(run_base)
		res=$("run_$t")
		echo "$res $(awk -v a="${res%% *}" -v b="$base" 'BEGIN { printf "%.4f", a / b - 1 }')"
	done | medians >"$T/$t.res"
done
read -r S_EL S_CPU S_BPF S_BYTES S_ALL S_OK S_BPFEV S_SLOW <"$T/stitch.res"
read -r P_EL P_CPU _ P_BYTES P_ALL P_OK _ P_SLOW <"$T/perf.res"
for i in $(seq "$RUNS"); do idle_run stitch "$S_EL"; done | medians >"$T/stitch.idle"
for i in $(seq "$RUNS"); do idle_run perf "$P_EL"; done | medians >"$T/perf.idle"
read -r S_CPU1 S_ALL1 <"$T/stitch.idle"
read -r P_CPU1 P_ALL1 <"$T/perf.idle"
read -r B_EL B_CPU B_BPF _ B_ALL B_OK _ B_SLOW <"$T/bpftrace.res"
read -r T_EL T_CPU _ _ _ _ _ T_SLOW <"$T/timer.res"

pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.1f%%", 100 * a / b }'; }
slow() { awk -v r="$1" 'BEGIN { printf "%+.1f%%", 100 * r }'; }

echo
echo "medians of $RUNS runs each; slowdown: traced vs. an untraced run just before it"
printf '| %-34s | %8s | %9s | %10s | %7s | %9s | %9s | %9s | %8s |\n' tracer samples slowdown "tracer CPU" "BPF ns" "BPF/event" bytes/smp complete elapsed
printf '|%s|\n' "------------------------------------|----------|-----------|------------|---------|-----------|-----------|-----------|----------"
printf '| %-34s | %8s | %9s | %9ss | %7s | %9s | %9s | %9s | %7ss |\n' "stitch record --unwind=$UNWIND" "$S_ALL" "$(slow "$S_SLOW")" "$S_CPU" "${S_BPF:--}" "${S_BPFEV:--}" "${S_BYTES:--}" "$(pct "$S_OK" "$S_ALL")" "$S_EL"
printf '| %-34s | %8s | %9s | %9ss | %7s | %9s | %9s | %9s | %7ss |\n' "perf record --call-graph dwarf" "$P_ALL" "$(slow "$P_SLOW")" "$P_CPU" "-" "-" "$P_BYTES" "$(pct "$P_OK" "$P_ALL")" "$P_EL"
printf '| %-34s | %8s | %9s | %9ss | %7s | %9s | %9s | %9s | %7ss |\n' "bpftrace @[ustack,kstack]=count()" "$B_ALL" "$(slow "$B_SLOW")" "$B_CPU" "$B_BPF" "-" "0 (map)" "$(pct "$B_OK" "$B_ALL")" "$B_EL"
printf '| %-34s | %8s | %9s | %9ss | %7s | %9s | %9s | %9s | %7ss |\n' "timer only (perf, no stacks)" "-" "$(slow "$T_SLOW")" "$T_CPU" "-" "-" "-" "-" "$T_EL"
echo
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (other work on the CPUs makes every number noisy)"
# Issue 5's targets, each against perf on the same run.
awk -v s="$S_SLOW" -v p="$P_SLOW" -v t="$T_SLOW" 'BEGIN { printf "target: slowdown <= 1%% and below perf'"'"'s: stitch %+.1f%%, perf %+.1f%% -> %s\n",
	100 * s, 100 * p, (s <= 0.01 && s < p) ? "met" : "NOT met"
	printf "        above the timer alone (%+.1f%%): stitch %+.1f%%, perf %+.1f%%\n",
	100 * t, 100 * ((1 + s) / (1 + t) - 1), 100 * ((1 + p) / (1 + t) - 1) }'
awk -v e="${S_BPFEV:--}" 'BEGIN { if (e == "-") print "target: BPF <= 1 us per event: not measured"
	else printf "target: BPF <= 1 us per event: %d ns per event -> %s\n", e, (e <= 1000) ? "met" : "NOT met" }'
awk -v s="$S_CPU" -v p="$P_CPU" 'BEGIN { if (s > 0) printf "target: perf tracer CPU / stitch tracer CPU >= 20: %.2f -> %s\n", p / s, (p / s >= 20) ? "met" : "NOT met" }'
# Fixed cost apart (idle runs as long): what each sample costs, and the run
# length from which the whole-run ratio reaches 20.
awk -v sc="$S_CPU" -v sc1="$S_CPU1" -v sn="$S_ALL" -v sn1="$S_ALL1" \
    -v pc="$P_CPU" -v pc1="$P_CPU1" -v pn="$P_ALL" -v pn1="$P_ALL1" -v el="$S_EL" 'BEGIN {
	if (sn <= sn1 || pn <= pn1) exit
	sm = (sc - sc1) / (sn - sn1); pm = (pc - pc1) / (pn - pn1); rate = sn / el
	sf = sc1 - sm * sn1; pf = pc1 - pm * pn1
	printf "tracer CPU: fixed stitch %.3f s, perf %.3f s; per sample stitch %.1f us, perf %.1f us (%.1fx)\n",
		sf, pf, 1e6 * sm, 1e6 * pm, (sm > 0 ? pm / sm : 0)
	# 20 (sf + sm n) <= pf + pm n  ->  n >= (20 sf - pf) / (pm - 20 sm)
	if (pm > 20 * sm) printf "tracer CPU ratio reaches 20 from %.0f samples (%.0f s at %.0f samples/s)\n",
		(20 * sf - pf) / (pm - 20 * sm), (20 * sf - pf) / (pm - 20 * sm) / rate, rate
	else print "tracer CPU ratio never reaches 20 at this rate: per sample under 20x"
}'
awk -v s="$S_BYTES" -v p="$P_BYTES" 'BEGIN { if (s > 0) printf "target: perf bytes per sample / stitch bytes per sample >= 20: %.2f -> %s\n", p / s, (p / s >= 20) ? "met" : "NOT met" }'
