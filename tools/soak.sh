#!/bin/bash
# soak.sh: svc.configd under a flood of hostile local peers, beside normal clients (make soak).
#
# THE MODEL.  A sandbox root gets its own svc.configd and svc.startd.  Normal clients (root, as
# an administrator) loop over the everyday work: write a fresh manifest, "svccfg import" it,
# "svcadm enable -s" it, "svcadm disable -s" it, each step timed.  They run three times: alone
# (quiet), beside a flood of hostile peers run as nobody (tests/integration/hardening/hostile,
# see docs/security.md: peers that never read their replies (ListServices, GetPg of a 4 MiB
# pg), send fds, hold idle connections past their share, send malformed messages and 64 MiB
# requests (with headers as sd-bus writes them and with a version configd does not know),
# subscribe without reading, leave in the middle of a message, hold requests one byte short of
# their end, and trickle headers), and beside the same flood aimed at a decoy configd
# on another root (control: what the flood's processes cost the machine's CPUs, configd
# aside).  A sampler reads configd's RSS and fd count every 100 ms.  After the flood the peers
# stop, and configd's fd count must come back to what it was before the flood.  The peers run
# at nice 19, so that the figures are about configd rather than the share of two CPUs that a
# dozen busy processes take.
#
# It prints the normal clients' p99 latency in each phase and the ratios (goal: flood / quiet at
# most 2), configd's peak RSS, fd count and CPU under the flood (goal: at most 64 MiB), the fd
# count after, and fails (exit 1) if any normal operation failed, the fds did not come back, or
# nobody (whose peers have all gone) is refused a connection: no peer leaves a slot behind.
#
# INVARIANTS.  Nothing outlives the run: an EXIT trap stops the peers and the clients (by the pids
# this script started), then the daemons (sandbox.sh), and removes the sandbox.  The peers are
# nobody, never the root's owner: root and the owner are exempt from the per-uid limits.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
SANDBOX_NAME=soak
source "$here/sandbox.sh"
source "$here/../tests/manifests.sh"

usage() {
	cat <<EOF
usage: tools/soak.sh [-s SECONDS] [-c CLIENTS] BUILD-DIR

Normal clients alone, then beside a flood of hostile peers (run as nobody: needs root).
  -s, --seconds S   length of each phase (SOAK_SECONDS; default 120)
  -c, --clients N   normal clients in parallel (SOAK_CLIENTS; default 2)
  SOAK_PEERS        the kinds of hostile peers (default: all eleven)
Exit status: 0 when every normal operation succeeded and configd's fds came back; 1 otherwise.
EOF
}

PHASE_SECONDS=${SOAK_SECONDS:-120}
CLIENTS=${SOAK_CLIENTS:-2}
while [ $# -gt 0 ]; do
	case $1 in
	-s | --seconds) PHASE_SECONDS=$2; shift 2 ;;
	-c | --clients) CLIENTS=$2; shift 2 ;;
	-h | --help) usage; exit 0 ;;
	-*) usage >&2; exit 2 ;;
	*) break ;;
	esac
done
[ $# -eq 1 ] || { usage >&2; exit 2; }
build=$(cd "$1" && pwd)
sandbox_use_build "$build"
HOSTILE=$build/tests/integration/hardening/hostile
for p in "$SVC_CONFIGD" "$SVC_STARTD" "$SVCCFG" "$SVCADM" "$HOSTILE"; do
	[ -x "$p" ] || sandbox_fail "$p is not built (make first)"
done
[ "$(id -u)" -eq 0 ] || sandbox_fail "the hostile peers run as nobody: run make soak as root"
AS_NOBODY=(nice -n 19 setpriv --reuid=nobody --regid=nogroup --clear-groups)
"${AS_NOBODY[@]}" test -x "$HOSTILE" || sandbox_fail "nobody cannot run $HOSTILE"

PIDS=() DECOY_PID=""
soak_cleanup() {
	local rc=$? p
	touch "$WORK/stop" 2>/dev/null || true
	for p in "${PIDS[@]}" $DECOY_PID; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}" $DECOY_PID; do wait "$p" 2>/dev/null || true; done
	sandbox_cleanup "$rc"
}

sandbox_new minismf-soak
WORK=$ROOT/soak
mkdir -p "$WORK"
chmod 0777 "$WORK" # nobody's peers write their output here
trap soak_cleanup EXIT
sandbox_start_configd
sandbox_start_startd

log() { echo "soak: $*" >&2; }

# ---- normal clients ------------------------------------------------------------------------

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# timed FILE OP CMD...: runs CMD (60 s at most), appends "OP MS RC" to FILE.
timed() {
	local file=$1 op=$2 t0 rc=0
	shift 2
	t0=$(now_ms)
	timeout 60 "$@" >/dev/null 2>>"$file.err" || rc=$?
	echo "$op $(($(now_ms) - t0)) $rc" >>"$file"
}

