#!/bin/bash
# Persistence across a configd restart: services, instances, persistent pgs with their values and
# generations, and snapshots survive; so do non-persistent pgs (flag P, as illumos' restarter and
# general_ovr pgs), after a clean stop and after kill -9, as long as the boot is the same (the
# marker next to the volatile database names this boot); a new boot (another id in the marker)
# or a new volatile directory starts with none, on instances and on services alike; and the
# restarted configd accepts new writes.
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

full=$(dump)
assert_match 'pg restarter type=framework flags=0x1 ' "$full" "dump before the restart"
# What a new boot leaves: the same, minus the non-persistent pgs.
expected=$(persistent_only <<<"$full")

# same_dump WANT WHAT: the repository is WANT.
same_dump() {
	local after
	after=$(dump)
	[ "$after" = "$1" ] || fail "repository $2:
$(diff <(printf '%s\n' "$1") <(printf '%s\n' "$after") || true)"
}

log "a configd restart in the same boot keeps every pg"
configd_restart
same_dump "$full" "after a clean restart"
configd_kill9
configd_start
same_dump "$full" "after kill -9 and a start"
ok "$SVCPROP" -p restarter/state "$I"
assert_eq online "$OUT" "non-persistent property after the restarts"
assert_match 'kept the non-persistent repository' "$(cat "$CONFIGD_LOG")" "configd's log"

log "a new boot starts without the non-persistent pgs"
configd_stop
new_boot
configd_start
same_dump "$expected" "after a restart in another boot"
assert_match 'from another boot' "$(cat "$CONFIGD_LOG")" "configd's log"
ok "$SVCPROP" -p config/n "$I"
assert_eq 42 "$OUT" "persistent value after the restart"
ok "$SVCPROP" -p config/l "$I"
assert_eq 'x\ y z' "$OUT" "persistent list after the restart"
refused "$SVCPROP" -p restarter/state "$I"
assert_rc 1 "non-persistent pg after the restart"
refused "$SVCPROP" -p svol/a svc:/test/persist
ok "$SVCCFG" -s "$I" listsnap
assert_line running "$OUT" "snapshots after the restart"

log "the restarted configd takes writes, and a restart keeps them"
ok "$SVCCFG" -s "$I" setprop config/n = count: 43
ok "$SVCCFG" -s "$I" addpg restarter framework P
configd_restart
ok "$SVCPROP" -C -p config/n "$I"
assert_eq 43 "$OUT" "value written after the first restart"
ok "$SVCCFG" -s "$I" listpg
assert_match '^restarter ' "$OUT" "listpg after the second restart"

log "a new volatile directory starts without them too"
configd_stop
rm -rf "$ROOT/etc/svc/volatile"
configd_start
ok "$SVCCFG" -s "$I" listpg
assert_no_match '^restarter ' "$OUT" "listpg after a new volatile directory"
ok "$SVCPROP" -C -p config/n "$I"
assert_eq 43 "$OUT" "persistent value after a new volatile directory"

configd_stop
log "ok"
