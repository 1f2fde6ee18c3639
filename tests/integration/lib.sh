# lib.sh: the sandbox and the assertions shared by the integration tests (sourced, bash).
#
# THE MODEL
#
# Every test gets a private root (tools/sandbox.sh: mktemp -d, mode 0755 so that an unprivileged
# peer can reach the socket), one svc.configd serving it, and SMF_ROOT pointing at it for every
# client it runs.  Readiness is the appearance of the socket ($ROOT/etc/svc/volatile/
# repository_door), polled against a deadline: configd creates it only once it serves.  An EXIT
# trap kills whatever configd is still running and removes the root, so a failing test never
# leaves a daemon behind (KEEP_SANDBOX=1 keeps the root of a failed test).
#
# Programs come from meson through the environment: SVC_CONFIGD, SVCCFG, SVCPROP, REPODUMP (a
# libscf dump of the whole repository, used to show that a refused command changed nothing).
#
# Assertions print what was expected and what came, then exit 1.  `run CMD...` never fails by
# itself: it leaves the exit status, stdout and stderr in RC, OUT and ERR for the checks.

set -euo pipefail

TEST_NAME=$(basename "${0%.sh}")
SANDBOX_NAME=$TEST_NAME
# A daemon still running when a test ends has nothing left to do: SIGKILL, the quickest.
SANDBOX_STOP_SIGNAL=KILL
SANDBOX_KEEP=${KEEP_SANDBOX:+failure}
source "$(dirname "${BASH_SOURCE[0]}")/../../tools/sandbox.sh"

log() { echo "[$TEST_NAME] $*" >&2; }

fail() {
	echo "[$TEST_NAME] FAIL: $*" >&2
	if [ -n "$CONFIGD_LOG" ] && [ -s "$CONFIGD_LOG" ]; then
		echo "--- svc.configd log (last 30 lines) ---" >&2
		tail -n 30 "$CONFIGD_LOG" >&2
	fi
	exit 1
}

# Every failure of the sandbox (a daemon that is not ready, not stopped) is a test failure.
sandbox_fail() { fail "$*"; }

skip() {
	echo "[$TEST_NAME] SKIP: $*" >&2
	exit 77
}

# need_nobody: AS_NOBODY becomes the command prefix that runs a command as nobody, or the test
# skips (not root, no setpriv/runuser, or the build is not reachable by nobody).
need_nobody() {
	[ "$(id -u)" -eq 0 ] || skip "not running as root: no other user to become"
	if setpriv --reuid=nobody --regid=nogroup --clear-groups true 2>/dev/null; then
		AS_NOBODY=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
	elif runuser -u nobody -- true 2>/dev/null; then
		AS_NOBODY=(runuser -u nobody --)
	else
		skip "neither setpriv nor runuser can run a command as nobody here"
	fi
	local exe
	for exe in "$@"; do
		"${AS_NOBODY[@]}" test -x "$exe" || skip "$exe is not executable by nobody"
	done
}

need_var() {
	local v
	for v in "$@"; do
		[ -n "${!v:-}" ] || skip "$v is not set (that program is not built yet)"
		[ -x "${!v}" ] || skip "${!v} is not built"
	done
}

# ---------------------------------------------------------------------------------------------
# Sandbox (tools/sandbox.sh)

sandbox_create() {
	need_var SVC_CONFIGD
	sandbox_new minismf-test
}

configd_start() { sandbox_start_configd "$@"; }

# Stops configd with SIGTERM and requires a clean exit (status 0) within the deadline: a crash
# or a sanitizer report at shutdown is a failure too.
configd_stop() { sandbox_stop configd; }

configd_kill9() { sandbox_kill configd; }

# new_boot: the next configd starts as after a reboot: the marker of its non-persistent
# database names another boot, so that database starts empty (configd/backend.c).  configd must
# be stopped.
new_boot() {
	echo 00000000-0000-0000-0000-000000000000 >"$ROOT/etc/svc/volatile/svc_nonpersist.boot_id"
}

configd_restart() {
	configd_stop
	[ ! -S "$DOOR" ] || log "note: $DOOR still exists after a clean stop"
	configd_start
}

sandbox_start() {
	sandbox_create
	configd_start "$@"
}

# ---------------------------------------------------------------------------------------------
# Running commands and asserting on them

# run CMD...: RC, OUT, ERR get the exit status, stdout and stderr (never exits on failure).
run() {
	local o e
	o=$(mktemp) e=$(mktemp)
	RC=0
	"$@" >"$o" 2>"$e" || RC=$?
	OUT=$(cat "$o") ERR=$(cat "$e")
	rm -f "$o" "$e"
}

describe_run() {
	printf '  command: %s\n  exit status: %s\n  stdout: %s\n  stderr: %s\n' "$*" "$RC" "$OUT" "$ERR"
}

