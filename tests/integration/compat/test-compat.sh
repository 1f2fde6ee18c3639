#!/bin/bash
# The illumos command contract (issue 12): what a script written for illumos sees, checked
# against what the illumos sources do, exit codes and messages exact.  Each check names the
# illumos source file and function it follows.  Where the current source disagrees with the
# issue's text, the source wins (docs/compat.md lists those).  One case per run:
#   walk          operands (lowlevel.c scf_walk_fmri): exact services, anchored globs, refused
#                 abbreviations, svcprop's and svccfg's service operands (issue items 1-4)
#   svcs          options and exit codes (svcs.c main): -o/-s/-R, modes, -a, -L, Solaris getopt
#   svcadm        -S, restart -d, disable -c, enable -r's missing dependency, milestone, usage
#   svcprop       usage and the service view; -w's refusals
#   svcprop-wait  svcprop -w returns on a change of the pg, and says "Not found." on deletion
#   svccfg        setprop type change (item 6), unknown commands, export -a, archive -a,
#                 apply -n, delhash, bind failures
#   setenv        setenv / unsetenv on the start method, -i, -s, -m
#   snapshots     selectsnap, revert
#   templates     describe [-v] [-t], validate FMRI and the bare validate
#   editprop      editprop through $EDITOR
# usage: test-compat.sh CASE SVCS SVCADM
source "$(dirname "$0")/../lib.sh"

CASE=${1:?usage: test-compat.sh CASE SVCS SVCADM}
SVCS=${2:?}
SVCADM=${3:?}
need_var SVCCFG SVCPROP SVCS SVCADM
sandbox_start

# manifest FILE SERVICE-XML...: a manifest of these services, written to $ROOT/FILE.xml.
manifest() {
	local f="$ROOT/$1.xml"
	shift
	{
		echo '<?xml version="1.0"?>'
		echo '<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">'
		echo '<service_bundle type="manifest" name="compat">'
		printf '%s\n' "$@"
		echo '</service_bundle>'
	} >"$f"
}

# service NAME [INSTANCE...]: a service and its instances, with svccfg.
service() {
	local s=$1 i
	shift
	ok "$SVCCFG" add "$s"
	for i in "$@"; do
		ok "$SVCCFG" -s "$s" add "$i"
	done
}

enabled() { "$SVCPROP" -c -p general/enabled "$1"; }

case_walk() {
	service site/good default
	service site/multi a b
	service other/app default

	log "item 1: an exact service stands for all its instances (svcadm.c WALK_FLAGS)"
	# lowlevel.c scf_walk_fmri(): a service FMRI that exists, without SCF_WALK_SERVICE, matches
	# all its instances as one EXACT pattern; UNIPARTIAL concerns abbreviations only.
	ok "$SVCADM" enable svc:/site/multi
	assert_eq "true true" "$(enabled svc:/site/multi:a) $(enabled svc:/site/multi:b)" "svc:/site/multi"
	ok "$SVCADM" disable site/multi
	assert_eq "false false" "$(enabled svc:/site/multi:a) $(enabled svc:/site/multi:b)" "site/multi"
	ok "$SVCADM" enable 'site/multi:*'
	assert_eq "true true" "$(enabled svc:/site/multi:a) $(enabled svc:/site/multi:b)" "a glob"
	ok "$SVCADM" disable 'site/multi:*'
	# An abbreviation matching several instances is refused (SCF_MSG_PATTERN_MULTIPARTIAL),
	# candidates tab-indented in reverse discovery order; the other operands go on; exit 1.
	local before
	before=$(dump)
	run "$SVCADM" enable multi
	assert_rc 1 "svcadm enable multi"
	assert_eq "svcadm: Partial FMRI 'multi' matches multiple instances:
	svc:/site/multi:b
	svc:/site/multi:a" "$ERR" "svcadm enable multi"
	assert_unchanged "$before" "a refused abbreviation"
	run "$SVCADM" enable multi good
	assert_rc 1 "a refused operand beside a good one"
	assert_eq true "$(enabled svc:/site/good:default)" "the good operand went on"

	log "item 2: a glob gets svc:/ in front (lowlevel.c scf_walk_fmri, PATTERN_GLOB)"
	run "$SVCS" 'go*'
	assert_rc 1 "svcs go*"
	assert_eq "svcs: Pattern 'svc:/go*' doesn't match any instances" "$ERR" "svcs go*"
	assert_eq "STATE          STIME    FMRI" "$OUT" "svcs go*: the header only"
	run "$SVCADM" restart 'go*'
	assert_rc 1 "svcadm restart go*"
	assert_eq "svcadm: Pattern 'svc:/go*' doesn't match any instances" "$ERR" "svcadm restart go*"
	run "$SVCPROP" 'go*'
	assert_rc 1 "svcprop go*"
	assert_eq "svcprop: Pattern 'svc:/go*' doesn't match any entities" "$ERR" "svcprop go*"
	ok "$SVCS" -H -o fmri '*go*' 'site/go*'
	assert_eq "svc:/site/good:default" "$OUT" "*go* and site/go* match"
	# An abbreviation must sit on component boundaries (scf_cmp_pattern).
	run "$SVCS" -H od
	assert_eq "svcs: Pattern 'od' doesn't match any instances" "$ERR" "svcs od"

	log "item 3: svcprop reads an exact service as the service (svcprop.c main flags)"
	run "$SVCPROP" -p general site/good
	assert_rc 1 "svcprop -p general site/good"
	assert_eq "svcprop: Couldn't find property group \`general' for service \`svc:/site/good'." \
		"$ERR" "svcprop -p general site/good"
	run "$SVCPROP" -s running site/good
	assert_rc 1 "svcprop -s running site/good"
	assert_eq "svcprop: Only instances have snapshots." "$ERR" "svcprop -s of a service"
	# An abbreviation naming the service and its instance: SCF_WALK_EXPLICIT keeps the instance.
	ok "$SVCPROP" -p general/enabled good
	assert_eq true "$OUT" "svcprop good reads the instance"

	log "item 4: svccfg -s selects the service of an abbreviation (svccfg_libscf.c lscf_select)"
	ok "$SVCCFG" -s good addpg config application
	ok "$SVCPROP" -p config svc:/site/good
	run "$SVCPROP" -C -p config svc:/site/good:default
	assert_rc 1 "the pg is the service's, not the instance's"
	run "$SVCCFG" -s default listpg
	assert_rc 1 "svccfg -s default"
	# Discovery follows creation (site/good, then other/app); the list is its reverse.
	assert_eq "svccfg: Pattern 'default' matches multiple instances:
	svc:/other/app:default
	svc:/site/good:default" "$ERR" "svccfg -s default"
	run "$SVCCFG" -s nosuch listpg
	assert_eq "svccfg: Pattern 'nosuch' doesn't match any instances or services" "$ERR" "no match"
	run "$SVCCFG" export svc:/site/good:default
	assert_rc 1 "export of an instance"
	assert_eq "svccfg: Pattern 'svc:/site/good:default' doesn't match any services" "$ERR" \
		"lscf_service_export walks services only"
	run "$SVCADM" enable lrc:/etc/rc3_d/S99x
	assert_eq "svcadm: Operation not supported for legacy service 'lrc:/etc/rc3_d/S99x'" "$ERR" \
		"a legacy FMRI"
}

