#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
#
# The agent's encoders against the published schemas, before the agent: real
# profiles (`stitch record -o x.pb.gz` of the chain and waits workloads, as
# root with real BPF) are encoded by each encoder (build/tests/push_encode,
# the code of src/agent/push_*.c), posted with curl to tests/agent/backend.py,
# which decodes them with protoc-compiled upstream .proto files, and what it
# decoded must be the workload: its frames by name, file and line, the
# labels and resource attributes given, the sample types, the time range, the
# same totals from all three kinds.
#
#   tests/agent/encode_check.sh     (make agent-encode-check builds and runs it)
#   STITCH=build/stitch-asan tests/agent/encode_check.sh
set -u
cd "$(dirname "$0")/../.."
. tests/integration/lib.sh

STITCH=${STITCH:-./stitch}
ENC=build/tests/push_encode
W=build/workloads
TMP=$(mktemp -d /tmp/stitch-enc.XXXXXX)
# The backends' pids, in a file: tests run in subshells (run_test).
cleanup() {
	local p
	for p in $(cat "$TMP/pids" 2>/dev/null); do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}
trap cleanup EXIT
export STITCH_CACHE_DIR=$TMP/cache
unset DEBUGINFOD_URLS DEBUGINFOD_CACHE_PATH DEBUGINFOD_TIMEOUT

if [ "$(id -u)" -ne 0 ]; then
	echo "encode_check needs root (stitch record)"
	echo "0 passed, 1 failed"
	exit 1
fi
[ -x "$STITCH" ] && [ -x "$ENC" ] || { echo "no $STITCH or $ENC: make stitch $ENC"; exit 1; }
mkdir -p "$W"
gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -pthread \
	-o "$W/chain" tests/workloads/chain.c || exit 1
gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -pthread \
	-o "$W/waits" tests/workloads/waits.c || exit 1
CHAIN=$(realpath "$W/chain")
WAITS=$(realpath "$W/waits")

# backend KIND NAME [ARGS...]: start backend.py; its port in $TMP/NAME.port, what it
# accepted in $TMP/NAME.out.
backend() {
	local kind=$1 name=$2 i
	shift 2
	rm -f "$TMP/$name.port" "$TMP/$name.out"
	/usr/bin/python3 tests/agent/backend.py --kind "$kind" --port-file "$TMP/$name.port" \
		--out "$TMP/$name.out" "$@" >/dev/null 2>"$TMP/$name.err" &
	echo $! >>"$TMP/pids"
	for i in $(seq 100); do
		[ -s "$TMP/$name.port" ] && break
		sleep 0.1
	done
	[ -s "$TMP/$name.port" ] || die "backend $kind did not start: $(cat "$TMP/$name.err")"
	touch "$TMP/$name.out"
}

# post KIND NAME PPROF [push_encode ARGS...]: encode, POST; prints the HTTP status.
post() {
	local kind=$1 name=$2 pprof=$3 path ctype
	shift 3
	read -r path ctype < <("$ENC" "$kind" "$pprof" "$TMP/$name.body" "$@") ||
		die "push_encode $kind failed"
	curl -sS -o "$TMP/$name.resp" -D "$TMP/$name.hdr" -w '%{http_code}\n' \
		-H "Content-Type: $ctype" --data-binary @"$TMP/$name.body" \
		"http://127.0.0.1:$(cat "$TMP/$name.port")$path"
}

q() { /usr/bin/python3 tests/agent/pushed.py "$TMP/$1.out" "$2"; }

# folded_of FOLDED: stitch's own folded stacks as the servers see them: without the
# comm (a label there) and the _[k]/_[i] marks (kinds there), summed, sorted.
folded_of() {
	sed -e 's/^[^;]*;//' -e 's/_\[[ki]\]//g' "$1" |
		awk '{ v = $NF; $NF = ""; sub(/ $/, ""); s[$0] += v } END { for (k in s) print k " " s[k] }' |
		LC_ALL=C sort
}

# pushed_folded NAME: the first profile NAME's backend accepted, as folded_of prints
# (interpreter frames labelled "name (file:line)" from their file and line).
pushed_folded() {
	q "$1" '"\n".join("%s %d" % kv for kv in stitch_folded(profs[0]).items())' |
		LC_ALL=C sort
}

LABELS=(-l __name__=process_cpu -l service_name=chain -l host_name=testhost
	-l container_id=0123456789abcdef -l env=ci)
