#!/bin/bash
# Issue 10's fixes and delay points on the real daemons.  Windows are held open with SMF_DELAY
# (HOLD_MS, far longer than the commands a case runs inside it), never by sleeping, so every
# order below is certain, not likely.  One case per run (the argument):
#   add-wait      svccfg add of an instance (startd's first sight held) returns only once its
#                 restarter pg exists (so at least the hold later), and "svcadm enable -s"
#                 then succeeds; with SVCCFG_ADD_NOWAIT=1 the same sequence finds no pg and
#                 fails "misconfigured", exit 3; both traced (add.wait_begin/done)
#   add-no-restarter  no startd: svccfg add does not wait and says why, as import does
#   enable-t      svccfg add, then "svcadm enable -ts": general/enabled=false is created (as
#                 illumos does), so startd takes the instance up and it goes online
#   svcadm-wait   SVCCFG_IMPORT_NOWAIT=1 with startd's first write held: "svcadm enable -s"
#                 with SVCADM_WAIT_RESTARTER=1 waits for the pg and succeeds, without it fails
#                 "misconfigured", exit 3; without a restarter attached it fails at once
#   eager         SVC_CONFIGD_EAGER=1: an instance has its restarter pg (uninitialized) the
#                 moment import returns, with SVCCFG_IMPORT_NOWAIT=1 and startd's writes held,
#                 and still goes online after "enable -s"; svc.configd --eager gives an
#                 instance made by svccfg add its pg at once too; --native overrides it
#   points        each delay point issue 10 added is reached: with POINT=HOLD the hop through
#                 it takes at least HOLD
#   libscf        scf_notify_add_instances() and scf_instance_wait_restarter() from a C program
#                 (newinst.c): the announcements, and each outcome of the wait (no restarter,
#                 done, timeout naming the instance, EMI pending)
# usage: test-fixes.sh CASE svc.startd svcadm newinst [tracedump]
source "$(dirname "$0")/../startd/lib-startd.sh"

CASE=${1:?usage: test-fixes.sh CASE svc.startd svcadm newinst [tracedump]}
SVC_STARTD=${2:-${SVC_STARTD:-}}
SVCADM=${3:?svcadm}
NEWINST=${4:?newinst}
TRACEDUMP=${5:-}
[ -n "$TRACEDUMP" ] && [ -x "$TRACEDUMP" ] || TRACEDUMP=""
HOLD_MS=3000
# The points case holds each point this long: enough to tell from a path that takes
# milliseconds, short enough for seven daemon starts.
POINT_MS=400
unset SMF_DELAY SMF_DELAY_SEED SMF_TRACE SVCCFG_IMPORT_NOWAIT SVCCFG_ADD_NOWAIT \
	SVCCFG_IMPORT_TIMEOUT SVCADM_WAIT_RESTARTER SVC_CONFIGD_EAGER

sandbox_startd
source "$(dirname "$0")/../../manifests.sh"

MISCONFIGURED='is misconfigured \(lacks "restarter" property group\)\.'

ms_now() { echo $(($(date +%s%N) / 1000000)); }

# mf NAME: a manifest of svc:/test/NAME:default (transient, :true) in the root; its path.
mf() {
	transient_manifest "test/$1" "$1" >"$ROOT/$1.xml"
	echo "$ROOT/$1.xml"
}

# site_service NAME: svc:/site/NAME, a transient service with ":true" methods and no instance,
# as a user makes one with svccfg add.
site_service() {
	ok "$SVCCFG" -f /dev/stdin <<EOT
add site/$1
select site/$1
addpg start method
setprop start/exec = astring: ":true"
setprop start/timeout_seconds = count: 10
addpg stop method
setprop stop/exec = astring: ":true"
setprop stop/timeout_seconds = count: 10
addpg startd framework
setprop startd/duration = astring: transient
EOT
}