case_svcs() {
	service site/a default
	service site/b default
	ok "$SVCADM" enable site/a site/b

	log "item 5: bad -s/-o columns are fatal, exit 1 (svcs.c add_sort_column, main)"
	run "$SVCS" -s FOO
	assert_rc 1 "svcs -s FOO"
	assert_eq 'svcs: Unrecognized sort column "FOO".' "$ERR" "svcs -s FOO"
	run "$SVCS" -S FOO
	assert_rc 1 "svcs -S FOO"
	run "$SVCS" -o FOO
	assert_rc 1 "svcs -o FOO"
	assert_eq 'svcs: Unknown column "FOO".' "$ERR" "svcs -o FOO"
	run "$SVCS" -o ''
	assert_rc 1 "svcs -o ''"
	assert_eq 'svcs: No columns specified.' "$ERR" "svcs -o ''"

	log "item 5: -R takes an instance FMRI (svcs.c add_restarter)"
	run "$SVCS" -R bogus
	assert_rc 1 "svcs -R bogus"
	assert_eq 'svcs: Restarter FMRI "bogus" does not designate an instance.' "$ERR" "-R bogus"
	run "$SVCS" -R svc:/site/a
	assert_rc 1 "svcs -R SERVICE"
	run "$SVCS" -R 'not valid!'
	assert_rc 1 "svcs -R invalid"
	assert_eq 'svcs: Restarter FMRI "not valid!" is invalid.' "$ERR" "-R invalid"
	# Deviation from the issue's text (docs/compat.md): a valid instance that restarts nothing
	# is accepted; nothing is listed, exit 0.
	run "$SVCS" -R svc:/site/a:default
	assert_rc 0 "svcs -R of an instance that restarts nothing"
	assert_eq "STATE          STIME    FMRI" "$OUT" "-R: the header only"

	log "item 7: -o without -s sorts nothing; lines come in reverse visit order (uu_avl)"
	ok "$SVCS" -H -o fmri
	assert_eq "svc:/site/b:default
svc:/site/a:default" "$OUT" "svcs -o fmri"
	ok "$SVCS" -H -o fmri -s fmri
	assert_eq "svc:/site/a:default
svc:/site/b:default" "$OUT" "svcs -o fmri -s fmri"

	log "item 7: what the modes do not take is a usage error, exit 2 (svcs.c main)"
	local u
	for u in "-d -a a" "-D -R svc:/system/svc/restarter:default a" "-l -s fmri a" \
		"-x -S state" "-L -a a" "-l -H a" "-x -o fmri" "-x -p" "-d -s state a" "-d" "-l" \
		"-d -D a" "-l -x a"; do
		# shellcheck disable=SC2086
		run "$SVCS" $u
		assert_rc 2 "svcs $u"
		assert_match "^Usage: svcs " "$ERR" "svcs $u"
	done
	ok "$SVCS" -d -H -o fmri -p a

	log "item 7: -a with operands is ignored with a warning (svcs.c main)"
	run "$SVCS" -H -o fmri -a site/a
	assert_rc 0 "svcs -a FMRI"
	assert_eq "svcs: -a ignored when used with arguments." "$ERR" "the warning"
	assert_eq "svc:/site/a:default" "$OUT" "svcs -a FMRI lists the operand"

	log "item 7: -L without operands lists every instance's log (deviation from the issue)"
	ok "$SVCCFG" -f - <<EOF
select svc:/site/a:default
addpg restarter framework P
setprop restarter/logfile = astring: $ROOT/a.log
EOF
	ok "$SVCS" -L
	assert_eq "$ROOT/a.log" "$OUT" "svcs -L"

	log "item 7: options end at the first operand (Solaris getopt)"
	run "$SVCS" -H -o fmri site/a -a
	assert_rc 1 "svcs FMRI -a"
	assert_eq "svcs: Pattern '-a' doesn't match any instances" "$ERR" "-a after an operand"
	assert_eq "svc:/site/a:default" "$OUT" "the operand before it is listed"

	log "item 7: the bind failure (svcs.c main)"
	configd_stop
	run "$SVCS"
	assert_rc 1 "svcs without configd"
	assert_eq "svcs: Could not bind to repository server: repository server unavailable.  Exiting." \
		"$ERR" "svcs without configd"
}

