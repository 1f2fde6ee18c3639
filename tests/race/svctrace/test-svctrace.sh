#!/bin/bash
# test-svctrace.sh CASE: one check of svctrace on a synthetic run made by tracegen (see
# tracegen.c for the scenarios).  Exits 0 on success, 1 with a message on failure.
set -u

: "${SVCTRACE:?}" "${TRACEGEN:?}"
source "$(dirname "$0")/../../../tools/sandbox.sh"
sandbox_tmpdir tmp svctrace-test

fail() { echo "FAIL: $*" >&2; exit 1; }

# expect2 ARGS...: svctrace ARGS exits 2 (usage) with a message.
expect2() {
	local rc=0
	"$SVCTRACE" "$@" >/dev/null 2>"$tmp/err" || rc=$?
	[ "$rc" -eq 2 ] || fail "svctrace $*: exit $rc, expected 2"
	[ -s "$tmp/err" ] || fail "svctrace $*: no message"
}

# gen SCENARIO: a fresh root under $tmp holding that scenario's trace files; prints the root.
gen() {
	local root="$tmp/$1"
	mkdir -p "$root"
	"$TRACEGEN" "$root" "$1" || fail "tracegen $1"
	echo "$root"
}

# check_status ROOT EXPECTED: runs check --json into $tmp/check.json, asserts its exit status.
check_json() {
	local rc=0
	"$SVCTRACE" check --json "$1" >"$tmp/check.json" || rc=$?
	[ "$rc" -eq "$2" ] || fail "check --json $1: exit $rc, expected $2: $(cat "$tmp/check.json")"
	jq -e . "$tmp/check.json" >/dev/null || fail "check --json output is not JSON"
}

# jqt FILTER MESSAGE: asserts that FILTER is true of check.json.
jqt() {
	jq -e "$1" "$tmp/check.json" >/dev/null || fail "$2: $(cat "$tmp/check.json")"
}

A=svc:/site/a:default
B=svc:/site/b:default

case "$1" in
ok)
	root=$(gen ok)
	out=$("$SVCTRACE" check "$root" 2>"$tmp/err") ||
		fail "check on a run with the wait on exited $?: $out"
	[ "$out" = "svctrace: 2 instances, 0 latent, 0 manifested" ] || fail "unexpected: $out"
	[ ! -s "$tmp/err" ] || fail "a warning with nothing lost: $(cat "$tmp/err")"
	check_json "$root" 0
	jqt '.findings == [] and .summary.instances == 2' "no findings expected"
	jqt '.summary.drops == 0 and .summary.string_drops == 0' "nothing lost"
	;;
predates)
	# Only an update of the restarter pg after the return, no creation: the pg was there
	# before the trace began, and startd's later commit is no "appearance".
	root=$(gen predates)
	check_json "$root" 0
	jqt '.findings == [] and .summary.imported == 1' "an update of an existing pg is no race"
	;;
recreated)
	# The second import's window runs to the re-creation, not to the first creation (which
	# came before its return and would hide it).
	root=$(gen recreated)
	check_json "$root" 1
	jqt '.findings | length == 1' "one finding"
	jqt ".findings[0].kind == \"latent\" and .findings[0].fmri == \"$A\"" "kind/fmri"
	jqt '.findings[0].window_us >= 4000 and .findings[0].open == false' "window >= 4 ms"
	"$SVCTRACE" dump "$root" >"$tmp/dump" || fail "dump"
	[ "$(grep -c ' configd.pg_created .*/:properties/restarter (' "$tmp/dump")" -eq 2 ] ||
		fail "expected two creations of the restarter pg: $(cat "$tmp/dump")"
	# Times in the dump are ms with 3 decimals: the finding's ends agree to 1 us.
	ret=$(grep ' import\.return ' "$tmp/dump" | tail -1 | cut -d" " -f1 | tr -d +)
	cre=$(grep ' configd\.pg_created .*/:properties/restarter (' "$tmp/dump" | tail -1 |
		cut -d" " -f1 | tr -d +)
	jqt "(.findings[0].import_return_ns / 1e6 - ($ret)) | fabs < 0.001" \
		"the window starts at the second import's return ($ret ms)"
	jqt "(.findings[0].pg_commit_ns / 1e6 - ($cre)) | fabs < 0.001" \
		"the window ends at the re-creation ($cre ms)"
	;;
