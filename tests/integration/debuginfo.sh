# SPDX-License-Identifier: GPL-2.0
# Integration tests of where names come from and where stacks end (issue 28):
# the loader's entry frames, containers' own debug files, debuginfod.
# Sourced by run.sh, which gives $STITCH, $TMP, $W and the helpers of lib.sh.

# short_lived_stacks MODE OUT: `record -a -F 999 --unwind MODE` while 60
# short-lived python3 processes (Debian's, under a name of their own) start
# and exit.
short_lived_stacks() {
	local mode=$1 out=$2 rec i
	ln -sf /usr/bin/python3 "$TMP/shortlived_py"
	"$STITCH" record -a -F 999 --unwind "$mode" -d 8 -o "$out" 2>"$out.err" &
	rec=$!
	sleep 3
	for i in $(seq 60); do
		"$TMP/shortlived_py" -c pass
	done
	wait "$rec"
	grep '^shortlived_py;' "$out" | sort -t' ' -k2 -rn | head -n 20
	grep -E '^shortlived_py;.*;_dl_start;' "$out" | head -n 3
}

# ld.so's _start and _dl_start_user have no CFI (glibc 2.36): a starting
# process's stacks under _dl_start or _dl_init ended in [unknown] (51 of
# 1,353 samples of 60 `python3 -c pass`, 3.8%; 64 with [unknown] in all,
# 4.7%); they are complete now, and <= 2% of the samples hold [unknown]
# (0.6-1.1%: _dl_runtime_resolve's CFA is rbx-based, which the table cannot
# say).
check_short_lived() {
	local out=$1
	expect_ge "samples of the short-lived processes" "$(total "$out" '^shortlived_py;')" 200
	expect_ge "samples in the loader's start (_dl_start)" \
		"$(total "$out" '^shortlived_py;.*;_dl_start;')" 5
	expect_eq "% of _dl_start's samples ending in [unknown]" \
		"$(share "$out" '^shortlived_py;.*;_dl_start;' '^shortlived_py;\[unknown\];')" 0
	# ld.so's _start, named from libc6-dbg's zero-sized label (sym_source_entry_label).
	expect_eq "% of _dl_start's samples starting at ld.so's _start" \
		"$(share "$out" '^shortlived_py;.*;_dl_start;' '^shortlived_py;_start;_dl_start;')" 100
	local unknown
	unknown=$(share "$out" '^shortlived_py;' ';\[unknown\](;| )')
	echo "% of samples with [unknown]: $unknown"
	[ "$unknown" -le 2 ] || die "$unknown% of the samples hold [unknown], expected <= 2%"
}

test_short_lived_loader_complete() {
	short_lived_stacks kernel "$TMP/short.folded"
	check_short_lived "$TMP/short.folded"
}

test_short_lived_loader_complete_copy() {
	short_lived_stacks copy "$TMP/short-copy.folded"
	check_short_lived "$TMP/short-copy.folded"
}

# A root of our own, in a mount namespace of its own: a stripped static
# FP-less chain whose debug file is only in the root, under
# /usr/lib/debug/.build-id/ (as /chain) or through .gnu_debuglink under
# /usr/lib/debug/ (as /chain-link, built without a build-id so only the link
# can find it).  The host has neither.
make_debug_root() {
	local root=$1 id
	rm -rf "$root"
	mkdir -p "$root/usr/lib/debug"
	gcc -O2 -fomit-frame-pointer -g -static -pthread -o "$root/full" tests/workloads/chain.c
	gcc -O2 -fomit-frame-pointer -g -static -pthread -Wl,--build-id=none \
		-o "$root/full-link" tests/workloads/chain.c
	id=$(readelf -n "$root/full" | awk '/Build ID/ { print $3 }')
	[ -n "$id" ] || die "no build-id in $root/full"
	mkdir -p "$root/usr/lib/debug/.build-id/${id:0:2}"
	objcopy --only-keep-debug "$root/full" "$root/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
	strip -o "$root/chain" "$root/full"
	objcopy --only-keep-debug "$root/full-link" "$root/usr/lib/debug/chain-link.debug"
	strip -o "$root/chain-link" "$root/full-link"
	objcopy --add-gnu-debuglink="$root/usr/lib/debug/chain-link.debug" "$root/chain-link"
	rm -f "$root/full" "$root/full-link"
	[ ! -e "/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug" ] || die "the host has $id's debug file"
}

