#!/bin/bash
# bench-window.sh BUILD: the race window, unloaded: from the return of the commit of a new
# instance to svc.startd's first write of its restarter pg, p50/p99 over 1,000 instances
# (goal p50 <= 2 ms, p99 <= 20 ms).  Starts its own configd and startd on a private root.
# Never fails on speed.
#
# The sandbox functions below are also sourced by bench-importwait.sh (then nothing runs here).

BENCH_ROOT=""
BENCH_PIDS=()

bench_sandbox_cleanup() {
	local p
	for p in "${BENCH_PIDS[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ -z "$BENCH_ROOT" ] || rm -rf "$BENCH_ROOT"
}

bench_wait_for() {
	local what=$1 pid=$2 deadline=$((SECONDS + 20))
	shift 2
	until "$@"; do
		kill -0 "$pid" 2>/dev/null || { echo "bench: $what exited" >&2; exit 1; }
		[ "$SECONDS" -lt "$deadline" ] || { echo "bench: $what not ready" >&2; exit 1; }
		sleep 0.01
	done
}

# bench_sandbox_start BUILD: sets BUILD, BENCH_ROOT and SMF_ROOT; configd then startd, ready.
bench_sandbox_start() {
	BUILD=$(cd "$1" && pwd)
	BENCH_ROOT=$(mktemp -d "${TMPDIR:-/tmp}/minismf-bench.XXXXXX")
	chmod 0755 "$BENCH_ROOT"
	export SMF_ROOT="$BENCH_ROOT"
	unset SMF_DELAY SVCCFG_IMPORT_NOWAIT SVCCFG_IMPORT_TIMEOUT
	trap bench_sandbox_cleanup EXIT
	"$BUILD/configd/svc.configd" --root "$BENCH_ROOT" >>"$BENCH_ROOT/configd.log" 2>&1 &
	BENCH_PIDS+=($!)
	bench_wait_for svc.configd "$!" test -S "$BENCH_ROOT/etc/svc/volatile/repository_door"
	"$BUILD/startd/svc.startd" --root "$BENCH_ROOT" >>"$BENCH_ROOT/startd.log" 2>&1 &
	# startd first: stopped before configd.
	BENCH_PIDS=("$!" "${BENCH_PIDS[@]}")
	bench_wait_for svc.startd "$!" grep -qs 'ready$' "$BENCH_ROOT/startd.log"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	bench_sandbox_start "${1:?usage: bench-window.sh BUILD}"
	"$BUILD/tests/bench/bench-window" "${BENCH_WINDOW_N:-1000}"
fi
