#!/bin/bash
# svc.configd against a hostile local peer (issue 11; docs/security.md says which claim each case
# backs).  The peer is $HOSTILE (hostile.c), run as nobody: any local user may connect.  Every
# case fails on the configd before issue 11.
#
#   fd-passing       30 connections x 10 fds sent with calls (some malformed): configd agrees to
#                    no fd passing and its fd count is back to where it was
#   uid-share        nobody opens 4,200 connections: 256 are served, the rest closed at once,
#                    and root's svcprop still answers while nobody holds its share
#   login-deadline   connections that send no request (no handshake, or a handshake only) are
#                    closed after the login deadline (1 s here); one that made a request is not
#   connect-deadline configd stopped (SIGSTOP): svcprop fails with "timed out" after libscf's
#                    25 s, not sd-bus's 90 s
#   unread-replies   100,000 calls whose replies nobody reads: configd stops reading them
#                    (backpressure), its peak RSS grows by less than BOUND_MIB, root is served
#                    meanwhile, and RSS comes back
#   unread-getpg     60 GetPg of a 15.6 MB pg, never read: configd holds one reply; a second
#                    such connection of the same uid goes over the uid's bound and is dropped and
#                    logged
#   unread-signals   a subscriber that never reads while root changes 70,000 pgs: dropped and
#                    logged within the same bound
#   big-request      nobody sends a 64 MiB call, as its first request and after one, with a
#                    header as sd-bus writes it and with a version or message type configd does
#                    not know: configd closes the connection from the header, its peak RSS does
#                    not move by 64 MiB; root's 8 MiB call is served
#   leave            256 connections of nobody, each with a call answered, then 8 bytes of the
#                    next header (and then 100 bytes of a call): the process exits; configd's
#                    fds are back at once, it does not spin, and nobody connects again
#   partial          nobody begins 256 calls of 1 MiB on 256 connections and holds them one byte
#                    short: configd holds 16 (its uid's 16 MiB), closes the rest, and its peak
#                    RSS grows by less than BOUND_MIB
#   trickle          8 uids x 256 connections trickle a call's header, one byte a second each:
#                    configd's CPU stays under TRICKLE_CPU_PERCENT of a core (it polled every
#                    header in pieces every 20 ms before)
#   message-deadline a call begun and not finished within the message deadline (1 s here):
#                    closed, logged; calls that arrive whole are served as long as the peer likes
#   import-links     svccfg import DIR where DIR holds two links to "." and a link to ".." below
#                    (2^40 paths before): each manifest once, each link named as skipped, quickly
#   long-input       a manifest value of 5 MB, and a 1 MB value in a command file: the messages
#                    quote the first bytes, "..." and the length, not the whole input
# usage: test-hardening.sh CASE
source "$(dirname "$0")/../lib.sh"
source "$(dirname "$0")/../../manifests.sh"
CASE=${1:?usage: test-hardening.sh CASE}
need_var SVCCFG SVCPROP HOSTILE
case $CASE in
import-links | long-input) ;; # root's own input: no other user needed
*) need_nobody "$HOSTILE" "$SVCPROP" ;;
esac

# What configd may hold for unread output (CONFIGD_MAX_QUEUED_BYTES_PER_UID, 16 MiB as counted,
# which is more than it costs) plus room for the allocator: its peak RSS may grow by this much.
BOUND_MIB=24
# What a connection that held a lot may leave behind once it is gone.
LEFT_MIB=4
# configd's CPU while 2,048 connections trickle headers, one byte a second each (percent of one
# core): the bytes themselves cost a few percent; polling each header in pieces took it all.
TRICKLE_CPU_PERCENT=25
# Under AddressSanitizer freed memory stays in quarantine, so configd's RSS says nothing about
# what configd holds: the RSS bounds are checked in a build without it.
# Asked of the running configd's own mappings: ldd's answer came back empty once in a busy
# sanitizer run, and the bounds were then checked against a quarantine.
sanitized() { grep -q libasan "/proc/$CONFIGD_PID/maps"; }

