#!/bin/bash
# The svctrace HTML report page (cli/race/svctrace/report-template.html) rendered in headless
# Chromium, without the svctrace binary.
#
# Default mode: test-report.sh TEMPLATE [FIXTURE]
#   1. substitutes fixture.json (a manifested race of svc:/stress/w1i1:default: svccfg,
#      svc.configd, svc.startd with two threads, svcadm, plus another instance's events) for the
#      data marker, as `svctrace html` does, and checks the page refers to nothing outside it;
#   2. `chromium --headless --dump-dom` and checks the rendered DOM: svg#timeline, one g.lane
#      per process/thread with the exact labels, one .event per fixture event, the .flow-link
#      chain, rect#race-window, #verdict with the FMRI and "window 2.417 ms", table#events;
#      and a copy of it that presses the view buttons and turns the wheel sees the view change;
#   3. the template itself (DATA null) renders and says "No data";
#   4. the fixture padded to 2,000 events (the page's upper size) still renders every marker;
#   5. `chromium --headless --screenshot --window-size=1400,900`: the PNG is 1400x900 and not
#      blank (decoded with zlib, python3 standard library only).
#
# Second mode: TEST_REPORT_HTML=/path/to/report.html test-report.sh
#   runs steps 2 (minus the exact lane labels; expected counts come from the page's own DATA)
#   and 5 on a page `svctrace html` produced, e.g. after `make stress`:
#       TEST_REPORT_HTML=$PWD/report.html bash tests/race/report/test-report.sh
#
# Exits 77 (skip) only when no Chromium binary exists (chromium, chromium-browser, or
# $CHROMIUM); `make deps` installs Debian's chromium as root.  KEEP_TMP=1 keeps the files.
set -u

here=$(cd "$(dirname "$0")" && pwd)
template=${1:-$here/../../../cli/race/svctrace/report-template.html}
fixture=${2:-$here/fixture.json}
check="python3 $here/check-report.py"

chrome=${CHROMIUM:-}
if [ -z "$chrome" ]; then
	for c in chromium chromium-browser; do
		if command -v "$c" >/dev/null 2>&1; then chrome=$(command -v "$c"); break; fi
	done
fi
if [ -z "$chrome" ] || ! [ -x "$chrome" ]; then
	echo "SKIP: no Chromium binary (chromium, chromium-browser) to render the report; run 'make deps' as root to install Debian's chromium"
	exit 77
fi

[ "${KEEP_TMP:-0}" != 1 ] || SANDBOX_KEEP=always
source "$here/../../../tools/sandbox.sh"
sandbox_tmpdir tmp test-report

fail() { echo "FAIL: $*"; exit 1; }

# chromium MODE-ARGS... URL: one headless run with its own profile and home (nothing of the
# user's is read or written); its noise goes to a log that is shown only when it fails.
run_chromium() {
	local log="$tmp/chromium.log"
	mkdir -p "$tmp/home"
	if ! HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home" XDG_CACHE_HOME="$tmp/home" timeout 60 "$chrome" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
		--no-first-run --no-default-browser-check --disable-extensions --disable-background-networking \
		--disable-sync --hide-scrollbars --mute-audio "$@" 2>"$log"; then
		echo "chromium failed: $chrome $*"
		tail -n 20 "$log"
		return 1
	fi
}

dom_check() { # PAGE [--exact-fixture]
	local page=$1; shift
	run_chromium --dump-dom "file://$page" >"$tmp/dom.html" || fail "--dump-dom of $page"
	[ -s "$tmp/dom.html" ] || fail "--dump-dom of $page printed nothing"
	$check dom "$page" "$tmp/dom.html" "$@" || fail "DOM of $page"
}

shot_check() { # PAGE PNG
	rm -f "$2"
	run_chromium --screenshot="$2" --window-size=1400,900 "file://$1" || fail "--screenshot of $1"
	[ -s "$2" ] || fail "no screenshot written at $2"
	$check png "$2" 1400 900 || fail "screenshot of $1"
}

echo "chromium: $("$chrome" --version 2>/dev/null | head -n 1)"

if [ -n "${TEST_REPORT_HTML:-}" ]; then
	page=$(cd "$(dirname "$TEST_REPORT_HTML")" && pwd)/$(basename "$TEST_REPORT_HTML")
	[ -f "$page" ] || fail "TEST_REPORT_HTML=$TEST_REPORT_HTML: no such file"
	$check static "$page" || fail "$page is not self-contained"
	dom_check "$page"
	shot_check "$page" "$tmp/report.png"
	echo "PASS: $page"
	exit 0
fi

[ -f "$template" ] || fail "no template at $template"
[ -f "$fixture" ] || fail "no fixture at $fixture"
$check static "$template" || fail "the template is not self-contained"

# 1-2: the fixture page
$check page "$template" "$fixture" "$tmp/fixture.html" || fail "building the fixture page"
dom_check "$tmp/fixture.html" --exact-fixture

# 2b: the view buttons and the wheel change the view (a copy of the page clicks them)
$check interact "$tmp/fixture.html" "$tmp/interact.html" || fail "building the interaction page"
run_chromium --dump-dom "file://$tmp/interact.html" >"$tmp/interact-dom.html" || fail "--dump-dom of the interaction page"
$check interacted "$tmp/fixture.html" "$tmp/interact-dom.html" || fail "interaction"

# 3: DATA null (the template as it is)
cp "$template" "$tmp/nodata.html"
run_chromium --dump-dom "file://$tmp/nodata.html" >"$tmp/nodata-dom.html" || fail "--dump-dom of the template"
$check nodata "$tmp/nodata-dom.html" || fail "DATA null"

# 4: 2,000 events
$check synth "$fixture" "$tmp/big.json" 2000 || fail "building the 2,000-event data"
$check page "$template" "$tmp/big.json" "$tmp/big.html" || fail "building the 2,000-event page"
dom_check "$tmp/big.html"

# 5: the screenshot
shot_check "$tmp/fixture.html" "$tmp/fixture.png"
if [ -n "${REPORT_PNG_OUT:-}" ]; then cp "$tmp/fixture.png" "$REPORT_PNG_OUT"; fi

echo "PASS"