lostdata)
	# svc.configd's string table filled: check says how much was lost, in every mode.
	root=$(gen lostdata)
	warn='^svctrace: warning: [0-9]+ events and [0-9]+ strings were lost'
	warn+=' \(trace files full\); windows may be wrong$'
	"$SVCTRACE" check "$root" >"$tmp/out" 2>"$tmp/err" ||
		fail "check exited $? on a run with no race: $(cat "$tmp/out" "$tmp/err")"
	grep -Eq "$warn" "$tmp/err" || fail "no warning: $(cat "$tmp/err")"
	grep -Eq 'warning: [0-9]+ events and 0 strings' "$tmp/err" &&
		fail "no string counted as lost (does the recorder count str_drops yet?): $(cat "$tmp/err")"
	grep -q "warning" "$tmp/out" && fail "the warning went to standard output"
	"$SVCTRACE" check --json "$root" >"$tmp/check.json" 2>"$tmp/err" || fail "check --json: $?"
	grep -Eq "$warn" "$tmp/err" || fail "no warning with --json: $(cat "$tmp/err")"
	jqt '.summary.string_drops > 0 and .summary.drops == 0' "string_drops counted"
	jqt '.findings == []' "no finding"
	;;
exitstatus)
	# check: 3 when the report cannot be written (a harness must not read "no race" into an
	# empty or truncated output), whatever the findings; -q writes nothing, so nothing fails.
	for s in ok latent; do
		root=$(gen $s)
		for mode in --json ""; do
			rc=0
			"$SVCTRACE" check $mode "$root" >/dev/full 2>"$tmp/err" || rc=$?
			[ "$rc" -eq 3 ] || fail "check $mode ($s) >/dev/full: exit $rc, expected 3"
			grep -q "No space left on device" "$tmp/err" || fail "message: $(cat "$tmp/err")"
		done
	done
	rc=0
	"$SVCTRACE" check -q "$root" >/dev/full || rc=$?
	[ "$rc" -eq 1 ] || fail "check -q (latent) >/dev/full: exit $rc, expected 1"
	;;
reimport)
	# No commit of the pg in the trace, but svcadm found it: it predates the trace.
	root=$(gen reimport)
	check_json "$root" 0
	jqt '.findings == []' "a re-imported instance is no race"
	;;
latent)
	root=$(gen latent)
	"$SVCTRACE" check "$root" >"$tmp/out" && fail "check found nothing in a no-wait run"
	grep -q "^latent race: $A\$" "$tmp/out" || fail "no latent block: $(cat "$tmp/out")"
	grep -q "=> +[0-9.]* svccfg\[[0-9]*/[0-9]*\] import.return - exit 0" "$tmp/out" ||
		fail "the import's return is not marked in the context: $(cat "$tmp/out")"
	grep -q "svctrace: 1 instances, 1 latent, 0 manifested" "$tmp/out" || fail "summary"
	check_json "$root" 1
	jqt '.findings | length == 1' "exactly one finding"
	jqt ".findings[0].kind == \"latent\" and .findings[0].fmri == \"$A\"" "kind/fmri"
	jqt '.findings[0].window_us >= 5000 and .findings[0].open == false' "window >= 5 ms"
	jqt '.findings[0].pg_commit_ns - .findings[0].import_return_ns >= 5000000' "times"
	jqt '.findings[0].read_ns == null and .findings[0].reader_pid == null' "no read in this run"
	# The generic view: the return rule, the causing commit and the write it caused.
	jqt ".findings[0].rule == \"return\" and .findings[0].object == \"$A/:properties/restarter\"" \
		"rule/object"
	jqt '.findings[0].cause_commit == 1 and .findings[0].cause_prog == "svccfg"' "cause"
	jqt '.findings[0].cause_request == "Batch" and .findings[0].return_prog == "svccfg"' \
		"cause request, who returned"
	jqt '.findings[0].write_commit == 2 and .findings[0].writer_prog == "svc.startd"' "writer"
	jqt '.findings[0].write_created and .findings[0].write_generation == 1' "a creation"
	;;
