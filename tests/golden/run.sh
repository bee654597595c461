#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Golden-file tests: a fixed profile (input.folded: kernel, inlined and marker
# frames, a hostile comm, a name with spaces) converted by `stitch report` into
# every format and compared byte for byte with the expected files here.
# pprof is compared as protoc's decoding, so the expectation is readable.
#
#   tests/golden/run.sh            check
#   UPDATE=1 tests/golden/run.sh   rewrite the expected files (review the diff!)
set -u
cd "$(dirname "$0")/../.."
STITCH=${STITCH:-./stitch}
G=tests/golden
TMP=$(mktemp -d /tmp/stitch-golden.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

passed=0
failed=0
check() {	# NAME GENERATED
	local want="$G/expected.$1"
	if [ "${UPDATE:-}" = 1 ]; then
		cp "$2" "$want"
	fi
	if cmp -s "$2" "$want"; then
		passed=$((passed + 1))
		echo "ok    golden $1"
	else
		failed=$((failed + 1))
		echo "FAIL  golden $1"
		diff -u "$want" "$2" | head -n 40
	fi
}

for fmt in folded txt svg speedscope.json; do
	"$STITCH" report "$G/input.folded" --top 100 -o "$TMP/out.$fmt" || failed=$((failed + 1))
	check "$fmt" "$TMP/out.$fmt"
done
"$STITCH" report "$G/input.folded" --inverted -o "$TMP/inverted.svg" || failed=$((failed + 1))
check inverted.svg "$TMP/inverted.svg"
"$STITCH" report "$G/input.folded" -o "$TMP/out.pb.gz" || failed=$((failed + 1))
gzip -dc "$TMP/out.pb.gz" | protoc --decode=perftools.profiles.Profile \
	-I tests/agent/proto/pprof tests/agent/proto/pprof/profile.proto >"$TMP/out.pprof.txt" ||
	failed=$((failed + 1))
check pprof.txt "$TMP/out.pprof.txt"

echo "golden: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
