#!/bin/bash
# test-svcrace.sh CASE: svcrace itself, with real daemons, on the example scripts (build tree
# copies in $EXAMPLES).  Every case runs with TMPDIR set to a directory of its own and checks at
# the end that no svcrace it ran left a sandbox there or on /dev/shm (where the sandboxes not
# kept live), nor a daemon running on one.  Cases:
#   import-race   the import/enable race with the fixes off: 20 runs, seeds 1000..1019: a race
#                 in some run, a manifested one (svcadm "misconfigured") among them; exit 1;
#                 the lines in seed order
#   add-race      the svccfg add race with the fixes off: the first race within 20 runs, and
#                 --stop-at-first reports the runs up to it, no more
#   libscf-race   the libscf program create-enable, fixes off: traced as a command through
#                 its first handle, so a run that fails shows a manifested race, not a mere
#                 failure; with configd-eager: no race, no failure
#   import-clean  --fix default on the import script: 10 runs, no race, no failure; exit 0
#   add-clean     --fix default on the add script: needs add-wait (SVCCFG_ADD_NOWAIT); skipped,
#                 saying so, in a build whose svccfg has no such switch
#   replay        a manifested seed found by run, replayed 5 times: its schedule each time, the
#                 race in 5 of 5 (manifested in some: that part is the machine's timing too)
#   shrink        a schedule of two points of which the race needs one: shrunk to that one;
#                 which replays the race
#   shrink-seed   a seed of the import race found by run: shrunk to no more points, held 12
#                 times in a row, its HTML report written
#   failure       a script that fails for its own reasons: "failed", never a race; exit 4;
#                 what it left running in its process group is killed
#   hung          a script that hangs: killed at the deadline with what it started; exit 4
#   interrupt     SIGTERM to svcrace in the middle: exit 130, every sandbox and daemon gone;
#                 SIGKILL: its runs still end and clean up
#   matrix        the table has a row per variant asked; none shows the race, default does not
#   keep          --keep leaves the sandbox, with the daemons' logs and the run's trace
#   usage         bad operands and options: exit 2, a message, nothing run
#   points        "svcrace points" lists exactly the points of SMF_POINTS in delay.h
set -euo pipefail

CASE=${1:?usage: test-svcrace.sh CASE}
: "${SVCRACE:?}" "${EXAMPLES:?}" "${BUILD:?}"
SANDBOX_NAME=svcrace-$CASE
source "$(dirname "$0")/../../../tools/sandbox.sh"
sandbox_tmpdir work "minismf-test-svcrace-$CASE"
mkdir -p "$work/tmp"
export TMPDIR=$work/tmp
OUT=$work/out

fail() {
	echo "[svcrace-$CASE] FAIL: $*" >&2
	[ ! -s "$OUT" ] || { echo "--- svcrace output ---" >&2; tail -n 40 "$OUT" >&2; }
	exit 1
}

# svcrace_in DIR ARGS...: runs svcrace in DIR into $OUT; its exit status in RC, its pid in PIDS.
# A command that draws schedules gets --scale $SVCRACE_SCALE (meson: 10 under the sanitizers,
# whose commands take ten times longer to start and to exit, so that a window the ladder opens
# stays open as long as the script needs to reach its read; svcrace(1), --scale).
RC=0
PIDS=()
svcrace_in() {
	local dir=$1 pid
	shift
	case ${1:-} in
	run | replay | shrink | matrix) set -- "$1" --scale "${SVCRACE_SCALE:-1}" "${@:2}" ;;
	esac
	RC=0
	(cd "$dir" && exec "$SVCRACE" "$@") >"$OUT" 2>&1 &
	pid=$!
	PIDS+=("$pid")
	wait "$pid" || RC=$?
}
# svcrace ARGS...: the same, in the current directory.
svcrace() { svcrace_in . "$@"; }

expect_rc() { [ "$RC" -eq "$1" ] || fail "svcrace exited $RC, expected $1"; }

# q FILE EXPR: jq -r.
q() { jq -r "$2" "$1"; }