CPU=$TMP/cpu.pb.gz
OFF=$TMP/off.pb.gz
START=1790000000000000000
END=1790000015000000000

PY=$TMP/py.pb.gz

record_profiles() {
	"$STITCH" record -F 499 -o "$CPU" -o "$TMP/cpu.folded" -- "$CHAIN" two 2 >/dev/null
	"$STITCH" record -e offcpu -o "$OFF" -o "$TMP/off.folded" -- "$WAITS" wall 1 >/dev/null
	cat >"$TMP/work.py" <<-'EOF'
	import time
	def leaf_work(n):
	    s = 0
	    for i in range(n):
	        s += i * i
	    return s
	def middle():
	    end = time.time() + 2
	    while time.time() < end:
	        leaf_work(10000)
	middle()
	EOF
	"$STITCH" record -F 499 -o "$PY" -o "$TMP/py.folded" -- "$(realpath /usr/bin/python3)" \
		"$TMP/work.py" >/dev/null
}

# The chain's cpu profile through each kind: the frames by name, the labels, the types.
check_cpu() {
	local kind=$1 want
	backend "$kind" "$kind"
	expect_eq "$kind: HTTP status" "$(post "$kind" "$kind" "$CPU" "${LABELS[@]}" -p 4242 \
		-x chain -s $START -e $END)" 200
	expect_eq "$kind: requests accepted" "$(q "$kind" 'len(reqs)')" 1
	expect_eq "$kind: profiles" "$(q "$kind" 'len(profs)')" 1
	# c() -> burn_a() or burn_b() -> burn(): nearly every sample under main -> a -> b -> c.
	expect_ge "$kind: % of samples in main;a;b;c" \
		"$(q "$kind" 'int(100 * share(profs[0], ";main;a;b;c(;|$)"))')" 90
	# Totals: what stitch counted, nothing lost or doubled.
	expect_eq "$kind: total samples" "$(q "$kind" 'total(profs[0])')" \
		"$(awk '{ s += $NF } END { print s }' "$TMP/cpu.folded")"
	# Every stack, frame by frame (inlined ones in their place), with its count.
	folded_of "$TMP/cpu.folded" >"$TMP/$kind.want"
	pushed_folded "$kind" >"$TMP/$kind.got"
	expect_ge "$kind: stacks through burn_a and burn_b" \
		"$(grep -c ';c;burn_[ab];burn ' "$TMP/$kind.want")" 2
	diff "$TMP/$kind.want" "$TMP/$kind.got" || die "$kind: the stacks differ from stitch's"
	expect_eq "$kind: file of c" "$(q "$kind" 'frame(profs[0], "c")["file"]')" \
		tests/workloads/chain.c
	expect_ge "$kind: line of c" "$(q "$kind" 'frame(profs[0], "c")["line"]')" 1
	expect_eq "$kind: mapping of c" "$(q "$kind" 'frame(profs[0], "c")["mapping"]')" "$CHAIN"
	if [ "$kind" = otlp ]; then
		want='{"container.id": "0123456789abcdef", "env": "ci", "host.name": "testhost", '
		want+='"process.executable.name": "chain", "process.pid": 4242, "service.name": "chain"}'
		expect_eq "otlp: resource" "$(q otlp 'profs[0]["labels"]')" "$want"
		expect_eq "otlp: sample type" "$(q otlp 'profs[0]["sample_types"]')" '[["samples", "count"]]'
		expect_eq "otlp: period type" "$(q otlp 'profs[0]["period_type"]')" '["cpu", "nanoseconds"]'
		expect_eq "otlp: period" "$(q otlp 'profs[0]["period"]')" $((1000000000 / 499))
		expect_eq "otlp: time" "$(q otlp 'profs[0]["time_ns"]')" $START
		expect_eq "otlp: duration" "$(q otlp 'profs[0]["duration_ns"]')" $((END - START))
		expect_eq "otlp: frame type of c" "$(q otlp 'frame(profs[0], "c")["type"]')" native
		expect_eq "otlp: answer" "$("$ENC" otlp-answer "$TMP/otlp.resp" ok)" "0 "
		# Every sample names its thread (the chain's, a sample or two of the child before exec).
		expect_eq "otlp: samples without a thread name" \
			"$(q otlp 'sum(1 for s in profs[0]["samples"] if not s["labels"].get("thread.name"))')" 0
		expect_eq "otlp: thread name of main;a;b;c" \
			"$(q otlp '{s["labels"]["thread.name"] for s in profs[0]["samples"] if "c" in s["frames"]}')" \
			'["chain"]'
	else
		want='{"__name__": "process_cpu", "container_id": "0123456789abcdef", "env": "ci", '
		want+='"host_name": "testhost", "service_name": "chain"}'
		expect_eq "$kind: labels" "$(q "$kind" 'profs[0]["labels"]')" "$want"
		expect_eq "$kind: sample types" "$(q "$kind" 'profs[0]["sample_types"]')" \
			'[["samples", "count"], ["cpu", "nanoseconds"]]'
	fi
}