# check_root_names BIN: names and lines of the stripped BIN from the root's debug file.
check_root_names() {
	local bin=$1 root="$TMP/dbgroot"
	"$STITCH" record -F 499 -o "$TMP/$bin.folded" -o "$TMP/$bin.txt" --top 1 -- \
		unshare --mount --root="$root" "/$bin" spin 2
	show "$TMP/$bin.folded"
	cat "$TMP/$bin.txt"
	expect_ge "$bin samples" "$(total "$TMP/$bin.folded" "^$bin;")" 100
	expect_ge "% of $bin's samples with _start..main;a;b;c;burn" \
		"$(share "$TMP/$bin.folded" "^$bin;" \
			"^$bin;_start;__libc_start_main;__libc_start_call_main;main;a;b;c;burn( |;)")" 95
	expect_grep "$TMP/$bin.txt" '^ +burn +\(chain\.c:[0-9]+\)'
	expect_grep "$TMP/$bin.txt" '^ +main +\(chain\.c:[0-9]+\)'
}

test_container_debug_file_by_build_id() {
	make_debug_root "$TMP/dbgroot"
	check_root_names chain
}

test_container_debug_file_by_debuglink() {
	make_debug_root "$TMP/dbgroot"
	check_root_names chain-link
}

# ---- debuginfod -------------------------------------------------------------

