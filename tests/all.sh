#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# make test's last part: the kernel matrix's guests (tests/vm/matrix.sh)
# beside the host's suites, then its results.
#
#   tests/all.sh COMMAND...     (make test: tests/all.sh make integration ...)
#   STITCH_KERNELS="bookworm trixie" tests/all.sh COMMAND   (those guests only)
#
# A guest is QEMU's TCG on one host CPU; the host's suites keep about one
# of this machine's two busy (45% of two CPUs over nine integration tests
# of every kind, 2026-12-06: their workloads and BPF, recordings' waits).
# Run one after the other they took 2,246 s then 1,871 s of CI's time
# (CI 2026-12-06); so one guest runs beside COMMAND, and two once it is
# done.  The matrix's output is kept in a file and printed at the end, in
# one piece.  Exits 1 if either failed.
set -u
cd "$(dirname "$0")/.." || exit 1

[ $# -gt 0 ] || { echo "usage: tests/all.sh COMMAND..." >&2; exit 2; }
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
log=${STITCH_MATRIX_LOG:-build/matrix.log}
slots=$(mktemp /tmp/stitch-slots.XXXXXX)
echo 1 >"$slots"
# Its own session: a Ctrl-C of make test reaches it through the trap below
# only, which stops every guest before leaving.
# shellcheck disable=SC2086
STITCH_VM_SLOTS_FILE=$slots setsid tests/vm/matrix.sh ${STITCH_KERNELS:-} >"$log" 2>&1 &
matrix=$!
echo "all: the kernel matrix runs beside the host's tests, one guest until they end ($log)"

# kill_tree PID: PID and every process under it (the guests' timeout
# commands leave the session's process group, each in its own).
kill_tree() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do kill_tree "$c"; done
	kill -TERM "$1" 2>/dev/null
}
host=''
stop_all() {
	[ -z "$host" ] || kill_tree "$host"
	kill_tree "$matrix"
	wait
	rm -f "$slots"
	exit 130
}
trap stop_all INT TERM HUP

# COMMAND in the background, waited for: a signal's trap runs at once.
"$@" &
host=$!
wait "$host"
host_rc=$?
host=''
echo 2 >"$slots"
echo "all: host's tests done (status $host_rc); the kernel matrix goes on, two guests at a time"
wait "$matrix"
kernels_rc=$?
trap - INT TERM HUP
rm -f "$slots"
cat "$log"
[ "$host_rc" -eq 0 ] && [ "$kernels_rc" -eq 0 ]
