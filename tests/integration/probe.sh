# SPDX-License-Identifier: GPL-2.0
# Probes on source lines (issue 43), sourced by run.sh: stitch probe's
# addresses, lines (-L) and variables (-V), and record -e on a line, in
# line_server (built -O2 -g: handle_request out of line, pick_weight
# inlined into two callers).  The lines are found by the source's marks.

workload gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -o "$W/line_server" \
	tests/workloads/line_server.c || exit 1
LINE_SERVER=$(realpath "$W/line_server")
LINE_SRC=tests/workloads/line_server.c

# line_of MARK: the source line marked "LINE: MARK".
line_of() {
	local l
	l=$(grep -n "LINE: $1 " "$LINE_SRC" | cut -d: -f1)
	is_number "$l" "LINE $1"
	echo "$l"
}

# decl_of FUNC: the line declaring FUNC (RELLINE 0).
decl_of() {
	local l
	l=$(grep -nE "^static .*[ *]$1\\(" "$LINE_SRC" | cut -d: -f1)
	is_number "$l" "declaration of $1"
	echo "$l"
}

# One address per copy of the line's code: handle_request's own line once,
# pick_weight's body in each of its two callers; the same by FILE:LINE.
test_probe_line_addresses() {
	local rel
	rel=$(($(line_of handle_sink) - $(decl_of handle_request)))
	"$STITCH" probe "$LINE_SERVER:handle_request:$rel" >"$TMP/pa.out"
	cat "$TMP/pa.out"
	expect_eq "handle_request:$rel's addresses" "$(wc -l <"$TMP/pa.out")" 1
	expect_grep "$TMP/pa.out" "^0x[0-9a-f]+  handle_request:$rel  .*line_server\\.c:$(line_of handle_sink)\$"
	rel=$(($(line_of pick_weight_body) - $(decl_of pick_weight)))
	"$STITCH" probe "uprobe:$LINE_SERVER:pick_weight:$rel" >"$TMP/pb.out"
	cat "$TMP/pb.out"
	expect_eq "pick_weight:$rel's addresses" "$(wc -l <"$TMP/pb.out")" 2
	expect_grep "$TMP/pb.out" "  inlined into handle_request\$"
	expect_grep "$TMP/pb.out" "  inlined into audit\$"
	"$STITCH" probe "$LINE_SERVER@line_server.c:$(line_of pick_weight_body)" >"$TMP/pc.out"
	expect_eq "the same by file and line" "$(cat "$TMP/pc.out")" "$(cat "$TMP/pb.out")"
}

# -L numbers the lines with code from the declaration; -V names the
# variables in scope at the line with their types, and says where each is
# or that it cannot be read there.
test_probe_lists_lines_and_vars() {
	local decl rel
	decl=$(decl_of handle_request)
	rel=$(($(line_of handle_sink) - decl))
	"$STITCH" probe -L "$LINE_SERVER:handle_request" >"$TMP/pl.out"
	cat "$TMP/pl.out"
	expect_grep "$TMP/pl.out" "^<handle_request@.*line_server\\.c:$decl>  \\(1 copy: out of line\\)"
	expect_grep "$TMP/pl.out" "^ +0  static __attribute__\\(\\(noinline\\)\\) int handle_request\\("
	expect_grep "$TMP/pl.out" "^ +$rel  	sink \\+= weight;"
	# The opening brace has no code: no number.
	expect_grep "$TMP/pl.out" "^         \\{\$"
	"$STITCH" probe -V "$LINE_SERVER:handle_request:$rel" >"$TMP/pv.out"
	cat "$TMP/pv.out"
	expect_grep "$TMP/pv.out" "^Variables at handle_request:$rel \\(.*line_server\\.c:$(line_of handle_sink)\\), 0x[0-9a-f]+\$"
	expect_grep "$TMP/pv.out" "^		struct request\\* +r +(in|at|=) "
	expect_grep "$TMP/pv.out" "^		int +weight +(in|at|=) "
	expect_eq "variables listed" "$(grep -c '^		' "$TMP/pv.out")" 3
}

# Recording on a line: every call, on its exact stack; the inlined line
# in both callers, each call counted once.
test_probe_line_record_every_call() {
	local rel
	rel=$(($(line_of handle_sink) - $(decl_of handle_request)))
	"$STITCH" record -e "uprobe:$LINE_SERVER:handle_request:$rel" -o "$TMP/plr.folded" -- \
		"$LINE_SERVER" 200 >/dev/null
	cat "$TMP/plr.folded"
	expect_eq "calls at handle_request:$rel" "$(total "$TMP/plr.folded" \
		"^line_server;$LIBC_START;main;handle_request(\\.isra\\.0)? [0-9]+\$")" 200
	expect_eq "events" "$(total "$TMP/plr.folded")" 200
	rel=$(($(line_of pick_weight_body) - $(decl_of pick_weight)))
	"$STITCH" record -e "uprobe:$LINE_SERVER:pick_weight:$rel" -o "$TMP/plp.folded" -- \
		"$LINE_SERVER" 200 >/dev/null
	cat "$TMP/plp.folded"
	expect_eq "pick_weight in handle_request" "$(total "$TMP/plp.folded" \
		";main;handle_request(\\.isra\\.0)?;pick_weight_\\[i\\] [0-9]+\$")" 200
	expect_eq "pick_weight in audit" "$(total "$TMP/plp.folded" \
		";main;audit(\\.isra\\.0)?;pick_weight_\\[i\\] [0-9]+\$")" 20
	expect_eq "events" "$(total "$TMP/plp.folded")" 220
}

# A line without code, a function that is not there, a binary without
# DWARF: one line saying so, and what to do, before anything is traced.
test_probe_line_errors() {
	local rc=0
	"$STITCH" record -e "uprobe:$LINE_SERVER:handle_request:1" -- "$LINE_SERVER" 1 \
		>/dev/null 2>"$TMP/pe1.err" || rc=$?
	cat "$TMP/pe1.err"
	expect_eq "exit status" "$rc" 1
	expect_grep "$TMP/pe1.err" "line 1 of handle_request \\(.*line_server\\.c:[0-9]+\\) has no code; its lines with code: 0 2 "
	rc=0
	"$STITCH" probe "$LINE_SERVER:no_such_function:2" 2>"$TMP/pe2.err" || rc=$?
	expect_eq "exit status" "$rc" 1
	expect_grep "$TMP/pe2.err" "^stitch probe: no function 'no_such_function' with code in the DWARF of "
	rc=0
	"$STITCH" probe -V /usr/bin/true:main:1 2>"$TMP/pe3.err" || rc=$?
	expect_eq "exit status" "$rc" 1
	expect_grep "$TMP/pe3.err" "has no DWARF .* install its -dbgsym package"
	rc=0
	"$STITCH" probe "$LINE_SERVER:handle_request" 2>"$TMP/pe4.err" || rc=$?
	expect_eq "usage status" "$rc" 2
	expect_grep "$TMP/pe4.err" "is not BINARY:FUNC:RELLINE"
}
