#!/bin/bash
# An unprivileged peer (nobody, when the tests run as root) can read the repository but not
# change it: every write is refused with a permission message and a non-zero exit, and the
# repository is unchanged.  The root's owner (here root) still writes.
source "$(dirname "$0")/lib.sh"
need_var SVCCFG SVCPROP
# The programs must be reachable by nobody (a build tree under a private home is not).
need_nobody "$SVCPROP"
as_nobody=("${AS_NOBODY[@]}")

sandbox_start
S=svc:/test/priv
I=svc:/test/priv:default
cat >"$ROOT/setup.svccfg" <<'EOF2'
add test/priv
select svc:/test/priv
add default
select svc:/test/priv:default
addpg config application
setprop config/v = count: 1
setprop config/s = astring: ("a" "b")
refresh
EOF2
ok "$SVCCFG" -f "$ROOT/setup.svccfg"
before=$(dump)

log "nobody reads"
ok "${as_nobody[@]}" "$SVCPROP" -p config/v "$I"
assert_eq 1 "$OUT" "svcprop as nobody"
ok "${as_nobody[@]}" "$SVCPROP" "$I"
assert_line "config/s astring a b" "$OUT" "svcprop INSTANCE as nobody"
ok "${as_nobody[@]}" "$SVCCFG" -s "$I" listprop
assert_line "config/v count 1" "$OUT" "svccfg listprop as nobody"
ok "${as_nobody[@]}" "$SVCCFG" list
assert_line "test/priv" "$OUT" "svccfg list as nobody"

log "nobody cannot write"
writes=(
	"-s $I setprop config/v = count: 2"
	"-s $I setprop config/new = count: 2"
	"-s $I addpropvalue config/s astring: c"
	"-s $I delpropvalue config/s a"
	"-s $I delprop config/v"
	"-s $I addpg other application"
	"-s $I addpg volatile application P"
	"-s $I delpg config"
	"-s $I refresh"
	"-s $S add second"
	"add test/other"
	"delete $I"
	"delete -f $S"
)
for w in "${writes[@]}"; do
	# shellcheck disable=SC2086 # each entry is a command line to split
	run timeout 10 "${as_nobody[@]}" "$SVCCFG" $w
	[ "$RC" -ne 0 ] || fail "svccfg $w succeeded as nobody
$(describe_run svccfg $w)"
	[ "$RC" -ne 124 ] || fail "svccfg $w hung as nobody"
	assert_match '[Pp]ermission denied' "$ERR" "message for 'svccfg $w' as nobody"
	assert_unchanged "$before" "svccfg $w as nobody"
done
ok "$SVCPROP" -p config/v "$I"
assert_eq 1 "$OUT" "config/v after the refused writes"

log "the owner still writes"
ok "$SVCCFG" -s "$I" setprop config/v = count: 3
ok "$SVCPROP" -C -p config/v "$I"
assert_eq 3 "$OUT" "config/v written by root"

configd_stop
log "ok"
