# SPDX-License-Identifier: GPL-2.0
# Interpreters embedded through their shared library (sourced by run.sh):
# CPython's libpythonX.Y.so dlopen()ed by a program named nothing like
# python (tests/workloads/interp/py_embed.c), on the host and in a release
# root.  Perl's embedding is in interp_perl_tests.sh (perl_embed); Ruby's
# interpreter is always libruby, whatever runs it.

gcc -O2 -g -Wall -Wextra -Werror -o "$W/py_embed" tests/workloads/interp/py_embed.c || exit 1
PY_EMBED=$(realpath "$W/py_embed")

# embed_cpu_check FOLDED SCRIPT_PATH: thread A's samples in cpu_burn carry
# the whole exact chain, its lines included, and nothing of thread B.
embed_cpu_check() {
	local out=$1 script=$2 re burn
	re=$(printf '%s' "$script" | sed 's/[.]/\\./g')
	line() { grep -n "# MARK: $1\$" tests/workloads/interp/py_stitch.py | cut -d: -f1; }
	burn="Thread\\.run \\([^)]*threading\\.py:[0-9]+\\);([^;()]+;)*cpu_a \\($re:$(line cpu_a)\\);cpu_burn \\($re:$(line cpu_burn)\\)"
	show "$out"
	expect_ge "samples in cpu_a -> cpu_burn" "$(total "$out" "^py_embed;.*$burn")" 300
	expect_eq "% of cpu_burn() samples with the exact chain" \
		"$(share "$out" ';cpu_burn \(' "^py_embed;clone3;start_thread;.*$burn( |;)")" 100
	expect_eq "B's frames with cpu_burn" "$(total "$out" 'b_sleep.*cpu_burn|cpu_burn.*b_sleep')" 0
}

# Debian 12's libpython3.11 (the package python3.11-dev pulls in).
test_python_embedded_libpython_host() {
	"$STITCH" record -F 499 -o "$TMP/pyemb.folded" -- \
		"$PY_EMBED" libpython3.11.so.1.0 "$PYW" cpu 2
	embed_cpu_check "$TMP/pyemb.folded" "$PYW"
}