# ok CMD...: must succeed; its stdout is left in OUT.
ok() {
	run "$@"
	[ "$RC" -eq 0 ] || fail "expected success from: $*
$(describe_run "$@")"
}

# refused CMD...: must fail with a non-zero status and say why on stderr, quickly.
refused() {
	run "$@"
	[ "$RC" -ne 0 ] || fail "expected a failure from: $*
$(describe_run "$@")"
	[ "$RC" -ne 124 ] || fail "timed out (hang) instead of failing: $*
$(describe_run "$@")"
	[ -n "$ERR" ] || fail "failed without a message on stderr: $*
$(describe_run "$@")"
	[ "$RC" -lt 128 ] || fail "killed by a signal ($RC) instead of failing cleanly: $*
$(describe_run "$@")"
}

assert_eq() {
	local expected=$1 actual=$2 what=${3:-value}
	[ "$expected" = "$actual" ] || fail "$what:
  expected: $(printf '%q' "$expected")
  actual:   $(printf '%q' "$actual")"
}

assert_rc() {
	local expected=$1 what=${2:-exit status}
	[ "$RC" -eq "$expected" ] || fail "$what: expected exit status $expected, got $RC
  stdout: $OUT
  stderr: $ERR"
}

# assert_match REGEX TEXT [WHAT]: extended regex, anywhere in TEXT.
assert_match() {
	local re=$1 text=$2 what=${3:-text}
	grep -Eq -- "$re" <<<"$text" || fail "$what does not match /$re/:
$text"
}

assert_no_match() {
	local re=$1 text=$2 what=${3:-text}
	! grep -Eq -- "$re" <<<"$text" || fail "$what matches /$re/ but must not:
$text"
}

# Collapses runs of blanks so that column widths do not matter to a comparison.
squeeze() { sed -E 's/[[:space:]]+/ /g; s/ $//'; }

# assert_line LINE TEXT [WHAT]: TEXT has a line equal to LINE once blanks are squeezed.
assert_line() {
	local line=$1 text=$2 what=${3:-output}
	squeeze <<<"$text" | grep -Fxq -- "$line" || fail "$what has no line '$line':
$text"
}

assert_no_line_start() {
	local prefix=$1 text=$2 what=${3:-output}
	! squeeze <<<"$text" | grep -Eq -- "^$prefix( |$)" || fail "$what has a line starting '$prefix':
$text"
}

# ---------------------------------------------------------------------------------------------
# The whole repository, for "nothing changed" checks

dump() {
	need_var REPODUMP
	local out rc=0
	out=$("$REPODUMP" 2>&1) || rc=$?
	[ "$rc" -eq 0 ] || fail "repodump failed ($rc): $out"
	printf '%s\n' "$out"
}

# Filters a dump (stdin) down to what a new boot keeps: no non-persistent pgs (flags with bit
# 0x1).  A configd restart in the same boot keeps those too.
persistent_only() {
	# A pg's properties are indented deeper than the pg line; a line at the pg's depth or
	# shallower ends the skipped pg.
	awk '
		{ ind = match($0, /[^ ]/) }
		/^ *pg / { skip = ($0 ~ / flags=0x[0-9a-f]*[13579bdf] /); pgind = ind; if (skip) next }
		skip && ind > pgind { next }
		{ skip = 0; print }'
}

dump_persistent() { dump | persistent_only; }

assert_unchanged() {
	local before=$1 what=$2 after
	after=$(dump)
	[ "$before" = "$after" ] || fail "$what changed the repository:
$(diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") || true)"
}

# import_content [REPODUMP ARGS]: the current content (no snapshots) less what differs between
# two imports of the same content: generations, the import bookkeeping (svc:/smf/manifest, and
# manifestfiles pgs, which name the files).  Two repositories a bundle was imported into compare
# equal when their import_content does.
import_content() {
	need_var REPODUMP
	local out
	out=$("$REPODUMP" --no-snapshots "$@") || fail "repodump failed"
	awk '
		/^service / { skipsvc = ($2 == "svc:/smf/manifest") }
		skipsvc { next }
		/^ *snapshot / { insnap = 1; ind = match($0, /[^ ]/); next }
		insnap { if (match($0, /[^ ]/) > ind) next; insnap = 0 }
		/^ *(service|instance) / { skippg = 0 }
		/^ *pg / { skippg = ($2 == "manifestfiles") }
		skippg { next }
		{ sub(/ generation=[0-9]+/, ""); print }' <<<"$out"
}

# Wipes the repository: configd restarted on an empty database.
fresh_repository() {
	configd_stop
	rm -f "$ROOT"/etc/svc/repository.db*
	configd_start
	assert_eq "" "$(dump)" "the wiped repository"
}

# A string of N copies of character C.
repeat() { printf "%${2}s" '' | tr ' ' "$1"; }
