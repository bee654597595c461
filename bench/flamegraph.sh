#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# SVG flame graph writer: render time and file size for synthetic profiles of
# 10k, 100k and 1M distinct stacks (depth 20-40).  See bench/flamegraph_bench.c.
#
#   bench/flamegraph.sh [NSTACKS...]      (builds build/libstitch.a first: make)
set -eu
cd "$(dirname "$0")/.."
out=build/bench
mkdir -p "$out"
[ -f build/libstitch.a ] || make build/libstitch.a >/dev/null
${CC:-gcc} -O2 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -Isrc -Ibuild \
	bench/flamegraph_bench.c build/libstitch.a -lbpf -ldw -lelf -llzma -lz -lpthread \
	-o "$out/flamegraph_bench"
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(10000 100000 1000000)
for n in "${sizes[@]}"; do
	"$out/flamegraph_bench" "$n" "$out/flamegraph-$n.svg"
done
