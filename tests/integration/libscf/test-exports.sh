#!/bin/bash
# test-exports: libscf.so exports exactly the functions libscf.h declares.
#
# Usage: test-exports.sh LIBSCF_SO LIBSCF_H
#
# Every dynamic symbol the library defines must be an scf_ function declared in libscf.h (no
# helper of lib/util or lib/model, no client_*), and every function libscf.h declares, other
# than its static inline helpers, must be exported (a declaration without a definition would
# fail only in a program that calls it).
set -euo pipefail

so=$1
header=$2
fail=0

exported=$(nm -D --defined-only "$so" | awk '{ print $NF }' | sed 's/@.*//' | sort -u)
# The header without its comments (which name illumos functions we do not have).
code=$(perl -0pe 's{/\*.*?\*/}{}gs' "$header")
# Names followed by "(": declarations, and calls inside the inline helpers (also declared).
declared=$(grep -oE '\bscf_[a-z0-9_]+[[:space:]]*\(' <<<"$code" | sed 's/[[:space:](]*$//' | sort -u)
inline=$(grep -oE 'static inline [a-z_ *]+\bscf_[a-z0-9_]+\(' <<<"$code" |
	grep -oE 'scf_[a-z0-9_]+' | sort -u)

[ -n "$exported" ] || { echo "no symbol exported by $so"; exit 1; }
for s in $exported; do
	if ! grep -qx -- "$s" <<<"$declared"; then
		echo "exported but not declared in libscf.h: $s"
		fail=1
	fi
done
for s in $(comm -23 <(echo "$declared") <(echo "$inline")); do
	if ! grep -qx -- "$s" <<<"$exported"; then
		echo "declared in libscf.h but not exported: $s"
		fail=1
	fi
done
[ "$fail" = 0 ] && echo "ok: $(wc -w <<<"$exported") symbols, all declared in libscf.h"
exit "$fail"
