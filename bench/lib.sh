# SPDX-License-Identifier: GPL-2.0
# What the benches share (sourced): medians, and a loaded BPF program's
# run time per run over windows of a steady recording.

# Median of numbers on stdin, one per line ("-" if none).
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR ? v[int((NR + 1) / 2)] : "-") }'; }

# "run_time_ns run_cnt" of the newest loaded program named NAME (nothing if none).
prog_stats_by_name() {	# NAME
	local id
	id=$(bpftool prog show | awk -v n="$1" '$0 ~ "name " n " " { sub(":", "", $1); print $1 }' | tail -1)
	[ -n "$id" ] && bpftool prog show id "$id" |
		sed -n 's/.*run_time_ns \([0-9]*\) run_cnt \([0-9]*\).*/\1 \2/p'
}

# Median ns per run of program NAME over N windows of SECS each (needs
# kernel.bpf_stats_enabled=1): "-" if it is not loaded.
bpf_ns_per_run() {	# NAME N SECS
	local prev cur i
	prev=$(prog_stats_by_name "$1")
	[ -n "$prev" ] || { echo -; return; }
	for i in $(seq "$2"); do
		sleep "$3"
		cur=$(prog_stats_by_name "$1")
		echo "$prev $cur" | awk 'NF == 4 && $4 > $2 { printf "%.0f\n", ($3 - $1) / ($4 - $2) }'
		prev=$cur
	done | median
}

# The start every bench shares: as root, with a built $STITCH, a temporary
# directory $T removed at exit, and bpf_stats on (run_time_ns; set back at
# exit).
bench_start() {	# NAME
	[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
	[ -x "$STITCH" ] || { echo "bench: build stitch first (make)" >&2; exit 1; }
	T=$(mktemp -d "/tmp/stitch-$1.XXXXXX")
	BENCH_OLD_STATS=$(sysctl -n kernel.bpf_stats_enabled)
	sysctl -qw kernel.bpf_stats_enabled=1
	trap 'sysctl -qw kernel.bpf_stats_enabled=$BENCH_OLD_STATS; rm -rf "$T"' EXIT
}
