# SPDX-License-Identifier: GPL-2.0
# Helpers for stitch's integration tests: run a test function, keep its log,
# count passes and failures, and query folded output.

PASSED=0
FAILED=0
FAILED_NAMES=()

# run_test NAME: run function NAME with its output in $TMP/NAME.log.
run_test() {
	local name=$1 start end rc
	start=$(date +%s.%N)
	# Not inside 'if': bash ignores set -e in a condition, even in a subshell.
	( set -e; "$name" ) >"$TMP/$name.log" 2>&1
	rc=$?
	reap_tracked
	if [ "$rc" -eq 0 ]; then
		end=$(date +%s.%N)
		PASSED=$((PASSED + 1))
		printf 'ok    %-40s %5.1fs\n' "$name" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
	else
		FAILED=$((FAILED + 1))
		FAILED_NAMES+=("$name")
		printf 'FAIL  %s\n' "$name"
		sed 's/^/      | /' "$TMP/$name.log" | tail -n 40
	fi
}

# track_pid PID: a background server or workload that run_test stops after the
# test, if the test died before it did.  Kept with its start time, so that a pid
# the kernel gave to another process since is never killed.
track_pid() {
	local start
	start=$(awk '{ print $22 }' "/proc/$1/stat" 2>/dev/null) || return 0
	echo "$1 $start" >>"$TMP/tracked.pids"
}

reap_tracked() {
	local pid start now
	[ -s "$TMP/tracked.pids" ] || return 0
	while read -r pid start; do
		now=$(awk '{ print $22 }' "/proc/$pid/stat" 2>/dev/null) || continue
		if [ "$now" = "$start" ]; then
			echo "reaping pid $pid, left running by the test" >>"$TMP/reaped.log"
			kill "$pid" 2>/dev/null || true
		fi
	done <"$TMP/tracked.pids"
	rm -f "$TMP/tracked.pids"
}

die() {
	echo "$*" >&2
	exit 1
}

# total FILE [REGEX]: sum of counts of folded lines matching REGEX (default all).
total() {
	local file=$1
	# Regexes go through the environment: awk -v would eat backslashes.
	RE=${2:-.} awk '$0 ~ ENVIRON["RE"] { n += $NF } END { print n + 0 }' "$file"
}

# share FILE OF_REGEX IN_REGEX: percent (integer) of the OF_REGEX events that
# also match IN_REGEX.
share() {
	local file=$1
	OF=$2 IN=$3 awk '
		$0 ~ ENVIRON["OF"] { all += $NF; if ($0 ~ ENVIRON["IN"]) hit += $NF }
		END { if (all == 0) print 0; else print int(100 * hit / all) }' "$file"
}

# A number, or the test dies: an empty value must never compare as a pass.
is_number() {
	case "$1" in
	'' | *[!0-9]*) die "$2: '$1' is not a number" ;;
	esac
}

# expect_ge WHAT VALUE MIN
expect_ge() {
	is_number "$2" "$1"
	if [ "$2" -lt "$3" ]; then
		die "$1: got $2, expected at least $3"
	fi
	echo "$1: $2 (>= $3)"
}

# expect_eq WHAT VALUE WANT
expect_eq() {
	if [ "$2" != "$3" ]; then
		die "$1: got '$2', expected '$3'"
	fi
	echo "$1: $2"
}

# expect_grep FILE REGEX: the file has a line matching REGEX.
expect_grep() {
	if ! grep -qE -- "$2" "$1"; then
		echo "--- $1:"
		head -c 4000 "$1"
		die "no line of $1 matches: $2"
	fi
}

# show FILE: the top lines of a folded file, for the log.
show() {
	sort -t' ' -k2 -nr "$1" 2>/dev/null | awk '{ n = $NF; $NF = ""; print n, $0 }' |
		sort -nr | head -n "${2:-5}" | cut -c1-400
}
