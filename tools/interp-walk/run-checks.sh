#!/usr/bin/env bash
# Walk known interpreter stacks from outside and assert them exactly, per thread.
# Needs (scripts/install-deps.sh, "interpreter frames"): pyenv 3.12.1 and 3.13.0, python3.11 python3.11-dev ruby3.1
# ruby3.1-dev perl libperl5.36 libelf-dev libc6-dbg (the glibc offsets were read from its DWARF; not needed here).
# Env: WALKS (default 20) walks per thread and mode. Prints "interp: N passed, M failed".
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$root/build/interp-walk
wl=$root/tests/workloads/interp
walks=${WALKS:-20}
pass=0 fail=0 truncs=0
pids=()
mkdir -p "$out"
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done; }
trap cleanup EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# ---- build and offset checks ----
if gcc -O2 -Wall -Wextra -Werror -o "$out/interp-walk" "$here/interp-walk.c" -lelf; then ok; else bad "build interp-walk"; fi
if gcc -I/usr/include/python3.11 -o "$out/offsets-python" "$here/offsets-python.c" &&
	"$out/offsets-python" > "$out/offsets-python.txt"; then ok; else bad "python311.h vs python3.11-dev headers"; grep MISMATCH "$out/offsets-python.txt"; fi
# CPython 3.8 - 3.10 (python_versions.c) vs their own headers: pyenv builds, bullseye's dev root.
if "$here/offsets-python-old.sh" > "$out/offsets-python-old.txt"; then ok; else bad "python 3.8 - 3.10 entries vs their headers"; fi
grep -E '^(ok|FAIL|not checked)' "$out/offsets-python-old.txt"
rbinc=/usr/include/x86_64-linux-gnu/ruby-3.1.0
rbhdr=$(cd "$rbinc" 2>/dev/null && ls rb_mjit_min_header-3.1.*.h 2>/dev/null | head -1)
if [ -n "$rbhdr" ] && gcc -w -I"$rbinc" -DRB_MJIT_HEADER="\"$rbhdr\"" -o "$out/offsets-ruby" "$here/offsets-ruby.c" -lruby-3.1 &&
	"$out/offsets-ruby" > "$out/offsets-ruby.txt"; then ok; else bad "ruby31.h vs ${rbhdr:-rb_mjit_min_header-3.1.N.h (ruby3.1-dev missing?)}"; grep MISMATCH "$out/offsets-ruby.txt"; fi
plcore=$(perl -MConfig -e 'print "$Config{archlib}/CORE"' 2>/dev/null)
plflags=$(perl -MConfig -e 'print $Config{ccflags}' 2>/dev/null)
# shellcheck disable=SC2086 # ccflags is a list of flags
if [ -f "$plcore/perl.h" ] && gcc $plflags -I"$plcore" -I"$here" -o "$out/offsets-perl" "$here/offsets-perl.c" &&
	"$out/offsets-perl" > "$out/offsets-perl.txt"; then ok; else bad "perl536.h vs ${plcore:-perl}/perl.h (libperl5.36 missing?)"; grep MISMATCH "$out/offsets-perl.txt"; fi
# The same table on arm64 (perl_layout.h's PERL_PAST_START_ENV): cross-compiled against
# libperl5.36:arm64's headers (install-deps puts them beside amd64's), run under qemu-user.
plcore64=/usr/lib/aarch64-linux-gnu/perl/5.36.0/CORE
# shellcheck disable=SC2086 # ccflags is a list of flags
if [ -f "$plcore64/perl.h" ] && aarch64-linux-gnu-gcc $plflags -I"$plcore64" -I"$here" \
	-o "$out/offsets-perl-arm64" "$here/offsets-perl.c" &&
	"$out/offsets-perl-arm64" > "$out/offsets-perl-arm64.txt" &&
	grep -q "^ok major=36 " "$out/offsets-perl-arm64.txt"; then ok; else bad "perl536.h vs $plcore64/perl.h on arm64 (libperl5.36:arm64, gcc-aarch64-linux-gnu, qemu-user-static missing?)"; grep MISMATCH "$out/offsets-perl-arm64.txt"; fi
