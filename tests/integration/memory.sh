# SPDX-License-Identifier: GPL-2.0
# What a whole-machine recording holds: flat over process churn (issue 26).
# Sourced by run.sh.

# shellcheck source=tests/lib/churn.sh
. tests/lib/churn.sh

test_memory_flat_over_process_churn() {
	gcc -O2 -Wall -Wextra -Werror -o "$W/brief" tests/workloads/brief.c || exit 1
	mkdir -p "$TMP/churn"
	"$STITCH" record -a -F 19 --stats -o "$TMP/churn.folded" 2>"$TMP/churn.err" &
	local st=$! early late round
	sleep 3
	# Sampled, then gone long before the end: its frames must still be named.
	cp "$CHAIN" "$TMP/churn/gone_early"
	"$TMP/churn/gone_early" spin 3
	rm "$TMP/churn/gone_early"
	# Warm up: what the first few hundred processes make stitch hold, kept
	# for a few seconds after they exit (reclaim.c: RECLAIM_GRACE_NS).
	churn_copies "$TMP/churn" 300 "$W/brief" 50
	churn_copies "$TMP/churn" 300 "$W/brief" 50
	early=$(rss_floor_kb "$st")
	# 1,500 binaries more, each run once (4,500 processes with cp and rm): ~25 s.
	for round in 1 2 3 4 5; do
		churn_copies "$TMP/churn" 300 "$W/brief" 50
		late=$(rss_floor_kb "$st")
		echo "after $(((round + 2) * 300)) binaries: $late KiB (early: $early)"
	done
	kill -INT "$st"
	wait "$st"
	cat "$TMP/churn.err"
	show "$TMP/churn.folded"
	# What stitch says it held at the end, and freed (stats.c).
	local held never
	held=$(sed -n 's/^stitch stats: held at the end: \([0-9]*\) processes (\([0-9]*\) exited ones freed), \([0-9]*\) binaries (\([0-9]*\) freed.*/\1 \2 \3 \4/p' "$TMP/churn.err")
	read -r held_procs freed_procs held_bins freed_bins <<<"$held"
	never=$(sed -n 's/^stitch stats: process images never looked at.*: \([0-9]*\)$/\1/p' \
		"$TMP/churn.err")
	expect_ge "exited processes freed (6,300 ran)" "$freed_procs" 3000
	# A process never sampled has its files never opened (procs.c): its
	# binary is never held, so never freed either.
	expect_ge "binaries freed, or their images never looked at (2,100 ran)" \
		"$((freed_bins + ${never:-0}))" 1000
	expect_ge "binaries held at the end: under 1,200" 1200 "$held_bins"
	echo "processes held at the end: $held_procs"
	# Before: every process and binary ever seen stayed (+98 MiB over these 1,500 here).
	if grep -qa __asan_init "$STITCH"; then
		echo "RSS not compared: ASan's quarantine keeps what is freed (up to 256 MB)"
	else
		expect_ge "KiB of RSS left before 1,500 binaries more" "$((early + 12288))" "$late"
	fi
	expect_ge "gone_early samples" "$(total "$TMP/churn.folded" '^gone_early;')" 15
	expect_ge "% of gone_early complete" \
		"$(share "$TMP/churn.folded" '^gone_early;' "^gone_early;$LIBC_START$MAIN_ABC")" 95
}

# What stitch names of an interpreter's code (code objects, iseqs, their
# lines and classes) goes with the process: before, an agent kept every
# script's that ever ran (one entry a named function, per process).
test_interp_code_freed_over_script_churn() {
	"$STITCH" record -a -F 99 --stats -o "$TMP/pychurn.folded" 2>"$TMP/pychurn.err" &
	local st=$! i held
	sleep 2
	for i in $(seq 30); do
		python3 -c "
import time
def script_$i():
    end = time.monotonic() + 0.3
    while time.monotonic() < end:
        pass
script_$i()"
	done
	# Freed 5 s after the exit (reclaim.c: RECLAIM_GRACE_NS), at a sweep.
	sleep 8
	kill -INT "$st"
	wait "$st"
	grep 'held at the end' "$TMP/pychurn.err"
	expect_ge "python samples in script_N" "$(total "$TMP/pychurn.folded" ';script_[0-9]+')" 300
	held=$(sed -n 's/.*, \([0-9]*\) interpreter code objects named, .*/\1/p' "$TMP/pychurn.err")
	# Before: 1,092 held here (~36 a python3: the modules it imports at start).
	is_number "$held" "interpreter code objects held"
	[ "$held" -le 20 ] ||
		die "interpreter code objects held with no python left (30 ran): $held, expected at most 20"
	# The walks counted in the kernel: their definitions go with their processes too.
	held=$(sed -n 's/.*, \([0-9]*\) interpreter walks defined$/\1/p' "$TMP/pychurn.err")
	is_number "$held" "interpreter walk definitions held"
	[ "$held" -le 20 ] ||
		die "interpreter walk definitions held with no python left (30 ran): $held, expected at most 20"
}

