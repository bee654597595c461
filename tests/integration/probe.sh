# SPDX-License-Identifier: GPL-2.0
# Probes on source lines (issue 43), sourced by run.sh: stitch probe's
# addresses, lines (-L) and variables (-V), and record -e on a line, in
# line_server (built -O2 -g: handle_request out of line, pick_weight
# inlined into two callers).  The lines are found by the source's marks.

workload gcc -O2 -fomit-frame-pointer -g -Wall -Wextra -Werror -o "$W/line_server" \
	tests/workloads/line_server.c || exit 1
LINE_SERVER=$(realpath "$W/line_server")
# -O0: every variable in its stack slot, found off the frame base's CFA.
workload gcc -O0 -g -Wall -Wextra -Werror -o "$W/line_server_O0" tests/workloads/line_server.c ||
	exit 1
LINE_SERVER_O0=$(realpath "$W/line_server_O0")
# DWARF 3: a bit field's place as DW_AT_bit_offset from its unit's top (5's: from the struct's start).
workload gcc -O2 -gdwarf-3 -Wall -Wextra -Werror -o "$W/line_server_dw3" tests/workloads/line_server.c ||
	exit 1
LINE_SERVER_DW3=$(realpath "$W/line_server_dw3")
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

# expect_values_logged PREFIX LOG_RE N SED [LOG_SED]: the values --print
# printed (PREFIX.out), renamed by SED as the program names them, are
# exactly the N lines of its log (PREFIX.log) matching LOG_RE (less what
# LOG_SED takes out), in order.
expect_values_logged() {
	local p=$1
	grep -E "$2" "$p.log" | sed "${5:-p;d}" >"$p.want"
	expect_eq "calls logged" "$(wc -l <"$p.want")" "$3"
	sed -n "s/^ *line_server[_a-zA-Z0-9]*  *[0-9]*\/[0-9]*  *[0-9.]*: uprobe:[^ ]*: //p" "$p.out" |
		sed "${4:-p;d}" >"$p.got"
	if ! diff "$p.want" "$p.got" >"$p.diff"; then
		head -20 "$p.diff"
		die "the values read differ from the program's log"
	fi
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
	"$STITCH" probe "$LINE_SERVER" 2>"$TMP/pe4.err" || rc=$?
	expect_eq "usage status" "$rc" 2
	expect_grep "$TMP/pe4.err" "is not BINARY:FUNC, BINARY:FUNC:RELLINE or BINARY@FILE:LINE"
	"$STITCH" probe --help >"$TMP/pe5.out"
	expect_grep "$TMP/pe5.out" "^Usage: stitch probe "
}

# --fetch at a line, in a program built -O2 -g: every call's values as the
# program logs them (a struct's member through a pointer, a char array as
# a string, a member of a struct pointed to by a member, a local held in a
# register), all 200 calls and none wrong; and stacks split by value, each
# value's count the program's.
test_probe_fetch_values_every_call() {
	local rel
	rel=$(($(line_of handle_sink) - $(decl_of handle_request)))
	# shellcheck disable=SC2016 # $0 is the inner shell's
	"$STITCH" record -e "uprobe:$LINE_SERVER:handle_request:$rel" --fetch 'r->len' \
		--fetch 'r->path:string' --fetch 'r->in->id' --fetch weight --print \
		-o "$TMP/pf.folded" -- sh -c 'exec "$0" 200 >"$1"' "$LINE_SERVER" "$TMP/pf.log" \
		>"$TMP/pf.out"
	head -3 "$TMP/pf.out"
	expect_eq "lines printed" "$(grep -c ": uprobe:.*:handle_request:$rel: " "$TMP/pf.out")" 200
	# The program logs "id=" for what the probe names "r->in->id=".
	expect_values_logged "$TMP/pf" '^len=' 200 's/r->in->id=/id=/; s/r->//g'
	local len
	for len in 10 11 12 13 14; do
		expect_eq "stacks with r->len=$len" "$(total "$TMP/pf.folded" \
			";main;handle_request(\\.isra\\.0)?;\\[r->len=$len r->path=\"/srv/item/[0-2]\" r->in->id=[0-9]+ weight=[0-9]+\\] [0-9]+\$")" 40
	done
}

