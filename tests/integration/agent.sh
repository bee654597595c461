# SPDX-License-Identifier: GPL-2.0
# Integration tests of `stitch agent` (issue 26): real workloads, real BPF,
# pushed to the servers of tests/agent/backend.py, which decode every request
# with the upstream .proto files and keep what a backend would have stored.
# Sourced by run.sh, which gives $STITCH, $TMP, $W, $CHAIN and lib.sh's helpers.

BACKEND=tests/agent/backend.py
PUSHES=tests/agent/pushes.py
# backend.py and pushes.py need Debian's python3-protobuf, not another python's.
PY=/usr/bin/python3

# backend_start NAME KIND [PORT [ARGS...]]: a backend on 127.0.0.1 (PORT, or a free
# one), writing what it takes to $TMP/NAME.jsonl; its port in $TMP/NAME.port, its
# pid in $TMP/NAME.pid.
backend_start() {
	local name=$1 kind=$2 port=${3:-0} i
	shift 3 2>/dev/null || shift $#
	rm -f "$TMP/$name.port"
	"$PY" "$BACKEND" --kind "$kind" --port "$port" --port-file "$TMP/$name.port" \
		--out "$TMP/$name.jsonl" "$@" >/dev/null 2>>"$TMP/$name.err" &
	echo $! >"$TMP/$name.pid"
	track_pid $!
	for i in $(seq 200); do
		[ -s "$TMP/$name.port" ] && return 0
		kill -0 "$(cat "$TMP/$name.pid")" 2>/dev/null || break
		sleep 0.05
	done
	cat "$TMP/$name.err" >&2
	die "backend $name ($kind) did not start"
}

backend_stop() {
	local pid
	pid=$(cat "$TMP/$1.pid")
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}

# wait_lines FILE REGEX N: up to 20 s for N lines of FILE to match REGEX (a backend's
# log of what it refused), so a test moves on when the agent got there, not after a
# guessed time on a busy machine.
wait_lines() {
	local i
	for i in $(seq 200); do
		[ "$(grep -cE "$2" "$1" 2>/dev/null)" -ge "$3" ] && return 0
		sleep 0.1
	done
	die "$1: fewer than $3 lines match $2 after 20 s"
}

url_of() {
	echo "http://127.0.0.1:$(cat "$TMP/$1.port")"
}

# A chain workload spinning in main;a;b;c;burn for SECONDS, its pid in $TMP/NAME.wpid.
workload_start() {
	"$CHAIN" spin "$2" >/dev/null &
	echo $! >"$TMP/$1.wpid"
	track_pid $!
}

workload_stop() {
	kill "$(cat "$TMP/$1.wpid")" 2>/dev/null || true
	wait "$(cat "$TMP/$1.wpid")" 2>/dev/null || true
}

# The profiles of FILES, one a line (pushes.py profiles).
profiles() {
	"$PY" "$PUSHES" profiles "$@"
}

# periods_once WHAT FILE...: every period of the chain service came once, none twice,
# none overlapping the next; their count on stdout.
periods_once() {
	local what=$1
	shift
	profiles "$@" | awk '$5 == "chain"' | sort -k2,2n >"$TMP/periods"
	cat "$TMP/periods" >&2
	[ -s "$TMP/periods" ] || die "$what: no period of chain"
	awk '{ print $2 }' "$TMP/periods" | uniq -d | grep -q . &&
		die "$what: a period arrived twice"
	# Unix ns are past awk's doubles' 2^53: compared as integers.
	"$PY" -c '
import sys
end = 0
for line in open(sys.argv[1]):
    start, length = int(line.split()[1]), int(line.split()[2])
    if start < end:
        sys.exit(1)
    end = start + length' "$TMP/periods" || die "$what: periods overlap"
	wc -l <"$TMP/periods"
}

# The agent's count of series it made (its last line but the targets').
series_made() {
	sed -n 's/^stitch agent: [0-9]* periods\?, \([0-9]*\) series$/\1/p' "$1"
}

