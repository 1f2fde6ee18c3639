#!/bin/sh
# run-fuzz.sh FUZZER SEED_DIR [libFuzzer options...]: a short fuzzing run seeded from SEED_DIR
# (read, never written: libFuzzer writes new inputs only into its first corpus directory, which
# is a fresh temporary one here).
set -eu
fuzzer=$1
seeds=$2
shift 2
work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-corpus.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A crashing input must outlive the run: it goes to fuzz-artifacts/ in the working directory
# (the build tree under meson test), and the failure names it.
artifacts="$(pwd)/fuzz-artifacts"
mkdir -p "$artifacts"
"$fuzzer" -max_total_time="${FUZZ_SECONDS:-20}" -timeout=10 -rss_limit_mb=1024 \
	-artifact_prefix="$artifacts/" -print_final_stats=1 "$@" "$work" "$seeds"