case_svcadm() {
	service site/a default
	service site/b default
	service site/c default

	log "-S STATE: the instances in that state instead of operands (svcadm.c main, svcsearch)"
	local i
	ok "$SVCADM" enable site/a site/b site/c
	for i in a b; do
		ok "$SVCCFG" -s "site/$i:default" addpg restarter framework P
	done
	ok "$SVCCFG" -s site/a:default setprop restarter/state = astring: maintenance
	ok "$SVCCFG" -s site/b:default setprop restarter/state = astring: online
	ok "$SVCADM" -S online disable
	assert_eq "true false true" \
		"$(enabled svc:/site/a:default) $(enabled svc:/site/b:default) $(enabled svc:/site/c:default)" \
		"only the online one was disabled"
	ok "$SVCADM" -S maintenance clear
	assert_match '^[0-9]+$' "$("$SVCPROP" -p restarter_actions/maint_off svc:/site/a:default)" \
		"clear -S maintenance requested maint_off"
	ok "$SVCADM" -S nosuchstate enable
	run "$SVCADM" -S online clear
	assert_rc 1 "clear -S online"
	assert_eq "svcadm: State must be 'maintenance' or 'degraded'" "$ERR" "clear -S online"
	run "$SVCADM" -S online enable site/a
	assert_rc 2 "-S with operands"
	assert_match "^Usage: svcadm " "$ERR" "-S with operands"

	log "restart -d: do_dump, then restart (svcadm.c main)"
	ok "$SVCADM" restart -d site/c
	assert_match '^[0-9]+$' "$("$SVCPROP" -p restarter_actions/do_dump svc:/site/c:default)" "do_dump"
	assert_match '^[0-9]+$' "$("$SVCPROP" -p restarter_actions/restart svc:/site/c:default)" "restart"

	log "disable -c: the comment beside enabled (svcadm.c set_enabled_props, illumos 12721)"
	ok "$SVCADM" disable -c "going away now" site/c
	assert_eq 'going\ away\ now' "$("$SVCPROP" -c -p general/comment svc:/site/c:default)" "comment"
	ok "$SVCADM" disable -t -c "for a while" site/c
	assert_eq 'for\ a\ while' "$("$SVCPROP" -c -p general_ovr/comment svc:/site/c:default)" "-t"
	ok "$SVCADM" enable site/c
	assert_eq '""' "$("$SVCPROP" -c -p general/comment svc:/site/c:default)" "enable clears it"
	run "$SVCPROP" -c -p general_ovr/comment svc:/site/c:default
	assert_rc 1 "a persistent enable deletes the override's comment"
	run "$SVCADM" disable -c "$(repeat x 1024)" site/c
	assert_rc 1 "disable -c too long"
	assert_eq "svcadm: disable -c comment too long." "$ERR" "disable -c too long"

	log "item 5: enable -r with a missing dependency exits 1 (svcadm.c get_inst_mult)"
	ok "$SVCCFG" -f - <<EOF
select svc:/site/a:default
addpg d dependency
setprop d/grouping = astring: require_all
setprop d/restart_on = astring: none
setprop d/type = astring: service
setprop d/entities = fmri: svc:/site/nosuch:default
EOF
	run "$SVCADM" enable -r site/a
	assert_rc 1 "enable -r with a missing dependency"
	assert_eq 'svcadm: No such instance "svc:/site/nosuch:default".' "$ERR" "the message"
	assert_eq true "$(enabled svc:/site/a:default)" "the operand itself was enabled"

	log "milestone [-d] (svcadm.c set_milestone, validate_milestone)"
	ok "$SVCCFG" add system/svc/restarter
	ok "$SVCCFG" -s system/svc/restarter add default
	ok "$SVCADM" milestone single-user
	assert_eq svc:/milestone/single-user:default \
		"$("$SVCPROP" -p options_ovr/milestone svc:/system/svc/restarter:default)" "milestone"
	ok "$SVCADM" milestone -d all
	assert_eq all "$("$SVCPROP" -c -p options/milestone svc:/system/svc/restarter:default)" "-d"
	run "$SVCPROP" -p options_ovr/milestone svc:/system/svc/restarter:default
	assert_rc 1 "milestone -d deletes the temporary milestone"
	run "$SVCADM" milestone multi
	assert_rc 2 "an abbreviation that is no milestone's"
	assert_match '^"multi" is not a valid major milestone\.' "$ERR" "the message, no prefix"

	log "the bind failure and zones (svcadm.c main)"
	run "$SVCADM" -z global enable site/a
	assert_rc 2 "-z"
	configd_stop
	run "$SVCADM" enable site/a
	assert_rc 1 "svcadm without configd"
	assert_eq "svcadm: Couldn't bind to configuration repository: repository server unavailable." \
		"$ERR" "svcadm without configd"
}