# Pushed to Pyroscope: the Connect path and content type, labels (__name__,
# service_name the process's name, host_name, --label's), the workload's
# frames by name in order, and one profile a period with distinct time ranges.
test_agent_pyroscope_push() {
	backend_start pyro pyroscope
	# Under emulation twice as long: a guest took two periods to load.
	workload_start w $((8 * SLOWDOWN))
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d $((SLOWDOWN > 1 ? 8 : 4)) --period 1s \
		--label env=test \
		--push "pyroscope=$(url_of pyro)" 2>"$TMP/agent.err"
	workload_stop w
	backend_stop pyro
	cat "$TMP/agent.err"
	"$PY" "$PUSHES" requests "$TMP/pyro.jsonl" | sort | uniq -c
	[ "$("$PY" "$PUSHES" requests "$TMP/pyro.jsonl" | sort -u)" = \
	  "pyroscope /push.v1.PusherService/Push application/proto" ] ||
		die "not every request went to Pyroscope's Connect path as application/proto"
	profiles "$TMP/pyro.jsonl" >"$TMP/prof"
	cat "$TMP/prof"
	expect_eq "profiles not of chain" "$(awk '$5 != "chain"' "$TMP/prof" | wc -l)" 0
	expect_eq "profiles without the labels" \
		"$(awk -v h="$(hostname)" '!($4 == "process_cpu" && $6 == h && $9 == "env=test")' \
			"$TMP/prof" | wc -l)" 0
	expect_ge "periods" "$(periods_once "pyroscope" "$TMP/pyro.jsonl")" 3
	"$PY" "$PUSHES" folded "$TMP/pyro.jsonl" >"$TMP/pyro.folded"
	show "$TMP/pyro.folded"
	expect_ge "% of chain's samples in main;a;b;c;burn" \
		"$(share "$TMP/pyro.folded" '^pyroscope;chain;' ';main;a;b;c;burn ')" 80
	expect_eq "series made and received" "$(series_made "$TMP/agent.err")" \
		"$(wc -l <"$TMP/prof")"
}

# A server that answers 503 to the first pushes, then is gone (connection
# refused), then comes back: every period reaches it exactly once.
test_agent_server_down_gets_every_period_once() {
	backend_start down pyroscope 0 --refuse 3
	local port
	port=$(cat "$TMP/down.port")
	workload_start w 14
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 10 --period 1s \
		--push "pyroscope=http://127.0.0.1:$port" 2>"$TMP/agent.err" &
	local agent=$!
	wait_lines "$TMP/down.err" '503' 3
	backend_stop down
	# refused connections for 2.5 s, a few periods' pushes waiting
	sleep 2.5
	backend_start up pyroscope "$port"
	wait $agent
	workload_stop w
	backend_stop up
	cat "$TMP/agent.err" "$TMP/down.err"
	expect_grep "$TMP/agent.err" 'HTTP 503.*retrying'
	local got
	got=$(periods_once "down and up" "$TMP/down.jsonl" "$TMP/up.jsonl")
	expect_ge "periods" "$got" 8
	expect_eq "periods received, of those made" "$got" "$(series_made "$TMP/agent.err")"
	expect_ge "periods the server took once back" "$(profiles "$TMP/up.jsonl" | wc -l)" 4
}

# SIGTERM in the middle of a long period: that period is pushed before the agent exits.
test_agent_sigterm_sends_the_period() {
	backend_start term pyroscope
	workload_start w 8
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" --period 60s \
		--push "pyroscope=$(url_of term)" 2>"$TMP/agent.err" &
	local agent=$!
	sleep 3
	kill -TERM $agent
	wait $agent
	workload_stop w
	backend_stop term
	cat "$TMP/agent.err"
	profiles "$TMP/term.jsonl" | tee "$TMP/prof"
	expect_eq "periods" "$(wc -l <"$TMP/prof")" 1
	# ~3 s of a 60 s period: the part recorded, not the period's length; chain spins all
	# along, sampled at 19 Hz of the CPU it gets on a busy machine
	awk '{ exit !($3 > 1e9 && $3 < 3.5e9) }' "$TMP/prof" ||
		die "the period is not the 1 to 3 s recorded before SIGTERM"
	"$PY" "$PUSHES" folded "$TMP/term.jsonl" >"$TMP/term.folded"
	show "$TMP/term.folded"
	expect_ge "chain's samples in main;a;b;c;burn" \
		"$(total "$TMP/term.folded" '^pyroscope;chain;.*;main;a;b;c;burn ')" 8
}

