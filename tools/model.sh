#!/bin/sh
# make model: SPIN over the model of the import/enable protocol (model/protocol.pml), every fix
# variant against every client kind; prints the counter-example of the unfixed protocol, its
# SMF_DELAY schedule and the variant x client table (docs/model.md).  Options: model/check.py's
# (--quick, --jobs N, --json FILE, --delay D, --keep DIR; --help).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
if ! command -v spin >/dev/null 2>&1; then
	echo "model: spin is not installed; run 'make deps' (Debian package spin)" >&2
	exit 1
fi
exec python3 "$here/model/check.py" "$@"
