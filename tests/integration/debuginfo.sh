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
	/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# A stripped FP-less chain ($TMP/dbgd/deep_strip) whose debug file is only in
# $TMP/dbgd/srv, which a real debuginfod serves on 127.0.0.1:$DBGD_PORT
# (its log: $TMP/dbgd/server.log).  Ready once it serves the file.
start_debuginfod() {
	local d=$TMP/dbgd
	rm -rf "$d"
	mkdir -p "$d/srv"
	gcc -O2 -fomit-frame-pointer -g -pthread -o "$d/full" tests/workloads/chain.c
	objcopy --only-keep-debug "$d/full" "$d/srv/deep_strip.debug"
	strip -o "$d/deep_strip" "$d/full"
	rm -f "$d/full"
	DBGD_ID=$(readelf -n "$d/deep_strip" | awk '/Build ID/ { print $3 }')
	[ -n "$DBGD_ID" ] || die "no build-id in deep_strip"
	serve_debug_dir "$d"
}

# serve_debug_dir DIR [CODE]: a real debuginfod over DIR/srv on
# 127.0.0.1:$DBGD_PORT (log: DIR/server.log), stopped when the test ends;
# ready once it answers $DBGD_ID's debug file with CODE (default 200).
serve_debug_dir() {
	local d=$1 want=${2:-200} i code
	DBGD_PORT=$(free_port)
	debuginfod -p "$DBGD_PORT" -F -d "$d/db.sqlite" -v "$d/srv" >"$d/server.log" 2>&1 &
	DBGD_PID=$!
	# The test runs in a subshell of its own: a failing one stops its server too.
	trap stop_debuginfod EXIT
	for i in $(seq 100); do
		code=$(curl -s -o /dev/null -w '%{http_code}' \
			"http://127.0.0.1:$DBGD_PORT/buildid/$DBGD_ID/debuginfo" || true)
		[ "$code" = "$want" ] && return 0
		sleep 0.2
	done
	die "debuginfod on port $DBGD_PORT did not answer $DBGD_ID with $want: $(tail -n 5 "$d/server.log")"
}

# more_servers_started PID...: stopped with the debuginfod when the test ends.
more_servers_started() {
	MORE_PIDS="${MORE_PIDS:-} $*"
	trap 'stop_debuginfod; kill $MORE_PIDS 2>/dev/null || true' EXIT
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
	/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True); time.sleep(120)' >"$port_file" &
	listener=$!
	trap 'kill $listener 2>/dev/null || true' EXIT
	for _ in $(seq 300); do [ -s "$port_file" ] && break; sleep 0.1; done
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

# start_proxy NAME DELAY [--trickle BUILD_ID SECONDS]: slow_debuginfod.py in
# front of the test's debuginfod; PROXY_PORT its port.  Debian's python3, not
# whatever python3 PATH finds first (a pyenv shim is a chain of shell
# scripts); up to 30 s to start, and its own errors shown if it does not (a
# CI run's ASan pass once found no port after 5 s, and said nothing more).
start_proxy() {
	local name=$1 port_file=$TMP/proxy-$1.port
	shift
	/usr/bin/python3 tests/integration/slow_debuginfod.py "$1" "http://127.0.0.1:$DBGD_PORT" \
		"${@:2}" >"$port_file" 2>"$TMP/proxy-$name.err" &
	more_servers_started $!
	for _ in $(seq 300); do [ -s "$port_file" ] && break; sleep 0.1; done
	PROXY_PORT=$(cat "$port_file")
	if [ -z "$PROXY_PORT" ]; then
		cat "$TMP/proxy-$name.err"
		die "the $name server did not start"
	fi
}

# start_trickle BUILD_ID: a proxy that sends BUILD_ID's debug file a little at
# a time, then stalls; DEBUGINFOD_URLS names only the proxy.
start_trickle() {
	start_proxy trickling 0 --trickle "$1" 4
	export DEBUGINFOD_URLS="http://127.0.0.1:$PROXY_PORT"
}

