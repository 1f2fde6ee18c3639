#!/bin/bash
# The trace points of svc.configd, svc.startd, svccfg and svcadm, read back from real runs with
# SMF_TRACE=1 (tracedump merges every file of $ROOT/var/svc/trace by time).  One case per run:
#   chain         import (the wait on) then "svcadm enable -s": the instance's whole chain is
#                 there in causal order, from import.begin through configd's commit of its
#                 restarter pg to import.return, startd's queue and methods, svcadm's read
#   nowait-race   SVCCFG_IMPORT_NOWAIT=1 and startd held 1 s before the restarter pg write:
#                 import.return comes BEFORE configd's commit of the restarter pg (the latent
#                 race, visible in the trace), wait_done says it was skipped, and svcadm's
#                 outcome agrees with what the trace says it read
#   off           SMF_TRACE unset: no trace file at all
#   notify-delay  configd.notify.before_send=300ms: every notification leaves configd, and
#                 reaches startd, at least 300 ms after the commit it reports
#   usdt          every program carries its USDT probes (provider minismf)
#   method        a method started by a tracing startd holds neither the trace file's fd nor
#                 its mapping; it inherits SMF_TRACE=1 only (so svccfg run by EMI traces)
#   check-latent  svctrace check on a real run: SVCCFG_IMPORT_NOWAIT=1 with the restarter pg
#                 write held 500 ms and no svcadm at all: exactly one latent race, of that
#                 instance, its window most of the hold, exit 1
#   check-clean   the same import with the wait on, then "svcadm enable -s": nothing found
#                 (no false positive), exit 0; the import's read of the absent restarter pg was
#                 a wait, and startd's writes were linked to the commits that caused them
#   check-add     svccfg add of a service (with methods) and of its instance with
#                 SVCCFG_ADD_NOWAIT=1, then "svcadm enable -s" with the restarter pg write held
#                 1.5 s: svcadm fails (misconfigured, exit 3) and the generic oracle names that
#                 read, startd's first-sight creation of the pg and svccfg's AddInstance that
#                 caused it (carried by InstanceAdded): a manifested race; then the same with the
#                 add-wait on: svcadm succeeds and nothing is found, the add's read a wait
# usage: test-trace.sh CASE PATH-OF-svc.startd PATH-OF-svcadm PATH-OF-tracedump [PATH-OF-svctrace]
source "$(dirname "$0")/../startd/lib-startd.sh"

CASE=${1:?usage: test-trace.sh CASE svc.startd svcadm tracedump}
SVC_STARTD=${2:-${SVC_STARTD:-}}
SVCADM=${3:?svcadm}
TRACEDUMP=${4:?tracedump}
SVCTRACE=${5:-}
unset SMF_TRACE SMF_TRACE_SIZE SMF_DELAY SMF_DELAY_SEED SVCCFG_IMPORT_NOWAIT SVCCFG_IMPORT_TIMEOUT \
	SVCCFG_ADD_NOWAIT SVCADM_WAIT_RESTARTER SVC_CONFIGD_EAGER

source "$(dirname "$0")/../../manifests.sh"

# mf NAME: a manifest of svc:/test/NAME:default in the root; prints its path.
mf() {
	transient_manifest "test/$1" "$1" >"$ROOT/$1.xml"
	echo "$ROOT/$1.xml"
}

DUMP=""
# Merges the trace files (of live or stopped processes) into $DUMP.
dump_trace() {
	DUMP="$ROOT/trace.txt"
	"$TRACEDUMP" "$ROOT/var/svc/trace" >"$DUMP" || fail "tracedump failed"
}

# idx EVENT [FLOW] [STR]: the line number of the first event EVENT (of flow FLOW, whose string
# is STR, when given) in $DUMP, or "" when there is none.
idx() {
	awk -v ev="$1" -v fl="${2:-}" -v st="${3:-}" '
		{ s = $0; for (k = 0; k < 6; k++) sub(/^[^ ]+ /, "", s) }
		$5 == ev && (fl == "" || $6 == fl) && (st == "" || s == st) { print NR; exit }' "$DUMP"
}

# at EVENT [FLOW] [STR]: as idx, failing when there is no such event.
at() {
	local n
	n=$(idx "$@")
	[ -n "$n" ] || fail "no event $1${2:+ of flow $2}${3:+ with string '$3'} in the trace:
$(cat "$DUMP")"
	echo "$n"
}

