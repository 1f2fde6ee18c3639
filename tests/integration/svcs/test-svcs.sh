#!/bin/bash
# svcs against a real configd (and svc.startd where states must come from it), in a private
# root.  One case per run (the argument):
#   format    configd only, restarter pgs written with svccfg so every value is known: the
#             header and column widths, STIME's three forms, "-" without a restarter pg, the
#             "*" of a transition, the default sort (state, stime, fmri), -a vs the enabled
#             filter (general or general_ovr true), -H, -o, -s/-S, -v's columns, DESC, CTID,
#             SVC/INST/SCOPE, an unknown pattern (exit 1) and bad options (exit 2)
#   long      -l: label/value lines, "(temporary)", dependency lines with their targets'
#             states, -L; several operands give several paragraphs
#   deps      -d / -D over require_all, optional_all and exclude_all (not listed) groups,
#             on instances and services
#   explain   real startd: -x for a start method that fails three times (maintenance) and for
#             an instance blocked on a disabled dependency; the Impact line and -v's list
#   procs     real startd: -p lists the processes of the instance's group, -l -p too
# usage: test-svcs.sh CASE SVCS [SVC_STARTD]
source "$(dirname "$0")/../startd/lib-startd.sh"

CASE=${1:?usage: test-svcs.sh CASE SVCS [svc.startd]}
SVCS=${2:?}
SVC_STARTD=${3:-${SVC_STARTD:-}}
[ -x "$SVCS" ] || skip "$SVCS is not built"

# lib.sh's checks with the actual value first.
expect_eq() { assert_eq "$2" "$1" "$3"; }
expect_match() { assert_match "$2" "$1" "$3"; }

# rpg FMRI STATE NEXT TS [CONTRACT]: a restarter pg written directly (no startd in this case).
rpg() {
	local f=$1 cmds
	cmds="select $f
addpg restarter framework P
setprop restarter/state = astring: $2
setprop restarter/next_state = astring: $3
setprop restarter/auxiliary_state = astring: none
setprop restarter/state_timestamp = time: $4
setprop restarter/logfile = astring: $ROOT/var/svc/log/x.log"
	[ -z "${5:-}" ] || cmds="$cmds
setprop restarter/contract = count: $5"
	ok "$SVCCFG" -f - <<<"$cmds"
}

# inst SVC INST ENABLED: an instance with general/enabled.
inst() {
	ok "$SVCCFG" -f - <<EOT
select svc:/$1
add $2
select svc:/$1:$2
addpg general framework
setprop general/enabled = boolean: $3
EOT
}

service() { ok "$SVCCFG" add "$1"; }