# A recording whose query for the stripped chain's debug file was cut at the
# budget (a download that moves, then stalls), then a second recording: it
# asks again and names the chain.  libdebuginfod marked the cut query "not
# found" in the cache (an empty file, 10 minutes): the second recording
# said "0 debug files fetched, 0 from its cache, 1 not found" without a
# request.
test_debuginfod_cut_query_not_marked_missing() {
	export STITCH_CACHE_DIR=$TMP/cache-cut
	start_debuginfod
	start_trickle "$DBGD_ID"
	record_deep_strip "$TMP/cut1"
	# deep_strip's query is cut; another binary's, queued behind it at the
	# proxy, may be cut too (a CI run: 2 failed) or answered "not found".
	expect_grep "$TMP/cut1.err" '^stitch: debuginfod: 0 debug files fetched, 0 from its cache, [0-9]+ not found, [12] failed \(stopped at the 3 s budget\)'
	expect_eq "deep_strip samples named main, cut" "$(total "$TMP/cut1.folded" '^deep_strip;.*;main;')" 0
	record_deep_strip "$TMP/cut2"
	# (A binary the server has not, at times: "not found" is a real answer.)
	expect_grep "$TMP/cut2.err" '^stitch: debuginfod: 1 debug files fetched, 0 from its cache, [0-9]+ not found, 0 failed'
	expect_deep_strip_named "$TMP/cut2"
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

# ---- many binaries at once -------------------------------------------------

# $TMP/many/bin: many_libs and its ten libraries (tests/workloads/many_lib*.c),
# FP-less and stripped; their eleven debug files only in $TMP/many/srv.
make_many_libs() {
	local d=$TMP/many n libs=
	rm -rf "$d"
	mkdir -p "$d/bin" "$d/srv"
	for n in 0 1 2 3 4 5 6 7 8 9; do
		gcc -O2 -fomit-frame-pointer -g -fPIC -shared -DLIB_N=$n -o "$d/full.so" \
			tests/workloads/many_lib.c || die "libmany$n.so did not build"
		objcopy --only-keep-debug "$d/full.so" "$d/srv/libmany$n.so.debug"
		strip -o "$d/bin/libmany$n.so" "$d/full.so"
		libs="$libs -lmany$n"
	done
	# shellcheck disable=SC2086
	gcc -O2 -fomit-frame-pointer -g -o "$d/full" tests/workloads/many_libs.c -L"$d/bin" $libs \
		-Wl,-rpath,"$d/bin" || die "many_libs did not build"
	objcopy --only-keep-debug "$d/full" "$d/srv/many_libs.debug"
	strip -o "$d/bin/many_libs" "$d/full"
	rm -f "$d/full" "$d/full.so"
	DBGD_ID=$(readelf -n "$d/bin/libmany9.so" | awk '/Build ID/ { print $3 }')
	[ -n "$DBGD_ID" ] || die "no build-id in libmany9.so"
}

# start_silent_listener: a port that takes connections and never answers
# ($SILENT_PORT), closed when the test ends (with the server, if any).
start_silent_listener() {
	local port_file=$TMP/silent-$RANDOM.port
	/usr/bin/python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
print(s.getsockname()[1], flush=True); time.sleep(120)' >"$port_file" &
	more_servers_started $!
	for _ in $(seq 300); do [ -s "$port_file" ] && break; sleep 0.1; done
	SILENT_PORT=$(cat "$port_file")
	[ -n "$SILENT_PORT" ] || die "the silent listener did not start"
}

# record_many OUT: 2 s of many_libs, timed (seconds in $OUT.time).
record_many() {
	local out=$1 start end
	start=$(date +%s.%N)
	"$STITCH" record -F 499 -o "$out.folded" -- "$TMP/many/bin/many_libs" 2 2>"$out.err"
	end=$(date +%s.%N)
	awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f\n", b - a }' >"$out.time"
	cat "$out.err"
	show "$out.folded"
	echo "recording took $(cat "$out.time") s"
}

# many_vdso FOLDED: 1 if a sample fell in the vDSO (many_libs' clock read,
# between its rounds of burn calls), else 0: the vDSO is a binary with a
# build ID and no debug file here, asked for too (a CI run: "12 failed"
# where the test's own binaries are 11).
many_vdso() {
	if grep -qE ';(__vdso_|__cvdso_|do_hres)' "$1"; then echo 1; else echo 0; fi
}

# What the summary line says debuginfod's queries took, in seconds.
debuginfod_seconds() {
	sed -n 's/^stitch: debuginfod: .*, \([0-9.]*\) s$/\1/p' "$1"
}

# Eleven binaries behind a server that takes 0.6 s to answer each request,
# listed after a real server that has none of them: every one named, in
# 0.6-0.7 s of queries.  One at a time they fetched 5 of 11 in the 3 s budget
# (40% of the samples named), and the first server's "not found" hid the
# second's files (0%).
test_debuginfod_many_binaries_slow_server() {
	local slow_port
	export STITCH_CACHE_DIR=$TMP/cache-many
	make_many_libs
	# A real debuginfod without the files, then the slow one in front of one with them.
	mkdir -p "$TMP/empty/srv"
	serve_debug_dir "$TMP/empty" 404
	local empty_port=$DBGD_PORT
	more_servers_started "$DBGD_PID"
	serve_debug_dir "$TMP/many"
	start_proxy slow 0.6
	slow_port=$PROXY_PORT
	export DEBUGINFOD_URLS="http://127.0.0.1:$empty_port http://127.0.0.1:$slow_port"
	record_many "$TMP/many-slow"
	expect_grep "$TMP/many-slow.err" "^stitch: debuginfod: 11 debug files fetched, 0 from its cache, $(many_vdso "$TMP/many-slow.folded") not found, 0 failed"
	expect_ge "many_libs samples" "$(total "$TMP/many-slow.folded" '^many_libs;')" 200
	expect_ge "% of many_libs's samples named _start..main;burn_libN;spin_libN" \
		"$(share "$TMP/many-slow.folded" '^many_libs;' \
			'^many_libs;_start;__libc_start_main;__libc_start_call_main;main;burn_lib[0-9];spin_lib[0-9] ')" 95
	local n
	for n in 0 1 2 3 4 5 6 7 8 9; do
		expect_ge "samples in libmany$n.so named" \
			"$(total "$TMP/many-slow.folded" ";main;burn_lib$n;spin_lib$n ")" 3
	done
	at_most "debuginfod's queries for 11 binaries behind a 0.6 s server" \
		"$(debuginfod_seconds "$TMP/many-slow.err")" 2
}

# snapshot of many_libs's eleven threads parked in its ten libraries, behind
# the server that takes 0.6 s a request: every binary's debug file fetched
# at once before the threads are named, as record does, in ~0.7 s of
# queries (0.6 s measured); every frame named.  One binary at a time as
# each thread was named (before), the 3 s budget fetched 5 of the 11 and
# left the rest's frames unnamed.
test_debuginfod_snapshot_many_binaries() {
	local slow_port pid n start end
	export STITCH_CACHE_DIR=$TMP/cache-snap-many
	make_many_libs
	serve_debug_dir "$TMP/many"
	start_proxy slow 0.6
	slow_port=$PROXY_PORT
	export DEBUGINFOD_URLS="http://127.0.0.1:$slow_port"
	"$TMP/many/bin/many_libs" park &
	pid=$!
	more_servers_started "$pid"
	for _ in $(seq 100); do
		[ "$(ls "/proc/$pid/task" | wc -l)" -ge 11 ] && break
		sleep 0.1
	done
	[ "$(ls "/proc/$pid/task" | wc -l)" -ge 11 ] || die "many_libs park: not 11 threads"
	start=$(date +%s.%N)
	"$STITCH" snapshot -p "$pid" -o "$TMP/snap-many.txt" 2>"$TMP/snap-many.err"
	end=$(date +%s.%N)
	cat "$TMP/snap-many.err"
	grep -E '^ +(pause|wait_lib[0-9]|park_lib[0-9]|parker|park_all|main)( |$)' "$TMP/snap-many.txt"
	echo "snapshot took $(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.2f", b - a }') s"
	expect_grep "$TMP/snap-many.err" '^stitch: debuginfod: 11 debug files fetched, 0 from its cache, 0 not found, 0 failed'
	for n in 0 1 2 3 4 5 6 7 8 9; do
		expect_grep "$TMP/snap-many.txt" "^ +wait_lib$n \\(many_lib\\.c:[0-9]+\\)\$"
	done
	expect_eq "threads named parker (many_libs.c)" \
		"$(grep -cE '^ +parker \(many_libs\.c:[0-9]+\)$' "$TMP/snap-many.txt")" 10
	# main's thread: main tail-calls park_all, which only the debug file names.
	expect_grep "$TMP/snap-many.txt" '^ +park_all \(many_libs\.c:[0-9]+\)$'
	if grep -E '^ +(many_libs|libmany[0-9]\.so)\+0x' "$TMP/snap-many.txt"; then
		die "frames of the stripped binaries left unnamed"
	fi
	at_most "debuginfod's queries for 11 binaries behind a 0.6 s server" \
		"$(debuginfod_seconds "$TMP/snap-many.err")" 2
}

