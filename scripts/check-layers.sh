#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The house has no cycles: no header includes itself through others, and no
# source file calls into a file that (directly or through others) calls back
# into it.  Includes come from the sources; calls from the built objects
# (nm: a file that uses a symbol another file defines depends on that file).
# tsort finds the loops.  The one deliberate twin, kunwind_walk.h compiled as
# BPF and as C, is a header both sides include: not a cycle.
#
#   scripts/check-layers.sh [OBJECT...]   (default: the object of every
#                                          source in src/, from `make`)
set -u
cd "$(dirname "$0")/.."
obj=build/obj
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0

# Include edges: file -> header, by path from src/; the headers the Makefile
# makes from src/interp/languages.def (build/interp_*.h) are files too, so
# the edges through them count.
{ find src -name '*.[ch]'; find build -maxdepth 1 -name 'interp_*.h' 2>/dev/null; } | sort |
while read -r f; do
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r h; do
		if [ -f "src/$h" ] || [ -f "build/$h" -a "${h#interp_}" != "$h" ]; then
			echo "${f#*/} $h"
		fi
	done
done >"$tmp/includes"

# Call edges: object -> object that defines a symbol it uses.  Only objects
# of sources that exist: a renamed file leaves its old object behind.
if [ $# -gt 0 ]; then
	printf '%s\n' "$@" >"$tmp/objs"
else
	find src -name '*.c' ! -name '*.bpf.c' ! -name main.c | sort |
		sed "s#^src/\(.*\)\.c\$#$obj/\1.o#" >"$tmp/objs"
fi
while read -r o; do
	[ -f "$o" ] || { echo "check-layers: no $o: run make first" >&2; exit 1; }
done <"$tmp/objs"
while read -r o; do
	nm --defined-only -g "$o" | awk -v o="$o" '{ print $3, o }'
done <"$tmp/objs" | sort -u >"$tmp/defs"
while read -r o; do
	nm -u "$o" | awk -v o="$o" '{ print $2, o }'
done <"$tmp/objs" | sort -u >"$tmp/uses"
join "$tmp/uses" "$tmp/defs" | awk '$2 != $3 { print $2, $3 }' |
	sed "s#$obj/##g" | sort -u >"$tmp/calls"

for kind in includes calls; do
	# tsort names the files of each loop on stderr.
	if ! tsort "$tmp/$kind" >/dev/null 2>"$tmp/$kind.err"; then
		echo "check-layers: $kind form a cycle:" >&2
		grep -v 'input contains a loop' "$tmp/$kind.err" | sed 's/^tsort: /    /' >&2
		fail=1
	fi
done
n_inc=$(wc -l <"$tmp/includes") n_call=$(wc -l <"$tmp/calls")
if [ "$fail" -ne 0 ]; then
	echo "0 passed, 1 failed"
	exit 1
fi
echo "check-layers: no cycles in $n_inc include edges and $n_call call edges between files"