# The other perls' tables: the same offsets-perl.c (it picks the table of the PERL_VERSION it
# is compiled against), compiled and run inside each release's dev root (gcc, libperl5.N with
# CORE/*.h) with that perl's own ccflags.  STITCH_NO_DEV_ROOTS=1 says they are not there.
devroots=${STITCH_DEV_ROOTS:-${STITCH_ROOTS:-/var/cache/stitch/roots}/dev}
for rel in bullseye:5.32 trixie:5.40 sid:5.42; do
	r=$devroots/${rel%%:*} v=${rel##*:}
	if [ "${STITCH_NO_DEV_ROOTS:-}" = 1 ]; then echo "SKIP (STITCH_NO_DEV_ROOTS): perl $v offsets"; continue; fi
	if [ ! -x "$r/usr/bin/gcc" ]; then bad "perl $v offsets: no dev root $r (STITCH_NO_DEV_ROOTS=1 to skip)"; continue; fi
	mkdir -p "$r/tmp/stitch-offsets"
	cp "$here/offsets-perl.c" "$here"/perl_layout.h "$here"/perl5*.h "$r/tmp/stitch-offsets/"
	# shellcheck disable=SC2016 # expanded inside the root
	if chroot "$r" sh -c 'cd /tmp/stitch-offsets && gcc -O2 -Wall -Werror $(perl -MConfig -e "print \$Config{ccflags}") -I"$(perl -MConfig -e "print \$Config{archlib}")/CORE" -o offsets-perl offsets-perl.c && ./offsets-perl' > "$out/offsets-perl-$v.txt" &&
		grep -q "^ok major=${v#5.} " "$out/offsets-perl-$v.txt"; then ok; else bad "perl$(echo "$v" | tr -d .).h vs $r's perl $v headers"; grep MISMATCH "$out/offsets-perl-$v.txt"; fi
done
# 5.44: the experimental dev root has libperl5.44's CORE/*.h but no gcc: compiled here (amd64
# as that root) against its headers with its perl's own ccflags, run here.
r=$devroots/experimental
if [ "${STITCH_NO_DEV_ROOTS:-}" = 1 ]; then
	echo "SKIP (STITCH_NO_DEV_ROOTS): perl 5.44 offsets"
elif [ ! -f "$r/usr/lib/x86_64-linux-gnu/perl/5.44.0/CORE/perl.h" ]; then
	bad "perl 5.44 offsets: no $r/usr/lib/x86_64-linux-gnu/perl/5.44.0/CORE (STITCH_NO_DEV_ROOTS=1 to skip)"
else
	# shellcheck disable=SC2046,SC2016 # ccflags is a list of flags, expanded by perl
	if gcc -O2 -Wall -Werror $(unshare --mount --root="$r" perl -MConfig -e 'print $Config{ccflags}') \
		-I"$r/usr/lib/x86_64-linux-gnu/perl/5.44.0/CORE" -I"$here" -o "$out/offsets-perl-5.44" \
		"$here/offsets-perl.c" && "$out/offsets-perl-5.44" > "$out/offsets-perl-5.44.txt" &&
		grep -q "^ok major=44 " "$out/offsets-perl-5.44.txt"; then ok; else bad "perl544.h vs $r's perl 5.44 headers"; grep MISMATCH "$out/offsets-perl-5.44.txt"; fi
fi
# CPython 3.12 and 3.13 (src/interp/python/python_offsets_new.h): pyenv builds' headers,
# and Debian trixie's python3.13-dev compiled inside its development root.
pyinc=$root/src/interp/python
for v in 3.12.1:312 3.13.0:313; do
	d=/root/.pyenv/versions/${v%%:*}/include/python$(echo "${v%%:*}" | cut -d. -f1,2)
	if gcc -DPYV="${v##*:}" -I"$pyinc" -I"$d" -o "$out/offsets-python-${v##*:}" "$here/offsets-python-new.c" &&
		"$out/offsets-python-${v##*:}" > "$out/offsets-python-${v##*:}.txt"; then ok; else bad "python_offsets_new.h vs $d"; grep MISMATCH "$out/offsets-python-${v##*:}.txt"; fi
done
# Debian releases' own -dev headers, compiled inside their development roots.
for r in trixie:3.13:313 sid:3.14:314 sid:3.15:315; do
	rel=${r%%:*} v=$(echo "$r" | cut -d: -f2) n=${r##*:}
	rd=$devroots/$rel
	if [ -d "$rd/usr/include/python$v" ]; then
		mkdir -p "$rd/tmp/stitch-offsets"
		cp "$here/offsets-python-new.c" "$pyinc/python_offsets_new.h" "$rd/tmp/stitch-offsets/"
		if chroot "$rd" gcc -DPYV="$n" -I"/usr/include/python$v" -I/tmp/stitch-offsets \
			-o /tmp/stitch-offsets/check /tmp/stitch-offsets/offsets-python-new.c &&
			chroot "$rd" /tmp/stitch-offsets/check > "$out/offsets-python-$n-$rel.txt"; then ok; else bad "python_offsets_new.h vs $rel's python$v-dev"; grep MISMATCH "$out/offsets-python-$n-$rel.txt"; fi
	else
		bad "$rel's python $v headers: no development root at $rd (make roots)"
	fi
done
[ -x "$out/interp-walk" ] || { echo "interp: $pass passed, $fail failed"; exit 1; }

# line of "MARK: name" in a file
mark() { grep -n "MARK: $2\$" "$1" | head -1 | cut -d: -f1; }

# start WORKLOAD-CMD...; sets wpid and tids (main a b [c]) from its "ready" line
start() {
	local log=$out/ready.$$ i
	: > "$log"
	"$@" > "$log" 2>/dev/null &
	wpid=$!
	pids+=("$wpid")
	for i in $(seq 100); do grep -q '^ready' "$log" && break; sleep 0.1; done
	# The line is out before the main thread is back from writing it: a CI
	# run walked it in IO#flush (a true stack, not the expected wait).
	sleep 0.3
	read -r _ tmain ta tb tc < <(sed 's/[a-z]*=//g' "$log")
	[ -n "${tb:-}" ]
}

# check NAME OPTIONAL_INNERMOST EXPECTED_FILE OUTPUT_FILE RC
# Exact match, optionally with one extra innermost cfunc line; a "[truncated" last line is
# accepted only after a correct prefix (never a wrong frame).
check() {
	local name=$1 opt=$2 exp=$3 got=$4 rc=$5 body=$out/body.$$
	if [ -n "$opt" ] && [ "$(head -1 "$got")" = "$opt" ]; then tail -n +2 "$got" > "$body"; else cp "$got" "$body"; fi
	if [ "$rc" = 0 ] && cmp -s "$body" "$exp"; then ok; return; fi
	if [ "$rc" = 3 ] && tail -1 "$body" | grep -q '^\[truncated'; then
		local n
		n=$(($(wc -l < "$body") - 1))
		if cmp -s <(head -n "$n" "$body") <(head -n "$n" "$exp"); then truncs=$((truncs + 1)); ok; return; fi
	fi
	bad "$name: walk (rc $rc) differs from expected"
	diff "$exp" "$got" | head -20
}

# walk_all LABEL TID OPTIONAL EXPECTED: WALKS stopped walks + WALKS walks of the running thread
walk_all() {
	local label=$1 tid=$2 opt=$3 exp=$4 i rc
	for i in $(seq "$walks"); do
		"$out/interp-walk" "$wpid" "$tid" > "$out/got" 2> "$out/err"; rc=$?
		check "$label stopped #$i" "$opt" "$exp" "$out/got" "$rc"
		"$out/interp-walk" -n "$wpid" "$tid" > "$out/got" 2> "$out/err"; rc=$?
		check "$label running #$i" "$opt" "$exp" "$out/got" "$rc"
	done
}

# ---- CPython 3.11 ----
py=/usr/bin/python3.11
if [ -x $py ]; then
	f=$wl/py_threads.py
	thr=$($py -c 'import threading; print(threading.__file__)')
	tl() { grep -n -F "$1" "$thr" | head -1 | cut -d: -f1; }
	boot="Thread.run ($thr:$(tl 'self._target(*self._args, **self._kwargs)'))
Thread._bootstrap_inner ($thr:$(tl '                self.run()'))
Thread._bootstrap ($thr:$(tl '            self._bootstrap_inner()'))"
	if start $py "$f"; then
		printf '%s\n' "main_wait ($f:$(mark "$f" m_wait))" "main ($f:$(mark "$f" m_main))" \
			"<module> ($f:$(mark "$f" m_module))" > "$out/py.main"
		printf '%s\n' "inner_a.<locals>.<lambda>.<locals>.<listcomp> ($f:$(mark "$f" a_lambda))" \
			"inner_a.<locals>.<lambda> ($f:$(mark "$f" a_lambda))" "inner_a ($f:$(mark "$f" a_inner))" \
			"outer_a ($f:$(mark "$f" a_outer))" "$boot" > "$out/py.a"
		printf '%s\n' "Worker.step ($f:$(mark "$f" b_step))" "Worker.run ($f:$(mark "$f" b_run))" "$boot" > "$out/py.b"
		walk_all "python main" "$tmain" "" "$out/py.main"
		walk_all "python A" "$ta" "" "$out/py.a"
		walk_all "python B" "$tb" "" "$out/py.b"
		kill "$wpid"
	else
		bad "python workload did not start"
	fi
else
	bad "no $py"
fi

# ---- Ruby 3.1 ----
rb=/usr/bin/ruby3.1
if [ -x $rb ]; then
	f=$wl/rb_threads.rb
	if start $rb "$f"; then
		printf '%s\n' "main_wait ($f:$(mark "$f" m_wait))" "<main> ($f:$(mark "$f" m_main))" > "$out/rb.main"
		# Names as Ruby 3.4's backtraces print them: Class#method, Klass.method for a
		# singleton method, the plain name for top-level methods (owner Object).
		printf '%s\n' "Work::Pinger#spin_a ($f:$(mark "$f" a_spin))" \
			"block in Work::Pinger#run ($f:$(mark "$f" a_block))" \
			"Array#each ($f:$(mark "$f" a_each))" "Work::Pinger#run ($f:$(mark "$f" a_each))" \
			"block in <main> ($f:$(mark "$f" a_thread))" > "$out/rb.a"
		printf '%s\n' "spin_b ($f:$(mark "$f" b_spin))" "block in writer_b ($f:$(mark "$f" b_block))" \
			"Integer#times ($f:$(mark "$f" b_block))" "writer_b ($f:$(mark "$f" b_block))" \
			"block in <main> ($f:$(mark "$f" b_thread))" > "$out/rb.b"
		walk_all "ruby main" "$tmain" "Kernel#sleep ($f:$(mark "$f" m_wait))" "$out/rb.main"
		walk_all "ruby A" "$ta" "Process.pid ($f:$(mark "$f" a_spin))" "$out/rb.a"
		walk_all "ruby B" "$tb" "IO#write ($f:$(mark "$f" b_spin))" "$out/rb.b"
		kill "$wpid"
	else
		bad "ruby workload did not start"
	fi
else
	bad "no $rb"
fi

# ---- Perl (ithreads: each thread its own interpreter) ----
# pl_expect FILE: the four threads' expected walks of pl_threads.pl, FILE as the frames name it
# (the host's path, or the path inside a release root), into $out/pl.{main,a,b,c}.
pl_expect() {
	local f=$1 h=$wl/pl_threads.pl
	printf '%s\n' "Handler::on_alarm ($f:$(mark "$h" m_handler))" "[from C]" \
		"(eval) ($f:$(mark "$h" m_spin))" "[from C]" "[stackinfo SIGNAL]" \
		"main::main_spin ($f:$(mark "$h" m_spin))" "(eval) (string-eval:1)" \
		"main::from_string ($f:$(mark "$h" m_string))" "(eval) ($f:$(mark "$h" m_main))" \
		"<main> ($f:$(mark "$h" m_main))" > "$out/pl.main"
	printf '%s\n' "Work::Sorter::key_of ($f:$(mark "$h" a_spin))" "[stackinfo SORT]" \
		"Work::Sorter::__ANON__ ($f:$(mark "$h" a_sort))" "Work::Sorter::start ($f:$(mark "$h" a_call))" \
		"[from C]" "(eval) ($f:$(mark "$h" a_create))" "[from C]" > "$out/pl.a"
	printf '%s\n' "Work::Guard::DESTROY ($f:$(mark "$h" b_spin))" "[from C]" \
		"(eval) ($f:$(mark "$h" b_scope))" "[from C]" "[stackinfo DESTROY]" \
		"Work::Writer::guarded ($f:$(mark "$h" b_scope))" \
		"Work::Writer::GUARD ($f:$(($(mark "$h" b_picture) + 1)))" \
		"scoped ($f:$(mark "$h" b_write))" "Work::Writer::start ($f:$(mark "$h" b_call))" \
		"[from C]" "(eval) ($f:$(mark "$h" b_create))" "[from C]" > "$out/pl.b"
	printf '%s\n' "Work::Tied::FETCH ($f:$(mark "$h" c_fetch))" "[from C]" "[stackinfo MAGIC]" \
		"Work::Lister::tied_read ($f:$(mark "$h" c_tied))" "Work::Lister::__ANON__ ($f:$(mark "$h" c_first))" \
		"[from C]" "[stackinfo MULTICALL]" "Work::Lister::start ($f:$(mark "$h" c_first))" \
		"[from C]" "(eval) ($f:$(mark "$h" c_create))" "[from C]" > "$out/pl.c"
}
pl=/usr/bin/perl
if [ -x $pl ]; then
	f=$wl/pl_threads.pl
	if start $pl "$f"; then
		pl_expect "$f"
		walk_all "perl main" "$tmain" "" "$out/pl.main"
		walk_all "perl A" "$ta" "" "$out/pl.a"
		walk_all "perl B" "$tb" "" "$out/pl.b"
		walk_all "perl C" "$tc" "" "$out/pl.c"
		# Fault injection: make each read of the walk fail in turn (-F N); every such walk
		# must end "[truncated: ...]" after a correct prefix.
		for t in "main $tmain" "A $ta" "B $tb" "C $tc"; do
			set -- $t
			reads=$("$out/interp-walk" -v "$wpid" "$2" 2>&1 >/dev/null | sed -n 's/.*# \([0-9]*\) reads of target memory/\1/p')
			if [ -z "$reads" ] || [ "$reads" -lt 20 ]; then bad "perl $1: read count '$reads'"; continue; fi
			for n in $(seq "$reads"); do
				"$out/interp-walk" -F "$n" "$wpid" "$2" > "$out/got" 2> "$out/err"; rc=$?
				if [ "$rc" != 3 ]; then bad "perl $1 -F $n: rc $rc, not a truncated walk"; cat "$out/got"; continue; fi
				truncs=$((truncs - 1))
				check "perl $1 -F $n" "" "$out/pl.$(echo "$1" | tr 'A-Z' 'a-z')" "$out/got" "$rc"
			done
		done
		kill "$wpid"
	else
		bad "perl workload did not start"
	fi
else
	bad "no $pl"
fi

# ---- Perl 5.32, 5.40, 5.42, 5.44 in their release roots (unshare --mount --root, as a container) ----
# The same four threads and chains through each version's table: 5.32's interpreter from
# TSD alone and its stash names after the bucket array; 5.40/5.42/5.44's other offsets.
for rel in bullseye:5.32 trixie:5.40 sid:5.42 experimental:5.44; do
	r=$devroots/${rel%%:*} v=${rel##*:}
	[ "${STITCH_NO_DEV_ROOTS:-}" = 1 ] && continue
	if [ ! -x "$r/usr/bin/perl" ]; then bad "perl $v: no root $r"; continue; fi
	mkdir -p "$r/tmp/stitch-walk" && cp "$wl/pl_threads.pl" "$r/tmp/stitch-walk/"
	if start unshare --mount --root="$r" perl /tmp/stitch-walk/pl_threads.pl; then
		pl_expect /tmp/stitch-walk/pl_threads.pl
		walk_all "perl $v main" "$tmain" "" "$out/pl.main"
		walk_all "perl $v A" "$ta" "" "$out/pl.a"
		walk_all "perl $v B" "$tb" "" "$out/pl.b"
		walk_all "perl $v C" "$tc" "" "$out/pl.c"
		kill "$wpid"
	else
		bad "perl $v workload did not start"
	fi
done

# ---- Perl 5.36, a thread that enters and leaves subs all the time ----
# Every walk (stopped or running) must be one of the three real stacks, or a truncated
# prefix of one: never a sub shown with another sub's line.
if [ -x $pl ]; then
	f=$wl/pl_churn.pl
	if start $pl "$f"; then
		c0="<main> ($f:$(mark "$f" c_loop))"
		c1="main::mid ($f:$(mark "$f" c_mid))"
		c2="main::leaf ($f:$(mark "$f" c_leaf))"
		printf '%s\n' "$c0" > "$out/churn.0"
		printf '%s\n' "$c1" "$c0" > "$out/churn.1"
		printf '%s\n' "$c2" "$c1" "$c0" > "$out/churn.2"
		for i in $(seq $((walks * 2))); do
			for mode in "" -n; do
				# shellcheck disable=SC2086 # mode is empty or one flag
				"$out/interp-walk" $mode "$wpid" "$tmain" > "$out/got" 2> "$out/err"; rc=$?
				matched=
				for k in 0 1 2; do
					if [ "$rc" = 0 ] && cmp -s "$out/got" "$out/churn.$k"; then matched=1; break; fi
					if [ "$rc" = 3 ] && tail -1 "$out/got" | grep -q '^\[truncated' &&
						n=$(($(wc -l < "$out/got") - 1)) &&
						cmp -s <(head -n "$n" "$out/got") <(head -n "$n" "$out/churn.$k"); then
						matched=1; truncs=$((truncs + 1)); break
					fi
				done
				if [ -n "$matched" ]; then ok; else bad "perl churn walk${mode:+ ($mode)} #$i (rc $rc):"; cat "$out/got"; fi
			done
		done
		kill "$wpid"
	else
		bad "perl churn workload did not start"
	fi
fi

# ---- Perl 5.36, recursion deeper than the walker's 128 frames: the innermost 128, marked ----
if [ -x $pl ]; then
	# shellcheck disable=SC2016 # perl code, not shell
	if start $pl -e 'no warnings "recursion"; $| = 1;
sub rec { my $n = shift; if ($n) { rec($n - 1) } else { print "ready main=", syscall(186), " a=0 b=0\n"; while (1) {} } }
rec(200);'; then
		{ for i in $(seq 128); do echo "main::rec (-e:2)"; done; echo "[truncated: more than 128 frames]"; } > "$out/deep"
		"$out/interp-walk" "$wpid" "$tmain" > "$out/got" 2> "$out/err"; rc=$?
		if [ "$rc" = 3 ] && cmp -s "$out/got" "$out/deep"; then ok; else bad "perl deep recursion (rc $rc)"; head -3 "$out/got"; tail -2 "$out/got"; fi
		kill "$wpid"
	else
		bad "perl recursion workload did not start"
	fi
fi

echo "interp: $pass passed, $fail failed ($truncs racing walks ended truncated)"
[ "$fail" = 0 ]
