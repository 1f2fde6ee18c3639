#!/bin/bash
# Bad input, one case per meson test (the argument names it): each refused command must print a
# clear message, exit non-zero (1 for a dead configd, at once), and leave the repository exactly
# as it was (a libscf dump of everything, pg generations included, compared before and after).
#
#   unknown-fmri     entities, pgs and FMRIs that do not exist or do not parse
#   wrong-type       unknown type names, a new property without a type, a type clash
#   malformed-value  count -1, boolean yes, bad IPv4, overflow, bad hex, ...
#   oversize         names of 120+ bytes, values of 4096+ bytes, too many values, long FMRIs
#   dead-configd     configd killed: clients say the repository is unavailable and exit 1
source "$(dirname "$0")/lib.sh"
need_var SVCCFG SVCPROP
case_name=${1:?usage: test-bad-input.sh CASE}
TEST_NAME="bad-input/$case_name"
sandbox_start

S=svc:/test/bad
I=svc:/test/bad:default
cat >"$ROOT/setup.svccfg" <<'EOF2'
add test/bad
select svc:/test/bad
addpg spg application
setprop spg/s = astring: service
add default
select svc:/test/bad:default
addpg config application
setprop config/v = count: 7
setprop config/b = boolean: true
setprop config/ip = net_address_v4: 10.1.2.3
setprop config/l = astring: ("a" "b")
refresh
EOF2
ok "$SVCCFG" -f "$ROOT/setup.svccfg"
# The dump must show the fixture, or "unchanged" below would compare two empty dumps.
assert_match '^      prop v count \[7\]$' "$(dump)" "the fixture in the dump"

# must_refuse [-m REGEX] CMD...: refused, a message (matching REGEX if given), nothing changed.
must_refuse() {
	local re=""
	if [ "$1" = -m ]; then
		re=$2
		shift 2
	fi
	refused timeout 10 "$@"
	[ -z "$re" ] || assert_match "$re" "$ERR" "message of: ${*: -3}"
	assert_unchanged "$before" "$*"
}


case $case_name in
unknown-fmri)
	before=$(dump)
	must_refuse "$SVCPROP" -p config/v svc:/no/such:inst
	assert_rc 1 "svcprop of an unknown instance"
	must_refuse "$SVCPROP" svc:/no/such
	assert_rc 1 "svcprop of an unknown service"
	must_refuse "$SVCPROP" -p config/v svc:/test/bad:nosuch
	must_refuse "$SVCPROP" -p config/v 'svc:/test/bad:de fault'
	must_refuse "$SVCPROP" -p config/v 'svc:/test//bad'
	must_refuse "$SVCPROP" -p config/v 'svc:/test/bad:default:x'
	must_refuse "$SVCCFG" -s svc:/no/such listprop
	must_refuse "$SVCCFG" -s svc:/no/such setprop p/v = count: 1
	must_refuse "$SVCCFG" -s svc:/no/such add inst
	must_refuse "$SVCCFG" -s svc:/test/bad:nosuch addpg x application
	must_refuse "$SVCCFG" -s svc:/test/bad:nosuch refresh
	must_refuse "$SVCCFG" -s 'svc:/bad fmri' listpg
	must_refuse "$SVCCFG" -s "$I" setprop nosuchpg/v = count: 1
	must_refuse "$SVCCFG" -s "$I" addpropvalue nosuchpg/v count: 1
	must_refuse "$SVCCFG" -s "$I" delpg nosuchpg
	must_refuse "$SVCCFG" -s "$I" delprop nosuchpg/v
	must_refuse "$SVCCFG" delete svc:/no/such
	must_refuse "$SVCCFG" delete svc:/test/bad:nosuch
	;;
wrong-type)
	before=$(dump)
	must_refuse "$SVCCFG" -s "$I" setprop config/x = bogustype: 1
	must_refuse "$SVCCFG" -s "$I" setprop config/v = bogustype: 1
	must_refuse "$SVCCFG" -s "$I" addpropvalue config/x bogustype: 1
	must_refuse "$SVCCFG" -s "$I" setprop config/newprop = 5
	must_refuse "$SVCCFG" -s "$I" addpropvalue config/v astring: x
	must_refuse "$SVCCFG" -s "$I" addpropvalue config/l count: 3
	;;
