# SPDX-License-Identifier: GPL-2.0
# Kernel functions by kprobe (sourced by run.sh, after latency.sh): record -e
# kprobe:FUNCTION and latency -e kprobe:FUNCTION (a kprobe and a kretprobe).
# Run on the kernel matrix's kernels (tests/vm/matrix.sh), which have
# kprobes; this VM's kernel has none, and test_bad_input_errors and
# test_latency_errors check that both commands say so.

# Every getppid(2) of the chain, stopped at the kernel function that serves it:
# the user frames down to _start, then the syscall's entry and the function.
test_kprobe_stacks() {
	"$STITCH" record -e "kprobe:${KSYS}getppid" -o "$TMP/kp.folded" -- "$CHAIN" syscall 1
	show "$TMP/kp.folded"
	expect_ge "getppid calls" "$(total "$TMP/kp.folded" '^chain;')" 1000
	# __do_sys_getppid is the same code (one address, three names: the kernel's
	# own %pB says __do_sys_getppid on 6.1).
	expect_ge "% from _start through main;a;b;c;getppid into ${KSYS}getppid" \
		"$(share "$TMP/kp.folded" '^chain;' "$COMPLETE;main;a;b;c;getppid;entry_SYSCALL_64_after_hwframe_\\[k\\];do_syscall_64_\\[k\\];(.*;)?__(x64|do)_sys_getppid_\\[k\\] [0-9]+$")" 99
	no_programs_left
}

# vfs_read timed by kprobe and kretprobe in the pipe workload: the slow calls
# are the workload's own, their time blocked in the pipe under read_byte.
test_latency_kprobe_root() {
	lat_run pipe 1000 "$TMP/lkp" -- -e kprobe:vfs_read -o "$TMP/lkp.json" -o "$TMP/lkp.folded"
	expect_ge "vfs_read calls" "$(jq .calls "$TMP/lkp.json")" 1000
	expect_slow_count "$TMP/lkp.json" "$TMP/lkp" 50
	expect_slow_share "% of the slow calls' time blocked in the pipe read under read_byte" 50 \
		"$TMP/lkp.folded" ';main;read_byte;read;.*vfs_read_\[k\];.*pipe_read_\[k\];'
	no_programs_left
}

# --fetch on a kprobe: the kernel function's arguments by name and type from
# the kernel's BTF: a __user string (the path the workload opened) and a
# member of a struct the kernel built (the open flags, with O_LARGEFILE the
# kernel adds on 64-bit: 0100000 on x86-64, 0400000 on arm64).
test_kprobe_fetch_args() {
	local f=$TMP/kprobe-fetched.txt largefile=32768
	[ "$TEST_ARCH" = arm64 ] && largefile=131072
	echo x >"$f"
	"$STITCH" record -e kprobe:do_sys_openat2 --fetch filename:string --fetch 'how->flags' \
		--fetch dfd --print -o "$TMP/kpf.folded" -- cat "$f" >"$TMP/kpf.out"
	grep fetched "$TMP/kpf.out"
	expect_eq "the open of the file, its flags and directory" "$(grep -c \
		": kprobe:do_sys_openat2: filename=\"${f//./\\.}\" how->flags=$largefile dfd=-100\$" \
		"$TMP/kpf.out")" 1
	expect_eq "its stack" "$(total "$TMP/kpf.folded" \
		"^cat;.*;open[a-z0-9_]*;\\[filename=\"${f//./\\.}\" how->flags=$largefile dfd=-100\\];entry_SYSCALL")" 1
	no_programs_left
}

# A kernel source line (issue 43): the running kernel's DWARF (the vmlinux
# of Debian's linux-image-*-dbg, which the matrix gives bookworm's and
# trixie's guests as STITCH_VMLINUX) places the kprobe, and its locals are
# read where DWARF says they are there: in do_sys_openat2, the first line
# where the open file f is (in the branch that installs it), with the fd
# and the struct filename the kernel copied the path into.  The line is
# found from DWARF's own lines and variables (no kernel source here): its
# number differs between kernels.  Where there is no vmlinux, one line
# says what to install.
test_kprobe_fetch_line_locals() {
	local f=$TMP/kline-fetched.txt rel=
	echo x >"$f"
	if [ -z "${STITCH_VMLINUX:-}" ]; then
		local release
		release=$(uname -r | sed 's/[.+]/\\&/g')	# sid's 7.2.13+deb14-amd64
		expect_error 1 "needs the running kernel's DWARF.*install linux-image-$release-dbg" \
			-- record -e kprobe:do_sys_openat2:2 -- true
		expect_error 1 "needs the running kernel's DWARF" -- probe -L kprobe:do_sys_openat2
		return
	fi
	"$STITCH" probe -L kprobe:do_sys_openat2 >"$TMP/kl.lines"
	head -3 "$TMP/kl.lines"
	for l in $(awk '$1 ~ /^[0-9]+$/ && $1 > 0 { print $1 }' "$TMP/kl.lines"); do
		"$STITCH" probe -V "kprobe:do_sys_openat2:$l" >"$TMP/kl.vars"
		if grep -qE 'struct file\* +f +in %' "$TMP/kl.vars" &&
		   grep -qE 'struct filename\* +tmp +in %' "$TMP/kl.vars" &&
		   grep -qE '[^a-z]int +fd +in %' "$TMP/kl.vars"; then
			rel=$l
			break
		fi
	done
	[ -n "$rel" ] || { cat "$TMP/kl.vars"; die "no line of do_sys_openat2 has f, tmp and fd"; }
	cat "$TMP/kl.vars"
	"$STITCH" record -e "kprobe:do_sys_openat2:$rel" --fetch fd --fetch 'tmp->name:string' \
		--fetch 'f->f_flags:x32' --print -o "$TMP/kl.folded" -- cat "$f" >"$TMP/kl.out"
	grep kline "$TMP/kl.out"
	expect_eq "the open of the file: its fd and name" "$(grep -cE \
		": kprobe:do_sys_openat2:$rel: fd=[0-9]+ tmp->name=\"${f//./\\.}\" f->f_flags=0x[0-9a-f]+\$" \
		"$TMP/kl.out")" 1
	expect_eq "its stack" "$(total "$TMP/kl.folded" \
		"^cat;.*;open[a-z0-9_]*;\\[fd=[0-9]+ tmp->name=\"${f//./\\.}\" f->f_flags=0x[0-9a-f]+\\];entry_SYSCALL")" 1
	no_programs_left
}