# Eleven binaries, three servers that never answer, never answer in time or
# refuse: the queries cost <= 3 s in all (2.2 s: the 2 s timeout once), not
# the timeout per binary or per server (3.4 s asked in turn, stopped by the
# 3 s budget).
test_debuginfod_many_binaries_dead_servers() {
	local refused s1 s2
	export STITCH_CACHE_DIR=$TMP/cache-many-dead
	make_many_libs
	start_silent_listener
	s1=$SILENT_PORT
	start_silent_listener
	s2=$SILENT_PORT
	refused=$(free_port)
	export DEBUGINFOD_URLS="http://127.0.0.1:$s1 http://127.0.0.1:$s2 http://127.0.0.1:$refused"
	record_many "$TMP/many-dead"
	expect_grep "$TMP/many-dead.err" "^stitch: debuginfod: 0 debug files fetched, 0 from its cache, 0 not found, $((11 + $(many_vdso "$TMP/many-dead.folded"))) failed \\(3 of 3 servers given up after a timeout or error\\)"
	at_most "debuginfod's queries with three dead servers" \
		"$(debuginfod_seconds "$TMP/many-dead.err")" 3.0
	# 2 s of recording, ~2.2 s of queries, start and naming: 7 s leaves a busy machine
	# its margin.
	at_most "recording of 2 s with three dead servers" "$(cat "$TMP/many-dead.time")" 7
	expect_ge "many_libs samples" "$(total "$TMP/many-dead.folded" '^many_libs;')" 200
	expect_eq "many_libs samples named main" \
		"$(total "$TMP/many-dead.folded" '^many_libs;.*;main;')" 0
}

