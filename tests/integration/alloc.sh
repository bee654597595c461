# SPDX-License-Identifier: GPL-2.0
# Integration tests of allocations by stack (`stitch record -e alloc`,
# issue 40); sourced by run.sh, which gives $STITCH, $TMP, $W and the
# helpers of lib.sh.

workload gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror \
	-o "$W/alloc_paths" tests/workloads/alloc_paths.c || exit 1
ALLOC_PATHS=$(realpath "$W/alloc_paths")

# said OUT WHAT: the number the workload printed after WHAT.
said() {
	awk -v k="$2" '$1 == k { print $2 }' "$1"
}

# bytes_within WHAT GOT WANT PCT: |GOT - WANT| <= PCT% of WANT.
bytes_within() {
	echo "$1: stitch $2 bytes, the workload $3"
	is_number "$2" "$1"
	is_number "$3" "$1 (the workload's)"
	awk -v g="$2" -v w="$3" -v p="$4" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= w * p / 100) }' ||
		die "$1: $2 bytes is not within $4% of $3"
}

# pprof_objects PB OUT: PB's allocations counted (its alloc_objects or
# inuse_objects, as Go's tools read them) as folded lines in OUT, and its
# sample types in OUT.types.
pprof_objects() {
	"$PY" tests/agent/pprof_values.py "$1" alloc_objects >"$2"
	[ -s "$2" ] && [ "$(wc -l <"$2")" -gt 1 ] ||
		"$PY" tests/agent/pprof_values.py "$1" inuse_objects >"$2"
	head -1 "$2" | tee "$2.types"
}

# A leak and a churn from two stacks, sampled one per 16 KiB: each path's
# bytes within 10% of what the workload counted (the leak's ~2,400 samples
# give a standard deviation of 2%), on its whole stack down to _start, and
# the pprof says what it measures.
test_alloc_paths_bytes_by_stack() {
	"$STITCH" record -e alloc --alloc-sample 16K -o "$TMP/alloc.folded" -o "$TMP/alloc.pb.gz" \
		-o "$TMP/alloc.txt" -- "$ALLOC_PATHS" paths 400000 >"$TMP/alloc.out" 2>"$TMP/alloc.err"
	cat "$TMP/alloc.out" "$TMP/alloc.err"
	head -20 "$TMP/alloc.txt"
	local root='^alloc_paths;_start;__libc_start_main;__libc_start_call_main;main;(paths_\[i\];)?'
	bytes_within "leak path" "$(total "$TMP/alloc.folded" "${root}leaker;leak_one;malloc [0-9]+$")" \
		"$(said "$TMP/alloc.out" leaked)" 10
	bytes_within "churn path" "$(total "$TMP/alloc.folded" "${root}churner;churn_one;malloc [0-9]+$")" \
		"$(said "$TMP/alloc.out" churned)" 10
	# Nothing of the two paths lands anywhere else.
	expect_eq "leak_one or churn_one bytes off their stacks" \
		"$(total "$TMP/alloc.folded" ';(leak|churn)_one;')" \
		"$(($(total "$TMP/alloc.folded" "${root}leaker;leak_one;malloc [0-9]+$") +
			$(total "$TMP/alloc.folded" "${root}churner;churn_one;malloc [0-9]+$")))"
	expect_grep "$TMP/alloc.txt" '^stitch: [0-9.]+ MiB of alloc_space'
	"$STITCH" report "$TMP/alloc.pb.gz" -o "$TMP/alloc.back.txt"
	"$STITCH" report "$TMP/alloc.pb.gz" -o "$TMP/alloc.back.pb.gz"
	expect_grep "$TMP/alloc.back.txt" '^stitch: [0-9.]+ MiB of alloc_space'
	# The allocations each stack made (pprof's alloc_objects, as Go's heap
	# profiles): one per 100-byte leak, two per round's 300-byte churn;
	# kept by report.
	local pb leaks churns
	leaks=$(($(said "$TMP/alloc.out" leaked) / 100))
	churns=$(($(said "$TMP/alloc.out" churned) / 300))
	for pb in alloc alloc.back; do
		pprof_objects "$TMP/$pb.pb.gz" "$TMP/$pb.objects"
		expect_grep "$TMP/$pb.objects.types" '^# alloc_space/bytes,alloc_objects/count$'
		bytes_within "$pb: leak path's allocations" \
			"$(total "$TMP/$pb.objects" "leaker;leak_one;malloc [0-9]+$")" "$leaks" 10
		bytes_within "$pb: churn path's allocations" \
			"$(total "$TMP/$pb.objects" "churner;churn_one;malloc [0-9]+$")" "$churns" 10
	done
}

# Every allocator function, every call recorded (--alloc-sample 1): each
# one's bytes exactly what the workload asked for, under its own caller,
# counted once where glibc calls its own malloc (realloc(NULL), small
# alignments).
test_alloc_every_function_exact() {
	local fn
	"$STITCH" record -e alloc --alloc-sample 1 -o "$TMP/fns.folded" -o "$TMP/fns.pb.gz" -- \
		"$ALLOC_PATHS" fns >"$TMP/fns.out" 2>"$TMP/fns.err"
	cat "$TMP/fns.err"
	for fn in $(awk '$1 ~ /^via_/ { print $1 }' "$TMP/fns.out"); do
		expect_eq "$fn bytes" "$(total "$TMP/fns.folded" ";main;(fns_\\[i\\];)?$fn;")" \
			"$(said "$TMP/fns.out" "$fn")"
	done
	# Each call is one allocation (FN_CALLS: 1000), realloc_grow's two.
	pprof_objects "$TMP/fns.pb.gz" "$TMP/fns.objects"
	expect_eq "via_malloc allocations" "$(total "$TMP/fns.objects" ';via_malloc;malloc [0-9]+$')" 1000
	expect_eq "via_posix_memalign_8 allocations" \
		"$(total "$TMP/fns.objects" ';via_posix_memalign_8;')" 1000
	expect_eq "via_realloc_grow allocations" "$(total "$TMP/fns.objects" ';via_realloc_grow;')" 2000
}