test_pyroscope_cpu() { check_cpu pyroscope; }
test_otlp_cpu() { check_cpu otlp; }
test_parca_cpu() {
	check_cpu parca
	expect_eq "parca: answer's status" "$("$ENC" grpc-status "$TMP/parca.resp")" "0 "
}

# Off-CPU time: nanoseconds, the sleeping stack by name, in every kind.
test_offcpu_all_kinds() {
	local kind
	for kind in pyroscope otlp parca; do
		backend "$kind" "off-$kind"
		expect_eq "$kind: HTTP status" "$(post "$kind" "off-$kind" "$OFF" -l __name__=off_cpu \
			-l service_name=waits)" 200
		expect_eq "$kind: sample types" "$(q "off-$kind" 'profs[0]["sample_types"]')" \
			'[["off_cpu", "nanoseconds"]]'
		# waits wall 1 sleeps 1 s in sleep_phase(): at least 0.9 s of it, by name.
		expect_ge "$kind: ms asleep in sleep_phase" \
			"$(q "off-$kind" 'int(share(profs[0], ";sleep_phase[.;]") * total(profs[0]) / 1e6)')" 900
		# The same stacks as stitch's own folded output (whose values are microseconds).
		folded_of "$TMP/off.folded" | sed 's/ [0-9]*$//' >"$TMP/off-$kind.want"
		pushed_folded "off-$kind" | sed 's/ [0-9]*$//' >"$TMP/off-$kind.got"
		diff "$TMP/off-$kind.want" "$TMP/off-$kind.got" || die "$kind: off-CPU stacks differ"
	done
	expect_eq "off-CPU totals equal across kinds" \
		"$(for k in pyroscope otlp parca; do q "off-$k" 'total(profs[0])'; done | sort -u | wc -l)" 1
}

# Python's frames among the native ones: named, with their file and line, OTLP's type cpython.
test_python_all_kinds() {
	local kind
	for kind in pyroscope otlp parca; do
		backend "$kind" "py-$kind"
		expect_eq "$kind: HTTP status" "$(post "$kind" "py-$kind" "$PY" "${LABELS[@]}")" 200
		expect_ge "$kind: % of samples in middle;leaf_work" \
			"$(q "py-$kind" 'int(100 * share(profs[0], ";PyEval_EvalCode;.*;middle;leaf_work(;|$)"))')" 80
		expect_eq "$kind: leaf_work's file" "$(q "py-$kind" 'frame(profs[0], "leaf_work")["file"]')" \
			"$TMP/work.py"
		expect_eq "$kind: middle's line" "$(q "py-$kind" 'frame(profs[0], "middle")["line"]')" 10
		folded_of "$TMP/py.folded" >"$TMP/py-$kind.want"
		pushed_folded "py-$kind" >"$TMP/py-$kind.got"
		diff "$TMP/py-$kind.want" "$TMP/py-$kind.got" || die "$kind: python stacks differ"
	done
	expect_eq "otlp: frame type of middle" "$(q py-otlp 'frame(profs[0], "middle")["type"]')" \
		cpython
	expect_eq "otlp: frame type of PyEval_EvalCode" \
		"$(q py-otlp 'frame(profs[0], "PyEval_EvalCode")["type"]')" native
}

# Many series in one request: each arrives with its own labels (and OTLP shares one dictionary).
test_many_series() {
	local kind
	for kind in pyroscope otlp parca; do
		backend "$kind" "many-$kind"
		expect_eq "$kind: HTTP status" "$(post "$kind" "many-$kind" "$CPU" "${LABELS[@]}" \
			-n 5)" 200
		expect_eq "$kind: series" "$(q "many-$kind" 'sorted(p["labels"]["series"] for p in profs)')" \
			'["0", "1", "2", "3", "4"]'
		expect_eq "$kind: equal totals" \
			"$(q "many-$kind" 'len(set(total(p) for p in profs))')" 1
	done
	# One dictionary: five series of one profile cost little more than one.
	"$ENC" otlp "$CPU" "$TMP/otlp-one.body" "${LABELS[@]}" >/dev/null
	expect_ge "otlp: 2x the bytes of one series, at least those of five" \
		"$((2 * $(stat -c %s "$TMP/otlp-one.body")))" "$(stat -c %s "$TMP/many-otlp.body")"
}