# timed VAR CMD...: runs CMD (as run), its duration in milliseconds in VAR.
timed() {
	local var=$1 t0
	shift
	t0=$(ms_now)
	run "$@"
	printf -v "$var" %s $(($(ms_now) - t0))
}

no_restarter_pg() {
	run "$SVCPROP" -p restarter "$1"
	[ "$RC" -ne 0 ] || fail "$1 has a restarter pg already ($2): $OUT"
}

# trace_has EVENT STRING: the run's trace holds EVENT with STRING (when tracedump is built).
trace_has() {
	[ -n "$TRACEDUMP" ] || return 0
	"$TRACEDUMP" "$ROOT/var/svc/trace" >"$ROOT/trace.txt" || fail "tracedump failed"
	awk -v ev="$1" -v st="$2" '
		{ s = $0; for (k = 0; k < 6; k++) sub(/^[^ ]+ /, "", s) }
		$5 == ev && s == st { found = 1 } END { exit !found }' "$ROOT/trace.txt" ||
		fail "no $1 '$2' in the trace:
$(cat "$ROOT/trace.txt")"
}

case_add_wait() {
	local I=svc:/site/x:default J=svc:/site/x:two ms
	site_service x
	# The graph's first sight of an instance without general writes its pg: held here.
	SMF_DELAY=startd.restarter.before_pg_write=${HOLD_MS}ms startd_start
	export SMF_TRACE=1
	timed ms "$SVCCFG" -s site/x add default
	[ "$RC" -eq 0 ] || fail "svccfg add of an instance:
$(describe_run "$SVCCFG" -s site/x add default)"
	assert_eq "" "$ERR" "svccfg add's stderr"
	[ "$ms" -ge "$HOLD_MS" ] || fail "svccfg add returned after $ms ms, before startd's write (held ${HOLD_MS} ms)"
	assert_eq uninitialized "$(rprop $I state)" "state right after add"
	trace_has add.wait_begin 1
	trace_has add.wait_done ok
	unset SMF_TRACE
	run "$SVCADM" enable -s $I
	[ "$RC" -eq 0 ] || fail "svcadm enable -s after a waiting add:
$(describe_run "$SVCADM" enable -s $I)"
	assert_eq online "$(rprop $I state)" "state after enable -s"

	log "SVCCFG_ADD_NOWAIT=1: the race, on the first try"
	SVCCFG_ADD_NOWAIT=1 ok "$SVCCFG" -s site/x add two
	assert_eq "" "$ERR" "svccfg add's stderr with SVCCFG_ADD_NOWAIT=1"
	no_restarter_pg $J "right after a no-wait add"
	run "$SVCADM" enable -s $J
	assert_eq 3 "$RC" "svcadm enable -s exit status on the race"
	assert_match "$J $MISCONFIGURED" "$ERR" "svcadm enable -s on the race"
	startd_stop
}

case_add_no_restarter() {
	local ms
	site_service nr
	timed ms "$SVCCFG" -s site/nr add default
	assert_eq 0 "$RC" "svccfg add without a restarter"
	assert_match '^svccfg: No restarter is attached to the repository; not waiting for it to take up svc:/site/nr:default\.$' \
		"$ERR" "the notice without a restarter"
	[ "$ms" -lt 5000 ] || fail "svccfg add without a restarter took $ms ms"
	no_restarter_pg svc:/site/nr:default "no restarter ever ran"
	# A bad deadline is refused before anything is created.
	SVCCFG_IMPORT_TIMEOUT=soon refused "$SVCCFG" -s site/nr add other
	assert_match 'SVCCFG_IMPORT_TIMEOUT: "soon" is not a number of seconds' "$ERR" "a bad deadline"
	run "$SVCCFG" -s svc:/site/nr:other listpg
	[ "$RC" -ne 0 ] || fail "the instance was created despite the bad deadline"
}