# sandboxes_of PID: the sandboxes of the svcrace of that pid still there (on tmpfs or in TMPDIR).
sandboxes_of() {
	find /dev/shm "$TMPDIR" -mindepth 1 -maxdepth 1 -name "svcrace.$1.*" 2>/dev/null | head -n 3
}
# daemons_of PID: the daemons still running on a sandbox of the svcrace of that pid.
daemons_of() { pgrep -af "\-\-root (/dev/shm|$TMPDIR)/svcrace\.$1\." || true; }
check_no_sandbox_of() {
	local left
	left=$(sandboxes_of "$1")
	[ -z "$left" ] || fail "sandboxes left behind: $left"
	left=$(daemons_of "$1")
	[ -z "$left" ] || fail "daemons left running: $left"
}
# Nothing of this case's svcrace runs left behind: no sandbox, no daemon.
check_clean() {
	local left p
	left=$(find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'svcrace.*' | head -n 3)
	[ -z "$left" ] || fail "sandboxes left behind: $left"
	for p in "${PIDS[@]}"; do
		check_no_sandbox_of "$p"
	done
}

# The manifested seed of a run's JSON whose schedule delays most in all, or "".  A replay gives
# the same verdict when the delays are well above the machine's timing noise (a 1 ms delay
# against a svcadm that takes a few ms to start is not): the longest is the safest to replay.
manifested_seed() {
	q "$1" '[.runs[] | select(.verdict == "manifested race")
		| {seed, total: ([.schedule | scan("=([0-9]+)ms") | .[0] | tonumber] | add // 0)}]
		| sort_by(-.total) | .[0].seed // empty'
}

# find_manifested: runs the import script with the fixes off and sets SEED to a manifested run.
find_manifested() {
	svcrace run --runs 20 --jobs 2 --seed 1000 --fix none --json "$work/run.json" \
		"$EXAMPLES/import-enable.sh"
	expect_rc 1
	SEED=$(manifested_seed "$work/run.json")
	[ -n "$SEED" ] || fail "no manifested race in 20 runs of import-enable.sh with --fix none"
	SCHEDULE=$(q "$work/run.json" "[.runs[] | select(.seed == $SEED)][0].schedule")
}

# expect_clean SEED SCRIPT: 10 runs of the example SCRIPT with the default fixes: all clean.
expect_clean() {
	local k
	svcrace run --runs 10 --jobs 2 --seed "$1" --fix default --json "$work/run.json" \
		"$EXAMPLES/$2"
	expect_rc 0
	for k in manifested latent failures hung errors; do
		[ "$(q "$work/run.json" .summary.$k)" -eq 0 ] || fail "$k: $(q "$work/run.json" .summary.$k)"
	done
	[ "$(q "$work/run.json" .summary.clean)" -eq 10 ] || fail "not 10 clean runs"
}

# points N SMF_DELAY: the number of points of a schedule string.
points() { [ -z "$1" ] && echo 0 || tr ',' '\n' <<<"$1" | wc -l; }

case $CASE in
import-race)
	find_manifested
	runs=$(q "$work/run.json" .summary.runs)
	[ "$runs" -eq 20 ] || fail "$runs runs made, expected 20"
	grep -q "^seed $SEED: manifested race (1 manifested, 0 latent); script exit 3 after .*; SMF_DELAY='[^']*'$" "$OUT" ||
		fail "no verdict line for seed $SEED with its schedule"
	grep -q '^  | svcadm: svc:/site/web:default is misconfigured (lacks "restarter" property group)\.$' "$OUT" ||
		fail "svcadm's message is not shown under the line"
	# Every failure of this script is the race: svcadm's exit 3 comes only from the window.
	[ "$(q "$work/run.json" '[.runs[] | select(.exit != 0 and .exit != null)] | length')" -eq \
		"$(q "$work/run.json" '[.runs[] | select(.exit == 3 and .verdict == "manifested race")] | length')" ] ||
		fail "a failing run that is not a manifested race"
	grep -Eq '^ +20 +[0-9]+ +0 +[0-9]+ +[0-9]+ +[0-9]+ +0 +[0-9.]+ ' "$OUT" || fail "no summary table"
	# The runs are reported in the order of their seeds, whatever order they finished in.
	seeds=$(sed -n 's/^seed \([0-9]*\): .*/\1/p' "$OUT")
	[ -n "$seeds" ] && [ "$seeds" = "$(sort -n <<<"$seeds")" ] || fail "runs reported out of order"
	;;
add-race)
	svcrace run --runs 20 --jobs 2 --seed 2000 --fix none --stop-at-first \
		--json "$work/run.json" "$EXAMPLES/add-enable.sh"
	expect_rc 1
	first=$(q "$work/run.json" .summary.first_race_run)
	[ "$first" != null ] && [ "$first" -le 20 ] || fail "no race found in 20 runs"
	# Stopped at the first race: the runs after it that were under way are not reported.
	[ "$(q "$work/run.json" .summary.runs)" -eq "$first" ] ||
		fail "did not stop at the first race (run $first)"
	[ "$(q "$work/run.json" '.runs[-1].seed')" -eq $((2000 + first - 1)) ] ||
		fail "the last run reported is not the first race"
	# Since startd takes up an added instance on configd's InstanceAdded, the window is short:
	# the race may stay latent (svcadm came after the pg); manifested, svcadm says so.
	if [ "$(q "$work/run.json" .summary.manifested)" -gt 0 ]; then
		grep -q 'svc:/site/app:default is misconfigured' "$OUT" || fail "svcadm's message missing"
	fi
	;;