# free_port: a TCP port on 127.0.0.1 nobody listens on now.
free_port() {
	python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A stripped FP-less chain ($TMP/dbgd/deep_strip) whose debug file is only in
# $TMP/dbgd/srv, which a real debuginfod serves on 127.0.0.1:$DBGD_PORT
# (its log: $TMP/dbgd/server.log).  Ready once it serves the file.
start_debuginfod() {
	local d=$TMP/dbgd i code
	rm -rf "$d"
	mkdir -p "$d/srv"
	gcc -O2 -fomit-frame-pointer -g -pthread -o "$d/full" tests/workloads/chain.c
	objcopy --only-keep-debug "$d/full" "$d/srv/deep_strip.debug"
	strip -o "$d/deep_strip" "$d/full"
	rm -f "$d/full"
	DBGD_ID=$(readelf -n "$d/deep_strip" | awk '/Build ID/ { print $3 }')
	[ -n "$DBGD_ID" ] || die "no build-id in deep_strip"
	DBGD_PORT=$(free_port)
	debuginfod -p "$DBGD_PORT" -F -d "$d/db.sqlite" -v "$d/srv" >"$d/server.log" 2>&1 &
	DBGD_PID=$!
	# The test runs in a subshell of its own: a failing one stops its server too.
	trap stop_debuginfod EXIT
	for i in $(seq 100); do
		code=$(curl -s -o /dev/null -w '%{http_code}' \
			"http://127.0.0.1:$DBGD_PORT/buildid/$DBGD_ID/debuginfo" || true)
		[ "$code" = 200 ] && return 0
		sleep 0.2
	done
	die "debuginfod on port $DBGD_PORT did not serve $DBGD_ID: $(tail -n 5 "$d/server.log")"
}

stop_debuginfod() {
	[ -n "${DBGD_PID:-}" ] || return 0
	kill "$DBGD_PID" 2>/dev/null || true
	wait "$DBGD_PID" 2>/dev/null || true
	DBGD_PID=
}

# Requests for the build-id from libdebuginfod (not the readiness probe: curl).
dbgd_requests() {
	grep "GET /buildid/$DBGD_ID/debuginfo" "$TMP/dbgd/server.log" | grep -c 'UA:elfutils' || true
}

# record_deep_strip OUT: 2 s of the stripped chain, timed (seconds in $OUT.time).
record_deep_strip() {
	local out=$1 start end
	start=$(date +%s.%N)
	"$STITCH" record -F 499 -o "$out.folded" -o "$out.txt" --top 1 -- \
		"$TMP/dbgd/deep_strip" spin 2 2>"$out.err"
	end=$(date +%s.%N)
	awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f\n", b - a }' >"$out.time"
	cat "$out.err" "$out.txt"
	echo "recording took $(cat "$out.time") s"
}

expect_deep_strip_named() {
	local out=$1
	expect_ge "deep_strip samples" "$(total "$out.folded" '^deep_strip;')" 100
	expect_ge "% of deep_strip's samples named _start..main;a;b;c;burn" \
		"$(share "$out.folded" '^deep_strip;' \
			'^deep_strip;_start;__libc_start_main;__libc_start_call_main;main;a;b;c;burn( |;)')" 95
	expect_grep "$out.txt" '^ +burn +\(chain\.c:[0-9]+\)'
	expect_grep "$out.txt" '^ +main +\(chain\.c:[0-9]+\)'
}

# at_most WHAT SECONDS MAX: SECONDS <= MAX.
at_most() {
	awk -v v="$2" -v m="$3" 'BEGIN { exit !(v <= m) }' || die "$1: $2 s, expected at most $3 s"
	echo "$1: $2 s (<= $3 s)"
}

# Names and lines through the server; the second run takes the file from the
# cache and asks nothing (the server's log shows one request in all).
test_debuginfod_names_and_cache() {
	export STITCH_CACHE_DIR=$TMP/cache-di
	start_debuginfod
	export DEBUGINFOD_URLS="http://127.0.0.1:$DBGD_PORT"
	record_deep_strip "$TMP/di1"
	expect_deep_strip_named "$TMP/di1"
	expect_grep "$TMP/di1.err" '^stitch: debuginfod: 1 debug files fetched, 0 from its cache'
	if grep -q "^  $TMP/dbgd/deep_strip: " "$TMP/di1.txt"; then
		die "deep_strip listed with unnamed frames once named"
	fi
	expect_eq "requests after the first run" "$(dbgd_requests)" 1
	record_deep_strip "$TMP/di2"
	expect_deep_strip_named "$TMP/di2"
	expect_grep "$TMP/di2.err" '^stitch: debuginfod: 0 debug files fetched, 1 from its cache'
	expect_eq "requests after the second run" "$(dbgd_requests)" 1
	# --no-debuginfod: a fresh cache, nothing asked, nothing named.
	STITCH_CACHE_DIR=$TMP/cache-none "$STITCH" record --no-debuginfod -F 499 \
		-o "$TMP/di3.folded" -- "$TMP/dbgd/deep_strip" spin 1 2>"$TMP/di3.err"
	cat "$TMP/di3.err"
	expect_eq "deep_strip samples named main with --no-debuginfod" \
		"$(total "$TMP/di3.folded" '^deep_strip;.*;main;')" 0
	expect_eq "requests after --no-debuginfod" "$(dbgd_requests)" 1
	stop_debuginfod
}

# The server stopped (connection refused) or black-holed (a listener that
# never answers): the recording ends on time, frames stay binary+0x..., and
# the summary says what failed.
test_debuginfod_server_down() {
	export STITCH_CACHE_DIR=$TMP/cache-down
	start_debuginfod
	stop_debuginfod
	export DEBUGINFOD_URLS="http://127.0.0.1:$DBGD_PORT"
	record_deep_strip "$TMP/down"
	at_most "recording of 2 s with the server down" "$(cat "$TMP/down.time")" 4.5
	expect_grep "$TMP/down.err" '^stitch: debuginfod: 0 debug files fetched, 0 from its cache, 0 not found, [1-9][0-9]* failed \(1 of 1 servers given up'
	expect_ge "deep_strip samples" "$(total "$TMP/down.folded" '^deep_strip;')" 100
	expect_eq "deep_strip samples named main" "$(total "$TMP/down.folded" '^deep_strip;.*;main;')" 0
	# The text summary counts them and says what would name them.
	expect_grep "$TMP/down.txt" '^Frames without a name \(binary\+0xOFFSET\), by binary: install its debug symbols or set DEBUGINFOD_URLS$'
	expect_grep "$TMP/down.txt" "^  $TMP/dbgd/deep_strip: [0-9]+ addresses, in [0-9]+ of [0-9]+ samples\$"
	# latency takes --no-debuginfod too (the option table record, latency and
	# stalls share): the slow pause(2)s' stacks are named without asking.
	local flag
	for flag in "" --no-debuginfod; do
		"$STITCH" latency -e syscall:pause $flag -o "$TMP/down-l.json" -- \
			"$TMP/dbgd/deep_strip" signal 1 2>"$TMP/down-l.err" >/dev/null
		cat "$TMP/down-l.err"
		expect_eq "latency ${flag:-without --no-debuginfod}: debuginfod summary lines" \
			"$(grep -c '^stitch: debuginfod: ' "$TMP/down-l.err")" "$([ -n "$flag" ] && echo 0 || echo 1)"
	done
}

test_debuginfod_server_silent() {
	local port_file=$TMP/silent.port listener
	export STITCH_CACHE_DIR=$TMP/cache-silent
	start_debuginfod
	stop_debuginfod
	python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True); time.sleep(120)' >"$port_file" &
	listener=$!
	trap 'kill $listener 2>/dev/null || true' EXIT
	for _ in $(seq 50); do [ -s "$port_file" ] && break; sleep 0.1; done
	# Two servers: the silent one costs its timeout once, the refused one nothing.
	export DEBUGINFOD_URLS="http://127.0.0.1:$(cat "$port_file") http://127.0.0.1:$DBGD_PORT"
	record_deep_strip "$TMP/silent"
	trap - EXIT
	kill "$listener"
	wait "$listener" 2>/dev/null || true
	# 2 s of recording, ~2.2 s of waiting for the silent server (DEBUGINFOD_TIMEOUT
	# default 2 s), startup: 5.5 s leaves a busy machine its margin; 90 s of
	# libdebuginfod's own default timeout (x3 tries) would not fit.
	at_most "recording of 2 s with a silent server" "$(cat "$TMP/silent.time")" 6
	expect_grep "$TMP/silent.err" '^stitch: debuginfod: 0 debug files fetched, 0 from its cache, 0 not found, [1-9][0-9]* failed \(2 of 2 servers given up'
}

