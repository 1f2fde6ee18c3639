#!/bin/bash
# bench-importwait.sh BUILD: what the import wait costs.  svccfg import of the same manifests
# (fresh service names each round, so nothing is skipped as unchanged) with the wait and with
# SVCCFG_IMPORT_NOWAIT=1, alternating rounds so that both see the same repository size and
# machine load (issue 14's goal: with the wait <= 1.1x without, median of the rounds).  Measured
# two ways: one svccfg command per manifest, and one command for the whole directory (one wait
# at the end).  Starts its own configd and startd.  Never fails on speed.
set -euo pipefail
source "$(dirname "$0")/bench-window.sh"
source "$(dirname "$0")/../manifests.sh"

N=${BENCH_IMPORTWAIT_N:-100}
ROUNDS=${BENCH_IMPORTWAIT_ROUNDS:-5}

# manifests DIR TAG: N manifests of disabled transient services bench/TAG-i, in DIR.
manifests() {
	local dir=$1 tag=$2 i
	mkdir -p "$dir"
	for ((i = 0; i < N; i++)); do
		transient_manifest "bench/$tag-$i" "$tag-$i" >"$dir/$tag-$i.xml"
	done
}

ms_now() { echo $(($(date +%s%N) / 1000000)); }

# each_file DIR: one svccfg per manifest; prints the wall time in ms.
each_file() {
	local t0 f
	t0=$(ms_now)
	for f in "$1"/*.xml; do
		"$BUILD/cli/svccfg" import "$f" >/dev/null
	done
	echo $(($(ms_now) - t0))
}

one_command() {
	local t0
	t0=$(ms_now)
	"$BUILD/cli/svccfg" import "$1" >/dev/null
	echo $(($(ms_now) - t0))
}

# settle: polls until startd has taken every imported instance to disabled, so that no round
# pays for the restarter pgs another round left startd to write.
TOTAL=0
settle() {
	wait_until '[ "$("$SVCPROP" -p restarter/state "svc:/bench/*" 2>/dev/null |
		grep -c disabled)" -ge "$TOTAL" ]' "startd did not settle" 60
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2fx", b ? a / b : 0 }'; }

# median X...: of ratios printed as "1.23x".
median() { printf '%s\n' "$@" | tr -d x | sort -g | awk '{v[NR] = $1} END {printf "%.2fx", v[int((NR + 1) / 2)]}'; }
declare -A RATIOS

bench_sandbox_start "${1:?usage: bench-importwait.sh BUILD}"
echo "svccfg import with the wait vs SVCCFG_IMPORT_NOWAIT=1, $N manifests, $ROUNDS rounds (goal <= 1.1x):"
for ((r = 0; r < ROUNDS; r++)); do
	for mode in file dir; do
		manifests "$ROOT/$mode$r-nw" "nw$mode$r"
		manifests "$ROOT/$mode$r-w" "w$mode$r"
		run=one_command what="one command, whole directory"
		[ "$mode" = dir ] || run=each_file what="one command per manifest"
		# Which goes first alternates, so neither always meets the other's leftovers.
		order="nowait wait"
		[ $((r % 2)) -eq 0 ] || order="wait nowait"
		for m in $order; do
			TOTAL=$((TOTAL + N))
			if [ "$m" = nowait ]; then
				nw=$(SVCCFG_IMPORT_NOWAIT=1 $run "$ROOT/$mode$r-nw")
			else
				w=$($run "$ROOT/$mode$r-w")
			fi
			settle
		done
		RATIOS[$mode]+="$(ratio "$w" "$nw") "
		echo "  round $((r + 1)), $what: wait $w ms, no wait $nw ms: $(ratio "$w" "$nw")"
	done
done
# shellcheck disable=SC2086 # the ratios are words
echo "  median, one command per manifest: $(median ${RATIOS[file]}) (goal <= 1.1x)"
# shellcheck disable=SC2086
echo "  median, one command, whole directory: $(median ${RATIOS[dir]}) (goal <= 1.1x)"
