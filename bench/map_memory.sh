#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The kernel memory a running stitch holds in BPF maps: every map one of its
# file descriptors names (fdinfo's memlock, what the kernel charges for it),
# largest first, and the total.  bpftool here cannot tell which process owns
# a map, and several stitch may run at once.
#
#   bench/map_memory.sh PID [MIN_BYTES]    maps of at least MIN_BYTES (1 MiB)

# "id memlock type" of each map PID holds, once each.
map_list() {	# PID
	grep -H -E '^(map_type|memlock|map_id):' /proc/"$1"/fdinfo/* 2>/dev/null |
		awk -F'[:\t ]+' '{ v[$1, $2] = $3; f[$1] = 1 }
			END { for (k in f) if ((k, "map_id") in v && !(v[k, "map_id"] in seen)) {
				seen[v[k, "map_id"]] = 1
				print v[k, "map_id"], v[k, "memlock"], v[k, "map_type"] } }'
}

# Total bytes of BPF maps PID holds.
map_memory_total() {	# PID
	map_list "$1" | awk '{ s += $2 } END { print s + 0 }'
}

map_memory() {	# PID MIN_BYTES
	local min=${2:-1048576} id mem type name list
	list=$(map_list "$1")
	echo "$list" | sort -k2 -rn | while read -r id mem type; do
		[ -n "$mem" ] && [ "$mem" -ge "$min" ] || continue
		name=$(bpftool map show id "$id" 2>/dev/null | sed -n 's/.* name \([^ ]*\) .*/\1/p')
		printf '%-20s type %-3s %8.2f MiB\n' "${name:-?}" "$type" "$(awk -v m="$mem" \
			'BEGIN { print m / 1048576 }')"
	done
	echo "$list" | awk '{ s += $2; n++ } END { printf "total %.2f MiB in %d maps\n", s / 1048576, n }'
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	[ -n "$1" ] || { echo "usage: $0 PID [MIN_BYTES]" >&2; exit 2; }
	map_memory "$@"
fi
