#!/bin/bash
# The harness on the deterministic reproduction: svc.startd holds every first restarter pg
# write for 500 ms (far longer than spawning svcadm takes, even under the sanitizers on a loaded
# machine, so the order is certain, not likely).  One worker, 20 iterations per phase, no load:
#   phase 1 (no wait): every iteration is the race, the first one included, with svcadm's exit 3
#     and its misconfigured message, and every window is open (> 0);
#   phase 2 (wait): every iteration succeeds and no window is open when the import returns.
# The trace agrees (svctrace check through the harness): 20 latent and 20 manifested races in
# phase 1, none in phase 2 (no false positive), no event lost.
# trace.json's flows all end and the reproduction's chain spans the four programs; report.html
# renders in headless Chromium (tests/race/report, when Chromium exists).
# Also: the harness exits 0, writes its JSON, trace.json and report.html, and leaves no daemon
# and no sandbox behind.
# usage: test-stress-deterministic.sh PATH-OF-stress.sh BUILD-DIR
set -euo pipefail

STRESS=${1:?usage: test-stress-deterministic.sh stress.sh BUILD}
BUILD=${2:?usage: test-stress-deterministic.sh stress.sh BUILD}
N=20
source "$(dirname "$0")/../../tools/sandbox.sh"
sandbox_tmpdir tmp minismf-stress-test

fail() {
	echo "[stress-deterministic] FAIL: $*" >&2
	echo "--- harness output ---" >&2
	cat "$tmp/out" >&2
	[ ! -s "$tmp/results.json" ] || { echo "--- results ---" >&2; cat "$tmp/results.json" >&2; }
	exit 1
}

# q JQ-EXPR: the value of JQ-EXPR in the results.
q() { jq -r "$1" "$tmp/results.json"; }

expect() {
	local what=$1 expr=$2 want=$3 got
	got=$(q "$expr")
	[ "$got" = "$want" ] || fail "$what ($expr): expected $want, got $got"
}

rc=0
"$STRESS" --workers 1 --iterations "$N" --load 0 \
	--delay startd.restarter.before_pg_write=500ms --seed 42 \
	--json "$tmp/results.json" --trace-json "$tmp/trace.json" --report "$tmp/report.html" \
	"$BUILD" >"$tmp/out" 2>&1 || rc=$?
[ "$rc" -eq 0 ] || fail "the harness exited with status $rc"
[ -s "$tmp/results.json" ] || fail "no results written"

expect "phase 1 iterations" '.phases[0].iterations' "$N"
expect "phase 1 races" '.phases[0].race' "$N"
expect "phase 1 other failures" '.phases[0].other' 0
expect "phase 1 first reproduction" '.phases[0].first_reproduction_iteration' 1
expect "phase 1 open windows" '.phases[0].latent' "$N"
expect "phase 1 median window above 250 ms" '.phases[0].window_us.p50 > 250000' true
expect "phase 2 iterations" '.phases[1].iterations' "$N"
expect "phase 2 failures" '.phases[1].failures' 0
expect "phase 2 open windows" '.phases[1].latent' 0
# The trace (svctrace check) sees what the client saw: every phase 1 import returned before its
# restarter pg existed and every svcadm read found none; with the wait, not one (no false
# positive).
expect "phase 1 imports in the trace" '.phases[0].trace.imported' "$N"
expect "phase 2 imports in the trace" '.phases[1].trace.imported' "$N"
expect "phase 1 latent imports in the trace" '.phases[0].trace.latent' "$N"
expect "phase 1 manifested races in the trace" '.phases[0].trace.manifested' "$N"
expect "phase 1 trace windows above 250 ms" '.phases[0].trace.window_us.p50 > 250000' true
expect "phase 2 latent imports in the trace" '.phases[1].trace.latent' 0
expect "phase 2 manifested races in the trace" '.phases[1].trace.manifested' 0
expect "events lost" '.phases[0].trace.drops + .phases[1].trace.drops' 0
fmri=$(q '.first_reproduction.fmri')
# trace.json (the first reproduction's span): every flow that starts ends, and the reproduced
# instance's chain runs from svccfg through configd and startd to svcadm.
python3 - "$tmp/trace.json" "$fmri" <<'PY' || fail "trace.json: flows or chain"
import json, sys
from collections import Counter
ev = json.load(open(sys.argv[1]))["traceEvents"]
phs = Counter((e["id"], e["ph"]) for e in ev if e["ph"] in "sf")
ids = {i for i, _ in phs}
assert ids and all(phs[(i, "s")] == 1 and phs[(i, "f")] == 1 for i in ids), phs
procs = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
mine = [e for e in ev if e["ph"] == "X" and e.get("args", {}).get("fmri") == sys.argv[2]]
progs = {procs[e["pid"]].split(" ")[0] for e in mine}
assert {"svccfg", "svc.configd", "svc.startd", "svcadm"} <= progs, progs
names = {e["name"] for e in mine}
for n in ("import.instance_committed", "svcadm.result", "startd.graph_insert",
          "startd.restarter_pg_written", "configd.commit"):
    assert n in names, (n, names)
PY
grep -q 'const DATA = {' "$tmp/report.html" || fail "report.html holds no data"
# The real page renders in headless Chromium (tests/race/report; it skips, 77, without Chromium).
rrc=0
TEST_REPORT_HTML=$tmp/report.html bash "$(dirname "$0")/../race/report/test-report.sh" \
	>"$tmp/report.out" 2>&1 || rrc=$?
[ "$rrc" -eq 0 ] || [ "$rrc" -eq 77 ] || { cat "$tmp/report.out" >&2; fail "report.html did not render"; }
[ "$rrc" -eq 0 ] && echo "[stress-deterministic] report.html: $(tail -n 1 "$tmp/report.out")" ||
	echo "[stress-deterministic] note: no Chromium here, report.html not rendered"
expect "the verdict" '.ok' true
expect "the seed" '.knobs.seed' 42
fmri=$(q '.first_reproduction.fmri')
expect "svcadm's message" '.first_reproduction.message' \
	"svcadm: $fmri is misconfigured (lacks \"restarter\" property group)."
grep -q '^1 no wait ' "$tmp/out" || fail "no phase 1 row in the table"
# The race is decided when the first import returns, long before its window closes.
expect "time to the first reproduction below the held write" \
	'.phases[0].first_reproduction_us < .phases[0].window_us.p50' true

# Nothing left behind.
[ ! -e "$(q .sandbox)" ] || fail "sandbox $(q .sandbox) left behind"
for p in "$(q .pids.configd)" "$(q .pids.startd)"; do
	! kill -0 "$p" 2>/dev/null || fail "daemon $p still running"
done
echo "[stress-deterministic] ok: $N/$N races without the wait, $N/$N successes with it"
