#!/bin/bash
# svc.startd's insert path under a burst of new instances (issue 14), against a real configd,
# traced.  One case per run (the argument):
#   burst         one manifest of 500 instances (every fifth enabled), imported with the wait:
#                 every instance has its restarter pg when the import returns, the enabled ones
#                 go online and the others disabled; the disabled ones were handled by one
#                 thread (the bulk worker: no worker thread, no connection of their own) and
#                 their restarter pgs written in batches (far fewer commits than pgs); the
#                 oracle finds no race (the import waited)
#   burst-enable  a burst of 100 disabled instances imported without the wait while startd
#                 holds its first batch (startd.restarter.before_pg_write=3000ms), and 20 of
#                 them enabled at once, before their restarter pgs exist: each enable runs
#                 after its instance's insert (the log says "inserted" before "-> offline"),
#                 none is lost (all 20 online, the 80 others disabled), and the oracle links
#                 each instance's first restarter pg write, made in a batch, to the import's
#                 commit (one race per instance: this script read them before they existed)
#   burst-mixed   first sight's bulk reads, every branch: instances made while startd is
#                 stopped (SIGSTOP), so that it reads them only once continued, each in the
#                 state it is meant to be found in: a dependency in the running snapshot
#                 (offline), one in the current view only (ignored: online), one with no
#                 running snapshot (read from the current view: offline; the worker takes the
#                 snapshot), one whose snapshot predates general (offline), a temporary
#                 disable (general_ovr: disabled), a maintenance request (restarter_actions:
#                 maintenance), no general (uninitialized pg, no vertex), one deleted before
#                 startd read it (nothing written, nothing logged); then the dependency enabled:
#                 the three waiting go online.  The graph read them in bulk (traced reads of
#                 general in the running snapshot)
# usage: test-burst.sh CASE SVC_STARTD SVCADM SVCTRACE
source "$(dirname "$0")/lib-startd.sh"
source "$(dirname "$0")/../../manifests.sh"

CASE=${1:?usage: test-burst.sh CASE SVC_STARTD SVCADM SVCTRACE}
SVC_STARTD=${2:-${SVC_STARTD:-}}
SVCADM=${3:?}
SVCTRACE=${4:?}
[ -x "$SVCADM" ] || skip "$SVCADM is not built"
[ -x "$SVCTRACE" ] || skip "$SVCTRACE is not built"
# Both daemons and every command traced: the oracle reads their causality.
export SMF_TRACE=1
sandbox_startd

# count STATE: how many burst instances have restarter/state STATE.
count() {
	{ "$SVCPROP" -p restarter/state 'svc:/burst/*' 2>/dev/null || true; } |
		grep -c " $1\$" || true
}

# wait_counts ONLINE DISABLED: polls until that many burst instances are online and disabled.
wait_counts() {
	local on=0 off=0
	wait_until 'on=$(count online) off=$(count disabled)
		[ "$on" -eq '"$1"' ] && [ "$off" -eq '"$2"' ]' \
		"\$on online and \$off disabled, expected $1 and $2" 60
}

# The merged trace of the run so far, one event per line (startd's files are complete once it
# has stopped).
dump() { ok "$SVCTRACE" dump "$ROOT"; }

