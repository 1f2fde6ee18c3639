#!/bin/bash
# bench-svcs BUILD_DIR [N]: `svcs -a` over 10,000 instances (issue 14's goals: median <= 100 ms,
# and <= 3x a sqlite3 query of the same states from the repository's files, timed in the same
# run), and the default listing (which also reads general and general_ovr of every instance to
# apply the enabled filter) over the same repository.
#
# Its own sandbox (configd and startd, from bench-window.sh).  The instances are 100 services
# of 100 disabled instances each, imported in one svccfg run that waits until startd has written
# every restarter pg, so svcs reads real states.  The peer is the sqlite3 command on a copy of
# the two database files (configd holds the originals with exclusive locks): what svcs -a shows
# (state, state_timestamp, FMRI) of every instance, sorted as svcs sorts it.  Each figure is
# the best and the median of 5 runs (wall time of the whole command: start-up, connection or
# open, reads, sort, output to /dev/null).  Never fails on speed.
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

# The peer: the same states straight from a copy of the repository's files.
command -v sqlite3 >/dev/null || { echo "bench-svcs: no sqlite3 command: the peer cannot be" \
	"measured (apt-get install sqlite3)" >&2; exit 1; }
copy="$ROOT/copy"
mkdir -p "$copy"
for f in etc/svc/repository.db etc/svc/volatile/svc_nonpersist.db; do
	for suffix in "" -wal; do
		[ ! -e "$ROOT/$f$suffix" ] || cp "$ROOT/$f$suffix" "$copy/$(basename "$f")$suffix"
	done
done
query="ATTACH '$copy/svc_nonpersist.db' AS np;
SELECT CAST(s.vals AS TEXT), CAST(t.vals AS TEXT), e.fmri FROM main.entities e
  JOIN np.pgs p ON p.entity = e.id AND p.name = 'restarter'
  JOIN np.props s ON s.pg = p.id AND s.name = 'state'
  LEFT JOIN np.props t ON t.pg = p.id AND t.name = 'state_timestamp'
  WHERE e.parent IS NOT NULL ORDER BY 1, 2, 3;"
lines=$(sqlite3 "$copy/repository.db" "$query" | wc -l) # also recovers the copied WALs
[ "$lines" -eq "$n" ] || { echo "bench-svcs: the sqlite3 query listed $lines of $n" >&2; exit 1; }

# time5 LABEL GOAL CMD...: best and median of 5 runs, in ms (the median in MEDIAN).
time5() {
	local label=$1 goal=$2 t=() a b
	shift 2
	for _ in 1 2 3 4 5; do
		a=$(date +%s%N)
		"$@" >/dev/null
		b=$(date +%s%N)
		t+=($(((b - a) / 100000)))
	done
	mapfile -t t < <(printf '%s\n' "${t[@]}" | sort -n)
	MEDIAN=${t[2]}
	printf '%-42s best %6.1f ms, median %6.1f ms   (%s)\n' "$label" "${t[0]}e-1" "${t[2]}e-1" \
		"$goal"
}
verdict() { awk -v v="$1" -v goal="$2" 'BEGIN { print (v <= goal ? "met" : "NOT met") }'; }
time5 "sqlite3 query of the same states (peer)" "the peer" sqlite3 "$copy/repository.db" "$query"
peer=$MEDIAN
time5 "svcs -a, $n instances" "goal median <= 100 ms" "$svcs" -a
all=$MEDIAN
ratio=$(awk -v a="$all" -v b="$peer" 'BEGIN { printf "%.2f", a / b }')
echo "  svcs -a: median $(awk -v a="$all" 'BEGIN { printf "%.1f", a / 10 }') ms (goal <= 100 ms:" \
	"$(verdict "$all" 1000)); ${ratio}x the sqlite3 query (goal <= 3x: $(verdict "$ratio" 3))"
time5 "svcs (enabled filter), $n instances" "none; general, general_ovr too" "$svcs"
time5 "svcs -a -o state,fmri -s fmri" "none" "$svcs" -a -o state,fmri -s fmri
