#!/bin/bash
# bench-enable: 1,000 trivial transient instances (one service, one import), `svcadm enable -s`
# of the service (all its instances), timed until every instance is online (goal <= 3 s).
#
# Its own sandbox: a private root, svc.configd and svc.startd on it, both stopped at exit.
# The import is not timed.  Before the enable, the bench waits (polling svcprop, outside the
# timed part) until startd has written every instance's restarter pg, so the figure is the
# enable and the starts, not the import race.  `svcadm enable -s` itself waits on
# notifications, and the result is checked: every instance online.  Never fails on speed.
#
# usage: bench-enable.sh BUILD_DIR [N]
set -euo pipefail

source "$(dirname "$0")/../../tools/sandbox.sh"
sandbox_use_build "${1:?usage: bench-enable.sh BUILD_DIR [N]}"
n=${2:-${BENCH_ENABLE_INSTANCES:-1000}}
for p in "$SVC_CONFIGD" "$SVC_STARTD" "$SVCCFG" "$SVCPROP" "$SVCADM"; do
	[ -x "$p" ] || { echo "bench-enable: $p is not built" >&2; exit 1; }
done

# Stopped at exit with SIGTERM: startd stops its services and exits; then configd.
sandbox_new minismf-bench-enable
sandbox_start_configd
sandbox_start_startd

{
	echo '<?xml version="1.0"?>'
	echo '<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">'
	echo '<service_bundle type="manifest" name="bench-enable">'
	echo '<service name="bench/t" type="service" version="1">'
	echo '<exec_method type="method" name="start" exec=":true" timeout_seconds="60"/>'
	echo '<exec_method type="method" name="stop" exec=":true" timeout_seconds="60"/>'
	echo '<property_group name="startd" type="framework">'
	echo '<propval name="duration" type="astring" value="transient"/>'
	echo '</property_group>'
	for ((i = 0; i < n; i++)); do echo "<instance name=\"i$i\" enabled=\"false\"/>"; done
	echo '</service>'
	echo '</service_bundle>'
} >"$ROOT/bench.xml"
SVCCFG_IMPORT_NOWAIT=1 "$SVCCFG" import "$ROOT/bench.xml"

# count STATE: instances of bench/t whose restarter/state is STATE.
count() {
	"$SVCPROP" -p restarter/state 'svc:/bench/t:*' 2>/dev/null | grep -c " $1\$" || true
}
wait_until '[ "$(count disabled)" -eq "$n" ]' "not every restarter pg written" 60

t0=$(date +%s%N)
"$SVCADM" enable -s svc:/bench/t
t1=$(date +%s%N)
online=$(count online)
[ "$online" -eq "$n" ] || { echo "bench-enable: only $online of $n online" >&2; exit 1; }
ms=$(((t1 - t0) / 1000000))
printf 'svcadm enable -s of %d transient instances -> all online: %d.%03d s (goal <= 3 s)\n' \
	"$n" $((ms / 1000)) $((ms % 1000))
