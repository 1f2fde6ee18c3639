#!/bin/bash
# make run: starts svc.configd (and, once it exists, svc.startd) on a sandbox root under the
# build tree, then prints the one line to paste into another shell.  Idempotent: a sandbox
# whose configd still answers is reused.  `make run STOP=1` (or this script with --stop) stops it.
set -euo pipefail

SANDBOX_NAME=run
source "$(dirname "$0")/sandbox.sh"
build=${1:-build}
sandbox_use_build "$build"
# Kept on purpose: no trap stops this configd when the script ends.
sandbox_at "$(cd "$build" && pwd)/sandbox"
CONFIGD_LOG=$ROOT/var/svc/log/svc.configd.log
pidfile="$ROOT/etc/svc/volatile/svc.configd.pid"

stop() {
	if [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null; then
		echo "stopped svc.configd $(cat "$pidfile") on $ROOT"
	fi
	rm -f "$pidfile"
}

if [ "${2:-}" = "--stop" ] || [ -n "${STOP:-}" ]; then
	stop
	exit 0
fi

mkdir -p "$ROOT/etc/svc/volatile" "$ROOT/var/svc/log"
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && [ -S "$DOOR" ]; then
	echo "svc.configd $(cat "$pidfile") already serves $ROOT"
else
	sandbox_start_configd
	echo "$CONFIGD_PID" >"$pidfile"
	echo "svc.configd $CONFIGD_PID serves $ROOT (log: $CONFIGD_LOG)"
fi
echo
echo "In another shell:"
echo "  export SMF_ROOT=$ROOT PATH=$(cd "$build" && pwd)/cli:\$PATH"
echo "Stop it with: make run STOP=1"