case_burst() {
	local n=500 enabled=100 tids commits pgs
	burst_manifest burst 5 100 5 >"$ROOT/burst.xml"
	startd_start
	ok "$SVCCFG" import "$ROOT/burst.xml"
	log "the import waited: every instance has its restarter pg"
	ok "$SVCPROP" -p restarter/state 'svc:/burst/*'
	assert_eq $n "$(echo "$OUT" | grep -c .)" "instances with restarter/state after the import"
	wait_counts $enabled $((n - enabled))
	startd_stop
	dump
	log "the disabled instances' insert and disable ran in one thread: no worker of their own"
	# +T svc.startd[PID/TID] startd.restarter_dequeue FMRI EVENT (cause N)
	tids=$(echo "$OUT" | awk '$3 == "startd.restarter_dequeue" && $4 ~ /^svc:\/burst\// {
		i = $4; sub(/.*:i/, "", i)
		if (i % 5 != 0 && ($5 == "insert" || $5 == "disable")) print $2 }' |
		sed 's|.*/||; s|]||' | sort -u)
	assert_eq 1 "$(echo "$tids" | grep -c .)" "threads that dequeued the disabled ones' events"
	log "their restarter pgs were written in batches: far fewer commits than pgs"
	# +T svc.configd[PID/TID] configd.pg_created FMRI PG-FMRI (commit N, generation G)
	pgs=$(echo "$OUT" | awk '$3 == "configd.pg_created" && $5 ~ /\/:properties\/restarter$/' |
		grep -c . || true)
	commits=$(echo "$OUT" | awk '$3 == "configd.pg_created" && $5 ~ /\/:properties\/restarter$/ {
		print $7 }' | sort -u | grep -c . || true)
	assert_eq $n "$pgs" "restarter pgs created"
	[ "$commits" -le $((n / 10)) ] ||
		fail "$n restarter pgs created in $commits commits: not batched"
	log "the oracle: no race, the import waited for every instance"
	ok "$SVCTRACE" check -q "$ROOT"
}

case_burst_enable() {
	local n=100 f en=() ins off
	burst_manifest burst 1 $n 0 >"$ROOT/burst.xml"
	for ((i = 0; i < n; i += 5)); do
		en+=("svc:/burst/s0:i$i")
	done
	# 3 s: the import of 100 instances, svcadm and svcprop must all come inside the first
	# hold, and under the sanitizers on a busy machine they took more than 1 s.
	SMF_DELAY=startd.restarter.before_pg_write=3000ms startd_start
	SVCCFG_IMPORT_NOWAIT=1 ok "$SVCCFG" import "$ROOT/burst.xml"
	ok "$SVCADM" enable "${en[@]}"
	log "the enables came before the instances' restarter pgs"
	run "$SVCPROP" -p restarter/state "${en[0]}"
	[ "$RC" -ne 0 ] || fail "the burst's first batch was not held: ${en[0]} has its pg already"
	wait_counts ${#en[@]} $((n - ${#en[@]}))
	log "each enable ran after its instance's insert"
	for f in "${en[@]}"; do
		ins=$(grep -n "^svc.startd: $f: inserted, uninitialized" "$STARTD_LOG" | cut -d: -f1)
		off=$(grep -n "^svc.startd: $f: .* -> offline" "$STARTD_LOG" | head -n 1 | cut -d: -f1)
		[ -n "$ins" ] && [ -n "$off" ] && [ "$ins" -lt "$off" ] ||
			fail "$f: inserted at log line '$ins', offline at '$off'"
	done
	startd_stop
	log "the oracle links every instance's batched first write to the import's commit"
	run "$SVCTRACE" check --json "$ROOT"
	# One finding per instance caused by the import (this script read the pgs while they were
	# missing), each closed by startd's first write, created in a batch commit that wrote many.
	# (The others are this script's polls against the enables' later writes.)
	echo "$OUT" | python3 -c '
import json, sys
n = int(sys.argv[1])
f = [x for x in json.load(sys.stdin)["findings"] if x["cause_prog"] == "svccfg"]
fmris = {x["fmri"] for x in f}
assert len(f) == n and len(fmris) == n, "%d findings for %d instances" % (len(f), len(fmris))
for x in f:
    assert x["cause_request"] == "Batch" and x["writer_prog"] == "svc.startd", x
    assert x["write_created"] and x["window_us"] > 0, x
commits = {x["write_commit"] for x in f}
assert len(commits) <= n // 10, "%d first writes in %d commits" % (n, len(commits))
' $n || fail "the oracle did not link every instance's first restarter pg write"
}

# mixed_svccfg NAME ENABLED HOW: svccfg commands for svc:/test/NAME:default, transient, with
# general/enabled=ENABLED and, by HOW, a dependency on svc:/test/dep:default (require_all):
#   plain   refreshed after general, no dependency      snap    the dependency, refreshed after
#   cur     refreshed, the dependency added after       nosnap  the dependency, never refreshed
#   early   the dependency, refreshed before general (a running snapshot without general)
# svccfg's refresh request (restarter_actions) is deleted: the instance has none.
mixed_svccfg() {
	local dep="addpg need_dep dependency
setprop need_dep/grouping = astring: require_all
setprop need_dep/restart_on = astring: none
setprop need_dep/type = astring: service
setprop need_dep/entities = fmri: svc:/test/dep:default"
	local gen="addpg general framework
setprop general/enabled = boolean: $2"
	local refresh="refresh
delpg restarter_actions"
	instance_methods_svccfg "$1" :true transient 10 :true
	case $3 in
	plain) printf '%s\n' "$gen" "$refresh" ;;
	snap) printf '%s\n' "$gen" "$dep" "$refresh" ;;
	cur) printf '%s\n' "$gen" "$refresh" "$dep" ;;
	nosnap) printf '%s\n' "$gen" "$dep" ;;
	early) printf '%s\n' "$dep" "$refresh" "$gen" ;;
	esac
	printf 'unselect\nunselect\n'
}