# Memory asked of the kernel as leaves of their own, every call recorded:
# the program's anonymous mmaps on mmap and its sbrk on sbrk, exact; a 1 MiB
# malloc, which glibc serves by mapping (and later from its heap, grown by
# sbrk), on malloc alone, never again on the mmap or sbrk under it; a file
# mapping nowhere.  With --inuse, what is kept: the mappings not unmapped,
# the blocks not freed (the allocator's own sbrk inside a malloc being
# tracked no longer takes its block).
test_alloc_mapped_leaves_exact() {
	local mode base='^alloc_paths;_start;__libc_start_main;__libc_start_call_main;main;(mapped_\[i\];)?'
	for mode in "" --inuse; do
		# shellcheck disable=SC2086
		"$STITCH" record -e alloc $mode --alloc-sample 1 -o "$TMP/mapped$mode.folded" -- \
			"$ALLOC_PATHS" mapped </dev/null >"$TMP/mapped$mode.out" 2>"$TMP/mapped$mode.err"
		cat "$TMP/mapped$mode.err" "$TMP/mapped$mode.folded"
		expect_eq "${mode:-alloc}: map_one's bytes on mmap" \
			"$(total "$TMP/mapped$mode.folded" "${base}map_one;(__)?mmap [0-9]+$")" \
			"$(said "$TMP/mapped$mode.out" "mapped${mode:+_kept}")"
		expect_eq "${mode:-alloc}: big_one's bytes on malloc" \
			"$(total "$TMP/mapped$mode.folded" "${base}big_one;malloc [0-9]+$")" \
			"$(said "$TMP/mapped$mode.out" "big${mode:+_kept}")"
		expect_eq "${mode:-alloc}: big_one's elsewhere (glibc's own mmap and sbrk)" \
			"$(total "$TMP/mapped$mode.folded" ';big_one;(.*;)?malloc;')" 0
		expect_eq "${mode:-alloc}: brk_one's bytes on sbrk" \
			"$(total "$TMP/mapped$mode.folded" "${base}brk_one;(__)?sbrk [0-9]+$")" \
			"$(said "$TMP/mapped$mode.out" braked)"
		expect_eq "${mode:-alloc}: bytes of the file mapping" \
			"$(total "$TMP/mapped$mode.folded" ';map_file;')" 0
	done
}

# py_small_check P: the arenas of $TMP/P.folded's kept tuples on small's
# lines, within half and three times what the tuples hold.
py_small_check() {
	local got want
	cat "$TMP/$1.out" "$TMP/$1.err"
	got=$(total "$TMP/$1.folded" ';small \([^;]*/alloc_grow\.py:4[67]\);.*;(__)?mmap [0-9]+$')
	want=$(said "$TMP/$1.out" small_bytes)
	echo "$1: arenas mapped for the tuples: $got bytes; the tuples hold $want"
	expect_ge "$1: arenas' bytes on small's lines, at least half the tuples'" \
		"$((got * 2 - want))" 0
	expect_ge "$1: arenas' bytes on small's lines, at most three times the tuples'" \
		"$((want * 3 - got))" 0
}

# munmap of part of a mapping (its head, its tail, pages in its middle,
# across two neighbours) leaves the rest in use; of all of it in pieces,
# none; a new mapping where a head was is one of its own; mremap moves a
# mapping to its own stack, grown or shrunk: exact at --alloc-sample 1,
# and said.  Without --inuse, mremap's new sizes are allocated bytes.
test_alloc_inuse_munmap_cuts_mappings() {
	"$STITCH" record -e alloc --inuse --alloc-sample 1 -o "$TMP/cut.folded" -- \
		"$ALLOC_PATHS" cut </dev/null >"$TMP/cut.out" 2>"$TMP/cut.err"
	cat "$TMP/cut.out" "$TMP/cut.err"
	grep -E ';(cut_map|remap_one);' "$TMP/cut.folded"
	expect_eq "the cut mappings' bytes in use" \
		"$(total "$TMP/cut.folded" ';cut_map;(__)?mmap [0-9]+$')" "$(said "$TMP/cut.out" cut_kept)"
	expect_eq "the remapped mappings' bytes in use" \
		"$(total "$TMP/cut.folded" ';remap_one;(__)?mremap [0-9]+$')" \
		"$(said "$TMP/cut.out" remap_kept)"
	"$STITCH" record -e alloc --alloc-sample 1 -o "$TMP/remap.folded" -- \
		"$ALLOC_PATHS" cut </dev/null >"$TMP/remap.out" 2>"$TMP/remap.err"
	expect_eq "mremap's bytes allocated" \
		"$(total "$TMP/remap.folded" ';remap_one;(__)?mremap [0-9]+$')" \
		"$(said "$TMP/remap.out" remap_kept)"
	expect_grep "$TMP/cut.err" \
		'^stitch record: --inuse: [0-9]+ mappings cut by munmap since they were made: [0-9.]+ MiB of them left out'
}