# A function without a line: its entry (perf probe's FUNC), where its
# arguments are as passed: every call's request read through r, as logged
# (weight is computed later); and a library's function by the name its
# symbol gives (glibc's malloc is __libc_malloc's code, libc6-dbg's DWARF).
test_probe_fetch_function_entry_args() {
	"$STITCH" probe -V "$LINE_SERVER:handle_request" >"$TMP/pfe.vars"
	cat "$TMP/pfe.vars"
	expect_eq "r at handle_request's entry" "$(grep -cE \
		'^Variables at handle_request(\.isra\.0)?:0 |^\s+struct request\*\s+r\s+in %rdi$' \
		"$TMP/pfe.vars")" 2
	# shellcheck disable=SC2016 # $0 is the inner shell's
	"$STITCH" record -e "uprobe:$LINE_SERVER:handle_request" --fetch 'r->len' \
		--fetch 'r->path:string' --fetch 'r->in->id' --print \
		-o "$TMP/pfe.folded" -- sh -c 'exec "$0" 200 >"$1"' "$LINE_SERVER" "$TMP/pfe.log" \
		>"$TMP/pfe.out"
	head -3 "$TMP/pfe.out"
	expect_values_logged "$TMP/pfe" '^len=' 200 's/r->in->id=/id=/; s/r->//g' 's/ weight=.*//'
	expect_eq "stacks with r->len=10" "$(total "$TMP/pfe.folded" \
		";main;handle_request(\\.isra\\.0)?;.*\\[r->len=10 r->path=\"/srv/item/[0-2]\" r->in->id=[0-9]+\\] [0-9]+\$")" 40

	"$STITCH" probe -V libc.so.6:malloc >"$TMP/pfe-malloc.vars"
	expect_eq "malloc's bytes at its entry" \
		"$(grep -cE '^\s+size_t\s+bytes\s+in %rdi$' "$TMP/pfe-malloc.vars")" 1
	"$STITCH" record -e uprobe:libc.so.6:malloc --fetch bytes --print -- \
		"$LINE_SERVER" 3 >"$TMP/pfe-malloc.out"
	# printf's stdout buffer: one malloc of BUFSIZ (4096) or st_blksize
	expect_ge "line_server's mallocs read" \
		"$(grep -cE 'line_server .*: uprobe:libc.so.6:malloc: bytes=[0-9]+$' "$TMP/pfe-malloc.out")" 1
}

# pprof: the values are the samples' labels too, numbers as numbers (go
# tool pprof -tags; -tagfocus takes a value or a range of them), each
# value's count the program's calls with it.
test_probe_values_as_pprof_labels() {
	local rel len
	rel=$(($(line_of handle_sink) - $(decl_of handle_request)))
	"$STITCH" record -e "uprobe:$LINE_SERVER:handle_request:$rel" --fetch 'r->len' \
		--fetch 'r->path:string' -o "$TMP/pl.pb.gz" -- "$LINE_SERVER" 200 >/dev/null
	HOME=$TMP go tool pprof -tags "$TMP/pl.pb.gz" >"$TMP/pl.tags" 2>&1
	sed -n '/r->len:/,/^$/p; /r->path:/,/^$/p' "$TMP/pl.tags"
	for len in 10 11 12 13 14; do
		expect_grep "$TMP/pl.tags" "^ +40\\.0 \\(20\\.00%\\): $len\$"
	done
	expect_grep "$TMP/pl.tags" "^ +67\\.0 \\(33\\.50%\\): /srv/item/0\$"
	HOME=$TMP go tool pprof -top -tagfocus='r->len=12' "$TMP/pl.pb.gz" >"$TMP/pl.top" 2>&1
	expect_grep "$TMP/pl.top" "Showing nodes accounting for 40, 20\\.00% of 200 total"
	# A report's pprof, from the recording's pprof or its folded stacks: the same labels.
	"$STITCH" report "$TMP/pl.pb.gz" -o "$TMP/pl-again.pb.gz"
	"$STITCH" report "$TMP/pl.pb.gz" -o "$TMP/pl.folded"
	"$STITCH" report "$TMP/pl.folded" -o "$TMP/pl-folded.pb.gz"
	for f in pl-again pl-folded; do
		HOME=$TMP go tool pprof -tags "$TMP/$f.pb.gz" >"$TMP/$f.tags" 2>&1
		expect_eq "$f: the same labels" \
			"$(sed -n '/r->len:/,/^$/p; /r->path:/,/^$/p' "$TMP/$f.tags")" \
			"$(sed -n '/r->len:/,/^$/p; /r->path:/,/^$/p' "$TMP/pl.tags")"
	done
}

