# SPDX-License-Identifier: GPL-2.0
# Each Debian release's stock interpreters in their own mount namespace and
# root, as a container runs them, traced from the host (sourced by run.sh,
# after roots.sh, snapshot.sh, stalls.sh, offcpu.sh and latency.sh, whose helpers it
# uses): the guarantees of the host's tests beyond record's, per release.
# snapshot (every thread's script chain, exact lines, right threads),
# off-CPU and wall time with the script's lines, stalls with the spinning
# line, latency's slow calls broken down into the Python and Ruby threads'
# lines (a Perl sub's latency per release: interp_perl_tests.sh).  The
# frames' files are the paths inside the root (/stitch-tests/...).  record's
# own chains per version are in interp_tests.sh and interp_perl_tests.sh.

# The interpreters of a release's root, as its packages name them.
rel_python() {
	case "$1" in
	bullseye) echo python3.9 ;; bookworm) echo python3.11 ;;
	trixie) echo python3.13 ;; sid | experimental) echo python3.14 ;;
	esac
}
rel_ruby() {
	case "$1" in
	bullseye) echo ruby2.7 ;; bookworm) echo ruby3.1 ;; experimental) echo ruby3.4 ;;
	*) echo ruby3.3 ;;
	esac
}

# rel_setup RELEASE: the workloads into the root; sets RROOT and RUN (the
# command prefix that runs a program in the root).
rel_setup() {
	local wl=tests/workloads/interp
	RROOT=$(root_of "$1") || exit 1
	root_put "$1" "$wl/py_snapshot.py" "$wl/rb_snapshot.rb" "$wl/pl_snapshot.pl" \
		"$wl/py_waits.py" "$wl/py_stitch.py" "$wl/pl_slow_calls.pl" \
		tests/workloads/stall_asyncio.py tests/workloads/stall_select.rb \
		tests/workloads/stall_select.pl
	RUN="unshare --mount --root=$RROOT"
}

# rel_chain_count JSON PID CHAIN: threads of PID whose frames (as
# script_chains writes them, script frames as name@line) include CHAIN's
# script frames in that order, native ones allowed between them (CPython
# 3.8 - 3.10 run each function in its own eval call); CHAIN is literal text.
rel_chain_count() {
	local re
	re=$(printf '%s' "$3" | sed 's/[][\.*^$()+?{}|]/\\&/g; s/;/;([^;@]*;)*/g')
	script_chains "$1" | awk -F'|' -v p="$2" '$1 == p' | grep -cE -- "$re" || true
}

