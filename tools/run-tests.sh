#!/bin/bash
# Runs the meson test suite in each build directory given (before "--"), passing what follows
# "--" to meson test, and ends with one line "N passed, N failed[, N skipped]" over all of them.
# A directory given as DIR@SUITE runs only that suite there (the clang fuzz build); as
# DIR@!S1,!S2 all but those suites (the sanitizer build in make test).
set -u

dirs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do dirs+=("$1"); shift; done
[ $# -gt 0 ] && shift

passed=0 failed=0 skipped=0 rc=0
for spec in "${dirs[@]}"; do
	d=${spec%@*}
	args=("$@")
	if [ "$spec" != "$d" ]; then
		sel=${spec#*@}
		if [ "${sel#!}" != "$sel" ]; then
			IFS=, read -ra skip <<<"$sel"
			for x in "${skip[@]}"; do args+=(--no-suite "${x#!}"); done
		else
			args=(--suite "$sel")
		fi
	fi
	echo "=== meson test in $d ${args[*]}"
	rm -f "$d/meson-logs/testlog.json"
	meson test -C "$d" --print-errorlogs --num-processes 2 "${args[@]}" || rc=1
	log="$d/meson-logs/testlog.json"
	if [ -f "$log" ]; then
		read -r p f s < <(python3 - "$log" <<'PY'
import json, sys
p = f = s = 0
for line in open(sys.argv[1]):
    r = json.loads(line).get("result")
    if r in ("OK", "EXPECTEDFAIL"): p += 1
    elif r == "SKIP": s += 1
    else: f += 1
print(p, f, s)
PY
)
		passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + s))
	else
		rc=1
	fi
done
echo "${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$failed" -eq 0 ] && [ "$rc" -eq 0 ]
