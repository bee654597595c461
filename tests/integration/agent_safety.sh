# SPDX-License-Identifier: GPL-2.0
# The agent as safe as record (issue 42): its spool never reached through a
# link nor chmod'ed, every string it pushes valid UTF-8, its labels and URLs
# checked at start.  Sourced by run.sh after agent.sh (its backends and
# helpers).

# --spool naming root's link to a directory is refused, and the directory
# keeps its mode and contents (before: /etc, named through /tmp/x, was made
# 0700 and written into).  An existing 0755 directory of ours is used as it
# is: it keeps 0755, its target's own directory inside is made 0700.
test_agent_spool_never_through_a_link_nor_chmod() {
	local port
	backend_start sdown pyroscope
	port=$(cat "$TMP/sdown.port")
	backend_stop sdown
	mkdir -p "$TMP/theirs-dir"
	chmod 0755 "$TMP/theirs-dir"
	echo keep >"$TMP/theirs-dir/theirs"
	ln -sfn "$TMP/theirs-dir" "$TMP/spool-link"
	workload_start w 12
	if "$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 2 --period 1s --spool "$TMP/spool-link" \
		--push "pyroscope=http://127.0.0.1:$port" 2>"$TMP/agentl.err"; then
		die "an agent ran with its spool through a link: $(cat "$TMP/agentl.err")"
	fi
	cat "$TMP/agentl.err"
	expect_grep "$TMP/agentl.err" "cannot use spool $TMP/spool-link: it is a symbolic link"
	expect_eq "lines said" "$(wc -l <"$TMP/agentl.err")" 1
	expect_eq "the linked directory's mode" "$(stat -c %a "$TMP/theirs-dir")" 755
	expect_eq "its contents" "$(ls -A "$TMP/theirs-dir")" theirs
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 3 --period 1s --spool "$TMP/theirs-dir" \
		--push "pyroscope=http://127.0.0.1:$port" 2>"$TMP/agents.err"
	workload_stop w
	cat "$TMP/agents.err"
	ls -la "$TMP/theirs-dir" "$TMP"/theirs-dir/pyroscope-*
	expect_eq "the existing spool's mode" "$(stat -c %a "$TMP/theirs-dir")" 755
	expect_eq "the target's directory's mode" "$(stat -c %a "$TMP"/theirs-dir/pyroscope-*)" 700
	expect_eq "pushes spooled" "$(ls "$TMP"/theirs-dir/pyroscope-*/ | grep -c '\.push$')" \
		"$(series_made "$TMP/agents.err")"
	expect_eq "their file, kept" "$(cat "$TMP/theirs-dir/theirs")" keep
}

# A process whose name is not UTF-8 (a byte 0xff, and a character the
# 15-byte comm would cut: here its lead byte alone), with a label that is
# UTF-8 beyond ASCII: every push to each backend is accepted, decoded with
# the published schemas (protobuf's strings must be UTF-8), the bad bytes
# each U+FFFD.  Before: 400 on every period from all three, the pushes
# dropped.
test_agent_non_utf8_names_pushed() {
	local k name=$'ch\xffai\xc3' clean=$'ch\xef\xbf\xbdai\xef\xbf\xbd' made w
	cp "$CHAIN" "$TMP/$name"
	for k in pyroscope otlp parca; do
		backend_start "u$k" "$k"
	done
	"$TMP/$name" spin 12 >/dev/null &
	w=$!
	track_pid $w
	"$STITCH" agent -p "$w" -d 4 --period 1s --label team=$'caf\xc3\xa9' \
		--push "pyroscope=$(url_of upyroscope)" --push "otlp=$(url_of uotlp)" \
		--push "parca=$(url_of uparca)" 2>"$TMP/agentu.err"
	kill "$w" 2>/dev/null || true
	wait "$w" 2>/dev/null || true
	for k in pyroscope otlp parca; do
		backend_stop "u$k"
	done
	cat "$TMP/agentu.err"
	made=$(series_made "$TMP/agentu.err")
	expect_ge "series made" "$made" 3
	expect_eq "pushes refused" "$(grep -c 'refused' "$TMP/agentu.err")" 0
	for k in pyroscope otlp parca; do
		profiles "$TMP/u$k.jsonl" >"$TMP/u$k.prof"
		cat "$TMP/u$k.prof"
		expect_eq "$k: series received, of those made" "$(wc -l <"$TMP/u$k.prof")" "$made"
		expect_eq "$k: series not named $clean" \
			"$(awk -v s="$clean" '$5 != s' "$TMP/u$k.prof" | wc -l)" 0
		expect_eq "$k: series without team=café" \
			"$(grep -cv "team=caf"$'\xc3\xa9' "$TMP/u$k.prof")" 0
	done
}