libscf-race)
	svcrace run --runs 10 --jobs 2 --seed 1 --fix none --json "$work/run.json" \
		"$EXAMPLES/create-enable.sh"
	expect_rc 1
	[ "$(q "$work/run.json" .summary.manifested)" -gt 0 ] || fail "no manifested race in 10 runs"
	grep -q 'create-enable: svc:/site/prog:default is misconfigured' "$OUT" ||
		fail "the program's message missing"
	svcrace run --runs 5 --jobs 2 --seed 1 --fix configd-eager --json "$work/run.json" \
		"$EXAMPLES/create-enable.sh"
	expect_rc 0
	[ "$(q "$work/run.json" '.summary.failures + .summary.manifested + .summary.latent')" -eq 0 ] ||
		fail "configd-eager: not clean"
	;;
import-clean)
	expect_clean 1000 import-enable.sh
	;;
add-clean)
	# add-wait is H10-fixes' (docs/race.md, "The fixes"): svccfg reads SVCCFG_ADD_NOWAIT.
	if ! grep -qa SVCCFG_ADD_NOWAIT "$BUILD/cli/svccfg"; then
		echo "[svcrace-add-clean] SKIP: this svccfg has no add-wait (no SVCCFG_ADD_NOWAIT in" \
			"$BUILD/cli/svccfg); the case runs by itself once it has" >&2
		exit 77
	fi
	expect_clean 2000 add-enable.sh
	;;
replay)
	find_manifested
	schedule=$SCHEDULE
	svcrace replay --seed "$SEED" --runs 5 --jobs 2 --fix none --json "$work/replay.json" \
		"$EXAMPLES/import-enable.sh"
	expect_rc 1
	# The race is the schedule's: every replay finds it.  Whether it also manifests depends on
	# the machine's timing as well (svcadm racing a delay of tens of ms on a loaded machine).
	grep -q "^race in 5 of 5 replays ([1-5] manifested, [0-4] latent)$" "$OUT" ||
		fail "the replays did not all find the seed's race"
	[ "$(q "$work/replay.json" "[.runs[] | select(.schedule == \"$schedule\" and .seed == $SEED)] | length")" -eq 5 ] ||
		fail "a replay did not run the seed's schedule '$schedule'"
	;;
shrink)
	# A race that needs one given point: before_pg_write held 1 s opens the window on every
	# run, even in a sanitizer build where svcadm takes 100 ms to start; the 1 ms at configd's
	# notifications is not needed and must go.
	pg_write=startd.restarter.before_pg_write
	svcrace_in "$work" shrink --seed 1 --jobs 2 --fix none --confirm 3 \
		--schedule "configd.notify.before_send=1ms,$pg_write=1000ms" \
		"$EXAMPLES/import-enable.sh"
	expect_rc 0
	delay=$(sed -n "s/^SMF_DELAY='\(.*\)'$/\1/p" "$OUT")
	[[ "$delay" =~ ^$pg_write=[0-9]+ms$ ]] || fail "shrunk to '$delay', not to $pg_write alone"
	grep -q '<html' "$work/svcrace-1.html" || fail "no HTML report in the working directory"

	svcrace replay --seed 1 --runs 3 --jobs 2 --fix none --schedule "$delay" \
		"$EXAMPLES/import-enable.sh"
	expect_rc 1
	# Its delay is the shortest that held 12 times: near the edge, where the race may stay
	# latent on a replay; found, it is every time.
	grep -q "^race in 3 of 3 replays ([1-3] manifested, [0-2] latent)$" "$OUT" ||
		fail "the printed schedule '$delay' does not replay the race"
	;;
shrink-seed)
	# A seed found by run (the manifested import race whose schedule delays most: the one a
	# replay gives again even in a sanitizer build): no more points than the seed's, held 12
	# times in a row.
	find_manifested
	svcrace_in "$work" shrink --seed "$SEED" --jobs 2 --fix none --confirm 3 \
		-o "$work/report.html" "$EXAMPLES/import-enable.sh"
	expect_rc 0
	grep -q "^SMF_DELAY='" "$OUT" || fail "no SMF_DELAY line"
	delay=$(sed -n "s/^SMF_DELAY='\(.*\)'$/\1/p" "$OUT")
	n=$(points "$delay")
	[ "$n" -le "$(points "$SCHEDULE")" ] || fail "'$delay' has more points than '$SCHEDULE'"
	# The verdict of the seed's first replay is the target: manifested, or latent when the
	# machine's timing let svcadm through that once (then manifested replays count too).
	gave='(manifested race|a race \(latent or manifested\))'
	grep -Eq "^minimal schedule: $n delay points?, 12 of 12 replays gave: $gave" "$OUT" ||
		fail "no confirmed minimal schedule"
	grep -q '<html' "$work/report.html" || fail "no HTML report"
	grep -q 'site/web' "$work/report.html" || fail "the report is not about the run's instance"
	;;