# svc:/site/good:default with config/port = 25.
good_with_port() {
	service site/good default
	ok "$SVCCFG" -f - <<EOF
select svc:/site/good:default
addpg config application
setprop config/port = count: 25
EOF
}

case_svcprop() {
	good_with_port
	log "-w refusals (svcprop.c main, do_wait)"
	local u
	for u in "-w -c -p config/port good" "-w -C -p config/port good" "-w -s running good" \
		"-w -p config/port -p config/x good" "-w -p config/port good good"; do
		# shellcheck disable=SC2086
		run "$SVCPROP" $u
		assert_rc 2 "svcprop $u"
		assert_match "^Usage: svcprop " "$ERR" "svcprop $u"
	done
	run "$SVCPROP" -w svc:/site/good:default
	assert_rc 2 "-w on an instance without -p"
	assert_eq "svcprop: Cannot wait for an instance." "$ERR" "-w on an instance"
	run "$SVCPROP" -w svc:/site/good
	assert_eq "svcprop: Cannot wait for a service." "$ERR" "-w on a service"
	run "$SVCPROP" -w -p config/port svc:/site/good:default/:properties/config/port
	assert_rc 2 "-w -p with a property operand"
	assert_eq "svcprop: -p cannot be used with property FMRIs." "$ERR" "-p with a property"
	run "$SVCPROP" -w -p config/nosuch svc:/site/good:default
	assert_rc 1 "-w of a missing property"
	assert_eq "svcprop: Not found." "$ERR" "-w of a missing property"
	log "the bind failure (svcprop.c main)"
	configd_stop
	run "$SVCPROP" svc:/site/good
	assert_eq "svcprop: Could not connect to configuration repository: repository server unavailable." \
		"$ERR" "svcprop without configd"
}

# Until svcprop -w (pid $1) has returned, commit a change to config every round; no fixed wait:
# -w registers its interest before it reads, so the first commit after that wakes it.
poke_until_done() {
	local pid=$1 n=0
	while sandbox_alive "$pid"; do
		n=$((n + 1))
		[ "$n" -lt 2000 ] || fail "svcprop -w did not return after $n commits"
		"$SVCCFG" -s svc:/site/good:default setprop config/other = count: "$n"
	done
}

case_svcprop_wait() {
	good_with_port
	log "-w returns once the pg changes, whichever property (svcprop.c do_wait)"
	"$SVCPROP" -w -p config/port svc:/site/good:default >"$ROOT/w.out" 2>"$ROOT/w.err" &
	local pid=$! rc=0
	poke_until_done $pid
	wait $pid || rc=$?
	assert_eq 0 "$rc" "svcprop -w exit"
	assert_eq 25 "$(cat "$ROOT/w.out")" "svcprop -w prints the property once"
	log "-w on a pg operand prints the whole pg"
	"$SVCPROP" -w svc:/site/good:default/:properties/config >"$ROOT/w.out" 2>&1 &
	pid=$! rc=0
	poke_until_done $pid
	wait $pid || rc=$?
	assert_eq 0 "$rc" "svcprop -w PG"
	assert_line "config/port count 25" "$(cat "$ROOT/w.out")" "svcprop -w PG"
	log "-w of a pg that is deleted: Not found., exit 1"
	"$SVCPROP" -w -p config/port svc:/site/good:default >"$ROOT/w.out" 2>"$ROOT/w.err" &
	pid=$! rc=0
	local k=0
	while sandbox_alive $pid; do
		k=$((k + 1))
		[ "$k" -lt 2000 ] || fail "svcprop -w did not notice the deletion"
		"$SVCCFG" -s svc:/site/good:default delpg config
		"$SVCCFG" -f - <<EOF
select svc:/site/good:default
addpg config application
setprop config/port = count: 25
EOF
	done
	wait $pid || rc=$?
	assert_eq 1 "$rc" "svcprop -w of a deleted pg"
	assert_eq "svcprop: Not found." "$(cat "$ROOT/w.err")" "the message"
}