# No server: the periods go to the spool (0700, root's), and the next start
# sends them first, each once, then its own; the spool is empty after.
test_agent_spool_survives_a_restart() {
	backend_start gone pyroscope
	local port
	port=$(cat "$TMP/gone.port")
	backend_stop gone
	workload_start w 12
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 3 --period 1s --spool "$TMP/spool" \
		--push "pyroscope=http://127.0.0.1:$port" 2>"$TMP/agent1.err"
	cat "$TMP/agent1.err"
	expect_grep "$TMP/agent1.err" 'unsent push(es)? left in the spool'
	ls -la "$TMP/spool" "$TMP"/spool/*
	expect_eq "spool's mode" "$(stat -c %a "$TMP/spool")" 700
	local spooled
	spooled=$(ls "$TMP"/spool/pyroscope-*/ | grep -c '\.push$')
	expect_eq "pushes spooled" "$spooled" "$(series_made "$TMP/agent1.err")"
	expect_eq "spooled pushes not readable by others (modes)" \
		"$(stat -c %a "$TMP"/spool/pyroscope-*/*.push | sort -u)" 600
	backend_start back pyroscope "$port"
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 3 --period 1s --spool "$TMP/spool" \
		--push "pyroscope=http://127.0.0.1:$port" 2>"$TMP/agent2.err"
	workload_stop w
	backend_stop back
	cat "$TMP/agent2.err"
	expect_grep "$TMP/agent2.err" "$spooled push(es)? left in the spool .* go first"
	expect_eq "periods, spooled and new" "$(periods_once "restart" "$TMP/back.jsonl")" \
		"$((spooled + $(series_made "$TMP/agent2.err")))"
	expect_eq "pushes left in the spool" "$(ls "$TMP"/spool/pyroscope-*/ | wc -l)" 0
}

# Three servers that take a push and never answer: SIGTERM ends the agent
# within 7 s (the targets time out together, against one deadline of 4 s),
# every period made spooled, the one in flight included; a restart sends
# them to a server that answers, each once.  Before: the exit waited for
# each silent server's answer up to 27 s, one after another (53 s with
# three), and systemd's stop timeout killed it with its pushes.
test_agent_sigterm_bounded_with_hung_targets() {
	local k agent t0 t1 made port
	for k in hung1 hung2 hung3; do
		backend_start "$k" pyroscope 0 --slow 600
	done
	port=$(cat "$TMP/hung1.port")
	workload_start w 40
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" --period 1s --spool "$TMP/hung-spool" \
		--push "pyroscope=$(url_of hung1)" --push "pyroscope=$(url_of hung2)" \
		--push "pyroscope=$(url_of hung3)" 2>"$TMP/agent1.err" &
	agent=$!
	sleep 4
	t0=$(date +%s%N)
	kill -TERM $agent
	wait $agent
	t1=$(date +%s%N)
	cat "$TMP/agent1.err"
	for k in hung1 hung2 hung3; do
		backend_stop "$k"
	done
	echo "exit: $(((t1 - t0) / 1000000)) ms after SIGTERM"
	expect_ge "ms to exit after SIGTERM, at most 7,000" 7000 "$(((t1 - t0) / 1000000))"
	made=$(series_made "$TMP/agent1.err")
	expect_ge "series made" "$made" 2
	expect_eq "targets whose push under way was given up" \
		"$(grep -c 'a push still under way at the exit.s deadline: given up and spooled' \
			"$TMP/agent1.err")" 3
	for k in "$TMP"/hung-spool/pyroscope-*/; do
		expect_eq "pushes spooled in $k" "$(ls "$k" | grep -c '\.push$')" "$made"
	done
	backend_start hungback pyroscope "$port"
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 2 --period 60s --spool "$TMP/hung-spool" \
		--push "pyroscope=http://127.0.0.1:$port" 2>"$TMP/agent2.err"
	workload_stop w
	backend_stop hungback
	cat "$TMP/agent2.err"
	expect_eq "periods received, each once: the spooled ones and the new one" \
		"$(periods_once "after the restart" "$TMP/hungback.jsonl")" "$((made + 1))"
}