failure)
	# Real SMF work, with the fix on (no race), then a failure of the script's own.
	cat >"$work/fails.sh" <<EOF
#!/bin/sh
"$EXAMPLES/import-enable.sh" || exit 1
sleep 300 &
echo \$! >"$work/child.\$SVCRACE_SEED"
echo "fails.sh: a reason of my own" >&2
exit 7
EOF
	chmod +x "$work/fails.sh"
	svcrace run --runs 4 --jobs 2 --seed 1 --fix default --json "$work/run.json" "$work/fails.sh"
	expect_rc 4
	[ "$(q "$work/run.json" .summary.failures)" -eq 4 ] || fail "failures: not 4"
	[ "$(q "$work/run.json" '.summary.manifested + .summary.latent')" -eq 0 ] ||
		fail "a failure was called a race"
	[ "$(q "$work/run.json" '[.runs[] | select(.verdict == "failed" and .exit == 7)] | length')" -eq 4 ] ||
		fail "not every run is \"failed\" with exit 7"
	[ "$(grep -c '^seed [0-9]*: failed; script exit 7 after' "$OUT")" -eq 4 ] || fail "no failed lines"
	grep -q '^  | fails.sh: a reason of my own$' "$OUT" || fail "the script's message is not shown"
	# What the script left running in its group went with it.
	for f in "$work"/child.*; do
		[ -e "$f" ] || fail "the script did not start its child"
		sandbox_poll 10 "" sandbox_gone "$(cat "$f")" || fail "the script's child survived"
	done
	;;
hung)
	cat >"$work/hangs.sh" <<EOF
#!/bin/sh
svccfg add site/hang
sleep 300 &
echo \$! >"$work/child.\$SVCRACE_SEED"
exec sleep 300
EOF
	chmod +x "$work/hangs.sh"
	t0=$SECONDS
	svcrace run --runs 2 --jobs 2 --seed 1 --timeout 2 --json "$work/run.json" "$work/hangs.sh"
	expect_rc 4
	[ $((SECONDS - t0)) -lt 60 ] || fail "the deadline did not end the runs"
	[ "$(q "$work/run.json" .summary.hung)" -eq 2 ] || fail "not 2 hung runs"
	[ "$(grep -c '^seed [0-9]*: hung; script killed at the deadline after' "$OUT")" -eq 2 ] ||
		fail "no hung lines"
	for f in "$work"/child.*; do
		[ -e "$f" ] || fail "the script did not start its child"
		pid=$(cat "$f")
		# Killed with its group: gone, or a zombie its new parent has not reaped yet.
		sandbox_poll 10 "" sandbox_gone "$pid" || fail "the script's child $pid survived"
	done
	;;
interrupt)
	"$SVCRACE" run --runs 200 --jobs 2 --seed 1 --fix none "$EXAMPLES/import-enable.sh" \
		>"$OUT" 2>&1 &
	pid=$!
	wait_until "[ \$(grep -c '^seed ' '$OUT') -ge 2 ]" "svcrace made no run"
	kill -TERM "$pid"
	RC=0
	wait "$pid" || RC=$?
	expect_rc 130
	grep -q '^svcrace: interrupted: [0-9]* of 200 runs made$' "$OUT" || fail "no interruption message"
	check_no_sandbox_of "$pid"
	# Killed outright: its runs still end theirs, and clean up.
	"$SVCRACE" run --runs 200 --jobs 2 --seed 1 --fix none "$EXAMPLES/import-enable.sh" \
		>"$OUT" 2>&1 &
	pid=$!
	wait_until "[ \$(grep -c '^seed ' '$OUT') -ge 2 ]" "svcrace made no run"
	kill -KILL "$pid"
	wait "$pid" || true
	wait_until "[ -z \"\$(sandboxes_of $pid)\" ]" "the runs of a killed svcrace left their sandboxes"
	wait_until "[ -z \"\$(daemons_of $pid)\" ]" "the runs of a killed svcrace left their daemons"
	check_no_sandbox_of "$pid"
	;;
