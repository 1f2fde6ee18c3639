#!/bin/bash
# make bench: starts svc.configd on a private temporary root, runs the benchmarks of tests/bench
# against it and prints their figures (docs/performance.md records them).  Benchmarks never fail
# on speed; this exits non-zero only when something could not run.
#
# Usage: tools/run-bench.sh BUILD_DIR
set -euo pipefail

SANDBOX_NAME=run-bench
source "$(dirname "$0")/sandbox.sh"
build=$(cd "${1:-build}" && pwd)
sandbox_use_build "$build"
bench="$build/tests/bench"
for p in "$SVC_CONFIGD" "$bench/bench-read" "$bench/bench-commit" "$bench/bench-rss"; do
	[ -x "$p" ] || { echo "run-bench: $p is not built (make first)" >&2; exit 1; }
done

sandbox_new minismf-bench

# fresh_configd: a configd that has seen nothing else, on an emptied root.
fresh_configd() {
	sandbox_halt configd
	rm -rf "${ROOT:?}"/*
	sandbox_start_configd
}

commit=$(git -C "$(dirname "$0")/.." describe --always --dirty 2>/dev/null || echo '?')
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')
buildtype=$(meson introspect --buildoptions "$build" 2>/dev/null |
	grep -o '"name": "buildtype", "value": "[a-z]*"' | sed 's/.*"value": "//; s/"$//')
echo "minismf benchmarks: $commit, $(nproc) CPUs ($cpu), Linux $(uname -r)," \
	"buildtype ${buildtype:-?}, root on $(df -T "$ROOT" | awk 'NR==2 {print $2}')"
echo

# Placement matters on a VM (a cross-CPU wake-up is an IPI through the hypervisor): with two
# CPUs or more, configd is pinned to CPU 0 and the read benchmark runs twice, on CPU 0 and on
# CPU 1, with its raw ping-pong peer pinned to CPU 0 as well, so that both sides of the ratio pay
# the same wake-ups.
SANDBOX_WRAP=()
if [ "$(nproc)" -ge 2 ] && command -v taskset >/dev/null; then
	SANDBOX_WRAP=(taskset -c 0)
fi
sandbox_start_configd
if [ ${#SANDBOX_WRAP[@]} -gt 0 ]; then
	for cpu in 0 1; do
		echo "[configd and the ping-pong peer on CPU 0, the client on CPU $cpu]"
		BENCH_PEER_CPU=0 BENCH_CONFIGD_PID=$CONFIGD_PID taskset -c "$cpu" \
			"$bench/bench-read" "${BENCH_READ_CALLS:-20000}"
		echo
	done
else
	BENCH_CONFIGD_PID=$CONFIGD_PID "$bench/bench-read" "${BENCH_READ_CALLS:-20000}"
	echo
fi
# Throughput has no interleaving to protect it from other load: three runs each, all printed.
for _ in 1 2 3; do "$bench/bench-commit" 1 "${BENCH_COMMITS:-2000}"; done
for _ in 1 2 3; do "$bench/bench-commit" 8 "$((${BENCH_COMMITS:-2000} / 8))"; done
echo
# Issue 18: a Commit over the value limit refused, beside the biggest one accepted.
if [ -x "$bench/bench-bigreq" ]; then
	BENCH_CONFIGD_PID=$CONFIGD_PID "$bench/bench-bigreq"
	echo
fi
# The RSS figure wants a configd that has seen nothing else; svcs -a over the same repository.
fresh_configd
BENCH_SVCS="$SVCS" "$bench/bench-rss" "$CONFIGD_PID" "${BENCH_RSS_SERVICES:-1000}" \
	"${BENCH_RSS_INSTANCES:-100}" "${BENCH_RSS_PGS:-5}"

# Import: svccfg import of the illumos corpus into a fresh repository, manifest by manifest, and
# SQLite's own speed for the same rows (the limit), in the same run.  configd on CPU 0, the
# importer on CPU 1, as for the reads.
corpus="$(cd "$(dirname "$0")/.." && pwd)/../shared/corpus/illumos"
if [ -x "$build/tests/bench/bench-import" ] && [ -d "$corpus" ]; then
	fresh_configd
	echo
	client=()
	[ ${#SANDBOX_WRAP[@]} -eq 0 ] || client=(taskset -c 1)
	for _ in 1 2 3; do
		"${client[@]}" "$build/tests/bench/bench-import" "$corpus" "$ROOT"
		fresh_configd
	done
	# The command as a user runs it (process start-up, connection, every file).
	mapfile -t manifests < <(find "$corpus" -name '*.xml' | LC_ALL=C sort |
		xargs grep -L "type=.profile")
	TIMEFORMAT="svccfg import of the ${#manifests[@]} files in one command: %3R s wall"
	time "${client[@]}" "$SVCCFG" import "${manifests[@]}" >/dev/null
else
	echo "run-bench: no bench-import or no corpus at $corpus; import not measured" >&2
fi

# Benchmarks that bring their own sandbox (configd and startd): every tests/bench/bench-*.sh,
# called with the build directory.  Each prints its figures next to its goal.
for script in "$(cd "$(dirname "$0")/.." && pwd)"/tests/bench/bench-*.sh; do
	[ -e "$script" ] || continue
	echo
	echo "=== $(basename "$script")"
	bash "$script" "$build" || echo "run-bench: $(basename "$script") failed" >&2
done
