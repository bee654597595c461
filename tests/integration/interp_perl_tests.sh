# SPDX-License-Identifier: GPL-2.0
# Integration tests of Perl frames (sourced by run.sh): real perl 5.36 processes traced by
# the real binary, exact chains with lines asserted.  Workload: pl_stitch.pl.

PLW=$(realpath tests/workloads/interp/pl_stitch.pl)
PLW_RE=$(printf '%s' "$PLW" | sed 's/[.]/\\./g')
PERL=/usr/bin/perl

# Line of a MARK comment in the perl workload.
plmark() {
	local l
	l=$(grep -n "# MARK: $1\$" "$PLW" | cut -d: -f1)
	is_number "$l" "MARK $1"
	echo "$l"
}

# pf NAME MARK: a Perl frame of the workload as a folded regex.
pf() {
	echo "$1 \\($PLW_RE:$(plmark "$2")\\)"
}

# Folded lines carrying Perl frames (name (file.pl:line)).
PLFRAME='\.pl:[0-9]+\)'
# Any run of native frames (their names have no "(", Perl frames do).
PNAT='([^;()]+;)*'
# A pp function's frame: perl 5.38+ no longer exports them (PL_PP_HIDDEN=1 for those
# perls: the frame is perl+0x..., or libperl.so.5.N.M+0x... embedded).
PL_PP_HIDDEN=0
pl_pp() {
	if [ "$PL_PP_HIDDEN" = 1 ]; then
		echo "(Perl_pp_$1|(perl|libperl\\.so[.0-9]*)\\+0x[0-9a-f]+)"
	else
		echo "Perl_pp_$1"
	fi
}
pl_syscall() {
	echo "$(pl_pp getppid);getppid;entry_SYSCALL_64_after_hwframe_\\[k\\];"
}
PL_SYSCALL=$(pl_syscall)
# A thread's native base below threads.so (glibc 2.36 on the host, with its symbols).
PL_CLONE='clone3;start_thread;'

# The traced program's comm: perl, or a program embedding it.
PL_COMM=perl

# An ithread's base: threads.xs runs the entry sub with call_sv(G_EVAL).
pl_thread() {
	echo "^$PL_COMM;$PL_CLONE${PNAT}Perl_call_sv;\\(eval\\) \\($PLW_RE:$(plmark "$1")\\);"
}

pl_leaf_chain() {
	echo "$(pl_thread a_create)$(pf Work::A::run a_outer);$(pf Work::A::outer outer);$(pf Work::A::__ANON__ anon);$(pf Work::A::middle middle);$(pf Work::A::leaf leaf);$PL_SYSCALL"
}
# The sort block is no frame (a CXt_NULL context): key_of runs in pp_sort's runops.
pl_sort_chain() {
	echo "$(pl_thread a_create)$(pf Work::A::run a_sorted);$(pf Work::A::sorted sort_block);$(pl_pp sort);${PNAT}$(pf Work::A::key_of key_of);$PL_SYSCALL"
}
# DESTROY: sv_clear calls it through call_sv(G_EVAL), in a stackinfo of its own.
pl_destroy_chain() {
	echo "$(pl_thread a_create)$(pf Work::A::run a_guarded);$(pf Work::A::guarded guarded);$(pl_pp undef);${PNAT}Perl_call_sv;$(pf '\(eval\)' guarded);$(pf Work::Guard::DESTROY destroy);$PL_SYSCALL"
}
pl_write_chain() {
	echo "$(pl_thread b_create)$(pf Work::B::run b_loop);$(pf Work::B::b_write b_write);$(pl_pp syswrite);write;"
}

