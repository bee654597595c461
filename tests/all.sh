#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make test's runs: the host's suites and the kernel matrix's guests
# (tests/vm/matrix.sh), then the matrix's results.
#
#   tests/all.sh ALONE BESIDE   (make test: each a make command of suites)
#   STITCH_KERNELS="bookworm trixie" tests/all.sh ALONE BESIDE   (those guests only)
#
# ALONE, the suites that time what they trace (the integration tests, their
# sanitizer pass, the stall library's), runs as their thresholds were
# measured: no other ordinary process on the machine.  Beside them, from
# the start, the kernel matrix's guests of IDLE_KERNELS, one at a time at
# the idle scheduling class: QEMU's TCG runs on a host CPU only while
# ALONE leaves it idle (the integration tests keep 45% of two busy, over
# nine tests of every kind), and gives it up at once when a test's thread
# wakes.  A guest beside them as an ordinary process took half a CPU from
# them: four of their first 132 failed (2026-12-06: samples counted on a
# loaded machine below their thresholds, a JVM snapshot taken before its
# hot method ran), the pass 1.5x as long.  The guests chosen are x86-64's,
# the longest first (arm64's emulation leaves its tests the thinnest
# margins).  Starved whenever the host's tests take both CPUs, while their
# clock runs on (TCG's time is the host's), they may count too few
# samples (3 of 118 tests in one run): the tests that failed in them run
# again at the ordinary class (matrix.sh, K.again).  Then BESIDE (suites
# that time nothing: unit tests, fuzzers, the browser's and the walkers'
# checks) runs with one guest
# beside it, an ordinary process again, and two at a time after: a guest
# is QEMU's TCG on one host CPU, BESIDE keeps about one busy.  Fresh-clone
# CI 4,119 s with no guest beside the host's tests, 3,501 s with one
# beside BESIDE, 3,729-3,824 s after the matrix grew (issue 41's, 39's);
# 2,680 s with the idle guests beside ALONE (sid's 704 s, trixie's 291 s
# and bookworm's 334 s all run there, 2026-12-06).
# The matrix's output is kept in a file and printed at the end, in one
# piece.  Exits 1 if anything failed.
set -u
cd "$(dirname "$0")/.." || exit 1

[ $# -eq 2 ] || { echo "usage: tests/all.sh ALONE-COMMAND BESIDE-COMMAND" >&2; exit 2; }
alone=$1 beside=$2
log=${STITCH_MATRIX_LOG:-build/matrix.log}
# The integration tests' workloads, built once here for the host and the
# guests: x86-64's guests read them from this tree, so none may be
# rewritten while one of them runs it (STITCH_WORKLOADS_BUILT: the host's
# runs take them as built; matrix.sh builds only what is missing).
STITCH_BUILD_ONLY=1 tests/integration/run.sh || exit 1
if [ "$(uname -m)" = x86_64 ]; then
	STITCH_BUILD_ONLY=1 STITCH_TEST_ARCH=arm64 STITCH=build-arm64/stitch \
		tests/integration/run.sh || exit 1
fi
export STITCH_WORKLOADS_BUILT=1

# kill_tree PID: PID and every process under it (the guests' timeout
# commands leave the session's process group, each in its own).
kill_tree() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$c"; done
	kill -TERM "$1" 2>/dev/null
}
# unidle_tree PID: PID and every process under it, every thread, made
# ordinary processes again (SCHED_OTHER).
unidle_tree() {
	local c
	# The parent first: what it starts meanwhile is ordinary from birth.
	chrt -a -o -p 0 "$1" >/dev/null 2>&1
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do unidle_tree "$c"; done
}
host='' matrix='' slots=''
stop_all() {
	[ -z "$host" ] || kill_tree "$host"
	[ -z "$matrix" ] || kill_tree "$matrix"
	wait
	[ -z "$slots" ] || rm -f "$slots" "$slots.idle"
	exit 130
}
trap stop_all INT TERM HUP
# run COMMAND: in the background, waited for (a signal's trap runs at
# once); its status in $rc.
run() {
	bash -c "$1" &
	host=$!
	wait "$host"
	rc=$?
	host=''
}

slots=$(mktemp /tmp/stitch-slots.XXXXXX)
echo 1 >"$slots"
echo "${IDLE_KERNELS-sid trixie bookworm}" >"$slots.idle"
# Its own session: a Ctrl-C of make test reaches it through the trap only,
# which stops every guest before leaving.  At the idle class itself too:
# its kernels' fetch and unpacking (80 s of a fresh machine's) go beside
# ALONE as its guests do.  A new session is a new autogroup where the
# kernel groups tasks by session (sched_autogroup_enabled, on here), which
# competes with ALONE's as an equal whatever its tasks' class: a guest took
# half a CPU from ALONE that way (test_jit_hostile_jvm_own_frames_only's
# threads 188 samples where 200 were asked), until its nice went to 19.
# shellcheck disable=SC2016,SC2086
STITCH_VM_SLOTS_FILE=$slots STITCH_VM_IDLE_FILE=$slots.idle setsid sh -c \
	'echo 19 >/proc/self/autogroup 2>/dev/null; exec chrt -i 0 tests/vm/matrix.sh "$@"' \
	matrix ${STITCH_KERNELS:-} >"$log" 2>&1 &
matrix=$!
echo "all: the kernel matrix starts, its guests idle beside the host's timed tests ($log)"
run "$alone"
alone_rc=$rc
rm -f "$slots.idle"
echo 0 >"/proc/$matrix/autogroup" 2>/dev/null
unidle_tree "$matrix"
echo "all: the kernel matrix goes on, one guest beside the host's other tests"
run "$beside"
beside_rc=$rc
echo 2 >"$slots"
echo "all: the host's tests are done; the kernel matrix goes on, two guests at a time"
wait "$matrix"
kernels_rc=$?
trap - INT TERM HUP
rm -f "$slots"
cat "$log"
[ "$alone_rc" -eq 0 ] && [ "$beside_rc" -eq 0 ] && [ "$kernels_rc" -eq 0 ]
