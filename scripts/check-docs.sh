#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# Every path the documentation names must exist: README.md and docs/*.md are
# scanned for repository paths (src/..., tests/..., bench/..., tools/...,
# docs/..., lib/..., fuzz/..., scripts/...), brace lists are expanded
# (src/capture/unwind_in_kernel.{c,h}) and globs matched.  A stale path fails `make
# test`, so the layout the README describes is the layout there is.
set -u
cd "$(dirname "$0")/.."

docs=(README.md docs/*.md)
missing=0 checked=0
while IFS=: read -r file path; do
	path=${path%.}		# a sentence's full stop
	path=${path%,}
	# Brace lists and globs expand through the shell; nothing else is run.
	case "$path" in *[!A-Za-z0-9_./{},*-]*) continue ;; esac
	for p in $(eval "echo $path"); do
		checked=$((checked + 1))
		compgen -G "$p" >/dev/null && continue
		echo "$file: names $p, which does not exist" >&2
		missing=$((missing + 1))
	done
done < <(grep -oE '(^|[^A-Za-z0-9_./-])(src|tests|bench|tools|docs|lib|fuzz|scripts)/[A-Za-z0-9_./{},*-]*[A-Za-z0-9_}*/]' \
		"${docs[@]}" | sed -E 's/^([^:]*):[^A-Za-z]?/\1:/' | sort -u)

if [ "$missing" -gt 0 ]; then
	echo "check-docs: $missing of $checked paths named in the docs do not exist"
	echo "0 passed, 1 failed"
	exit 1
fi
echo "check-docs: all $checked paths named in the docs exist"
