#!/bin/bash
# The import wait: svccfg import returns only once svc.startd has written a state into the
# restarter pg of every instance it imported.  One case per run (the argument):
#   loop          import a fresh manifest, then at once "svcadm enable -s" it (or, without svcadm,
#                 read its restarter state): N times in a row (the 4th argument, or 200), never
#                 "misconfigured", while 4 other processes import fresh manifests in parallel
#   nowait        SVCCFG_IMPORT_NOWAIT=1 and startd held before its restarter pg write: right
#                 after the import the instance has no restarter pg, and svcadm enable -s says
#                 it is misconfigured and exits 3 (the race, shown on the first try); without
#                 SVCCFG_IMPORT_NOWAIT, import returns after the write
#   no-restarter  no startd: import returns at once, saying why it does not wait (and saying
#                 nothing when every instance had its state at the first read: configd-eager)
#   emi-offline   early-manifest-import exists and is offline: no wait, with illumos' notice
#   emi-import    EMI's start method is svccfg import: it does not wait for the restarter that
#                 runs it (EMI is not online meanwhile), and startd comes up at once
#   deadline      startd held longer than --timeout 1: exit 1 naming the instance, after ~1 s
# usage: test-importwait.sh CASE PATH-OF-svc.startd [PATH-OF-svcadm or "" [N]]
source "$(dirname "$0")/../startd/lib-startd.sh"

CASE=${1:?usage: test-importwait.sh CASE svc.startd [svcadm]}
SVC_STARTD=${2:-${SVC_STARTD:-}}
SVCADM=${3:-}
[ -n "$SVCADM" ] && [ -x "$SVCADM" ] || SVCADM=""
LOOP_N=${4:-200}
# How long a held point holds: far longer than the few commands a case runs inside it, even
# under the sanitizers on a loaded machine, so "before the write" is certain, not likely.
HOLD_MS=3000
BG_PIDS=""

iw_cleanup() {
	local rc=$?
	set +e
	[ -z "$BG_PIDS" ] || kill $BG_PIDS 2>/dev/null
	[ -z "$BG_PIDS" ] || wait $BG_PIDS 2>/dev/null
	(exit "$rc")
	startd_cleanup
}

sandbox_startd
trap iw_cleanup EXIT
unset SVCCFG_IMPORT_NOWAIT SVCCFG_IMPORT_TIMEOUT SMF_DELAY

# manifest NAME: svc:/test/NAME:default (tests/manifests.sh).
source "$(dirname "$0")/../../manifests.sh"
manifest() { transient_manifest "test/$1" "$1"; }

mf() {
	manifest "$1" >"$ROOT/$1.xml"
	echo "$ROOT/$1.xml"
}

ms_now() { echo $(($(date +%s%N) / 1000000)); }

# Imports fresh manifests until $ROOT/stop exists; a failure is recorded in $ROOT/bg-fail.
bg_importer() {
	local k=$1 i=0 f
	while [ ! -e "$ROOT/stop" ]; do
		f=$(mf "bg$k-$i")
		"$SVCCFG" import "$f" >/dev/null 2>"$ROOT/bg$k.err" ||
			{ echo "bg$k-$i: $(cat "$ROOT/bg$k.err")" >>"$ROOT/bg-fail"; return; }
		i=$((i + 1))
	done
	echo "$i" >"$ROOT/bg$k.count"
}

case_loop() {
	local n=$LOOP_N i f I
	startd_start
	for k in 1 2 3 4; do
		bg_importer "$k" &
		BG_PIDS="$BG_PIDS $!"
	done
	[ -n "$SVCADM" ] || log "svcadm is not built: checking the restarter state after each import instead"
	for ((i = 0; i < n; i++)); do
		f=$(mf "loop$i")
		I=svc:/test/loop$i:default
		ok "$SVCCFG" import "$f"
		if [ -n "$SVCADM" ]; then
			run "$SVCADM" enable -s "$I"
			[ "$RC" -eq 0 ] || fail "iteration $i: svcadm enable -s after import:
$(describe_run "$SVCADM" enable -s "$I")"
		else
			[ -n "$(rprop "$I" state)" ] || fail "iteration $i: $I has no restarter state after import"
		fi
		[ ! -e "$ROOT/bg-fail" ] || fail "a parallel import failed: $(cat "$ROOT/bg-fail")"
	done
	touch "$ROOT/stop"
	wait $BG_PIDS
	BG_PIDS=""
	[ ! -e "$ROOT/bg-fail" ] || fail "a parallel import failed: $(cat "$ROOT/bg-fail")"
	log "$n imports + $([ -n "$SVCADM" ] && echo 'enable -s' || echo 'state reads'), with $(cat "$ROOT"/bg*.count | awk '{s += $1} END {print s}') parallel imports"
	[ -z "$SVCADM" ] || wait_state svc:/test/loop$((n - 1)):default online
	startd_stop
}

