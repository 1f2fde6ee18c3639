#!/bin/bash
# bench-burst.sh BUILD: svc.startd's insert path under a burst.  One manifest of 100 services x
# 100 disabled instances (BENCH_BURST_SERVICES x BENCH_BURST_INSTANCES) is imported with
# SVCCFG_IMPORT_NOWAIT=1 (the command returns once its batch is committed), and bench-burst
# times, from the command's start, the moment the last instance's restarter pg is written
# (goal: <= 2 s for 10,000 instances).  Its peer, in the same run: the same import into a
# configd with no startd attached (nothing competes with the import for the CPUs).  Each of
# BENCH_BURST_ROUNDS rounds (default 3) starts fresh roots; the median is printed.  Never
# fails on speed.
set -euo pipefail

S=${BENCH_BURST_SERVICES:-100}
I=${BENCH_BURST_INSTANCES:-100}
ROUNDS=${BENCH_BURST_ROUNDS:-3}
N=$((S * I))

ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }

# One round, in a process of its own (each sandbox is its own, with its own traps).
if [ "${2:-}" = --round ]; then
	source "$(dirname "$0")/../../tools/sandbox.sh"
	source "$(dirname "$0")/../manifests.sh"
	BUILD=$(cd "$1" && pwd)
	sandbox_use_build "$BUILD"
	unset SMF_DELAY SVCCFG_IMPORT_TIMEOUT
	export SVCCFG_IMPORT_NOWAIT=1
	sandbox_tmpdir work minismf-bench-burst
	burst_manifest bench/burst "$S" "$I" 0 >"$work/burst.xml"

	sandbox_new minismf-bench
	sandbox_start_configd
	t0=$(date +%s%N)
	"$SVCCFG" import "$work/burst.xml" >/dev/null 2>&1
	peer=$(ms_since "$t0")
	sandbox_halt configd

	sandbox_new minismf-bench
	sandbox_start_configd
	sandbox_start_startd
	out=$("$BUILD/tests/bench/bench-burst" "$N" "$SVCCFG" import "$work/burst.xml")
	echo "$out"
	echo "  peer: the same import with no startd attached: $peer ms"
	exit 0
fi

BUILD=${1:?usage: bench-burst.sh BUILD}
echo "a burst of $N new instances ($S services x $I, one manifest), until svc.startd has" \
	"written every restarter pg (goal <= 2 s for 10,000), $ROUNDS rounds:"
totals=() afters=() peers=()
for ((r = 1; r <= ROUNDS; r++)); do
	out=$(bash "$0" "$BUILD" --round)
	echo "  round $r:"
	echo "$out" | sed 's/^/  /'
	totals+=("$(echo "$out" | sed -n 's/.*every restarter pg \([0-9]*\) ms after its start.*/\1/p')")
	afters+=("$(echo "$out" | sed -n 's/.* \([0-9]*\) ms after its return.*/\1/p')")
	peers+=("$(echo "$out" | sed -n 's/.*no startd attached: \([0-9]*\) ms/\1/p')")
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
med=$(median "${totals[@]}") after=$(median "${afters[@]}") peer=$(median "${peers[@]}")
echo "  median: every restarter pg $med ms after the import started (goal <= 2000 ms)," \
	"$(awk -v t="$med" -v n="$N" 'BEGIN { printf "%.0f", t * 1000 / n }') us per instance;" \
	"$after ms of it after the import returned" \
	"($(awk -v t="$after" -v n="$N" 'BEGIN { printf "%.0f", t * 1000 / n }') us per instance);" \
	"the import alone, no startd: $peer ms"