case_format() {
	sandbox_start
	local now recent day old
	now=$(date +%s)
	recent=$((now - 60))
	day=$((now - 3 * 86400))
	old=$((now - 400 * 86400))
	service test/on; inst test/on default true; rpg svc:/test/on:default online none "$recent.25" 4242
	service test/early; inst test/early default true; rpg svc:/test/early:default online none "$day"
	service test/maint; inst test/maint default true; rpg svc:/test/maint:default maintenance none "$old"
	service test/off; inst test/off default true; rpg svc:/test/off:default offline online "$recent"
	service test/dis; inst test/dis default false; rpg svc:/test/dis:default disabled none "$recent"
	service test/tmp; inst test/tmp default false; rpg svc:/test/tmp:default online none "$recent"
	ok "$SVCCFG" -f - <<<"select svc:/test/tmp:default
addpg general_ovr framework P
setprop general_ovr/enabled = boolean: true"
	# Temporarily disabled: still listed without -a, as illumos (either value true is enough).
	service test/tdis; inst test/tdis default true; rpg svc:/test/tdis:default disabled none "$recent"
	ok "$SVCCFG" -f - <<<"select svc:/test/tdis:default
addpg general_ovr framework P
setprop general_ovr/enabled = boolean: false"
	service test/new; inst test/new default true # no restarter pg: the race window
	ok "$SVCCFG" -f - <<<"select svc:/test/on
addpg tm_common_name template
setprop tm_common_name/C = ustring: \"The on service\""

	local t_recent t_day t_old
	t_recent=$(date -d "@$recent" +%k:%M:%S)
	t_day=$(date -d "@$day" +%b_%d)
	t_old=$(date -d "@$old" +%Y)

	run "$SVCS"
	expect_eq "$RC" 0 "svcs exit"
	local want
	want=$(printf '%-14s %-8s %s\n' STATE STIME FMRI \
		disabled "$t_recent" svc:/test/tdis:default \
		online "$t_day" svc:/test/early:default \
		online "$t_recent" svc:/test/tmp:default \
		online "$t_recent" svc:/test/on:default \
		'offline*' "$t_recent" svc:/test/off:default \
		maintenance "$t_old" svc:/test/maint:default \
		- - svc:/test/new:default | sed 's/ *$//')
	# STIME sorts to the microsecond (on changed 0.25 s after tmp); the instance without a
	# restarter pg sorts last ("-" is the least known state).
	expect_eq "$OUT" "$want" "default listing"

	run "$SVCS" -a -H
	expect_eq "$(head -2 <<<"$OUT")" "$(printf '%-14s %-8s %s\n' disabled "$t_recent" svc:/test/dis:default disabled "$t_recent" svc:/test/tdis:default)" "-a lists disabled first"
	expect_eq "$(wc -l <<<"$OUT")" 8 "-a -H line count"

	run "$SVCS" -H -o fmri,ctid,state -s ctid -S fmri
	expect_eq "$(tail -1 <<<"$OUT")" "$(printf '%-50s %6s %s' svc:/test/on:default 4242 online)" "-o/-s: the largest ctid last"
	expect_eq "$(head -1 <<<"$OUT" | cut -c1-22)" "svc:/test/tmp:default " "-S fmri among equal ctids"

	run "$SVCS" -H -o svc,inst,scope,desc svc:/test/on:default
	expect_eq "$OUT" "$(printf '%-20s %-20s %-20s %s' test/on default localhost 'The on service')" "SVC INST SCOPE DESC"

	run "$SVCS" -v -H test/off
	expect_eq "$OUT" "$(printf '%-14s %-13s %-8s %6s %s' offline online "$t_recent" - svc:/test/off:default)" "-v: NSTATE shown, no '*'"

	run "$SVCS" -H -o sta,s off
	expect_eq "$OUT" "$(printf '%-4s %s' 'OFF*' '0*')" "abbreviated states"
	run "$SVCS" -H -o sta,nsta,s,n,sn off
	expect_eq "$OUT" "$(printf '%-4s %-4s %-2s %-1s %s' OFF ON 0 1 01)" "abbreviated next states: no '*'"

	run "$SVCS" -H nosuch test/on
	expect_eq "$RC" 1 "unknown pattern exit"
	expect_eq "$ERR" "svcs: Pattern 'nosuch' doesn't match any instances" "unknown pattern message"
	expect_match "$OUT" "svc:/test/on:default" "the other operand is still listed"

	run "$SVCS" -H on 'svc:/test/on:default' 'test/o*'
	expect_eq "$(wc -l <<<"$OUT")" 2 "operands naming one instance list it once"

	# svcs.c main(): an unknown -o column is fatal (uu_die, exit 1), not a usage error.
	run "$SVCS" -o nosuch
	expect_eq "$RC" 1 "bad column exit"
	expect_eq "$ERR" 'svcs: Unknown column "nosuch".' "bad column message"
	run "$SVCS" -l
	expect_eq "$RC" 2 "-l without operands is a usage error"
	run "$SVCS" -R svc:/system/svc/restarter:default -H -a
	expect_eq "$(wc -l <<<"$OUT")" 8 "-R default restarter"
	run "$SVCS" -R svc:/test/on:default -H -a
	expect_eq "$OUT" "" "-R another restarter"
}

