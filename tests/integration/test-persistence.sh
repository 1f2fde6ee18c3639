#!/bin/bash
# Persistence across a configd restart: services, instances, persistent pgs with their values and
# generations, and snapshots survive; non-persistent pgs (flag P, as illumos' restarter pg) are
# gone, on instances and on services alike; and the restarted configd accepts new writes.
source "$(dirname "$0")/lib.sh"
need_var SVCCFG SVCPROP
sandbox_start

I=svc:/test/persist:default
cat >"$ROOT/setup.svccfg" <<'EOF2'
add test/persist
select svc:/test/persist
addpg spg application
setprop spg/a = astring: kept
addpg svol application P
setprop svol/a = astring: lost
add default
select svc:/test/persist:default
addpg config application
setprop config/n = count: 42
setprop config/l = astring: ("x y" "z")
addpg restarter framework P
setprop restarter/state = astring: online
refresh
EOF2
ok "$SVCCFG" -f "$ROOT/setup.svccfg"
ok "$SVCPROP" -p restarter/state "$I"
assert_eq online "$OUT" "non-persistent property before the restart"

# The expected dump after the restart: the same, minus the non-persistent pgs.
full=$(dump)
assert_match 'pg restarter type=framework flags=0x1 ' "$full" "dump before the restart"
expected=$(awk '
	/^ *pg / { skip = ($0 ~ /flags=0x1 /) }
	/^ *(service|instance|snapshot) / { skip = 0 }
	!skip' <<<"$full")

configd_restart

after=$(dump)
[ "$after" = "$expected" ] || fail "repository after the restart:
$(diff <(printf '%s\n' "$expected") <(printf '%s\n' "$after") || true)"
ok "$SVCPROP" -p config/n "$I"
assert_eq 42 "$OUT" "persistent value after the restart"
ok "$SVCPROP" -p config/l "$I"
assert_eq 'x\ y z' "$OUT" "persistent list after the restart"
refused "$SVCPROP" -p restarter/state "$I"
assert_rc 1 "non-persistent pg after the restart"
refused "$SVCPROP" -p svol/a svc:/test/persist
ok "$SVCCFG" -s "$I" listsnap
assert_line running "$OUT" "snapshots after the restart"

log "the restarted configd takes writes, and a second restart keeps them"
ok "$SVCCFG" -s "$I" setprop config/n = count: 43
ok "$SVCCFG" -s "$I" addpg restarter framework P
configd_restart
ok "$SVCPROP" -C -p config/n "$I"
assert_eq 43 "$OUT" "value written after the first restart"
ok "$SVCCFG" -s "$I" listpg
assert_no_match '^restarter ' "$OUT" "listpg after the second restart"

configd_stop
log "ok"
