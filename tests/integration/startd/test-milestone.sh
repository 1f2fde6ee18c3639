#!/bin/bash
# svc.startd's milestones and dependency cycles, against a real configd, with svcadm and svcs.
# One case per run (the argument):
#   milestone       svcadm milestone multi-user, none, all at run time: what is outside the
#                   milestone is stopped and shows disabled (temporary), as illumos' startd
#                   does it (graph.c dgraph_set_milestone: general_ovr/enabled=false, leaves
#                   first); all starts it again and drops the overrides; an invalid value in
#                   options_ovr/milestone is refused and changes nothing
#   milestone-boot  options/milestone (svcadm milestone -d) read when startd starts: what is
#                   outside never runs; the same after a startd restart; options_ovr/milestone
#                   (svcadm milestone) is non-persistent: kept across a configd restart (the
#                   volatile database lives as long as the boot), gone at a new boot, when
#                   options/milestone applies again
#   cycle           a 2-cycle: the instance that completes it goes to maintenance
#                   (auxiliary_state dependency_cycle, illumos' restarter_str_dependency_cycle),
#                   the other waits offline; svcs -x in illumos' words (svcs/explain.c); startd
#                   still serves; svcadm clear while the cycle is there changes nothing; the
#                   cycle broken (delpg, refresh) and cleared, both come online.  A 3-cycle
#                   through a dependency on a service.
# usage: test-milestone.sh CASE SVC_STARTD SVCADM SVCS
source "$(dirname "$0")/lib-startd.sh"
source "$(dirname "$0")/../../manifests.sh"

CASE=${1:?usage: test-milestone.sh CASE SVC_STARTD SVCADM SVCS}
SVC_STARTD=${2:-${SVC_STARTD:-}}
SVCADM=${3:?}
SVCS=${4:?}
[ -x "$SVCADM" ] || skip "$SVCADM is not built"
[ -x "$SVCS" ] || skip "$SVCS is not built"
sandbox_startd

STARTD_FMRI=svc:/system/svc/restarter:default
MU=svc:/milestone/multi-user:default
BASE=svc:/test/base:default
APP=svc:/test/app:default
SLEEPER="sleep $SLEEP_N & echo started"

