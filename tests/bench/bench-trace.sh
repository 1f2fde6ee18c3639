#!/bin/bash
# bench-trace.sh BUILD: the trace recorder's cost per event, tracing off and on (goal <= 30 ns
# enabled), over 10^7 events (BENCH_TRACE_EVENTS).  No daemon needed.  Never fails on speed.
set -euo pipefail
build=$(cd "${1:?usage: bench-trace.sh BUILD}" && pwd)
"$build/tests/bench/bench-trace" "${BENCH_TRACE_EVENTS:-10000000}"
