#!/bin/bash
# Create, read, update and delete at every level (service, instance, pg, property, value) with
# the real svccfg, both as `svccfg -s FMRI subcommand` and as a command file (`svccfg -f`), each
# change read back with svcprop and svccfg's own listings.
source "$(dirname "$0")/lib.sh"
need_var SVCCFG SVCPROP
sandbox_start

S=svc:/test/crud
I=svc:/test/crud:default

log "services"
ok "$SVCCFG" add test/crud
ok "$SVCCFG" list
assert_line "test/crud" "$OUT" "svccfg list"
refused "$SVCCFG" add test/crud
ok "$SVCCFG" list
assert_eq 1 "$(grep -c '^test/crud$' <<<"$OUT")" "services named test/crud after a duplicate add"

log "instances"
ok "$SVCCFG" -s "$S" add default
ok "$SVCCFG" -s "$S" list
assert_line ":properties" "$OUT" "svccfg -s SERVICE list"
assert_line "default" "$OUT" "svccfg -s SERVICE list"
refused "$SVCCFG" -s "$S" add default
ok "$SVCCFG" -s "$I" list
assert_line ":properties" "$OUT" "svccfg -s INSTANCE list"

log "property groups"
ok "$SVCCFG" -s "$S" addpg config application
ok "$SVCCFG" -s "$I" addpg iconf framework
ok "$SVCCFG" -s "$I" addpg volatile application P
ok "$SVCCFG" -s "$S" listpg
assert_match '^config[[:space:]]+application[[:space:]]*$' "$OUT" "svccfg listpg of the service"
ok "$SVCCFG" -s "$I" listpg
assert_match '^iconf[[:space:]]+framework[[:space:]]*$' "$OUT" "svccfg listpg of the instance"
assert_match '^volatile[[:space:]]+application[[:space:]]+NONPERSISTENT$' "$OUT" \
	"svccfg listpg (P flag)"
assert_match 'pg volatile type=application flags=0x1 ' "$(dump)" "the P pg in the repository"
refused "$SVCCFG" -s "$S" addpg config application

log "properties: create and read"
ok "$SVCCFG" -s "$S" setprop config/count = count: 5
ok "$SVCCFG" -s "$S" setprop config/on = boolean: true
ok "$SVCCFG" -s "$S" setprop config/name = astring: '"hello world"'
ok "$SVCCFG" -s "$S" setprop config/list = astring: '("a" "b c")'
ok "$SVCCFG" -s "$I" setprop iconf/addr = net_address_v4: 192.168.1.10
ok "$SVCCFG" -s "$I" setprop iconf/neg = integer: -42
ok "$SVCPROP" -p config/count "$S"
assert_eq 5 "$OUT" "svcprop config/count"
ok "$SVCPROP" -p config/on "$S"
assert_eq true "$OUT" "svcprop config/on"
ok "$SVCPROP" -p config/name "$S"
assert_eq 'hello\ world' "$OUT" "svcprop config/name (shell-quoted)"
ok "$SVCPROP" -p config/list "$S"
assert_eq 'a b\ c' "$OUT" "svcprop config/list (two values)"
ok "$SVCPROP" -C -p iconf/addr "$I"
assert_eq 192.168.1.10 "$OUT" "svcprop iconf/addr"
ok "$SVCPROP" -C -p iconf/neg "$I"
assert_eq -42 "$OUT" "svcprop iconf/neg"
ok "$SVCCFG" -s "$S" listprop
assert_line "config application" "$OUT" "svccfg listprop"
assert_line "config/count count 5" "$OUT" "svccfg listprop"
assert_line "config/on boolean true" "$OUT" "svccfg listprop"
assert_line 'config/name astring "hello world"' "$OUT" "svccfg listprop"
ok "$SVCCFG" -s "$S" listprop 'config/c*'
assert_line "config/count count 5" "$OUT" "svccfg listprop PATTERN"
assert_no_line_start "config/on" "$OUT" "svccfg listprop 'config/c*'"