pl_check_threads() {
	local out=$1
	grep ';getppid;' "$out" >"$out.getppid" || true
	grep ';write;' "$out" >"$out.write" || true
	show "$out.getppid"
	show "$out.write"
	expect_ge "getppid events in perl" "$(total "$out.getppid" "^$PL_COMM;")" "$(slowed 3000)"
	expect_ge "thread A: packages and an anonymous sub" "$(total "$out" "$(pl_leaf_chain)")" \
		"$(slowed 1000)"
	expect_ge "thread A: sort block calls a sub" "$(total "$out" "$(pl_sort_chain)")" \
		"$(slowed 1000)"
	expect_ge "thread A: DESTROY" "$(total "$out" "$(pl_destroy_chain)")" "$(slowed 1000)"
	expect_ge "thread B: writes" "$(total "$out" "$(pl_write_chain)")" "$(slowed 1000)"
	# Every stack through leaf / key_of / DESTROY / b_write is the whole exact chain.
	expect_eq "% of leaf stacks exact" "$(share "$out" ';Work::A::leaf \(' "$(pl_leaf_chain)")" 100
	expect_eq "% of key_of stacks exact" "$(share "$out" ';Work::A::key_of \(' "$(pl_sort_chain)")" 100
	expect_eq "% of DESTROY stacks exact" \
		"$(share "$out" ';Work::Guard::DESTROY \(' "$(pl_destroy_chain)")" 100
	expect_eq "% of b_write stacks exact" "$(share "$out" ';Work::B::b_write \(' "$(pl_write_chain)")" 100
	# Thread truth: B's subs never in getppid stacks, A's never in write stacks.
	expect_eq "B's frames in getppid stacks" "$(total "$out.getppid" 'Work::B::')" 0
	expect_eq "A's frames in write stacks" "$(total "$out.write" 'Work::A::|Work::Guard::')" 0
	expect_eq "perl stacks marked not stitched" "$(total "$out" 'perl frames not stitched')" 0
	# Only the first ring buffer drain, before the process was recognized, lacks them.
	expect_ge "% of perl getppid stacks with Perl frames" \
		"$(share "$out.getppid" "^$PL_COMM;" "$PLFRAME")" 95
}

test_perl_threads_syscalls() {
	"$STITCH" record -e syscall:getppid -e syscall:write -o "$TMP/plt.folded" -- \
		"$PERL" "$PLW" threads 3
	pl_check_threads "$TMP/plt.folded"
}

# perl embedded as libperl.so: PL_current_context is in the library's TLS
# block, reached through each thread's DTV; the same chains, the same truth.
test_perl_embedded_libperl() {
	"$STITCH" record -e syscall:getppid -e syscall:write -o "$TMP/ple.folded" -- \
		"$PERL_EMBED" "$PLW" threads 3 2>"$TMP/ple.err"
	cat "$TMP/ple.err"
	expect_eq "messages about perl" "$(grep -c perl "$TMP/ple.err")" 0
	PL_COMM=perl_embed pl_check_threads "$TMP/ple.folded"
}

# By pid: the tables are in before the capture starts.  The workload
# outlasts stitch's start, then is stopped: under emulation (a guest of 5.10,
# its busy threads beside stitch's bounded walkers being verified) that start
# took 60 s and more.
test_perl_tracepoint_pid_target() {
	"$PERL" "$PLW" threads $((SLOWDOWN > 1 ? 300 : 15)) &
	local pid=$!
	sleep 0.7
	"$STITCH" record -e tracepoint:syscalls:sys_enter_getppid -e tracepoint:syscalls:sys_enter_write \
		-p "$pid" -d 2 -o "$TMP/plp.folded"
	kill "$pid" 2>/dev/null || true
	wait "$pid" || true
	pl_check_threads "$TMP/plp.folded"
	# Every stack has them, unless the ring buffer overflowed, and then the loss is marked.
	expect_eq "% with Perl frames or the loss marked (process known from the start)" \
		"$(share "$TMP/plp.folded.getppid" '^perl;' "$PLFRAME|\\[interpreter frames lost\\]")" 100
}

test_perl_uprobe_whole_system() {
	"$PERL" "$PLW" threads 4 &
	local pid=$!
	sleep 0.7
	"$STITCH" record -e uprobe:libc.so.6:getppid -a -d 2 -o "$TMP/plu.folded"
	wait "$pid"
	grep '^perl;' "$TMP/plu.folded" >"$TMP/plu-pl.folded" || true
	show "$TMP/plu-pl.folded"
	local leaf sort
	leaf="$(pl_leaf_chain | sed 's/;getppid;entry_SYSCALL.*//');getppid [0-9]+$"
	sort="$(pl_sort_chain | sed 's/;getppid;entry_SYSCALL.*//');getppid [0-9]+$"
	expect_ge "thread A: packages and an anonymous sub" "$(total "$TMP/plu-pl.folded" "$leaf")" 500
	expect_ge "thread A: sort block calls a sub" "$(total "$TMP/plu-pl.folded" "$sort")" 500
	expect_eq "% of leaf stacks exact" "$(share "$TMP/plu-pl.folded" ';Work::A::leaf \(' "$leaf")" 100
	expect_eq "B's frames in getppid stacks" "$(total "$TMP/plu-pl.folded" 'Work::B::')" 0
}

