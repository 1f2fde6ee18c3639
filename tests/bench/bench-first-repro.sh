#!/bin/bash
# bench-first-repro.sh BUILD: how fast `make stress` reproduces the race: time from the start of
# phase 1 to the return of the first import whose svcadm then failed "misconfigured", median
# over 10 runs (BENCH_REPRO_RUNS), in two settings:
#   - random delay points (seeds 1..10, so a run replays; goal: median <= 1 s);
#   - load alone: busy loops on every CPU, no delay point at all (goal: median <= 60 s; a run
#     that has not reproduced after 60 s counts as "> 60 s").
# Each run is tools/stress.sh --phases 1 --stop-at-first with its own sandbox and daemons.
# Never fails on speed; fails only when a run could not be made.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: bench-first-repro.sh BUILD}" && pwd)
runs=${BENCH_REPRO_RUNS:-10}
source "$here/../../tools/sandbox.sh"
sandbox_tmpdir tmp bench-first-repro
RANDOM_DELAYS="startd.graph.before_insert=rand:0-5ms,startd.restarter.before_pg_write=rand:0-50ms,configd.notify.before_send=rand:0-2ms"

# one_setting NAME DELAY SECONDS: prints "NAME median max reproduced/runs" in microseconds.
one_setting() {
	local name=$1 delay=$2 seconds=$3 i us list=() missed=0
	for ((i = 1; i <= runs; i++)); do
		"$here/../../tools/stress.sh" --no-trace --phases 1 --stop-at-first --workers 4 \
			--seconds "$seconds" --delay "$delay" --seed "$i" -o "$tmp/r.json" "$build" \
			>"$tmp/out" 2>&1 || true
		[ -s "$tmp/r.json" ] || { cat "$tmp/out" >&2; echo "bench: run $i failed" >&2; exit 1; }
		us=$(jq -r '.phases[0].first_reproduction_us // empty' "$tmp/r.json")
		if [ -z "$us" ]; then
			missed=$((missed + 1))
			us=$((seconds * 1000000 + 1))
		fi
		list+=("$us")
		rm -f "$tmp/r.json"
	done
	printf '%s\n' "${list[@]}" | sort -n | awk -v name="$name" -v runs="$runs" -v missed="$missed" '
		{ v[n++] = $1 }
		END { printf "%s %d %d %d/%d\n", name, v[int((n - 1) / 2)], v[n - 1], runs - missed, runs }'
}

s() { awk -v us="$1" 'BEGIN { printf "%.3f", us / 1e6 }'; }
echo "time to first reproduction, median of $runs runs ($(nproc) CPUs, 4 workers, load $(nproc))"
printf '  %-34s %10s %10s %11s  %s\n' setting "median s" "max s" reproduced goal
read -r _ med max rep <<<"$(one_setting random "$RANDOM_DELAYS" 30)"
printf '  %-34s %10s %10s %11s  %s\n' "random delays (seeds 1..$runs)" "$(s "$med")" "$(s "$max")" "$rep" "median <= 1 s"
read -r _ med max rep <<<"$(one_setting load "" 60)"
printf '  %-34s %10s %10s %11s  %s\n' "load alone, no delay point" "$(s "$med")" "$(s "$max")" "$rep" "median <= 60 s"
echo "  random delays: $RANDOM_DELAYS"
