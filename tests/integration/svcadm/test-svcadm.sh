#!/bin/bash
# svcadm against a real configd and a real svc.startd in a private root.  One case per run:
#   models        import of a transient, a contract (daemon that forks) and a wait service;
#                 enable -s: all online; disable -s: all disabled, no process of their groups left
#   temporary     enable -t / disable -t write general_ovr/enabled only; a persistent enable
#                 deletes it; a configd restart forgets it
#   actions       restart (new process group), refresh (running snapshot retaken, refresh
#                 method run), mark maintenance / -I / -t, clear, mark degraded, clear; refusals
#                 (clear of an online instance, degraded of a non-online one); enable -s of an
#                 instance in maintenance exits 3
#   deps          require_all on a disabled service: enable -s exits 4; enable -rs enables the
#                 chain; a dependency on a service that does not exist: exit 4
#   bad-input     unknown FMRI, ambiguous abbreviation, usage errors: illumos' messages and exit
#                 codes, nothing written; a service operand stands for all its instances
#   other-entity  enable -s waiting on a slow start while someone else disables the instance:
#                 "has been disabled by another entity", exit 3
#   misconfigured an instance created while no startd runs: enable -s prints the race's symptom
#                 and exits 3
# usage: test-svcadm.sh CASE [svc.startd [svcadm]] (else $SVC_STARTD, $SVCADM)
source "$(dirname "$0")/../startd/lib-startd.sh"

CASE=${1:?usage: test-svcadm.sh CASE [svc.startd [svcadm]]}
SVC_STARTD=${2:-${SVC_STARTD:-}}
SVCADM=${3:-${SVCADM:-}}
need_var SVCADM
sandbox_startd
TR=svc:/test/tr:default
CT=svc:/test/ct:default
WT=svc:/test/wt:default

# manifest NAME EXEC MODEL [XML [PG-XML]]: a one-instance service test/NAME, disabled; XML goes
# before the methods (dependencies, more methods), PG-XML after the startd pg.
manifest() {
	cat <<EOF
  <service name="test/$1" type="service" version="1">
    <create_default_instance enabled="false"/>
    <single_instance/>
    ${4:-}
    <exec_method type="method" name="start" exec="$2" timeout_seconds="10"/>
    <exec_method type="method" name="stop" exec=":kill" timeout_seconds="10"/>
    <property_group name="startd" type="framework">
      <propval name="duration" type="astring" value="$3"/>
    </property_group>
    ${5:-}
  </service>
EOF
}

# import FILE SERVICE-XML...: one manifest with these services, imported.
import() {
	local f="$ROOT/$1.xml"
	shift
	{
		echo '<?xml version="1.0"?>'
		echo '<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">'
		echo '<service_bundle type="manifest" name="svcadm-test">'
		printf '%s\n' "$@"
		echo '</service_bundle>'
	} >"$f"
	ok "$SVCCFG" import "$f"
}

sleeper="/bin/sh -c 'sleep $SLEEP_N &amp; echo started'"

# state FMRI: restarter/state, as svcadm reads it.
state() { rprop "$1" state; }

case_models() {
	startd_start
	import models "$(manifest tr ':true' transient)" "$(manifest ct "$sleeper" contract)" \
		"$(manifest wt "sleep $SLEEP_N" wait)"
	ok "$SVCADM" enable -s tr test/ct svc:/test/wt:default
	local f
	for f in $TR $CT $WT; do
		assert_eq online "$(state $f)" "$f after enable -s"
		assert_eq true "$("$SVCPROP" -c -p general/enabled $f)" "$f general/enabled"
	done
	local gct gwt
	gct=$(rprop $CT contract) gwt=$(rprop $WT contract)
	SEEN_PGIDS="$SEEN_PGIDS $gct $gwt"
	[ -n "$(group_pids "$gct")" ] || fail "contract service has no process in group $gct"
	[ -n "$(group_pids "$gwt")" ] || fail "wait service has no process in group $gwt"
	# enable -s returns once online: the wait service is forked but may not have exec'd sleep,
	# the contract service's backgrounded child neither.
	wait_sleepers 2

	log "disable -s: disabled, and nothing of the groups is left when it returns"
	ok "$SVCADM" disable -s $CT $WT tr
	for f in $TR $CT $WT; do
		assert_eq disabled "$(state $f)" "$f after disable -s"
	done
	[ -z "$(group_pids "$gct")" ] || fail "group $gct still has: $(group_pids "$gct")"
	[ -z "$(group_pids "$gwt")" ] || fail "group $gwt still has: $(group_pids "$gwt")"
	assert_eq 0 "$(count_sleepers)" "service processes after disable -s"

	log "-v says what it did"
	ok "$SVCADM" -v enable -s tr
	assert_eq "$TR enabled." "$OUT" "enable -v"
	startd_stop
}