configd_fds() { find "/proc/$CONFIGD_PID/fd" -mindepth 1 -maxdepth 1 | wc -l; }
# configd_cpu_ticks: the CPU time configd has used (user + system), in clock ticks.
configd_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$CONFIGD_PID/stat"; }
# configd_kb VmRSS|VmHWM: the figure from /proc/PID/status, in KiB.
configd_kb() { awk -v k="$1:" '$1 == k { print $2 }' "/proc/$CONFIGD_PID/status"; }
# Restarts the peak RSS (VmHWM) at the current RSS.
reset_peak() { echo 5 >"/proc/$CONFIGD_PID/clear_refs"; }

# kv KEY TEXT: the value of KEY=value in TEXT.
kv() { grep -Eo "(^| )$1=[^ ]*" <<<"$2" | head -n 1 | cut -d= -f2; }

# hostile ARGS...: runs the peer as nobody (run's OUT/ERR/RC).
hostile() { run "${AS_NOBODY[@]}" "$HOSTILE" "$@"; }

# assert_rss_bound BEFORE_KB EXTRA_MIB WHAT: the peak since reset_peak grew less than
# BOUND_MIB + EXTRA_MIB over BEFORE_KB.
assert_rss_bound() {
	local hwm grown
	! sanitized || { log "$3: RSS not checked under AddressSanitizer"; return 0; }
	hwm=$(configd_kb VmHWM)
	grown=$(((hwm - $1) / 1024))
	log "$3: configd's peak RSS grew by $grown MiB (bound $((BOUND_MIB + $2)) MiB)"
	[ "$grown" -lt $((BOUND_MIB + $2)) ] ||
		fail "$3: configd's peak RSS grew by $grown MiB, over $((BOUND_MIB + $2)) MiB"
}

# rss_back BEFORE_KB: RSS is within LEFT_MIB of BEFORE_KB.
rss_back() { [ $((($(configd_kb VmRSS) - $1) / 1024)) -lt "$LEFT_MIB" ]; }

# assert_rss_back BEFORE_KB WHAT: RSS comes back to within LEFT_MIB of BEFORE_KB (configd frees
# a connection on its next loop after the peer left: polled, 10 s at most).
assert_rss_back() {
	! sanitized || return 0
	wait_until "rss_back $1" "$2: configd's RSS is \$((\$(configd_kb VmRSS) / 1024)) MiB after the peer left, was $(($1 / 1024)) MiB" 10
}

assert_dropped_logged() {
	assert_eq 1 "$(kv dropped "${2:-$OUT}")" "$1: configd closed the connection"
	wait_until "grep -q 'bytes of replies and notifications unread' '$CONFIGD_LOG'" \
		"$1: configd did not log why it closed the connection"
}

# A service with 20 instances, so that ListServices and ListInstances say something.
populate() {
	local i
	for i in $(seq 1 20); do echo "add test/s$i"; done >"$ROOT/populate.svccfg"
	echo "select test/s1" >>"$ROOT/populate.svccfg"
	for i in $(seq 1 20); do echo "add i$i"; done >>"$ROOT/populate.svccfg"
	printf '%s\n' "select test/s1:i1" "addpg config application" "setprop config/v = count: 7" \
		>>"$ROOT/populate.svccfg"
	ok "$SVCCFG" -f "$ROOT/populate.svccfg"
}

case_fd_passing() {
	sandbox_start
	local before
	before=$(configd_fds)
	hostile fds 30 10
	assert_eq 0 "$RC" "hostile fds: $ERR"
	wait_until '[ "$(configd_fds)" -le "$before" ]' \
		"configd holds \$(configd_fds) fds after the fd-passing peers left, \$before before" 5
	log "fds: $before before, $(configd_fds) after"
	assert_eq 0 "$(kv agreed "$OUT")" "connections on which configd agreed to fd passing"
	ok "$SVCCFG" list
}

