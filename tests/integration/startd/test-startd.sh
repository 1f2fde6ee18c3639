#!/bin/bash
# svc.startd against a real configd in a private root.  One case per run (the argument):
#   new-instance  the restarter pg appears, written by startd alone: uninitialized -> disabled
#   transient     a ":true" transient service: enable -> online, disable -> disabled;
#                 general_ovr overrides; %-tokens in exec are expanded
#   contract      a daemon that backgrounds a child: online, its processes in one group;
#                 killed from outside -> restarted; disable -> no process of the group left
#   fail3         a start method exiting 1 runs 3 times, then maintenance; exit 96 at once
#   timeout       a start method past timeout_seconds -> maintenance, its processes killed
#   restart       SIGKILL startd, restart it: running services adopted, none twice, states
#                 kept; SIGTERM stops the services and exits 0
#   actions       restarter_actions (what svcadm writes): restart, maint_on, maint_off,
#                 degraded, restore; each request is acted on once and deleted
#   mid-start     startd killed while a start method runs: the new startd kills that group
#                 and starts the service again, so only one copy runs
#   too-quickly   a contract service whose processes all exit at once is restarted, and the 5th
#                 restart within 600 s puts it in maintenance (restarting_too_quickly)
#   wait-model    the start method's process is the service: online; when it dies, restarted
#   second        a second startd on the same root is refused, the first goes on
#   lost-configd  configd dies for good: startd stops its services and exits 1
#   configd-restart  configd killed and started again under a running startd: startd
#                 registers again, every restarter pg comes back, services run on untouched
#                 (no second copy), and startd serves the new configd
#   emi           early-manifest-import runs once, to completion, before startd listens, and is
#                 online; what it imported is then handled as usual
#   tokens        %{pg/prop} in exec: the instance's property, the service's (composed), one
#                 added since the last refresh, multi-valued (blank, ',' and ':' joined), shell
#                 metacharacters quoted; a missing property -> maintenance, the reason logged
#   home          working_directory ":home" with a user: the method runs in that user's home
#                 (root only)
#   privileges    privileges mapped to capabilities (the method's CapEff/CapBnd), and what has
#                 no Linux equivalent refused with illumos' message (root only)
#   context       method_context (user, working_directory, environment) from the method pg,
#                 else from the method_context pg, as the method sees it
#   bad-context   an unknown user -> maintenance (method_failed) with the reason logged; a
#                 missing executable -> exit 127 three times -> maintenance
#   restart-on    dependents by restart_on: a dependency's fault restarts error/restart/refresh,
#                 its restart restarts restart/refresh, its refresh restarts refresh; none is
#                 only stopped when the dependency is disabled
#   admin-cap     more than 100 events queued for an instance: administrative requests dropped
#   cgroup        a service process that calls setsid() is still killed on disable (its cgroup
#                 v2 leaf); skipped where no cgroup v2 hierarchy is writable
#   dependency    require_all: B waits offline for A, comes online after it, goes offline
#                 when A is disabled; dependencies are read from the running snapshot
# usage: test-startd.sh CASE [PATH-OF-svc.startd] (else $SVC_STARTD)
source "$(dirname "$0")/lib-startd.sh"

# The non-persistent restarter_actions pg, unless svccfg refresh (which requests a refresh
# there, as illumos' smf_refresh_instance) has created it already.
actions_pg() {
	"$SVCCFG" -s "$1" listpg | grep -q '^restarter_actions ' ||
		ok "$SVCCFG" -s "$1" addpg restarter_actions framework P
}

CASE=${1:?usage: test-startd.sh CASE [svc.startd]}
SVC_STARTD=${2:-${SVC_STARTD:-}}
sandbox_startd
TR=svc:/test/tr:default
CT=svc:/test/ct:default
SLEEPER="/bin/sh -c 'sleep $SLEEP_N & echo started'"

case_new_instance() {
	log "an instance created before startd runs has no restarter pg"
	make_instance early ":true" transient
	run "$SVCPROP" -p restarter svc:/test/early:default
	[ "$RC" -ne 0 ] || fail "restarter pg exists before any restarter ran: $OUT"

	startd_start
	wait_state svc:/test/early:default disabled
	log "an instance created while startd runs gets its pg from startd"
	make_instance late ":true" transient
	wait_state svc:/test/late:default disabled
	local f
	for f in svc:/test/early:default svc:/test/late:default; do
		ok "$SVCCFG" -s "$f" listpg
		assert_line "restarter framework NONPERSISTENT" "$OUT" "listpg $f"
		assert_eq disable_request "$(rprop "$f" auxiliary_state)" "$f auxiliary_state"
		assert_match '^[0-9]+(\.[0-9]+)?$' "$(rprop "$f" state_timestamp)" "$f state_timestamp"
		assert_match "$f: inserted, uninitialized" "$(cat "$STARTD_LOG")" "startd log"
		assert_match "$f: uninitialized -> disabled" "$(cat "$STARTD_LOG")" "startd log"
		ok "$SVCCFG" -s "$f" listsnap
		assert_line running "$OUT" "snapshots of $f"
	done
	log "an instance without a general pg gets an uninitialized restarter pg, nothing more"
	ok "$SVCCFG" -s svc:/test/late add bare
	ok "$SVCCFG" -s svc:/test/late:bare addpg config application
	ok "$SVCCFG" -s svc:/test/late:bare setprop config/x = count: 1
	# A barrier: once startd has handled an instance created after these commits, it has seen
	# the notifications of the bare instance too (they come in commit order).
	make_instance barrier ":true" transient
	wait_state svc:/test/barrier:default disabled
	assert_eq uninitialized "$(rprop svc:/test/late:bare state)" "the bare instance's state"
	assert_eq insert_in_graph "$(rprop svc:/test/late:bare auxiliary_state)" \
		"the bare instance's auxiliary_state"
	if grep -q "svc:/test/late:bare: inserted" "$STARTD_LOG"; then
		fail "an instance without a general pg was inserted"
	fi
	startd_stop
}