# A server that refuses pushes for good (400): the reason said once, those
# pushes dropped (never retried), and the next ones go to the server once it takes them.
test_agent_refused_push_dropped_once() {
	backend_start bad pyroscope 0 --status 400
	local port
	port=$(cat "$TMP/bad.port")
	workload_start w 12
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 7 --period 1s \
		--push "pyroscope=http://127.0.0.1:$port" 2>"$TMP/agent.err" &
	local agent=$! rc=0
	wait_lines "$TMP/bad.err" '400' 2
	backend_stop bad
	backend_start good pyroscope "$port"
	wait $agent || rc=$?
	workload_stop w
	backend_stop good
	cat "$TMP/agent.err"
	expect_eq "exit status of a run that lost pushes" "$rc" 1
	expect_grep "$TMP/agent.err" '^stitch agent: [0-9]+ push(es)? lost in all'
	expect_eq "reasons said" "$(grep -c 'refused a push, dropped' "$TMP/agent.err")" 1
	expect_grep "$TMP/agent.err" 'refused a push, dropped .*HTTP 400'
	local refused got
	refused=$(sed -n 's/.* \([0-9]*\) push\(es\)\? refused by the server and dropped$/\1/p' \
		"$TMP/agent.err")
	expect_ge "pushes refused" "$refused" 2
	got=$(periods_once "after the refusals" "$TMP/good.jsonl")
	expect_ge "periods after" "$got" 3
	expect_eq "periods refused and received, of those made" "$((refused + got))" \
		"$(series_made "$TMP/agent.err")"
}

# A cgroup v2 directory named as docker names a container's, and one as the
# kubelet (systemd driver) with containerd names a pod's container: the
# workloads in them carry container_id (and pod_uid).
test_agent_container_and_pod_ids() {
	local root id pod
	root=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$root" ] || die "no cgroup v2 hierarchy mounted"
	id=$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')
	pod=$(cat /proc/sys/kernel/random/uuid)
	local docker="$root/docker-$id.scope"
	local kube="$root/kubepods.slice/kubepods-pod${pod//-/_}.slice/cri-containerd-$id.scope"
	mkdir -p "$docker" "$kube"
	workload_start c1 8
	workload_start c2 8
	echo "$(cat "$TMP/c1.wpid")" >"$docker/cgroup.procs"
	echo "$(cat "$TMP/c2.wpid")" >"$kube/cgroup.procs"
	"$STITCH" agent -p "$(cat "$TMP/c1.wpid"),$(cat "$TMP/c2.wpid")" -d 2 --period 1s \
		--push "pyroscope=$(url_of_started ids)" 2>"$TMP/agent.err" || true
	workload_stop c1
	workload_stop c2
	backend_stop ids
	rmdir "$docker" "$kube" "$root/kubepods.slice/kubepods-pod${pod//-/_}.slice" \
		"$root/kubepods.slice"
	cat "$TMP/agent.err"
	profiles "$TMP/ids.jsonl" | tee "$TMP/prof"
	expect_ge "docker container's profiles" \
		"$(awk -v id="$id" '$5 == "chain" && $7 == id && $8 == "-"' "$TMP/prof" | wc -l)" 1
	expect_ge "pod's container's profiles" \
		"$(awk -v id="$id" -v pod="$pod" '$5 == "chain" && $7 == id && $8 == pod' "$TMP/prof" |
		   wc -l)" 1
	expect_eq "profiles without a container id" "$(awk '$7 == "-"' "$TMP/prof" | wc -l)" 0
}

url_of_started() {
	backend_start "$1" pyroscope
	url_of "$1"
}

