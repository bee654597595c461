#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Real-browser test of the SVG flame graph: headless Chromium loads a graph
# with hostile names (inlined into a harness page, and as a plain .svg),
# clicks, searches and hovers, and the page reports PASS/FAIL per check.
# Chromium missing is a failure, not a skip.  Screenshots land in
# build/browser/ to look at.
set -u
cd "$(dirname "$0")/../.."
out=build/browser
mkdir -p "$out"
passed=0
failed=0

fail() {
	echo "FAIL $*"
	failed=$((failed + 1))
}

finish() {
	echo "browser: $passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	exit
}

chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
	fail "chromium not found: install the chromium package (scripts/install-deps.sh)"
	finish
fi

if ! ${CC:-gcc} -O1 -g -Wall -Wextra -Werror -std=gnu11 -D_GNU_SOURCE -Isrc -Ibuild \
	tests/browser/mkgraph.c build/libstitch.a -lbpf -ldw -lelf -llzma -lz -lpthread \
	-o "$out/mkgraph"; then
	fail "building tests/browser/mkgraph.c"
	finish
fi
for mode in plain inverted diff; do
	if ! "$out/mkgraph" "$out/graph-$mode.svg" "$mode"; then
		fail "mkgraph $mode"
		finish
	fi
done

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium_run() {
	timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --allow-file-access-from-files --virtual-time-budget=5000 \
		"$@" 2>>"$out/chromium.log"
}

# The harness: alert/confirm recorders first, then the graph inline (less
# its XML declaration), then the checks.
page="$out/harness.html"
{
	echo '<!DOCTYPE html><html><head><meta charset="utf-8"><title>stitch flame graph test</title>'
	echo '<script>window.alerts = []; window.alert = window.confirm = function (m) { window.alerts.push(String(m)); };</script>'
	echo '</head><body>'
	sed '1{/^<?xml/d}' "$out/graph-plain.svg"
	echo '<script>'
	cat tests/browser/harness.js
	echo '</script></body></html>'
} >"$page"
: >"$out/chromium.log"

# Read PASS/FAIL lines out of a dumped DOM.
count() {
	local dom=$1 what=$2 n
	if ! grep -q '<pre id="result">' "$dom"; then
		fail "$what: no result in the page (see $out/chromium.log)"
		return
	fi
	sed -n '/<pre id="result">/,/<\/pre>/p' "$dom" | sed 's/<[^>]*>//g' | grep -E '^(PASS|FAIL) ' |
		sed "s/^/$what: /" >"$dom.lines"
	cat "$dom.lines"
	n=$(grep -c ': PASS ' "$dom.lines")
	passed=$((passed + n))
	n=$(grep -c ': FAIL ' "$dom.lines")
	failed=$((failed + n))
}

url="file://$PWD/$page"
chromium_run --dump-dom "$url" >"$out/harness.dom"
count "$out/harness.dom" harness
chromium_run --dump-dom "$url?s=sys_read" >"$out/harness-url.dom"
count "$out/harness-url.dom" harness-url

# Negative control: the same page with the hostile frame name unescaped must
# be caught, or the checks above prove nothing.
sed 's/&lt;img src=x onerror=alert(1)&gt;/<img src=x onerror=alert(1)>/' "$page" >"$out/control.html"
chromium_run --dump-dom "file://$PWD/$out/control.html" >"$out/control.dom"
if grep -q 'FAIL no-injected-img' "$out/control.dom"; then
	echo "control: PASS an unescaped name is detected"
	passed=$((passed + 1))
else
	fail "control: the harness did not notice an unescaped <img> name"
fi

# The .svg itself, as a browser opens the file: its script must run there too.
chromium_run --dump-dom "file://$PWD/$out/graph-plain.svg?s=%5E(work%7Ccompute)" >"$out/svg.dom"
if grep -q 'Matched: 80.00%' "$out/svg.dom"; then
	echo "svg: PASS standalone ?s= search"
	passed=$((passed + 1))
else
	fail "svg: standalone ?s= search did not print Matched: 80.00%"
fi
if grep -qiE '<script>alert|<img src' "$out/svg.dom"; then
	fail "svg: hostile name became markup"
else
	echo "svg: PASS hostile names stay text"
	passed=$((passed + 1))
fi

# Screenshots to look at: the plain graph, the zoomed harness, icicle and diff.
chromium_run --screenshot="$PWD/$out/flamegraph.png" --window-size=1200,300 \
	"file://$PWD/$out/graph-plain.svg" >/dev/null
chromium_run --screenshot="$PWD/$out/harness.png" --window-size=1200,300 "$url" >/dev/null
chromium_run --screenshot="$PWD/$out/icicle.png" --window-size=1200,300 \
	"file://$PWD/$out/graph-inverted.svg" >/dev/null
chromium_run --screenshot="$PWD/$out/diff.png" --window-size=1200,300 \
	"file://$PWD/$out/graph-diff.svg" >/dev/null
for png in flamegraph harness icicle diff; do
	if [ -s "$out/$png.png" ]; then
		passed=$((passed + 1))
	else
		fail "screenshot $png.png not written"
	fi
done
echo "screenshots: $out/{flamegraph,harness,icicle,diff}.png"
finish
