#!/bin/bash
# make run: starts svc.configd (and, once it exists, svc.startd) on a sandbox root under the
# build tree, then prints the one line to paste into another shell.  Idempotent: a sandbox
# whose configd still answers is reused.  `make run STOP=1` (or this script with --stop) stops it.
set -euo pipefail

build=${1:-build}
root="$(cd "$build" && pwd)/sandbox"
door="$root/etc/svc/volatile/repository_door"
pidfile="$root/etc/svc/volatile/svc.configd.pid"

stop() {
	if [ -f "$pidfile" ] && kill "$(cat "$pidfile")" 2>/dev/null; then
		echo "stopped svc.configd $(cat "$pidfile") on $root"
	fi
	rm -f "$pidfile"
}

if [ "${2:-}" = "--stop" ] || [ -n "${STOP:-}" ]; then
	stop
	exit 0
fi

mkdir -p "$root/etc/svc/volatile" "$root/var/svc/log"
if [ -f "$pidfile" ] && kill -0 "$(cat "$pidfile")" 2>/dev/null && [ -S "$door" ]; then
	echo "svc.configd $(cat "$pidfile") already serves $root"
else
	"$build/configd/svc.configd" --root "$root" >"$root/var/svc/log/svc.configd.log" 2>&1 &
	echo $! >"$pidfile"
	# The socket appears only once configd is ready; poll for it with a deadline.
	for _ in $(seq 100); do
		[ -S "$door" ] && break
		kill -0 "$(cat "$pidfile")" 2>/dev/null || {
			cat "$root/var/svc/log/svc.configd.log" >&2
			exit 1
		}
		sleep 0.05
	done
	[ -S "$door" ] || { echo "svc.configd did not become ready in 5 s" >&2; exit 1; }
	echo "svc.configd $(cat "$pidfile") serves $root (log: $root/var/svc/log/svc.configd.log)"
fi
echo
echo "In another shell:"
echo "  export SMF_ROOT=$root PATH=$(cd "$build" && pwd)/cli:\$PATH"
echo "Stop it with: make run STOP=1"
