#!/bin/bash
# bench-svcs BUILD_DIR [N]: `svcs -a` over 10,000 instances (goal <= 0.5 s), and the default
# listing (which also reads general and general_ovr of every instance to apply the enabled
# filter) over the same repository.
#
# Its own sandbox (configd and startd, from bench-window.sh).  The instances are 100 services
# of 100 disabled instances each, imported in one svccfg run that waits until startd has
# written every restarter pg, so svcs reads real states.  Each figure is the best and the median
# of 5 runs (wall time of the whole command: start-up, connection, reads, sort, output to
# /dev/null).  Never fails on speed.
set -euo pipefail

source "$(dirname "$0")/bench-window.sh"
n=${2:-${BENCH_SVCS_INSTANCES:-10000}}
per=100
bench_sandbox_start "${1:?usage: bench-svcs.sh BUILD_DIR [N]}"
svcs="$BUILD/cli/svcs"
[ -x "$svcs" ] || { echo "bench-svcs: $svcs is not built" >&2; exit 1; }

{
	echo '<?xml version="1.0"?>'
	echo '<!DOCTYPE service_bundle SYSTEM "/usr/share/lib/xml/dtd/service_bundle.dtd.1">'
	echo '<service_bundle type="manifest" name="bench-svcs">'
	for ((s = 0; s * per < n; s++)); do
		echo "<service name=\"bench/s$s\" type=\"service\" version=\"1\">"
		echo '<exec_method type="method" name="start" exec=":true" timeout_seconds="60"/>'
		echo '<exec_method type="method" name="stop" exec=":true" timeout_seconds="60"/>'
		for ((i = 0; i < per && s * per + i < n; i++)); do
			echo "<instance name=\"i$i\" enabled=\"false\"/>"
		done
		echo '</service>'
	done
	echo '</service_bundle>'
} >"$ROOT/bench.xml"
t0=$(date +%s%N)
SVCCFG_IMPORT_TIMEOUT=600 "$BUILD/cli/svccfg" import "$ROOT/bench.xml"
t1=$(date +%s%N)
echo "setup: import of $n instances (waiting for every restarter pg): $(((t1 - t0) / 1000000)) ms"

lines=$("$svcs" -aH | wc -l)
[ "$lines" -eq "$n" ] || { echo "bench-svcs: svcs -a listed $lines of $n" >&2; exit 1; }
[ "$("$svcs" -aH -o state | sort -u)" = disabled ] ||
	{ echo "bench-svcs: not every instance is disabled" >&2; exit 1; }

# time5 LABEL GOAL CMD...: best and median of 5 runs, in ms.
time5() {
	local label=$1 goal=$2 t=() a b
	shift 2
	for _ in 1 2 3 4 5; do
		a=$(date +%s%N)
		"$@" >/dev/null
		b=$(date +%s%N)
		t+=($(((b - a) / 1000000)))
	done
	mapfile -t t < <(printf '%s\n' "${t[@]}" | sort -n)
	printf '%-40s best %5d ms, median %5d ms   (goal %s)\n' "$label" "${t[0]}" "${t[2]}" "$goal"
}
time5 "svcs -a, $n instances" "<= 500 ms" "$svcs" -a
time5 "svcs (enabled filter), $n instances" "none; 2 reads each here" "$svcs"
time5 "svcs -a -o state,fmri -s fmri" "none" "$svcs" -a -o state,fmri -s fmri