case_svccfg() {
	service site/app default
	ok "$SVCCFG" -s site/app addpg config application
	ok "$SVCCFG" -s site/app setprop config/port = count: 8080

	log "item 6 (deviation from the issue): setprop changes the type (lscf_setprop)"
	ok "$SVCCFG" -s site/app setprop config/port = astring: 5
	ok "$SVCPROP" -t -p config/port svc:/site/app
	assert_eq "config/port astring 5" "$OUT" "the type changed"
	run "$SVCCFG" -s site/app addpropvalue config/port count: 6
	assert_rc 1 "addpropvalue of another type"
	assert_eq 'svccfg: Property "port" is not of type "count:".' "$ERR" "addpropvalue refuses"

	log "list: in the order of creation, as illumos' backend lists (issue 20, 4)"
	service site/zeta z b a
	service site/alpha
	ok "$SVCCFG" list 'site/*'
	assert_eq $'site/app\nsite/zeta\nsite/alpha' "$OUT" "list of services"
	ok "$SVCCFG" -s site/zeta list
	assert_eq $':properties\nz\nb\na' "$OUT" "list of instances"
	ok "$SVCCFG" -s site/zeta delete b
	ok "$SVCCFG" -s site/zeta add b
	ok "$SVCCFG" -s site/zeta list '[ab]'
	assert_eq $':properties\na\nb' "$OUT" "an instance made again comes last"
	ok "$SVCCFG" delete -f site/zeta
	ok "$SVCCFG" delete -f site/alpha

	log "item 7: unknown commands (svccfg.y unknown_cmd)"
	run "$SVCCFG" foo bar
	assert_rc 1 "svccfg foo bar"
	assert_eq 'svccfg: Unknown command "foo".' "$ERR" "svccfg foo bar"
	run "$SVCCFG" foo = bar
	assert_eq 'svccfg: Syntax error.' "$ERR" "svccfg foo = bar"

	log "export -a and archive -a are accepted; another flag is a syntax error"
	ok "$SVCCFG" export -a site/app
	assert_match "<service name=.site/app." "$OUT" "export -a"
	ok "$SVCCFG" archive -a
	assert_match "<service_bundle type=.archive." "$OUT" "archive -a"
	run "$SVCCFG" export -x site/app
	assert_eq 'svccfg: Syntax error.' "$ERR" "export -x"

	log "apply -n reads the profile and applies nothing (svccfg_engine.c engine_apply)"
	cat >"$ROOT/p.xml" <<'EOF'
<?xml version="1.0"?>
<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">
<service_bundle type="profile" name="p">
  <service name="site/app" type="service" version="1">
    <instance name="default" enabled="true"/>
  </service>
</service_bundle>
EOF
	local before
	before=$(dump)
	ok "$SVCCFG" apply -n "$ROOT/p.xml"
	assert_unchanged "$before" "apply -n"
	ok "$SVCCFG" apply "$ROOT/p.xml"
	assert_eq true "$(enabled svc:/site/app:default)" "apply without -n"

	log "delhash (svccfg_libscf.c lscf_delhash)"
	manifest m '<service name="site/h" type="service" version="1"><create_default_instance enabled="false"/></service>'
	ok "$SVCCFG" import -n "$ROOT/m.xml"
	run "$SVCCFG" import -n "$ROOT/m.xml"
	assert_match "unchanged|skipp" "$OUT$ERR" "an unchanged manifest is skipped"
	run "$SVCCFG" -s site/app delhash "$ROOT/m.xml"
	assert_rc 0 "delhash with a selection: a warning only"
	assert_eq "svccfg: error, an entity is selected" "$ERR" "delhash with a selection"
	ok "$SVCCFG" delhash "$ROOT/m.xml"
	run "$SVCCFG" delhash "$ROOT/m.xml"
	assert_rc 1 "delhash twice"
	assert_match '^svccfg: No such property group ".*m\.xml"\.$' "$ERR" "delhash twice"
	run "$SVCCFG" delhash -x "$ROOT/m.xml"
	assert_eq 'svccfg: Syntax error.' "$ERR" "delhash -x"
	run "$SVCCFG" delhash -d /no/such/dir/m.xml
	assert_eq 'svccfg: No such property group "no_such_dir_m.xml".' "$ERR" "delhash -d"

	log "the bind failure (svccfg_libscf.c lscf_prep_hndl)"
	configd_stop
	run "$SVCCFG" list
	assert_eq "svccfg: Could not connect to repository server: repository server unavailable." \
		"$ERR" "svccfg without configd"
}

