# SPDX-License-Identifier: GPL-2.0
# Interpreters embedded through their shared library (sourced by run.sh):
# CPython's libpythonX.Y.so dlopen()ed by a program named nothing like
# python (tests/workloads/interp/py_embed.c), on the host and in a release
# root.  Perl's embedding is in interp_perl_tests.sh (perl_embed); Ruby's
# interpreter is always libruby, whatever runs it.

workload gcc -O2 -g -Wall -Wextra -Werror -o "$W/py_embed" tests/workloads/interp/py_embed.c || exit 1
PY_EMBED=$(realpath "$W/py_embed")

# embed_cpu_check FOLDED SCRIPT_PATH [COMM_RE [START_RE]]: thread A's samples in
# cpu_burn carry the whole exact chain, its lines included, and nothing of thread
# B.  COMM_RE: its folded lines' start (3.14 names threads after Thread.name);
# START_RE: its thread's first frames (a root's stripped libc has no names).
embed_cpu_check() {
	local out=$1 script=$2 comm=${3:-^py_embed;} start=${4:-clone3;start_thread;} re burn
	re=$(printf '%s' "$script" | sed 's/[.]/\\./g')
	line() { grep -n "# MARK: $1\$" tests/workloads/interp/py_stitch.py | cut -d: -f1; }
	burn="Thread\\.run \\([^)]*threading\\.py:[0-9]+\\);([^;()]+;)*cpu_a \\($re:$(line cpu_a)\\);$(py_burn "$re")"
	show "$out"
	expect_ge "samples in cpu_a -> cpu_burn" "$(total "$out" "$comm.*$burn")" 300
	show_outside "$out" ';cpu_burn \(' "$comm$start.*$burn( |;)"
	expect_eq "% of cpu_burn() samples with the exact chain" \
		"$(share "$out" ';cpu_burn \(' "$comm$start.*$burn( |;)")" 100
	expect_eq "B's frames with cpu_burn" "$(total "$out" 'b_sleep.*cpu_burn|cpu_burn.*b_sleep')" 0
}

# Debian 12's libpython3.11 (the package python3.11-dev pulls in).
test_python_embedded_libpython_host() {
	"$STITCH" record -F 499 -o "$TMP/pyemb.folded" -- \
		"$PY_EMBED" libpython3.11.so.1.0 "$PYW" cpu 2
	embed_cpu_check "$TMP/pyemb.folded" "$PYW"
}

# embed_in_root RELEASE LIBRARY [COMM_RE]: the library embedded in the release's root;
# frames name the script's path there.
embed_in_root() {
	local rel=$1 lib=$2 comm=${3:-^py_embed;} out=$TMP/pyemb-$1.folded
	root_put "$rel" "$PY_EMBED" "$PYW"
	# shellcheck disable=SC2046 # the prefix is a command and its arguments
	"$STITCH" record -F 499 -o "$out" -- $(in_root_cmd "$rel") /stitch-tests/py_embed \
		"$lib" /stitch-tests/py_stitch.py cpu 2 2>"$TMP/pyemb-$rel.err"
	cat "$TMP/pyemb-$rel.err"
	expect_eq "warnings" "$(grep -c 'not supported' "$TMP/pyemb-$rel.err")" 0
	embed_cpu_check "$out" /stitch-tests/py_stitch.py "$comm" 'libc\.so\.6\+0x[0-9a-f]+;libc\.so\.6\+0x[0-9a-f]+;'
}

# Debian 13's libpython3.13 (layout from its _Py_DebugOffsets).
test_python_embedded_libpython313_trixie() {
	embed_in_root trixie libpython3.13.so.1.0
}

# sid's libpython3.14 (its debug offsets, its eval loop outside its symbol).
test_python_embedded_libpython314_sid() {
	embed_in_root sid libpython3.14.so.1.0 '^Thread-1 \(cpu_a;'
}