# Python's small objects live in pymalloc's arenas, 1 MiB mmaps of its
# own: those of N kept tuples are on the Python function and lines that
# made them (within half and three times what the tuples hold: arenas are
# shared with the ints beside them, and whichever asks for a pool first
# maps one: the tuple's line, 47, up to 3.13; the loop's ints', 46, in
# 3.14), above the interpreter's allocator.  This machine's 3.11, and
# bullseye's 3.9, trixie's 3.13 and sid's 3.14 in their roots: their libcs
# attached as the command maps them, ~50 ms in, and the interpreter known
# from its first samples after that, so the tuples come after a list
# grown (without it, the first arenas, ~20 ms in, had native frames only).
# Each lingers, as below, so that its frames are named from the living
# process on a busy machine.
test_alloc_python_small_objects_on_their_line() {
	local rel
	"$STITCH" record -e alloc --alloc-sample 64K -o "$TMP/py_small.folded" -- \
		python3 tests/workloads/alloc_grow.py 200000 small alone linger \
		>"$TMP/py_small.out" 2>"$TMP/py_small.err"
	py_small_check py_small
	for rel in bullseye trixie sid; do
		root_put "$rel" tests/workloads/alloc_grow.py
		# shellcheck disable=SC2046 # in_root_cmd is a command line
		"$STITCH" record -e alloc --alloc-sample 64K -o "$TMP/py_small_$rel.folded" -- \
			$(in_root_cmd "$rel") python3 /stitch-tests/alloc_grow.py 100000 small linger \
			>"$TMP/py_small_$rel.out" 2>"$TMP/py_small_$rel.err"
		py_small_check "py_small_$rel"
	done
}

# A Python list that grows: its bytes on the Python function and line that
# append to it, above the interpreter's allocator, within 10% (one sample
# per 64 KiB: ~3,000 samples).
test_alloc_python_growing_list_on_its_line() {
	# The workload lingers: every sampled allocation's walk is a record the
	# reader names from the living process, and ASan's reader on a busy
	# machine fell 150 ms behind (churn, the last 60 ms before the exit,
	# was "[unknown python frame]" in 4 of 16 runs beside two CPU hogs).
	# This test is about the lines; test_python_last_function_before_exit_named
	# is about the exit.
	"$STITCH" record -e alloc --alloc-sample 64K -o "$TMP/py_alloc.folded" -- \
		python3 tests/workloads/alloc_grow.py 100000 linger >"$TMP/py_alloc.out" 2>"$TMP/py_alloc.err"
	cat "$TMP/py_alloc.out" "$TMP/py_alloc.err"
	bytes_within "grow (alloc_grow.py:17)" \
		"$(total "$TMP/py_alloc.folded" ';<module> \([^;]*/alloc_grow\.py:30\);grow \([^;]*/alloc_grow\.py:17\);.*;malloc [0-9]+$')" \
		"$(said "$TMP/py_alloc.out" grew)" 10
	bytes_within "churn (alloc_grow.py:23)" \
		"$(total "$TMP/py_alloc.folded" ';<module> \([^;]*/alloc_grow\.py:31\);churn \([^;]*/alloc_grow\.py:23\);.*;malloc [0-9]+$')" \
		"$(said "$TMP/py_alloc.out" churned)" 10
}

# --inuse, memleak's question: a leak and a churn from two stacks, one
# sample per 16 KiB.  What is still allocated at the end is the leak, on its
# stack, within 10% of what the workload kept, at least 95% of all that is
# in use (the rest: stdio's buffer); the churned blocks were all freed.
test_alloc_inuse_leak_on_its_stack() {
	"$STITCH" record -e alloc --inuse --alloc-sample 16K -o "$TMP/inuse.folded" \
		-o "$TMP/inuse.pb.gz" -- "$ALLOC_PATHS" paths 400000 >"$TMP/inuse.out" 2>"$TMP/inuse.err"
	cat "$TMP/inuse.out" "$TMP/inuse.err" "$TMP/inuse.folded"
	local root='^alloc_paths;_start;__libc_start_main;__libc_start_call_main;main;(paths_\[i\];)?'
	local leak
	leak=$(total "$TMP/inuse.folded" "${root}leaker;leak_one;malloc [0-9]+$")
	bytes_within "leak path in use" "$leak" "$(said "$TMP/inuse.out" leaked)" 10
	expect_ge "leak path's share of the bytes in use (%)" \
		"$((leak * 100 / $(total "$TMP/inuse.folded")))" 95
	expect_eq "churn path bytes in use" "$(total "$TMP/inuse.folded" ';churn_one;')" 0
	expect_grep "$TMP/inuse.err" '^stitch record: --inuse: [0-9]+ sampled blocks still allocated'
	"$STITCH" report "$TMP/inuse.pb.gz" -o "$TMP/inuse.back.txt"
	expect_grep "$TMP/inuse.back.txt" '^stitch: [0-9.]+ MiB of inuse_space'
	# The blocks held (pprof's inuse_objects): one per 100-byte leak.
	pprof_objects "$TMP/inuse.pb.gz" "$TMP/inuse.objects"
	expect_grep "$TMP/inuse.objects.types" '^# inuse_space/bytes,inuse_objects/count$'
	bytes_within "leak path's blocks in use" \
		"$(total "$TMP/inuse.objects" "leaker;leak_one;malloc [0-9]+$")" \
		"$(($(said "$TMP/inuse.out" leaked) / 100))" 10
}