case_setenv() {
	manifest env '<service name="site/env" type="service" version="1">
    <create_default_instance enabled="false"/>
    <exec_method type="method" name="start" exec=":true" timeout_seconds="10"/>
    <exec_method type="method" name="stop" exec=":true" timeout_seconds="10"/>
    <property_group name="plain" type="application"/>
  </service>'
	ok "$SVCCFG" import -n "$ROOT/env.xml"
	log "setenv without flags: the start method, where it is found (lscf_setenv)"
	ok "$SVCCFG" -s site/env:default setenv FOO bar
	ok "$SVCCFG" -s site/env:default setenv B '"x=y z"'
	ok "$SVCPROP" -c -p start/environment svc:/site/env
	assert_eq 'FOO=bar B=x=y\ z' "$OUT" "the service's start method got both"
	ok "$SVCCFG" -s site/env setenv FOO baz
	ok "$SVCPROP" -c -p start/environment svc:/site/env
	assert_eq 'B=x=y\ z FOO=baz' "$OUT" "setenv replaces NAME=*"
	ok "$SVCCFG" -s site/env unsetenv FOO
	ok "$SVCPROP" -c -p start/environment svc:/site/env
	assert_eq 'B=x=y\ z' "$OUT" "unsetenv"
	# Issue item 4: "env" names svc:/site/env and svc:/site/env:default; svccfg -s selects
	# the service (lscf_select, SCF_WALK_SERVICE), so the setenv is the service's.
	ok "$SVCCFG" -s env setenv ISSUE4 yes
	ok "$SVCPROP" -c -p start/environment svc:/site/env
	assert_eq 'B=x=y\ z ISSUE4=yes' "$OUT" "svccfg -s env setenv"
	ok "$SVCCFG" -s env unsetenv ISSUE4
	log "-i, -s: method_context of the instance / service"
	ok "$SVCCFG" -s site/env:default setenv -i I 1
	ok "$SVCPROP" -C -p method_context/environment svc:/site/env:default
	assert_eq 'I=1' "$OUT" "setenv -i"
	ok "$SVCCFG" -s site/env:default setenv -s S 2
	ok "$SVCPROP" -p method_context/environment svc:/site/env
	assert_eq 'S=2' "$OUT" "setenv -s"
	ok "$SVCCFG" -s site/env setenv -m stop T 3
	ok "$SVCPROP" -p stop/environment svc:/site/env
	assert_eq 'T=3' "$OUT" "setenv -m stop"
	log "refusals, each exit 1"
	run "$SVCCFG" -s site/env setenv -m nosuch X 1
	assert_eq 'svccfg: Couldn'"'"'t find the method "nosuch".' "$ERR" "-m of a missing method"
	run "$SVCCFG" -s site/env setenv -m plain X 1
	assert_eq 'svccfg: Property group "plain" is not of type "method".' "$ERR" "-m of no method"
	run "$SVCCFG" -s site/env setenv -i X 1
	assert_eq 'svccfg: No instance is selected.' "$ERR" "-i on a service"
	run "$SVCCFG" setenv X 1
	assert_eq 'svccfg: An entity is not selected.' "$ERR" "no selection"
	run "$SVCCFG" -s site/env setenv -s -i X 1
	assert_eq 'svccfg: Syntax error.' "$ERR" "-s with -i"
	ok "$SVCCFG" add site/bare
	run "$SVCCFG" -s site/bare unsetenv -s NONE
	assert_rc 1 "unsetenv where there is no environment"
	assert_eq 'svccfg: No such property group "method_context".' "$ERR" "unsetenv -s"
	run "$SVCCFG" -s site/bare setenv X 1
	assert_eq "svccfg: Couldn't find start method; please specify a method with '-m'." "$ERR" \
		"no start method"
}

case_snapshots() {
	service site/snap default
	ok "$SVCCFG" -f - <<EOF
select svc:/site/snap
addpg config application
setprop config/port = count: 1
addpg shared application
setprop shared/a = count: 1
select svc:/site/snap:default
addpg local application
setprop local/x = count: 1
addpg general framework
setprop general/enabled = boolean: false
refresh
EOF
	log "selectsnap: reads go to the snapshot, writes are refused (lscf_selectsnap)"
	ok "$SVCCFG" -s site/snap setprop config/port = count: 2
	ok "$SVCCFG" -f - <<EOF
select svc:/site/snap:default
selectsnap running
listprop local
selectsnap
listprop local
EOF
	assert_eq "local    application
local/x  count    1
local    application
local/x  count    1" "$OUT" "listprop in and out of the snapshot"
	run "$SVCCFG" -f - <<EOF
select svc:/site/snap:default
selectsnap running
setprop local/x = count: 5
EOF
	assert_rc 1 "a write in a snapshot"
	assert_eq "svccfg (<stdin>, line 3): Cannot modify snapshots." "$ERR" "a write in a snapshot"
	run "$SVCCFG" -s site/snap:default selectsnap nosuch
	assert_eq 'svccfg: No such snapshot "nosuch".' "$ERR" "selectsnap nosuch"
	run "$SVCCFG" -s site/snap selectsnap running
	assert_eq 'svccfg: Instance not selected.' "$ERR" "selectsnap on a service"

	log "revert: instance and service back to the snapshot, enabled kept (lscf_revert)"
	ok "$SVCCFG" -f - <<EOF
select svc:/site/snap
setprop config/port = count: 9
addpg added application
select svc:/site/snap:default
setprop local/x = count: 9
delpg local
addpg newer application
setprop general/enabled = boolean: true
EOF
	ok "$SVCCFG" -s site/snap:default revert running
	ok "$SVCPROP" -c -p config/port svc:/site/snap
	assert_eq 1 "$OUT" "the service's property is back"
	ok "$SVCPROP" -C -p local/x svc:/site/snap:default
	assert_eq 1 "$OUT" "the instance's deleted pg is back"
	run "$SVCPROP" -C -p newer svc:/site/snap:default
	assert_rc 1 "a pg added after the snapshot is gone"
	run "$SVCPROP" -p added svc:/site/snap
	assert_rc 1 "a service pg added after the snapshot is gone"
	assert_eq true "$(enabled svc:/site/snap:default)" "general/enabled keeps its value"
	ok "$SVCCFG" -s site/snap:default listsnap
	assert_line previous "$OUT" "revert takes the previous snapshot first"
	log "revert of the selected snapshot; refusals"
	ok "$SVCCFG" -s site/snap:default setprop local/x = count: 3
	ok "$SVCCFG" -f - <<EOF
select svc:/site/snap:default
selectsnap running
revert
setprop local/y = count: 4
EOF
	assert_eq 1 "$("$SVCPROP" -C -p local/x svc:/site/snap:default)" "revert of the selected snapshot"
	run "$SVCCFG" -s site/snap:default revert
	assert_eq 'svccfg: No snapshot selected.' "$ERR" "revert without a snapshot"
	run "$SVCCFG" -s site/snap:default revert nosuch
	assert_eq 'svccfg: No such snapshot.' "$ERR" "revert nosuch"
	run "$SVCCFG" -s site/snap revert running
	assert_eq 'svccfg: Instance not selected.' "$ERR" "revert on a service"
}

