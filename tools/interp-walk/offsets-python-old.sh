#!/usr/bin/env bash
# Checks the CPython 3.8, 3.9, 3.10 entries of src/interp/python/python_versions.c against
# offsetof() in each version's own headers (offsets-python-old.c): the pyenv builds
# (/root/.pyenv/versions/3.X.N, include/python3.X with internal/) and, when the dev root
# is there, Debian bullseye's python3.9-dev, compiled inside that root.
# Prints one line per build and "python-old offsets: N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/interp-walk
versions=$root/src/interp/python/python_versions.c
pass=0 fail=0
mkdir -p "$out"

# The entry of version $1 in python_versions.c: its ".field = N," lines, sorted.
entry() {
	awk -v v="\"$1\"" '
		index($0, ".version = " v ",") { on = 1; next }
		on && /\.version = / { exit }
		on && /^\t+\.[a-z_]+ = [0-9]+,/ { sub(/^\t+/, ""); sub(/[ \t]*\/\*.*/, ""); print }
		on && /^\t},$/ { exit }' "$versions" | sort
}

# check LABEL OUTPUT: compare a run of offsets-python-old with its version's entry.
check() {
	local label=$1 got=$2 ver
	ver=$(sed -n 's/^version //p' "$got")
	if [ -z "$ver" ]; then
		fail=$((fail + 1)); echo "FAIL: $label: offsets-python-old did not run"; return
	fi
	if diff <(grep -v '^version' "$got" | sed 's/^\t*//' | sort) <(entry "$ver"); then
		pass=$((pass + 1)); echo "ok: $label (python $ver): every offset as in python_versions.c"
	else
		fail=$((fail + 1)); echo "FAIL: $label: python $ver's offsets differ (< headers, > python_versions.c)"
	fi
}

for v in 3.8.18 3.9.18 3.10.13; do
	m=${v%.*}
	inc=/root/.pyenv/versions/$v/include/python$m
	if [ ! -d "$inc/internal" ]; then
		fail=$((fail + 1)); echo "FAIL: pyenv $v: $inc/internal is missing"; continue
	fi
	if gcc -Wall -Wextra -Werror -I"$inc" -o "$out/offsets-python-$m" "$here/offsets-python-old.c" &&
		"$out/offsets-python-$m" > "$out/offsets-python-$m.txt"; then
		check "pyenv $v" "$out/offsets-python-$m.txt"
	else
		fail=$((fail + 1)); echo "FAIL: pyenv $v: offsets-python-old.c did not build or run"
	fi
done

bullseye=${STITCH_DEV_ROOTS:-${STITCH_ROOTS:-/var/cache/stitch/roots}/dev}/bullseye
if [ -x "$bullseye/usr/bin/gcc" ] && [ -d "$bullseye/usr/include/python3.9/internal" ]; then
	mkdir -p "$bullseye/tmp/stitch-offsets"
	cp "$here/offsets-python-old.c" "$bullseye/tmp/stitch-offsets/"
	if chroot "$bullseye" gcc -Wall -Wextra -Werror -I/usr/include/python3.9 \
		-o /tmp/stitch-offsets/offsets-python-old /tmp/stitch-offsets/offsets-python-old.c &&
		chroot "$bullseye" /tmp/stitch-offsets/offsets-python-old > "$out/offsets-python-bullseye.txt"; then
		check "Debian bullseye python3.9-dev" "$out/offsets-python-bullseye.txt"
	else
		fail=$((fail + 1)); echo "FAIL: bullseye: offsets-python-old.c did not build or run in $bullseye"
	fi
else
	# make roots builds it (tests/integration/roots.sh): its absence is a failure.
	fail=$((fail + 1))
	echo "FAIL: Debian bullseye's python3.9-dev: no development root with gcc at $bullseye (make roots)"
fi
echo "python-old offsets: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