manifested)
	root=$(gen manifested)
	"$SVCTRACE" check "$root" >"$tmp/out" && fail "check missed a manifested race"
	grep -q "^manifested race: $A\$" "$tmp/out" || fail "no manifested block: $(cat "$tmp/out")"
	grep -q "^  latent: svccfg\[[0-9]*\] returned" "$tmp/out" || fail "latent part missing"
	grep -q "^  read: svcadm\[[0-9]*\] found it absent (request sent at .*; it exited 3)$" \
		"$tmp/out" || fail "reader line: $(cat "$tmp/out")"
	grep -q "^  cause: commit 1 (Batch) of svccfg\[[0-9]*\]" "$tmp/out" || fail "cause line"
	check_json "$root" 1
	jqt '.findings | length == 1' "one finding: the manifestation includes its latent window"
	jqt '.summary.manifested == 1 and .summary.latent == 0' "summary"
	jqt '.manifested == 1 and .latent == 0' "the counts at the top level too"
	jqt ".findings[0].kind == \"manifested\" and .findings[0].fmri == \"$A\"" "kind/fmri"
	jqt '.findings[0].window_us >= 3000 and .findings[0].read_ns != null' "window >= 3 ms"
	jqt '.findings[0].latent_window_us >= .findings[0].window_us' "latent part"
	# svcadm read it, svccfg's import (another command of the script) caused the write.
	jqt '.findings[0].rule == "read" and .findings[0].reader_prog == "svcadm"' "the reader"
	jqt '.findings[0].reader_exit == 3 and .findings[0].read_generation == null' "failed, absent"
	jqt '.findings[0].cause_prog == "svccfg" and .findings[0].writer_prog == "svc.startd"' \
		"cause and writer"
	;;
older)
	# svcs read the restarter pg at generation 5 before the write svcadm's restart caused
	# (generation 6); it exited 0 having reported the old state: manifested.
	root=$(gen older)
	check_json "$root" 1
	jqt '(.findings | length == 1) and .summary.manifested == 1' "one manifested finding"
	jqt '.findings[0].reader_prog == "svcs" and .findings[0].read_generation == 5' "svcs, gen 5"
	jqt '.findings[0].reader_exit == 0 and .findings[0].write_generation == 6' "the write missed"
	jqt '.findings[0].write_created == false and .findings[0].cause_prog == "svcadm"' "cause"
	jqt '.findings[0].window_us >= 3000' "window >= 3 ms"
	;;
unrelated)
	# startd's write came from no commit of this script (its scan): no race.
	root=$(gen unrelated)
	check_json "$root" 0
	jqt '.findings == [] and .summary.caused_commits == 0' "no race, no cause"
	;;
other)
	# The write was caused by another script's import (another session): no race here.
	root=$(gen other)
	check_json "$root" 0
	jqt '.findings == [] and .summary.caused_commits == 1' "caused, but not by this script"
	;;
wait)
	# Read, notification, read again: the import wait and svcadm -s are waits, not races.
	root=$(gen wait)
	check_json "$root" 0
	jqt '.findings == [] and .summary.waits == 2' "two reads that waited"
	;;
validated)
	# The reader then committed the pg in a checked transaction: its view was validated.
	root=$(gen validated)
	check_json "$root" 0
	jqt '.findings == [] and .summary.caused_commits == 1' "no race"
	;;
noconfigd)
	# svcadm's read alone: nothing to judge it by, and check says so rather than "no race".
	root=$(gen noconfigd)
	"$SVCTRACE" check "$root" >"$tmp/out" 2>"$tmp/err" || fail "check exited $?"
	grep -q "warning: no svc.configd write in the trace" "$tmp/err" ||
		fail "no warning: $(cat "$tmp/err")"
	;;
recheck)
	# A reader registered for the object's notifications read it again first: still a wait.
	root=$(gen recheck)
	check_json "$root" 0
	jqt '.findings == [] and .summary.waits == 2' "the import's read and svcadm's: waits"
	;;
addwait)
	# svccfg add's wait: read absent, the notification, read again; startd's first-sight
	# write is linked to the AddInstance through InstanceAdded's commit id.
	root=$(gen addwait)
	check_json "$root" 0
	jqt '.findings == [] and .summary.waits == 1' "the add's read: a wait"
	jqt '.summary.caused_commits == 1' "the first sight's write caused by the AddInstance"
	"$SVCTRACE" dump "$root" >"$tmp/dump" || fail "dump"
	grep -q "configd.instance_added $A $A (commit 1)$" "$tmp/dump" ||
		fail "instance_added's commit id: $(cat "$tmp/dump")"
	grep -q "scf.notify_received $A $A/:properties/restarter (commit 2, generation 1)$" \
		"$tmp/dump" || fail "the add's notification: $(cat "$tmp/dump")"
	grep -q "startd.first_sight $A write (cause 1)$" "$tmp/dump" ||
		fail "first_sight's cause: $(cat "$tmp/dump")"
	;;
