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