# --push-header-file: sent with every push; refused if others can read it; its
# content is never printed.
test_agent_header_file() {
	backend_start hdr pyroscope
	printf 'X-Scope-OrgID: tenant-7\nAuthorization: Bearer sekrit-token\n' >"$TMP/headers"
	chmod 644 "$TMP/headers"
	workload_start w 6
	if "$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 1 --push-header-file "$TMP/headers" \
		--push "pyroscope=$(url_of hdr)" 2>"$TMP/agent.err"; then
		die "a header file others can read was taken"
	fi
	cat "$TMP/agent.err"
	expect_grep "$TMP/agent.err" 'chmod 600'
	chmod 600 "$TMP/headers"
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 2 --period 1s \
		--push-header-file "$TMP/headers" --push "pyroscope=$(url_of hdr)" \
		2>"$TMP/agent.err"
	workload_stop w
	backend_stop hdr
	grep -q sekrit "$TMP/agent.err" && die "the token was printed"
	expect_ge "pushes" "$(profiles "$TMP/hdr.jsonl" | wc -l)" 1
	expect_eq "pushes without the file's headers" "$("$PY" -c '
import json, sys
print(sum(1 for l in open(sys.argv[1]) if json.loads(l).get("headers") !=
          {"X-Scope-OrgID": "tenant-7", "Authorization": "Bearer sekrit-token"}))' \
		"$TMP/hdr.jsonl")" 0
}

# One agent, three kinds of server at once, each refusing its first two
# pushes (503): each gets every series of every period once, C and Python
# workloads' frames named (the Python functions spliced over the interpreter's).
test_agent_three_kinds_at_once() {
	local k
	for k in pyroscope otlp parca; do
		backend_start "$k" "$k" 0 --refuse 2
	done
	workload_start w 12
	/usr/bin/python3.11 tests/workloads/interp/py_stitch.py cpu 12 &
	local py=$!
	"$STITCH" agent -p "$(cat "$TMP/w.wpid"),$py" -d 5 --period 1s \
		--push "pyroscope=$(url_of pyroscope)" --push "otlp=$(url_of otlp)" \
		--push "parca=$(url_of parca)" 2>"$TMP/agent.err"
	workload_stop w
	kill $py 2>/dev/null || true
	wait $py 2>/dev/null || true
	for k in pyroscope otlp parca; do
		backend_stop "$k"
	done
	cat "$TMP/agent.err"
	local made
	made=$(series_made "$TMP/agent.err")
	expect_ge "series made" "$made" 8
	for k in pyroscope otlp parca; do
		echo "== $k"
		"$PY" "$PUSHES" requests "$TMP/$k.jsonl" | sort | uniq -c
		profiles "$TMP/$k.jsonl" >"$TMP/$k.prof"
		cat "$TMP/$k.prof"
		expect_eq "$k: series received, of those made" "$(wc -l <"$TMP/$k.prof")" "$made"
		expect_eq "$k: a series twice" "$(awk '{ print $2, $5 }' "$TMP/$k.prof" | sort |
			uniq -d | wc -l)" 0
		expect_eq "$k: series without service and host" \
			"$(awk -v h="$(hostname)" '$5 == "-" || $6 != h' "$TMP/$k.prof" | wc -l)" 0
		"$PY" "$PUSHES" folded "$TMP/$k.jsonl" >"$TMP/$k.folded"
		show "$TMP/$k.folded" 3
		expect_ge "$k: chain's samples in main;a;b;c;burn" \
			"$(total "$TMP/$k.folded" "^$k;chain;.*;main;a;b;c;burn ")" 10
		expect_ge "$k: python's samples in cpu_a;cpu_burn" \
			"$(total "$TMP/$k.folded" "^$k;python3\\.11;.*;cpu_a;cpu_burn( |;)")" 10
	done
}