eager)
	# configd-eager: the import's own commit created the restarter pg, the import wait read
	# it; startd's later write descends from that commit but follows what the reader saw.
	root=$(gen eager)
	check_json "$root" 0
	jqt '.findings == [] and .summary.caused_commits == 1' "no race, startd's write caused"
	;;
svcadmwait)
	# svcadm-wait's reads are waits: the add's return alone opened a window (latent).
	root=$(gen svcadmwait)
	check_json "$root" 1
	jqt '(.findings | length == 1) and .summary.latent == 1 and .summary.manifested == 0' \
		"one latent finding"
	jqt '.summary.waits == 2' "svcadm's two absent reads: waits"
	jqt ".findings[0].rule == \"return\" and .findings[0].object == \"$A/:properties/restarter\"" \
		"rule/object"
	jqt '.findings[0].return_prog == "svccfg" and .findings[0].reader_pid == null' \
		"svccfg's return, no racing read"
	jqt '.findings[0].cause_request == "AddInstance" and .findings[0].cause_prog == "svccfg"' \
		"caused by the add"
	jqt '.findings[0].writer_prog == "svc.startd" and .findings[0].write_created' "startd created it"
	jqt '.findings[0].window_us >= 3000' "window >= 3 ms"
	;;
caughtup)
	# svcs missed the write but read again after it by itself and exited 0: latent.
	root=$(gen caughtup)
	check_json "$root" 1
	jqt '(.findings | length == 1) and .summary.latent == 1' "one latent finding"
	jqt '.findings[0].rule == "read" and .findings[0].reader_prog == "svcs"' "a read race"
	jqt '.findings[0].kind == "latent" and .findings[0].import_return_ns == null' "no return"
	;;
never)
	# startd announced the write of the pg svcadm found absent, and never made it.
	root=$(gen never)
	"$SVCTRACE" check "$root" >"$tmp/out" && fail "check missed a pg that never appeared"
	grep -q "open: the write never came" "$tmp/out" || fail "$(cat "$tmp/out")"
	check_json "$root" 1
	jqt ".findings[0].kind == \"manifested\" and .findings[0].fmri == \"$A\"" "kind/fmri"
	jqt '.findings[0].open and .findings[0].pg_commit_ns == null' "open window"
	jqt '.findings[0].write_commit == null and .findings[0].cause_commit == 1' "cause, no write"
	jqt '.findings[0].window_us >= 2000' "open until the end of the trace"
	;;
killed)
	root=$(gen killed)
	n=$(ls "$root"/var/svc/trace/svccfg.*.trace | wc -l)
	[ "$n" -eq 1 ] || fail "expected svccfg's file"
	"$SVCTRACE" dump "$root" | grep -q " svccfg\[.*import.return - exit 0" ||
		fail "the killed svccfg's last event is not in the dump"
	check_json "$root" 1
	jqt ".findings[0].kind == \"latent\" and .findings[0].window_us >= 2000" "latent found"
	;;