# Every allocator function, every call, with --inuse: each block is found
# again where it is freed (posix_memalign's through its pointer, realloc's
# old block as it moves), so nothing of the freed calls is in use; the
# blocks realloc moved and the workload kept are, on realloc, at their new
# size, and their first mallocs are not; the blocks a failed realloc left
# with the program are in use, on their malloc.
test_alloc_inuse_frees_and_moves_found() {
	"$STITCH" record -e alloc --inuse --alloc-sample 1 -o "$TMP/inuse_fns.folded" \
		-o "$TMP/inuse_fns.pb.gz" -- "$ALLOC_PATHS" fns >"$TMP/inuse_fns.out" 2>"$TMP/inuse_fns.err"
	cat "$TMP/inuse_fns.err" "$TMP/inuse_fns.folded"
	expect_eq "realloc'd blocks kept, in use" \
		"$(total "$TMP/inuse_fns.folded" ';main;(fns_\[i\];)?via_realloc_kept;realloc [0-9]+$')" \
		"$(said "$TMP/inuse_fns.out" moved_kept)"
	expect_eq "blocks a failed realloc kept, in use" \
		"$(total "$TMP/inuse_fns.folded" ';main;(fns_\[i\];)?via_realloc_failed;malloc [0-9]+$')" \
		"$(said "$TMP/inuse_fns.out" failed_kept)"
	expect_eq "bytes in use of the blocks freed" \
		"$(total "$TMP/inuse_fns.folded" ';via_' )" "$(said "$TMP/inuse_fns.out" kept)"
	# The rest: what stdio keeps for stdout (a 4 KiB buffer).
	expect_ge "bytes in use elsewhere at most 8 KiB (8192 - bytes)" \
		"$((8192 - $(total "$TMP/inuse_fns.folded" '.') + $(said "$TMP/inuse_fns.out" kept)))" 0
	# The blocks (pprof's inuse_objects): the 100 moved, the 100 a failed realloc left.
	pprof_objects "$TMP/inuse_fns.pb.gz" "$TMP/inuse_fns.objects"
	expect_eq "realloc'd blocks kept" \
		"$(total "$TMP/inuse_fns.objects" ';via_realloc_kept;realloc [0-9]+$')" 100
	expect_eq "blocks a failed realloc kept" \
		"$(total "$TMP/inuse_fns.objects" ';via_realloc_failed;malloc [0-9]+$')" 100
	expect_eq "blocks of the freed calls" "$(total "$TMP/inuse_fns.objects" ';via_')" 200
}

# --min-age: blocks leaked 3 s before the end are in use, those leaked
# just before it (in ~0.1 s here; 1.5 s under arm64 emulation) are left
# out, and said to be: 1.5 s from either.
test_alloc_inuse_min_age_leaves_young_out() {
	"$STITCH" record -e alloc --inuse --min-age 1500ms --alloc-sample 4K -o "$TMP/aged.folded" -- \
		"$ALLOC_PATHS" aged 100000 3 >"$TMP/aged.out" 2>"$TMP/aged.err"
	cat "$TMP/aged.out" "$TMP/aged.err" "$TMP/aged.folded"
	bytes_within "old leak in use" "$(total "$TMP/aged.folded" ';leak_old;leak_one;malloc [0-9]+$')" \
		"$(said "$TMP/aged.out" old)" 10
	expect_eq "young leak in use" "$(total "$TMP/aged.folded" ';leak_young;')" 0
	expect_grep "$TMP/aged.err" '^stitch record: --inuse: [0-9]+ more \([0-9.]+ MiB\) younger than --min-age left out'
}

# A Python service's growing list, recording stopped by Ctrl-C while it
# holds it (a SIGINT to stitch, passed on to the command): the list's bytes
# in use on the Python line that appends to it (pymalloc frees nothing
# of it: each bytearray is a malloc), the churned ones not, and nothing
# the command frees as it exits on that SIGINT.
test_alloc_inuse_python_list_held_at_ctrl_c() {
	local pid i
	(sleep 1; echo go) | "$STITCH" record -e alloc --inuse --alloc-sample 64K \
		-o "$TMP/py_inuse.folded" -- python3 tests/workloads/alloc_grow.py 100000 wait hold \
		>"$TMP/py_inuse.out" 2>"$TMP/py_inuse.err" &
	pid=$!	# the pipeline's last command: stitch
	for i in $(seq 600); do
		grep -q elapsed_ns "$TMP/py_inuse.out" 2>/dev/null && break
		sleep 0.1
	done
	kill -INT "$pid" || die "stitch record ended before the list was grown"
	wait "$pid"
	cat "$TMP/py_inuse.out" "$TMP/py_inuse.err"
	bytes_within "grow (alloc_grow.py:17) in use" \
		"$(total "$TMP/py_inuse.folded" ';<module> \([^;]*/alloc_grow\.py:30\);grow \([^;]*/alloc_grow\.py:17\);.*;malloc [0-9]+$')" \
		"$(said "$TMP/py_inuse.out" grew)" 10
	expect_eq "churn (alloc_grow.py:23) in use" \
		"$(total "$TMP/py_inuse.folded" 'alloc_grow\.py:23\)')" 0
}

# left_out_within ERR BYTES: the bytes --inuse said it left out (gone with
# their processes) within 10% of BYTES: the leak gone, and no allocator's
# own mmap or sbrk under it counted again.
left_out_within() {
	local mib
	mib=$(sed -n 's/^stitch record: --inuse: [0-9]* more (\([0-9.]*\) MiB) left out: their processes.*/\1/p' "$1")
	bytes_within "left out with their processes" \
		"$(awk -v m="$mib" 'BEGIN { printf "%.0f", m * 1048576 }')" "$2" 10
}

# A child's exit frees its leak, with no free: its blocks are not in use
# (and said to be left out); its parent's, whose exit ends the recording,
# are what it leaked, within 10% (~2,400 samples at 4K: 2% standard
# deviation; at 16K, ~600 samples, 4%, once gave -10.6% on arm64).
test_alloc_inuse_exited_child_left_out() {
	"$STITCH" record -e alloc --inuse --alloc-sample 4K -o "$TMP/forked.folded" -- \
		"$ALLOC_PATHS" forked 100000 >"$TMP/forked.out" 2>"$TMP/forked.err"
	cat "$TMP/forked.out" "$TMP/forked.err" "$TMP/forked.folded"
	expect_eq "child's leak in use after its exit" \
		"$(total "$TMP/forked.folded" ';child_leak;')" 0
	bytes_within "parent's leak in use" \
		"$(total "$TMP/forked.folded" ';parent_leak;leak_one;malloc [0-9]+$')" \
		"$(said "$TMP/forked.out" parent)" 10
	expect_grep "$TMP/forked.err" \
		'^stitch record: --inuse: [0-9]+ more \([0-9.]+ MiB\) left out: their processes exited'
	left_out_within "$TMP/forked.err" "$(said "$TMP/forked.out" child)"
}

