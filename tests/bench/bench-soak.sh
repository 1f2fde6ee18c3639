#!/bin/bash
# bench-soak.sh BUILD: the soak's figures (tools/soak.sh, make soak) with shorter phases, for make
# bench: the normal clients' p99 alone and beside the flood of hostile peers (goal: the ratio at
# most 2), svc.configd's peak RSS under the flood (goal: at most 64 MiB), its fds before and
# after (goal: back to before).  BENCH_SOAK_SECONDS per phase (default 30).
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then
	echo "bench-soak: not root, and the hostile peers run as nobody: not measured"
	exit 0
fi
SOAK_SECONDS=${BENCH_SOAK_SECONDS:-30} exec "$(dirname "$0")/../../tools/soak.sh" "$1"
