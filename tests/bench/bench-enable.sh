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

build=$(cd "${1:?usage: bench-enable.sh BUILD_DIR [N]}" && pwd)
n=${2:-${BENCH_ENABLE_INSTANCES:-1000}}
configd="$build/configd/svc.configd" startd="$build/startd/svc.startd"
svccfg="$build/cli/svccfg" svcprop="$build/cli/svcprop" svcadm="$build/cli/svcadm"
for p in "$configd" "$startd" "$svccfg" "$svcprop" "$svcadm"; do
	[ -x "$p" ] || { echo "bench-enable: $p is not built" >&2; exit 1; }
done

root=$(mktemp -d "${TMPDIR:-/tmp}/minismf-bench-enable.XXXXXX")
chmod 0755 "$root"
export SMF_ROOT="$root"
unset NOTIFY_SOCKET
cpid="" spid=""
cleanup() {
	# SIGTERM: startd stops its services and exits; then configd.
	[ -z "$spid" ] || { kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true; }
	[ -z "$cpid" ] || { kill "$cpid" 2>/dev/null || true; wait "$cpid" 2>/dev/null || true; }
	rm -rf "$root"
}
trap cleanup EXIT

# wait_for WHAT CMD...: polls CMD (true when ready) against a deadline.
wait_for() {
	local what=$1 deadline=$((SECONDS + 60))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || { echo "bench-enable: $what not ready" >&2; exit 1; }
		sleep 0.01
	done
}

"$configd" --root "$root" >>"$root/configd.log" 2>&1 &
cpid=$!
wait_for configd test -S "$root/etc/svc/volatile/repository_door"
"$startd" --root "$root" >>"$root/startd.log" 2>&1 &
spid=$!
wait_for startd grep -q 'ready$' "$root/startd.log"

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
} >"$root/bench.xml"
SVCCFG_IMPORT_NOWAIT=1 "$svccfg" import "$root/bench.xml"

# count STATE: instances of bench/t whose restarter/state is STATE.
count() {
	"$svcprop" -p restarter/state 'svc:/bench/t:*' 2>/dev/null | grep -c " $1\$" || true
}
all_disabled() { [ "$(count disabled)" -eq "$n" ]; }
wait_for "every restarter pg" all_disabled

t0=$(date +%s%N)
"$svcadm" enable -s svc:/bench/t
t1=$(date +%s%N)
online=$(count online)
[ "$online" -eq "$n" ] || { echo "bench-enable: only $online of $n online" >&2; exit 1; }
ms=$(((t1 - t0) / 1000000))
printf 'svcadm enable -s of %d transient instances -> all online: %d.%03d s (goal <= 3 s)\n' \
	"$n" $((ms / 1000)) $((ms % 1000))
