#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build (or find cached) the Debian release roots the interpreter tests run
# in, all at once: tests/integration/build-roots.sh [RELEASE...]
set -u
cd "$(dirname "$0")/../.."
die() {
	echo "$*" >&2
	exit 1
}
. tests/integration/roots.sh

releases=${*:-bullseye bookworm trixie sid experimental bullseye-dev trixie-dev sid-dev experimental-dev}
pids=()
for rel in $releases; do
	root_build "$rel" &
	pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do
	wait "$pid" || rc=1
done
[ "$rc" -eq 0 ] || die "roots: a release root could not be built (see above)"
for rel in $releases; do
	echo "roots: $rel ready in $(root_dir "$rel")"
done
