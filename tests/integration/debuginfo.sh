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