test_perl_signal_handler() {
	"$STITCH" record -e syscall:getppid -o "$TMP/pls.folded" -- "$PERL" "$PLW" signal 2
	show "$TMP/pls.folded"
	# The handler runs from perly_sighandler's call_sv in a SIGNAL stackinfo, above the
	# statement it interrupted (spin's loop); spin was called from a string eval.
	local chain last end
	chain="^perl;${PNAT}perl_run;$(pf '<main>' m_main);$(pf main::from_string m_string);\\(eval\\) \\(\\(eval [0-9]+\\):1\\);$(pf main::spin m_spin);${PNAT}Perl_despatch_signals;Perl_perly_sighandler;Perl_call_sv;$(pf '\(eval\)' m_spin);$(pf Handler::on_alarm on_alarm);$PL_SYSCALL"
	# A last alarm may come after from_string returned, while ualarm(0) runs,
	# or once it is done: perl_run dispatched one after the last statement
	# (1 of 1,109 samples in CI, 2026-12-07), its current statement then
	# PL_compiling, of line 0 (a statement of the script has its line):
	# "<main> (FILE)", no line, true.
	end="(:$(plmark m_end))?\\)"
	last="^perl;${PNAT}perl_run;<main> \\($PLW_RE$end;${PNAT}Perl_despatch_signals;Perl_perly_sighandler;Perl_call_sv;\\(eval\\) \\($PLW_RE$end;$(pf Handler::on_alarm on_alarm);$PL_SYSCALL"
	expect_ge "signal handler chain" "$(total "$TMP/pls.folded" "$chain")" 300
	show_outside "$TMP/pls.folded" ';Handler::on_alarm \(' "$chain|$last"
	expect_eq "% of on_alarm stacks exact" \
		"$(share "$TMP/pls.folded" ';Handler::on_alarm \(' "$chain|$last")" 100
}

test_perl_cpu_samples() {
	"$STITCH" record -F 999 -o "$TMP/plc.folded" -- "$PERL" "$PLW" cpu 3
	show "$TMP/plc.folded"
	local burn base
	# The Perl frames exact; where the native unwind stops early (a sample in a pp
	# function's prologue), they go beyond its [unknown] end, still in order.
	burn=";$(pf '\(eval\)' cpu_create);$(pf Work::A::cpu a_cpu);$(pf Work::A::burn burn)(;| )"
	base="$(pl_thread cpu_create)$(pf Work::A::cpu a_cpu);$(pf Work::A::burn burn)"
	expect_ge "samples in cpu -> burn" "$(total "$TMP/plc.folded" "$burn")" "$(slowed 1000)"
	expect_eq "% of burn samples with the exact chain" \
		"$(share "$TMP/plc.folded" ';Work::A::burn \(' "$burn")" 100
	expect_ge "% of them with the whole native base" \
		"$(share "$TMP/plc.folded" ';Work::A::burn \(' "$base")" 90
	expect_eq "B's frames with A's" "$(total "$TMP/plc.folded" 'Work::B::.*Work::A::|Work::A::.*Work::B::')" 0
	# Samples of a thread in burn's ops (or runops itself): named, but for the first drain.
	expect_ge "% of the threads' samples in burn's ops named" \
		"$(share "$TMP/plc.folded" '^perl;clone3;.*(Perl_pp_(unstack|padsv|preinc|time|and|lt)|Perl_runops_standard) [0-9]+$' ';Work::A::burn \(')" 90
}