# map_mib PID REGEX: MiB (rounded down) of kernel memory in the BPF maps PID
# holds whose names match REGEX (fdinfo's memlock, what the kernel charges).
map_mib() {
	local f id name bytes=0
	for f in /proc/"$1"/fdinfo/*; do
		id=$(awk '/^map_id:/ { print $2 }' "$f" 2>/dev/null)
		[ -n "$id" ] || continue
		name=$(bpftool map show id "$id" | sed -n 's/.* name \([^ ]*\) .*/\1/p')
		[[ $name =~ $2 ]] || continue
		bytes=$((bytes + $(awk '/^memlock:/ { print $2 }' "$f")))
	done
	echo $((bytes >> 20))
}

# The kernel holds the unwind tables loaded, not --max-table-mb: one small
# program's (chain, libc, ld.so: ~31,000 rows, 0.5 MiB) in one 1 MiB chunk.
# Before: an array of --max-table-mb from the start, 16 MiB for -p, 64 for -a.
test_memory_unwind_rows_by_use() {
	"$CHAIN" spin 8 >/dev/null &
	local wl=$! st rows_p rows_a
	"$STITCH" record -p "$wl" --stats -o "$TMP/rows-p.folded" 2>"$TMP/rows-p.err" &
	st=$!
	sleep 4
	rows_p=$(map_mib "$st" '^(kunwind_rows|ku_rows)$')
	echo "record -p: $rows_p MiB of unwind rows; all maps: $(map_mib "$st" .) MiB"
	wait "$st"
	wait "$wl"
	grep 'kernel unwinding:' "$TMP/rows-p.err"
	expect_ge "MiB of unwind rows in the kernel for one small program: under 4" 3 "$rows_p"
	expect_ge "chain samples" "$(total "$TMP/rows-p.folded" '^chain;')" 100
	# The whole machine, idle but for the other tests: a fraction of -a's 64.
	"$STITCH" record -a -F 99 -d 6 -o "$TMP/rows-a.folded" 2>"$TMP/rows-a.err" &
	st=$!
	sleep 4
	rows_a=$(map_mib "$st" '^(kunwind_rows|ku_rows)$')
	echo "record -a: $rows_a MiB of unwind rows; all maps: $(map_mib "$st" .) MiB"
	wait "$st"
	expect_ge "MiB of unwind rows in the kernel for -a: under 48" 47 "$rows_a"
}