# An exec frees the process's memory too, with no free, even the command's
# own: the leak before it is not in use (and said to be left out); the new
# image's, whose exit ends the recording, is, within 10% (~2,400 samples
# at 4K, as above).
test_alloc_inuse_exec_leaves_old_image_out() {
	"$STITCH" record -e alloc --inuse --alloc-sample 4K -o "$TMP/execs.folded" -- \
		"$ALLOC_PATHS" execs 100000 >"$TMP/execs.out" 2>"$TMP/execs.err"
	cat "$TMP/execs.out" "$TMP/execs.err" "$TMP/execs.folded"
	expect_eq "the old image's leak in use after its exec" \
		"$(total "$TMP/execs.folded" ';exec_leak;')" 0
	bytes_within "the new image's leak in use" \
		"$(total "$TMP/execs.folded" ';leaker;leak_one;malloc [0-9]+$')" \
		"$(said "$TMP/execs.out" leaked)" 10
	expect_grep "$TMP/execs.err" \
		'^stitch record: --inuse: [0-9]+ more \([0-9.]+ MiB\) left out: their processes exited or exec'"'"'d'
	left_out_within "$TMP/execs.err" "$(said "$TMP/execs.out" before_exec)"
}

# Bad frees (twice, an address never allocated: glibc aborts the program
# at the first it detects) change nothing of stitch's blocks: the leak
# before them is in use, within 10% (~2,400 samples at 16K: 2% standard
# deviation; 600 once gave -11% on 5.10), and stitch ends well.
test_alloc_inuse_survives_bad_frees() {
	"$STITCH" record -e alloc --inuse --alloc-sample 16K -o "$TMP/badfree.folded" -- \
		"$ALLOC_PATHS" badfree 400000 >"$TMP/badfree.out" 2>"$TMP/badfree.err"
	cat "$TMP/badfree.out" "$TMP/badfree.err" "$TMP/badfree.folded"
	expect_grep "$TMP/badfree.err" 'free\(\)'
	bytes_within "leak in use" "$(total "$TMP/badfree.folded" ';badfree(_\[i\])?;leak_one;malloc [0-9]+$')" \
		"$(said "$TMP/badfree.out" leaked)" 10
}

# More blocks held at once than the kernel's map keeps (65536, every one
# of 100,000 leaks sampled): what is kept is reported, the rest counted,
# and the figures said to be a lower bound.
test_alloc_inuse_lower_bound_said() {
	"$STITCH" record -e alloc --inuse --alloc-sample 1 -o "$TMP/lb.folded" -- \
		"$ALLOC_PATHS" paths 100000 >"$TMP/lb.out" 2>"$TMP/lb.err"
	cat "$TMP/lb.out" "$TMP/lb.err"
	expect_grep "$TMP/lb.err" '^stitch: --inuse: the bytes in use are a lower bound: [0-9]+ sampled blocks were not tracked'
	expect_ge "blocks not tracked" \
		"$(sed -n 's/.*lower bound: \([0-9]*\) sampled blocks.*/\1/p' "$TMP/lb.err")" $((100000 - 65536))
	expect_ge "leak bytes in use, at most the leak (bytes short of it)" \
		"$(($(said "$TMP/lb.out" leaked) - $(total "$TMP/lb.folded" ';leak_one;malloc [0-9]+$')))" 0
	expect_ge "leak bytes in use, at least what the map held (of 6553600)" \
		"$(total "$TMP/lb.folded" ';leak_one;malloc [0-9]+$')" $((65536 * 100 - 100 * 100))
}

# fns_preloaded LIB MODE OUT: alloc_paths fns with LIB preloaded, recorded
# by -p at --alloc-sample 1 (MODE: "" or --inuse) once attached (3 s: the
# workload waits for a byte); OUT.out is the workload's, OUT.folded ours.
fns_preloaded() {
	local wl rec
	rm -f "$TMP/go"
	mkfifo "$TMP/go"
	LD_PRELOAD=$1 "$ALLOC_PATHS" fns wait <"$TMP/go" >"$3.out" &
	wl=$!
	track_pid "$wl"
	exec 3>"$TMP/go"
	# shellcheck disable=SC2086 # MODE is one option or none
	"$STITCH" record -e alloc $2 --alloc-sample 1 -p "$wl" -o "$3.folded" 2>"$3.err" &
	rec=$!
	sleep 3
	echo go >&3
	exec 3>&-
	wait "$wl"
	kill -INT "$rec"
	wait "$rec"
	cat "$3.err"
}