case_enable_t() {
	local I=svc:/site/t:default
	site_service t
	startd_start
	ok "$SVCCFG" -s site/t add default
	run "$SVCADM" enable -ts $I
	[ "$RC" -eq 0 ] || fail "svcadm enable -ts of an added instance:
$(describe_run "$SVCADM" enable -ts $I)"
	assert_eq online "$(rprop $I state)" "state after enable -ts"
	ok "$SVCPROP" -p general/enabled $I
	assert_eq false "$OUT" "general/enabled made by svcadm -t"
	ok "$SVCPROP" -p general_ovr/enabled $I
	assert_eq true "$OUT" "general_ovr/enabled"
	# An existing general/enabled is left alone.
	ok "$SVCADM" disable -ts $I
	ok "$SVCPROP" -p general/enabled $I
	assert_eq false "$OUT" "general/enabled after disable -t"
	startd_stop
}

case_svcadm_wait() {
	local A=svc:/test/sa:default B=svc:/test/sb:default C=svc:/test/sc:default ms
	SMF_DELAY=startd.restarter.before_pg_write=${HOLD_MS}ms startd_start
	SVCCFG_IMPORT_NOWAIT=1 ok "$SVCCFG" import "$(mf sa)"
	no_restarter_pg $A "right after a no-wait import"
	export SMF_TRACE=1
	SVCADM_WAIT_RESTARTER=1 timed ms "$SVCADM" enable -s $A
	[ "$RC" -eq 0 ] || fail "svcadm enable -s with SVCADM_WAIT_RESTARTER=1:
$(describe_run "$SVCADM" enable -s $A)"
	assert_eq online "$(rprop $A state)" "state after a waiting enable -s"
	trace_has svcadm.wait_restarter_begin 1
	trace_has svcadm.wait_restarter_done ok
	unset SMF_TRACE
	log "without SVCADM_WAIT_RESTARTER: misconfigured, at once"
	SVCCFG_IMPORT_NOWAIT=1 ok "$SVCCFG" import "$(mf sb)"
	run "$SVCADM" enable -s $B
	assert_eq 3 "$RC" "svcadm enable -s exit status without the wait"
	assert_match "$B $MISCONFIGURED" "$ERR" "svcadm enable -s without the wait"
	startd_stop
	log "no restarter attached: misconfigured at once, even with SVCADM_WAIT_RESTARTER=1"
	SVCCFG_IMPORT_NOWAIT=1 ok "$SVCCFG" import "$(mf sc)"
	SVCADM_WAIT_RESTARTER=1 timed ms "$SVCADM" enable -s $C
	assert_eq 3 "$RC" "svcadm enable -s exit status without a restarter"
	assert_match "$C $MISCONFIGURED" "$ERR" "svcadm enable -s without a restarter"
	[ "$ms" -lt 5000 ] || fail "svcadm waited $ms ms with no restarter attached"
}

case_eager() {
	local I=svc:/test/ea:default J=svc:/site/ef:default
	configd_stop
	SVC_CONFIGD_EAGER=1 configd_start
	assert_match "eager: new instances get their restarter pg" "$(cat "$CONFIGD_LOG")" "configd's log"
	# startd's first write held, and its later ones (whatever startd writes shows after 2 s;
	# the import and one read of the pg come well within that, even under the sanitizers).
	SMF_DELAY=startd.restarter.before_pg_write=${HOLD_MS}ms,startd.restarter.before_state_write=2000ms \
		startd_start
	SVCCFG_IMPORT_NOWAIT=1 ok "$SVCCFG" import "$(mf ea)"
	ok "$SVCPROP" -p restarter $I
	local pg=$OUT
	assert_line "restarter/state astring uninitialized" "$pg" "state right after a no-wait import (eager)"
	assert_line "restarter/next_state astring none" "$pg" "next_state (eager)"
	assert_line "restarter/auxiliary_state astring insert_in_graph" "$pg" "auxiliary_state (eager)"
	assert_match '^restarter/state_timestamp time [0-9]+\.[0-9]+$' "$(grep state_timestamp <<<"$pg")" \
		"state_timestamp (eager)"
	ok "$SVCCFG" -s $I listpg
	assert_line "restarter framework NONPERSISTENT" "$OUT" "the eager restarter pg"
	run "$SVCADM" enable -s $I
	[ "$RC" -eq 0 ] || fail "svcadm enable -s of an eager instance:
$(describe_run "$SVCADM" enable -s $I)"
	assert_eq online "$(rprop $I state)" "state after enable -s (eager)"
	assert_match "$I: inserted, uninitialized" "$(cat "$STARTD_LOG")" "startd took it up"
	startd_stop
	log "svc.configd --eager: svccfg add (no wait, no startd) gives the pg too"
	configd_stop
	configd_start --eager
	site_service ef
	SVCCFG_ADD_NOWAIT=1 ok "$SVCCFG" -s site/ef add default
	assert_eq uninitialized "$(rprop $J state)" "state right after add (--eager)"
	log "--eager means nothing with --native"
	configd_stop
	configd_start --native --eager
	assert_match "ignoring --eager" "$(cat "$CONFIGD_LOG")" "configd's log with --native"
}