# The agent runs for days over a host's churn: each period names what it
# sampled, and the symbols, DWARF and file pages of binaries whose processes
# have exited go (binary.c: binary_cache_release_unnamed, binary_cache_sweep).
# Before, each named binary's stayed while the table budget kept its table:
# anonymous RSS 275 -> 761 MB over rounds 4 to 8 (503 -> 1,109 MB in all).
# After, in 5 runs: +3 to +21 MB (46 to 68 MB), under a margin of 128 MB.
# The anonymous part is compared: the file pages it read are the page
# cache's, paged out (MADV_PAGEOUT) unless another tracer on the machine
# maps the same files too, as a second agent did (+243 MB in all once).
test_agent_memory_flat_over_named_churn() {
	gcc -O1 -g -Wall -Wextra -Werror -o "$W/named_brief" tests/workloads/named_brief.c ||
		exit 1
	mkdir -p "$TMP/nchurn"
	backend_start nchurn pyroscope
	"$STITCH" agent -a -F 99 --period 1s --spool "$TMP/nchurn-spool" \
		--push "pyroscope=$(url_of nchurn)" 2>"$TMP/nchurn.err" &
	local st=$! base rss round late=0
	sleep 3
	# Warm up: what the first rounds make it hold (tables kept within
	# their budget, processes and binaries within their grace).
	for round in 1 2 3 4; do
		churn_copies "$TMP/nchurn" 100 "$W/named_brief" 25 30
	done
	base=$(rss_floor_kb "$st" RssAnon) || die "the agent exited: $(tail -n 5 "$TMP/nchurn.err")"
	echo "after 400 binaries: $base KiB anonymous, $(rss_floor_kb "$st") KiB in all"
	for round in 5 6 7 8; do
		churn_copies "$TMP/nchurn" 100 "$W/named_brief" 25 30
		rss=$(rss_floor_kb "$st" RssAnon) || die "the agent exited: $(tail -n 5 "$TMP/nchurn.err")"
		echo "after $((round * 100)) binaries: $rss KiB anonymous," \
			"$(rss_floor_kb "$st") KiB in all"
		[ "$rss" -gt "$late" ] && late=$rss
	done
	kill -TERM "$st"
	wait "$st"
	backend_stop nchurn
	tail -n 5 "$TMP/nchurn.err"
	expect_ge "periods pushed" "$(wc -l <"$TMP/nchurn.jsonl")" 25
	if grep -qa __asan_init "$STITCH"; then
		echo "RSS not compared: ASan's quarantine keeps what is freed (up to 256 MB)"
	else
		expect_ge "KiB of anonymous RSS after 400 named binaries more, at most" \
			"$((base + 131072))" "$late"
	fi
}

# debug_rss_kb PID: KiB of PID's resident set in the debug files it maps
# (paths ending in .debug: /usr/lib/debug's, the decompressed cache's), then
# how many such mappings; nothing once it is gone.
debug_rss_kb() {
	awk '/^[0-9a-f]+-[0-9a-f]+ / { dbg = ($NF ~ /\.debug$/); n += dbg }
		dbg && $1 == "Rss:" { kb += $2 }
		END { if (NR) print kb + 0, n + 0 }' "/proc/$1/smaps" 2>/dev/null
}

# What naming reads of a debug file leaves our resident set after each
# period, kept in the page cache (binary_drop_pages): before, libc's
# decompressed debug file stayed resident, 8.5 MB of the agent's 60 under a
# build's churn; its floor now ~0 (each period reads back what it needs).
test_agent_debug_file_pages_leave_rss() {
	backend_start dbgrss pyroscope
	"$CHAIN" spin 12 >/dev/null &
	local wl=$! st min='' kb n i maps=0
	"$STITCH" agent -p "$wl" -F 199 --period 1s --spool "$TMP/dbgrss-spool" \
		--push "pyroscope=$(url_of dbgrss)" 2>"$TMP/dbgrss.err" &
	st=$!
	sleep 5
	# The smallest over 3 s: a period's naming reads pages back meanwhile.
	for ((i = 0; i < 15; i++)); do
		read -r kb n <<<"$(debug_rss_kb "$st")"
		[ -n "${kb:-}" ] || die "the agent exited: $(tail -n 5 "$TMP/dbgrss.err")"
		[ "$n" -gt "$maps" ] && maps=$n
		if [ -z "$min" ] || [ "$kb" -lt "$min" ]; then
			min=$kb
		fi
		sleep 0.2
	done
	kill -TERM "$st"
	wait "$st"
	kill "$wl" 2>/dev/null || true
	wait "$wl" 2>/dev/null || true
	backend_stop dbgrss
	tail -n 3 "$TMP/dbgrss.err"
	echo "debug files mapped: $maps, resident at least: $min KiB"
	expect_ge "debug files the agent maps (libc's, its cache's)" "$maps" 1
	expect_ge "KiB of them resident between periods, at most 512" 512 "$min"
	expect_ge "periods pushed" "$(wc -l <"$TMP/dbgrss.jsonl")" 5
	# And libc's frames still named from its debug file, every period.
	expect_ge "pushes naming __libc_start_call_main" \
		"$(grep -c '__libc_start_call_main' "$TMP/dbgrss.jsonl")" 5
}
