#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The agent's resident set over process churn: `stitch agent -a` pushing
# every PERIOD to tests/agent/backend.py (Pyroscope's push) while rounds of
# PER_ROUND distinct short-lived binaries run (tests/workloads/brief.c,
# copied to fresh files, 50 at a time: each a new binary to stitch, as a
# build's or a shell loop's are).  After each round, the agent's smallest
# RSS over 2 s (what it holds, without the tables it builds for a while for
# processes that come and go), on stdout:
#
#   round  binaries  rss_kb  elapsed_s
#
# With LOG=FILE, its RSS and the kernel memory of its BPF maps every LOG_EVERY
# seconds too, into FILE (TSV: utc, elapsed_s, rss_kb, bpf_maps_kb, rounds
# done, peak_kb so far), for long runs; DURATION=SECONDS runs rounds until then instead of
# ROUNDS of them.
#
#   bench/agent_churn.sh   (ROUNDS=12 PER_ROUND=300 HZ=99 PERIOD=1s; as root)
#   DURATION=3600 LOG=/tmp/rss.tsv bench/agent_churn.sh
#   AGENT_ARGS="-e cpu,offcpu" bench/agent_churn.sh
#   NAMED=1 bench/agent_churn.sh
# NAMED=1 churns tests/workloads/named_brief.c instead (built with -g, 4,096
# functions, 30 ms of CPU each, PER_ROUND=100 by default): sampled, so each
# period's profile opens its symbols and DWARF.  MIXED=N adds N of those named
# binaries to each round of plain ones (both kinds, as a host's churn has).
# (AGENT_LOG=FILE keeps the agent's stderr; SMAPS=DIR keeps its
# /proc/PID/smaps after each round, as DIR/smaps.ROUND.)
set -u
cd "$(dirname "$0")/.." || exit 1

ROUNDS=${ROUNDS:-12}
NAMED=${NAMED:-0}
if [ "$NAMED" = 1 ]; then
	PER_ROUND=${PER_ROUND:-100}
else
	PER_ROUND=${PER_ROUND:-300}
fi
HZ=${HZ:-99}
PERIOD=${PERIOD:-1s}
DURATION=${DURATION:-0}
LOG=${LOG:-}
LOG_EVERY=${LOG_EVERY:-30}
AGENT_ARGS=${AGENT_ARGS:-}
AGENT_LOG=${AGENT_LOG:-}
SMAPS=${SMAPS:-}
MIXED=${MIXED:-0}
STITCH=${STITCH:-./stitch}

[ "$(id -u)" -eq 0 ] || { echo "bench: run as root" >&2; exit 1; }
[ -x "$STITCH" ] || { echo "bench: build stitch first (make)" >&2; exit 1; }
T=$(mktemp -d /tmp/stitch-agentchurn.XXXXXX)
AGENT=""
BACKEND=""
LOGGER=""
cleanup() {
	[ -n "$LOGGER" ] && kill "$LOGGER" 2>/dev/null
	[ -n "$AGENT" ] && kill -INT "$AGENT" 2>/dev/null && wait "$AGENT" 2>/dev/null
	[ -n "$BACKEND" ] && kill "$BACKEND" 2>/dev/null && wait "$BACKEND" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$NAMED" = 1 ]; then
	gcc -O1 -g -Wall -Wextra -Werror -o "$T/brief" tests/workloads/named_brief.c || exit 1
else
	gcc -O2 -Wall -Wextra -Werror -o "$T/brief" tests/workloads/brief.c || exit 1
fi
if [ "$MIXED" -gt 0 ]; then
	gcc -O1 -g -Wall -Wextra -Werror -o "$T/named" tests/workloads/named_brief.c || exit 1
fi
mkdir -p "$T/churn"
# shellcheck source=bench/map_memory.sh
. bench/map_memory.sh
# shellcheck source=tests/lib/churn.sh
. tests/lib/churn.sh

/usr/bin/python3 tests/agent/backend.py --kind pyroscope --port 0 --port-file "$T/port" \
	>/dev/null 2>"$T/backend.err" &
BACKEND=$!
for _ in $(seq 200); do
	[ -s "$T/port" ] && break
	sleep 0.05
done
[ -s "$T/port" ] || { cat "$T/backend.err" >&2; echo "bench: no backend" >&2; exit 1; }

# shellcheck disable=SC2086
"$STITCH" agent -a -F "$HZ" --period "$PERIOD" --spool "$T/spool" $AGENT_ARGS \
	--push "pyroscope=http://127.0.0.1:$(cat "$T/port")" 2>"${AGENT_LOG:-$T/agent.err}" &
AGENT=$!
START=$(date +%s)
echo "done 0" >"$T/rounds"
if [ -n "$LOG" ]; then
	printf 'utc\telapsed_s\trss_kb\tbpf_maps_kb\trounds\tpeak_kb\n' >"$LOG"
	(
		while rss=$(rss_kb "$AGENT") && [ -n "$rss" ]; do
			printf '%s\t%d\t%s\t%d\t%s\t%s\n' "$(date -u +%H:%M:%S)" \
				$(($(date +%s) - START)) "$rss" $(($(map_memory_total "$AGENT") / 1024)) \
				"$(cut -d' ' -f2 "$T/rounds")" "$(rss_kb "$AGENT" VmHWM)" >>"$LOG"
			sleep "$LOG_EVERY"
		done
	) &
	LOGGER=$!
fi
sleep 5
rss=$(rss_floor_kb "$AGENT") || { cat "${AGENT_LOG:-$T/agent.err}" >&2; exit 1; }
printf 'round\tbinaries\trss_kb\telapsed_s\n'
printf '%d\t%d\t%d\t%d\n' 0 0 "$rss" $(($(date +%s) - START))
[ -z "$SMAPS" ] || cp "/proc/$AGENT/smaps" "$SMAPS/smaps.0"
round=0
while :; do
	if [ "$DURATION" -gt 0 ]; then
		[ $(($(date +%s) - START)) -lt "$DURATION" ] || break
	else
		[ "$round" -lt "$ROUNDS" ] || break
	fi
	round=$((round + 1))
	churn_copies "$T/churn" "$PER_ROUND" "$T/brief" 50
	[ "$MIXED" -eq 0 ] || churn_copies "$T/churn" "$MIXED" "$T/named" 25
	echo "done $round" >"$T/rounds"
	rss=$(rss_floor_kb "$AGENT") || { cat "${AGENT_LOG:-$T/agent.err}" >&2; exit 1; }
	printf '%d\t%d\t%d\t%d\n' "$round" $((round * (PER_ROUND + MIXED))) "$rss" $(($(date +%s) - START))
	[ -z "$SMAPS" ] || cp "/proc/$AGENT/smaps" "$SMAPS/smaps.$round"
done
# Its peak, what the host must leave it (the issue's bound: 100 MB).
echo "peak rss_kb $(rss_kb "$AGENT" VmHWM)"
kill -INT "$AGENT"
wait "$AGENT"
AGENT=""
tail -n 3 "${AGENT_LOG:-$T/agent.err}" >&2
