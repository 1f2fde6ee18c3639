#!/bin/bash
# The parts of svccfg and svcprop that tests/integration does not pin down: illumos' exact
# listing formats, the command-file error policy (message with file and line, nothing after the
# first failure runs), abbreviation messages, the "may be running" guard of delete, --root,
# command-line quoting, and svcprop's views (running snapshot vs current, non-persistent pgs).
source "$(dirname "$0")/lib.sh"
need_var SVCCFG SVCPROP
sandbox_start

log "exact listing formats"
cat >"$ROOT/setup" <<'CMDS'
add site/app
select site/app
addpg config application
addpg vol framework P
setprop config/port = count: 8080
setprop config/motd = astring: "say \"hi\""
setprop config/one = astring: ("solo")
setprop config/hosts = astring: ("a" "b")
setprop config/empty = count: ()
add default
CMDS
ok "$SVCCFG" -f "$ROOT/setup"
ok "$SVCCFG" -s svc:/site/app listpg
assert_eq "config  application
vol     framework	NONPERSISTENT" "$OUT" "listpg (columns, tab before NONPERSISTENT)"
ok "$SVCCFG" -s svc:/site/app listprop 'config/[ehm]*'
assert_eq 'config/empty  count   
config/hosts  astring  "a" "b"
config/motd   astring  "say \"hi\""' "$OUT" "listprop (padding, quoting)"
ok "$SVCCFG" -s svc:/site/app listprop config/one
assert_eq "config/one  astring  solo" "$OUT" "listprop of a single plain string"

log "command files stop at the first error, naming file and line"
cat >"$ROOT/bad" <<'CMDS'
select svc:/site/app
# a comment

setprop config/port = count: notanumber
setprop config/port = count: 1
CMDS
refused "$SVCCFG" -f "$ROOT/bad"
assert_eq "svccfg ($ROOT/bad, line 4): Invalid \"count\" value \"notanumber\"." "$ERR" "error"
ok "$SVCPROP" -p config/port svc:/site/app
assert_eq 8080 "$OUT" "nothing after the failing line ran"
printf 'select svc:/site/app\nsetprop config/port = (\n 1\n' >"$ROOT/open"
refused "$SVCCFG" -f "$ROOT/open"
assert_match "Syntax error" "$ERR" "an unterminated list"
refused "$SVCCFG" -f "$ROOT/nosuchfile"
assert_match "Could not open" "$ERR" "a missing command file"
# svccfg.y's unknown_cmd rule: a word that is no command, followed by words.
run "$SVCCFG" -s svc:/site/app <<<"nosuchcommand"
assert_rc 1 "an unknown command on stdin"
assert_eq "svccfg (<stdin>, line 1): Unknown command \"nosuchcommand\"." "$ERR" \
	"an unknown command on stdin"

log "command-line quoting"
ok "$SVCCFG" -s svc:/site/app setprop config/motd = astring: "two words"
ok "$SVCPROP" -p config/motd svc:/site/app
assert_eq 'two\ words' "$OUT" "a shell-quoted value with a blank"
ok "$SVCCFG" -s svc:/site/app setprop config/motd = astring: ""
ok "$SVCPROP" -p config/motd svc:/site/app
assert_eq '""' "$OUT" "an empty argument is an empty string"
refused "$SVCCFG" -s svc:/site/app setprop config/hosts = astring: '(a b)'
assert_match "must be quoted" "$ERR" "unquoted members of a string list"
refused "$SVCCFG" -s svc:/site/app setprop config/new = 5
assert_match "Type required for new properties." "$ERR" "a new property without a type"
refused "$SVCCFG" -s svc:/site/app setprop config/new = bogus: 5
assert_match 'Unknown type "bogus:"' "$ERR" "an unknown type"
refused "$SVCCFG" setprop config/port = count: 1
assert_eq "svccfg: An entity is not selected." "$ERR" "no selection"
run "$SVCCFG" -q
assert_rc 2 "an unknown option"

log "instances inherit the type of the service's property"
ok "$SVCCFG" -s svc:/site/app:default addpg config application
ok "$SVCCFG" -s svc:/site/app:default setprop config/port = 9090
ok "$SVCPROP" -C -t -p config/port svc:/site/app:default
assert_eq "config/port count 9090" "$OUT" "type taken from the service"