case_long() {
	sandbox_start
	local now
	now=$(date +%s)
	service test/a; inst test/a default true; rpg svc:/test/a:default online none "$now" 77
	service test/b; inst test/b default true; rpg svc:/test/b:default offline none "$now"
	ok "$SVCCFG" -f - <<<"select svc:/test/b:default
addpg general_ovr framework P
setprop general_ovr/enabled = boolean: false
addpg dep_a dependency
setprop dep_a/grouping = astring: require_all
setprop dep_a/restart_on = astring: none
setprop dep_a/type = astring: service
setprop dep_a/entities = fmri: (svc:/test/a:default svc:/test/gone file://localhost/nonexistent-$$)"
	run "$SVCS" -l svc:/test/b:default
	expect_eq "$RC" 0 "-l exit"
	local ts
	ts=$(LC_ALL=C date -d "@$now" '+%a %b %e %H:%M:%S %Y')
	local want
	want="fmri         svc:/test/b:default
enabled      false (temporary)
state        offline
next_state   none
state_time   $ts
logfile      $ROOT/var/svc/log/x.log
restarter    svc:/system/svc/restarter:default
dependency   require_all/none svc:/test/a:default (online) svc:/test/gone (absent) file://localhost/nonexistent-$$ (absent)"
	expect_eq "$OUT" "$want" "-l lines"
	run "$SVCS" -l a b
	expect_match "$OUT" "^contract_id  77 $" "contract_id"
	expect_eq "$(grep -c '^fmri' <<<"$OUT")" 2 "two paragraphs"
	expect_eq "$(grep -c '^$' <<<"$OUT")" 1 "one blank line between paragraphs"
	run "$SVCS" -L a
	expect_eq "$OUT" "$ROOT/var/svc/log/x.log" "-L"
	ok "$SVCCFG" -f - <<<"select svc:/test/a
addpg config application
setprop config/port = count: 25
setprop config/names = astring: (\"plain\" \"two words\")"
	# svcs.c print_application_properties(): a quoted value has no blank after it, a plain
	# one has (so the line of a count ends in a blank).
	run "$SVCS" -lv svc:/test/a:default
	expect_eq "$(sed -n '/^config (application)$/,$p' <<<"$OUT")" 'config (application)
config/names (astring) = plain "two words"
config/port (count) = 25 ' "-l -v: application pgs"
}

case_deps() {
	sandbox_start
	local now
	now=$(date +%s)
	for s in a b c d x; do
		service "test/$s"; inst "test/$s" default true; rpg "svc:/test/$s:default" online none "$now"
	done
	ok "$SVCCFG" -f - <<<"select svc:/test/d:default
addpg r dependency
setprop r/grouping = astring: require_all
setprop r/entities = fmri: svc:/test/a:default
addpg o dependency
setprop o/grouping = astring: optional_all
setprop o/entities = fmri: svc:/test/b
addpg x dependency
setprop x/grouping = astring: exclude_all
setprop x/entities = fmri: svc:/test/x:default
select svc:/test/c:default
addpg r dependency
setprop r/grouping = astring: require_any
setprop r/entities = fmri: svc:/test/b"
	run "$SVCS" -H -o fmri -d d
	expect_eq "$OUT" "svc:/test/a:default
svc:/test/b:default" "-d: dependencies, exclude_all left out"
	# -o without -s sorts nothing: the lines come in the reverse of the order svcs found the
	# instances (c, then d), as illumos' uu_avl tree keeps them.
	run "$SVCS" -H -o fmri -D b
	expect_eq "$OUT" "svc:/test/d:default
svc:/test/c:default" "-D: dependents through the service"
	run "$SVCS" -H -o fmri -D x
	expect_eq "$OUT" "" "-D: an exclude_all is no dependent"
	run "$SVCS" -d
	expect_eq "$RC" 2 "-d needs operands"
}

case_explain() {
	sandbox_startd
	startd_start
	make_instance fail "/bin/sh -c 'exit 1'" transient 10 true
	make_instance dep ":true" transient 10 false
	make_instance user ":true" transient 10 false
	ok "$SVCCFG" -f - <<<"select svc:/test/user:default
addpg d dependency
setprop d/grouping = astring: require_all
setprop d/restart_on = astring: none
setprop d/type = astring: service
setprop d/entities = fmri: svc:/test/dep:default
refresh"
	make_instance user2 ":true" transient 10 false
	ok "$SVCCFG" -f - <<<"select svc:/test/user2:default
addpg d dependency
setprop d/grouping = astring: require_all
setprop d/restart_on = astring: none
setprop d/type = astring: service
setprop d/entities = fmri: svc:/test/user:default
refresh"
	set_enabled svc:/test/user:default true
	set_enabled svc:/test/user2:default true
	wait_state svc:/test/user2:default offline
	wait_state svc:/test/fail:default maintenance
	wait_state svc:/test/dep:default disabled
	# user: enabled, offline, waiting for dep
	wait_state svc:/test/user:default offline
	run "$SVCS" -x svc:/test/fail:default
	expect_eq "$RC" 0 "-x exit"
	expect_match "$(sed -n 1p <<<"$OUT")" '^svc:/test/fail:default \(\?\)$' "-x title"
	expect_match "$(sed -n 2p <<<"$OUT")" '^ State: maintenance since [A-Z][a-z]{2} ' "-x State"
	# startd records fault_threshold_reached but not the wait status, so illumos' sentence
	# without "last exited with status N" is the one that applies.
	expect_eq "$(sed -n 3p <<<"$OUT")" "Reason: Method failed repeatedly." "-x Reason"
	expect_eq "$(sed -n 4p <<<"$OUT")" "   See: http://illumos.org/msg/SMF-8000-8Q" "-x See code"
	expect_eq "$(sed -n 5p <<<"$OUT")" "   See: $(rprop svc:/test/fail:default logfile)" "-x See logfile"
	expect_eq "$(sed -n 6p <<<"$OUT")" "Impact: This service is not running." "-x Impact"

	run "$SVCS" -x svc:/test/user:default
	expect_eq "$(sed -n 3p <<<"$OUT")" "Reason: Service svc:/test/dep:default is disabled." "-x dependency reason"
	expect_eq "$(sed -n 4p <<<"$OUT")" "   See: http://illumos.org/msg/SMF-8000-GE" "-x dependency code"

	# Without operands: the root causes, the disabled dependency first (it stops another).
	run "$SVCS" -x
	expect_eq "$(grep -c '^svc:/' <<<"$OUT")" 2 "-x lists the two root causes"
	expect_match "$(sed -n 1p <<<"$OUT")" '^svc:/test/dep:default' "most impact first"
	expect_match "$OUT" "Reason: Disabled by an administrator." "disabled reason"
	expect_match "$OUT" "Impact: 2 dependent services are not running.  \(Use -v for list.\)" "impact count"
	run "$SVCS" -xv svc:/test/dep:default
	expect_match "$OUT" "Impact: 2 dependent services are not running:" "-v impact"
	expect_match "$OUT" "^        svc:/test/user:default$" "-v impact list"
	expect_match "$OUT" "^        svc:/test/user2:default$" "-v impact list (through user)"
	run "$SVCS" -xv svc:/test/user2:default
	expect_eq "$(sed -n 3,7p <<<"$OUT")" "Reason: Service svc:/test/dep:default is disabled.
   See: http://illumos.org/msg/SMF-8000-GE
  Path: svc:/test/user2:default
          svc:/test/user:default
            svc:/test/dep:default" "-xv: the root cause and the path to it"
	run "$SVCS" -H svc:/test/user:default
	expect_match "$OUT" "^offline " "user is listed offline"
}

case_procs() {
	sandbox_startd
	startd_start
	make_instance ct "/bin/sh -c 'sleep $SLEEP_N & sleep $SLEEP_N & echo started'" contract 10 true
	wait_state svc:/test/ct:default online
	local g
	g=$(rprop svc:/test/ct:default contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"
	local pids
	# Online once the start method has exited: its backgrounded children may not run sleep yet.
	wait_sleepers 2
	pids=$(sleeper_pids | sort -n)
	[ "$(wc -w <<<"$pids")" -eq 2 ] || fail "expected two sleepers, got [$pids]"
	run "$SVCS" -H -p ct
	expect_match "$(sed -n 1p <<<"$OUT")" '^online +[ 0-9:]{8} svc:/test/ct:default$' "-p: the instance line"
	local p
	for p in $pids; do
		expect_match "$OUT" "^               [ 0-9:]{8}   $(printf '%6d' "$p") sleep$" "-p: process $p"
	done
	run "$SVCS" -l -p ct
	for p in $pids; do
		expect_match "$OUT" "^process      $p sleep $SLEEP_N$" "-l -p: process $p"
	done
	run "$SVCS" -H -o ctid ct
	expect_eq "$OUT" "$(printf '%6d' "$g")" "CTID is the process group"
	set_enabled svc:/test/ct:default false
	wait_state svc:/test/ct:default disabled
	wait_group_empty "$g"
}

"case_${CASE//-/_}"
log "PASS"
