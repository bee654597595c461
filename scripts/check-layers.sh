#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The house has no cycles: no header includes itself through others, and no
# source file calls into a file that (directly or through others) calls back
# into it; nor does any folder of src/: a folder depends on another if any
# file in it includes or calls into a file of the other, and no folder
# depends on itself through others.  Includes come from the sources (a
# skeleton, build/NAME.skel.h, stands for its program src/.../NAME.bpf.c);
# calls from the built objects (nm: a file that uses a symbol another file
# defines depends on that file).  tsort finds the loops.  The one deliberate
# twin, unwind_in_kernel_step.h compiled as BPF and as C, is a header both sides
# include: not a cycle.
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
# the edges through them count, and a skeleton is the program it is made of.
find src -name '*.bpf.c' | sed 's#^src/##' >"$tmp/programs"
{ find src -name '*.[ch]'; find build -maxdepth 1 -name 'interp_*.h' 2>/dev/null; } | sort |
while read -r f; do
	sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f" | while read -r h; do
		if [ -f "src/$h" ] || [ -f "build/$h" -a "${h#interp_}" != "$h" ]; then
			echo "${f#*/} $h"
		elif [ "${h%.skel.h}" != "$h" ]; then
			grep -m1 "\(^\|/\)${h%.skel.h}\.bpf\.c\$" "$tmp/programs" | sed "s#^#${f#*/} #"
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

# Folder edges: the file edges of both kinds between two folders, as
# "folder folder file file".  A file's folder is the first part of its path
# (interp/perl/perl.c: interp; build/interp_layouts.h: interp, it is made
# from there); a file at the top of src/ is a node of its own.  So is
# interp/languages.def, the table of interpreters: data every layer that
# has one of something per language reads (profile's frame kinds,
# formats' colours), which includes nothing and has no code to call back.
folder_of='
	function folder(p) {
		if (p == "interp/languages.def") return p
		if (p ~ /^interp_.*\.h$/) return "interp"
		sub(/\/.*/, "", p)
		return p
	}'
sed 's/\.o / /; s/\.o$//; s/\([^ ]*\) \(.*\)/\1.c \2.c/' "$tmp/calls" |
	cat "$tmp/includes" - | awk "$folder_of"'
	{ a = folder($1); b = folder($2); if (a != b) print a, b, $1, $2 }' |
	sort -u >"$tmp/folder_files"
awk '{ print $1, $2 }' "$tmp/folder_files" | sort -u >"$tmp/folders"

for kind in includes calls folders; do
	# tsort names the files (folders) of each loop on stderr.
	if ! tsort "$tmp/$kind" >/dev/null 2>"$tmp/$kind.err"; then
		echo "check-layers: $kind form a cycle:" >&2
		grep -v 'input contains a loop' "$tmp/$kind.err" | sed 's/^tsort: /    /' >&2
		fail=1
	fi
done
if [ -s "$tmp/folders.err" ]; then
	# Which files make each folder edge of the loops: one example per edge.
	grep -v 'input contains a loop' "$tmp/folders.err" | sed 's/^tsort: //' | sort -u \
		>"$tmp/loop_folders"
	echo "check-layers: the folder edges in those loops, each with one of its file edges:" >&2
	awk 'NR == FNR { in_loop[$1] = 1; next }
	     in_loop[$1] && in_loop[$2] && !seen[$1 " " $2]++ {
		printf "    %s -> %s (%s -> %s)\n", $1, $2, $3, $4 }' \
		"$tmp/loop_folders" "$tmp/folder_files" >&2
fi
n_inc=$(wc -l <"$tmp/includes") n_call=$(wc -l <"$tmp/calls") n_dir=$(wc -l <"$tmp/folders")
if [ "$fail" -ne 0 ]; then
	echo "0 passed, 1 failed"
	exit 1
fi
echo "check-layers: no cycles in $n_inc include edges and $n_call call edges between files," \
	"nor in the $n_dir edges between folders"
