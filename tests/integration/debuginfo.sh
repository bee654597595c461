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
# 4.7%); they are complete now, and <= 2% of the samples hold [unknown].
check_short_lived() {
	local out=$1
	expect_ge "samples of the short-lived processes" "$(total "$out" '^shortlived_py;')" 300
	expect_ge "samples in the loader's start (_dl_start)" \
		"$(total "$out" '^shortlived_py;.*;_dl_start;')" 5
	expect_eq "% of _dl_start's samples ending in [unknown]" \
		"$(share "$out" '^shortlived_py;.*;_dl_start;' '^shortlived_py;\[unknown\];')" 0
	expect_eq "% of _dl_start's samples starting at ld.so's entry" \
		"$(share "$out" '^shortlived_py;.*;_dl_start;' \
			'^shortlived_py;ld-linux-x86-64\.so\.2\+0x[0-9a-f]+;_dl_start;')" 100
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
	expect_ge "$bin samples" "$(total "$TMP/$bin.folded" "^$bin;")" 300
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
