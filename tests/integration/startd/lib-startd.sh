# lib-startd.sh: svc.startd on top of lib.sh's sandbox (sourced, bash).
#
# THE MODEL
#
# A test starts configd (lib.sh), then svc.startd on the same root.  startd's readiness is its
# "ready" log line, polled against a deadline.  Instances are made with svccfg; states are read
# with svcprop from the restarter pg that only startd writes, polled with a deadline (never a
# fixed sleep).  Each service's processes are identified by their process group (the
# restarter/contract property) and by a sleep duration unique to this test run, so tests that
# run in parallel never look at each other's processes.  The EXIT trap kills startd, then
# whatever group of this test's processes a test saw, then lets the sandbox (tools/sandbox.sh)
# clean up.

source "$(dirname "$0")/../lib.sh"

SEEN_PGIDS=""
# A sleep duration no other test uses, so pgrep -f counts only this test's service processes.
SLEEP_N=$((100000 + RANDOM * 7 + $$ % 7))

startd_cleanup() {
	local rc=$?
	sandbox_halt startd
	local g left
	# A passing test leaves no service process behind, whatever it did to startd.
	left=$(ps -e -o pid=,comm=,args= | awk -v n="$SLEEP_N" '$2 == "sleep" && index($0, n)')
	if [ "$rc" -eq 0 ] && [ -n "$left" ]; then
		echo "[$TEST_NAME] FAIL: service processes left behind:" >&2
		echo "$left" >&2
		rc=1
	fi
	# Groups of the sleep processes with this test's unique duration (never our own group).
	local mine
	mine=$(ps -o pgid= -p $$ | tr -d ' ')
	SEEN_PGIDS="$SEEN_PGIDS $(ps -e -o pgid=,comm=,args= |
		awk -v n="$SLEEP_N" '$2 == "sleep" && index($0, n) {print $1}')"
	for g in $SEEN_PGIDS; do
		# "-0" or "-1" would be our own group or every process: never.
		[[ "$g" =~ ^[0-9]+$ ]] && [ "$g" -gt 1 ] && [ "$g" != "$mine" ] || continue
		# A group seen long ago may be gone and its number reused (pids wrap within a
		# minute of the suite): kill it only while a process of this test is in it.
		ps -e -o pgid=,args= | awk -v g="$g" -v n="$SLEEP_N" -v r="$ROOT" \
			'$1 == g && (index($0, n) || index($0, r)) { found = 1 } END { exit !found }' ||
			continue
		kill -KILL -- "-$g" 2>/dev/null || true
	done
	# A startd killed here leaves its cgroup directory: remove what is empty by now.
	local cg
	for cg in $(sed -n 's/^svc.startd: cgroup v2 leaves under //p' "$STARTD_LOG" 2>/dev/null | sort -u); do
		rmdir "$cg"/*/ "$cg" 2>/dev/null || true
	done
	if [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ] && [ -n "$STARTD_LOG" ] && [ -s "$STARTD_LOG" ]; then
		echo "--- svc.startd log (last 40 lines) ---" >&2
		tail -n 40 "$STARTD_LOG" >&2
	fi
	sandbox_cleanup "$rc"
}

sandbox_startd() {
	need_var SVC_STARTD SVCCFG SVCPROP
	sandbox_start
	trap startd_cleanup EXIT
}

# Starts startd and waits for its "ready" line (tools/sandbox.sh).
startd_start() { sandbox_start_startd; }

# Stops startd with SIGTERM and requires exit status 0 within the deadline.
startd_stop() { sandbox_stop startd; }

startd_kill9() { sandbox_kill startd; }

# rprop FMRI PROP: a restarter property's value ("" when absent).
rprop() {
	"$SVCPROP" -p "restarter/$2" "$1" 2>/dev/null || true
}

# wait_state FMRI STATE: polls restarter/state (and next_state none) until it is STATE.
wait_state() {
	local fmri=$1 want=$2 s="" n=""
	wait_until 's=$(rprop "$fmri" state) n=$(rprop "$fmri" next_state)
		[ "$s" = "$want" ] && [ "$n" = none ]' \
		"$fmri: state '\$s' (next '\$n'), expected '$want' within the deadline" \
		"${3:-$READY_DEADLINE_S}"
}

# instance_methods_svccfg NAME EXEC MODEL TIMEOUT STOP: the svccfg commands that make
# svc:/test/NAME:default, select it and give it its startd pg (duration MODEL), a start method
# EXEC (TIMEOUT seconds) and a stop method STOP; nothing else.
instance_methods_svccfg() {
	cat <<EOT
add test/$1
select svc:/test/$1
add default
select svc:/test/$1:default
addpg startd framework
setprop startd/duration = astring: $3
addpg start method
setprop start/exec = astring: "$2"
setprop start/timeout_seconds = count: $4
addpg stop method
setprop stop/exec = astring: "$5"
setprop stop/timeout_seconds = count: 10
EOT
}

# instance_svccfg NAME EXEC [MODEL [TIMEOUT [ENABLED [STOP]]]]: the svccfg commands of
# make_instance (the stop method STOP, default ":kill"), ending with the scope selected again,
# so that several can go to one svccfg run.
instance_svccfg() {
	instance_methods_svccfg "$1" "$2" "${3:-contract}" "${4:-10}" "${6:-:kill}"
	cat <<EOT
refresh
addpg general framework
setprop general/enabled = boolean: ${5:-false}
unselect
unselect
EOT
}

# make_instance NAME EXEC [MODEL [TIMEOUT [ENABLED [STOP]]]]: svc:/test/NAME:default with a
# start method, a ":kill" (or STOP) stop method, and general/enabled (default false); refreshed.
make_instance() {
	instance_svccfg "$@" >"$ROOT/$1.svccfg"
	ok "$SVCCFG" -f "$ROOT/$1.svccfg"
}

# make_emi EXEC: an enabled, transient svc:/system/early-manifest-import:default whose start
# method runs EXEC (60 s timeout).
make_emi() {
	ok "$SVCCFG" -f /dev/stdin <<EOT
add system/early-manifest-import
select svc:/system/early-manifest-import
add default
select svc:/system/early-manifest-import:default
addpg startd framework
setprop startd/duration = astring: transient
addpg start method
setprop start/exec = astring: "$1"
setprop start/timeout_seconds = count: 60
refresh
addpg general framework
setprop general/enabled = boolean: true
EOT
}

# make_emi_offline: svc:/system/early-manifest-import:default with restarter/state offline
# and no general pg, so startd never runs nor inserts it: it stays offline (EMI pending).
make_emi_offline() {
	ok "$SVCCFG" -f /dev/stdin <<EOT
add system/early-manifest-import
select svc:/system/early-manifest-import
add default
select svc:/system/early-manifest-import:default
addpg restarter framework
setprop restarter/state = astring: offline
EOT
}

set_enabled() {
	ok "$SVCCFG" -s "$1" setprop general/enabled = boolean: "$2"
}

# The pids of live (non-zombie) processes in a process group.
group_pids() {
	ps -e -o pid=,pgid=,stat= | awk -v g="$1" '$2 == g && $3 !~ /^Z/ {print $1}'
}

# wait_group_empty PGID: polls until the group has no live process.
wait_group_empty() {
	local g=$1
	wait_until '[ -z "$(group_pids "$g")" ]' "process group $g still has: \$(group_pids $g)"
}

# Live processes running "sleep $SLEEP_N" (this test's service processes).
count_sleepers() {
	ps -e -o stat=,args= | awk -v a="sleep $SLEEP_N" '$1 !~ /^Z/ && substr($0, index($0, $2)) == a' | wc -l
}

sleeper_pids() {
	ps -e -o pid=,stat=,args= | awk -v a="sleep $SLEEP_N" '$2 !~ /^Z/ && substr($0, index($0, $3)) == a {print $1}'
}

# wait_action_done FMRI NAME: startd deletes a request once it has acted on it.
wait_action_done() {
	local fmri=$1 pg_prop=restarter_actions/$2
	wait_until '! "$SVCPROP" -q -p "$pg_prop" "$fmri" 2>/dev/null' "$pg_prop of $1 never handled"
}

# wait_restarted FMRI PROP OLD WHAT: polls until restarter/PROP of FMRI is no longer OLD, the
# instance is online and exactly one service process runs; fails with WHAT plus the state.
wait_restarted() {
	local fmri=$1 prop=$2 old=$3
	wait_until '[ "$(rprop "$fmri" "$prop")" != "$old" ] && [ "$(rprop "$fmri" state)" = online ] &&
		[ "$(count_sleepers)" -eq 1 ]' "$4: state \$(rprop $1 state)"
}

# wait_sleepers N: polls until exactly N service processes run "sleep $SLEEP_N".  "online" comes
# when the service's process is forked (wait model) or its start method has exited (contract
# model, the sleeper backgrounded): in both the child may not have exec'd sleep yet.
wait_sleepers() {
	local want=$1
	wait_until '[ "$(count_sleepers)" -eq "$want" ]' \
		"\$(count_sleepers) service processes, not $want, after ${READY_DEADLINE_S}s"
}
