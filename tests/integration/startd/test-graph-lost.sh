#!/bin/bash
# svc.startd's graph when configd dies while it holds an event (two outages, no argument):
# 1. an enabled, online service's general pg is changed (general/comment); startd's repository
#   thread holds the notification (startd.repo.notify_received=2s) while configd is killed -9,
#   so the graph handles the event with a dead handle; configd is started again.  The service
#   must never be stopped: same process, same contract, still online and enabled, and no state
#   change in startd's log.  A refresh method that writes a marker is the barrier: the worker
#   runs it after whatever the outage queued before it (events of an instance run in order).
#   The log line of the graph's unread state shows that the interleaving was forced, not missed.
# 2. an enabled service waiting offline for a disabled one (require_all) has its dependency pg
#    changed, and configd dies the same way: the graph must keep the dependency it could not
#    read again, not start the service.  The barrier: svcadm mark maintenance, which its worker
#    handles after any START the outage queued; the start method's marker must not exist.
# 3. configd stalls (SIGSTOP), not dies, while the graph reads a service's general after
#    svcadm disable: the read times out (SVC_STARTD_GRAPH_TIMEOUT_MS=1000), the graph keeps the
#    service enabled, and no reconnection follows (the connection still works once configd
#    goes on).  The disable must still happen, with no further event: the graph reads the
#    instance again after a second of nothing to do.
# usage: test-graph-lost.sh [svc.startd [svcadm [svcs [svctrace]]]]
source "$(dirname "$0")/lib-startd.sh"

SVC_STARTD=${1:-${SVC_STARTD:-}}
SVCADM=${2:-${SVCADM:-}}
SVCS=${3:-${SVCS:-}}
SVCTRACE=${4:-${SVCTRACE:-}}
need_var SVCADM SVCS SVCTRACE
unset SMF_DELAY SMF_DELAY_SEED
# Traced: the trace says when startd's repository thread has the notification in hand.
export SMF_TRACE=1
sandbox_startd
GL=svc:/test/gl:default

# received PG: startd's repository thread has traced a notification about GL's pg PG.
received() {
	"$SVCTRACE" dump "$ROOT" 2>/dev/null |
		awk -v pg="$GL/:properties/$1" '$3 == "startd.notify_received" && $5 == pg' | grep -q .
}

# lines PATTERN: how many lines of startd's log match PATTERN.
lines() { grep -c -- "$1" "$STARTD_LOG" || true; }

# Made before startd runs: its creation's notifications go to nobody, so the delay below holds
# only the test's own (startd's restarter pg writes are not subscribed to).
make_instance gl "/bin/sh -c 'sleep $SLEEP_N & echo started'" contract 10 true
make_instance ga ":true" transient 10 false
make_instance gs "/bin/sh -c 'sleep $SLEEP_N & echo started'" contract 10 true
make_instance gb "touch $ROOT/gb-started" transient 10 true
cat >"$ROOT/gb-dep.svccfg" <<'EOT'
select svc:/test/gb:default
addpg need_a dependency
setprop need_a/grouping = astring: require_all
setprop need_a/restart_on = astring: none
setprop need_a/type = astring: service
setprop need_a/entities = fmri: svc:/test/ga:default
refresh
EOT
ok "$SVCCFG" -f "$ROOT/gb-dep.svccfg"
ok "$SVCCFG" -s svc:/test/gb:default delpg restarter_actions
ok "$SVCCFG" -s $GL addpg refresh method
ok "$SVCCFG" -s $GL setprop refresh/exec = astring: "\"touch $ROOT/refreshed\""
ok "$SVCCFG" -s $GL setprop refresh/timeout_seconds = count: 10
# make_instance's refresh left a request: gone, so that the one refresh is the barrier's.
ok "$SVCCFG" -s $GL delpg restarter_actions
SMF_DELAY=startd.repo.notify_received=2s SVC_STARTD_GRAPH_TIMEOUT_MS=1000 startd_start
wait_state svc:/test/gs:default online
wait_state $GL online
wait_sleepers 2
pid=$(sleeper_pids)
g=$(rprop $GL contract)
SEEN_PGIDS="$SEEN_PGIDS $g"
t0=$SECONDS

log "general changed; configd killed while startd's repository thread holds the notification"
ok "$SVCCFG" -s $GL setprop general/comment = astring: x
wait_until 'received general' "startd never received the general pg's notification"
configd_kill9
wait_until 'grep -q "lost the repository connection; waiting" "$STARTD_LOG"' \
	"startd's repository thread did not notice that configd died"
configd_start
wait_until 'grep -q "reconnected to the repository of" "$STARTD_LOG"' "startd did not reconnect"

log "barrier: a refresh, run by the worker after whatever the outage queued before it"
[ ! -e "$ROOT/refreshed" ] || fail "the refresh method ran before the barrier"
ok "$SVCADM" refresh $GL
wait_until '[ -e "$ROOT/refreshed" ]' "the refresh method never ran: state \$(rprop $GL state)"
assert_eq "$pid" "$(sleeper_pids)" "$GL's process after the outage (stopped and started again?)"
assert_eq "$g" "$(rprop $GL contract)" "$GL's contract after the outage"
assert_eq online "$(rprop $GL state)" "$GL's state"
assert_no_match "$GL: online -> " "$(cat "$STARTD_LOG")" "startd log"
assert_match "$GL: enabled state not read \(repository connection lost\)" "$(cat "$STARTD_LOG")" \
	"startd log (the graph did not handle the event with the dead handle: window missed)"
ok "$SVCS" -l $GL
assert_line "enabled true" "$OUT" "svcs -l"
assert_line "state online" "$OUT" "svcs -l"
log "outage to barrier: $((SECONDS - t0)) s"

GB=svc:/test/gb:default
GL=$GB
wait_state $GB offline
assert_eq 1 "$(lines "lost the repository connection; waiting")" "outages logged so far"
log "gb's dependency pg changed; configd killed while startd holds the notification"
ok "$SVCCFG" -s $GB setprop need_a/comment = astring: x
wait_until 'received need_a' "startd never received the dependency pg's notification"
configd_kill9
wait_until '[ "$(lines "lost the repository connection; waiting")" -ge 2 ]' \
	"startd's repository thread did not notice the second outage"
configd_start
wait_until '[ "$(lines "reconnected to the repository of")" -ge 2 ]' \
	"startd did not reconnect the second time"
ok "$SVCADM" mark maintenance $GB
wait_state $GB maintenance
[ ! -e "$ROOT/gb-started" ] || fail "$GB was started without its dependency (svc:/test/ga disabled)"
assert_no_match "$GB: offline -> online" "$(cat "$STARTD_LOG")" "startd log"
assert_match "$GB: dependencies not read \(repository connection lost\)" \
	"$(cat "$STARTD_LOG")" "startd log (the graph did not read them with the dead handle)"

GS=svc:/test/gs:default
GL=$GS
log "gs disabled; configd stopped (SIGSTOP) while startd holds the notification"
ok "$SVCADM" disable $GS
wait_until 'received general' "startd never received gs's general notification"
kill -STOP "$CONFIGD_PID"
wait_until '[ "$(lines "$GS: enabled state not read")" -ge 1 ]' \
	"the graph's read of gs did not time out"
kill -CONT "$CONFIGD_PID"
log "no other event: the graph reads gs again on its own and stops it"
wait_state $GS disabled
assert_eq 2 "$(lines "reconnected to the repository of")" "reconnections (none for a stall)"
startd_stop
assert_eq 0 "$(count_sleepers)" "service processes after SIGTERM"
log "ok"