# What can never work is said at start, in one line, and nothing runs: a
# label value that is not UTF-8, a backend's own name (__x), one the agent
# sets per process, a name given twice; a URL with no host or a port out of
# range (before, retried forever).  host_name=X replaces the hostname.
test_agent_labels_and_urls_checked_at_start() {
	local bad arg
	for bad in "--label k=$(printf '\xff')" "--label __x=1" "--label container_id=1" \
		"--label a=1 --label a=2" "--label service_name=a --label service_name=b" \
		"--push pyroscope=http://" "--push pyroscope=http://h:99999" \
		"--push pyroscope=http://h:0" "--push pyroscope=http://:80" "--push otlp=http://[::1" \
		"--push parca=http://h:8x"; do
		# shellcheck disable=SC2086 # each case is a list of arguments
		set -- $bad
		[ "$1" = --label ] && set -- "$@" --push "pyroscope=http://127.0.0.1:1"
		if "$STITCH" agent -d 1 "$@" 2>"$TMP/agentc.err"; then
			die "'$bad' was taken"
		fi
		arg=$(cat "$TMP/agentc.err")
		echo "$bad: $arg"
		expect_grep "$TMP/agentc.err" '^stitch agent: --(label|push)'
	done
	backend_start hn pyroscope
	workload_start w 10
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 3 --period 1s --label host_name=web-7 \
		--push "pyroscope=$(url_of hn)" 2>"$TMP/agenth.err"
	workload_stop w
	backend_stop hn
	cat "$TMP/agenth.err"
	profiles "$TMP/hn.jsonl" >"$TMP/hn.prof"
	cat "$TMP/hn.prof"
	expect_ge "series received" "$(wc -l <"$TMP/hn.prof")" 1
	expect_eq "series not of host web-7" "$(awk '$6 != "web-7"' "$TMP/hn.prof" | wc -l)" 0
}

# During an outage every push made goes to the spool at once: SIGKILL (as
# the OOM killer would) loses only the period being built, and a restart
# delivers each spooled one, once.  Before: they waited in memory (32 MiB)
# and died with the agent.
test_agent_sigkill_in_outage_loses_nothing() {
	local port agent n=0 i
	backend_start kdown pyroscope
	port=$(cat "$TMP/kdown.port")
	backend_stop kdown
	workload_start w 40
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" --period 1s --spool "$TMP/kill-spool" \
		--push "pyroscope=http://127.0.0.1:$port" 2>"$TMP/agentk.err" &
	agent=$!
	for i in $(seq 200); do
		n=$(ls "$TMP"/kill-spool/pyroscope-*/ 2>/dev/null | grep -c '\.push$' || true)
		[ "$n" -ge 3 ] && break
		sleep 0.1
	done
	kill -KILL $agent
	wait $agent 2>/dev/null || true
	cat "$TMP/agentk.err"
	n=$(ls "$TMP"/kill-spool/pyroscope-*/ | grep -c '\.push$')
	expect_ge "pushes in the spool at the kill" "$n" 3
	backend_start kback pyroscope "$port"
	"$STITCH" agent -p "$(cat "$TMP/w.wpid")" -d 2 --period 60s --spool "$TMP/kill-spool" \
		--push "pyroscope=http://127.0.0.1:$port" 2>"$TMP/agentk2.err"
	workload_stop w
	backend_stop kback
	cat "$TMP/agentk2.err"
	expect_grep "$TMP/agentk2.err" "$n push(es)? left in the spool .* go first"
	expect_eq "periods received, each once: the spooled ones and the new one" \
		"$(periods_once "after the kill" "$TMP/kback.jsonl")" "$((n + 1))"
}

