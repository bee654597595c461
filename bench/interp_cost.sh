#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# What an event with interpreter frames costs in the kernel: Python 3.11,
# Ruby 3.1 and Perl 5.36, each ~20 interpreter frames deep over a leaf that
# computes (the leaf's line changes between samples, the chain does not).
# The headline rows (python, ruby, perl: bench/workloads/flat.*) call 17
# different functions, as real stacks do; beside them, the best case
# (*-rec: bench/workloads/deep.*), a recursion of one function, whose
# repeated frames a walk reads once.  One process pinned to each CPU, all
# traced with -p at HZ, so that every run of the sampling program is an
# event of ours.
# For each language and mode, RUNS runs, alternating; medians of
#   BPF ns/event  on_perf_event's run_time_ns / run_cnt (bpf_stats) over
#                 0.5 s windows once recording is steady (after 1.5 s)
#   bytes/event   bytes from the kernel per event (--stats): ring records and
#                 the counted keys and stacks read from maps
# in three modes:
#   counted       the default: native and interpreter frames counted in the
#                 kernel, each distinct walk sent once (src/interp/capture_walk.bpf.h)
#   sent          --per-event: every event and its walk sent to user space
#   native        --no-interp: the same process without interpreter frames
#
#   bench/interp_cost.sh     (HZ=999 RUNS=3 LANGS="python ruby perl python-rec
#                             ruby-rec perl-rec python3.8 ... perl-deb13"; as root)
# Rows python3.X: pyenv's source builds (shared libpython); *-deb11, *-deb13:
# Debian 11's and 13's stock interpreters in their release roots; ruby-exp:
# Debian experimental's ruby3.4 in its root.
set -u
cd "$(dirname "$0")/.."

HZ=${HZ:-999}
RUNS=${RUNS:-3}
STITCH=${STITCH:-./stitch}
# shellcheck source=bench/lib.sh
. bench/lib.sh
die() { echo "$*" >&2; exit 1; }
# shellcheck source=tests/integration/roots.sh
. tests/integration/roots.sh
bench_start icost

command -v bpftool >/dev/null || { echo "bench: needs bpftool" >&2; exit 1; }
NCPU=$(nproc)

# Every version's row runs the flat workload: pyenv's source builds on the
# host, each Debian release's stock interpreters in its root as a container
# runs them (tests/integration/roots.sh builds and caches the roots).
PYENV=/root/.pyenv/versions
in_rel() {	# RELEASE -> command prefix, the flat workloads copied in
	local dir
	dir=$(root_of "$1") || exit 1
	cp -f bench/workloads/flat.py bench/workloads/flat.rb bench/workloads/flat.pl \
		"$dir/stitch-tests/"
	echo "unshare --mount --root=$dir"
}

lang_cmd() {	# ROW SECONDS
	case $1 in
	python3.8 | python3.9 | python3.10 | python3.12 | python3.13)
		local v
		v=$(ls -d "$PYENV/${1#python}".* 2>/dev/null | tail -1)
		echo "$v/bin/$1 bench/workloads/flat.py $2" ;;
	python-deb11) echo "$(in_rel bullseye) python3.9 /stitch-tests/flat.py $2" ;;
	python-deb13) echo "$(in_rel trixie) python3.13 /stitch-tests/flat.py $2" ;;
	ruby-deb11) echo "$(in_rel bullseye) ruby2.7 /stitch-tests/flat.rb $2" ;;
	ruby-deb13) echo "$(in_rel trixie) ruby3.3 /stitch-tests/flat.rb $2" ;;
	ruby-exp) echo "$(in_rel experimental) ruby3.4 /stitch-tests/flat.rb $2" ;;
	perl-deb11) echo "$(in_rel bullseye) perl /stitch-tests/flat.pl $2" ;;
	perl-deb13) echo "$(in_rel trixie) perl /stitch-tests/flat.pl $2" ;;
	python) echo "/usr/bin/python3.11 bench/workloads/flat.py $2" ;;
	ruby) echo "/usr/bin/ruby bench/workloads/flat.rb $2" ;;
	perl) echo "/usr/bin/perl bench/workloads/flat.pl $2" ;;
	python-rec) echo "/usr/bin/python3.11 bench/workloads/deep.py $2" ;;
	ruby-rec) echo "/usr/bin/ruby bench/workloads/deep.rb $2" ;;
	perl-rec) echo "/usr/bin/perl bench/workloads/deep.pl $2" ;;
	esac
}

mode_opts() {	# MODE
	case $1 in
	counted) echo "" ;;
	sent) echo "--per-event" ;;
	native) echo "--no-interp" ;;
	esac
}

# Interpreter frames of the heaviest stack of a folded file (name (file:line)).
interp_frames() {
	awk '{ print $NF, $0 }' "$1" | sort -n | tail -1 | cut -d' ' -f2- | tr ';' '\n' |
		grep -c ' (.*:[0-9]*)$'
}

steady() {	# LANG MODE -> "median_ns_per_event bytes_per_event"
	local pids="" i bytes
	for i in $(seq 0 $((NCPU - 1))); do
		# shellcheck disable=SC2046 # the command's words
		taskset -c "$i" $(lang_cmd "$1" 7) >/dev/null &
		pids="$pids${pids:+,}$!"
	done
	sleep 0.5
	# shellcheck disable=SC2046 # no option is an empty word
	"$STITCH" record --stats $(mode_opts "$2") -F "$HZ" -d 5 -p "$pids" \
		-o "$T/$1.$2.folded" 2>"$T/err" &
	local st=$!
	sleep 1.5
	bpf_ns_per_run on_perf_event 6 0.5 >"$T/win"
	wait "$st"
	wait
	bytes=$(sed -n 's/.*bytes\/event \([0-9]*\)$/\1/p' "$T/err")
	echo "$(cat "$T/win") ${bytes:--}"
}

# The host's Debian 12 rows and their best cases, then every other version's flat row.
LANGS=${LANGS:-python ruby perl python-rec ruby-rec perl-rec python3.8 python3.9 python3.10 \
	python3.12 python3.13 python-deb11 python-deb13 ruby-deb11 ruby-deb13 ruby-exp perl-deb11 \
	perl-deb13}
for l in $LANGS; do
	command -v "$(lang_cmd "$l" 0 | cut -d' ' -f1)" >/dev/null || continue
	for i in $(seq "$RUNS"); do
		for m in counted sent native; do
			steady "$l" "$m" >>"$T/$l.$m"
		done
	done
done
col() { awk -v c="$2" '$c != "-" { print $c }' "$1" | median; }

echo "bench: on each of $NCPU CPUs at $HZ Hz, medians of $RUNS runs, $(uname -r)"
printf '| %10s | %6s | %16s | %16s | %16s | %18s |\n' row frames "counted ns/event" \
	"sent ns/event" "native ns/event" "bytes/event c/s"
printf '|%s|\n' "------------|--------|------------------|------------------|------------------|--------------------"
for l in $LANGS; do
	[ -f "$T/$l.counted" ] || continue
	printf '| %10s | %6s | %16s | %16s | %16s | %18s |\n' "$l" \
		"$(interp_frames "$T/$l.counted.folded")" \
		"$(col "$T/$l.counted" 1)" "$(col "$T/$l.sent" 1)" "$(col "$T/$l.native" 1)" \
		"$(col "$T/$l.counted" 2) / $(col "$T/$l.sent" 2)"
done
