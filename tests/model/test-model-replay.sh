#!/bin/bash
# The model's counter-example on the real system (docs/model.md, "The counter-example on the
# real system"): for each client kind an example script exists for (import+enable:
# examples/races/import-enable.sh; add+enable: add-enable.sh), the SMF_DELAY schedule the model
# derives from its `none` counter-example (tools/model.sh --cell none CLIENT, the same
# derivation make model prints) is replayed by svcrace on that script:
#   - with --fix none it must find the race, manifested (svcadm "misconfigured", exit 1);
#   - with the fix the model verifies for that client (import-wait, add-wait: the model's
#     search of that cell must say verified) the same schedule must find nothing (exit 0);
#   - svcrace reports both runs as conforming to the model (svctrace conform).
# The two clients run side by side (each replay takes a few seconds: startd's shutdown waits out
# the repository thread's delays).  No spin: a failure that says to run `make deps`.
# usage: test-model-replay.sh SOURCE-ROOT   (env: SVCRACE, EXAMPLES: the build's svcrace and
# examples/races)
set -u
SRC=${1:?usage: test-model-replay.sh SOURCE-ROOT}
: "${SVCRACE:?}" "${EXAMPLES:?}"

fail() {
	echo "test-model-replay: $*" >&2
	exit 1
}

command -v spin >/dev/null 2>&1 ||
	fail "spin is not installed: run 'make deps' (it installs the Debian package spin)"
OUT=$(mktemp -d "${TMPDIR:-/tmp}/test-model-replay.XXXXXX") || fail "mktemp"
trap 'rm -rf "$OUT"' EXIT
mkdir "$OUT/tmp"

# one CLIENT SCRIPT FIX: the schedule of none / CLIENT, replayed without and with FIX.
one() {
	local client=$1 script=$2 fix=$3 d="$OUT/$1" sched rc
	mkdir -p "$d"
	"$SRC/tools/model.sh" --cell none "$client" --json "$d/none.json" >"$d/none.out" 2>&1 ||
		{ echo "tools/model.sh --cell none $client failed: $(tail -n 5 "$d/none.out")"; return 1; }
	"$SRC/tools/model.sh" --cell "$fix" "$client" --json "$d/fix.json" >"$d/fix.out" 2>&1 ||
		{ echo "tools/model.sh --cell $fix $client failed: $(tail -n 5 "$d/fix.out")"; return 1; }
	[ "$(jq -r '.cells[0].verdict' "$d/none.json")" = violated ] ||
		{ echo "none / $client: not violated"; return 1; }
	[ "$(jq -r '.cells[0].verdict' "$d/fix.json")" = verified ] ||
		{ echo "$fix / $client: the model does not verify it"; return 1; }
	sched=$(jq -r '.cells[0].schedule.smf_delay // empty' "$d/none.json")
	[ -n "$sched" ] || { echo "none / $client: no SMF_DELAY schedule"; return 1; }
	grep -q "SMF_DELAY='$sched'" "$d/none.out" ||
		{ echo "none / $client: the printed schedule is not $sched"; return 1; }
	echo "$client: schedule $sched"

	rc=0
	TMPDIR=$OUT/tmp "$SVCRACE" replay --seed 1 --schedule "$sched" --fix none \
		"$EXAMPLES/$script" >"$d/race.out" 2>&1 || rc=$?
	[ "$rc" -eq 1 ] || { echo "$client, --fix none: exit $rc, not 1 (a race)"; cat "$d/race.out"; return 1; }
	grep -q "^seed 1: manifested race" "$d/race.out" ||
		{ echo "$client, --fix none: no manifested race"; cat "$d/race.out"; return 1; }
	grep -q 'is misconfigured (lacks "restarter" property group)' "$d/race.out" ||
		{ echo "$client, --fix none: svcadm did not say misconfigured"; return 1; }

	rc=0
	TMPDIR=$OUT/tmp "$SVCRACE" replay --seed 1 --schedule "$sched" --fix "$fix" \
		"$EXAMPLES/$script" >"$d/fixed.out" 2>&1 || rc=$?
	[ "$rc" -eq 0 ] || { echo "$client, --fix $fix: exit $rc, not 0"; cat "$d/fixed.out"; return 1; }
	grep -q "^seed 1: clean; script exit 0" "$d/fixed.out" ||
		{ echo "$client, --fix $fix: not clean"; cat "$d/fixed.out"; return 1; }
	for f in race fixed; do
		grep -q "^model: 1 of 1 runs conform, 0 do not" "$d/$f.out" ||
			{ echo "$client ($f): the run does not conform to the model"; cat "$d/$f.out"; return 1; }
	done
	echo "$client: --fix none: manifested race; --fix $fix: clean; both conform to the model"
}

start=$(date +%s%N)
one import+enable import-enable.sh import-wait >"$OUT/import.log" 2>&1 &
p1=$!
one add+enable add-enable.sh add-wait >"$OUT/add.log" 2>&1 &
p2=$!
r1=0 r2=0
wait "$p1" || r1=$?
wait "$p2" || r2=$?
cat "$OUT/import.log" "$OUT/add.log"
[ "$r1" -eq 0 ] && [ "$r2" -eq 0 ] || fail "see above"
[ -z "$(ls -A "$OUT/tmp")" ] || fail "svcrace left $(ls "$OUT/tmp") behind"
echo "test-model-replay: ok ($((($(date +%s%N) - start) / 1000000)) ms)"