# No server and a small --spool-max: the oldest pushes are dropped, with a
# counted warning, the newest kept, and the spool stays within its bound.
test_agent_spool_max_drops_the_oldest() {
	backend_start none pyroscope
	local port
	port=$(cat "$TMP/none.port")
	backend_stop none
	workload_start w 8
	local rc=0
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 5 --period 1s --spool "$TMP/small" \
		--spool-max 2K --push "pyroscope=http://127.0.0.1:$port" 2>"$TMP/agent.err" || rc=$?
	workload_stop w
	cat "$TMP/agent.err"
	ls -l "$TMP"/small/pyroscope-*/
	expect_eq "exit status of a run that dropped pushes" "$rc" 1
	expect_grep "$TMP/agent.err" 'spool over --spool-max: dropped the oldest [0-9]+ push(es)? \([0-9]+ so far; said once a period\)'
	# Said once a period at most (5 periods), where it was once a drop.
	expect_ge "drop warnings, at most one a period" 6 \
		"$(grep -c 'spool over --spool-max' "$TMP/agent.err")"
	expect_grep "$TMP/agent.err" 'pushes? dropped, the oldest, over --spool-max or the memory bound'
	local kept bytes
	kept=$(ls "$TMP"/small/pyroscope-*/ | grep -c '\.push$')
	bytes=$(cat "$TMP"/small/pyroscope-*/*.push | wc -c)
	expect_ge "pushes kept" "$kept" 1
	[ "$bytes" -le 6144 ] || die "the spool holds $bytes bytes, over --spool-max 2K"
	[ "$kept" -lt "$(series_made "$TMP/agent.err")" ] || die "nothing was dropped"
}

# Each kind's own way of refusing: Parca's grpc-status in a 200 answer
# (3, INVALID_ARGUMENT: dropped, said once; 14, UNAVAILABLE: retried, then
# spooled at exit), OTLP's partial success (taken, not sent again, said once).
test_agent_refusals_of_each_kind() {
	backend_start bad parca 0 --grpc-status 3
	backend_start busy parca 0 --grpc-status 14
	backend_start part otlp 0 --partial 1
	workload_start w 8
	local rc=0
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 3 --period 1s --spool "$TMP/sp" \
		--push "parca=$(url_of bad)" --push "parca=$(url_of busy)" \
		--push "otlp=$(url_of part)" 2>"$TMP/agent.err" || rc=$?
	workload_stop w
	expect_eq "exit status of a run that lost pushes (the refused ones)" "$rc" 1
	backend_stop bad
	backend_stop busy
	backend_stop part
	cat "$TMP/agent.err"
	local made
	made=$(series_made "$TMP/agent.err")
	expect_ge "series made" "$made" 2
	expect_eq "parca refusals said" \
		"$(grep -cE "^stitch agent: parca=$(url_of bad) refused a push, dropped .*gRPC status 3" \
			"$TMP/agent.err")" 1
	expect_grep "$TMP/agent.err" \
		"^stitch agent: parca=$(url_of bad): $made push(es)? refused by the server and dropped"
	expect_grep "$TMP/agent.err" "^stitch agent: parca=$(url_of busy): gRPC status 14.*retrying"
	expect_grep "$TMP/agent.err" \
		"^stitch agent: parca=$(url_of busy): $made unsent push(es)? left in the spool"
	expect_eq "otlp partial refusals said" \
		"$(grep -c "^stitch agent: otlp=$(url_of part) took a push but 1 profile refused" \
			"$TMP/agent.err")" 1
	expect_eq "otlp pushes taken, of those made" "$(profiles "$TMP/part.jsonl" | wc -l)" "$made"
}

# A 503 with Retry-After: 3 is tried again 3 s later, not after the 0.5 s backoff.
test_agent_retry_after() {
	backend_start later pyroscope 0 --refuse 2 --retry-after 3
	workload_start w 12
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 8 --period 1s \
		--push "pyroscope=$(url_of later)" 2>"$TMP/agent.err" &
	local agent=$! t1 t2
	wait_lines "$TMP/later.err" '503' 1
	t1=$(date +%s.%N)
	wait_lines "$TMP/later.err" '503' 2
	t2=$(date +%s.%N)
	wait $agent
	workload_stop w
	backend_stop later
	cat "$TMP/agent.err" "$TMP/later.err"
	echo "between the two refusals: $(awk -v a="$t1" -v b="$t2" 'BEGIN { print b - a }') s"
	awk -v a="$t1" -v b="$t2" 'BEGIN { exit !(b - a >= 2.7 && b - a < 6) }' ||
		die "the retry did not wait the server's 3 s"
	expect_eq "periods received, of those made" "$(periods_once "retry-after" \
		"$TMP/later.jsonl")" "$(series_made "$TMP/agent.err")"
}

# The whole host sampled (-a, the default) and kept to the processes named
# --comm; -e cpu,offcpu: an off_cpu series with the blocking calls' stacks,
# beside process_cpu.
test_agent_comm_offcpu() {
	backend_start offc pyroscope
	"$WAITS" blockers 5 >/dev/null &
	local w=$!
	"$STITCH" agent --comm waits -e cpu,offcpu -d 3 --period 1s \
		--push "pyroscope=$(url_of offc)" 2>"$TMP/agent.err"
	wait $w || true
	backend_stop offc
	cat "$TMP/agent.err"
	profiles "$TMP/offc.jsonl" | tee "$TMP/prof"
	expect_eq "series of other processes" "$(awk '$5 != "waits"' "$TMP/prof" | wc -l)" 0
	expect_ge "off_cpu series" "$(awk '$4 == "off_cpu"' "$TMP/prof" | wc -l)" 2
	"$PY" "$PUSHES" folded "$TMP/offc.jsonl" >"$TMP/offc.folded"
	show "$TMP/offc.folded" 5 | cut -c1-300
	# off_cpu's values are nanoseconds: the sleeping thread's ~1 s a period
	expect_ge "ms asleep in nanosleep" "$(awk '/;run_waiter;wait_sleep;.*nanosleep/ { n += $NF }
		END { printf "%d", n / 1e6 }' "$TMP/offc.folded")" 1000
}

# https:// is checked against the system's CAs: a server whose certificate
# none of them signed (self-signed here) gets nothing; the pushes are kept.
test_agent_https_verifies_the_server() {
	openssl req -x509 -newkey rsa:2048 -nodes -keyout "$TMP/key.pem" -out "$TMP/cert.pem" \
		-days 1 -subj /CN=127.0.0.1 -addext subjectAltName=IP:127.0.0.1 2>/dev/null
	"$PY" -c '
import http.server, ssl, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        print("pushed", flush=True)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()
s = http.server.HTTPServer(("127.0.0.1", 0), H)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(sys.argv[1], sys.argv[2])
s.socket = ctx.wrap_socket(s.socket, server_side=True)
open(sys.argv[3], "w").write(str(s.server_address[1]))
s.serve_forever()' "$TMP/cert.pem" "$TMP/key.pem" "$TMP/tls.port" >"$TMP/tls.out" 2>/dev/null &
	local srv=$!
	wait_lines "$TMP/tls.port" . 1
	workload_start w 5
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 2 --period 1s --spool "$TMP/tls-spool" \
		--push "pyroscope=https://127.0.0.1:$(cat "$TMP/tls.port")" 2>"$TMP/agent.err"
	workload_stop w
	kill $srv
	wait $srv 2>/dev/null || true
	cat "$TMP/agent.err"
	expect_grep "$TMP/agent.err" 'certificate.*retrying'
	expect_eq "pushes the server got" "$(grep -c pushed "$TMP/tls.out")" 0
	expect_grep "$TMP/agent.err" 'unsent push(es)? left in the spool'
}

# Two agents with one spool and one target would send its pushes twice: the
# second is refused while the first holds it.
test_agent_spool_held_by_one_agent() {
	backend_start one pyroscope
	workload_start w 8
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 4 --period 1s --spool "$TMP/shared" \
		--push "pyroscope=$(url_of one)" 2>"$TMP/agent1.err" &
	local first=$! rc=0 i
	# the first holds the target's spool directory from its start
	for i in $(seq 100); do
		ls "$TMP"/shared/pyroscope-* >/dev/null 2>&1 && break
		sleep 0.05
	done
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 1 --spool "$TMP/shared" \
		--push "pyroscope=$(url_of one)" 2>"$TMP/agent2.err" || rc=$?
	wait $first
	workload_stop w
	backend_stop one
	cat "$TMP/agent1.err" "$TMP/agent2.err"
	expect_eq "the second agent's exit status" "$rc" 1
	expect_grep "$TMP/agent2.err" 'another stitch agent pushes to this target from it'
	expect_ge "the first agent's pushes" "$(profiles "$TMP/one.jsonl" | wc -l)" 3
}

# kstack_entries PID: kernel stacks held in the stack trace maps PID holds.
kstack_entries() {
	local f id n=0
	for f in /proc/"$1"/fdinfo/*; do
		grep -qx 'map_type:[[:space:]]*7' "$f" 2>/dev/null || continue
		id=$(awk '/^map_id:/ { print $2 }' "$f")
		n=$((n + $(bpftool -j map dump id "$id" |
			"$PY" -c 'import json, sys; print(len(json.load(sys.stdin)))')))
	done
	echo "$n"
}

# The kernel stack map never lets go of a stack (a long run fills it, and
# then every event with a new kernel stack goes to user space): the agent
# flips between two at each period, emptying the one it moves to.  Busy in
# many system calls, then in user space only: four periods later, the busy
# phase's stacks are gone.  Before: all kept (busy == quiet).
test_agent_kernel_stacks_let_go() {
	gcc -O2 -g -Wall -Wextra -Werror -o "$W/kstacks" tests/workloads/kstacks.c || exit 1
	backend_start ks pyroscope
	"$W/kstacks" 4 10 >"$TMP/ks.out" &
	local wl=$! ag i busy quiet
	"$STITCH" agent -p "$wl" -F 499 -d 12 --period 1s --push "pyroscope=$(url_of ks)" \
		2>"$TMP/ks.err" &
	ag=$!
	for i in $(seq 200); do
		grep -q quiet "$TMP/ks.out" && break
		sleep 0.1
	done
	busy=$(kstack_entries "$ag")
	# Four periods of user-space work: two flips emptied both maps.
	sleep 4.5
	quiet=$(kstack_entries "$ag")
	echo "kernel stacks held: $busy after the busy phase, $quiet four periods later"
	wait "$ag"
	wait "$wl"
	backend_stop ks
	cat "$TMP/ks.err"
	expect_ge "kernel stacks held after the busy phase" "$busy" 20
	expect_ge "kernel stacks held four quiet periods later: under a quarter of $busy" \
		"$((busy / 4))" "$quiet"
	expect_ge "periods pushed" "$(profiles "$TMP/ks.jsonl" | awk '$5 == "kstacks"' | wc -l)" 4
	# The busy phase's kernel frames reached the backend, named, under the
	# system call entry: from one map or the other, never another's stack.
	"$PY" "$PUSHES" folded "$TMP/ks.jsonl" >"$TMP/ks.folded"
	show "$TMP/ks.folded"
	expect_ge "busy_once samples in system calls, kernel frames named" "$(total "$TMP/ks.folded" \
		';busy_once;[^;]*;entry_SYSCALL_64_after_hwframe;do_syscall_64;')" 20
	expect_eq "samples with do_syscall_64 not under the system call entry" \
		"$(grep -v ';entry_SYSCALL_64_after_hwframe;do_syscall_64;' "$TMP/ks.folded" |
			grep -c ';do_syscall_64;')" 0
}

# A thread blocked across several periods has its stack's key in the kernel
# until it runs again: the kernel stack map emptied at a flip keeps the
# stacks such keys name.  Emptied whole, its 3.5 s sleep came without
# kernel frames (__nanosleep;clock_nanosleep;[S sleeping]).
test_agent_offcpu_across_periods_keeps_kernel_frames() {
	gcc -O2 -g -Wall -Wextra -Werror -o "$W/long_sleep" tests/workloads/long_sleep.c || exit 1
	backend_start ls pyroscope
	"$W/long_sleep" 3.5 &
	local wl=$!
	"$STITCH" agent -p "$wl" -e offcpu --period 1s -d 7 --push "pyroscope=$(url_of ls)" \
		2>"$TMP/ls.err"
	wait "$wl"
	backend_stop ls
	cat "$TMP/ls.err"
	"$PY" "$PUSHES" folded "$TMP/ls.jsonl" | grep '^[^;]*;long_sleep;' >"$TMP/ls.folded"
	show "$TMP/ls.folded" 10
	# The 3.5 s interval, in one period's profile, with its kernel frames.
	expect_ge "ms asleep in nanosleep's kernel frames in one interval of 3 s or more" \
		"$(awk '/;do_nanosleep;schedule;__schedule;\[S sleeping\] [0-9]+$/ &&
			$NF >= 3000000000 { print int($NF / 1000000) }' "$TMP/ls.folded" | head -1)" 3400
	expect_eq "intervals without kernel frames" \
		"$(grep -c ';clock_nanosleep;\[S sleeping\]' "$TMP/ls.folded")" 0
}