test_perl_deep_stack_truncated_and_marked() {
	"$STITCH" record -e syscall:getppid -o "$TMP/pldeep.folded" -- "$PERL" "$PLW" deep 2
	# 128 frames walked: the innermost 128 recursive calls, then the mark.
	local deep rec128="" i
	for i in $(seq 128); do rec128="$rec128;$(pf Work::A::rec rec)"; done
	deep="^perl;${PNAT}perl_run;\\[truncated\\]$rec128;$PL_SYSCALL"
	expect_ge "deep stacks truncated and marked" "$(total "$TMP/pldeep.folded" "$deep")" 1000
	expect_eq "% of rec stacks exactly so" "$(share "$TMP/pldeep.folded" ';Work::A::rec \(' "$deep")" 100
}

test_perl_no_lines() {
	"$STITCH" record -e syscall:getppid --no-lines -o "$TMP/pln.folded" -- "$PERL" "$PLW" threads 2
	show "$TMP/pln.folded"
	expect_ge "chain without lines" "$(total "$TMP/pln.folded" \
		";Work::A::outer \\($PLW_RE\\);Work::A::__ANON__ \\($PLW_RE\\);Work::A::middle \\($PLW_RE\\);Work::A::leaf \\($PLW_RE\\);$PL_SYSCALL")" 300
	expect_eq "frames with lines" "$(total "$TMP/pln.folded" "$PLFRAME")" 0
}