case_templates() {
	manifest tmpl '<service name="site/t" type="service" version="1">
    <create_default_instance enabled="false"/>
    <property_group name="config" type="application">
      <propval name="port" type="count" value="5"/>
    </property_group>
    <template>
      <common_name><loctext xml:lang="C">The t service</loctext></common_name>
      <description><loctext xml:lang="C">It is t.</loctext></description>
      <documentation><manpage title="t" section="8"/></documentation>
      <pg_pattern name="config" type="application" required="true">
        <description><loctext xml:lang="C">Configuration.</loctext></description>
        <prop_pattern name="port" type="count" required="true">
          <description><loctext xml:lang="C">The port.</loctext></description>
        </prop_pattern>
        <prop_pattern name="host" type="astring" required="true"/>
      </pg_pattern>
    </template>
  </service>'
	ok "$SVCCFG" import -n "$ROOT/tmpl.xml"
	log "the pgs of the patterns, named as svccfg_xml.c names them (issue 20)"
	ok "$SVCCFG" -s site/t listpg
	assert_eq "tm_pgpatnt_config template_pg_pattern
tm_proppat_nt_config_host template_prop_pattern
tm_proppat_nt_config_port template_prop_pattern" "$(grep -E '^tm_p' <<<"$OUT" | squeeze)" "the pattern pgs"
	assert_eq tm_pgpatnt_config "$("$SVCPROP" -p tm_proppat_nt_config_port/pg_pattern site/t)" \
		"a prop_pattern names its pg_pattern's pg"
	manifest tmpl2 '<service name="site/t2" type="service" version="1">
    <template>
      <common_name><loctext xml:lang="en-US">t2</loctext></common_name>
      <pg_pattern name="only"><prop_pattern name="p" type="count"/></pg_pattern>
      <pg_pattern type="application"><prop_pattern name="p" type="count"/></pg_pattern>
      <pg_pattern/>
    </template>
  </service>'
	ok "$SVCCFG" import -n "$ROOT/tmpl2.xml"
	ok "$SVCCFG" -s site/t2 listpg
	assert_eq "tm_pgpat_ tm_pgpatn_only tm_pgpatt_application tm_proppat_n_only_p tm_proppat_t_application_p" \
		"$(awk '/^tm_p/ { print $1 }' <<<"$OUT" | sort | xargs)" "a name, a type, or neither"
	assert_eq t2 "$("$SVCPROP" -p tm_common_name/en_US site/t2)" "a locale's property (_scf_sanitize_locale)"
	log "what lxml_get_tm_pg_pattern() and lxml_get_loctext() refuse"
	local a107 before
	a107=$(printf 'a%.0s' {1..107})
	manifest tmpl3 "<service name=\"site/t3\" type=\"service\" version=\"1\">
    <template>
      <common_name><loctext xml:lang=\"C\">t3</loctext></common_name>
      <pg_pattern name=\"$a107\" type=\"application\"><prop_pattern name=\"p\" type=\"count\"/></pg_pattern>
    </template>
  </service>"
	before=$(dump)
	run "$SVCCFG" import -n "$ROOT/tmpl3.xml"
	assert_rc 1 "import of a prop_pattern whose pg name is too long"
	assert_match "prop_pattern name, \"p\", for site/t3 is 4 characters too long" "$ERR" \
		"a prop_pattern pg name too long"
	manifest tmpl4 '<service name="site/t4" type="service" version="1">
    <template>
      <common_name><loctext xml:lang="C">t4</loctext></common_name>
      <pg_pattern name="dup" type="application"/>
      <pg_pattern name="dup" type="framework"/>
      <pg_pattern name="e"><description><loctext xml:lang="C"></loctext></description></pg_pattern>
    </template>
  </service>'
	run "$SVCCFG" import -n "$ROOT/tmpl4.xml"
	assert_rc 1 "import of clashing pg_patterns"
	assert_match 'pg_pattern with name "dup" and type "framework" is not unique in site/t4' "$ERR" \
		"two pg_patterns of one name"
	assert_match 'loctext element has no content for "site/t4"' "$ERR" "an empty loctext"
	assert_unchanged "$before" "refused templates"
	log "describe (svccfg_libscf.c lscf_describe)"
	# listprop's table of the selection itself (the pg is the service's); templates composed.
	ok "$SVCCFG" -s site/t describe config
	assert_eq "config       application
    Configuration.
config/port  count    5
    The port." "$OUT" "describe config"
	ok "$SVCCFG" -s site/t:default describe
	assert_eq "    common name: The t service" "$(head -1 <<<"$OUT")" "describe: the common name"
	ok "$SVCCFG" -s site/t describe -v config/port
	assert_eq "config/port  count    5
    type: count
    required: true
    description: The port." "$OUT" "describe -v config/port"
	ok "$SVCCFG" -s site/t:default describe -v -t
	assert_match "^    description: It is t\.$" "$OUT" "describe -v: the description"
	assert_match "^        title: t$" "$OUT" "describe -v: the manpage"
	assert_match "^  name: host$" "$OUT" "describe -t: the property patterns"
	run "$SVCCFG" describe
	assert_eq 'svccfg: An entity is not selected.' "$ERR" "describe without a selection"
	run "$SVCCFG" -s site/t describe -x
	assert_eq 'svccfg: Syntax error.' "$ERR" "describe -x"

	log "validate FMRI: violations reported, status unchanged (deviation: lscf_validate_fmri)"
	run "$SVCCFG" validate svc:/site/t:default
	assert_rc 0 "validate of an instance that misses a required property"
	assert_eq "svccfg: svc:/site/t:default: required property config/host is missing." "$ERR" \
		"validate FMRI"
	ok "$SVCCFG" -s site/t setprop config/host = astring: h
	# An exact service with one instance names it (the walk with flags 0).
	ok "$SVCCFG" validate site/t
	assert_eq "" "$ERR" "validate of a valid instance"
	ok "$SVCCFG" -s site/t setprop config/port = astring: x
	run "$SVCCFG" -s site/t:default validate
	assert_eq "svccfg: svc:/site/t:default: property config/port is of type astring, not count." \
		"$ERR" "the bare validate checks the selection"
	run "$SVCCFG" -s site/t validate
	assert_rc 1 "bare validate of a service"
	assert_eq "svccfg: No instance selected" "$ERR" "bare validate of a service"
	run "$SVCCFG" validate svc:/site/nosuch:default
	assert_rc 1 "validate of a missing FMRI"
	assert_eq "svccfg: Pattern 'svc:/site/nosuch:default' doesn't match any instances" "$ERR" \
		"validate of a missing FMRI (walk flags 0)"
	ok "$SVCCFG" validate "$ROOT/tmpl.xml"
}

