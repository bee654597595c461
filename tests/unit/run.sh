#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the cmocka unit test binaries given as arguments (built under
# ASan/UBSan by the Makefile) and sum their results into one line.
set -u
# No debuginfod server: the symbolizer tests name stripped binaries.
unset DEBUGINFOD_URLS
passed=0
failed=0
broken=()
for bin in "$@"; do
	out=$("$bin" 2>&1)
	rc=$?
	echo "$out" | grep -E '^\[( +PASSED +| +FAILED +|==========)\]|ERROR|runtime error|Sanitizer' | sed "s|^|$(basename "$bin"): |"
	p=$(echo "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	f=$(echo "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -n 1)
	passed=$((passed + ${p:-0}))
	failed=$((failed + ${f:-0}))
	if [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ]; then
		# Crashed or a sanitizer stopped it before cmocka could count.
		echo "$out" | tail -n 30
		failed=$((failed + 1))
		broken+=("$(basename "$bin")")
	fi
done
[ ${#broken[@]} -eq 0 ] || echo "crashed: ${broken[*]}"
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