log "properties: update"
ok "$SVCCFG" -s "$S" setprop config/count = 7
ok "$SVCPROP" -p config/count "$S"
assert_eq 7 "$OUT" "svcprop config/count after setprop without a type"
ok "$SVCCFG" -s "$S" setprop config/count = count: 8
ok "$SVCPROP" -p config/count "$S"
assert_eq 8 "$OUT" "svcprop config/count after setprop with its type"

log "values: add and delete"
ok "$SVCCFG" -s "$S" addpropvalue config/list astring: d
ok "$SVCPROP" -p config/list "$S"
assert_eq 'a b\ c d' "$OUT" "svcprop config/list after addpropvalue"
ok "$SVCCFG" -s "$S" addpropvalue config/newlist count: 3
ok "$SVCPROP" -t -p config/newlist "$S"
assert_eq 'config/newlist count 3' "$OUT" "addpropvalue creating a property"
ok "$SVCCFG" -s "$S" delpropvalue config/list 'b*'
ok "$SVCPROP" -p config/list "$S"
assert_eq 'a d' "$OUT" "svcprop config/list after delpropvalue 'b*'"

log "properties and pgs: delete"
ok "$SVCCFG" -s "$S" delprop config/list
refused "$SVCPROP" -p config/list "$S"
assert_rc 1 "svcprop of a deleted property"
ok "$SVCPROP" -p config/count "$S"
assert_eq 8 "$OUT" "config/count after deleting a sibling"
refused "$SVCCFG" -s "$S" delprop config/list
ok "$SVCCFG" -s "$I" delpg iconf
ok "$SVCCFG" -s "$I" listpg
assert_no_match '^iconf ' "$OUT" "listpg after delpg"
refused "$SVCCFG" -s "$I" delpg iconf
ok "$SVCCFG" -s "$S" addpg scratch application
ok "$SVCCFG" -s "$S" delprop scratch
ok "$SVCCFG" -s "$S" listpg
assert_no_match '^scratch ' "$OUT" "listpg after delprop of a whole pg"

log "command file (-f)"
cmdfile="$ROOT/cmds.svccfg"
cat >"$cmdfile" <<'EOF'
# comments and blank lines are ignored

add test/file
select svc:/test/file
addpg cfg application
setprop cfg/a = integer: -3
setprop cfg/b = boolean: false
add inst1
select svc:/test/file:inst1
addpg ipg framework
setprop ipg/x = net_address_v4: 10.0.0.1
setprop ipg/s = astring: ("one" "two words")
EOF
ok "$SVCCFG" -f "$cmdfile"
ok "$SVCPROP" -p cfg/a svc:/test/file
assert_eq -3 "$OUT" "cfg/a set by the command file"
ok "$SVCPROP" -C -p ipg/x svc:/test/file:inst1
assert_eq 10.0.0.1 "$OUT" "ipg/x set by the command file"
ok "$SVCPROP" -C -p ipg/s svc:/test/file:inst1
assert_eq 'one two\ words' "$OUT" "ipg/s set by the command file"

log "deleting entities"
ok "$SVCCFG" delete svc:/test/file:inst1
ok "$SVCCFG" -s svc:/test/file list
assert_no_match '^inst1$' "$OUT" "instances after delete"
refused "$SVCPROP" -C -p ipg/x svc:/test/file:inst1
# As illumos: an instance whose restarter says online (or degraded) "may be running", and
# delete refuses it without -f.
ok "$SVCCFG" -s "$I" addpg restarter framework P
ok "$SVCCFG" -s "$I" setprop restarter/state = astring: online
before=$(dump)
refused "$SVCCFG" -s "$S" delete default
assert_match 'may be running' "$ERR" "delete of an online instance"
assert_unchanged "$before" "delete of an online instance without -f"
ok "$SVCCFG" -s "$S" delete -f default
refused "$SVCPROP" -C -p volatile "$I"
ok "$SVCCFG" delete -f test/crud
ok "$SVCCFG" delete svc:/test/file
ok "$SVCCFG" list
assert_eq "" "$OUT" "svccfg list after deleting every service"
assert_eq "" "$(dump)" "the repository after deleting every service"
refused "$SVCCFG" delete svc:/test/crud

configd_stop
log "ok"