case_transient() {
	startd_start
	make_instance tr ":true" transient
	wait_state $TR disabled
	set_enabled $TR true
	wait_state $TR online
	assert_eq none "$(rprop $TR auxiliary_state)" "auxiliary_state when online"
	set_enabled $TR false
	wait_state $TR disabled
	log "general_ovr/enabled overrides general/enabled"
	ok "$SVCCFG" -s $TR addpg general_ovr framework P
	ok "$SVCCFG" -s $TR setprop general_ovr/enabled = boolean: true
	wait_state $TR online
	log "method tokens: %f %s %i %m %r %%"
	make_instance tok "/bin/sh -c 'echo %f %s %i %m %r %%'" transient 10 true
	wait_state svc:/test/tok:default online
	assert_match '^svc:/test/tok:default test/tok default start svc.startd %$' \
		"$(cat "$ROOT/var/svc/log/test-tok:default.log")" "the method's output"
	startd_stop
}

case_contract() {
	startd_start
	make_instance ct "$SLEEPER"
	wait_state $CT disabled
	set_enabled $CT true
	wait_state $CT online
	local g pids n
	g=$(rprop $CT contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"
	assert_eq "$g" "$(rprop $CT start_pid)" "start_pid (the group leader)"
	# Online once the start method has exited: the backgrounded child may not run sleep yet.
	wait_sleepers 1
	pids=$(group_pids "$g")
	[ -n "$pids" ] || fail "no process in the contract's group $g"
	assert_eq "$(sleeper_pids)" "$pids" "the processes of group $g (the backgrounded sleep)"
	log "the method's output goes to the instance's log"
	assert_eq "$ROOT/var/svc/log/test-ct:default.log" "$(rprop $CT logfile)" "logfile"
	assert_match '^started$' "$(cat "$ROOT/var/svc/log/test-ct:default.log")" "the log"

	log "all processes gone -> the service is restarted in a new contract"
	kill -KILL $pids
	wait_restarted $CT contract "$g" "not restarted"
	g=$(rprop $CT contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"
	assert_match "all processes of the service exited" "$(cat "$STARTD_LOG")" "startd log"

	log "disable stops the whole group"
	set_enabled $CT false
	wait_state $CT disabled
	wait_group_empty "$g"
	assert_eq 0 "$(count_sleepers)" "service processes left after disable"
	startd_stop
}

case_fail3() {
	startd_start
	make_instance f1 "/bin/sh -c 'echo attempt; exit 1'"
	set_enabled svc:/test/f1:default true
	wait_state svc:/test/f1:default maintenance
	assert_eq fault_threshold_reached "$(rprop svc:/test/f1:default auxiliary_state)" "aux"
	assert_eq 3 "$(grep -c '^attempt$' "$ROOT/var/svc/log/test-f1:default.log")" "start runs"

	log "exit 96 (SMF_EXIT_ERR_CONFIG) goes to maintenance at once"
	make_instance f96 "/bin/sh -c 'echo attempt; exit 96'"
	set_enabled svc:/test/f96:default true
	wait_state svc:/test/f96:default maintenance
	assert_eq method_failed "$(rprop svc:/test/f96:default auxiliary_state)" "aux"
	assert_eq 1 "$(grep -c '^attempt$' "$ROOT/var/svc/log/test-f96:default.log")" "start runs"

	log "maintenance stays until disabled"
	set_enabled svc:/test/f96:default false
	wait_state svc:/test/f96:default disabled
	startd_stop
}

case_timeout() {
	startd_start
	make_instance slow "/bin/sh -c 'sleep $SLEEP_N & wait'" contract 1
	local t0=$SECONDS
	set_enabled svc:/test/slow:default true
	wait_state svc:/test/slow:default maintenance
	# Well under any default timeout, far above the 1 s asked (1.3 s under ASan in CI).
	[ $((SECONDS - t0)) -le 10 ] || fail "maintenance came $((SECONDS - t0)) s after a 1 s timeout"
	assert_eq method_failed "$(rprop svc:/test/slow:default auxiliary_state)" "aux"
	# The timed-out method's processes are gone.
	wait_sleepers 0
	startd_stop
}

case_restart() {
	startd_start
	make_instance ct "$SLEEPER" contract 10 true
	make_instance tr ":true" transient 10 true
	make_instance off ":true" transient 10 false
	wait_state $CT online
	wait_state $TR online
	wait_state svc:/test/off:default disabled
	local g pid
	g=$(rprop $CT contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"
	wait_sleepers 1
	pid=$(sleeper_pids)

	log "SIGKILL startd, start a new one"
	startd_kill9
	startd_start
	# A barrier: a fresh instance handled means the adopted ones were handled before it
	# ("ready" comes before startd has gone through the instances it found).
	make_instance barrier ":true" transient
	wait_state svc:/test/barrier:default disabled
	assert_match "svc:/test/ct:default: adopting running process group $g" \
		"$(cat "$STARTD_LOG")" "startd log"
	wait_state $CT online
	wait_state $TR online
	wait_state svc:/test/off:default disabled
	assert_eq "$g" "$(rprop $CT contract)" "the contract after the restart"
	assert_eq 1 "$(count_sleepers)" "service processes after the restart"
	assert_eq "$pid" "$(sleeper_pids)" "the service process after the restart"

	log "the adopted contract is watched: its end restarts the service"
	kill -KILL "$pid"
	wait_restarted $CT contract "$g" "adopted service not restarted"
	g=$(rprop $CT contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"

	log "SIGTERM stops the services and exits 0"
	startd_stop
	wait_group_empty "$g"
	assert_eq 0 "$(count_sleepers)" "service processes after SIGTERM"
}

case_dependency() {
	startd_start
	make_instance a ":true" transient 10 false
	make_instance b ":true" transient 10 false
	cat >"$ROOT/dep.svccfg" <<'EOT'
select svc:/test/b:default
addpg need_a dependency
setprop need_a/grouping = astring: require_all
setprop need_a/restart_on = astring: none
setprop need_a/type = astring: service
setprop need_a/entities = fmri: svc:/test/a:default
refresh
EOT
	ok "$SVCCFG" -f "$ROOT/dep.svccfg"
	log "dependencies count from the running snapshot: once refreshed (svcadm refresh)"
	actions_pg svc:/test/b:default
	action svc:/test/b:default refresh
	wait_action_done svc:/test/b:default refresh
	set_enabled svc:/test/b:default true
	wait_state svc:/test/b:default offline
	wait_state svc:/test/a:default disabled
	# b stays offline while a is not online (a barrier shows startd had the time to act)
	make_instance barrier ":true" transient
	wait_state svc:/test/barrier:default disabled
	assert_eq offline "$(rprop svc:/test/b:default state)" "b before a runs"
	set_enabled svc:/test/a:default true
	wait_state svc:/test/a:default online
	wait_state svc:/test/b:default online

	log "a dependency added but not refreshed does not count; refreshed, it does"
	cat >"$ROOT/depx.svccfg" <<'EOT'
select svc:/test/b:default
addpg need_x dependency
setprop need_x/grouping = astring: require_all
setprop need_x/restart_on = astring: none
setprop need_x/type = astring: service
setprop need_x/entities = fmri: svc:/test/nosuch
EOT
	ok "$SVCCFG" -f "$ROOT/depx.svccfg"
	make_instance barrier2 ":true" transient
	wait_state svc:/test/barrier2:default disabled
	assert_eq online/none "$(rprop svc:/test/b:default state)/$(rprop svc:/test/b:default next_state)" \
		"b with an unrefreshed dependency"
	ok "$SVCCFG" -s svc:/test/b:default refresh
	action svc:/test/b:default refresh
	wait_state svc:/test/b:default offline
	ok "$SVCCFG" -s svc:/test/b:default delpg need_x
	ok "$SVCCFG" -s svc:/test/b:default refresh
	action svc:/test/b:default refresh
	wait_state svc:/test/b:default online

	set_enabled svc:/test/a:default false
	wait_state svc:/test/a:default disabled
	wait_state svc:/test/b:default offline
	startd_stop
}

# action FMRI NAME: one administrative request, as svcadm makes it (an integer timestamp).
action() {
	ok "$SVCCFG" -s "$1" setprop "restarter_actions/$2" = integer: "$(date +%s)"
}

case_actions() {
	startd_start
	make_instance ct "$SLEEPER" contract 10 true
	wait_state $CT online
	local g
	g=$(rprop $CT contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"
	actions_pg $CT

	log "restart: a new contract, the old group gone"
	action $CT restart
	wait_action_done $CT restart
	wait_until '[ "$(rprop $CT contract)" != "$g" ] && [ "$(rprop $CT state)" = online ]' \
		"not restarted: \$(rprop $CT state)"
	wait_group_empty "$g"
	g=$(rprop $CT contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"
	wait_sleepers 1

	log "maint_on: maintenance, processes stopped; maint_off: back online"
	action $CT maint_on
	wait_state $CT maintenance
	assert_eq administrative_request "$(rprop $CT auxiliary_state)" "aux"
	wait_group_empty "$g"
	action $CT maint_off
	wait_action_done $CT maint_off
	wait_state $CT online
	g=$(rprop $CT contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"
	wait_sleepers 1

	log "degraded and restore"
	action $CT degraded
	wait_state $CT degraded
	action $CT restore
	wait_state $CT online
	assert_eq "$g" "$(rprop $CT contract)" "degraded/restore keep the contract"
	startd_stop
	assert_eq 0 "$(count_sleepers)" "service processes after SIGTERM"
}

case_wait_model() {
	startd_start
	make_instance w "sleep $SLEEP_N" wait 10 true
	local I=svc:/test/w:default pid
	wait_state $I online
	pid=$(rprop $I start_pid)
	SEEN_PGIDS="$SEEN_PGIDS $pid"
	wait_sleepers 1
	assert_eq "$pid" "$(sleeper_pids)" "the service process is the start method's"
	kill -KILL "$pid"
	wait_restarted $I start_pid "$pid" "wait service not restarted"
	SEEN_PGIDS="$SEEN_PGIDS $(rprop $I start_pid)"
	startd_stop
	assert_eq 0 "$(count_sleepers)" "service processes after SIGTERM"
}

case_second() {
	startd_start
	run timeout 20 "$SVC_STARTD" --root "$ROOT"
	assert_rc 1 "a second startd"
	assert_match "another restarter is already attached" "$ERR" "its message"
	make_instance tr ":true" transient 10 true
	wait_state $TR online
	startd_stop
}

case_lost_configd() {
	# It waits this long for configd to come back (default 60 s).
	export SVC_STARTD_RECONNECT_TIMEOUT=1
	startd_start
	make_instance ct "$SLEEPER" contract 10 true
	wait_state $CT online
	SEEN_PGIDS="$SEEN_PGIDS $(rprop $CT contract)"
	configd_kill9
	sandbox_reap "$STARTD_PID" "startd still runs without a repository"
	STARTD_PID=""
	assert_eq 1 "$SANDBOX_STATUS" "startd's exit status without a repository"
	assert_eq 0 "$(count_sleepers)" "service processes left behind"
}

case_emi() {
	local E=svc:/system/early-manifest-import:default
	cat >"$ROOT/imported.svccfg" <<'EOT'
add test/imported
select svc:/test/imported
add default
select svc:/test/imported:default
addpg startd framework
setprop startd/duration = astring: transient
addpg start method
setprop start/exec = astring: ":true"
refresh
addpg general framework
setprop general/enabled = boolean: true
EOT
	make_emi "$SVCCFG -f $ROOT/imported.svccfg"
	startd_start
	# EMI ran before "ready": the imported instance exists already.
	ok "$SVCCFG" -s svc:/test/imported:default listpg
	assert_eq online "$(rprop $E state)" "EMI state when startd is ready"
	wait_state svc:/test/imported:default online
	make_instance barrier ":true" transient
	wait_state svc:/test/barrier:default disabled
	wait_state $E online
	assert_eq 1 "$(grep -c 'Executing start method' "$ROOT/var/svc/log/system-early-manifest-import:default.log")" \
		"EMI start runs"
	local lines
	lines=$(grep -n -e 'running early manifest import' -e 'ready$' "$STARTD_LOG" | cut -d: -f1 | tr '\n' ' ')
	assert_match '^[0-9]+ [0-9]+ $' "$lines" "EMI and ready lines"
	[ "${lines%% *}" -lt "$(echo "$lines" | cut -d' ' -f2)" ] || fail "EMI ran after ready: $lines"
	startd_stop
}

case_mid_start() {
	startd_start
	make_instance ms "/bin/sh -c 'sleep $SLEEP_N & sleep 1$SLEEP_N'" contract 600 true
	local I=svc:/test/ms:default g
	# The start method runs (and never ends by itself): offline, on its way to online.
	wait_until '[ "$(rprop $I next_state)" = online ] && [ "$(count_sleepers)" -eq 1 ]' \
		"start method not running"
	g=$(ps -o pgid= -p "$(sleeper_pids)" | tr -d ' ')
	SEEN_PGIDS="$SEEN_PGIDS $g"
	assert_eq "$g" "$(rprop $I contract)" "the group recorded while start runs"
	startd_kill9
	startd_start
	wait_until 'grep -q "svc:/test/ms:default: stopping leftover process group $g" "$STARTD_LOG"' \
		"the leftover group was not stopped"
	wait_group_empty "$g"
	wait_until '[ "$(count_sleepers)" -eq 1 ]' "service not started again"
	SEEN_PGIDS="$SEEN_PGIDS $(ps -o pgid= -p "$(sleeper_pids)" | tr -d ' ')"
	startd_stop
	assert_eq 0 "$(count_sleepers)" "service processes after SIGTERM"
}

case_too_quickly() {
	startd_start
	make_instance quick "/bin/sh -c 'echo run'" contract 10 true
	local I=svc:/test/quick:default
	wait_state $I maintenance
	assert_eq restarting_too_quickly "$(rprop $I auxiliary_state)" "aux"
	assert_eq 5 "$(grep -c '^run$' "$ROOT/var/svc/log/test-quick:default.log")" "start runs"
	startd_stop
}

# ctx_instance NAME: a transient instance whose start method prints its context to its log.
ctx_instance() {
	local name=$1
	make_instance "$name" "/bin/sh -c 'echo ctx user=\$(id -un) dir=\$(pwd) foo=\$FOO bar=\$BAR home=\$HOME; echo grp \$(id -gn) / \$(id -Gn)'" transient
}

case_context() {
	local user=nobody group=daemon supp="daemon nogroup" I=svc:/test/mc:default J=svc:/test/mi:default
	if [ "$(id -u)" -ne 0 ]; then
		user=$(id -un)
		group=$(id -gn)
		supp=$group
	fi
	log "method_context in the method pg: user $user, group $group, working_directory, environment"
	startd_start
	ctx_instance mc
	ok "$SVCCFG" -s $I setprop start/user = astring: "$user"
	ok "$SVCCFG" -s $I setprop start/group = astring: "$group"
	ok "$SVCCFG" -s $I setprop start/supp_groups = astring: "\"$supp\""
	ok "$SVCCFG" -s $I setprop start/working_directory = astring: /usr
	ok "$SVCCFG" -s $I setprop start/environment = astring: '("FOO=one" "BAR=two")'
	ok "$SVCCFG" -s $I refresh
	set_enabled $I true
	wait_state $I online
	local home
	home=$(getent passwd "$user" | cut -d: -f6)
	assert_match "^ctx user=$user dir=/usr foo=one bar=two home=$home\$" \
		"$(grep '^ctx' "$ROOT/var/svc/log/test-mc:default.log")" "the method's context"
	assert_eq "grp $group / $supp" "$(grep '^grp' "$ROOT/var/svc/log/test-mc:default.log")" \
		"the method's group and supplementary groups"

	log "the method_context pg is used when the method pg has none"
	ctx_instance mi
	ok "$SVCCFG" -s $J addpg method_context application
	ok "$SVCCFG" -s $J setprop method_context/working_directory = astring: /
	ok "$SVCCFG" -s $J setprop method_context/environment = astring: '("FOO=pg")'
	ok "$SVCCFG" -s $J refresh
	set_enabled $J true
	wait_state $J online
	assert_match "^ctx user=$(id -un) dir=/ foo=pg bar= home=" \
		"$(grep '^ctx' "$ROOT/var/svc/log/test-mi:default.log")" "the method_context pg"
	startd_stop
}

# The arguments a method gets, one "[arg]" line each, in the instance's log.
args_script() {
	printf '#!/bin/sh\nprintf "[%%s]\\n" "$@"\n' >"$ROOT/args.sh"
	chmod 755 "$ROOT/args.sh"
}

case_tokens() {
	local I=svc:/test/tok:default M=svc:/test/tokmiss:default log
	startd_start
	args_script
	make_instance tok "$ROOT/args.sh %{cfg/multi} %{cfg/meta} %{scfg/val} %{cfg/multi,} \
%{cfg/multi:} [%{cfg/empty}] %{late/p} %{bare} %m" transient
	ok "$SVCCFG" -f /dev/stdin <<'EOT'
select svc:/test/tok
addpg scfg application
setprop scfg/val = astring: from-service
select svc:/test/tok:default
addpg cfg application
setprop cfg/multi = astring: ("a" "b c" "d")
setprop cfg/meta = astring: "a;b&c|d(e)f<g>h^i j\"k'l`m\\n"
setprop cfg/empty = astring: ()
addpg application application
setprop application/bare = astring: bare-value
refresh
addpg late application
setprop late/p = astring: after-refresh
EOT
	set_enabled $I true
	wait_state $I online
	log=$(grep '^\[[^ ]' "$ROOT/var/svc/log/test-tok:default.log")
	assert_eq "[a]
[b c]
[d]
[a;b&c|d(e)f<g>h^i j\"k'l\`m\\n]
[from-service]
[a,b c,d]
[a:b c:d]
[[]]
[after-refresh]
[bare-value]
[start]" "$log" "the method's arguments"

	log "a property that does not exist: the method is not run, maintenance"
	make_instance tokmiss "$ROOT/args.sh ran %{cfg/nope}" transient
	set_enabled $M true
	wait_state $M maintenance
	assert_eq method_failed "$(rprop $M auxiliary_state)" "aux of a missing property"
	assert_match "Could not expand method tokens in \"$ROOT/args.sh ran %\\{cfg/nope\\}\": property \"cfg/nope\" not found" \
		"$(cat "$ROOT/var/svc/log/test-tokmiss:default.log")" "the instance's log"
	[ -z "$(grep '^\[ran\]' "$ROOT/var/svc/log/test-tokmiss:default.log")" ] ||
		fail "the method ran without its property"
	startd_stop
}

case_home() {
	local I=svc:/test/home:default user=daemon home
	[ "$(id -u)" -eq 0 ] || skip "working_directory :home with a user needs root"
	home=$(getent passwd $user | cut -d: -f6)
	[ -d "$home" ] || skip "user $user has no home directory ($home)"
	startd_start
	log "working_directory :home with user $user: the method runs in $home"
	make_instance home "/bin/sh -c 'echo at \$(pwd) as \$(id -un)'" transient
	ok "$SVCCFG" -s $I setprop start/user = astring: $user
	ok "$SVCCFG" -s $I setprop start/working_directory = astring: :home
	ok "$SVCCFG" -s $I refresh
	set_enabled $I true
	wait_state $I online
	assert_eq "at $home as $user" "$(grep '^at ' "$ROOT/var/svc/log/test-home:default.log")" \
		"the method's working directory"
	startd_stop
}

# priv_instance NAME PRIVILEGES [USER [DIR]]: a transient instance whose start method prints
# its capability sets, with start/privileges (and start/user, start/working_directory) set.
priv_instance() {
	make_instance "$1" "/bin/grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status" transient
	ok "$SVCCFG" -s "svc:/test/$1:default" setprop start/privileges = astring: "$2"
	[ -z "${3:-}" ] || ok "$SVCCFG" -s "svc:/test/$1:default" setprop start/user = astring: "$3"
	[ -z "${4:-}" ] ||
		ok "$SVCCFG" -s "svc:/test/$1:default" setprop start/working_directory = astring: "$4"
	ok "$SVCCFG" -s "svc:/test/$1:default" refresh
	set_enabled "svc:/test/$1:default" true
}

case_privileges() {
	local caps
	[ "$(id -u)" -eq 0 ] || skip "privileges need root (startd grants capabilities it has)"
	startd_start
	log "privileges basic,file_dac_write: CAP_DAC_OVERRIDE alone, for root and for a user"
	priv_instance proot basic,file_dac_write
	priv_instance puser basic,file_dac_write,file_dac_search daemon
	wait_state svc:/test/proot:default online
	wait_state svc:/test/puser:default online
	caps=$(grep '^Cap' "$ROOT/var/svc/log/test-proot:default.log" | tr -s '\t ' ' ')
	assert_eq "CapPrm: 0000000000000002
CapEff: 0000000000000002
CapBnd: 0000000000000002
CapAmb: 0000000000000002" "$caps" "root's capabilities"
	caps=$(grep '^Cap' "$ROOT/var/svc/log/test-puser:default.log" | tr -s '\t ' ' ')
	assert_eq "CapPrm: 0000000000000006
CapEff: 0000000000000006
CapBnd: 0000000000000006
CapAmb: 0000000000000006" "$caps" "user daemon's capabilities"

	log "a privilege Linux cannot honour, and basic ones taken away: refused, maintenance"
	local p n=0
	for p in basic,winged_flying_lemurs basic,dtrace_kernel 'basic,!proc_fork'; do
		n=$((n + 1))
		priv_instance pbad$n "$p"
		wait_state svc:/test/pbad$n:default maintenance
		assert_eq method_failed "$(rprop svc:/test/pbad$n:default auxiliary_state)" "aux of $p"
		assert_match "Could not interpret privileges property" \
			"$(cat "$ROOT/var/svc/log/test-pbad$n:default.log")" "the log of $p"
	done

	log "a working directory only file_dac_search lets the user into: refused with file_dac_write"
	mkdir -p "$ROOT/closed/in" && chmod 700 "$ROOT/closed"
	priv_instance pwrite basic,file_dac_write daemon "$ROOT/closed/in"
	priv_instance psearch basic,file_dac_search daemon "$ROOT/closed/in"
	wait_state svc:/test/pwrite:default maintenance
	assert_match "cannot change to the working_directory" \
		"$(cat "$ROOT/var/svc/log/test-pwrite:default.log")" "the log of file_dac_write"
	wait_state svc:/test/psearch:default online

	log "what Linux has no equivalent of: an exec profile, a project, a resource pool"
	local what
	for what in "use_profile = boolean: true" "project = astring: ctxproj" \
		"resource_pool = astring: pool_default"; do
		n=$((n + 1))
		make_instance pbad$n "/bin/true" transient
		ok "$SVCCFG" -s svc:/test/pbad$n:default setprop start/$what
		ok "$SVCCFG" -s svc:/test/pbad$n:default refresh
		set_enabled svc:/test/pbad$n:default true
		wait_state svc:/test/pbad$n:default maintenance
	done
	assert_match "Could not find profile" "$(cat "$ROOT/var/svc/log/test-pbad$((n - 2)):default.log")" \
		"the log of a profile"
	assert_match "Missing passwd or project entry" \
		"$(cat "$ROOT/var/svc/log/test-pbad$((n - 1)):default.log")" "the log of a project"
	assert_match "the pool could not be found" \
		"$(cat "$ROOT/var/svc/log/test-pbad$n:default.log")" "the log of a pool"
	startd_stop
}

case_bad_context() {
	local U=svc:/test/nouser:default X=svc:/test/noexec:default
	startd_start
	log "an unknown user: maintenance at once, method_failed, the reason logged"
	make_instance nouser "/bin/true" transient
	ok "$SVCCFG" -s $U setprop start/user = astring: no_such_user_$$
	ok "$SVCCFG" -s $U refresh
	set_enabled $U true
	wait_state $U maintenance
	assert_eq method_failed "$(rprop $U auxiliary_state)" "aux of an unknown user"
	assert_match "method_context: user \"no_such_user_$$\" does not exist" \
		"$(cat "$STARTD_LOG")" "startd's log"
	assert_match "method_context: user \"no_such_user_$$\" does not exist" \
		"$(cat "$ROOT/var/svc/log/test-nouser:default.log")" "the instance's log"

	log "an unknown group: the same"
	make_instance nogroup "/bin/true" transient
	ok "$SVCCFG" -s svc:/test/nogroup:default setprop start/group = astring: no_such_group_$$
	ok "$SVCCFG" -s svc:/test/nogroup:default refresh
	set_enabled svc:/test/nogroup:default true
	wait_state svc:/test/nogroup:default maintenance
	assert_match "method_context: group \"no_such_group_$$\" does not exist" \
		"$(cat "$STARTD_LOG")" "startd's log"

	log "a missing executable: exit 127, retried, then maintenance"
	make_instance noexec "/nonexistent/daemon-$$ --flag" contract 10 true
	wait_state $X maintenance
	assert_eq fault_threshold_reached "$(rprop $X auxiliary_state)" "aux of a missing executable"
	assert_eq 3 "$(grep -c 'exited with status 127' "$ROOT/var/svc/log/test-noexec:default.log")" \
		"start attempts"
	assert_match "\"/nonexistent/daemon-$$ --flag\" not found \\(exit 127\\)" \
		"$(cat "$STARTD_LOG")" "startd's log"
	log "startd is still up and serves other instances"
	make_instance tr ":true" transient 10 true
	wait_state $TR online
	startd_stop
}

case_configd_restart() {
	local OFF=svc:/test/off:default NEW=svc:/test/new:default
	startd_start
	make_instance ct "$SLEEPER" contract 10 true
	make_instance tr ":true" transient 10 true
	make_instance off ":true" transient
	wait_state $CT online
	wait_state $TR online
	wait_state $OFF disabled
	local g pids
	g=$(rprop $CT contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"
	wait_sleepers 1
	pids=$(group_pids "$g")
	[ -n "$pids" ] || fail "the contract service has no process"

	log "configd killed and restarted: the restarter pgs come back from startd's state"
	configd_kill9
	configd_start
	wait_state $CT online
	wait_state $TR online
	wait_state $OFF disabled
	assert_eq "$g" "$(rprop $CT contract)" "contract after the configd restart"
	assert_eq "$pids" "$(group_pids "$g")" "the service's processes (untouched)"
	assert_eq 1 "$(count_sleepers)" "copies of the service"
	assert_eq 2 "$(grep -c 'restarter attached' "$CONFIGD_LOG")" "restarter registrations"
	kill -0 "$STARTD_PID" || fail "startd exited"

	log "startd serves the new configd"
	make_instance new ":true" transient 10 true
	wait_state $NEW online
	set_enabled $CT false
	wait_state $CT disabled
	wait_group_empty "$g"
	startd_stop
}

# starts NAME: how many times the start method of svc:/test/NAME:default ran.
starts() {
	local c
	c=$(grep -c '^started$' "$ROOT/var/svc/log/test-$1:default.log" 2>/dev/null)
	echo "${c:-0}"
}

# wait_starts NAME N: polls until the start method of NAME ran N times and it is online.
wait_starts() {
	local name=$1 want=$2
	wait_until '[ "$(starts "$name")" -ge "$want" ]' \
		"$name started \$(starts $name) times, expected $want"
	wait_state "svc:/test/$1:default" online
}

case_restart_on() {
	local A=svc:/test/a:default n
	startd_start
	make_instance a "$SLEEPER" contract 10 true
	actions_pg $A
	wait_state $A online
	SEEN_PGIDS="$SEEN_PGIDS $(rprop $A contract)"
	for n in none error restart refresh; do
		make_instance "d$n" "/bin/sh -c 'echo started'" transient
		cat >"$ROOT/dep-$n.svccfg" <<EOT
select svc:/test/d$n:default
addpg need_a dependency
setprop need_a/grouping = astring: require_all
setprop need_a/restart_on = astring: $n
setprop need_a/type = astring: service
setprop need_a/entities = fmri: svc:/test/a
refresh
EOT
		ok "$SVCCFG" -f "$ROOT/dep-$n.svccfg"
		actions_pg "svc:/test/d$n:default"
		action "svc:/test/d$n:default" refresh
		wait_action_done "svc:/test/d$n:default" refresh
		set_enabled "svc:/test/d$n:default" true
		wait_starts "d$n" 1
	done

	log "a's processes die (an error): restart_on error, restart, refresh restart; none does not"
	local g
	g=$(rprop $A contract)
	kill -KILL -- "-$g"
	wait_starts derror 2
	wait_starts drestart 2
	wait_starts drefresh 2
	wait_state $A online
	SEEN_PGIDS="$SEEN_PGIDS $(rprop $A contract)"
	assert_eq 1 "$(starts dnone)" "starts of restart_on=none"
	assert_eq online "$(rprop svc:/test/dnone:default state)" "restart_on=none stays online"

	log "a restarted on request: restart_on restart and refresh restart"
	action $A restart
	wait_starts drestart 3
	wait_starts drefresh 3
	wait_state $A online
	SEEN_PGIDS="$SEEN_PGIDS $(rprop $A contract)"
	assert_eq 1 "$(starts dnone)" "starts of restart_on=none"
	assert_eq 2 "$(starts derror)" "starts of restart_on=error"

	log "a refreshed: only restart_on refresh restarts"
	action $A refresh
	wait_action_done $A refresh
	wait_starts drefresh 4
	assert_eq 3 "$(starts drestart)" "starts of restart_on=restart"
	assert_eq 2 "$(starts derror)" "starts of restart_on=error"

	log "a disabled: every dependent goes offline, whatever its restart_on"
	set_enabled $A false
	wait_state $A disabled
	for n in none error restart refresh; do
		wait_state "svc:/test/d$n:default" offline
	done
	startd_stop
}

case_admin_cap() {
	local B=svc:/test/busy:default deadline k=0 j
	startd_start
	log "an instance busy in its start method gets requests until more than 100 are queued"
	make_instance busy "/bin/sh -c 'sleep $SLEEP_N'" contract 0 true
	actions_pg $B
	deadline=$((SECONDS + READY_DEADLINE_S))
	while [ "$(count_sleepers)" -lt 1 ]; do
		[ "$SECONDS" -lt "$deadline" ] || fail "the start method did not run"
		sleep 0.01
	done
	SEEN_PGIDS="$SEEN_PGIDS $(rprop $B contract)"
	while ! grep -q "busy:default: [0-9]* events queued; dropping an administrative request" \
		"$STARTD_LOG"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "no administrative request dropped"
		{
			echo "select $B"
			for j in $(seq 50); do
				k=$((k + 1))
				echo "setprop restarter_actions/restart = integer: $k"
			done
		} >"$ROOT/flood.svccfg"
		ok "$SVCCFG" -f "$ROOT/flood.svccfg"
	done
	log "startd goes on, and stops cleanly"
	make_instance tr ":true" transient 10 true
	wait_state $TR online
	startd_stop
}

# Can this test make a cgroup v2 directory where startd would (below its own cgroup)?
cgroup_writable() {
	local mnt own probe
	mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/self/mounts)
	own=$(sed -n 's/^0:://p' /proc/self/cgroup)
	[ -n "$mnt" ] && [ -n "$own" ] || return 1
	[ "$own" = / ] && own=""
	probe="$mnt$own/minismf-probe-$$"
	mkdir "$probe" 2>/dev/null || return 1
	rmdir "$probe"
}

case_cgroup() {
	cgroup_writable || skip "no writable cgroup v2 hierarchy: the setsid escapee is not caught"
	local E=svc:/test/esc:default
	startd_start
	assert_match "cgroup v2 leaves under " "$(cat "$STARTD_LOG")" "startd's log"
	log "a daemon whose child calls setsid leaves the process group, not the cgroup"
	make_instance esc "/bin/sh -c 'setsid sleep $SLEEP_N & sleep $SLEEP_N & echo started'" contract 10 true
	wait_state $E online
	local g
	g=$(rprop $E contract)
	SEEN_PGIDS="$SEEN_PGIDS $g"
	wait_until '[ "$(count_sleepers)" -ge 2 ]' "the service's two processes did not appear"
	local p escaped=0
	for p in $(sleeper_pids); do
		[ "$(ps -o pgid= -p "$p" | tr -d ' ')" = "$g" ] || escaped=$((escaped + 1))
		assert_match "minismf-" "$(cat /proc/$p/cgroup)" "process $p's cgroup"
	done
	assert_eq 1 "$escaped" "processes outside the contract's group"
	log "disable kills the escapee too"
	set_enabled $E false
	wait_state $E disabled
	wait_group_empty "$g"
	assert_eq 0 "$(count_sleepers)" "service processes after disable"
	startd_stop
}

case "$CASE" in
new-instance) case_new_instance ;;
transient) case_transient ;;
contract) case_contract ;;
fail3) case_fail3 ;;
timeout) case_timeout ;;
restart) case_restart ;;
dependency) case_dependency ;;
actions) case_actions ;;
emi) case_emi ;;
mid-start) case_mid_start ;;
too-quickly) case_too_quickly ;;
wait-model) case_wait_model ;;
second) case_second ;;
lost-configd) case_lost_configd ;;
context) case_context ;;
tokens) case_tokens ;;
home) case_home ;;
privileges) case_privileges ;;
admin-cap) case_admin_cap ;;
restart-on) case_restart_on ;;
cgroup) case_cgroup ;;
configd-restart) case_configd_restart ;;
bad-context) case_bad_context ;;
*) fail "unknown case $CASE" ;;
esac
log "ok"