# Python, Ruby and Perl threads waiting in known places, in one snapshot:
# each waiting thread's script chain with its exact lines, on the threads
# that wait there and no other.
release_snapshot() {
	local rel=$1 py rb pl f wl=tests/workloads/interp
	trap snap_cleanup EXIT
	rel_setup "$rel"
	snap_start $RUN "$(rel_python "$rel")" /stitch-tests/py_snapshot.py
	py=$SNAP_PID
	snap_start $RUN "$(rel_ruby "$rel")" /stitch-tests/rb_snapshot.rb
	rb=$SNAP_PID
	snap_start $RUN perl /stitch-tests/pl_snapshot.pl
	pl=$SNAP_PID
	"$STITCH" snapshot -p "$py,$rb,$pl" -o "$TMP/rs.json" 2>"$TMP/rs.err"
	cat "$TMP/rs.err"
	script_chains "$TMP/rs.json" | sort | uniq -c | sort -nr | cut -c1-300
	# Ruby 3.3 adds a timer thread of its own: each script's threads by pid.
	expect_eq "python threads" "$(jq --arg p "$py" '[.[] | select(.pid == ($p | tonumber))] | length' "$TMP/rs.json")" 10
	expect_eq "perl threads" "$(jq --arg p "$pl" '[.[] | select(.pid == ($p | tonumber))] | length' "$TMP/rs.json")" 10
	f=$wl/py_snapshot.py
	# A method is Reader.wait from 3.11 on (co_qualname), wait before (co_name).
	local cls=Reader.
	[ "$(rel_python "$rel")" != python3.9 ] || cls=
	expect_eq "python Lock.acquire" "$(rel_chain_count "$TMP/rs.json" "$py" \
		"lock_wait@$(script_mark "$f" lock_wait);lock_worker@$(script_mark "$f" lock_worker);")" 4
	expect_eq "python time.sleep" "$(rel_chain_count "$TMP/rs.json" "$py" \
		"sleep_wait@$(script_mark "$f" sleep_wait);sleep_worker@$(script_mark "$f" sleep_worker);")" 3
	expect_eq "python os.read" "$(rel_chain_count "$TMP/rs.json" "$py" \
		"${cls}wait@$(script_mark "$f" pipe_wait);${cls}run@$(script_mark "$f" pipe_worker);")" 2
	expect_eq "python main" "$(rel_chain_count "$TMP/rs.json" "$py" \
		"main@$(script_mark "$f" main_wait);<module>@$(script_mark "$f" module);")" 1
	f=$wl/rb_snapshot.rb
	expect_eq "ruby Mutex#synchronize" "$(rel_chain_count "$TMP/rs.json" "$rb" \
		"lock_wait@$(script_mark "$f" lock_wait);lock_worker@$(script_mark "$f" lock_worker);block (2 levels) in <main>@$(script_mark "$f" lock_threads);")" 4
	expect_eq "ruby sleep" "$(rel_chain_count "$TMP/rs.json" "$rb" \
		"sleep_wait@$(script_mark "$f" sleep_wait);sleep_worker@$(script_mark "$f" sleep_worker);block (2 levels) in <main>@$(script_mark "$f" sleep_threads);")" 3
	expect_eq "ruby IO#sysread" "$(rel_chain_count "$TMP/rs.json" "$rb" \
		"Reader#wait@$(script_mark "$f" pipe_wait);Reader#run@$(script_mark "$f" pipe_worker);block (2 levels) in <main>@$(script_mark "$f" pipe_threads);")" 2
	f=$wl/pl_snapshot.pl
	expect_eq "perl lock" "$(rel_chain_count "$TMP/rs.json" "$pl" \
		"main::lock_wait@$(script_mark "$f" lock_wait);main::lock_worker@$(script_mark "$f" lock_worker);(eval)@$(script_mark "$f" lock_threads);")" 4
	expect_eq "perl sleep" "$(rel_chain_count "$TMP/rs.json" "$pl" \
		"main::sleep_wait@$(script_mark "$f" sleep_wait);main::sleep_worker@$(script_mark "$f" sleep_worker);(eval)@$(script_mark "$f" sleep_threads);")" 3
	expect_eq "perl sysread" "$(rel_chain_count "$TMP/rs.json" "$pl" \
		"Reader::wait_byte@$(script_mark "$f" pipe_wait);Reader::run@$(script_mark "$f" pipe_worker);(eval)@$(script_mark "$f" pipe_threads);")" 2
	expect_eq "perl main" "$(rel_chain_count "$TMP/rs.json" "$pl" \
		";<main>@$(script_mark "$f" main_wait);perl_run;")" 1
	expect_eq "unsupported or failed walks said" "$(grep -c 'not supported' "$TMP/rs.err")" 0
	snap_no_programs_left
}

# Off-CPU time of Python threads blocked in time.sleep, os.read and
# Lock.acquire, on their script lines, within 5% of what each thread
# measured (offcpu.sh); and wall time: a thread computing in a known line
# has every one of its samples under the exact chain.
release_offcpu_wall() {
	local rel=$1 py re burn
	rel_setup "$rel"
	offcpu_python_lines "$(rel_python "$rel")" "$rel"

	py=tests/workloads/interp/py_stitch.py
	re=/stitch-tests/py_stitch\\.py
	burn="cpu_a \\($re:$(grep -n '# MARK: cpu_a$' "$py" | cut -d: -f1)\\);([^;()]+;)*$(py_burn "$re")"
	"$STITCH" record -e wall -F 499 -o "$TMP/rw.folded" -- \
		$RUN "$(rel_python "$rel")" /stitch-tests/py_stitch.py cpu 2
	show "$TMP/rw.folded"
	# Samples weigh 1/499 s: at least a second of cpu_burn's two.
	expect_ge "ms in cpu_a -> cpu_burn" \
		"$(awk -v t="$(offcpu_total "$TMP/rw.folded" "$burn")" 'BEGIN { print int(t * 1000) }')" 1000
	expect_eq "% of cpu_burn() samples with the exact chain" \
		"$(share "$TMP/rw.folded" ';cpu_burn \(' "(Thread\\.)?run \\([^)]*threading\\.py:[0-9]+\\);([^;()]+;)*$burn")" 100
}

# rel_latency OUT SYSCALL -- COMMAND: stitch latency of the slow calls of
# SYSCALL in COMMAND.
rel_latency() {
	local out=$1 sc=$2
	shift 3
	"$STITCH" latency -e "syscall:$sc" -t 5ms --top 3 -o "$out.json" -o "$out.folded" \
		-o "$out.txt" -- "$@" >"$out.wl" 2>"$out.err" || { cat "$out.err"; die "stitch latency failed"; }
	cat "$out.wl" "$out.err"
	sed -n '/slowest:$/,$p' "$out.txt" | head -8
}

