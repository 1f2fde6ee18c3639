#!/bin/bash
# svc.startd's graph when configd dies while it holds an event (one case, no argument):
#   an enabled, online service's general pg is changed (general/comment); startd's repository
#   thread holds the notification (startd.repo.notify_received=1s) while configd is killed -9,
#   so the graph handles the event with a dead handle; configd is started again.  The service
#   must never be stopped: same process, same contract, still online and enabled, and no state
#   change in startd's log.  A refresh method that writes a marker is the barrier: the worker
#   runs it after whatever the outage queued before it (events of an instance run in order).
#   The log line of the graph's unread state shows that the interleaving was forced, not missed.
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

# Made before startd runs: its creation's notifications go to nobody, so the delay below holds
# only the test's own (startd's restarter pg writes are not subscribed to).
make_instance gl "/bin/sh -c 'sleep $SLEEP_N & echo started'" contract 10 true
ok "$SVCCFG" -s $GL addpg refresh method
ok "$SVCCFG" -s $GL setprop refresh/exec = astring: "\"touch $ROOT/refreshed\""
ok "$SVCCFG" -s $GL setprop refresh/timeout_seconds = count: 10
# make_instance's refresh left a request: gone, so that the one refresh is the barrier's.
ok "$SVCCFG" -s $GL delpg restarter_actions
SMF_DELAY=startd.repo.notify_received=1s startd_start
wait_state $GL online
wait_sleepers 1
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
startd_stop
assert_eq 0 "$(count_sleepers)" "service processes after SIGTERM"
log "ok"