# jemalloc and tcmalloc, preloaded as their users do: every allocator
# function exact at --alloc-sample 1, each counted once where the allocator
# calls its own (attach_alloc.c says where: each differs from glibc and
# from the other), and with --inuse every block found again at its free.
test_alloc_jemalloc_and_tcmalloc_exact() {
	local lib name fn
	for lib in /usr/lib/*-linux-gnu/libjemalloc.so.2 /usr/lib/*-linux-gnu/libtcmalloc_minimal.so.4; do
		[ -e "$lib" ] || die "$lib is not installed (scripts/install-deps.sh)"
		name=$(basename "$lib")
		fns_preloaded "$lib" "" "$TMP/$name"
		for fn in $(awk '$1 ~ /^via_/ { print $1 }' "$TMP/$name.out"); do
			expect_eq "$name: $fn bytes" "$(total "$TMP/$name.folded" ";main;(fns_\\[i\\];)?$fn;")" \
				"$(said "$TMP/$name.out" "$fn")"
		done
		fns_preloaded "$lib" --inuse "$TMP/$name.inuse"
		expect_eq "$name: bytes in use of the blocks freed" \
			"$(total "$TMP/$name.inuse.folded" ';via_')" "$(said "$TMP/$name.inuse.out" kept)"
		expect_eq "$name: realloc'd blocks kept, in use" \
			"$(total "$TMP/$name.inuse.folded" ';via_realloc_kept;realloc [0-9]+$')" \
			"$(said "$TMP/$name.inuse.out" moved_kept)"
		expect_eq "$name: blocks a failed realloc kept, in use" \
			"$(total "$TMP/$name.inuse.folded" ';via_realloc_failed;malloc [0-9]+$')" \
			"$(said "$TMP/$name.inuse.out" failed_kept)"
	done
}

# -a: a container's process allocates through its image's own libc.so.6
# (trixie's glibc 2.41, another file than the host's): found among every
# process's mappings at the start, and its churn on its stack.
# A command linked with jemalloc (-ljemalloc: its DT_NEEDED), which
# stitch does not map itself: found and attached before it runs, every
# allocator function exact at --alloc-sample 1, as preloaded.
test_alloc_command_linking_jemalloc_exact() {
	local lib fn
	lib=$(ls /usr/lib/*-linux-gnu/libjemalloc.so.2) || die "libjemalloc2 is not installed (scripts/install-deps.sh)"
	gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -o "$TMP/alloc_paths_je" \
		tests/workloads/alloc_paths.c "$lib" || die "cannot link alloc_paths with $lib"
	readelf -d "$TMP/alloc_paths_je" | grep -q 'NEEDED.*libjemalloc.so.2' ||
		die "alloc_paths_je does not need libjemalloc.so.2"
	"$STITCH" record -e alloc --alloc-sample 1 -o "$TMP/je.folded" -- "$TMP/alloc_paths_je" fns \
		>"$TMP/je.out" 2>"$TMP/je.err"
	cat "$TMP/je.err"
	for fn in $(awk '$1 ~ /^via_/ { print $1 }' "$TMP/je.out"); do
		expect_eq "$fn bytes" "$(total "$TMP/je.folded" ";main;(fns_\\[i\\];)?$fn;")" \
			"$(said "$TMP/je.out" "$fn")"
	done
}

test_alloc_all_finds_a_containers_libc() {
	local wl
	root_put trixie "$ALLOC_PATHS"
	# Longer than the recording, whatever stitch's start takes (-a loads every
	# process's tables; more under the sanitizers): stopped after it.
	# The workload itself, not a subshell around it: its kill is the
	# workload's (a trixie process left over had its libc attached at the
	# next test's start).
	# shellcheck disable=SC2046 # in_root_cmd is a command line
	$(in_root_cmd trixie) /stitch-tests/alloc_paths steady 60 &
	wl=$!
	track_pid "$wl"
	sleep 1
	"$STITCH" record -e alloc -a -d 3 --alloc-sample 16K -o "$TMP/alloc_all.folded" \
		2>"$TMP/alloc_all.err"
	kill "$wl"
	wait "$wl" || true
	cat "$TMP/alloc_all.err"
	grep '^alloc_paths;' "$TMP/alloc_all.folded" | head -5
	expect_ge "the container's churn, bytes" \
		"$(total "$TMP/alloc_all.folded" '^alloc_paths;_start;.*;main;(steady;)?churner;churn_one;malloc [0-9]+$')" \
		1000000
}

# await_line FILE REGEX: until FILE has a line matching REGEX (up to
# 30 s, longer under emulation), or die.
await_line() {
	for _ in $(seq $((300 * SLOWDOWN))); do
		grep -qE "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$1"
	die "no line /$2/ in $1 in $((30 * SLOWDOWN)) s"
}

# late_root_paths_check P COMM: alloc_paths paths 100000, run in another root
# (its own libc) and let go once stitch said it attached that libc (what a
# process allocates before the attach is not seen), was recorded: each
# path's bytes, its own process's (named COMM) in stitch's $TMP/P.folded
# (stitch's stderr in P.err, the workload's output in P.out).
late_root_paths_check() {
	local p=$1
	cat "$TMP/$p.err" "$TMP/$p.out"
	grep '^'"$2"';.*;\(leaker\|churner\);' "$TMP/$p.folded" | head -4
	expect_grep "$TMP/$p.err" \
		'^stitch record: alloc: process [0-9]+ maps another allocator file, /[^ ]*/libc[^/ ]*: traced from now on'
	bytes_within "$p: the leak, in another root, attached late" \
		"$(total "$TMP/$p.folded" '^'"$2"';.*;main;(paths(_\[i\])?;)?leaker;leak_one;malloc [0-9]+$')" \
		"$(said "$TMP/$p.out" leaked)" 10
	bytes_within "$p: the churn, in another root, attached late" \
		"$(total "$TMP/$p.folded" '^'"$2"';.*;main;(paths(_\[i\])?;)?churner;churn_one;malloc [0-9]+$')" \
		"$(said "$TMP/$p.out" churned)" 10
}

# late_command P RELEASE BIN: `record -e alloc -- ` alloc_paths (BIN, in
# the root's /stitch-tests) run in RELEASE's root, checked as above.
late_command() {
	local p=$1 rel=$2 bin=$3 rec
	rm -f "$TMP/${p}_go"
	mkfifo "$TMP/${p}_go"
	# shellcheck disable=SC2046 # in_root_cmd is a command line
	"$STITCH" record -e alloc --alloc-sample 4K -o "$TMP/$p.folded" -- \
		$(in_root_cmd "$rel") "/stitch-tests/$bin" paths 100000 wait \
		<"$TMP/${p}_go" >"$TMP/$p.out" 2>"$TMP/$p.err" &
	rec=$!
	exec 3>"$TMP/${p}_go"
	await_line "$TMP/$p.err" 'maps another allocator file'
	echo go >&3
	exec 3>&-
	wait "$rec"
	late_root_paths_check "$p" alloc_paths
}