# A container's filesystem unmounts seconds after its last process exits,
# with the agent still running (before: the agent held the binaries of
# exited processes open, and their root, for as long as their unwind tables
# were kept: umount failed with EBUSY until it exited).  The container is a
# tmpfs holding chain and the libraries it loads, its processes chroot'ed
# into it, sampled, walked and named (their frames pushed) as any other.
test_agent_container_fs_unmounts_after_exit() {
	local mnt=$TMP/ctr-fs lib agent t0 ms i pids=()
	mkdir -p "$mnt"
	mount -t tmpfs -o size=64m stitch-ctr "$mnt"
	mkdir -p "$mnt/bin"
	cp "$CHAIN" "$mnt/bin/chain"
	for lib in $(ldd "$CHAIN" | grep -o '/[^ ]*'); do
		mkdir -p "$mnt$(dirname "$lib")"
		cp "$lib" "$mnt$lib"
	done
	backend_start umnt pyroscope
	"$STITCH" agent -a -F 99 --period 1s --push "pyroscope=$(url_of umnt)" 2>"$TMP/umnt.err" &
	agent=$!
	track_pid $agent
	sleep 2
	for i in 1 2 3 4; do
		chroot "$mnt" /bin/chain spin 2 >/dev/null &
		pids+=($!)
	done
	wait "${pids[@]}"
	t0=$(date +%s%N)
	until umount "$mnt" 2>/dev/null; do
		ms=$((($(date +%s%N) - t0) / 1000000))
		if [ "$ms" -gt 30000 ]; then
			echo "held by the agent after $ms ms:"
			ls -l "/proc/$agent/fd" | grep -F "$mnt" || true
			grep -F "$mnt" "/proc/$agent/maps" || true
			umount -l "$mnt"
			die "the container's filesystem still busy 30 s after its processes exited"
		fi
		sleep 0.2
	done
	ms=$((($(date +%s%N) - t0) / 1000000))
	echo "unmounted $ms ms after the container's last process exited"
	kill -0 "$agent" || die "the agent exited: $(tail -n 5 "$TMP/umnt.err")"
	kill -TERM "$agent"
	wait "$agent"
	backend_stop umnt
	tail -n 3 "$TMP/umnt.err"
	"$PY" "$PUSHES" folded "$TMP/umnt.jsonl" | grep ';chain;' >"$TMP/umnt.folded" || true
	show "$TMP/umnt.folded" 5
	expect_ge "samples of the container's chain under main;a;b;c;burn" \
		"$(grep -E ';main;a;b;c;burn(;|\s)' "$TMP/umnt.folded" | awk '{ s += $NF } END { print s + 0 }')" 100
}

# A binary let go of once its process exited (its table kept) is opened
# again through the next process that maps it, and that process's frames
# are named as the first's: the same file run again under another name (a
# hard link: the same inode, so the same binary to stitch), after the
# agent closed it.
test_agent_binary_reopened_after_release() {
	local agent i
	cp "$CHAIN" "$TMP/reuse-a"
	ln -f "$TMP/reuse-a" "$TMP/reuse-b"
	backend_start reuse pyroscope
	"$STITCH" agent -a -F 99 --period 1s --push "pyroscope=$(url_of reuse)" 2>"$TMP/reuse.err" &
	agent=$!
	track_pid $agent
	sleep 2
	"$TMP/reuse-a" spin 2 >/dev/null
	for i in $(seq 150); do
		ls -l "/proc/$agent/fd" | grep -q -F "$TMP/reuse-" || break
		sleep 0.2
	done
	ls -l "/proc/$agent/fd" | grep -F "$TMP/reuse-" &&
		die "the agent still holds the binary 30 s after its process exited"
	"$TMP/reuse-b" spin 2 >/dev/null
	sleep 2
	kill -TERM "$agent"
	wait "$agent"
	backend_stop reuse
	tail -n 3 "$TMP/reuse.err"
	"$PY" "$PUSHES" folded "$TMP/reuse.jsonl" | grep ';reuse-[ab];' >"$TMP/reuse.folded" || true
	show "$TMP/reuse.folded" 6
	# Shares, and a count well under 2 s at 99 Hz: a starved CPU (the
	# sanitizer pass beside the kernel matrix's guests) gave 100 of ~198.
	for i in a b; do
		expect_ge "samples of reuse-$i" "$(total "$TMP/reuse.folded" ";reuse-$i;")" 20
		expect_ge "% of reuse-$i's samples under main;a;b;c;burn" \
			"$(share "$TMP/reuse.folded" ";reuse-$i;" ";reuse-$i;.*;main;a;b;c;burn(;| )")" 95
	done
}