# snapshot and symbolize name through debuginfod too, say what it gave, and
# take --no-debuginfod: then nothing is asked and the frames stay addresses.
test_debuginfod_snapshot_symbolize() {
	local pid burn flag
	export STITCH_CACHE_DIR=$TMP/cache-snap
	start_debuginfod
	export DEBUGINFOD_URLS="http://127.0.0.1:$DBGD_PORT"
	"$TMP/dbgd/deep_strip" spin 30 &
	pid=$!
	sleep 0.5
	"$STITCH" snapshot -p "$pid" --no-debuginfod -o "$TMP/snap-none.txt" 2>"$TMP/snap-none.err"
	cat "$TMP/snap-none.err"
	expect_eq "snapshot --no-debuginfod: requests" "$(dbgd_requests)" 0
	expect_eq "snapshot --no-debuginfod: debuginfod summary lines" \
		"$(grep -c '^stitch: debuginfod: ' "$TMP/snap-none.err")" 0
	if grep -qE '^ +main( |$)' "$TMP/snap-none.txt"; then
		die "snapshot --no-debuginfod named main: $(cat "$TMP/snap-none.txt")"
	fi
	"$STITCH" snapshot -p "$pid" -o "$TMP/snap.txt" 2>"$TMP/snap.err"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	cat "$TMP/snap.err" "$TMP/snap.txt"
	expect_grep "$TMP/snap.err" '^stitch: debuginfod: 1 debug files fetched, 0 from its cache'
	expect_grep "$TMP/snap.txt" '^ +main +\(?chain\.c'
	expect_eq "requests after snapshot" "$(dbgd_requests)" 1
	# A libstitch-stall report of burn's address in the stripped binary.
	burn=$(nm "$TMP/dbgd/srv/deep_strip.debug" | awk '$3 == "burn" { print $1 }')
	[ -n "$burn" ] || die "no burn in the debug file"
	printf 'stitch-stall: tid=1 comm=x stall=20ms clock=cpu threshold=20ms suppressed=0\n  user %s+0x%x build-id=%s\n' \
		"$TMP/dbgd/deep_strip" $((16#$burn + 4)) "$DBGD_ID" >"$TMP/dbgd.log"
	for flag in --no-debuginfod ""; do
		"$STITCH" symbolize $flag "$TMP/dbgd.log" >"$TMP/dbgd-sym.txt" 2>"$TMP/dbgd-sym.err"
		cat "$TMP/dbgd-sym.err" "$TMP/dbgd-sym.txt"
		if [ -n "$flag" ]; then
			expect_eq "symbolize --no-debuginfod: debuginfod summary lines" \
				"$(grep -c '^stitch: debuginfod: ' "$TMP/dbgd-sym.err")" 0
			expect_grep "$TMP/dbgd-sym.txt" '^  user .*deep_strip\+0x'
		else
			# The file came into the cache with snapshot: not asked again.
			expect_grep "$TMP/dbgd-sym.err" '^stitch: debuginfod: 0 debug files fetched, 1 from its cache'
			expect_grep "$TMP/dbgd-sym.txt" '^  user burn .*chain\.c:[0-9]+'
		fi
	done
	expect_eq "requests in all" "$(dbgd_requests)" 1
	stop_debuginfod
}
