#!/bin/bash
# svcprop in its modes, as illumos prints them: one property (values only, -t, -f), a whole pg,
# every pg, several -p, a property FMRI operand, abbreviations, composed (-c) and non-composed
# (-C) views, quiet mode (-q) and its exit codes, quoting of values for the shell.
source "$(dirname "$0")/lib.sh"
need_var SVCCFG SVCPROP
sandbox_start

S=svc:/network/smtp
I=svc:/network/smtp:sendmail
cat >"$ROOT/setup.svccfg" <<'EOF'
add network/smtp
select svc:/network/smtp
addpg svcpg application
setprop svcpg/shared = astring: from-service
setprop svcpg/over = astring: service-value
add sendmail
select svc:/network/smtp:sendmail
addpg svcpg application
setprop svcpg/over = astring: instance-value
addpg config application
setprop config/port = count: 25
setprop config/on = boolean: true
setprop config/msg = astring: "it's a $HOME (test);"
setprop config/empty = astring: ""
setprop config/hosts = host: (mail1 mail2)
EOF
ok "$SVCCFG" -f "$ROOT/setup.svccfg"

log "one property"
ok "$SVCPROP" -p config/port "$I"
assert_eq 25 "$OUT" "svcprop -p config/port"
ok "$SVCPROP" -t -p config/port "$I"
assert_eq "config/port count 25" "$OUT" "svcprop -t"
ok "$SVCPROP" -f -p config/port "$I"
assert_eq "$I/:properties/config/port count 25" "$OUT" "svcprop -f"
ok "$SVCPROP" -p config/hosts "$I"
assert_eq "mail1 mail2" "$OUT" "multi-valued property"
ok "$SVCPROP" -p config/empty "$I"
assert_eq '""' "$OUT" "empty string value"
ok "$SVCPROP" -p config/msg "$I"
assert_eq "it\\'s\\ a\\ \$HOME\\ \\(test\\)\\;" "$OUT" "shell metacharacters escaped"

log "property FMRI operand and abbreviations"
ok "$SVCPROP" "$I/:properties/config/port"
assert_eq 25 "$OUT" "svcprop PROPERTY-FMRI"
ok "$SVCPROP" -p config/port smtp:sendmail
assert_eq 25 "$OUT" "svcprop with abbreviation smtp:sendmail"
ok "$SVCPROP" -p config/port sendmail
assert_eq 25 "$OUT" "svcprop with abbreviation sendmail"
ok "$SVCPROP" -p config/port network/smtp:sendmail
assert_eq 25 "$OUT" "svcprop network/smtp:sendmail"
# Operands naming one entity several ways show it once (and so without designators); the
# order of distinct entities is the operands' order.
ok "$SVCPROP" -p config/port sendmail 'network/smtp:*' "$I" network/smtp:sendmail
assert_eq 25 "$OUT" "svcprop with four operands naming one instance"
ok "$SVCPROP" -p svcpg/over "$S" sendmail "$S"
assert_eq "$S/:properties/svcpg/over astring service-value
$I/:properties/svcpg/over astring instance-value" "$OUT" "svcprop SERVICE INSTANCE SERVICE"
# An abbreviation of a service stands for its instances (illumos' SCF_WALK_EXPLICIT): "smtp"
# is one entity, the instance, so designators carry no FMRI; only "svc:/network/smtp" names
# the service itself.
ok "$SVCPROP" -p svcpg smtp
assert_eq "svcpg/over astring instance-value
svcpg/shared astring from-service" "$OUT" "svcprop smtp reads the instance only"
ok "$SVCPROP" -p svcpg "$S"
assert_eq "svcpg/over astring service-value
svcpg/shared astring from-service" "$OUT" "svcprop svc:/network/smtp reads the service"

log "a whole pg, several -p, everything"
ok "$SVCPROP" -p config "$I"
expected_pg='config/empty astring ""
config/hosts host mail1 mail2
config/msg astring it\'"'"'s\ a\ $HOME\ \(test\)\;
config/on boolean true
config/port count 25'
assert_eq "$expected_pg" "$(sort <<<"$OUT")" "svcprop -p config"
ok "$SVCPROP" -p config/port -p config/on "$I"
assert_eq "25
true" "$OUT" "two -p properties"
ok "$SVCPROP" "$I"
assert_line "config/port count 25" "$OUT" "svcprop INSTANCE"
assert_line "svcpg/shared astring from-service" "$OUT" "svcprop INSTANCE (composed)"
assert_line "svcpg/over astring instance-value" "$OUT" "svcprop INSTANCE (instance overrides)"

log "composed and non-composed views"
ok "$SVCPROP" -c -p svcpg/shared "$I"
assert_eq from-service "$OUT" "svcprop -c falls back to the service's pg"
refused "$SVCPROP" -C -p svcpg/shared "$I"
assert_rc 1 "svcprop -C of a property only the service has"
ok "$SVCPROP" -C -p svcpg/over "$I"
assert_eq instance-value "$OUT" "svcprop -C"
ok "$SVCPROP" -p svcpg/over "$S"
assert_eq service-value "$OUT" "svcprop SERVICE"

log "missing things and quiet mode"
refused "$SVCPROP" -p config/nosuch "$I"
assert_rc 1 "svcprop of a missing property"
assert_match "config/nosuch" "$ERR" "message for a missing property"
refused "$SVCPROP" -p nosuchpg/x "$I"
assert_rc 1 "svcprop of a missing pg"
run "$SVCPROP" -q -p config/port "$I"
assert_rc 0 "svcprop -q of an existing property"
assert_eq "" "$OUT" "svcprop -q output"
run "$SVCPROP" -q -p config/nosuch "$I"
assert_rc 1 "svcprop -q of a missing property"
assert_eq "" "$OUT$ERR" "svcprop -q output of a missing property"
refused "$SVCPROP" -p config/port svc:/no/such:thing
assert_rc 1 "svcprop of an unknown FMRI"
refused "$SVCPROP" -p config/port nosuchabbrev
assert_rc 1 "svcprop of an abbreviation matching nothing"

log "usage errors"
run "$SVCPROP"
assert_rc 2 "svcprop without operands"
run "$SVCPROP" -c -C "$I"
assert_rc 2 "svcprop -c -C"
run "$SVCPROP" -p a/b/c "$I"
assert_rc 2 "svcprop -p with three components"

configd_stop
log "ok"