log "abbreviations"
ok "$SVCCFG" add other/app
ok "$SVCCFG" -s other/app add default
# lowlevel.c scf_walk_fmri(): the candidates tab-indented, in reverse order of discovery.
refused "$SVCCFG" -s default listpg
# Candidates in the reverse of discovery, which follows creation (site/app first).
assert_eq "svccfg: Pattern 'default' matches multiple instances:
	svc:/other/app:default
	svc:/site/app:default" "$ERR" "an ambiguous abbreviation"
refused "$SVCCFG" -s nosuch listpg
assert_eq "svccfg: Pattern 'nosuch' doesn't match any instances or services" "$ERR" "no match"
ok "$SVCCFG" -s site/app listpg
assert_match "^config " "$OUT" "a service named without svc:/"
ok "$SVCCFG" -s site/app:default listpg
assert_match "^config " "$OUT" "an instance abbreviation"

log "delete refuses an instance that may be running"
ok "$SVCCFG" -s svc:/site/app:default addpg restarter framework P
ok "$SVCCFG" -s svc:/site/app:default setprop restarter/state = astring: online
refused "$SVCCFG" delete svc:/site/app
assert_eq "svccfg: Instance svc:/site/app:default may be running.  Use delete -f if it is not." \
	"$ERR" "delete of a service with a running instance"
ok "$SVCCFG" list
assert_line "site/app" "$OUT" "the refused delete left the service"

log "svcprop views: running snapshot, current non-persistent pgs, -c"
ok "$SVCCFG" -s svc:/site/app:default refresh
ok "$SVCCFG" -s svc:/site/app:default listsnap
assert_eq "running" "$OUT" "listsnap after refresh"
ok "$SVCCFG" -s svc:/site/app:default setprop config/port = 7070
ok "$SVCPROP" -p config/port svc:/site/app:default
assert_eq 9090 "$OUT" "default view: the running snapshot"
ok "$SVCPROP" -c -p config/port svc:/site/app:default
assert_eq 7070 "$OUT" "-c: the current properties"
ok "$SVCPROP" -p restarter/state svc:/site/app:default
assert_eq online "$OUT" "non-persistent pgs are read current"
ok "$SVCPROP" svc:/site/app:default
assert_line "restarter/state astring online" "$OUT" "all pgs include the non-persistent ones"
refused "$SVCPROP" -s nosuch svc:/site/app:default
assert_eq "svcprop: No such snapshot." "$ERR" "-s of a missing snapshot"
refused "$SVCPROP" -s running svc:/site/app
assert_eq "svcprop: Only instances have snapshots." "$ERR" "-s with a service"
refused "$SVCPROP" -p config/nosuch svc:/site/app:default
assert_eq "svcprop: Couldn't find property \`config/nosuch' for instance \`svc:/site/app:default'." \
	"$ERR" "a missing property"
ok "$SVCCFG" -s svc:/site/app:default refresh
ok "$SVCPROP" -p config/port svc:/site/app:default
assert_eq 7070 "$OUT" "after a second refresh"
ok "$SVCPROP" -p config/port svc:/site/app svc:/site/app:default svc:/site/app
assert_eq "svc:/site/app/:properties/config/port count 8080
svc:/site/app:default/:properties/config/port count 7070" "$OUT" \
	"several operands: full FMRIs, each entity once"
ok "$SVCCFG" -s svc:/site/app:default listsnap
assert_eq "previous
running" "$OUT" "refresh keeps the previous running snapshot"

log "the interactive prompt (on a pseudo-terminal)"
if command -v script >/dev/null; then
	run script -qec "$SVCCFG" /dev/null <<<"select svc:/site/app
unselect
unselect
listpg
select svc:/site/app:default
listsnap"
	OUT=$(tr -d '\r' <<<"$OUT")
	assert_rc 0 "errors at the prompt do not end the session"
	assert_match "svc:/site/app> svc:> Cannot unselect at scope level\.$" "$OUT" "prompt and error"
	assert_match "^svc:> An entity is not selected\.$" "$OUT" "the session went on"
	assert_match "svc:/site/app:default> previous$" "$OUT" "the instance prompt"
else
	log "no script(1): prompt not tested"
fi

log "--root"
ok env -u SMF_ROOT "$SVCCFG" --root "$ROOT" -s svc:/site/app listpg
assert_match "^config " "$OUT" "svccfg --root"

log "a dead configd"
configd_stop
refused "$SVCCFG" list
assert_eq "svccfg: Could not connect to repository server: repository server unavailable." \
	"$ERR" "svccfg without configd"
refused "$SVCPROP" svc:/site/app
assert_eq "svcprop: Could not connect to configuration repository: repository server unavailable." \
	"$ERR" "svcprop without configd"
log "ok"
