# SPDX-License-Identifier: GPL-2.0
# Output safety of every command that writes (issue 31): a pseudo-file
# system refused before anything is traced, snapshot's outputs whole on
# SIGTERM and absent on SIGKILL, and the temporaries a killed stitch left
# removed by the next write there.  Sourced by run.sh, which gives $STITCH,
# $TMP, $CHAIN and the helpers of lib.sh; the planted-symlink, missing
# directory and full-disk cases are run.sh's test_outputs_safe_*.

# out_cmd NAME PATH: the arguments of a short run of command NAME writing PATH.
out_cmd() {
	case $1 in
	record) echo "record -F 99 -o $2 -- $CHAIN spin 0.2" ;;
	latency) echo "latency -e syscall:getppid -o $2 -- $CHAIN syscall 0.2" ;;
	stalls) echo "stalls -o $2 -- $CHAIN spin 0.2" ;;
	snapshot) echo "snapshot -p $$ -o $2" ;;
	report) echo "report tests/golden/input.folded -o $2" ;;
	diff) echo "diff tests/golden/input.folded tests/golden/input.folded -o $2" ;;
	symbolize) echo "symbolize -o $2 $TMP/pseudo-sym.log" ;;
	esac
}

OUT_CMDS="record latency stalls snapshot report diff symbolize"

# out_long_cmd NAME PATH: a run that traces for 3 s (snapshot: 2 s of rounds).
out_long_cmd() {
	case $1 in
	record) echo "record -a -d 3 -o $2" ;;
	latency) echo "latency -e syscall:getppid -a -d 3 -o $2" ;;
	stalls) echo "stalls -p $$ -d 3 -o $2" ;;
	snapshot) echo "snapshot -p $$ --count 10 --interval 200ms -o $2" ;;
	*) out_cmd "$@" ;;
	esac
}

# /proc and /sys pass every access check for root and take no new file:
# found before tracing (record took its whole -d, then saved the data as
# stitch-rescued-PID.pb.gz in the current directory).
test_outputs_pseudo_fs_refused_before_tracing() {
	local abs cmd t0 ms dir
	abs=$(realpath "$STITCH")
	local STITCH=$abs
	libc_report "$TMP/pseudo-sym.log"
	mkdir -p "$TMP/pseudo-cwd"
	for cmd in $OUT_CMDS; do
		for dir in /proc /sys; do
			t0=$(date +%s%N)
			# shellcheck disable=SC2046
			(cd "$TMP/pseudo-cwd" && expect_error 1 "cannot write $dir/foo.svg: its \
directory (does not take new files|is not writable)" -- $(out_long_cmd "$cmd" "$dir/foo.svg")) ||
				die "$cmd -o $dir/foo.svg"
			ms=$(( ($(date +%s%N) - t0) / 1000000 ))
			echo "$cmd -o $dir/foo.svg: refused in $ms ms"
			[ "$ms" -lt 1500 ] ||
				die "$cmd: $dir/foo.svg refused after $ms ms, not before tracing"
		done
	done
	expect_eq "files left in the current directory" "$(ls -A "$TMP/pseudo-cwd")" ""
}