case_editprop() {
	service site/e default
	ok "$SVCCFG" -s site/e addpg config application
	ok "$SVCCFG" -s site/e setprop config/port = count: 1
	ok "$SVCCFG" -s site/e setprop config/hosts = astring: '("a b" "c")'
	log "editprop: the script, every command commented out (lscf_editprop, write_edit_script)"
	cat >"$ROOT/keep.sh" <<EOF
#!/bin/sh
cp "\$1" "$ROOT/script"
EOF
	chmod +x "$ROOT/keep.sh"
	local before
	before=$(dump)
	EDITOR="$ROOT/keep.sh" ok "$SVCCFG" -s site/e editprop
	assert_unchanged "$before" "an editprop that uncommented nothing"
	assert_eq 'select svc:/site/e

# Property group "config"
# delprop config
# addpg config application
# setprop config/hosts = astring: ("a b" "c")
# setprop config/port = count: 1' "$(sed '/^$/{$d}' "$ROOT/script")" "the edit script"
	log "an edited line is run; an error names the file and line and exits 1"
	cat >"$ROOT/edit.sh" <<'EOF'
#!/bin/sh
sed -i 's|^# setprop config/port = count: 1|setprop config/port = count: 42|' "$1"
EOF
	chmod +x "$ROOT/edit.sh"
	EDITOR="$ROOT/edit.sh" ok "$SVCCFG" -s site/e editprop
	assert_eq 42 "$("$SVCPROP" -p config/port svc:/site/e)" "the edited setprop ran"
	cat >"$ROOT/bad.sh" <<'EOF'
#!/bin/sh
echo "setprop config/port = count: notanumber" >>"$1"
EOF
	chmod +x "$ROOT/bad.sh"
	run env EDITOR="$ROOT/bad.sh" "$SVCCFG" -s site/e editprop
	assert_rc 1 "an edit script that fails"
	assert_match '^svccfg \(/tmp/svccfg-[A-Za-z0-9]{6}, line [0-9]+\): Invalid "count" value "notanumber"\.$' \
		"$ERR" "the error names the file and line"
	assert_eq "" "$(find /tmp -maxdepth 1 -name "$(basename "$(sed -E 's/^svccfg \(([^,]*),.*/\1/' <<<"$ERR")")")" \
		"the script is removed"
	log "an EDITOR that cannot run says so, as illumos' sh; set but empty is no vi (issue 20, 4)"
	: >"$ROOT/noexec"
	chmod 644 "$ROOT/noexec"
	before=$(dump)
	run env EDITOR="$ROOT/noexec" "$SVCCFG" -s site/e editprop
	assert_rc 1 "editprop with a non-executable EDITOR"
	assert_match "^svccfg: $ROOT/noexec: cannot execute\$" "$ERR" "a non-executable EDITOR"
	assert_eq "" "$OUT" "a non-executable EDITOR: stdout"
	run env EDITOR= "$SVCCFG" -s site/e editprop
	assert_rc 1 "editprop with EDITOR set but empty"
	assert_match '^svccfg: /tmp/svccfg-[A-Za-z0-9]{6}: cannot execute$' "$ERR" "EDITOR set but empty"
	assert_eq "" "$OUT" "EDITOR set but empty: stdout (no vi)"
	assert_unchanged "$before" "an editprop whose editor never ran"
}

case "$CASE" in
walk) case_walk ;;
svcs) case_svcs ;;
svcadm) case_svcadm ;;
svcprop) case_svcprop ;;
svcprop-wait) case_svcprop_wait ;;
svccfg) case_svccfg ;;
setenv) case_setenv ;;
snapshots) case_snapshots ;;
templates) case_templates ;;
editprop) case_editprop ;;
*) fail "unknown case $CASE" ;;
esac
log "ok"