# client ID PHASE UNTIL: the everyday work until the clock passes UNTIL (seconds since epoch).
client() {
	local id=$1 phase=$2 until=$3 n=0 name out=$WORK/$2.client$1
	while [ "$(date +%s)" -lt "$until" ]; do
		n=$((n + 1))
		name=$phase-$id-$n
		transient_manifest "site/$name" "$name" >"$WORK/$name.xml"
		timed "$out" import "$SVCCFG" import "$WORK/$name.xml"
		timed "$out" enable "$SVCADM" enable -s "site/$name"
		timed "$out" disable "$SVCADM" disable -s "site/$name"
	done
}

# clients PHASE: runs the clients for one phase, in parallel, and waits for them.
clients() {
	local until=$(($(date +%s) + PHASE_SECONDS)) i pids=()
	for i in $(seq 1 "$CLIENTS"); do
		client "$i" "$1" "$until" &
		pids+=($!)
		PIDS+=($!)
	done
	for i in "${pids[@]}"; do wait "$i"; done
}

# p99 PHASE [OP]: the 99th percentile of the phase's latencies (of OP, or all), in ms.
p99() {
	cat "$WORK/$1".client* | awk -v op="${2:-}" 'op == "" || $1 == op { print $2 }' | sort -n |
		awk '{ v[NR] = $1 } END { if (NR == 0) { print "-"; exit } i = int(NR * 0.99 + 0.999)
			if (i > NR) i = NR; print v[i] }'
}

ops() { cat "$WORK/$1".client* | wc -l; }
failures() { cat "$WORK/$1".client* | awk '$3 != 0' | wc -l; }

# ---- configd's figures ---------------------------------------------------------------------

configd_fds() { find "/proc/$CONFIGD_PID/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l; }
configd_rss_kb() { awk '$1 == "VmRSS:" { print $2 }' "/proc/$CONFIGD_PID/status"; }
configd_cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$CONFIGD_PID/stat"; }

# sampler FILE: the peaks of configd's RSS and fd count, as "RSS_KB FDS", until the stop file.
sampler() {
	local rss fds max_rss=0 max_fds=0
	while [ ! -e "$WORK/stop" ]; do
		rss=$(configd_rss_kb) fds=$(configd_fds)
		[ "$rss" -le "$max_rss" ] || max_rss=$rss
		[ "$fds" -le "$max_fds" ] || max_fds=$fds
		echo "$max_rss $max_fds" >"$1"
		sleep 0.1
	done
}

# ---- the hostile peers ---------------------------------------------------------------------

# peer NAME ARGS...: runs "hostile ARGS" as nobody, against $TARGET, again and again until the
# stop file.
peer() {
	local name=$1
	shift
	while [ ! -e "$WORK/stop" ]; do
		SMF_ROOT=$TARGET "${AS_NOBODY[@]}" "$HOSTILE" "$@" >>"$WORK/peer.$name" 2>&1 || true
	done
}

# flood_against ROOT PHASE: the peers against ROOT's configd while the clients run PHASE; the
# peaks of this sandbox's configd go to $WORK/peaks.
flood_against() {
	TARGET=$1
	rm -f "$WORK/stop" "$WORK"/peer.*
	sampler "$WORK/peaks" &
	PIDS+=($!)
	flood
	clients "$2"
	touch "$WORK/stop"
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	PIDS=()
}

# The kinds of peers (SOAK_PEERS: a subset of them, for finding which one costs what).
PEERS=${SOAK_PEERS:-unread-replies unread-getpg fds idle garbage big-request odd-header subscriber leave partial trickle}

flood() {
	local name
	for name in $PEERS; do
		case $name in
		unread-replies) peer "$name" unread 100000 0 ListServices & ;;
		unread-getpg) peer "$name" unread 30 0 GetPg svc:/soak/big:default big & ;;
		fds) peer "$name" fds 30 10 & ;;
		idle) peer "$name" hold 200 auth 12 & ;;
		garbage) peer "$name" garbage 40 & ;;
		big-request) peer "$name" bigreq 64 second & ;;
		odd-header) peer "$name" bigreq 64 second version2 & ;;
		leave) peer "$name" leave 64 8 & ;;
		partial) peer "$name" partial 64 5 & ;;
		trickle) peer "$name" trickle 64 5 500 & ;;
		subscriber) peer "$name" subscribe framework 30 & ;;
		*) sandbox_fail "unknown kind of peer $name" ;;
		esac
		PIDS+=($!)
	done
}

# ---- the run -------------------------------------------------------------------------------

