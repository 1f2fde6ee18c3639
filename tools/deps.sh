#!/bin/sh
# Installs the Debian packages minismf builds and tests with, when they are missing.
# As root it runs apt-get; otherwise it prints the command to run and fails.
set -eu

PKGS="meson ninja-build pkg-config gcc libc6-dev libsystemd-dev libsqlite3-dev sqlite3
libxml2-dev libcmocka-dev systemtap-sdt-dev util-linux procps python3 jq clang libclang-rt-dev"

missing=""
for p in $PKGS; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing="$missing $p"
	fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing packages:$missing" >&2
	echo "deps: run as root: apt-get install -y$missing" >&2
	exit 1
fi
echo "deps: installing$missing" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
