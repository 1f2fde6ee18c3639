#!/bin/bash
# bench-svcrace.sh BUILD: svcrace on examples/races/import-enable.sh (import, then enable -s),
# each figure printed beside its goal (docs/performance.md, "svcrace"):
#   1. runs/s with a fresh sandbox per run (its own configd and startd), J = cores, the default
#      depth (goal >= 10 runs/s), with the fixes off and with the default fixes; beside them
#      J = 2 x cores (runs mostly sleep in their delays) and no delay point (--depth 0: the
#      cost of the sandbox and the script alone); the sandbox's start-up (configd and startd
#      ready) separately;
#   2. runs until the first reproduction, random schedules and no fixed delay, median over 10
#      seeds (goal <= 5): the first race (latent or manifested) and the first manifested race,
#      over seeds S..S+19 for S = 1000, 2000, ... 10000 (BENCH_SVCRACE_SEEDS);
#   3. replay: the first manifested seed found, replayed 20 times: the race in 20 of 20, and
#      how many manifested;
#   4. shrink of that seed (default --confirm 5): its time (goal <= 30 s), and what it gave.
# Never fails on speed; fails only when svcrace could not run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=$(cd "${1:?usage: bench-svcrace.sh BUILD}" && pwd)
SVCRACE=$build/cli/race/svcrace
SCRIPT=$build/examples/races/import-enable.sh
RUNS=${BENCH_SVCRACE_RUNS:-60}
SEEDS=${BENCH_SVCRACE_SEEDS:-10}
source "$here/../../tools/sandbox.sh"
sandbox_tmpdir tmp bench-svcrace
for p in "$SVCRACE" "$SCRIPT"; do
	[ -x "$p" ] || { echo "bench-svcrace: $p is not built" >&2; exit 1; }
done
export TMPDIR=$tmp
jobs=$(nproc)

# svcrace_json ARGS...: runs svcrace, its JSON in $tmp/r.json; fails unless it ran (0, 1, 4).
svcrace_json() {
	local rc=0
	"$SVCRACE" "$@" --json "$tmp/r.json" "$SCRIPT" >"$tmp/out" 2>&1 || rc=$?
	case $rc in
	0 | 1 | 4) ;;
	*) cat "$tmp/out" >&2; echo "bench-svcrace: svcrace $* exited $rc" >&2; exit 1 ;;
	esac
}
j() { jq -r "$1" "$tmp/r.json"; }
rate() { awk -v x="$(j .summary.runs_per_s_x1000)" 'BEGIN { printf "%.1f", x / 1000 }'; }

echo "svcrace on import-enable.sh, $(nproc) CPUs, $RUNS runs per line (seeds 1..$RUNS)"
printf '  %-44s %8s %14s %14s %11s  %s\n' setting runs/s "start-up p50" "start-up p99" \
	"script p50" goal
for setting in "none 2 $jobs" "default 2 $jobs" "none 2 $((2 * jobs))" "none 0 $jobs" \
	"default 0 $jobs"; do
	read -r fix depth j <<<"$setting"
	svcrace_json run --runs "$RUNS" --jobs "$j" --seed 1 --fix "$fix" --depth "$depth"
	goal="-"
	[ "$depth" != 2 ] || [ "$j" != "$jobs" ] || goal=">= 10 runs/s"
	printf '  %-44s %8s %11s ms %11s ms %8s ms  %s\n' \
		"--fix $fix, depth $depth, $j jobs$([ "$depth" = 0 ] && echo " (no delay)")" \
		"$(rate)" "$(j .summary.startup_ms_p50)" "$(j .summary.startup_ms_p99)" \
		"$(j .summary.script_ms_p50)" "$goal"
done

# 2. Runs to the first race and the first manifested race, per seed block (run index + 1).
first_race=() first_manifested=()
found_seed=""
for ((k = 1; k <= SEEDS; k++)); do
	base=$((k * 1000))
	svcrace_json run --runs 20 --jobs "$jobs" --seed "$base" --fix none
	fr=$(j "[.runs[] | select(.verdict | endswith(\"race\")) | .seed] | min // empty")
	fm=$(j "[.runs[] | select(.verdict == \"manifested race\") | .seed] | min // empty")
	first_race+=("$([ -n "$fr" ] && echo $((fr - base + 1)) || echo 21)")
	first_manifested+=("$([ -n "$fm" ] && echo $((fm - base + 1)) || echo 21)")
	[ -n "$found_seed" ] || found_seed=$fm
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
echo "runs until the first reproduction, --fix none, random schedules (depth 2), $SEEDS seeds"
echo "(21: none in 20 runs)"
printf '  %-30s %6s %6s  %-32s %s\n' "" median max "per seed" goal
printf '  %-30s %6s %6s  %-32s %s\n' "first race (latent or manif.)" \
	"$(median "${first_race[@]}")" "$(printf '%s\n' "${first_race[@]}" | sort -n | tail -n 1)" \
	"${first_race[*]}" "median <= 5"
printf '  %-30s %6s %6s  %-32s %s\n' "first manifested race" \
	"$(median "${first_manifested[@]}")" \
	"$(printf '%s\n' "${first_manifested[@]}" | sort -n | tail -n 1)" "${first_manifested[*]}" \
	"median <= 5"

[ -n "$found_seed" ] || { echo "bench-svcrace: no manifested race to replay and shrink" >&2; exit 1; }
echo
svcrace_json replay --seed "$found_seed" --runs 20 --jobs "$jobs" --fix none
schedule=$(j '.runs[0].schedule')
echo "replay of seed $found_seed ('$schedule'), 20 times: race in" \
	"$(j '[.runs[] | select(.verdict | endswith("race"))] | length') of 20" \
	"($(j '[.runs[] | select(.verdict == "manifested race")] | length') manifested) (goal: race in 20 of 20)"

t0=$(date +%s%N)
rc=0
(cd "$tmp" && "$SVCRACE" shrink --seed "$found_seed" --jobs "$jobs" --fix none "$SCRIPT") \
	>"$tmp/shrink" 2>&1 || rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$rc" -le 1 ] || { cat "$tmp/shrink" >&2; echo "bench-svcrace: shrink exited $rc" >&2; exit 1; }
printf 'shrink of seed %s: %d.%03d s (goal <= 30 s): %s\n' "$found_seed" $((ms / 1000)) \
	$((ms % 1000)) "$(grep -E '^(minimal schedule|no schedule)' "$tmp/shrink")"
grep '^SMF_DELAY=' "$tmp/shrink" | sed 's/^/  /'