case_temporary() {
	startd_start
	import temp "$(manifest tr ':true' transient)"
	ok "$SVCADM" enable -t -s $TR
	assert_eq online "$(state $TR)" "after enable -ts"
	assert_eq true "$("$SVCPROP" -c -p general_ovr/enabled $TR)" "general_ovr/enabled"
	assert_eq false "$("$SVCPROP" -c -p general/enabled $TR)" "general/enabled after -t"
	ok "$SVCCFG" -s $TR listpg
	assert_line "general_ovr framework NONPERSISTENT" "$OUT" "listpg"

	log "disable -t overrides a persistent enable"
	ok "$SVCADM" enable -s $TR
	run "$SVCPROP" -c -p general_ovr/enabled $TR
	[ "$RC" -ne 0 ] || fail "a persistent enable left general_ovr/enabled: $OUT"
	ok "$SVCADM" disable -t -s $TR
	assert_eq disabled "$(state $TR)" "after disable -ts"
	assert_eq true "$("$SVCPROP" -c -p general/enabled $TR)" "general/enabled after disable -t"

	log "the override survives a configd restart, not a new boot"
	ok "$SVCADM" enable -t $TR
	ok "$SVCADM" disable -t $TR
	startd_stop
	configd_restart
	assert_eq false "$("$SVCPROP" -c -p general_ovr/enabled $TR)" \
		"general_ovr/enabled after a configd restart"
	configd_stop
	new_boot
	configd_start
	run "$SVCPROP" -c -p general_ovr/enabled $TR
	[ "$RC" -ne 0 ] || fail "general_ovr/enabled survived a new boot: $OUT"
	assert_eq true "$("$SVCPROP" -c -p general/enabled $TR)" "general/enabled after a new boot"
	startd_start
	wait_state $TR online
	startd_stop
}

