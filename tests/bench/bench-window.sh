#!/bin/bash
# bench-window.sh BUILD: the race window, unloaded: from the return of the commit of a new
# instance to svc.startd's first write of its restarter pg, p50/p99 over 1,000 instances
# (goal p50 <= 2 ms, p99 <= 20 ms).  Starts its own configd and startd on a private root.
# Never fails on speed.
#
# bench_sandbox_start below is also sourced by bench-importwait.sh and bench-svcs.sh (then
# nothing runs here).

source "$(dirname "${BASH_SOURCE[0]}")/../../tools/sandbox.sh"

# bench_sandbox_start BUILD: sets BUILD, ROOT and SMF_ROOT (tools/sandbox.sh); configd then
# startd, ready, with none of the harness's knobs; both stopped at exit (startd first).
bench_sandbox_start() {
	BUILD=$(cd "$1" && pwd)
	sandbox_use_build "$BUILD"
	sandbox_new minismf-bench
	unset SMF_DELAY SVCCFG_IMPORT_NOWAIT SVCCFG_IMPORT_TIMEOUT
	sandbox_start_configd
	sandbox_start_startd
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	bench_sandbox_start "${1:?usage: bench-window.sh BUILD}"
	"$BUILD/tests/bench/bench-window" "${BENCH_WINDOW_N:-1000}"
fi
