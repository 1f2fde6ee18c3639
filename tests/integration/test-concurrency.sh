#!/bin/bash
# No lost update: 16 client processes x 500 read-increment-commit loops on one count property
# (see concurrency.c) must end at exactly 8000, against a real configd in a private root.
source "$(dirname "$0")/lib.sh"
need_var CONCURRENCY
sandbox_start

nproc=${NPROC:-16} nloops=${NLOOPS:-500}
run "$CONCURRENCY" "$nproc" "$nloops"
printf '%s\n' "$OUT"
[ -z "$ERR" ] || printf '%s\n' "$ERR" >&2
assert_rc 0 "concurrency ($nproc x $nloops increments)"
n=$((nproc * nloops))
assert_match "count = $n \\(expected $n\\)" "$OUT" "final count"

configd_stop
log "ok"