dump)
	root=$(gen ok)
	"$SVCTRACE" dump "$root/var/svc/trace" >"$tmp/dump" || fail "dump of the trace dir"
	"$SVCTRACE" dump "$root" | cmp -s - "$tmp/dump" || fail "dump ROOT differs from dump DIR"
	[ "$(wc -l <"$tmp/dump")" -eq 71 ] || fail "expected 71 events: $(cat "$tmp/dump")"
	head -1 "$tmp/dump" |
		grep -qx '+0\.000 svccfg\[[0-9]*/[0-9]*\] proc\.start - a command (ppid 0, sid 0, pgid 0)' ||
		fail "first line: $(head -1 "$tmp/dump")"
	sed -n 2p "$tmp/dump" | grep -qx '+[0-9]*\.[0-9]* svccfg\[[0-9]*/[0-9]*\] import\.begin - /tmp/ab\.xml' ||
		fail "second line: $(sed -n 2p "$tmp/dump")"
	# The events' arguments, in words.
	grep -q "svc.configd\[[0-9]*/[0-9]*\] configd.write - Batch (commit 1, by pid [0-9]*)$" \
		"$tmp/dump" || fail "configd.write's arguments"
	grep -q "svcadm\[[0-9]*/[0-9]*\] scf.read $A $A/:properties/restarter (generation 1)$" \
		"$tmp/dump" || fail "scf.read's arguments"
	# Flows are named by their FMRI; the script's order is the merged order.
	grep -q "svc.startd\[[0-9]*/[0-9]*\] startd.restarter_enqueue $B insert" "$tmp/dump" ||
		fail "flow not named"
	awk '{ t = substr($1, 2) + 0; if (t < last) exit 1; last = t }' "$tmp/dump" ||
		fail "not sorted by time"
	grep -n "" "$tmp/dump" | grep -q "^68:.*startd.state_change $A offline>online (cause 4)$" ||
		fail "line 68: $(sed -n 68p "$tmp/dump")"
	grep -n "" "$tmp/dump" | grep -q "^71:.*svcadm\[[0-9]*/[0-9]*\] proc.exit - exit 0$" ||
		fail "last line: $(tail -1 "$tmp/dump")"
	;;
export)
	for s in ok manifested; do
		root=$(gen $s)
		"$SVCTRACE" export "$root" -o "$tmp/$s.json" || fail "export $s"
		python3 -m json.tool "$tmp/$s.json" >/dev/null || fail "export $s: not JSON"
		python3 - "$tmp/$s.json" "$s" <<'PY' || fail "export $s: flows"
import json, sys
from collections import defaultdict
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
assert d["displayTimeUnit"] == "ns"
procs = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
for p in ("svccfg", "svc.configd", "svc.startd", "svcadm"):
    assert any(n.startswith(p + " [") for n in procs), (p, procs)
slices = {(e["pid"], e["tid"], e["ts"]): e for e in ev if e["ph"] == "X"}
flows = defaultdict(list)
for e in ev:
    if e["ph"] in "stf":
        assert e.get("bp") == "e"
        # Each point sits exactly on a slice of its thread (Chrome and Perfetto bind so).
        assert (e["pid"], e["tid"], e["ts"]) in slices, e
        flows[e["id"]].append(e)
assert flows
for fid, pts in flows.items():
    phs = [p["ph"] for p in pts]
    assert phs.count("s") == 1 and phs.count("f") == 1, (fid, phs)
    assert phs[0] == "s" and phs[-1] == "f", (fid, phs)
    names = {slices[(p["pid"], p["tid"], p["ts"])]["name"] for p in pts}
    for step in ("import.instance_committed", "configd.commit", "startd.graph_insert",
                 "startd.restarter_pg_written"):
        assert step in names, (fid, step, names)
fmris = {slices[(p["pid"], p["tid"], p["ts"])]["args"]["fmri"] for pts in flows.values()
         for p in pts}
want = {"svc:/site/a:default", "svc:/site/b:default"} if sys.argv[2] == "ok" else \
       {"svc:/site/a:default"}
assert fmris == want, fmris
# Slices of one thread never overlap partially.
by_thread = defaultdict(list)
for e in ev:
    if e["ph"] == "X":
        by_thread[(e["pid"], e["tid"])].append((e["ts"], e["ts"] + e["dur"]))
for k, v in by_thread.items():
    v.sort()
    for (a0, a1), (b0, b1) in zip(v, v[1:]):
        assert a1 <= b0 + 1e-9, (k, a0, a1, b0)
races = [e for e in ev if e["ph"] == "X" and e.get("cat") == "race"]
if sys.argv[2] == "ok":
    assert not races
else:
    assert len(races) == 1 and races[0]["dur"] >= 3000, races
PY
	done
	"$SVCTRACE" export -o - "$root" | jq -e '.traceEvents | length > 0' >/dev/null ||
		fail "export -o - to stdout"
	# --fmri: one instance's span; its chain whole, every flow kept still ends.
	"$SVCTRACE" export "$root" --fmri svc:/site/a:default -o "$tmp/a.json" || fail "export --fmri"
	python3 - "$tmp/a.json" "$tmp/manifested.json" <<'PY' || fail "export --fmri: content"