log "$CLIENTS normal clients, ${PHASE_SECONDS}s alone, ${PHASE_SECONDS}s beside $(wc -w <<<"$PEERS") kinds of" \
	"hostile peers (as nobody), ${PHASE_SECONDS}s beside the same flood aimed at a decoy configd"
# The decoy: a configd of its own on another root, for the control phase.
DECOY=$ROOT/decoy
mkdir -p "$DECOY"
chmod 0755 "$DECOY"
"$SVC_CONFIGD" --root "$DECOY" >"$WORK/decoy.log" 2>&1 &
DECOY_PID=$!
sandbox_poll "$READY_DEADLINE_S" "$DECOY_PID" test -S "$DECOY/etc/svc/volatile/repository_door" ||
	sandbox_fail "the decoy configd did not start: $(cat "$WORK/decoy.log")"
for r in "$ROOT" "$DECOY"; do
	SMF_ROOT=$r "$SVCCFG" add soak/big
	SMF_ROOT=$r "$SVCCFG" -s soak/big add default
	SMF_ROOT=$r "$HOSTILE" bigpg svc:/soak/big:default big 4 >/dev/null
done

log "phase 1: the clients alone"
clients quiet
rss_before=$(configd_rss_kb)
fds_before=$(configd_fds)

log "phase 2: the clients beside the flood"
ticks=$(configd_cpu_ticks)
t0=$(date +%s%N)
flood_against "$ROOT" flood
cpu_pct=$((($(configd_cpu_ticks) - ticks) * 100 * 1000000000 / $(getconf CLK_TCK) /
	($(date +%s%N) - t0)))
read -r peak_rss peak_fds <"$WORK/peaks"
cp -r "$WORK"/peer.* "$ROOT/" 2>/dev/null || true

# The peers are gone; what they held goes within the login deadline at most.
fds_after=$(configd_fds)
deadline=$((SECONDS + 30))
while [ "$fds_after" -gt "$fds_before" ] && [ "$SECONDS" -lt "$deadline" ]; do
	sleep 0.1
	fds_after=$(configd_fds)
done
rss_after=$(configd_rss_kb)
# Every peer of nobody has gone: its share of connections is whole again.
nobody_ok=1
timeout 10 "${AS_NOBODY[@]}" "$SVCCFG" list >/dev/null 2>"$WORK/nobody.err" || nobody_ok=0

log "phase 3: the clients beside the flood aimed at the decoy (control)"
flood_against "$DECOY" control

# ratio A B: A / B to two places.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
q=$(p99 quiet) f=$(p99 flood) k=$(p99 control)
echo
echo "normal clients ($CLIENTS, import + enable -s + disable -s of a new transient service):"
for phase in quiet flood control; do
	printf '  %-7s %6s ops  p99 %6s ms  (import %s, enable -s %s, disable -s %s)  failed %s\n' \
		"$phase" "$(ops $phase)" "$(p99 $phase)" "$(p99 $phase import)" \
		"$(p99 $phase enable)" "$(p99 $phase disable)" "$(failures $phase)"
done
echo "  p99 under the flood / alone: $(ratio "$f" "$q") (goal: at most 2)"
echo "  p99 under the flood / beside the flood aimed elsewhere: $(ratio "$f" "$k")" \
	"(what configd itself adds)"
echo "svc.configd:"
echo "  RSS before the flood $((rss_before / 1024)) MiB, peak under it $((peak_rss / 1024)) MiB" \
	"(goal: at most 64 MiB), after $((rss_after / 1024)) MiB"
echo "  fds before the flood $fds_before, peak under it $peak_fds, after $fds_after"
echo "  CPU under the flood $cpu_pct% of a core"
echo "hostile peers against configd (runs; what the last run of each said):"
for f in "$ROOT"/peer.*; do
	printf '  %-15s %5s runs  %s\n' "${f##*/peer.}" "$(grep -c . "$f" || true)" \
		"$(tail -n 1 "$f")"
done

status=0
if [ "$(failures quiet)" -ne 0 ] || [ "$(failures flood)" -ne 0 ] ||
	[ "$(failures control)" -ne 0 ]; then
	echo "soak: FAIL: normal operations failed:" >&2
	cat "$WORK"/*.client*.err >&2 || true
	status=1
fi
if [ "$nobody_ok" -ne 1 ]; then
	echo "soak: FAIL: nobody, whose peers have all gone, cannot use configd: $(cat "$WORK/nobody.err")" >&2
	status=1
fi
if [ "$fds_after" -gt "$fds_before" ]; then
	echo "soak: FAIL: configd holds $fds_after fds 30 s after the flood, $fds_before before" >&2
	status=1
fi
exit "$status"
