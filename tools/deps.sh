#!/bin/sh
# Installs the Debian packages minismf builds and tests with, when they are missing.
# As root it runs apt-get; otherwise it prints the command to run and fails.
# Chromium is optional: only tests/race/report (the svctrace HTML page in headless Chromium) needs
# it, and that test skips without it, so failing to install it prints a notice, never an error.
set -eu

PKGS="meson ninja-build pkg-config gcc libc6-dev libsystemd-dev libsqlite3-dev sqlite3
libxml2-dev libcmocka-dev systemtap-sdt-dev util-linux procps python3 jq clang libclang-rt-dev
spin"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
chromium=""
command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1 || chromium=chromium
[ -z "$missing" ] && [ -z "$chromium" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	if [ -n "$missing" ]; then
		echo "deps: missing packages:$missing" >&2
		echo "deps: run as root: apt-get install -y$missing $chromium" >&2
		exit 1
	fi
	echo "deps: notice: no chromium; the report test will skip (as root: apt-get install -y chromium)" >&2
	exit 0
fi
export DEBIAN_FRONTEND=noninteractive
updated=""
if [ -n "$missing" ]; then
	echo "deps: installing$missing" >&2
	apt-get update -qq
	updated=1
	# shellcheck disable=SC2086
	apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ -n "$chromium" ]; then
	echo "deps: installing chromium (optional, for the report test)" >&2
	if { [ -n "$updated" ] || apt-get update -qq; } &&
		apt-get install -y -qq --no-install-recommends chromium >/dev/null; then
		:
	else
		echo "deps: notice: could not install chromium; the report test will skip" >&2
	fi
fi
exit 0