# A command run in another root (unshare --root) maps that root's libc,
# which stitch cannot find before it runs: attached as the kernel reports
# the mapping; each path within 10% (~2,400 samples at 4K for the leak).
# Trixie's glibc 2.41, and bullseye's 2.31, whose file is libc-2.31.so
# (libc.so.6 a link to it), with alloc_paths built there.
test_alloc_command_in_another_root() {
	root_put trixie "$ALLOC_PATHS"
	late_command lr trixie alloc_paths
	root_put bullseye-dev tests/workloads/alloc_paths.c
	in_root bullseye-dev gcc -O2 -fomit-frame-pointer -g -o /stitch-tests/alloc_paths \
		/stitch-tests/alloc_paths.c || die "cannot build alloc_paths in bullseye's root"
	late_command lr31 bullseye-dev alloc_paths
}

# -a: a container started after the recording's start, its own libc
# attached as it maps it, as above.  Its root is made here, of
# alloc_paths (as alloc_late: a name of its own on the host) and copies
# of the libraries it links: no other process can have mapped that libc
# at the start, and another's late attach is not taken for its own.
test_alloc_all_attaches_a_container_started_later() {
	local rec wl lib dir=$TMP/lateroot
	mkdir -p "$dir"
	cp "$ALLOC_PATHS" "$dir/alloc_late"
	for lib in $(ldd "$ALLOC_PATHS" | grep -o '/[^ ]*'); do
		mkdir -p "$dir$(dirname "$lib")"
		cp -L "$lib" "$dir$lib"
	done
	rm -f "$TMP/la_go"
	mkfifo "$TMP/la_go"
	"$STITCH" record -e alloc -a --alloc-sample 4K -o "$TMP/la.folded" 2>"$TMP/la.err" &
	rec=$!
	track_pid "$rec"
	# Attached to our libc, then every process's (/proc read, ~50 ms
	# here): one started in between would be attached at the start.
	wait_for_prog_run on_alloc_size1
	sleep $((2 * SLOWDOWN))
	unshare --mount --root="$dir" /alloc_late paths 100000 wait <"$TMP/la_go" >"$TMP/la.out" &
	wl=$!
	track_pid "$wl"
	exec 3>"$TMP/la_go"
	await_line "$TMP/la.err" "process $wl maps another allocator file"
	echo go >&3
	exec 3>&-
	wait "$wl"
	kill -INT "$rec"
	wait "$rec"
	late_root_paths_check la alloc_late
}

# agent_alloc_pushes P MODE ARGS...: alloc_paths MODE (steady or leaky)
# traced by agent -e alloc ARGS, 1 s periods pushed to a Pyroscope, an
# OTLP and a Parca server ($TMP/Ppyro.jsonl, Potlp, Pparca); each
# profile's type counted in $TMP/Ptypes, the samples in $TMP/Pagent.folded.
agent_alloc_pushes() {
	local p=$1 mode=$2 wl
	shift 2
	backend_start "${p}pyro" pyroscope
	backend_start "${p}otlp" otlp
	backend_start "${p}parca" parca
	# Longer than the agent runs, whatever its start takes: stopped after it.
	"$ALLOC_PATHS" "$mode" 60 &
	wl=$!
	track_pid "$wl"
	"$STITCH" agent -e alloc "$@" --alloc-sample 16K -p "$wl" -d $((SLOWDOWN > 1 ? 8 : 4)) \
		--period 1s --push "pyroscope=$(url_of "${p}pyro")" \
		--push "otlp=$(url_of "${p}otlp")" --push "parca=$(url_of "${p}parca")" \
		2>"$TMP/${p}agent.err"
	kill "$wl"
	wait "$wl" || true
	backend_stop "${p}pyro"
	backend_stop "${p}otlp"
	backend_stop "${p}parca"
	cat "$TMP/${p}agent.err"
	"$PY" "$PUSHES" types "$TMP/${p}pyro.jsonl" "$TMP/${p}otlp.jsonl" "$TMP/${p}parca.jsonl" |
		sort | uniq -c | tee "$TMP/${p}types"
	"$PY" "$PUSHES" folded "$TMP/${p}pyro.jsonl" "$TMP/${p}otlp.jsonl" "$TMP/${p}parca.jsonl" \
		>"$TMP/${p}agent.folded"
	"$PY" "$PUSHES" objects "$TMP/${p}pyro.jsonl" "$TMP/${p}otlp.jsonl" "$TMP/${p}parca.jsonl" \
		>"$TMP/${p}agent.objects"
}

# alloc_types KIND alloc|inuse: the sample types of an agent's allocation
# profiles at backend KIND, a line each: the bytes, with the allocations
# counted beside them, as Go's heap profiles: in a pprof (Pyroscope, Parca)
# as a second value, in OTLP as a Profile of their own (one sample type).
alloc_types() {
	if [ "$1" = otlp ]; then
		printf '%s\n' "$2_space/bytes" "$2_objects/count"
	else
		echo "$2_space/bytes,$2_objects/count"
	fi
}