case_uid_share() {
	sandbox_start
	populate
	local out=$ROOT/hold.out pid line
	# Held until this test ends (the peer waits for configd to close them: it will not).
	"${AS_NOBODY[@]}" "$HOSTILE" hold 4200 request 600 >"$out" 2>&1 &
	pid=$!
	wait_until "grep -q accepted= '$out'" "the peer did not report: \$(cat '$out')" 60
	line=$(head -n 1 "$out")
	log "nobody: $line"
	assert_eq 256 "$(kv accepted "$line")" "connections configd served to nobody"
	assert_eq 3944 "$(kv refused "$line")" "connections configd closed at once"
	assert_eq 0 "$(kv pending "$line")" "connections left waiting"
	assert_match 'refusing a connection from uid [0-9]+ .*its share' "$(cat "$CONFIGD_LOG")" \
		"configd's log"
	# Root, while nobody holds its share: served at once (10 s is for a loaded machine).
	run timeout 10 "$SVCPROP" -C -p config/v svc:/test/s1:i1
	[ "$RC" -ne 124 ] || fail "root's svcprop hung while nobody held its share of connections"
	assert_rc 0 "root's svcprop while nobody holds its share"
	assert_eq 7 "$OUT" "root's svcprop while nobody holds its share"
	ok timeout 10 "$SVCCFG" list
	assert_line test/s20 "$OUT" "root's svccfg list"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

case_login_deadline() {
	sandbox_create
	SMF_CONFIGD_LOGIN_TIMEOUT_MS=1000 configd_start
	hostile hold 40 auth 20
	log "handshake only: $OUT"
	assert_eq 40 "$(kv accepted "$OUT")" "connections accepted"
	assert_eq 40 "$(kv closed "$OUT")" "handshake-only connections closed by the login deadline"
	hostile hold 40 none 20
	log "nothing sent: $OUT"
	assert_eq 40 "$(kv closed "$OUT")" "silent connections closed by the login deadline"
	assert_match 'no request within 1000 ms' "$(cat "$CONFIGD_LOG")" "configd's log"
	# A connection that made a request is served for as long as it likes (3 s: 3 deadlines).
	hostile hold 5 request 3
	assert_eq 0 "$(kv closed "$OUT")" "connections with a request closed"
}

case_connect_deadline() {
	sandbox_start
	local start took fifo=$ROOT/commands sout=$ROOT/svccfg.out serr=$ROOT/svccfg.err spid src
	# A client that connected before configd stopped: its next call times out, and says so.
	mkfifo "$fifo"
	"$SVCCFG" <"$fifo" >"$sout" 2>"$serr" &
	spid=$!
	exec 3>"$fifo"
	echo "add test/connected" >&3
	wait_until "\"$SVCCFG\" list | grep -q test/connected" \
		"svccfg's first command was not done: \$(cat '$serr')"
	kill -STOP "$CONFIGD_PID"
	start=$SECONDS
	echo "add test/late" >&3
	exec 3>&-
	# Meanwhile (the same 25 s), a client that connects to the stopped configd.
	run timeout 60 "$SVCPROP" -p general svc:/test/x:default
	wait "$spid" && src=0 || src=$?
	took=$((SECONDS - start))
	kill -CONT "$CONFIGD_PID"
	[ "$RC" -ne 124 ] || fail "svcprop waited over 60 s for a configd that did not answer"
	assert_rc 1 "svcprop with configd stopped"
	assert_match 'timed out' "$ERR" "svcprop's message"
	log "configd stopped: svcprop and a connected svccfg gave up after $took s: $ERR / $(cat "$serr")"
	[ "$took" -ge 20 ] && [ "$took" -le 40 ] ||
		fail "svcprop gave up after $took s, expected libscf's 25 s"
	assert_eq 1 "$src" "svccfg's exit status when configd stopped answering"
	assert_match 'timed out' "$(cat "$serr")" "a connected svccfg's message"
	assert_no_match 'broken' "$(cat "$serr")" "a connected svccfg's message"
}

# unread_peer OUT ARGS...: "hostile unread ARGS" as nobody in the background, its output in
# OUT; returns once it has reported (its calls are sent, or configd stopped reading them or
# closed the connection); PEER is its pid.
unread_peer() {
	local out=$1
	shift
	"${AS_NOBODY[@]}" "$HOSTILE" unread "$@" >"$out" 2>&1 &
	PEER=$!
	wait_until "grep -q sent= '$out'" "the peer did not report: \$(cat '$out')" 90
}

case_unread_replies() {
	sandbox_start
	populate
	local idle line
	idle=$(configd_kb VmRSS)
	reset_peak
	unread_peer "$ROOT/peer.out" 100000 30 ListServices
	line=$(cat "$ROOT/peer.out")
	log "ListServices x 100,000, unread: $line"
	# configd stopped reading them: the peer's sends blocked (its socket buffer holds a few).
	[ "$(kv sent "$line")" -lt 100000 ] || fail "configd read all 100,000 calls: $line"
	assert_eq 0 "$(kv dropped "$line")" "the unread peer's connection closed"
	# While the peer holds its stalled connection, root is served.
	run timeout 10 "$SVCPROP" -C -p config/v svc:/test/s1:i1
	assert_rc 0 "root's svcprop beside the stalled peer"
	assert_eq 7 "$OUT" "root's svcprop beside the stalled peer"
	assert_rss_bound "$idle" 0 "unread ListServices"
	kill "$PEER"
	wait "$PEER" 2>/dev/null || true
	assert_rss_back "$idle" "unread ListServices"
}

case_unread_getpg() {
	sandbox_start
	local idle bytes first second
	ok "$SVCCFG" add test/big
	ok "$SVCCFG" -s test/big add default
	run "$HOSTILE" bigpg svc:/test/big:default big 16
	assert_eq 0 "$RC" "bigpg: $ERR"
	bytes=$(kv bytes "$OUT")
	idle=$(configd_kb VmRSS)
	reset_peak
	unread_peer "$ROOT/first.out" 60 30 GetPg svc:/test/big:default big
	first=$PEER
	log "GetPg of $bytes bytes x 60, unread: $(cat "$ROOT/first.out")"
	assert_eq 0 "$(kv dropped "$(cat "$ROOT/first.out")")" "the first unread GetPg closed"
	# The same uid again: its connections together may not hold two such replies.
	unread_peer "$ROOT/second.out" 60 0 GetPg svc:/test/big:default big
	second=$(cat "$ROOT/second.out")
	log "a second connection of the same uid: $second"
	assert_dropped_logged "the second unread GetPg" "$second"
	# One reply held; the second built (with the pg it is read from) before it was refused.
	assert_rss_bound "$idle" $((2 * bytes / 1048576 + 1)) "unread GetPg"
	kill "$first"
	wait "$first" 2>/dev/null || true
	assert_rss_back "$idle" "unread GetPg"
}

case_unread_signals() {
	sandbox_start
	local idle out=$ROOT/subscriber.out pid
	ok "$SVCCFG" add test/churn
	ok "$SVCCFG" -s test/churn add default
	idle=$(configd_kb VmRSS)
	reset_peak
	"${AS_NOBODY[@]}" "$HOSTILE" subscribe churn 60 >"$out" 2>&1 &
	pid=$!
	wait_until "grep -q subscribed=1 '$out'" "the subscriber did not register: \$(cat '$out')"
	# 700 batches of 100 pg changes: more than the old bound of 65,536 signals.
	ok "$HOSTILE" churn svc:/test/churn:default 700
	wait "$pid" || fail "the subscriber failed: $(cat "$out")"
	OUT=$(cat "$out")
	log "subscriber: $OUT"
	assert_dropped_logged "unread notifications"
	assert_rss_bound "$idle" 0 "unread notifications"
	assert_rss_back "$idle" "unread notifications"
}

case_big_request() {
	sandbox_start
	local idle w
	idle=$(configd_kb VmRSS)
	reset_peak
	# sd-bus sizes a message from its endianness byte and lengths alone, whatever its version
	# or type say, and reads it whole before it drops such a one: every header is judged.
	for how in plain version2 type0 type5; do
		for w in first second; do
			hostile bigreq 64 $w $how
			log "64 MiB as the $w request, header $how: $OUT"
			assert_eq 1 "$(kv dropped "$OUT")" \
				"configd closed the connection of a 64 MiB request ($w, $how)"
			[ "$(kv sent "$OUT")" -lt $((8 * 1024 * 1024)) ] ||
				fail "configd took $(kv sent "$OUT") bytes of a 64 MiB request ($how) before closing"
		done
	done
	assert_match 'a request of [0-9]+ bytes \(at most 1048576 from this uid\)' \
		"$(cat "$CONFIGD_LOG")" "configd's log"
	assert_rss_bound "$idle" 0 "64 MiB requests"
	run "$HOSTILE" bigreq 8 second
	assert_eq 0 "$(kv dropped "$OUT")" "root's 8 MiB request: connection closed"
}

# The peer leaves with a message begun: mid-header, then mid-body.  Its end of file frees the
# connection at once, configd does not spin, and the uid's slots are its own again.
case_leave() {
	sandbox_start
	populate
	local before bytes start took ticks
	before=$(configd_fds)
	for bytes in 8 100; do
		hostile leave 256 $bytes
		assert_eq 256 "$(kv left "$OUT")" "connections left with $bytes bytes of a call"
		start=$(date +%s%N)
		wait_until '[ "$(configd_fds)" -le "$before" ]' \
			"configd holds \$(configd_fds) fds after 256 peers left at byte $bytes of a call, $before before" 5
		took=$((($(date +%s%N) - start) / 1000000))
		# The measurement window: configd's CPU over one second with nothing to do.
		ticks=$(configd_cpu_ticks)
		sleep 1
		ticks=$(($(configd_cpu_ticks) - ticks))
		log "left at byte $bytes: configd's fds back to $before within $took ms; CPU $ticks ticks in the next second"
		[ "$ticks" -le 10 ] || fail "configd used $ticks ticks of CPU in a second after the peers left (it spins)"
		run timeout 10 "${AS_NOBODY[@]}" "$SVCPROP" -p config/v svc:/test/s1:i1
		assert_rc 0 "nobody's svcprop once its 256 peers have gone"
		assert_eq 7 "$OUT" "nobody's svcprop once its 256 peers have gone"
	done
}

# Bytes of unfinished requests count against the uid's 16 MiB (CONFIGD_MAX_HELD_BYTES_PER_UID).
case_partial() {
	sandbox_start
	local idle out=$ROOT/partial.out pid line
	idle=$(configd_kb VmRSS)
	reset_peak
	"${AS_NOBODY[@]}" "$HOSTILE" partial 256 60 >"$out" 2>&1 &
	pid=$!
	wait_until "grep -q held= '$out'" "the peer did not report: \$(cat '$out')" 90
	line=$(cat "$out")
	log "256 calls of 1 MiB begun and held one byte short: $line"
	[ "$(kv held "$line")" -le 16 ] || fail "configd holds $(kv held "$line") unfinished 1 MiB calls of one uid (16 MiB at most)"
	[ "$(kv held "$line")" -ge 8 ] || fail "configd holds only $(kv held "$line") unfinished 1 MiB calls (16 fit)"
	assert_eq 256 "$(($(kv held "$line") + $(kv closed "$line")))" "calls held or closed"
	assert_match 'unfinished requests' "$(cat "$CONFIGD_LOG")" "configd's log"
	assert_rss_bound "$idle" 0 "unfinished 1 MiB requests"
	kill "$pid"
	wait "$pid" 2>/dev/null || true
}

case_trickle() {
	sandbox_start
	local uids=() pids=() u ticks start pct i
	for u in $(seq 61000 61007); do uids+=("$u"); done
	for u in "${uids[@]}"; do
		setpriv --reuid="$u" --regid=nogroup --clear-groups "$HOSTILE" trickle 256 5 1000 \
			>"$ROOT/trickle.$u" 2>&1 &
		pids+=($!)
	done
	# Measured from when every connection is up (their handshakes are not what is measured).
	for u in "${uids[@]}"; do
		wait_until "grep -q ready= '$ROOT/trickle.$u'" "uid $u's peer did not connect: \$(cat '$ROOT/trickle.$u')" 60
	done
	ticks=$(configd_cpu_ticks)
	start=$(date +%s%N)
	for i in "${!pids[@]}"; do
		wait "${pids[$i]}" || fail "hostile trickle as uid ${uids[$i]}: $(cat "$ROOT/trickle.${uids[$i]}")"
	done
	ticks=$(($(configd_cpu_ticks) - ticks))
	pct=$((ticks * 100 * 1000000000 / $(getconf CLK_TCK) / ($(date +%s%N) - start)))
	log "8 uids x 256 connections trickling headers (1 byte/s each): configd's CPU $pct% of a core ($ticks ticks)"
	for u in "${uids[@]}"; do
		assert_eq 0 "$(kv closed "$(cat "$ROOT/trickle.$u")")" "uid $u's trickling calls closed within the 10 s deadline"
	done
	[ "$pct" -le "$TRICKLE_CPU_PERCENT" ] ||
		fail "configd took $pct% of a core for 2,048 trickled headers (at most $TRICKLE_CPU_PERCENT%)"
}

case_message_deadline() {
	sandbox_create
	SMF_CONFIGD_MESSAGE_TIMEOUT_MS=1000 configd_start
	hostile trickle 64 10 100
	log "64 calls trickled one byte per 100 ms: $OUT"
	assert_eq 64 "$(kv closed "$OUT")" "trickled calls closed by the message deadline"
	local secs
	secs=$(kv seconds "$OUT")
	[ "${secs%.*}" -lt 5 ] || fail "the last trickled call was closed after $secs s (deadline 1 s)"
	assert_match 'a message it began is not whole after 1000 ms' "$(cat "$CONFIGD_LOG")" \
		"configd's log"
	# Whole calls are served for as long as the peer likes (3 s: 3 deadlines).
	hostile hold 5 request 3
	assert_eq 0 "$(kv closed "$OUT")" "connections with whole calls closed"
}

# manifest NAME VALUE: a transient service site/NAME (tests/manifests.sh) whose config/v, a
# count, is VALUE.
manifest() {
	local m pg="<property_group name=\"config\" type=\"application\">"
	m=$(transient_manifest "site/$1" "$1")
	pg+="<propval name=\"v\" type=\"count\" value=\"$2\"/></property_group>"
	printf '%s\n' "${m/<property_group name=\"startd\"/$pg
    <property_group name=\"startd\"}"
}

case_import_links() {
	sandbox_start
	local d=$ROOT/manifests
	mkdir -p "$d/sub"
	manifest a 1 >"$d/a.xml"
	manifest b 2 >"$d/sub/b.xml"
	ln -s . "$d/l1"
	ln -s . "$d/l2"
	ln -s .. "$d/sub/up"
	# 20 s: for a loaded machine; the walk itself takes milliseconds.
	run timeout 20 "$SVCCFG" import "$d"
	[ "$RC" -ne 124 ] || fail "svccfg import of a directory with links to . did not finish in 20 s"
	assert_rc 0 "svccfg import of a directory with links to ."
	local l
	for l in l1 l2 sub/up; do
		assert_match "Skipping $d/$l: it leads to $d, which is read already" "$ERR" \
			"svccfg's warnings"
	done
	assert_eq 3 "$(grep -c Skipping <<<"$ERR")" "links named as skipped"
	ok "$SVCCFG" list
	assert_line site/a "$OUT" "imported services"
	assert_line site/b "$OUT" "imported services"
	ok "$SVCPROP" -p config/v site/b:default
	assert_eq 2 "$OUT" "site/b's config/v"
}

case_long_input() {
	sandbox_start
	local big=$ROOT/big.xml
	manifest big "$(repeat x $((5 * 1024 * 1024)))" >"$big"
	refused "$SVCCFG" import "$big"
	[ "${#ERR}" -lt 1024 ] || fail "svccfg import printed ${#ERR} bytes about a 5 MB value"
	assert_match 'big\.xml:9: illegal value "x{200,}\.\.\.\(5242880 bytes\)" for count' "$ERR" \
		"the message about the 5 MB value"
	refused "$SVCPROP" -p config/v site/big:default
	{
		echo "add test/long"
		echo "select test/long"
		echo "addpg config application"
		echo "setprop config/v = count: $(repeat 9 $((1024 * 1024)))"
	} >"$ROOT/long.svccfg"
	refused "$SVCCFG" -f "$ROOT/long.svccfg"
	[ "${#ERR}" -lt 1024 ] || fail "svccfg printed ${#ERR} bytes about a 1 MB value"
	assert_match '9{200,}\.\.\.\(1048576 bytes\)' "$ERR" "the message about the 1 MB value"
}

case "$CASE" in
big-request) case_big_request ;;
import-links) case_import_links ;;
long-input) case_long_input ;;
fd-passing) case_fd_passing ;;
leave) case_leave ;;
partial) case_partial ;;
trickle) case_trickle ;;
message-deadline) case_message_deadline ;;
uid-share) case_uid_share ;;
login-deadline) case_login_deadline ;;
connect-deadline) case_connect_deadline ;;
unread-replies) case_unread_replies ;;
unread-getpg) case_unread_getpg ;;
unread-signals) case_unread_signals ;;
*) fail "unknown case $CASE" ;;
esac
configd_stop
log "ok"