malformed-value)
	before=$(dump)
	must_refuse -m '-1' "$SVCCFG" -s "$I" setprop config/c = count: -1
	must_refuse -m '-1' "$SVCCFG" -s "$I" setprop config/v = count: -1
	must_refuse -m 'yes' "$SVCCFG" -s "$I" setprop config/b = boolean: yes
	must_refuse -m 'yes' "$SVCCFG" -s "$I" setprop config/b = yes
	must_refuse -m '300\.1\.2\.3' "$SVCCFG" -s "$I" setprop config/ip = net_address_v4: 300.1.2.3
	must_refuse -m '1\.2\.3' "$SVCCFG" -s "$I" setprop config/ip2 = net_address_v4: 1.2.3
	must_refuse -m 'abc' "$SVCCFG" -s "$I" setprop config/v = count: abc
	must_refuse -m '12x' "$SVCCFG" -s "$I" setprop config/v = 12x
	must_refuse "$SVCCFG" -s "$I" setprop config/i = integer: 99999999999999999999
	must_refuse "$SVCCFG" -s "$I" setprop config/c = count: 18446744073709551616
	must_refuse "$SVCCFG" -s "$I" setprop config/o = opaque: xyz
	must_refuse "$SVCCFG" -s "$I" addpropvalue config/v count: -5
	must_refuse "$SVCCFG" -s "$I" setprop config/m = count: '(1 -2 3)'
	;;
oversize)
	log "at the limits: accepted"
	n119=$(repeat n 119)
	ok "$SVCCFG" -s "$I" addpg "$n119" application
	ok "$SVCCFG" -s "$I" setprop "config/$n119" = count: 1
	ok "$SVCCFG" -s "$I" setprop config/big = astring: "$(repeat x 4095)"
	ok "$SVCPROP" -C -p config/big "$I"
	assert_eq 4095 "${#OUT}" "length of a 4095-byte value read back"
	ok "$SVCCFG" add "test/$n119"
	before=$(dump)

	log "past the limits: refused"
	n120=$(repeat n 120)
	must_refuse "$SVCCFG" -s "$I" addpg "$n120" application
	must_refuse "$SVCCFG" -s "$I" addpg "a$n119" application
	must_refuse "$SVCCFG" -s "$I" addpg short "$n120"
	must_refuse "$SVCCFG" -s "$I" setprop "config/$n120" = count: 1
	must_refuse "$SVCCFG" -s "$I" setprop "$n120/x" = count: 1
	must_refuse "$SVCCFG" -s "$I" setprop config/big = astring: "$(repeat x 4096)"
	must_refuse "$SVCCFG" -s "$I" setprop config/huge = astring: "$(repeat y 10000)"
	must_refuse "$SVCCFG" -s "$I" addpropvalue config/l astring: "$(repeat z 4096)"
	must_refuse "$SVCCFG" add "test/$n120"
	must_refuse "$SVCCFG" add "$n120"
	must_refuse "$SVCCFG" -s "$S" add "$n120"
	long_fmri="svc:/$(repeat a 100)/$(repeat b 100)/$(repeat c 100)/$(repeat d 100)"
	long_fmri="$long_fmri/$(repeat e 100)/$(repeat f 100):$(repeat g 100)"
	must_refuse "$SVCPROP" -p config/v "$long_fmri"
	must_refuse "$SVCCFG" -s "$long_fmri" listprop
	# 4097 values in one property, through a command file (too long for one argument list).
	{
		printf 'select %s\nsetprop config/many = count: (' "$I"
		seq 0 4096 | tr '\n' ' '
		printf ')\n'
	} >"$ROOT/many.svccfg"
	must_refuse "$SVCCFG" -f "$ROOT/many.svccfg"
	;;
dead-configd)
	# Compared across a configd restart: only what is persistent must be there after it.
	before=$(dump_persistent)
	configd_kill9
	for state in "stale socket" "no socket"; do
		log "configd dead, $state"
		clients=(
			"$SVCPROP -p config/v $I"
			"$SVCPROP $I"
			"$SVCCFG list"
			"$SVCCFG -s $I listprop"
			"$SVCCFG -s $I setprop config/v = count: 8"
			"$SVCCFG add test/new"
			"$SVCCFG -f $ROOT/setup.svccfg"
		)
		for c in "${clients[@]}"; do
			# shellcheck disable=SC2086 # each entry is a command line to split
			run timeout 5 $c
			[ "$RC" -ne 124 ] || fail "'$c' hung on a dead configd (killed after 5 s)"
			assert_rc 1 "'$c' with configd dead ($state)"
			assert_match '[Rr]epository.*unavailable|unavailable.*[Rr]epository' "$ERR" \
				"message of '$c' with configd dead ($state)"
		done
		rm -f "$DOOR"
	done
	configd_start
	after=$(dump_persistent)
	[ "$before" = "$after" ] || fail "the clients run while configd was dead changed the repository:
$(diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") || true)"
	;;
*)
	echo "unknown case $case_name" >&2
	exit 2
	;;
esac

configd_stop
log "ok"