# rounds_written PID DIR: "round N of" lines in the text being written in
# DIR by snapshot PID (a temporary without a name, or a hidden one).
rounds_written() {
	local f
	for f in /proc/"$1"/fd/*; do
		case $(readlink "$f") in
		"$2"/*) grep -c '^round [0-9]* of' "$f" ;;
		esac
	done 2>/dev/null | sort -n | tail -1
}

# A snapshot stopped by SIGTERM writes every output whole, with the rounds
# taken (it left 1.3 MB of torn JSON, no SVG, rc 143); one killed leaves
# its outputs absent, never torn, and no temporary behind.
test_snapshot_sigterm_writes_whole_outputs() {
	local d=$TMP/snapterm st rc i
	mkdir -p "$d"
	"$STITCH" snapshot -a --count 1000 --interval 100ms -o "$d/t.json" -o "$d/t.svg" \
		-o "$d/t.txt" -o "$d/t.folded" 2>"$d/t.err" &
	st=$!
	# A few rounds in: its text has them.
	for i in $(seq 100); do
		[ "$(rounds_written "$st" "$d")" -ge 3 ] 2>/dev/null && break
		sleep 0.1
	done
	kill -TERM "$st"
	rc=0
	wait "$st" || rc=$?
	cat "$d/t.err"
	expect_eq "exit status after SIGTERM" "$rc" 0
	expect_ge "threads in the JSON" "$(jq length "$d/t.json")" 3
	expect_ge "rounds in the text" "$(grep -c '^round [0-9]* of 1000:' "$d/t.txt")" 3
	xmllint --noout "$d/t.svg" || die "the SVG is not whole"
	expect_ge "threads in the folded stacks" "$(total "$d/t.folded")" 3
	expect_eq "temporaries left" "$(ls -A "$d" | grep -c '^\.stitch-' || true)" 0

	"$STITCH" snapshot -a --count 1000 --interval 100ms -o "$d/k.json" -o "$d/k.txt" &
	st=$!
	for i in $(seq 100); do
		[ "$(rounds_written "$st" "$d")" -ge 2 ] 2>/dev/null && break
		sleep 0.1
	done
	expect_ge "rounds being written when killed" "$(rounds_written "$st" "$d")" 2
	kill -KILL "$st"
	wait "$st" 2>/dev/null || true
	[ ! -e "$d/k.json" ] && [ ! -e "$d/k.txt" ] || die "a killed snapshot left a torn output"
	# Its temporaries had no name (O_TMPFILE on this file system): nothing left.
	expect_eq "files after kill -9" "$(ls -A "$d" | grep -vcE '^t\.(json|svg|txt|folded|err)$' ||
		true)" 0
	# Its iterator went with it (other commands' programs are others' business).
	sleep 0.5
	! programs_left | grep -q 'name snapshot_tasks' ||
		die "the snapshot iterator is still loaded after stitch exited"
}

# A SIGKILL in the write phase left a hidden temporary (once in 27 tries; now
# only where a file system has no O_TMPFILE, or between naming and rename):
# the next write in that directory, by any command, removes those of ours
# (owner, name, an hour old, unlocked) and nothing else.
test_outputs_stale_temporaries_cleaned() {
	local d=$TMP/stale cmd
	mkdir -p "$d"
	chmod 1777 "$d"
	libc_report "$TMP/pseudo-sym.log"
	for cmd in $OUT_CMDS; do
		rm -f "$d"/.stitch-* "$d"/out.*
		echo old >"$d/.stitch-dead01.tmp"
		touch -d '2 hours ago' "$d/.stitch-dead01.tmp"
		echo fresh >"$d/.stitch-dead02.tmp"
		echo theirs >"$d/.stitch-dead03.tmp"
		chown nobody "$d/.stitch-dead03.tmp"
		touch -d '2 hours ago' "$d/.stitch-dead03.tmp"
		echo mine >"$d/keep.tmp"
		touch -d '2 hours ago' "$d/keep.tmp"
		# shellcheck disable=SC2046
		"$STITCH" $(out_cmd "$cmd" "$d/out.svg") >/dev/null 2>"$d/err" ||
			{ cat "$d/err"; die "$cmd failed"; }
		[ -f "$d/out.svg" ] || die "$cmd wrote nothing"
		[ ! -e "$d/.stitch-dead01.tmp" ] || die "$cmd left a stale temporary of ours"
		[ -e "$d/.stitch-dead02.tmp" ] ||
			die "$cmd removed a temporary that may be being written"
		[ -e "$d/.stitch-dead03.tmp" ] || die "$cmd removed another user's file"
		[ -e "$d/keep.tmp" ] || die "$cmd removed a file not named as ours"
		echo "$cmd: stale temporary removed, the others kept"
	done
}

# latency writes whole outputs on SIGTERM too (record's and stalls' have
# their own interrupt tests), and a kill -9 of any of them leaves no output:
# the files appear only once complete.
test_outputs_whole_on_sigterm_absent_on_sigkill() {
	local d=$TMP/sigs cmd sig st rc i
	mkdir -p "$d"
	for cmd in latency record stalls; do
		for sig in TERM KILL; do
			rm -f "$d"/out.*
			case $cmd in
			latency) "$STITCH" latency -e syscall:getppid -o "$d/out.json" -o "$d/out.txt" \
					-o "$d/out.folded" -- sleep 33.5 2>"$d/err" & ;;
			*) "$STITCH" "$cmd" -o "$d/out.txt" -o "$d/out.folded" -o "$d/out.svg" \
					-- sleep 33.5 2>"$d/err" & ;;
			esac
			st=$!
			# Attached: the command runs once everything is.
			for i in $(seq 100); do
				pgrep -fx 'sleep 33.5' >/dev/null && break
				sleep 0.05
			done
			kill "-$sig" "$st"
			rc=0
			wait "$st" 2>/dev/null || rc=$?
			for i in $(seq 40); do
				pgrep -fx 'sleep 33.5' >/dev/null || break
				sleep 0.05
			done
			if [ "$sig" = KILL ]; then
				expect_eq "$cmd: outputs after kill -9" "$(ls "$d" | grep -c '^out\.' || true)" 0
				continue
			fi
			cat "$d/err"
			expect_eq "$cmd: exit status after SIGTERM" "$rc" 0
			[ -f "$d/out.txt" ] && [ -f "$d/out.folded" ] || die "$cmd: an output is missing"
			if [ "$cmd" = latency ]; then
				jq -e . "$d/out.json" >/dev/null || die "latency: the JSON is not whole"
			else
				xmllint --noout "$d/out.svg" || die "$cmd: the SVG is not whole"
			fi
		done
	done
}
