#!/bin/bash
# make conformance: illumos' own SMF test suite (Sun's STC "smf-tests", in ../shared/illumos-stc,
# unchanged, with the shim that runs it here) against this build.  It installs wrappers under
# /usr and two test users for the run (and removes them), so it needs root; the tests are ksh
# scripts, so it needs ksh.  Without either it says so and exits 0: it is a judge of fidelity,
# not a gate (about ten minutes; not part of make test or CI).
#
# usage: tools/conformance.sh BUILD_DIR [AREA...]   (AREA: svccfg, svccfg/add, svc.startd/context,
#        svc.startd/methods, manifests, ...; default: every area)
set -u
here=$(cd "$(dirname "$0")" && pwd)
stc=$(cd "$here/../.." && pwd)/shared/illumos-stc
build=$(cd "${1:?usage: tools/conformance.sh BUILD_DIR [AREA...]}" && pwd)
shift
if [ ! -x "$stc/run.sh" ]; then
	echo "conformance: $stc/run.sh is not there (../shared/illumos-stc beside the checkout)"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	echo "conformance: needs root (the shim installs wrappers under /usr and two test users);" \
		"run: sudo make conformance"
	exit 0
fi
if ! command -v ksh >/dev/null && ! apt-get install -y ksh >/dev/null 2>&1; then
	echo "conformance: needs ksh (apt-get install ksh): the tests are ksh scripts"
	exit 0
fi
"$stc/run.sh" "$build" "$@"
rc=$?
echo
echo "conformance: per-test results in /tmp/stc/results/AREA/TEST.result and TEST.out;" \
	"$stc/failures.sh lists the failures"
exit "$rc"
