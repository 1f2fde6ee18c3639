#!/bin/bash
# test-conform.sh: svctrace conform (docs/model.md, "Trace conformance") on real runs.
#   - two short real runs, each in its own sandbox with real daemons (svcrace replay --keep):
#     svccfg import + svcadm enable -s with the fixes on, and svccfg add + svcadm enable -s
#     with them off under the model's own schedule (the race manifests): both conform, exit 0;
#   - the first run's startd trace file edited so that the worker takes the instance's insert
#     event before the dispatcher queued it (two events swapped, trace-edit.py): rejected,
#     exit 1, the event named with its file, pid, tid and time, in text and in JSON;
#   - no verifier (SVCTRACE_MODEL names none): exit 3 and a message; usage errors: exit 2.
# env: SVCTRACE, SVCRACE, EXAMPLES (the build's examples/races), SRC (the source root).
set -euo pipefail
: "${SVCTRACE:?}" "${SVCRACE:?}" "${EXAMPLES:?}" "${SRC:?}"

work=$(mktemp -d "${TMPDIR:-/tmp}/test-conform.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir "$work/tmp"

fail() {
	echo "[svctrace-conform] FAIL: $*" >&2
	[ ! -s "$work/out" ] || { echo "--- output ---" >&2; tail -n 30 "$work/out" >&2; }
	exit 1
}

# run NAME FIX SCHEDULE SCRIPT: a kept real run; its root in $root.
run() {
	local rc=0
	TMPDIR=$work/tmp "$SVCRACE" replay --seed 1 --fix "$2" --schedule "$3" --keep \
		"$EXAMPLES/$4" >"$work/$1.out" 2>&1 || rc=$?
	root=$(sed -n 's/^  kept: //p' "$work/$1.out")
	[ -n "$root" ] && [ -d "$root/var/svc/trace" ] || fail "$1: no kept run ($(cat "$work/$1.out"))"
}

# conform DIR: svctrace conform into $work/out, its exit status in RC.
conform() {
	RC=0
	"$SVCTRACE" conform "$@" >"$work/out" 2>&1 || RC=$?
}

run import default startd.restarter.before_pg_write=20ms import-enable.sh
import_root=$root
run add none startd.repo.notify_received=500ms add-enable.sh
add_root=$root
grep -q "^seed 1: manifested race" "$work/add.out" || fail "the add run did not race"

for r in "$import_root" "$add_root"; do
	conform -v "$r"
	[ "$RC" -eq 0 ] || fail "a real run does not conform (exit $RC)"
	grep -q ": conforms (" "$work/out" || fail "no instance said to conform"
	# The script's one instance is checked; svc.startd's own instance (its milestone reads
	# are traced) was created before the trace began and is not.
	grep -Eq "^svctrace: [12] instances, 1 conform, 0 do not, [01] not checked" "$work/out" ||
		fail "not one instance checked and conforming"
	! grep -v -e ": conforms (" -e "^svctrace: " \
		-e "^svc:/system/svc/restarter:default: not checked: created before the trace began$" \
		"$work/out" | grep -q . || fail "an instance other than startd's own is not checked"
	conform --json "$r"
	[ "$RC" -eq 0 ] || fail "--json: exit $RC"
	[ "$(jq '.summary.conform' "$work/out")" -eq 1 ] &&
		[ "$(jq '.summary.nonconforming' "$work/out")" -eq 0 ] || fail "--json summary"
done
grep -q "(add+enable, no general of the service)" <("$SVCTRACE" conform -v "$add_root") ||
	fail "the add run was not checked as add+enable"

# The edited trace: the worker's dequeue of insert moved before the dispatcher's enqueue.
startd_file=$(ls "$import_root"/var/svc/trace/svc.startd.*.trace)
python3 "$(dirname "$0")/trace-edit.py" "$SRC/lib/include/smf/trace.h" "$startd_file" \
	move-before SMF_TRACE_STARTD_RESTARTER_DEQUEUE insert \
	SMF_TRACE_STARTD_RESTARTER_ENQUEUE insert >/dev/null || fail "trace-edit.py"
conform "$import_root"
[ "$RC" -eq 1 ] || fail "the edited trace: exit $RC, not 1"
startd_pid=$(basename "$startd_file" | cut -d. -f3)
grep -q "^svc:/site/web:default: does not conform (import+enable, import-wait)" "$work/out" ||
	fail "the instance is not named"
grep -Eq "^  at: file $(basename "$startd_file"), pid $startd_pid, tid [0-9]+, \+[0-9.]+ ms: startd.restarter_dequeue insert \(instance svc:/site/web:default\)$" \
	"$work/out" || fail "the event is not reported with its place"
grep -q "^  => .* startd.restarter_dequeue svc:/site/web:default insert" "$work/out" ||
	fail "the events around it are not shown"
conform --json "$import_root"
[ "$RC" -eq 1 ] || fail "--json of the edited trace: exit $RC"
web='.instances[] | select(.fmri == "svc:/site/web:default")'
[ "$(jq -r "$web.at.event" "$work/out")" = startd.restarter_dequeue ] &&
	[ "$(jq -r "$web.at.file" "$work/out")" = "$(basename "$startd_file")" ] &&
	[ "$(jq "$web.at.pid" "$work/out")" -eq "$startd_pid" ] &&
	[ "$(jq '.summary.nonconforming' "$work/out")" -eq 1 ] || fail "--json of the rejection"

# No verifier, usage.
RC=0
SVCTRACE_MODEL=$work/none "$SVCTRACE" conform "$add_root" >"$work/out" 2>&1 || RC=$?
[ "$RC" -eq 3 ] || fail "no verifier: exit $RC, not 3"
grep -q "verifier .* is not there" "$work/out" || fail "no verifier: no message"
for args in "" "--bogus $add_root" "$add_root $add_root"; do
	RC=0
	# shellcheck disable=SC2086
	"$SVCTRACE" conform $args >"$work/out" 2>&1 || RC=$?
	[ "$RC" -eq 2 ] || fail "svctrace conform $args: exit $RC, not 2"
done
[ -z "$(ls -A "$work/tmp" | grep -v '^svcrace\.')" ] || fail "left behind: $(ls "$work/tmp")"
echo "svctrace-conform: ok"