# Bit fields (unsigned and signed, their sign from their own top bit) and
# a double, through a pointer, every call as the program logs them; in
# DWARF 5's form and DWARF 3's.
test_probe_fetch_bit_fields_and_double() {
	local rel bin
	rel=$(($(line_of handle_sink) - $(decl_of handle_request)))
	for bin in "$LINE_SERVER" "$LINE_SERVER_DW3"; do
		# shellcheck disable=SC2016 # $0 is the inner shell's
		"$STITCH" record -e "uprobe:$bin:handle_request:$rel" --fetch 'r->in->prio' \
			--fetch 'r->in->delta' --fetch 'r->in->cost' --print -o "$TMP/pb.folded" \
			-- sh -c 'exec "$0" 100 >"$1"' "$bin" "$TMP/pb.log" >"$TMP/pb.out"
		head -3 "$TMP/pb.out"
		expect_values_logged "$TMP/pb" '^prio=' 100 's/r->in->//g'
	done
	expect_grep "$TMP/pb.out" " r->in->prio=3 r->in->delta=-13 r->in->cost=24\\.75\$"
}

# Locals in the stack frame (DW_OP_fbreg off the CFA the CFI gives at the
# address: libdw states it as DW_OP_bregx): a char array as a string and a
# struct's members, at -O2 and at -O0 (where everything is there), every
# call as the program logs it.
test_probe_fetch_stack_locals() {
	local rel bin
	rel=$(($(line_of audit_tag) - $(decl_of audit)))
	for bin in "$LINE_SERVER" "$LINE_SERVER_O0"; do
		# shellcheck disable=SC2016 # $0 is the inner shell's
		"$STITCH" record -e "uprobe:$bin:audit:$rel" --fetch tag:string --fetch copy.id \
			--fetch copy.kind --print -o "$TMP/pfs.folded" \
			-- sh -c 'exec "$0" 200 >"$1"' "$bin" "$TMP/pfs.log" >"$TMP/pfs.out"
		head -2 "$TMP/pfs.out"
		expect_values_logged "$TMP/pfs" '^tag=' 20 ''
	done
}

# A value DWARF has no location for at the address reads <optimized out>,
# at every event: pick_weight inlined into audit keeps neither r nor round
# there, into handle_request both.  And values split the flame graph's
# stacks: one per distinct value.
test_probe_fetch_optimized_out_and_labels() {
	local rel
	rel=$(($(line_of pick_weight_body) - $(decl_of pick_weight)))
	"$STITCH" record -e "uprobe:$LINE_SERVER:pick_weight:$rel" --fetch 'r->len' \
		-o "$TMP/po.folded" -- "$LINE_SERVER" 100 >/dev/null
	cat "$TMP/po.folded"
	expect_eq "audit's copy" "$(total "$TMP/po.folded" \
		';main;audit(\.isra\.0)?;pick_weight_\[i\];\[r->len=<optimized out>\] [0-9]+$')" 10
	# What DWARF says of r in handle_request's copy: x86-64's gcc keeps it
	# there, arm64's does not (then every event says so, none a value).
	"$STITCH" probe -V "$LINE_SERVER:pick_weight:$rel" >"$TMP/po.vars"
	cat "$TMP/po.vars"
	if awk '/^Variables at .*inlined into handle_request/ { in_h = 1; next }
		/^Variables at / { in_h = 0 }
		in_h && $0 ~ /[*] +r +<optimized out>$/ { gone = 1 }
		END { exit !gone }' "$TMP/po.vars"; then
		expect_eq "handle_request's copy, r not there" "$(total "$TMP/po.folded" \
			';main;handle_request(\.isra\.0)?;pick_weight_\[i\];\[r->len=<optimized out>\] [0-9]+$')" 100
		return
	fi
	local len
	for len in 10 11 12 13 14; do
		expect_eq "handle_request's copy, len $len" "$(total "$TMP/po.folded" \
			";main;handle_request(\\.isra\\.0)?;pick_weight_\\[i\\];\\[r->len=$len\\] [0-9]+\$")" 20
	done
}