case_nowait() {
	local I=svc:/test/nw:default f
	f=$(mf nw)
	SMF_DELAY=startd.restarter.before_pg_write=${HOLD_MS}ms startd_start
	SVCCFG_IMPORT_NOWAIT=1 ok "$SVCCFG" import "$f"
	assert_eq "" "$ERR" "import's stderr with SVCCFG_IMPORT_NOWAIT=1"
	run "$SVCPROP" -p restarter "$I"
	[ "$RC" -ne 0 ] || fail "restarter pg present right after a no-wait import: $OUT"
	if [ -n "$SVCADM" ]; then
		run "$SVCADM" enable -s "$I"
		assert_eq 3 "$RC" "svcadm enable -s exit status on the race"
		assert_match "$I is misconfigured \\(lacks \"restarter\" property group\\)\\." "$ERR" \
			"svcadm enable -s on the race"
	else
		log "svcadm is not built: the misconfigured message is not checked"
	fi
	# The same held startd, with the wait: import returns only after the write.  Two files
	# naming one instance: it is waited for once, not until the deadline.
	f=$(mf nw2)
	cp "$f" "$ROOT/nw2-copy.xml"
	ok "$SVCCFG" import --timeout 30 "$f" "$ROOT/nw2-copy.xml"
	[ -n "$(rprop svc:/test/nw2:default state)" ] || fail "the waiting import returned before the restarter pg"
	startd_stop
}

case_no_restarter() {
	local t0 t1 f
	f=$(mf nr)
	t0=$(ms_now)
	ok "$SVCCFG" import "$f"
	t1=$(ms_now)
	assert_match '^svccfg: No restarter is attached to the repository; not waiting for it to take up svc:/test/nr:default\.$' \
		"$ERR" "the notice without a restarter"
	[ "$((t1 - t0))" -lt 5000 ] || fail "import without a restarter took $((t1 - t0)) ms"
	# -n: neither refresh nor wait, and nothing said.
	f=$(mf nr2)
	ok "$SVCCFG" import -n "$f"
	assert_eq "" "$ERR" "import -n's stderr"
	# A state there at the first read ends the wait before it asks who would write one: with
	# configd-eager (the restarter pg comes with the instance) there is nothing to say.
	configd_stop
	SVC_CONFIGD_EAGER=1 configd_start
	ok "$SVCCFG" import "$(mf nr3)"
	assert_eq "" "$ERR" "import's stderr when the state came with the instance"
}

case_emi_offline() {
	local E=svc:/system/early-manifest-import:default f
	make_emi_offline
	SMF_DELAY=startd.restarter.before_pg_write=${HOLD_MS}ms startd_start
	f=$(mf eo)
	ok "$SVCCFG" import "$f"
	assert_match "^svccfg: Not validating instance svc:/test/eo:default because EMI's state is offline\\.$" \
		"$ERR" "the notice while EMI is offline"
	run "$SVCPROP" -p restarter svc:/test/eo:default
	[ "$RC" -ne 0 ] || fail "import waited while EMI was offline (restarter pg: $OUT)"
	# EMI online: the import waits again.
	ok "$SVCCFG" -s $E setprop restarter/state = astring: online
	f=$(mf eo2)
	ok "$SVCCFG" import "$f"
	assert_eq "" "$ERR" "import's stderr once EMI is online"
	[ -n "$(rprop svc:/test/eo2:default state)" ] || fail "import returned before the restarter pg"
	startd_stop
}

case_emi_import() {
	local E=svc:/system/early-manifest-import:default
	mkdir -p "$ROOT/var/svc/manifest/site"
	manifest em >"$ROOT/var/svc/manifest/site/em.xml"
	make_emi "$SVCCFG import $ROOT/var/svc/manifest"
	# A wait inside EMI would hold startd until the import's 60 s deadline; ready is due sooner.
	SVCCFG_IMPORT_TIMEOUT=60 startd_start
	assert_eq online "$(rprop $E state)" "EMI's state once startd is ready"
	# Which state startd records while EMI runs is its business; it is neither online nor disabled.
	assert_match "Not validating instance svc:/test/em:default because EMI's state is [a-z_]+\\." \
		"$(cat "$ROOT/var/svc/log/system-early-manifest-import:default.log")" "EMI's log"
	wait_state svc:/test/em:default disabled
	startd_stop
}

case_deadline() {
	local t0 t1 f
	SMF_DELAY=startd.restarter.before_pg_write=${HOLD_MS}ms startd_start
	f=$(mf dl)
	t0=$(ms_now)
	run "$SVCCFG" import --timeout 1 "$f"
	t1=$(ms_now)
	assert_eq 1 "$RC" "exit status at the deadline"
	assert_match 'Timed out after 1 s waiting for the restarter to take up svc:/test/dl:default' \
		"$ERR" "the deadline's message"
	[ "$((t1 - t0))" -ge 1000 ] || fail "import gave up after $((t1 - t0)) ms, before --timeout 1"
	# The variable, and a bad --timeout.
	f=$(mf dl2)
	SVCCFG_IMPORT_TIMEOUT=0.5 run "$SVCCFG" import "$f"
	assert_eq 1 "$RC" "exit status at SVCCFG_IMPORT_TIMEOUT's deadline"
	assert_match 'Timed out after 0.5 s .*svc:/test/dl2:default' "$ERR" "SVCCFG_IMPORT_TIMEOUT"
	refused "$SVCCFG" import --timeout soon "$f"
	startd_stop
}

case "$CASE" in
loop) case_loop ;;
nowait) case_nowait ;;
no-restarter) case_no_restarter ;;
emi-offline) case_emi_offline ;;
emi-import) case_emi_import ;;
deadline) case_deadline ;;
*) fail "unknown case $CASE" ;;
esac
log "ok"
