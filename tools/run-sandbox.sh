#!/bin/bash
# make run: starts svc.configd and svc.startd on a sandbox root under the build tree, then
# prints the one line to paste into another shell.  Idempotent: a daemon that still runs is
# reused.  `make run STOP=1` (or this script with --stop) stops them, startd first so that it
# can stop its services while configd still answers.
set -euo pipefail

SANDBOX_NAME=run
source "$(dirname "$0")/sandbox.sh"
build=${1:-build}
sandbox_use_build "$build"
# Kept on purpose: no trap stops these daemons when the script ends.
sandbox_at "$(cd "$build" && pwd)/sandbox"
CONFIGD_LOG=$ROOT/var/svc/log/svc.configd.log
STARTD_LOG=$ROOT/var/svc/log/svc.startd.log
configd_pidfile="$ROOT/etc/svc/volatile/svc.configd.pid"
startd_pidfile="$ROOT/etc/svc/volatile/svc.startd.pid"

# running PIDFILE: the daemon it names is alive.
running() { [ -f "$1" ] && sandbox_alive "$(cat "$1")"; }

# stop_one NAME PIDFILE: SIGTERM, then wait (with the sandbox's deadline) until it is gone.
stop_one() {
	local pid
	if running "$2"; then
		pid=$(cat "$2")
		kill -TERM "$pid"
		sandbox_poll "$READY_DEADLINE_S" "" sandbox_gone "$pid" ||
			sandbox_fail "$1 $pid did not exit within ${READY_DEADLINE_S}s of SIGTERM"
		echo "stopped $1 $pid on $ROOT"
	fi
	rm -f "$2"
}

if [ "${2:-}" = "--stop" ] || [ -n "${STOP:-}" ]; then
	stop_one svc.startd "$startd_pidfile"
	stop_one svc.configd "$configd_pidfile"
	exit 0
fi

mkdir -p "$ROOT/etc/svc/volatile" "$ROOT/var/svc/log"
if running "$configd_pidfile" && [ -S "$DOOR" ]; then
	echo "svc.configd $(cat "$configd_pidfile") already serves $ROOT"
else
	sandbox_start_configd
	echo "$CONFIGD_PID" >"$configd_pidfile"
	echo "svc.configd $CONFIGD_PID serves $ROOT (log: $CONFIGD_LOG)"
fi
if running "$startd_pidfile"; then
	echo "svc.startd $(cat "$startd_pidfile") already restarts services on $ROOT"
else
	# The log is kept across runs: this start is ready at one "ready" line more than it has.
	SANDBOX_STARTD_STARTS=$(grep -c 'ready$' "$STARTD_LOG" 2>/dev/null || true)
	sandbox_start_startd
	echo "$STARTD_PID" >"$startd_pidfile"
	echo "svc.startd $STARTD_PID restarts services on $ROOT (log: $STARTD_LOG)"
fi
echo
echo "In another shell:"
echo "  export SMF_ROOT=$ROOT PATH=$(cd "$build" && pwd)/cli:\$PATH"
echo "Stop them with: make run STOP=1"
