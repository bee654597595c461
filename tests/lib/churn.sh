# SPDX-License-Identifier: GPL-2.0
# Process churn and the resident set of who watches it: what the memory tests
# (tests/integration/memory.sh) and bench/agent_churn.sh share.  Sourced.

# rss_kb PID [FIELD]: its resident set now (KiB), or FIELD of its status
# (RssAnon: its heap and what it mapped itself, without the pages of the files
# it maps, which are the page cache's and which another tracer mapping the same
# files holds too); nothing once it is gone.
rss_kb() {
	awk -v f="${2:-VmRSS}:" '$1 == f { print $2 }' "/proc/$1/status" 2>/dev/null
}

# rss_floor_kb PID [FIELD]: its smallest resident set (KiB) over 2 s: what it
# holds, without the tables it builds for a while for other processes of the
# machine (a clang maps 23 MB of them) and frees when they exit.  Fails if
# PID is gone.
rss_floor_kb() {
	local i rss min=
	for ((i = 0; i < 10; i++)); do
		rss=$(rss_kb "$1" "${2:-VmRSS}")
		[ -n "$rss" ] || return 1
		if [ -z "$min" ] || [ "$rss" -lt "$min" ]; then
			min=$rss
		fi
		sleep 0.2
	done
	echo "$min"
}

# churn_copies DIR N BINARY BATCH [ARG...]: N processes of N distinct copies of
# BINARY (new files, new inodes: each a binary a tracer has not seen, as a
# build's or a shell loop's are), run with ARGs, BATCH at a time, then removed.
churn_copies() {
	local dir=$1 n=$2 bin=$3 batch=$4 name i pids=()
	shift 4
	name=$(basename "$bin")
	for ((i = 0; i < n; i++)); do
		cp "$bin" "$dir/$name$i"
	done
	for ((i = 0; i < n; i++)); do
		"$dir/$name$i" "$@" &
		pids+=($!)
		if ((i % batch == batch - 1)); then
			wait "${pids[@]}"
			pids=()
		fi
	done
	# Never a bare wait: it would wait for the tracer too.
	if [ ${#pids[@]} -gt 0 ]; then
		wait "${pids[@]}"
	fi
	for ((i = 0; i < n; i++)); do
		rm -f "$dir/$name$i"
	done
}