# What a --fetch cannot read is one line before anything is traced.
test_probe_fetch_errors() {
	local rel e rc
	rel=$(($(line_of handle_sink) - $(decl_of handle_request)))
	for e in "nosuch|no variable 'nosuch' at handle_request:$rel \\(stitch probe -V lists them\\)" \
		"r->nope|no member 'nope' in struct request" \
		"r:string|:string on something that is not a char array or pointer" \
		"r->path|an array: add :string for text, or an index" \
		"weight->x|'->x' on something that is not a pointer" \
		"r->len:u12|':u12' is not string, u8..u64, s8..s64 or x8..x64" \
		"r-len|not NAME, NAME->member"; do
		rc=0
		"$STITCH" record -e "uprobe:$LINE_SERVER:handle_request:$rel" --fetch "${e%%|*}" \
			-- "$LINE_SERVER" 1 >/dev/null 2>"$TMP/pfe.err" || rc=$?
		cat "$TMP/pfe.err"
		expect_eq "exit status" "$rc" 1
		expect_grep "$TMP/pfe.err" "^stitch record: uprobe:.*: --fetch '${e%%|*}': ${e#*|}"
	done
	# Where the kernel has no BPF cookies (5.10), a valid --fetch is refused, saying why.
	if ! grep -qE '^  BPF cookies.* yes ' <<<"$("$STITCH" features 2>/dev/null)"; then
		rc=0
		"$STITCH" record -e "uprobe:$LINE_SERVER:handle_request:$rel" --fetch weight \
			-- "$LINE_SERVER" 1 >/dev/null 2>"$TMP/pfe.err" || rc=$?
		cat "$TMP/pfe.err"
		expect_eq "exit status without cookies" "$rc" 1
		expect_grep "$TMP/pfe.err" "--fetch needs BPF cookies \\(Linux 5\\.15\\)"
	fi
	rc=0
	"$STITCH" record -e cpu --fetch r -- true 2>"$TMP/pfe.err" || rc=$?
	expect_eq "usage status" "$rc" 2
	expect_grep "$TMP/pfe.err" "--fetch and --print go with a uprobe on a function or a line"
}

# A system call's argument and a tracepoint's field by name, from the
# kernel's format of the event: the file a workload opened, as a string
# read from its memory, on the stack that opened it; the program an exec
# started, from the record's __data_loc string.  A field that is not
# there names the event's fields.
test_probe_fetch_tracepoint_fields() {
	local f=$TMP/fetched-file.txt rc=0
	echo x >"$f"
	"$STITCH" record -e syscall:openat --fetch filename:string --fetch flags:x32 --print \
		-o "$TMP/pt.folded" -- cat "$f" >"$TMP/pt.out"
	grep "fetched" "$TMP/pt.out"
	expect_eq "openat of the file, printed" "$(grep -c \
		": syscall:openat: filename=\"${f//./\\.}\" flags=0x0\$" "$TMP/pt.out")" 1
	# (cat is stripped: its main is cat+0x...)
	expect_eq "its stack, cat's open through libc" "$(total "$TMP/pt.folded" \
		"^cat;.*;__libc_start_call_main;cat\\+0x[0-9a-f]+;open[a-z0-9_]*;\\[filename=\"${f//./\\.}\" flags=0x0\\];entry_SYSCALL")" 1
	"$STITCH" record -e tracepoint:sched:sched_process_exec --fetch filename -o "$TMP/px.folded" \
		-- sh -c "/bin/true; exec $(command -v env) true" >/dev/null
	cat "$TMP/px.folded"
	expect_eq "exec of /bin/true" "$(total "$TMP/px.folded" '^true;\[filename="/bin/true"\];')" 1
	"$STITCH" record -e tracepoint:sched:sched_process_exec --fetch nosuch -- true \
		2>"$TMP/pt.err" || rc=$?
	cat "$TMP/pt.err"
	expect_eq "exit status" "$rc" 1
	expect_grep "$TMP/pt.err" "--fetch 'nosuch': no field 'nosuch' \\(its fields: filename, pid, old_pid\\)"
}

# --print-stacks: each event's line, then its stack innermost first: the
# values' frame, the probed function on the probed line, its callers.
test_probe_print_stacks() {
	local rel
	rel=$(($(line_of handle_sink) - $(decl_of handle_request)))
	# shellcheck disable=SC2016 # $0 is the inner shell's
	"$STITCH" record -e "uprobe:$LINE_SERVER:handle_request:$rel" --fetch 'r->len' \
		--print-stacks -o "$TMP/pps.folded" -- sh -c 'exec "$0" 3 >/dev/null' "$LINE_SERVER" \
		>"$TMP/pps.out"
	cat "$TMP/pps.out"
	expect_eq "events printed" "$(grep -c ": uprobe:.*: r->len=1[0-2]\$" "$TMP/pps.out")" 3
	# Each line's stack under it, in this order.
	expect_eq "stacks printed" "$(awk -v line="$(line_of handle_sink)" '
		/: uprobe:/ { want = 1; next }
		want == 1 && /^\t\[r->len=1[0-2]\]$/ { want = 2; next }
		want == 2 && $0 ~ "^\thandle_request(\\.isra\\.0)?  \\(line_server\\.c:" line "\\)$" { want = 3; next }
		want == 3 && /^\tmain  \(line_server\.c:[0-9]+\)$/ { n++ }
		{ want = 0 }
		END { print n + 0 }' "$TMP/pps.out")" 3
}