# The backend refuses what a server would: a refused request is never counted as accepted.
test_backend_refusals() {
	backend pyroscope refuse --refuse 2
	expect_eq "first" "$(post pyroscope refuse "$CPU" "${LABELS[@]}")" 503
	expect_eq "second" "$(post pyroscope refuse "$CPU" "${LABELS[@]}")" 503
	expect_eq "third" "$(post pyroscope refuse "$CPU" "${LABELS[@]}")" 200
	expect_eq "accepted" "$(q refuse 'len(reqs)')" 1
	# Without service_name Pyroscope refuses the series (400).
	backend pyroscope nosvc
	expect_eq "no service_name" "$(post pyroscope nosvc "$CPU" -l __name__=process_cpu)" 400
	expect_eq "accepted" "$(q nosvc 'len(reqs)')" 0
	expect_grep "$TMP/nosvc.resp" \
		'^\{"code": "invalid_argument", "message": "series\[0\]: no service_name label"\}$'
	# OTLP refuses with a google.rpc.Status (code 14: UNAVAILABLE), and Retry-After.
	backend otlp otlp503 --refuse 1 --retry-after 7
	expect_eq "otlp: refused" "$(post otlp otlp503 "$CPU" "${LABELS[@]}")" 503
	expect_eq "otlp: Status.code" "$(od -An -tx1 -N2 "$TMP/otlp503.resp")" " 08 0e"
	expect_eq "otlp: Status.message" "$("$ENC" otlp-answer "$TMP/otlp503.resp" error)" \
		"0 refusing request 1 of the first 1"
	expect_grep "$TMP/otlp503.hdr" '^Retry-After: 7'
	# A gzipped body (Content-Encoding) is taken, and the headers are kept.
	gzip -c "$TMP/otlp503.body" >"$TMP/otlp503.body.gz"
	expect_eq "otlp: gzipped" "$(curl -sS -o /dev/null -w '%{http_code}' \
		-H 'Content-Type: application/x-protobuf' -H 'Content-Encoding: gzip' \
		-H 'X-Scope-OrgID: tenant-1' --data-binary @"$TMP/otlp503.body.gz" \
		"http://127.0.0.1:$(cat "$TMP/otlp503.port")/v1development/profiles")" 200
	expect_eq "otlp: header kept" "$(q otlp503 'reqs[0]["headers"]["X-Scope-OrgID"]')" tenant-1
	expect_eq "otlp: total" "$(q otlp503 'total(profs[0])')" \
		"$(awk '{ s += $NF } END { print s }' "$TMP/cpu.folded")"
	# Parca's refusals come as a grpc-status in the trailers, read by push_grpc_web_status.
	backend parca grpc --grpc-status 8
	expect_eq "parca: HTTP status" "$(post parca grpc "$CPU" "${LABELS[@]}")" 200
	expect_eq "parca: grpc status" "$("$ENC" grpc-status "$TMP/grpc.resp")" "8 refused as told"
	# A partial success: read back by push_otlp_answer.
	backend otlp partial --partial 1
	expect_eq "otlp: partial, HTTP" "$(post otlp partial "$CPU" "${LABELS[@]}")" 200
	expect_eq "otlp: partial" "$("$ENC" otlp-answer "$TMP/partial.resp" ok)" \
		"1 rejected 1 as told"
	backend parca badlabel
	expect_eq "parca: bad label, HTTP" "$(post parca badlabel "$CPU" "${LABELS[@]}" -l 'a-b=1')" 200
	"$ENC" grpc-status "$TMP/badlabel.resp" >"$TMP/badlabel.status"
	expect_grep "$TMP/badlabel.status" "^3 series\[0\]: invalid label name 'a-b'"
}

record_profiles || die "stitch record failed"
for t in test_pyroscope_cpu test_otlp_cpu test_parca_cpu test_offcpu_all_kinds \
	test_python_all_kinds test_many_series test_backend_refusals; do
	run_test "$t"
done
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" -eq 0 ]