import json, sys
from collections import Counter
part = json.load(open(sys.argv[1]))["traceEvents"]
whole = json.load(open(sys.argv[2]))["traceEvents"]
xs = [e for e in part if e["ph"] == "X" and e.get("cat") == "smf"]
assert 0 < len(xs) <= len([e for e in whole if e["ph"] == "X" and e.get("cat") == "smf"])
assert any(e["args"]["fmri"] == "svc:/site/a:default" for e in xs)
phs = Counter((e["id"], e["ph"]) for e in part if e["ph"] in "sf")
ids = {i for i, _ in phs}
assert ids and all(phs[(i, "s")] == 1 and phs[(i, "f")] == 1 for i in ids), phs
PY
	expect2 export "$root" --fmri svc:/no/such:default -o "$tmp/none.json"
	;;
html)
	root=$(gen manifested)
	"$SVCTRACE" html "$root" -o "$tmp/r.html" || fail "html"
	python3 - "$tmp/r.html" <<'PY' || fail "html data"
import json, re, sys
page = open(sys.argv[1]).read()
assert "/*SVCTRACE_DATA*/" not in page, "placeholder left"
m = re.search(r"const DATA = (.*?);\n", page)
assert m, "no DATA"
data = m.group(1)
assert "</script" not in data.lower()
d = json.loads(data)
assert d["focus"]["fmri"] == "svc:/site/a:default" and d["focus"]["kind"] == "manifested"
assert d["focus"]["window_us"] >= 3000
assert d["focus"]["end_ns"] > d["focus"]["start_ns"]
# The generic finding, in words: who read what, who wrote it, which commit caused it.
assert d["focus"]["object"] == "svc:/site/a:default/:properties/restarter", d["focus"]
assert re.match(r"svcadm\[\d+\] read svc:/site/a:default/:properties/restarter and found it "
                r"absent \(it exited 3\), before svc\.startd\[\d+\] created it \(commit 3\), a "
                r"write caused by commit 1 \(Batch\) of svccfg\[\d+\]\.$", d["focus"]["explain"]), d["focus"]
assert d["summary"] == {"instances": 1, "latent": 0, "manifested": 1, "drops": 0,
                        "string_drops": 0}
assert any(e["name"] == "svcadm.result" and e["focus"] for e in d["events"])
assert min(e["t"] for e in d["events"]) == 0
assert {p["prog"] for p in d["processes"]} == {"svccfg", "svc.configd", "svc.startd", "svcadm"}
# Self-contained: nothing fetched from the network.
assert not re.search(r"""(src|href)\s*=\s*["']?\s*(https?:)?//""", page, re.I), "remote resource"
assert not re.search(r"""url\(\s*["']?\s*(https?:)?//|@import|fetch\(""", page, re.I)
PY
	# --fmri picks an instance; one that is not in the trace is an error.
	root=$(gen ok)
	"$SVCTRACE" html "$root" -o "$tmp/b.html" --fmri site/b:default || fail "html --fmri"
	grep -q '"focus":{"fmri":"svc:/site/b:default"' "$tmp/b.html" || fail "focus on b"
	grep -q '"kind":"none"' "$tmp/b.html" || fail "kind none"
	"$SVCTRACE" html "$root" -o "$tmp/c.html" --fmri svc:/nope:default 2>"$tmp/err" &&
		fail "html --fmri of an unknown instance succeeded"
	grep -q "no instance svc:/nope:default" "$tmp/err" || fail "message: $(cat "$tmp/err")"
	;;
usage)
	expect2
	expect2 frobnicate
	expect2 dump
	expect2 export "$tmp"
	expect2 check --bogus "$tmp"
	expect2 html "$tmp"
	expect2 check "$tmp/does-not-exist"
	grep -q "does-not-exist: No such file or directory" "$tmp/err" || fail "$(cat "$tmp/err")"
	mkdir -p "$tmp/empty"
	expect2 check "$tmp/empty"
	grep -q "no trace events" "$tmp/err" || fail "empty dir message: $(cat "$tmp/err")"
	echo garbage >"$tmp/empty/x.trace"
	expect2 dump "$tmp/empty"
	"$SVCTRACE" --help | grep -q "svctrace check" || fail "--help"
	;;
*)
	fail "unknown case $1"
	;;
esac
exit 0