# ns LINE: the time stamp of line LINE of $DUMP.
ns() { sed -n "${1}p" "$DUMP" | cut -d' ' -f1; }

# before A B WHAT: line A comes before line B (they are sorted by time).
before() {
	[ "$1" -lt "$2" ] || fail "$3: expected line $1 before line $2:
$(sed -n "${1}p;${2}p" "$DUMP")"
}

# Every event of $DUMP was written by the program its name belongs to.
check_progs() {
	local bad
	bad=$(awk '
		$5 ~ /^import\./ && $4 != "svccfg" ||
		$5 ~ /^configd\./ && $4 != "svc.configd" ||
		$5 ~ /^startd\./ && $4 != "svc.startd" ||
		$5 ~ /^svcadm\./ && $4 != "svcadm"' "$DUMP")
	[ -z "$bad" ] || fail "events recorded by the wrong program:
$bad"
}

stop_all() {
	startd_stop
	configd_stop
}

case_chain() {
	local I=svc:/test/chain:default f F
	export SMF_TRACE=1
	startd_start
	f=$(mf chain)
	ok "$SVCCFG" import "$f"
	ok "$SVCADM" enable -s "$I"
	stop_all
	dump_trace
	check_progs
	F=$("$TRACEDUMP" --flow "$I")

	local begin committed refresh rcommit wbegin wdone ret
	begin=$(at import.begin 0000000000000000 "$f")
	committed=$(at import.instance_committed "$F" "$I")
	refresh=$(at import.refresh "$F" "$I")
	rcommit=$(at configd.commit "$F" "$I/:properties/restarter")
	# The first commit of the restarter pg created it, and says so just before.
	local rcreated
	rcreated=$(at configd.pg_created "$F" "$I/:properties/restarter")
	assert_eq $((rcreated + 1)) "$rcommit" "configd.pg_created right before the first commit"
	assert_eq 1 "$(awk -v f="$F" -v pg="$I/:properties/restarter" \
		'$5 == "configd.pg_created" && $6 == f && $7 == pg' "$DUMP" | wc -l)" \
		"creations of the restarter pg (later writes are updates)"
	wbegin=$(at import.wait_begin 0000000000000000 1)
	wdone=$(at import.wait_done 0000000000000000 ok)
	ret=$(at import.return 0000000000000000 "exit 0")
	before "$begin" "$committed" "import.begin, then the instance committed"
	before "$committed" "$refresh" "committed, then refreshed"
	# (svccfg traces its commit after the reply, so it may be descheduled past startd's whole
	# path: configd's own commit of the instance's general pg is the causal point.)
	before "$(at configd.commit "$F" "$I/:properties/general")" "$rcommit" \
		"the instance committed, then its restarter pg"
	before "$wbegin" "$wdone" "the wait begins, then ends"
	before "$rcommit" "$wdone" "the restarter pg, then the wait's end"
	before "$rcommit" "$ret" "with the wait on, import returns after the restarter pg exists"
	before "$wdone" "$ret" "the wait ends before import returns"

	# configd: the instance's general pg committed (and announced) before startd heard of it.
	local gcommit gsent grecv frecv
	gcommit=$(at configd.commit "$F" "$I/:properties/general")
	gsent=$(at configd.notify_sent "$F" "$I/:properties/general")
	grecv=$(at startd.notify_received "$F" "$I/:properties/general")
	frecv=$(at startd.notify_received "$F")
	before "$gcommit" "$committed" "configd commits the general pg, then svccfg hears of it"
	before "$gcommit" "$gsent" "configd commits, then notifies"
	before "$gsent" "$grecv" "configd notifies, then startd receives"

	# startd: insert, its queue, the restarter pg write, the states, the start method.
	local ins enq deq written ud uo on ms me
	ins=$(at startd.graph_insert "$F" "$I")
	enq=$(at startd.restarter_enqueue "$F" insert)
	deq=$(at startd.restarter_dequeue "$F" insert)
	written=$(at startd.restarter_pg_written "$F" "$I")
	# The manifest has the instance disabled: it settles disabled, then enable -s starts it.
	ud=$(at startd.state_change "$F" "uninitialized>disabled")
	uo=$(at startd.state_change "$F" "disabled>offline")
	ms=$(at startd.method_start "$F" start)
	me=$(at startd.method_exit "$F" "start exit 0")
	on=$(at startd.state_change "$F" "offline>online")
	before "$frecv" "$ins" "a notification of the instance received, then graph insert"
	before "$ins" "$enq" "graph insert, then the INSERT queued"
	before "$enq" "$deq" "queued, then taken"
	before "$deq" "$rcommit" "INSERT taken, then the restarter pg committed"
	before "$rcommit" "$written" "configd's commit, then startd's pg_written"
	before "$written" "$ud" "the restarter pg written, then uninitialized>disabled"
	before "$ud" "$uo" "disabled, then (enable) offline"
	before "$uo" "$ms" "offline, then the start method"
	before "$ms" "$me" "the start method starts, then exits"
	before "$me" "$on" "the start method exits, then online"
	at startd.restarter_enqueue "$F" enable >/dev/null
	at startd.restarter_dequeue "$F" start >/dev/null

	# svcadm: its first read found the pg (the wait made sure), after it existed.
	local rd res
	rd=$(at svcadm.read_restarter_pg "$F" "$I")
	res=$(at svcadm.result "$F")
	assert_eq present "$(sed -n "${res}p" "$DUMP" | cut -d' ' -f7-)" "svcadm's first result"
	[ -z "$(idx svcadm.result "$F" absent)" ] || fail "svcadm read an absent restarter pg"
	before "$ret" "$rd" "import returned, then svcadm read"
	before "$rcommit" "$rd" "the restarter pg existed before svcadm read it"
	before "$rd" "$res" "svcadm's read, then its result"
	# One import.return per import command.
	assert_eq 1 "$(awk '$5 == "import.return"' "$DUMP" | wc -l)" "import.return events"
	log "chain of $I: $(awk -v f="$F" '$6 == f' "$DUMP" | wc -l) events in flow $F"
}

case_nowait_race() {
	local I=svc:/test/race:default f F
	export SMF_TRACE=1
	SMF_DELAY=startd.restarter.before_pg_write=1000ms startd_start
	f=$(mf race)
	SVCCFG_IMPORT_NOWAIT=1 ok "$SVCCFG" import "$f"
	run "$SVCADM" enable -s "$I"
	local svcadm_rc=$RC
	# The held write still happens: the instance ends up online, so the commit is traced.
	wait_state "$I" online
	stop_all
	dump_trace
	check_progs
	F=$("$TRACEDUMP" --flow "$I")

	local committed rcommit ret wdone deq
	committed=$(at import.instance_committed "$F" "$I")
	deq=$(at startd.restarter_dequeue "$F" insert)
	ret=$(at import.return 0000000000000000 "exit 0")
	rcommit=$(at configd.commit "$F" "$I/:properties/restarter")
	wdone=$(at import.wait_done 0000000000000000 "skipped: SVCCFG_IMPORT_NOWAIT")
	[ -z "$(idx import.wait_begin)" ] || fail "import.wait_begin without a wait"
	before "$committed" "$ret" "committed, then returned"
	before "$wdone" "$ret" "wait_done (skipped), then return"
	# The latent race: the import returned while the instance had no restarter pg.
	before "$ret" "$rcommit" "without the wait, import returns before the restarter pg exists"
	# The hold sits between the worker taking the INSERT and the write.
	local hold=$(($(ns "$rcommit") - $(ns "$deq"))) window=$(($(ns "$rcommit") - $(ns "$ret")))
	[ "$hold" -ge 1000000000 ] || fail "INSERT taken $hold ns before the write, under the 1 s hold"

	# svcadm's outcome is the one its traced read had.
	local rd res first
	rd=$(at svcadm.read_restarter_pg "$F" "$I")
	res=$(at svcadm.result "$F")
	first=$(sed -n "${res}p" "$DUMP" | cut -d' ' -f7-)
	if [ "$svcadm_rc" -eq 3 ]; then
		assert_eq absent "$first" "svcadm's first result when it said misconfigured"
		# The read was asked before the commit; its answer may be traced after it.
		before "$rd" "$rcommit" "the absent read came before the restarter pg's commit"
	else
		assert_eq present "$first" "svcadm's first result when it succeeded ($svcadm_rc)"
		log "note: svcadm read after the held write (a very slow machine); race not manifested"
	fi
	log "latent window $((window / 1000000)) ms; svcadm exit $svcadm_rc ($first)"
}

case_check_latent() {
	local I=svc:/test/latent:default f
	[ -x "$SVCTRACE" ] || fail "no svctrace"
	export SMF_TRACE=1
	SMF_DELAY=startd.restarter.before_pg_write=500ms startd_start
	f=$(mf latent)
	SVCCFG_IMPORT_NOWAIT=1 ok "$SVCCFG" import "$f"
	# No svcadm: the race stays latent.  The held write still comes (the instance settles).
	# The poll is not traced: each svcprop that found no pg would be a read that missed it.
	SMF_TRACE= wait_state "$I" disabled
	stop_all
	run "$SVCTRACE" check "$ROOT/var/svc/trace"
	assert_eq 1 "$RC" "svctrace check's exit status with a latent race"
	grep -q "latent.*$I" <<<"$OUT" || fail "check does not name $I as latent:
$OUT"
	run "$SVCTRACE" check --json "$ROOT/var/svc/trace"
	assert_eq 1 "$(jq '.summary.latent' <<<"$OUT")" "latent races"
	assert_eq 0 "$(jq '.summary.manifested' <<<"$OUT")" "manifested races"
	assert_eq "$I" "$(jq -r '.findings[0].fmri' <<<"$OUT")" "the latent instance"
	assert_eq false "$(jq '.findings[0].open' <<<"$OUT")" "the window closed"
	# The window runs from the import's return to the held commit: most of the 500 ms.
	[ "$(jq '.findings[0].window_us > 250000' <<<"$OUT")" = true ] ||
		fail "window $(jq '.findings[0].window_us' <<<"$OUT") us, not most of the 500 ms hold"
}

case_check_clean() {
	local I=svc:/test/clean:default f
	[ -x "$SVCTRACE" ] || fail "no svctrace"
	export SMF_TRACE=1
	SMF_DELAY=startd.restarter.before_pg_write=200ms startd_start
	f=$(mf clean)
	ok "$SVCCFG" import "$f"
	ok "$SVCADM" enable -s "$I"
	stop_all
	run "$SVCTRACE" check "$ROOT/var/svc/trace"
	assert_eq 0 "$RC" "svctrace check's exit status with the wait on:
$OUT"
	grep -q "0 latent, 0 manifested" <<<"$OUT" || fail "check's summary: $OUT"
	# Nothing found because the reads were waits, not because nothing was read or linked.
	run "$SVCTRACE" check --json "$ROOT/var/svc/trace"
	# (The import's read of the absent pg is a wait for certain: the first write is held 200 ms.
	# svcadm's read is one only when it came before startd's first write for the enable.)
	[ "$(jq '.summary.waits >= 1 and .summary.reads >= 4' <<<"$OUT")" = true ] ||
		fail "the import's read judged a wait: $(jq -c .summary <<<"$OUT")"
	[ "$(jq '.summary.caused_commits >= 3' <<<"$OUT")" = true ] ||
		fail "startd's writes (insert, disabled, offline, online) linked to their causes: $(jq -c .summary <<<"$OUT")"
}

# add_service_instance SVC: svccfg add of SVC with methods that succeed, then of SVC:default
# (the add-wait as the environment says).
add_service_instance() {
	local svc=$1 m
	ok "$SVCCFG" add "$svc"
	for m in start stop; do
		ok "$SVCCFG" -s "$svc" addpg "$m" method
		ok "$SVCCFG" -s "$svc" setprop "$m/exec" = astring: ":true"
		ok "$SVCCFG" -s "$svc" setprop "$m/timeout_seconds" = count: 60
	done
	ok "$SVCCFG" -s "$svc" addpg startd framework
	ok "$SVCCFG" -s "$svc" setprop startd/duration = astring: transient
	ok "$SVCCFG" -s "$svc" add default
}

case_check_add() {
	local I=svc:/site/x:default J=svc:/site/y:default
	[ -x "$SVCTRACE" ] || fail "no svctrace"
	export SMF_TRACE=1
	# Held 1.5 s: the window runs from svcadm's read, which comes after svccfg's exit and
	# svcadm's start, some 300 ms under the sanitizers (500 ms left less than half).
	SMF_DELAY=startd.restarter.before_pg_write=1500ms startd_start

	# 1. The add-wait off: svccfg add returns before startd's first sight writes the pg.
	SVCCFG_ADD_NOWAIT=1 add_service_instance site/x
	run "$SVCADM" enable -s "$I"
	assert_eq 3 "$RC" "svcadm enable -s right after svccfg add (the race, manifested)"
	grep -q 'misconfigured (lacks "restarter" property group)' <<<"$ERR" ||
		fail "svcadm's message: $ERR"
	# The held write still comes; wait for it (untraced poll) before stopping.
	SMF_TRACE= wait_until '[ -n "$(rprop "$I" state)" ]' "no restarter pg for $I"
	stop_all
	run "$SVCTRACE" check --json "$ROOT/var/svc/trace"
	assert_eq 1 "$RC" "svctrace check's exit status with the race"
	local f
	f=$(jq -c --arg o "$I/:properties/restarter" \
		'[.findings[] | select(.object == $o and .rule == "read")] | first' <<<"$OUT")
	[ "$f" != null ] || fail "no read race on $I's restarter pg: $OUT"
	[ "$(jq '.kind == "manifested" and .reader_prog == "svcadm" and .reader_exit == 3' <<<"$f")" = true ] ||
		fail "svcadm's failed read, manifested: $f"
	[ "$(jq '.writer_prog == "svc.startd" and .write_created and .read_generation == null' <<<"$f")" = true ] ||
		fail "startd's creation of the pg svcadm found absent: $f"
	# startd's first sight wrote the pg because of InstanceAdded, which names svccfg's commit.
	[ "$(jq '.cause_prog == "svccfg" and .cause_request == "AddInstance" and .cause_commit > 0' <<<"$f")" = true ] ||
		fail "the commit that caused startd's write (svccfg's AddInstance): $f"
	[ "$(jq '.window_us > 750000' <<<"$f")" = true ] ||
		fail "window $(jq .window_us <<<"$f") us, not most of the 1.5 s hold"

	# 2. The same with the add-wait on (the default): svccfg add returns once the pg exists,
	# so nothing is found, and not for want of reads or links.  A fresh trace: the daemons
	# start again (the repository stays).
	mv "$ROOT/var/svc/trace" "$ROOT/trace-nowait"
	configd_start
	SMF_DELAY=startd.restarter.before_pg_write=500ms startd_start
	add_service_instance site/y
	ok "$SVCADM" enable -s "$J"
	stop_all
	run "$SVCTRACE" check --json "$ROOT/var/svc/trace"
	assert_eq 0 "$RC" "svctrace check's exit status with the add-wait on: $OUT"
	assert_eq 0 "$(jq '.summary.latent + .summary.manifested' <<<"$OUT")" "races with the wait"
	# svccfg add's read of the absent restarter pg was a wait; the first sight's write was
	# linked to the AddInstance (and startd's later writes to svcadm's commit).
	[ "$(jq '.summary.waits >= 1 and .summary.caused_commits >= 2' <<<"$OUT")" = true ] ||
		fail "the add's read judged a wait, startd's writes linked: $(jq -c .summary <<<"$OUT")"
	run "$SVCTRACE" dump "$ROOT/var/svc/trace"
	grep -q 'add.wait_done - ok' <<<"$OUT" || fail "svccfg add did not wait: $(grep add.wait <<<"$OUT")"
}

case_off() {
	local I=svc:/test/off:default f
	unset SMF_TRACE
	startd_start
	f=$(mf off)
	ok "$SVCCFG" import "$f"
	ok "$SVCADM" enable -s "$I"
	SMF_TRACE=0 ok "$SVCADM" disable -s "$I"
	stop_all
	[ ! -e "$ROOT/var/svc/trace" ] || [ -z "$(ls -A "$ROOT/var/svc/trace")" ] ||
		fail "trace files without SMF_TRACE=1: $(ls "$ROOT/var/svc/trace")"
}

case_notify_delay() {
	local I=svc:/test/nd:default f F n
	export SMF_TRACE=1
	# The delay is configd's: restart it with the point set (startd is not up yet).
	configd_stop
	SMF_DELAY=configd.notify.before_send=300ms configd_start
	startd_start
	f=$(mf nd)
	SVCCFG_IMPORT_NOWAIT=1 ok "$SVCCFG" import "$f"
	F=$("$TRACEDUMP" --flow "$I")
	# Poll the live trace until startd has heard of the instance's general pg.
	wait_until 'dump_trace; [ -n "$(idx startd.notify_received "$F" "$I/:properties/general")" ]' \
		"startd never received the general pg's notification:
\$(cat \"\$DUMP\")"
	stop_all
	dump_trace
	local commit sent recv d_sent d_recv
	commit=$(at configd.commit "$F" "$I/:properties/general")
	sent=$(at configd.notify_sent "$F" "$I/:properties/general")
	recv=$(at startd.notify_received "$F" "$I/:properties/general")
	d_sent=$(($(ns "$sent") - $(ns "$commit")))
	d_recv=$(($(ns "$recv") - $(ns "$commit")))
	[ "$d_sent" -ge 300000000 ] || fail "notify_sent only $d_sent ns after the commit (< 300 ms)"
	[ "$d_recv" -ge 300000000 ] || fail "notify_received only $d_recv ns after the commit (< 300 ms)"
	# Every notification of the run was held, not only this one.
	local short
	short=$(awk '
		$5 == "configd.commit" { s = $0; for (k = 0; k < 6; k++) sub(/^[^ ]+ /, "", s); c[s] = $1 }
		$5 == "configd.notify_sent" { s = $0; for (k = 0; k < 6; k++) sub(/^[^ ]+ /, "", s)
			if ((s in c) && $1 - c[s] < 300000000) print }' "$DUMP")
	[ -z "$short" ] || fail "notifications sent sooner than 300 ms after their commit:
$short"
	log "commit -> sent $((d_sent / 1000000)) ms, -> received by startd $((d_recv / 1000000)) ms"
}

case_method() {
	local I=svc:/test/probe:default fds maps
	export SMF_TRACE=1
	startd_start
	cat >"$ROOT/probe-method.sh" <<EOF
ls -l /proc/\$\$/fd >"$ROOT/method-fds.txt"
cat /proc/\$\$/maps >"$ROOT/method-maps.txt"
env >"$ROOT/method-env.txt"
sleep $SLEEP_N >/dev/null 2>&1 &
EOF
	make_instance probe "/bin/sh $ROOT/probe-method.sh" contract 10 true
	wait_state "$I" online
	fds=$(cat "$ROOT/method-fds.txt")
	maps=$(cat "$ROOT/method-maps.txt")
	assert_match 'svc\.startd\.[0-9]+\.trace' "$(ls "$ROOT/var/svc/trace")" "startd's trace file"
	assert_match ' 1 -> ' "$fds" "the method's open files (read at all)"
	assert_match 'libc' "$maps" "the method's mappings (read at all)"
	assert_no_match '\.trace' "$fds" "the method's open files"
	assert_no_match '\.trace' "$maps" "the method's mappings"
	assert_match '^SMF_TRACE=1$' "$(cat "$ROOT/method-env.txt")" "the method's environment"
	stop_all
	dump_trace
	at startd.method_start "$("$TRACEDUMP" --flow "$I")" start >/dev/null
}

case_usdt() {
	command -v readelf >/dev/null || skip "readelf is not installed"
	local b want got names
	for b in "$SVC_CONFIGD:commit notify_sent" \
		"$SVC_STARTD:notify_received graph_insert restarter_enqueue restarter_dequeue restarter_pg_written state_change method_start method_exit" \
		"$SVCCFG:begin instance_committed refresh wait_begin wait_done return" \
		"$SVCADM:read_restarter_pg result"; do
		want=${b#*:}
		names=$(readelf -n "${b%%:*}" | awk '/Provider: minismf/ { getline; print $2 }' | sort -u)
		got=$(readelf -n "${b%%:*}" | grep -c 'Provider: minismf' || true)
		[ "$got" -gt 0 ] || fail "${b%%:*}: no USDT probe of provider minismf"
		for n in $want; do
			grep -qx -- "$n" <<<"$names" || fail "${b%%:*}: no USDT probe minismf:$n (has: $names)"
		done
	done
}

if [ "$CASE" = usdt ]; then
	need_var SVC_CONFIGD SVCCFG
	case_usdt
	log "ok"
	exit 0
fi

# configd is traced from its start: the variable is set around sandbox_startd for the cases
# that trace (the "off" case leaves it unset).
if [ "$CASE" = off ]; then
	sandbox_startd
else
	SMF_TRACE=1 sandbox_startd
fi

case "$CASE" in
chain) case_chain ;;
nowait-race) case_nowait_race ;;
off) case_off ;;
method) case_method ;;
notify-delay) case_notify_delay ;;
check-latent) case_check_latent ;;
check-clean) case_check_clean ;;
check-add) case_check_add ;;
*) fail "unknown case $CASE" ;;
esac
log "ok"