matrix)
	svcrace matrix --runs 2 --jobs 2 --seed 1000 --fixes none,default "$EXAMPLES/import-enable.sh"
	expect_rc 0
	row() { grep -E "^$1 +" "$OUT" | head -n 1; }
	none=$(row none) default=$(row default)
	[ -n "$none" ] && [ -n "$default" ] || fail "a row is missing"
	read -r _ runs failures hung manifested latent errors _ <<<"$none"
	[ "$runs" -eq 2 ] && [ "$errors" -eq 0 ] || fail "none: $none"
	[ $((manifested + latent)) -ge 1 ] || fail "none shows no race: $none"
	read -r _ runs failures hung manifested latent errors _ <<<"$default"
	[ "$runs" -eq 2 ] && [ $((failures + hung + manifested + latent + errors)) -eq 0 ] ||
		fail "default is not clean: $default"
	;;
keep)
	svcrace run --runs 1 --jobs 1 --seed 1 --fix none --keep "$EXAMPLES/import-enable.sh"
	kept=$(sed -n 's/^  kept: //p' "$OUT")
	[ -d "$kept" ] || fail "--keep printed no sandbox"
	for f in svc.configd.log svc.startd.log script.log; do
		[ -e "$kept/$f" ] || fail "the kept sandbox has no $f"
	done
	ls "$kept"/var/svc/trace/svc.startd.*.trace >/dev/null 2>&1 || fail "the kept sandbox has no trace"
	"$BUILD/cli/race/svctrace" check "$kept" >/dev/null || [ $? -eq 1 ] || fail "svctrace cannot read it"
	rm -rf "$kept"
	;;
usage)
	t=$EXAMPLES/import-enable.sh
	bad() {
		local want=$1
		shift
		svcrace "$@"
		expect_rc 2
		grep -q -- "$want" "$OUT" || fail "svcrace $*: no message \"$want\""
	}
	bad 'no SCRIPT given' run
	bad 'unknown command "walk"' walk "$t"
	bad '--fix "bogus"' run --fix bogus "$t"
	bad 'replay needs --seed' replay "$t"
	bad 'shrink needs --seed' shrink "$t"
	bad '--runs: at least 1' run --runs 0 "$t"
	bad '--jobs: "x"' run --jobs x "$t"
	bad 'not a delay point of this build' replay --seed 1 --schedule nosuch.point=5ms "$t"
	bad 'random delay' replay --seed 1 --schedule "$(sed -n 's/.*X([A-Z_]*, "\([^"]*\)".*/\1/p' "$DELAY_H" | head -n 1)=rand:1-2ms" "$t"
	bad '--schedule is for replay and shrink' run --schedule "" "$t"
	bad '--fixes is for matrix' run --fixes none "$t"
	bad '--json is for run and replay' matrix --json x "$t"
	bad '--confirm is for shrink' run --confirm 3 "$t"
	bad 'cannot run it' run "$work/no-such-script"
	bad 'not a file' run "$work"
	bad 'no such executable in PATH' run no-such-script-anywhere
	svcrace --help
	expect_rc 0
	grep -q '^  svcrace run ' "$OUT" || fail "--help has no synopsis"
	;;
points)
	svcrace points
	expect_rc 0
	want=$(sed -n 's/.*X([A-Z_]*, "\([^"]*\)".*/\1/p' "$DELAY_H" | sort)
	got=$(sed -n 's/^\([a-z_]*\.[a-z_.]*\)  .*/\1/p' "$OUT" | sort)
	[ -n "$want" ] || fail "no point found in $DELAY_H"
	[ "$want" = "$got" ] || fail "points: want $(echo $want), got $(echo $got)"
	grep -q '^[0-9]* delay points\.  With --depth 2 a run slows 1 given point in ' "$OUT" ||
		fail "no probability line"
	;;
*)
	fail "unknown case $CASE"
	;;
esac
check_clean
echo "[svcrace-$CASE] ok"
