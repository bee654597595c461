#!/usr/bin/env bash
# Ruby 2.7's, 3.3's and 3.4's offsets in stitch's table (src/interp/ruby/ruby_versions.c,
# printed by ruby-layout.c) against the real ones, each read inside a root of its release:
# offsets-ruby27.c compiled there against rb_mjit_min_header-2.7.N.h (needs gcc and
# ruby-dev in the root), offsets-ruby-rjit.rb run there by each root's ruby3.3 or ruby3.4
# (RJIT's bindings, live objects; no development files needed).
#   check-ruby-roots.sh ROOT27 ROOT3X...
#   (e.g. /var/cache/stitch/roots/dev/{bullseye,trixie,sid} /var/cache/stitch/roots/experimental)
# Prints "ruby offsets: N passed, M failed"; exits 1 on any mismatch or missing piece.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
out=$top/build/interp-walk
mkdir -p "$out"
pass=0 fail=0
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

gcc -O2 -Wall -Wextra -Werror -I"$top/src" -I"$top/build" -o "$out/ruby-layout" \
	"$here/ruby-layout.c" "$top/src/interp/ruby/ruby_versions.c" || { echo "FAIL: build ruby-layout"; exit 1; }

# compare VERSION REAL: every value REAL names is the table's.
compare() {
	local v=$1 real=$2 name value want
	"$out/ruby-layout" "$v" >"$out/table-$v.txt" || { bad "no ruby $v in the table"; return; }
	while IFS== read -r name value; do
		case $name in MISMATCH*) bad "ruby $v: $name $value"; continue ;; esac
		want=$(sed -n "s/^$name=//p" "$out/table-$v.txt")
		if [ "$want" = "$value" ]; then
			pass=$((pass + 1))
		else
			bad "ruby $v: $name is ${want:-missing} in the table, $value in the real build"
		fi
	done <"$real"
}

r27=${1:?usage: check-ruby-roots.sh ROOT27 ROOT3X...}
shift
hdr=$(cd "$r27/usr/include/x86_64-linux-gnu/ruby-2.7.0" 2>/dev/null && ls rb_mjit_min_header-2.7.*.h | head -1)
mkdir -p "$r27/tmp/stitch-offsets"
cp "$here/offsets-ruby27.c" "$r27/tmp/stitch-offsets/"
if [ -n "$hdr" ] && chroot "$r27" gcc -w -DRB_MJIT_HEADER="\"$hdr\"" \
	-I/usr/include/x86_64-linux-gnu/ruby-2.7.0 -o /tmp/stitch-offsets/offsets-ruby27 \
	/tmp/stitch-offsets/offsets-ruby27.c -lruby-2.7 &&
	chroot "$r27" /tmp/stitch-offsets/offsets-ruby27 >"$out/real-2.7.txt"; then
	compare 2.7 "$out/real-2.7.txt"
else
	bad "offsets-ruby27.c in $r27 (${hdr:-no rb_mjit_min_header-2.7.N.h: ruby2.7-dev and gcc needed})"
fi
# Each root's Ruby 3.x: ruby3.4 if it has one (experimental also has sid's 3.3), else ruby3.3.
for r3 in "$@"; do
	v=3.3
	[ ! -x "$r3/usr/bin/ruby3.4" ] || v=3.4
	"$out/ruby-layout" "$v" >"$out/table-$v.txt"
	mkdir -p "$r3/tmp/stitch-offsets"
	cp "$here/offsets-ruby-rjit.rb" "$out/table-$v.txt" "$r3/tmp/stitch-offsets/"
	if unshare --mount --root="$r3" "ruby$v" --rjit=disable /tmp/stitch-offsets/offsets-ruby-rjit.rb \
		"/tmp/stitch-offsets/table-$v.txt" >"$out/real-$v.txt"; then
		compare "$v" "$out/real-$v.txt"
	else
		bad "offsets-ruby-rjit.rb (ruby $v) in $r3:"
		grep MISMATCH "$out/real-$v.txt"
	fi
done
echo "ruby offsets: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