# A Ruby C method goes before its own C function's frame, found by the start
# of the function in libruby's .eh_frame_hdr.  That index pointed into the
# file's image, which went when the agent let the file go: a Ruby started
# after had its C methods placed by reading unmapped memory (the agent's
# SIGSEGV under a bench's ruby runs).  Now the index is the binary's own
# copy: two Rubies apart, the second after libruby was let go, both with
# Integer#times where it belongs (three of the VM's frames below burn, two
# above the block).
# A period is pushed as one profile per service, each named in turn: a
# binary of exited processes that two services shared was read, let go
# after the first's naming, and read again for the second's (a build's
# libz, libc's debug file, once per service a period).  The whole period's
# frames are named first now: here chain, run under two names (two
# services, one file), is read once and named in both.
test_agent_binary_shared_by_services_read_once() {
	local agent
	ln -sf "$CHAIN" "$TMP/svc_a"
	ln -sf "$CHAIN" "$TMP/svc_b"
	backend_start shared pyroscope
	STITCH_DEBUG=1 "$STITCH" agent -a -F 99 --period 60s --push "pyroscope=$(url_of shared)" \
		2>"$TMP/shared.err" &
	agent=$!
	track_pid $agent
	wait_for_prog_run 'on_perf_event|capture_[a-z_]*'
	"$TMP/svc_a" spin 0.5
	"$TMP/svc_b" spin 0.5
	# Past their grace (5 s, reclaim.c) both are gone: their binary is
	# let go once named.  SIGTERM pushes the one period.
	sleep $((8 * SLOWDOWN))
	kill -TERM "$agent"
	wait "$agent"
	backend_stop shared
	grep -F "symbols of $CHAIN" "$TMP/shared.err" || true
	"$PY" "$PUSHES" folded "$TMP/shared.jsonl" | grep ';main;a;b;c;burn' >"$TMP/shared.folded" || true
	show "$TMP/shared.folded" 4
	expect_ge "svc_a's samples named" "$(total "$TMP/shared.folded" '^pyroscope;svc_a;')" 10
	expect_ge "svc_b's samples named" "$(total "$TMP/shared.folded" '^pyroscope;svc_b;')" 10
	expect_eq "times chain's symbols were read" \
		"$(grep -c -F "stitch: symbols of $CHAIN read to name its frames" "$TMP/shared.err")" 1
}

test_agent_ruby_c_methods_after_release() {
	local agent i rb=/usr/bin/ruby3.1
	[ -x "$rb" ] || die "needs $rb (scripts/install-deps.sh)"
	for i in a b; do
		cat >"$TMP/rb_$i.rb" <<-EOF
		def burn_$i
		  t = Time.now
		  while Time.now - t < 2
		    1000.times { |i| i * i }
		  end
		end
		burn_$i
		EOF
	done
	backend_start rbrel pyroscope
	"$STITCH" agent -a -F 99 --period 1s --push "pyroscope=$(url_of rbrel)" 2>"$TMP/rbrel.err" &
	agent=$!
	track_pid $agent
	sleep 2
	"$rb" "$TMP/rb_a.rb"
	for i in $(seq 150); do
		ls -l "/proc/$agent/fd" | grep -q -F libruby || break
		sleep 0.2
	done
	ls -l "/proc/$agent/fd" | grep -F libruby &&
		die "the agent still holds libruby 30 s after its process exited"
	"$rb" "$TMP/rb_b.rb"
	sleep 2
	kill -0 "$agent" || die "the agent died: $(tail -n 5 "$TMP/rbrel.err")"
	kill -TERM "$agent"
	wait "$agent"
	backend_stop rbrel
	tail -n 3 "$TMP/rbrel.err"
	"$PY" "$PUSHES" folded "$TMP/rbrel.jsonl" | grep 'block in burn' >"$TMP/rbrel.folded" || true
	show "$TMP/rbrel.folded" 6
	local lib='libruby-3\.1\.so[^;]*'
	for i in a b; do
		expect_ge "samples of burn_$i's block" "$(total "$TMP/rbrel.folded" ";block in burn_$i")" 20
		expect_ge "% of burn_$i's block with Integer#times in place" \
			"$(share "$TMP/rbrel.folded" ";block in burn_$i" \
				";burn_$i;$lib;$lib;$lib;Integer#times;$lib;$lib;block in burn_$i")" 95
	done
}