# point_hop POINT WHAT CMD...: with POINT=$POINT_MS on both daemons (restarted), CMD (after
# the setup in $SETUP, run before the clock starts) takes at least that long.
point_hop() {
	local point=$1 what=$2 ms
	shift 2
	startd_stop
	configd_stop
	SMF_DELAY=$point=${POINT_MS}ms configd_start
	SMF_DELAY=$point=${POINT_MS}ms startd_start
	[ -z "$SETUP" ] || eval "$SETUP"
	timed ms "$@"
	[ "$RC" -eq 0 ] || fail "$point: $what:
$(describe_run "$@")"
	[ "$ms" -ge "$POINT_MS" ] || fail "$point=${POINT_MS}ms: $what took $ms ms"
	log "$point: $what took $ms ms (held ${POINT_MS} ms)"
}

case_points() {
	local p n=0
	startd_start
	SETUP=""
	point_hop configd.commit.after "svccfg add of a service" "$SVCCFG" add pt/c
	for p in startd.repo.notify_received startd.restarter.before_enqueue \
		startd.worker.after_dequeue; do
		n=$((n + 1))
		SETUP="" point_hop $p "import (waiting for the restarter pg)" "$SVCCFG" import "$(mf p$n)"
	done
	for p in startd.restarter.before_state_write startd.method.before_start; do
		n=$((n + 1))
		SETUP="ok \"\$SVCCFG\" import \"\$(mf p$n)\"" \
			point_hop $p "svcadm enable -s" "$SVCADM" enable -s svc:/test/p$n:default
	done
	startd_stop
}

case_libscf() {
	ok "$SVCCFG" add t/w
	ok "$NEWINST" wait svc:/t/w:a no-restarter
	ok "$NEWINST" notify
	startd_start
	ok "$NEWINST" wait svc:/t/w:b done
	assert_eq uninitialized "$(rprop svc:/t/w:b state)" "the state the wait saw"
	startd_stop
	SMF_DELAY=startd.restarter.before_pg_write=${HOLD_MS}ms startd_start
	ok "$NEWINST" wait svc:/t/w:c timeout 0.5
	startd_stop
	log "EMI offline: no wait"
	make_emi_offline
	# startd's writes held: it would otherwise soon write its own state over the preset one
	# (the instance is not enabled), and the wait would see that instead.
	SMF_DELAY=startd.restarter.before_pg_write=${HOLD_MS}ms,startd.restarter.before_state_write=${HOLD_MS}ms \
		startd_start
	ok "$NEWINST" wait svc:/t/w:d emi-pending
	startd_stop
}

case "$CASE" in
add-wait) case_add_wait ;;
add-no-restarter) case_add_no_restarter ;;
enable-t) case_enable_t ;;
svcadm-wait) case_svcadm_wait ;;
eager) case_eager ;;
points) case_points ;;
libscf) case_libscf ;;
*) fail "unknown case $CASE" ;;
esac
log "ok"