case_actions() {
	startd_start
	import actions "$(manifest ct "$sleeper" contract \
		"<exec_method type=\"method\" name=\"refresh\" exec=\"touch $ROOT/refreshed\" timeout_seconds=\"10\"/>" \
		"<property_group name=\"config\" type=\"application\"><propval name=\"v\" type=\"count\" value=\"1\"/></property_group>")"
	ok "$SVCADM" enable -s ct
	local g
	g=$(rprop $CT contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"

	log "restart: a new process group, the old one gone"
	ok "$SVCADM" -v restart ct
	assert_eq "Action restart set for $CT." "$OUT" "restart -v"
	wait_restarted $CT contract "$g" "not restarted"
	wait_group_empty "$g"
	g=$(rprop $CT contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"

	log "refresh: the running snapshot is retaken and the refresh method runs"
	ok "$SVCCFG" -s svc:/test/ct setprop config/v = count: 2
	assert_eq 1 "$("$SVCPROP" -s running -p config/v $CT)" "running before refresh"
	ok "$SVCADM" refresh ct
	assert_eq 2 "$("$SVCPROP" -s running -p config/v $CT)" "running after refresh"
	wait_action_done $CT refresh
	# startd deletes the request when it queues it; the method runs after, in the worker.
	wait_until '[ -e "$ROOT/refreshed" ]' "the refresh method did not run"

	log "mark maintenance, clear"
	ok "$SVCADM" mark maintenance ct
	wait_state $CT maintenance
	wait_group_empty "$g"
	run "$SVCADM" enable -s ct
	assert_rc 3 "enable -s of an instance in maintenance"
	assert_eq "svcadm: Instance \"$CT\" is in maintenance state." "$ERR" "enable -s message"
	ok "$SVCADM" clear ct
	wait_state $CT online
	SEEN_PGIDS="$SEEN_PGIDS $(rprop $CT contract)"
	for opt in -I -t; do
		log "mark $opt maintenance, clear"
		ok "$SVCADM" mark $opt maintenance ct
		wait_state $CT maintenance
		ok "$SVCADM" clear ct
		wait_state $CT online
		SEEN_PGIDS="$SEEN_PGIDS $(rprop $CT contract)"
	done

	log "mark degraded, clear (restore)"
	ok "$SVCADM" mark degraded ct
	wait_state $CT degraded
	ok "$SVCADM" enable -s ct
	ok "$SVCADM" clear ct
	wait_state $CT online

	log "refusals"
	run "$SVCADM" clear ct
	assert_rc 1 "clear of an online instance"
	assert_eq "svcadm: Instance \"$CT\" is not in a maintenance or degraded state." "$ERR" "clear"
	ok "$SVCADM" disable -s ct
	run "$SVCADM" mark degraded ct
	assert_rc 1 "mark degraded of a disabled instance"
	assert_eq "svcadm: Instance \"$CT\" is not online." "$ERR" "mark degraded"
	run "$SVCADM" mark frobbed ct
	assert_rc 2 "mark of an unknown state"
	startd_stop
}

case_deps() {
	startd_start
	local dep='<dependency name="a" grouping="require_all" restart_on="none" type="service">
      <service_fmri value="svc:/test/a"/></dependency>'
	local missing='<dependency name="x" grouping="require_all" restart_on="none" type="service">
      <service_fmri value="svc:/test/nosuch:default"/></dependency>'
	local opt='<dependency name="o" grouping="optional_all" restart_on="none" type="service">
      <service_fmri value="svc:/test/nosuch"/></dependency>'
	import deps "$(manifest a ':true' transient)" "$(manifest b ':true' transient "$dep")" \
		"$(manifest c ':true' transient "$missing")" "$(manifest d ':true' transient "$opt")"
	log "b requires a, which is disabled: exit 4"
	run "$SVCADM" enable -s test/b
	assert_rc 4 "enable -s with a disabled dependency"
	assert_eq 'svcadm: Instance "svc:/test/b:default" has unsatisfied dependencies.' "$ERR" "msg"
	log "enable -rs enables the chain and waits for it"
	ok "$SVCADM" enable -rs test/b
	assert_eq online "$(state svc:/test/a:default)" "a"
	assert_eq online "$(state svc:/test/b:default)" "b"
	log "a dependency on an instance that does not exist: exit 4"
	run "$SVCADM" enable -s test/c
	assert_rc 4 "enable -s with a missing dependency"
	wait_state svc:/test/c:default offline
	log "an optional_all dependency on nothing does not hold d back"
	ok "$SVCADM" enable -s test/d
	log "disabling a makes b go offline; enable -s b then exits 4"
	ok "$SVCADM" disable -s test/a
	wait_state svc:/test/b:default offline
	run "$SVCADM" enable -s test/b
	assert_rc 4 "enable -s after the dependency was disabled"
	startd_stop
}

case_bad_input() {
	ok "$SVCCFG" add test/one
	ok "$SVCCFG" -s test/one add default
	ok "$SVCCFG" add test/two
	ok "$SVCCFG" -s test/two add default
	ok "$SVCCFG" -s test/two add other
	local before
	before=$(dump)
	run "$SVCADM" enable nosuch
	assert_rc 1 "unknown FMRI"
	assert_eq "svcadm: Pattern 'nosuch' doesn't match any instances" "$ERR" "unknown FMRI"
	run "$SVCADM" disable svc:/test/one:nosuch
	assert_rc 1 "unknown instance"
	assert_eq "svcadm: Pattern 'svc:/test/one:nosuch' doesn't match any instances" "$ERR" "msg"
	# svcadm.c walks with SCF_WALK_UNIPARTIAL | SCF_WALK_MULTIPLE (lowlevel.c scf_walk_fmri()):
	# an abbreviation may name one instance only; the candidates, tab-indented, newest first.
	run "$SVCADM" enable default
	assert_rc 1 "ambiguous abbreviation"
	assert_eq "svcadm: Partial FMRI 'default' matches multiple instances:
	svc:/test/two:default
	svc:/test/one:default" "$ERR" "ambiguous abbreviation"
	local u
	for u in "" "frob test/one" "enable" "enable -x test/one" "disable -r test/one" \
		"mark maintenance" "clear" "milestone" "milestone bogus"; do
		# shellcheck disable=SC2086
		run "$SVCADM" $u
		assert_rc 2 "svcadm $u"
		assert_match "[Uu]sage: " "$ERR" "svcadm $u"
	done
	assert_match 'not a valid major milestone' "$ERR" "milestone bogus"
	run "$SVCADM" mark -t degraded test/one
	assert_rc 2 "mark -t degraded"
	assert_eq "svcadm: -t may not be used with degraded." "$ERR" "mark -t degraded"
	assert_unchanged "$before" "refused commands"

	log "refresh and clear take no options: \"refresh -s FMRI\" (Ansible's) refreshes FMRI, exit 1"
	run "$SVCADM" refresh -s test/one
	assert_rc 1 "svcadm refresh -s test/one"
	assert_eq "svcadm: Pattern '-s' doesn't match any instances" "$ERR" "refresh -s"
	[ -n "$("$SVCPROP" -c -p restarter_actions/refresh svc:/test/one:default 2>/dev/null)" ] ||
		fail "svcadm refresh -s test/one did not refresh test/one"
	run "$SVCADM" clear -x test/one
	assert_rc 1 "svcadm clear -x test/one"
	assert_eq "svcadm: Pattern '-x' doesn't match any instances" "$(head -n 1 <<<"$ERR")" "clear -x"

	log "a bad operand does not stop the good ones, but the status is 1"
	run "$SVCADM" enable nosuch test/one
	assert_rc 1 "enable of a bad and a good operand"
	assert_eq true "$("$SVCPROP" -c -p general/enabled svc:/test/one:default)" "one enabled"
	log "a glob may match several instances"
	ok "$SVCADM" disable 'svc:/test/*'
	assert_eq false "$("$SVCPROP" -c -p general/enabled svc:/test/one:default)" "one disabled"
	log "a service operand stands for all its instances"
	ok "$SVCADM" enable test/two
	assert_eq true "$("$SVCPROP" -c -p general/enabled svc:/test/two:default)" "two:default"
	assert_eq true "$("$SVCPROP" -c -p general/enabled svc:/test/two:other)" "two:other"
	log "one's abbreviation names the service and its instance: the service"
	ok "$SVCADM" disable one
	assert_eq false "$("$SVCPROP" -c -p general/enabled svc:/test/one:default)" "one disabled"
	log "a dead repository: exit 1, at once"
	configd_stop
	run timeout 10 "$SVCADM" enable test/one
	assert_rc 1 "no configd"
	assert_match "^svcadm: " "$ERR" "no configd"
}

# wait_prop FMRI PG/PROP VALUE: polls the current value until it is VALUE.
wait_prop() {
	local fmri=$1 prop=$2 want=$3
	wait_until '[ "$("$SVCPROP" -c -p "$prop" "$fmri" 2>/dev/null)" = "$want" ]' \
		"$fmri: $prop never became $want"
}

case_other_entity() {
	startd_start
	# The start method blocks on a fifo until the test writes to it: no timing involved.
	mkfifo "$ROOT/go"
	import other "$(manifest slow "/bin/sh -c 'read x &lt; $ROOT/go'" transient)"
	local S=svc:/test/slow:default bg rc=0
	"$SVCADM" enable -s slow 2>"$ROOT/bg.err" &
	bg=$!
	wait_prop $S general/enabled true
	# Disable only once startd runs the start method (offline, next online): a disable that
	# startd reads before it has acted on the enable means no start at all, so no reader of
	# the fifo, and the "echo go" below would block until the test's timeout.
	wait_until '[ "$(rprop $S next_state)" = online ]' "$S: the start method never began"
	ok "$SVCADM" disable slow
	wait "$bg" || rc=$?
	RC=$rc OUT="" ERR=$(cat "$ROOT/bg.err")
	assert_rc 3 "enable -s of an instance disabled meanwhile"
	assert_eq "svcadm: Instance \"$S\" has been disabled by another entity." "$ERR" "message"
	echo go >"$ROOT/go"
	wait_state $S disabled

	log "enable -s returns once the start method is released; disable -s"
	"$SVCADM" enable -s slow &
	bg=$!
	# Opening the fifo for writing blocks until the start method opens it to read.
	echo go >"$ROOT/go"
	wait "$bg" || fail "enable -s of slow failed"
	assert_eq online "$(state $S)" "after enable -s"
	ok "$SVCADM" disable -s slow
	assert_eq disabled "$(state $S)" "after disable -s"
	startd_stop
}

case_misconfigured() {
	log "no startd: nobody writes the restarter pg"
	make_instance mis ':true' transient
	run "$SVCADM" enable -s svc:/test/mis:default
	assert_rc 3 "enable -s without a restarter pg"
	assert_eq 'svcadm: svc:/test/mis:default is misconfigured (lacks "restarter" property group).' \
		"$ERR" "the race's symptom"
	assert_eq true "$("$SVCPROP" -c -p general/enabled svc:/test/mis:default)" "enabled anyway"
	run "$SVCADM" disable -s mis
	assert_rc 3 "disable -s without a restarter pg"
	assert_match 'misconfigured \(lacks "restarter" property group\)\.$' "$ERR" "disable -s"
	log "with startd, the same command succeeds"
	startd_start
	wait_state svc:/test/mis:default disabled
	ok "$SVCADM" enable -s mis
	startd_stop
}

case "$CASE" in
models) case_models ;;
temporary) case_temporary ;;
actions) case_actions ;;
deps) case_deps ;;
bad-input) case_bad_input ;;
misconfigured) case_misconfigured ;;
other-entity) case_other_entity ;;
*) fail "unknown case $CASE" ;;
esac
log "ok"
