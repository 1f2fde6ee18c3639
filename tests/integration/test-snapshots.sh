#!/bin/bash
# Snapshots and refresh: svcprop reads an instance through its "running" snapshot, so an edit is
# invisible to it until `svccfg refresh` retakes "running" (and moves the old one to
# "previous"); -c shows the edit at once; -s reads a named snapshot; listsnap lists them;
# non-persistent pgs are read from the current view even through the snapshot.
source "$(dirname "$0")/lib.sh"
need_var SVCCFG SVCPROP
sandbox_start

S=svc:/test/snap
I=svc:/test/snap:default
cat >"$ROOT/setup.svccfg" <<'EOF'
add test/snap
select svc:/test/snap
addpg svcpg application
setprop svcpg/level = astring: one
add default
select svc:/test/snap:default
addpg config application
setprop config/value = count: 1
addpg volatile application P
setprop volatile/v = count: 100
EOF
ok "$SVCCFG" -f "$ROOT/setup.svccfg"

log "without a running snapshot svcprop reads the current values"
ok "$SVCCFG" -s "$I" listsnap
assert_no_match '^running$' "$OUT" "listsnap before any refresh"
ok "$SVCPROP" -p config/value "$I"
assert_eq 1 "$OUT" "svcprop with no running snapshot"

log "refresh takes running"
ok "$SVCCFG" -s "$I" refresh
ok "$SVCCFG" -s "$I" listsnap
assert_line running "$OUT" "listsnap after refresh"
ok "$SVCPROP" -p config/value "$I"
assert_eq 1 "$OUT" "svcprop after refresh"
# As illumos' smf_refresh_instance, refresh also asks the restarter to re-read (no restarter
# runs here, so the request stays): an integer timestamp in restarter_actions/refresh.
ok "$SVCPROP" -t -p restarter_actions/refresh "$I"
assert_match '^restarter_actions/refresh integer [0-9]+$' "$OUT" "refresh requested"

log "an edit is invisible through running until the next refresh"
ok "$SVCCFG" -s "$I" setprop config/value = count: 2
ok "$SVCCFG" -s "$S" setprop svcpg/level = astring: two
ok "$SVCCFG" -s "$I" setprop config/added = astring: new
ok "$SVCPROP" -p config/value "$I"
assert_eq 1 "$OUT" "svcprop (running) after an edit"
ok "$SVCPROP" -p svcpg/level "$I"
assert_eq one "$OUT" "svcprop (running) of the service's pg after an edit"
refused "$SVCPROP" -p config/added "$I"
ok "$SVCPROP" -c -p config/value "$I"
assert_eq 2 "$OUT" "svcprop -c after an edit"
ok "$SVCPROP" -C -p config/added "$I"
assert_eq new "$OUT" "svcprop -C after an edit"
ok "$SVCPROP" -s running -p config/value "$I"
assert_eq 1 "$OUT" "svcprop -s running after an edit"

log "non-persistent pgs come from the current view"
ok "$SVCCFG" -s "$I" setprop volatile/v = count: 101
ok "$SVCPROP" -p volatile/v "$I"
assert_eq 101 "$OUT" "svcprop of a non-persistent pg through running"

log "the next refresh shows the edit and keeps the old running as previous"
ok "$SVCCFG" -s "$I" refresh
ok "$SVCPROP" -p config/value "$I"
assert_eq 2 "$OUT" "svcprop after the second refresh"
ok "$SVCPROP" -p svcpg/level "$I"
assert_eq two "$OUT" "svcprop of the service's pg after the second refresh"
ok "$SVCPROP" -p config/added "$I"
assert_eq new "$OUT" "svcprop of an added property after refresh"
ok "$SVCCFG" -s "$I" listsnap
assert_line previous "$OUT" "listsnap after the second refresh"
assert_line running "$OUT" "listsnap after the second refresh"
ok "$SVCPROP" -s previous -p config/value "$I"
assert_eq 1 "$OUT" "svcprop -s previous"
refused "$SVCPROP" -s previous -p config/added "$I"
refused "$SVCPROP" -s nosuchsnap -p config/value "$I"
assert_rc 1 "svcprop -s of a missing snapshot"
refused "$SVCPROP" -s running -p svcpg/level "$S"
assert_rc 1 "svcprop -s on a service (only instances have snapshots)"

log "a snapshot is not editable through the current view"
ok "$SVCCFG" -s "$I" setprop config/value = count: 3
ok "$SVCPROP" -s previous -p config/value "$I"
assert_eq 1 "$OUT" "previous after a later edit"
ok "$SVCPROP" -s running -p config/value "$I"
assert_eq 2 "$OUT" "running after a later edit"

configd_stop
log "ok"