# alloc_types_pushed P MODE: each backend's profiles of each of
# alloc_types' types at least 3 (one a period), and none of another.
alloc_types_pushed() {
	local kind t
	for kind in pyroscope otlp parca; do
		for t in $(alloc_types $kind "$2"); do
			expect_ge "$kind: profiles of memory's $t" \
				"$(awk -v k=$kind -v t="$t" '$2 == k && $4 == t { n += $1 } END { print n + 0 }' "$TMP/$1types")" 3
		done
	done
	expect_eq "profiles of another type" \
		"$(while read -r _ kind _ types; do
			alloc_types "$kind" "$2" | grep -qxF "$types" || echo "$kind $types"
		done <"$TMP/$1types" | wc -l)" 0
}

# agent -e alloc: every period of a process that allocates all along,
# pushed to each backend as memory's alloc_space in bytes (Pyroscope's
# __name__ memory, as Go's heap profiles), its churn on its stack.
test_agent_alloc_pushes_memory() {
	local kind
	agent_alloc_pushes a steady
	alloc_types_pushed a alloc
	expect_eq "pyroscope's series named otherwise than memory" \
		"$(awk '$2 == "pyroscope" && $3 != "memory"' "$TMP/atypes" | wc -l)" 0
	for kind in pyroscope otlp parca; do
		expect_ge "$kind: the churn's bytes on its stack" \
			"$(total "$TMP/aagent.folded" "^$kind;alloc_paths;.*;main;(steady;)?churner;churn_one;malloc [0-9]+$")" 1000000
	done
	# Its allocations beside them (alloc_objects): 300 bytes each.
	for kind in pyroscope otlp parca; do
		bytes_within "$kind: the churn's allocations (its bytes / 300)" \
			"$(total "$TMP/aagent.objects" "^$kind;.*;churner;churn_one;malloc [0-9]+$")" \
			"$(($(total "$TMP/aagent.folded" "^$kind;.*;churner;churn_one;malloc [0-9]+$") / 300))" 10
	done
}

# agent --inuse: each period pushes what a growing service holds, by the
# stack that allocated it (memory's inuse_space/bytes, to all three
# backends): its leak, in every period after the first and more than in
# the one before (a leak's sampled blocks are never freed), and
# none of its churn, freed at once.
test_agent_alloc_inuse_pushes_what_is_held() {
	local kind leak
	agent_alloc_pushes i leaky --inuse
	alloc_types_pushed i inuse
	for kind in pyroscope otlp parca; do
		grep -E "^$kind;alloc_paths;.*;main;steady;leaker;leak_one;malloc [0-9]+$" \
			"$TMP/iagent.folded" | awk '{ print $NF }' >"$TMP/ileak.$kind"
		echo "$kind: the leak in use at each period's end:" $(cat "$TMP/ileak.$kind")
		expect_ge "$kind: periods with the leak in use" "$(wc -l <"$TMP/ileak.$kind")" 3
		# (The last period, cut a moment after the one before, is no
		# second snapshot of the same blocks.)
		expect_eq "$kind: periods with no more of the leak in use than the one before" \
			"$(awk 'NR > 1 && $1 <= last { n++ } { last = $1 } END { print n + 0 }' "$TMP/ileak.$kind")" 0
		leak=$(total "$TMP/iagent.folded" "^$kind;alloc_paths;.*;main;steady;leaker;leak_one;malloc [0-9]+$")
		expect_ge "$kind: the churn's bytes in use at most 1% of the leak's" \
			"$((leak / 100 - $(total "$TMP/iagent.folded" "^$kind;.*;churn_one;malloc [0-9]+$")))" 0
	done
}

# What the options refuse, each with what to do.
test_alloc_options_refused_with_reasons() {
	local rc=0
	"$STITCH" record -e alloc -e cpu -- true 2>"$TMP/ao1.err" || rc=$?
	expect_eq "alloc with cpu: exit" "$rc" 2
	expect_grep "$TMP/ao1.err" 'weighs stacks in bytes.*record it alone'
	rc=0
	"$STITCH" record -e alloc --alloc-sample 0 -- true 2>"$TMP/ao2.err" || rc=$?
	expect_eq "--alloc-sample 0: exit" "$rc" 2
	expect_grep "$TMP/ao2.err" "--alloc-sample: '0' is not a size"
	rc=0
	"$STITCH" record --alloc-sample 1M -- true 2>"$TMP/ao3.err" || rc=$?
	expect_eq "--alloc-sample without -e alloc: exit" "$rc" 2
	expect_grep "$TMP/ao3.err" 'goes with -e alloc'
	rc=0
	"$STITCH" record --inuse -- true 2>"$TMP/ao4.err" || rc=$?
	expect_eq "--inuse without -e alloc: exit" "$rc" 2
	expect_grep "$TMP/ao4.err" '--inuse goes with -e alloc'
	rc=0
	"$STITCH" record -e alloc --min-age 5s -- true 2>"$TMP/ao5.err" || rc=$?
	expect_eq "--min-age without --inuse: exit" "$rc" 2
	expect_grep "$TMP/ao5.err" '--min-age goes with -e alloc --inuse'
	rc=0
	"$STITCH" record -e alloc --inuse --min-age soon -- true 2>"$TMP/ao6.err" || rc=$?
	expect_eq "--min-age soon: exit" "$rc" 2
	expect_grep "$TMP/ao6.err" "--min-age: 'soon' is not a time"
	rc=0
	"$STITCH" agent --inuse --push pyroscope=http://127.0.0.1:1 -d 1 2>"$TMP/ao7.err" || rc=$?
	expect_eq "agent --inuse without -e alloc: exit" "$rc" 2
	expect_grep "$TMP/ao7.err" '--inuse goes with -e alloc'
	rc=0
	"$STITCH" agent -e alloc --min-age 5s --push pyroscope=http://127.0.0.1:1 -d 1 \
		2>"$TMP/ao8.err" || rc=$?
	expect_eq "agent --min-age without --inuse: exit" "$rc" 2
	expect_grep "$TMP/ao8.err" '--min-age goes with -e alloc --inuse'
}