# stitch latency in the root: the Python and Ruby readers' os.read /
# IO#sysread of a pipe fed every 10 ms (py_waits.py, rb_waits.rb) are the
# run's slow reads, broken down into the reader thread's own script frames
# and lines, blocked in the pipe; no slow read's stack carries another
# thread's functions (the sleeper, the locker and their partners never read).
# Ruby's IO#sysread waits for the pipe before it reads (2.7: ppoll(2); 3.x
# makes pipes non-blocking, reads EAGAIN, then poll(2)s): its slow calls are
# the wait's.
release_latency() {
	local rel=$1 py=tests/workloads/interp/py_waits.py rb=tests/workloads/interp/rb_waits.rb
	local n='([^;()]+;)*' re read call
	rel_setup "$rel"
	root_put "$rel" "$rb"
	re='/stitch-tests/py_waits\.py'
	read=$(grep -n '# READ_LINE$' "$py" | cut -d: -f1)
	call=$(grep -n '# CALL_LINE$' "$py" | cut -d: -f1)
	rel_latency "$TMP/rlp" read -- $RUN "$(rel_python "$rel")" /stitch-tests/py_waits.py 2
	# ~200 reads of ~10 ms in 2 s; a loaded machine merges a few.
	expect_ge "python: slow reads" "$(jq .slow "$TMP/rlp.json")" 100
	expect_ge "python: % of the slow reads' time blocked in reader's os.read" \
		"$(share_of_slow "$TMP/rlp.folded" "^read;\\[off-cpu\\];.*;reader \\($re:$read\\);${n}timed \\($re:$call\\);$n(reader\\.<locals>\\.)?<lambda> \\($re:$read\\);.*;(anon_)?pipe_read_\\[k\\];")" 90
	# The summary names the script's innermost frame, not the interpreter's C.
	expect_grep "$TMP/rlp.txt" "off-CPU in (anon_)?pipe_read <- vfs_read <- .* <- (reader\\.<locals>\\.)?<lambda> \\(py_waits\\.py:$read\\)\$"
	expect_eq "python: slow reads' stacks with another thread's functions" \
		"$(total "$TMP/rlp.folded" ';(sleeper|locker|feeder|holder) \(')" 0

	re='/stitch-tests/rb_waits\.rb'
	read=$(grep -n '# MARK: read$' "$rb" | cut -d: -f1)
	call=$(grep -n '# MARK: call$' "$rb" | cut -d: -f1)
	local sc=poll
	[ "$rel" = bullseye ] && sc=ppoll
	rel_latency "$TMP/rlr" $sc -- $RUN "$(rel_ruby "$rel")" /stitch-tests/rb_waits.rb 2
	expect_ge "ruby: slow waits for the pipe" "$(jq .slow "$TMP/rlr.json")" 100
	expect_ge "ruby: % of the reader's slow waits blocked in its IO#sysread" \
		"$(share "$TMP/rlr.folded" '^[a-z]+;\[off-cpu\];.*;reader \(' "^$sc;\\[off-cpu\\];.*;reader \\($re:$read\\);${n}timed \\($re:$call\\);${n}block in reader \\($re:$read\\);${n}IO#sysread;.*;do_sys_poll_\\[k\\];")" 90
	expect_grep "$TMP/rlr.txt" "off-CPU in poll_schedule_timeout.* <- .* <- IO#sysread\$"
	# 2.7's Thread#join waits in ppoll(2) too: the main thread's one slow call.
	local join=$(grep -n 'threads.each(&:join)' "$rb" | cut -d: -f1)
	expect_ge "ruby: % of the slow calls' time in the reader or the main thread's join" \
		"$(share "$TMP/rlr.folded" . "(;reader \\($re:$read\\);|;<main> \\($re:$join\\);${n}Thread#join;)")" 98
	expect_eq "ruby: slow reads' stacks with another thread's methods" \
		"$(total "$TMP/rlr.folded" ';(sleeper|locker|feeder|holder|block in (sleeper|locker|feeder|holder)) \(')" 0
}

# stall_chain FILE INNER OUTER [missing]: % of a stall report's samples
# whose stack has INNER with OUTER at most two native frames further out
# (CPython 3.8 - 3.10 run each function in its own eval call, with the call
# machinery between); "missing": the samples with INNER and without OUTER.
stall_chain() {
	INNER="^        $2\$" OUTER="^        $3\$" MODE=${4:-pct} awk '
		BEGIN { inner = ENVIRON["INNER"]; outer = ENVIRON["OUTER"]; mode = ENVIRON["MODE"] }
		function done_block() {
			if (c) { tot += c; if (hit) h += c; if (seen && !hit) miss += c }
		}
		/ samples:$/ { done_block(); c = $1; hit = 0; seen = 0; gap = -1; next }
		/^        / {
			if ($0 ~ inner) { seen = 1; gap = 0; next }
			if (gap >= 0 && gap <= 2 && $0 ~ outer) hit = 1
			if (gap >= 0) gap++
		}
		END {
			done_block()
			if (mode == "missing") print miss + 0
			else print tot ? int(100 * h / tot) : 0
		}' "$1"
}

# Event-loop stalls of the three interpreters' loops, each with the
# script's spinning line and its caller.
release_stalls() {
	local rel=$1
	rel_setup "$rel"
	"$STITCH" stalls -t 100ms --top 1000 -- $RUN "$(rel_python "$rel")" \
		/stitch-tests/stall_asyncio.py >"$TMP/rsp.out" 2>"$TMP/rsp.err"
	cat "$TMP/rsp.err"
	stall_lines "$TMP/rsp.out"
	expect_ge "python: % of a stall's samples in the chain" "$(stall_chain "$TMP/rsp.out" \
		'spin_for_stall  \(stall_asyncio\.py:1[01]\)' 'main  \(stall_asyncio\.py:17\)')" 50
	expect_eq "python: spin stacks without the script chain" "$(stall_chain "$TMP/rsp.out" \
		'spin_for_stall  \(stall_asyncio\.py:1[01]\)' 'main  \(stall_asyncio\.py:17\)' \
		missing)" 0
	"$STITCH" stalls -t 100ms --top 1000 -- $RUN "$(rel_ruby "$rel")" \
		/stitch-tests/stall_select.rb >"$TMP/rsr.out" 2>"$TMP/rsr.err"
	cat "$TMP/rsr.err"
	stall_lines "$TMP/rsr.out"
	expect_eq "ruby: stalls" "$(stall_lines "$TMP/rsr.out" | wc -l)" 1
	expect_eq "ruby: spin stacks without the script chain" "$(script_chain_missing "$TMP/rsr.out" \
		'spin_for_stall  \(stall_select\.rb(:16)?\)' '<main>  \(stall_select\.rb:26\)')" 0
	expect_ge "ruby: % of samples in the chain" "$(script_chain_pct "$TMP/rsr.out" \
		'spin_for_stall  \(stall_select\.rb:16\)' '<main>  \(stall_select\.rb:26\)')" 85
	"$STITCH" stalls -t 100ms --top 1000 -- $RUN perl /stitch-tests/stall_select.pl \
		>"$TMP/rsl.out" 2>"$TMP/rsl.err"
	cat "$TMP/rsl.err"
	stall_lines "$TMP/rsl.out"
	expect_eq "perl: stalls" "$(stall_lines "$TMP/rsl.out" | wc -l)" 1
	expect_eq "perl: spin stacks without the script chain" "$(script_chain_missing "$TMP/rsl.out" \
		'main::spin_for_stall  \(stall_select\.pl:17\)' '<main>  \(stall_select\.pl:27\)')" 0
	expect_ge "perl: % of samples in the chain" "$(script_chain_pct "$TMP/rsl.out" \
		'main::spin_for_stall  \(stall_select\.pl:17\)' '<main>  \(stall_select\.pl:27\)')" 85
}

# Debian 12's interpreters in a container: the host's versions, through the
# root's own binaries and paths (their off-CPU and latency: the host's tests).
test_release_bookworm_snapshot() { release_snapshot bookworm; }
test_release_bookworm_stalls() { release_stalls bookworm; }

# Debian 11 (Python 3.9, Ruby 2.7, Perl 5.32, glibc 2.31) and 13 (3.13, 3.3,
# 5.40, glibc 2.41); sid (3.14, 3.3, 5.42, glibc 2.43) for what its own
# tests in interp_tests.sh and interp_perl_tests.sh do not cover.
test_release_bullseye_snapshot() { release_snapshot bullseye; }
test_release_bullseye_offcpu_wall() { release_offcpu_wall bullseye; }
test_release_bullseye_stalls() { release_stalls bullseye; }
test_release_bullseye_latency() { release_latency bullseye; }
test_release_trixie_snapshot() { release_snapshot trixie; }
test_release_trixie_offcpu_wall() { release_offcpu_wall trixie; }
test_release_trixie_stalls() { release_stalls trixie; }
test_release_trixie_latency() { release_latency trixie; }
test_release_sid_snapshot() { release_snapshot sid; }
test_release_sid_stalls() { release_stalls sid; }
test_release_sid_latency() { release_latency sid; }

# Debian experimental (glibc 2.44): Python 3.14, Ruby 3.4 and Perl 5.44, as
# the other releases (Ruby 3.4's record chains: test_ruby34_* in interp_tests.sh).
test_release_experimental_snapshot() { release_snapshot experimental; }
test_release_experimental_offcpu_wall() { release_offcpu_wall experimental; }
test_release_experimental_latency() { release_latency experimental; }
test_release_experimental_stalls() { release_stalls experimental; }
