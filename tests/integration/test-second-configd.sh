#!/bin/bash
# A second svc.configd on the same root is refused: it exits 1 at once with a message, and the
# first one still serves (same pid, same socket, reads and writes work).
source "$(dirname "$0")/lib.sh"
need_var SVCCFG SVCPROP
sandbox_start

ok "$SVCCFG" add test/second
ok "$SVCCFG" -s svc:/test/second addpg p application
ok "$SVCCFG" -s svc:/test/second setprop p/v = count: 1
door_inode=$(stat -c %i "$DOOR")

refused timeout 10 "$SVC_CONFIGD" --root "$ROOT"
assert_rc 1 "second svc.configd on the same root"
assert_match '[Aa]lready|running|in use|another' "$ERR" "the second configd's message"

kill -0 "$CONFIGD_PID" || fail "the first configd died when the second started"
[ -S "$DOOR" ] || fail "the socket is gone after the second configd was refused"
assert_eq "$door_inode" "$(stat -c %i "$DOOR")" "the socket's inode (the second must keep off it)"
ok "$SVCPROP" -p p/v svc:/test/second
assert_eq 1 "$OUT" "read from the first configd"
ok "$SVCCFG" -s svc:/test/second setprop p/v = count: 2
ok "$SVCPROP" -p p/v svc:/test/second
assert_eq 2 "$OUT" "write through the first configd"

log "after the first stops, a new one starts on that root"
configd_restart
ok "$SVCPROP" -p p/v svc:/test/second
assert_eq 2 "$OUT" "read after the restart"

configd_stop
log "ok"
