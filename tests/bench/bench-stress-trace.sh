#!/bin/bash
# bench-stress-trace.sh BUILD: what tracing costs the whole system: stress throughput
# (iterations/s of import + enable -s, phase 2 of tools/stress.sh) with SMF_TRACE=1 in every
# process vs off, in the same run (goal: on >= 0.95x off).  The "on" figure counts the phase
# only, not the svctrace check, export and report that the harness runs afterwards.  Off and on alternate, 3 rounds of
# 15 s each (BENCH_TRACE_ROUNDS, BENCH_TRACE_SECONDS), so drift of the machine hits both alike.
# Never fails on speed.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: bench-stress-trace.sh BUILD}" && pwd)
rounds=${BENCH_TRACE_ROUNDS:-3}
seconds=${BENCH_TRACE_SECONDS:-15}
source "$here/../../tools/sandbox.sh"
sandbox_tmpdir tmp bench-stress-trace

# one_run on|off: writes the iterations and elapsed microseconds of one phase-2 run to $tmp/n.
one_run() {
	local args=(--no-trace)
	[ "$1" = off ] || args=(--trace-json "$tmp/trace.json" --report "$tmp/report.html")
	"$here/../../tools/stress.sh" --phases 2 --seconds "$seconds" "${args[@]}" \
		-o "$tmp/r.json" "$build" >"$tmp/out" 2>&1 || { cat "$tmp/out" >&2; exit 1; }
	jq -r '.phases[1] | "\(.iterations) \(.elapsed_us)"' "$tmp/r.json" >"$tmp/n"
	rm -f "$tmp/r.json" "$tmp/trace.json" "$tmp/report.html"
}

declare -A n=([on]=0 [off]=0) us=([on]=0 [off]=0)
for ((r = 1; r <= rounds; r++)); do
	for mode in off on; do
		one_run "$mode"
		read -r i e <"$tmp/n"
		n[$mode]=$((n[$mode] + i))
		us[$mode]=$((us[$mode] + e))
	done
done
awk -v non="${n[on]}" -v uon="${us[on]}" -v noff="${n[off]}" -v uoff="${us[off]}" \
	-v rounds="$rounds" -v s="$seconds" 'BEGIN {
	off = noff / (uoff / 1e6); on = non / (uon / 1e6)
	printf "stress throughput, tracing on vs off (%d rounds of %d s each, alternating)\n", rounds, s
	printf "  tracing off                  %8.1f iterations/s (%d)\n", off, noff
	printf "  tracing on (SMF_TRACE=1)     %8.1f iterations/s (%d)\n", on, non
	printf "  on / off                     %8.3fx   goal >= 0.95x\n", on / off
}'