case_burst_mixed() {
	local f
	startd_start
	kill -STOP "$STARTD_PID"
	{
		mixed_svccfg dep false plain
		mixed_svccfg on true plain
		mixed_svccfg snap true snap
		mixed_svccfg cur true cur
		mixed_svccfg nosnap true nosnap
		mixed_svccfg early true early
		mixed_svccfg ovr true plain
		mixed_svccfg maint true plain
		mixed_svccfg gone true plain
		printf 'add test/nogen\nselect svc:/test/nogen\nadd default\nunselect\n'
	} >"$ROOT/mixed.svccfg"
	SVCCFG_ADD_NOWAIT=1 ok "$SVCCFG" -f "$ROOT/mixed.svccfg"
	ok "$SVCADM" disable -t svc:/test/ovr:default
	ok "$SVCADM" mark maintenance svc:/test/maint:default
	ok "$SVCCFG" delete svc:/test/gone
	log "startd continued: it reads the instances made meanwhile"
	kill -CONT "$STARTD_PID"
	wait_state svc:/test/dep:default disabled
	wait_state svc:/test/on:default online
	wait_state svc:/test/cur:default online
	wait_state svc:/test/ovr:default disabled
	wait_state svc:/test/maint:default maintenance
	wait_state svc:/test/nogen:default uninitialized
	for f in snap nosnap early; do
		wait_state svc:/test/$f:default offline
	done
	ok "$SVCPROP" -p general/enabled svc:/test/ovr:default
	assert_eq true "$OUT" "svc:/test/ovr:default's general/enabled (the override disabled it)"
	run "$SVCPROP" -p restarter/state svc:/test/gone:default
	[ "$RC" -ne 0 ] || fail "the deleted instance has a restarter pg: $OUT"
	assert_no_match "cannot write the restarter pg" "$(cat "$STARTD_LOG")" "startd log"
	ok "$SVCCFG" -s svc:/test/nosnap:default listsnap
	assert_match "running" "$OUT" "nosnap's snapshots (the worker takes the running one)"
	log "the dependency enabled: the three waiting on it start"
	ok "$SVCADM" enable svc:/test/dep:default
	for f in snap nosnap early; do
		wait_state svc:/test/$f:default online
	done
	startd_stop
	log "the graph read them in bulk: general read from each one's running snapshot"
	dump
	# +T svc.startd[PID/TID] scf.read FMRI PG-FMRI (generation G, composed, snapshot); a
	# here-string, not a pipe: grep -q ends at the first match, and pipefail would see SIGPIPE.
	grep -Eq "svc\.startd\[.* scf\.read svc:/test/on:default \
svc:/test/on:default/:properties/general \(generation [0-9]+, composed, snapshot\)$" <<<"$OUT" ||
		fail "startd did not read general from on's running snapshot: $(echo "$OUT" |
			grep 'svc.startd.* scf.read svc:/test/on:default' | head -n 5)"
}

case "$CASE" in
burst) case_burst ;;
burst-enable) case_burst_enable ;;
burst-mixed) case_burst_mixed ;;
*) fail "unknown case $CASE" ;;
esac
log "ok"
