#!/bin/bash
# bench-fixon.sh BUILD: the fix, counted: 10,000 import + "svcadm enable -s" cycles
# (BENCH_FIXON_CYCLES) with the import wait on, 4 workers, CPU load and random delays at
# startd's two points, must all succeed (goal: 0 failures).  One tools/stress.sh --phases 2
# run.  Prints the count; exits non-zero only when the run could not be made (a failure count
# above 0 is printed, and the harness's own status says so too).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: bench-fixon.sh BUILD}" && pwd)
cycles=${BENCH_FIXON_CYCLES:-10000}
workers=4
delay="startd.graph.before_insert=rand:0-5ms,startd.restarter.before_pg_write=rand:0-20ms"
source "$here/../../tools/sandbox.sh"
sandbox_tmpdir tmp bench-fixon

"$here/../../tools/stress.sh" --no-trace --phases 2 --workers "$workers" \
	--iterations $(((cycles + workers - 1) / workers)) --delay "$delay" --seed 1 \
	-o "$tmp/r.json" "$build" >"$tmp/out" 2>&1 || true
[ -s "$tmp/r.json" ] || { cat "$tmp/out" >&2; echo "bench: the run failed" >&2; exit 1; }
jq -r --arg delay "$delay" '.knobs.load as $load | .phases[1] |
	"fix on (import wait): \(.iterations) cycles, 4 workers, load \($load)\n" +
	"  failures                     \(.failures)   goal 0\n" +
	"  of which misconfigured       \(.race)\n" +
	"  cycles/s                     \(.iterations / (.elapsed_us / 1e6) * 10 | floor / 10)\n" +
	"  delays: \($delay)"' "$tmp/r.json"