# A binary deleted since it ran (an upgrade, a build tree cleaned): a
# libstitch-stall report names its frames by path and build-id; the path is
# gone, so symbolize fetches the executable by build-id, then its debug file,
# and names the frame (before: deep_strip+0x..., nothing to read).
test_debuginfod_deleted_executable() {
	local burn
	export STITCH_CACHE_DIR=$TMP/cache-gone
	start_debuginfod
	stop_debuginfod
	# Served: the stripped executable and its debug file.
	cp "$TMP/dbgd/deep_strip" "$TMP/dbgd/srv/deep_strip"
	serve_debug_dir "$TMP/dbgd"
	for _ in $(seq 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' \
			"http://127.0.0.1:$DBGD_PORT/buildid/$DBGD_ID/executable")" = 200 ] && break
		sleep 0.2
	done
	mkdir -p "$TMP/gone"
	cp "$TMP/dbgd/deep_strip" "$TMP/gone/deep_strip"
	"$TMP/gone/deep_strip" spin 0.2
	rm -f "$TMP/gone/deep_strip"
	burn=$(nm "$TMP/dbgd/srv/deep_strip.debug" | awk '$3 == "burn" { print $1 }')
	[ -n "$burn" ] || die "no burn in the debug file"
	printf 'stitch-stall: tid=1 comm=x stall=20ms clock=cpu threshold=20ms suppressed=0\n  user %s+0x%x build-id=%s\n' \
		"$TMP/gone/deep_strip" $((16#$burn + 4)) "$DBGD_ID" >"$TMP/gone.log"
	"$STITCH" symbolize --no-debuginfod "$TMP/gone.log" >"$TMP/gone-none.txt" 2>"$TMP/gone-none.err"
	cat "$TMP/gone-none.err" "$TMP/gone-none.txt"
	expect_grep "$TMP/gone-none.txt" '^  user .*deep_strip\+0x'
	export DEBUGINFOD_URLS="http://127.0.0.1:$DBGD_PORT"
	"$STITCH" symbolize "$TMP/gone.log" >"$TMP/gone.txt" 2>"$TMP/gone.err"
	cat "$TMP/gone.err" "$TMP/gone.txt"
	expect_grep "$TMP/gone.txt" '^  user burn .*chain\.c:[0-9]+'
	expect_grep "$TMP/gone.err" '^stitch: debuginfod: 1 debug files fetched, 0 from its cache, 0 not found, 0 failed, 1 executables fetched'
	expect_eq "executable requests" \
		"$(grep "GET /buildid/$DBGD_ID/executable" "$TMP/dbgd/server.log" | grep -c 'UA:elfutils' || true)" 1
}

# The same in a recording: three copies of the stripped chain run while
# stitch is stopped (SIGSTOP), deleted from disk, and exit before it reads
# their mappings: no path, no /proc/PID/map_files.  Their executable comes
# by build-id from the server (for CFI and symbols), then its debug file:
# every sample named _start..main;a;b;c;burn.  Recorded with -a, it asks
# the server for every binary the host runs: in CI, beside five guests, a
# query failed (the default 2 s of silence, or an error: the run did not
# say which), the server was given up and burn's debug file was not
# fetched (0 named).  The timeout here is 10 s, and the server's requests
# are shown.
test_debuginfod_deleted_executable_record() {
	local rec pids="" i
	export STITCH_CACHE_DIR=$TMP/cache-gone-rec DEBUGINFOD_TIMEOUT=10
	start_debuginfod
	stop_debuginfod
	cp "$TMP/dbgd/deep_strip" "$TMP/dbgd/srv/deep_strip"
	serve_debug_dir "$TMP/dbgd"
	for _ in $(seq 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' \
			"http://127.0.0.1:$DBGD_PORT/buildid/$DBGD_ID/executable")" = 200 ] && break
		sleep 0.2
	done
	export DEBUGINFOD_URLS="http://127.0.0.1:$DBGD_PORT"
	"$STITCH" record -a -F 99 -d 6 -o "$TMP/gone-rec.folded" 2>"$TMP/gone-rec.err" &
	rec=$!
	sleep 2.5
	kill -STOP "$rec"
	for i in 1 2 3; do
		cp "$TMP/dbgd/deep_strip" "$TMP/gone_strip$i"
		"$TMP/gone_strip$i" spin 0.6 &
		pids="$pids $!"
	done
	sleep 0.2
	rm -f "$TMP/gone_strip1" "$TMP/gone_strip2" "$TMP/gone_strip3"
	# shellcheck disable=SC2086
	wait $pids
	kill -CONT "$rec"
	wait "$rec"
	cat "$TMP/gone-rec.err"
	show "$TMP/gone-rec.folded"
	grep -E 'GET /buildid/' "$TMP/dbgd/server.log" | tail -n 12 | cut -c1-200
	expect_grep "$TMP/gone-rec.err" '^stitch: debuginfod: .*, 1 executables fetched'
	expect_ge "samples of the deleted binaries" "$(total "$TMP/gone-rec.folded" '^gone_strip[123];')" 10
	expect_ge "% of them named _start..main;a;b;c;burn" \
		"$(share "$TMP/gone-rec.folded" '^gone_strip[123];' \
			'^gone_strip[123];_start;__libc_start_main;__libc_start_call_main;main;a;b;c;burn ')" 95
}

# ---- an agent's later periods -----------------------------------------------

# wait_pushed FILE REGEX WHAT: up to 60 s for a pushed sample (pushes.py folded
# of backend FILE) to match REGEX: the agent named and pushed that period.
wait_pushed() {
	local i
	for i in $(seq 300); do
		[ -s "$1" ] && "$PY" "$PUSHES" folded "$1" | grep -qE -- "$2" && return 0
		sleep 0.2
	done
	die "no push of $3 after 60 s"
}

# An agent whose first period spends the 3 s debuginfod budget on a download
# that moves but never ends (A, the stripped chain, through a server that
# trickles its debug file the first time, then stalls): A, still running,
# is named in a later period, when its file is asked for again and sent.
# Then a stripped program that first runs after that (B, many_libs and its
# ten libraries, under the same name): its frames are named in the later
# periods' pushes, each period's naming having a budget of its own.  With
# the run's budget (before), nothing was asked after the first period, and
# a binary once named without its file was not asked for again: A's and B's
# frames stayed dbgwork+0x..., and spin_libN's unnamed.
test_agent_debuginfod_budget_per_period() {
	local a_id agent a
	export STITCH_CACHE_DIR=$TMP/cache-agent-dbgd
	make_many_libs
	# A: the stripped chain, its debug file beside many_libs's on the server.
	mkdir -p "$TMP/dw/a" "$TMP/dw/b"
	gcc -O2 -fomit-frame-pointer -g -o "$TMP/dw/full" tests/workloads/chain.c ||
		die "chain did not build"
	objcopy --only-keep-debug "$TMP/dw/full" "$TMP/many/srv/dbgwork_a.debug"
	strip -o "$TMP/dw/a/dbgwork" "$TMP/dw/full"
	a_id=$(readelf -n "$TMP/dw/a/dbgwork" | awk '/Build ID/ { print $3 }')
	[ -n "$a_id" ] || die "no build-id in the stripped chain"
	cp "$TMP/many/bin/many_libs" "$TMP/dw/b/dbgwork"
	serve_debug_dir "$TMP/many"
	for _ in $(seq 100); do
		[ "$(curl -s -o /dev/null -w '%{http_code}' \
			"http://127.0.0.1:$DBGD_PORT/buildid/$a_id/debuginfo")" = 200 ] && break
		sleep 0.2
	done
	start_trickle "$a_id"
	backend_start dw pyroscope
	"$TMP/dw/a/dbgwork" spin 60 >/dev/null &
	a=$!
	more_servers_started "$a"
	"$STITCH" agent --comm dbgwork -F 99 --period 1s -d 180 \
		--push "pyroscope=$(url_of dw)" 2>"$TMP/dw/agent.err" &
	agent=$!
	# A test that fails on the way stops it too.
	more_servers_started "$agent"
	# A's first period named (its budget spent on A's download), then A named.
	wait_pushed "$TMP/dw.jsonl" '^pyroscope;dbgwork;' "A's first period"
	wait_pushed "$TMP/dw.jsonl" ';main;a;b;c;burn ' "A named in a later period"
	kill "$a"
	wait "$a" 2>/dev/null || true
	"$TMP/dw/b/dbgwork" 3
	# Every one of B's libraries named before the agent stops: the period B
	# started in may hold only some of them (B started late in it), and a
	# SIGTERM right after its push cut the others' fetches (9 of 12 once in CI).
	local n
	for n in 0 1 2 3 4 5 6 7 8 9; do
		wait_pushed "$TMP/dw.jsonl" ";burn_lib$n;spin_lib$n " "B's burn_lib$n named"
	done
	kill -TERM "$agent"
	wait "$agent" || die "the agent failed: $(tail -n 5 "$TMP/dw/agent.err")"
	backend_stop dw
	cat "$TMP/dw/agent.err"
	"$PY" "$PUSHES" folded "$TMP/dw.jsonl" >"$TMP/dw/all.folded"
	grep ';burn_lib[0-9]' "$TMP/dw/all.folded" >"$TMP/dw/b.folded" || true
	grep -v ';burn_lib[0-9]' "$TMP/dw/all.folded" >"$TMP/dw/a.folded" || true
	show "$TMP/dw/a.folded" 3
	show "$TMP/dw/b.folded" 5
	# The first period's budget went to A's download, which never ended.
	expect_grep "$TMP/dw/agent.err" '^stitch: debuginfod: .*\(stopped at the 3 s budget'
	expect_ge "A's samples left unnamed (the first period)" \
		"$(total "$TMP/dw/a.folded" '^pyroscope;dbgwork;dbgwork\+0x')" 20
	expect_ge "A's samples named _start..main;a;b;c;burn (later periods)" \
		"$(total "$TMP/dw/a.folded" \
			'^pyroscope;dbgwork;_start;__libc_start_main;__libc_start_call_main;main;a;b;c;burn ')" 20
	# A's file fetched in a later period, B's eleven too, and B's frames named.
	expect_grep "$TMP/dw/agent.err" '^stitch: debuginfod: 12 debug files fetched'
	expect_ge "B's samples" "$(total "$TMP/dw/b.folded")" 50
	expect_ge "% of B's samples named _start..main;burn_libN;spin_libN" \
		"$(share "$TMP/dw/b.folded" . \
			';dbgwork;_start;__libc_start_main;__libc_start_call_main;main;burn_lib[0-9];spin_lib[0-9] ')" 95
}