# svc SERVICE EXEC MODEL ENABLED [DEPENDENCY-ENTITIES...]: svc:/SERVICE:default with a start
# method (and a ":kill" stop), one require_all dependency "need" on the entities if any, all
# refreshed before general/enabled is written: startd reads the dependencies when it inserts.
svc() {
	local s=$1 exec=$2 model=$3 enabled=$4
	shift 4
	local deps=""
	[ $# -eq 0 ] || deps="addpg need dependency
setprop need/grouping = astring: require_all
setprop need/restart_on = astring: none
setprop need/type = astring: service
setprop need/entities = fmri: ($*)"
	ok "$SVCCFG" -f - <<EOT
add $s
select svc:/$s
add default
select svc:/$s:default
addpg startd framework
setprop startd/duration = astring: $model
addpg start method
setprop start/exec = astring: "$exec"
setprop start/timeout_seconds = count: 10
addpg stop method
setprop stop/exec = astring: ":kill"
setprop stop/timeout_seconds = count: 10
$deps
refresh
addpg general framework
setprop general/enabled = boolean: $enabled
EOT
}

# startd's own instance, where svcadm milestone writes (it is never one of startd's vertices).
startd_instance() {
	ok "$SVCCFG" add system/svc/restarter
	ok "$SVCCFG" -s system/svc/restarter add default
}

# The three services of the milestone cases: base (a daemon) and the multi-user milestone,
# which depends on it, are inside multi-user; app (a daemon that depends on base) is not.
# app's start method leaves a mark, so a test can tell it never ran.
milestone_services() {
	svc test/base "/bin/sh -c '$SLEEPER'" contract true
	svc test/app "/bin/sh -c 'touch $ROOT/app.ran; $SLEEPER'" contract true $BASE
	svc milestone/multi-user ":true" transient true $BASE
}

# svcs -H's state column for FMRI.
svcs_state() { "$SVCS" -H -o state "$1"; }

# The enable override startd wrote ("" when there is none).
ovr() { "$SVCPROP" -p general_ovr/enabled "$1" 2>/dev/null || true; }

# The line number of the first startd log line matching a pattern (0: none).
log_line() { grep -n -m1 -e "$1" "$STARTD_LOG" | cut -d: -f1 || echo 0; }

case_milestone() {
	startd_instance
	milestone_services
	startd_start
	wait_state $BASE online
	wait_state $APP online
	wait_state $MU online
	wait_sleepers 2

	log "milestone multi-user: app, outside it, is stopped and temporarily disabled"
	ok "$SVCADM" milestone multi-user
	wait_state $APP disabled
	wait_sleepers 1
	assert_eq online "$(rprop $BASE state)" "base (inside multi-user) runs on"
	assert_eq online "$(rprop $MU state)" "the milestone runs on"
	assert_eq false "$(ovr $APP)" "app's override"
	assert_eq "" "$(ovr $BASE)" "no override inside the milestone"
	assert_eq disabled "$(svcs_state $APP)" "svcs shows app"
	run "$SVCS" -l $APP
	assert_line "enabled false (temporary)" "$(squeeze <<<"$OUT")" "svcs -l app"
	run "$SVCS" -x $APP
	assert_eq "Reason: Temporarily disabled by an administrator.
   See: http://illumos.org/msg/SMF-8000-1S" "$(sed -n 3,4p <<<"$OUT")" "svcs -x app"

	log "milestone none: everything stops, dependents before their dependencies"
	ok "$SVCADM" milestone none
	wait_state $BASE disabled
	wait_state $MU disabled
	wait_sleepers 0
	local mu_down base_down
	mu_down=$(log_line "$MU: online -> disabled")
	base_down=$(log_line "$BASE: online -> disabled")
	[ "$mu_down" -gt 0 ] && [ "$base_down" -gt "$mu_down" ] ||
		fail "multi-user (line $mu_down) must stop before base (line $base_down)"
	# svcs lists them without -a: general/enabled is still true (svcs.c's filter).
	ok "$SVCS" -H -o state,fmri
	assert_eq "disabled svc:/milestone/multi-user:default
disabled svc:/test/app:default
disabled svc:/test/base:default" "$(squeeze <<<"$OUT" | sort -k2)" "svcs"
	assert_eq "false/false/false" "$(ovr $BASE)/$(ovr $APP)/$(ovr $MU)" "overrides"
	assert_eq true "$("$SVCPROP" -c -p general/enabled $BASE)" "general/enabled is not touched"

	log "an invalid milestone is refused and changes nothing"
	ok "$SVCCFG" -s $STARTD_FMRI setprop options_ovr/milestone = astring: $APP
	wait_until '[ "$(log_line "milestone \"$APP\" is invalid; keeping \"none\"")" -gt 0 ]' \
		"startd did not refuse the invalid milestone"
	assert_eq disabled "$(rprop $BASE state)" "base after an invalid milestone"

	log "milestone all: everything enabled starts again, the overrides are gone"
	ok "$SVCADM" milestone all
	wait_state $BASE online
	wait_state $APP online
	wait_state $MU online
	wait_sleepers 2
	assert_eq "//" "$(ovr $BASE)/$(ovr $APP)/$(ovr $MU)" "overrides after all"
	assert_eq online "$(svcs_state $APP)" "svcs shows app"
	startd_stop
}

case_milestone_boot() {
	startd_instance
	milestone_services
	ok "$SVCADM" milestone -d multi-user
	assert_eq $MU "$("$SVCPROP" -p options/milestone $STARTD_FMRI)" "options/milestone"

	log "startd starts at options/milestone: app never runs"
	startd_start
	wait_state $MU online
	wait_state $APP disabled
	wait_sleepers 1
	[ ! -e "$ROOT/app.ran" ] || fail "app's start method ran outside the milestone"
	assert_eq false "$(ovr $APP)" "app's override"

	log "a startd restart keeps the milestone"
	startd_stop
	startd_start
	wait_state $MU online
	wait_state $BASE online
	wait_state $APP disabled
	[ ! -e "$ROOT/app.ran" ] || fail "app ran after a startd restart"

	log "svcadm milestone none survives a configd restart (the same boot)"
	ok "$SVCADM" milestone none
	wait_state $BASE disabled
	wait_sleepers 0
	startd_stop
	configd_restart
	assert_eq none "$("$SVCPROP" -p options_ovr/milestone $STARTD_FMRI)" \
		"options_ovr/milestone after a configd restart"
	startd_start
	# startd has read the milestone once the graph has handled an instance imported after its
	# start (one graph thread, in order): under "none" one that appears enabled is disabled
	# by an override, and base keeps its own, which any other milestone would have deleted.
	burst_manifest late 1 1 1 >"$ROOT/late.xml"
	ok "$SVCCFG" import "$ROOT/late.xml"
	wait_state svc:/late/s0:i0 disabled
	assert_eq false/false "$(ovr svc:/late/s0:i0)/$(ovr $BASE)" \
		"an imported instance's and base's overrides under milestone none"
	assert_eq disabled/disabled "$(rprop $BASE state)/$(rprop $MU state)" "base/multi-user"
	assert_eq 0 "$(count_sleepers)" "service processes under milestone none"

	log "a new boot forgets svcadm milestone: options/milestone applies again"
	startd_stop
	configd_stop
	new_boot
	configd_start
	run "$SVCPROP" -p options_ovr/milestone $STARTD_FMRI
	assert_rc 1 "options_ovr/milestone after a new boot"
	assert_eq $MU "$("$SVCPROP" -p options/milestone $STARTD_FMRI)" \
		"options/milestone after a new boot"
	startd_start
	wait_state $BASE online
	wait_state $MU online
	wait_state $APP disabled
	[ ! -e "$ROOT/app.ran" ] || fail "app ran under the multi-user milestone"

	log "milestone all: app runs"
	ok "$SVCADM" milestone all
	wait_state $APP online
	[ -e "$ROOT/app.ran" ] || fail "app's start method did not run"
	wait_sleepers 2
	startd_stop
}

case_cycle() {
	local A=svc:/test/a:default B=svc:/test/b:default
	startd_start
	log "a depends on b, then b on a: b completes the cycle"
	svc test/a ":true" transient true $B
	svc test/b ":true" transient true $A
	wait_state $B maintenance
	assert_eq dependency_cycle "$(rprop $B auxiliary_state)" "b's auxiliary_state"
	wait_state $A offline
	assert_match "$B: completes a dependency cycle \\($A -> $B\\), to maintenance" \
		"$(cat "$STARTD_LOG")" "startd's log"

	run "$SVCS" -x $B
	assert_eq 0 "$RC" "svcs -x b"
	assert_match '^ State: maintenance since ' "$(sed -n 2p <<<"$OUT")" "svcs -x b: State"
	assert_eq "svc:/test/b:default (?)
Reason: Completes a dependency cycle.
   See: http://illumos.org/msg/SMF-8000-HP
Impact: 1 dependent service is not running.  (Use -v for list.)" "$(sed 2d <<<"$OUT")" \
		"svcs -x b"
	run "$SVCS" -x $A
	assert_eq "svc:/test/a:default (?)
Reason: Service svc:/test/b:default completed a dependency cycle.
   See: http://illumos.org/msg/SMF-8000-GE
Impact: This service is not running." "$(sed 2d <<<"$OUT")" "svcs -x a"
	run "$SVCS" -xv $A
	assert_eq "  Path: svc:/test/a:default
          svc:/test/b:default" "$(sed -n 5,6p <<<"$OUT")" "svcs -xv a: the path"

	log "startd is not stuck: another service starts"
	svc test/c ":true" transient true
	wait_state svc:/test/c:default online

	log "svcadm clear while the cycle is there: b stays in maintenance"
	ok "$SVCADM" clear $B
	wait_until '[ "$(log_line "$B: still completes a dependency cycle")" -gt 0 ]' \
		"startd did not look at the cleared cycle"
	assert_eq maintenance "$(rprop $B state)" "b after clear"

	log "the cycle broken (b's dependency deleted, refreshed) and cleared: both run"
	ok "$SVCCFG" -s $B delpg need
	ok "$SVCADM" refresh $B
	wait_until '[ "$(log_line "$B: no longer completes a dependency cycle")" -gt 0 ]' \
		"startd did not see the cycle broken"
	ok "$SVCADM" clear $B
	wait_state $B online
	wait_state $A online

	log "a 3-cycle through a service: x needs svc:/test/y, y:default needs z, z needs x"
	svc test/x ":true" transient true svc:/test/y
	svc test/y ":true" transient true svc:/test/z:default
	svc test/z ":true" transient true svc:/test/x:default
	wait_state svc:/test/z:default maintenance
	assert_match "svc:/test/z:default: completes a dependency cycle \\(svc:/test/x:default -> svc:/test/y -> svc:/test/y:default -> svc:/test/z:default\\)" \
		"$(cat "$STARTD_LOG")" "the path names the service"
	wait_state svc:/test/x:default offline
	wait_state svc:/test/y:default offline
	run "$SVCS" -x svc:/test/x:default
	assert_eq "Reason: Service svc:/test/z:default completed a dependency cycle." \
		"$(sed -n 3p <<<"$OUT")" "svcs -x x"
	startd_stop
}

case "$CASE" in
milestone) case_milestone ;;
milestone-boot) case_milestone_boot ;;
cycle) case_cycle ;;
*) fail "unknown case $CASE" ;;
esac
log "ok"