# A perl whose PL_version says 5.38 (a copy of this one with that byte changed): one line
# naming it, native stacks still shown, no Perl frames.
test_perl_unsupported_version_says_so() {
	local addr off
	addr=$(readelf -sW --dyn-syms "$PERL" | awk '$8 == "PL_version" { print $2; exit }')
	[ -n "$addr" ] || die "no PL_version in $PERL"
	# vaddr -> file offset, through the PT_LOAD that holds it
	off=$(readelf -lW "$PERL" | A=$((16#$addr)) perl -lane '
		next unless $F[0] eq "LOAD";
		my ($o, $v, $fs) = map { hex } @F[1, 2, 4];
		if ($ENV{A} >= $v && $ENV{A} < $v + $fs) { print $ENV{A} - $v + $o; last }')
	is_number "$off" "PL_version file offset"
	cp "$PERL" "$TMP/perl"
	printf '\046' | dd of="$TMP/perl" bs=1 seek="$off" conv=notrunc status=none	# 38
	# --stats: what the kernel counted, should a run see no event (the
	# sanitizer pass's once did, in CI, not again in 6 runs here).
	"$STITCH" record --stats -e syscall:getppid -o "$TMP/pl38.folded" -- "$TMP/perl" "$PLW" \
		threads 1 2>"$TMP/pl38.err"
	cat "$TMP/pl38.err"
	show "$TMP/pl38.folded"
	expect_eq "lines naming the version" "$(grep -c 'perl 5\.38 is not supported yet' "$TMP/pl38.err")" 1
	# How many calls a second the loop makes depends on the machine's load
	# (488 in 1 s once under a parallel build, ~1500 idle): a share, not a count.
	local all native
	all=$(total "$TMP/pl38.folded" '.')
	native=$(total "$TMP/pl38.folded" 'Perl_runops_standard;.*Perl_pp_getppid;getppid;entry_SYSCALL')
	expect_ge "events" "$all" 100
	expect_ge "% of events with their native stack" "$((100 * native / all))" 95
	expect_eq "Perl frames" "$(total "$TMP/pl38.folded" "$PLFRAME")" 0
}

# Perl frames of a folded file, one line per stack: "count;frame;frame..." (native dropped).
pl_frames_only() {
	awk -F';' '{
		s = ""
		for (i = 2; i <= NF; i++)
			if ($i ~ /\(|^\[truncated\]|not stitched/) { x = $i; sub(/ [0-9]+$/, "", x); s = s ";" x }
		n = $NF; sub(/.* /, "", n); c[s] += n
	} END { for (k in c) print c[k] k }' "$1"
}

# Sub names of 48 bytes, read with their HEK's head in one read, and of 49
# and 120 bytes, read in two (perl_hek_short): each whole, none cut or mixed.
test_perl_name_lengths() {
	local w=$TMP/names.pl n48 n49 n120 re
	n48=s$(printf 'x%.0s' $(seq 47))
	n49=t$(printf 'x%.0s' $(seq 48))
	n120=u$(printf 'x%.0s' $(seq 119))
	cat >"$w" <<-PL
		sub $n120 { return getppid() }
		sub $n49 { return $n120() }
		sub $n48 { return $n49() }
		my \$end = time + 2;
		$n48() while time < \$end;
	PL
	"$STITCH" record -e syscall:getppid -o "$TMP/pln.folded" -- "$PERL" "$w"
	re=$(printf '%s' "$w" | sed 's/[.]/\\./g')
	expect_ge "48, 49 and 120 byte names, each whole" "$(total "$TMP/pln.folded" \
		";main::$n48 \\($re:3\\);main::$n49 \\($re:2\\);main::$n120 \\($re:1\\);")" 1000
	# (Events before perl is recognized as an interpreter have no Perl frames.)
	expect_eq "stacks with Perl frames that are not so" "$(total "$TMP/pln.folded" 'main::')" \
		"$(total "$TMP/pln.folded" ";main::$n48 \\($re:3\\);main::$n49 \\($re:2\\);main::$n120 \\($re:1\\);")"
}

# CPU samples of a thread that enters and leaves subs all the time: the walker catches it
# inside cx_pushblock/cx_pushsub or pp_leavesub's pops.  Every stack is one of the three
# real ones or marked truncated; never a callee's line shown for its caller.
test_perl_churn_never_mixes_frames() {
	local w pid
	w=$(realpath tests/workloads/interp/pl_churn.pl)
	"$PERL" "$w" >/dev/null &
	pid=$!
	sleep 0.5
	"$STITCH" record -F 999 -p "$pid" -d 3 -o "$TMP/plch.folded" || { kill "$pid"; exit 1; }
	kill "$pid"
	wait "$pid" 2>/dev/null || true
	local re m l c
	re=$(printf '%s' "$w" | sed 's/[.]/\\./g')
	m="<main> \\($re:13\\)"
	l="main::mid \\($re:8\\)"
	c="main::leaf \\($re:7\\)"
	pl_frames_only "$TMP/plch.folded" >"$TMP/plch.frames"
	cat "$TMP/plch.frames"
	expect_ge "samples in main::leaf" "$(awk -v n=0 -v RE="^[0-9]+;$m;$l;$c\$" '$0 ~ RE { n += $1 } END { print n }' "$TMP/plch.frames")" 300
	expect_eq "stacks that are none of the real ones" \
		"$(awk -v RE="^[0-9]+(;$m(;$l(;$c)?)?|;\\\\[truncated\\\\])?\$" '$0 !~ RE { n += $1 } END { print n + 0 }' "$TMP/plch.frames")" 0
	expect_ge "% of samples with Perl frames" \
		"$(awk -F';' '{ all += $1; if (NF > 1 && $0 !~ /truncated/) hit += $1 } END { print int(100 * hit / all) }' "$TMP/plch.frames")" 80
}

# perl of a Debian release in its own mount namespace and root, as a container runs it
# (roots.sh), traced from the host: the threads' exact chains and lines, and which thread
# each frame belongs to, under syscalls; CPU samples' exact chain.  Frames name the file
# by its path in the root.  stitch must have chosen that perl's table (STITCH_DEBUG).
# A sleeping thread's off-CPU time under its chain.  A sub's latency (stitch latency -e perl:NAME).  Optionally the same threads in a
# program embedding the release's libperl.so.
pl_release() {
	local rel=$1 ver=$2 run
	local PLW_RE='/stitch-tests/pl_stitch\.pl' PL_CLONE=$PNAT PL_PP_HIDDEN=$3 PL_SYSCALL
	PL_SYSCALL=$(pl_syscall)
	root_put "$rel" "$PLW"
	run=$(in_root_cmd "$rel")
	# shellcheck disable=SC2086 # the root's command prefix is words
	STITCH_DEBUG=1 "$STITCH" record -e syscall:getppid -e syscall:write \
		-o "$TMP/plr-$rel.folded" -- $run perl /stitch-tests/pl_stitch.pl threads 3 \
		2>"$TMP/plr-$rel.err"
	grep -v '^stitch: pid [0-9]*: no interpreter' "$TMP/plr-$rel.err" | grep -i perl
	expect_ge "perl $ver recognized, glibc known" \
		"$(grep -c "^stitch: pid [0-9]*: perl $ver, glibc known" "$TMP/plr-$rel.err")" 1
	expect_eq "messages about perl" "$(grep -c 'perl.*not supported' "$TMP/plr-$rel.err")" 0
	pl_check_threads "$TMP/plr-$rel.folded"

	# shellcheck disable=SC2086
	"$STITCH" record -F 999 -o "$TMP/plrc-$rel.folded" -- \
		$run perl /stitch-tests/pl_stitch.pl cpu 3
	local burn base
	burn=";$(pf '\(eval\)' cpu_create);$(pf Work::A::cpu a_cpu);$(pf Work::A::burn burn)(;| )"
	base="$(pl_thread cpu_create)$(pf Work::A::cpu a_cpu);$(pf Work::A::burn burn)"
	expect_ge "samples in cpu -> burn" "$(total "$TMP/plrc-$rel.folded" "$burn")" 300
	expect_eq "% of burn samples with the exact chain" \
		"$(share "$TMP/plrc-$rel.folded" ';Work::A::burn \(' "$burn")" 100
	expect_ge "% of them with the whole native base" \
		"$(share "$TMP/plrc-$rel.folded" ';Work::A::burn \(' "$base")" 90
	expect_eq "B's frames with A's" \
		"$(total "$TMP/plrc-$rel.folded" 'Work::B::.*Work::A::|Work::A::.*Work::B::')" 0

	# Off-CPU: thread B sleeps in nap's loop all along, under its exact chain.
	# shellcheck disable=SC2086
	"$STITCH" record -e offcpu -o "$TMP/plro-$rel.folded" -- \
		$run perl /stitch-tests/pl_stitch.pl cpu 3
	# (Preempted while running nap's loop is off-CPU too, without do_nanosleep.)
	local nap
	nap="$(pl_thread nap_create)$(pf Work::B::nap b_nap);"
	expect_ge "ms off-CPU in nap's sleep" "$(awk -v t="$(offcpu_total \
		"$TMP/plro-$rel.folded" "$nap.*;do_nanosleep_\\[k\\];")" 'BEGIN { print int(t * 1000) }')" 900
	expect_eq "% of nap's off-CPU time under its exact chain" \
		"$(share "$TMP/plro-$rel.folded" ';Work::B::nap \(' "$nap")" 100
	expect_eq "A's frames in B's off-CPU stacks" \
		"$(total "$TMP/plro-$rel.folded" 'Work::B::nap.*Work::A::|Work::A::.*Work::B::nap')" 0

	# stitch latency -e perl:handle in the root's perl (5.40+: pp functions found through
	# PL_ppaddr, exceptions at die_unwind's callers): every call counted, whether it
	# returns, returns early or dies out to its caller's eval; the slow ones' time
	# as the workload measured it, and blocked in the pipe read under read_byte.
	local pl=tests/workloads/interp/pl_slow_calls.pl out=$TMP/plrl-$rel st i
	root_put "$rel" "$pl"
	# shellcheck disable=SC2086
	$run perl /stitch-tests/pl_slow_calls.pl 1000 >"$out.wl" &
	local pid=$!
	for i in $(seq 100); do grep -q ready "$out.wl" && break; sleep 0.05; done
	"$STITCH" latency -e perl:handle -p "$pid" -o "$out.json" -o "$out.folded" 2>"$out.err" &
	st=$!
	for i in $(seq 400); do grep -q 'stitch latency: timing' "$out.err" && break; sleep 0.05; done
	kill -USR1 "$pid"
	wait "$pid" || die "the workload failed"
	wait "$st" || { cat "$out.err"; die "stitch latency failed"; }
	cat "$out.wl" "$out.err"
	expect_eq "calls counted" "$(jq .calls "$out.json")" 1000
	expect_eq "calls open at the end" "$(jq .open_at_end "$out.json")" 0
	expect_slow_time "$out.json" "$out" 50
	# The designed waits' own time: 50 reads of 5 ms, 90% of it at least.  Not
	# their share of all slow time: 95-99% on a quiet machine, but in sid's perl
	# every probe is single-stepped (no instruction the kernel emulates at their
	# starts), one more return to user mode per call where a busy machine
	# preempts, and fast calls join the slow ones: 65-84% in 3 of 6 runs at load
	# average 7 on 2 CPUs, 40% beside the kernel matrix's two guests.
	expect_ge "us of the slow calls blocked reading the pipe in read_byte (the 50 designed 5 ms waits, 90%)" \
		"$(total "$out.folded" "^handle;\\[off-cpu\\];.*;main::handle \\(/stitch-tests/pl_slow_calls\\.pl:$(grep -n '# READ_CALL$' "$pl" | cut -d: -f1)\\);main::read_byte \\(/stitch-tests/pl_slow_calls\\.pl:$(grep -n '# READ_LINE$' "$pl" | cut -d: -f1)\\);.*;(anon_)?pipe_read_\\[k\\];")" \
		$((50 * WAIT_US * 90 / 100))

	# perl embedded through the release's libperl.so: built here against the root's
	# library (a release whose glibc is older than the host's cannot run it), run there.
	[ "${4:-}" = embed ] || return 0
	local lib
	lib=$(ls "$(root_of "$rel")"/usr/lib/x86_64-linux-gnu/libperl.so."$ver".* | head -1)
	gcc -O2 -g -Wall -Wextra -Werror -o "$TMP/perl_embed" tests/workloads/interp/perl_embed.c \
		"$lib" -Wl,--allow-shlib-undefined || die "cannot build perl_embed against $lib"
	root_put "$rel" "$TMP/perl_embed"
	# shellcheck disable=SC2086
	"$STITCH" record -e syscall:getppid -e syscall:write -o "$TMP/plre-$rel.folded" -- \
		$run /stitch-tests/perl_embed /stitch-tests/pl_stitch.pl threads 3 2>"$TMP/plre-$rel.err"
	cat "$TMP/plre-$rel.err"
	expect_eq "messages about perl (embedded)" "$(grep -c perl "$TMP/plre-$rel.err")" 0
	PL_COMM=perl_embed pl_check_threads "$TMP/plre-$rel.folded"
}

# RELEASE VERSION PP_HIDDEN (its perl exports no Perl_pp_* functions) embed|-
test_perl_release_bullseye() { pl_release bullseye 5.32 0 -; }
test_perl_release_trixie() { pl_release trixie 5.40 1 embed; }
test_perl_release_sid() { pl_release sid 5.42 1 embed; }
test_perl_release_experimental() { pl_release experimental 5.44 1 embed; }

# Names as perl 5.40+ prints them, in the release's root: a sub with a signature, a lexical
# sub (no package), an anonymous sub with a signature, a `class` method (Pt::poke).
# pl_names_at MARK: "file:line" of a MARK of pl_names.pl, as its frames show it in a root.
pl_names_at() {
	echo "/stitch-tests/pl_names\\.pl:$(grep -n "# MARK: $1\$" tests/workloads/interp/pl_names.pl | cut -d: -f1)"
}

pl_release_names() {
	local rel=$1 w=tests/workloads/interp/pl_names.pl
	root_put "$rel" "$w"
	# shellcheck disable=SC2046
	"$STITCH" record -e syscall:getppid -o "$TMP/pln-$rel.folded" -- \
		$(in_root_cmd "$rel") perl /stitch-tests/pl_names.pl 2
	show "$TMP/pln-$rel.folded"
	local base sig poke
	base="perl_run;<main> \\($(pl_names_at main)\\);Work::run \\($(pl_names_at run)\\);Work::__ANON__ \\($(pl_names_at anon)\\);"
	sig="${base}lex \\($(pl_names_at lex)\\);Work::sig \\($(pl_names_at sig)\\);[^;]+;getppid;"
	poke="${base}Pt::poke \\($(pl_names_at poke)\\);[^;]+;getppid;"
	expect_ge "signature sub under a lexical sub" "$(total "$TMP/pln-$rel.folded" "$sig")" 1000
	expect_ge "class method" "$(total "$TMP/pln-$rel.folded" "$poke")" 1000
	expect_eq "% of stacks with Perl frames that are one of the two" \
		"$(share "$TMP/pln-$rel.folded" "$PLFRAME" "$sig|$poke")" 100
}

test_perl_release_names_trixie() { pl_release_names trixie; }
test_perl_release_names_sid() { pl_release_names sid; }
test_perl_release_names_experimental() { pl_release_names experimental; }
