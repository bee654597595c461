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
	expect_grep "$TMP/alloc.back.txt" '^stitch: [0-9.]+ MiB of alloc_space'
}

# Every allocator function, every call recorded (--alloc-sample 1): each
# one's bytes exactly what the workload asked for, under its own caller,
# counted once where glibc calls its own malloc (realloc(NULL), small
# alignments).
test_alloc_every_function_exact() {
	local fn
	"$STITCH" record -e alloc --alloc-sample 1 -o "$TMP/fns.folded" -- \
		"$ALLOC_PATHS" fns >"$TMP/fns.out" 2>"$TMP/fns.err"
	cat "$TMP/fns.err"
	for fn in $(awk '{ print $1 }' "$TMP/fns.out"); do
		expect_eq "$fn bytes" "$(total "$TMP/fns.folded" ";main;(fns_\\[i\\];)?$fn;")" \
			"$(said "$TMP/fns.out" "$fn")"
	done
}

# A Python list that grows: its bytes on the Python function and line that
# append to it, above the interpreter's allocator, within 10% (one sample
# per 64 KiB: ~3,000 samples).
test_alloc_python_growing_list_on_its_line() {
	"$STITCH" record -e alloc --alloc-sample 64K -o "$TMP/py_alloc.folded" -- \
		python3 tests/workloads/alloc_grow.py 100000 >"$TMP/py_alloc.out" 2>"$TMP/py_alloc.err"
	cat "$TMP/py_alloc.out" "$TMP/py_alloc.err"
	bytes_within "grow (alloc_grow.py:14)" \
		"$(total "$TMP/py_alloc.folded" ';<module> \([^;]*/alloc_grow\.py:27\);grow \([^;]*/alloc_grow\.py:14\);.*;malloc [0-9]+$')" \
		"$(said "$TMP/py_alloc.out" grew)" 10
	bytes_within "churn (alloc_grow.py:20)" \
		"$(total "$TMP/py_alloc.folded" ';<module> \([^;]*/alloc_grow\.py:28\);churn \([^;]*/alloc_grow\.py:20\);.*;malloc [0-9]+$')" \
		"$(said "$TMP/py_alloc.out" churned)" 10
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
}
