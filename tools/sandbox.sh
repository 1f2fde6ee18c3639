# sandbox.sh: a private root served by its own svc.configd and svc.startd (sourced, bash).  The
# one copy of "start a daemon, wait for it with a deadline, stop it" for the integration tests,
# the benchmarks and the tools (make run, make bench, make stress).
#
# THE MODEL
#
# A sandbox is a directory that SMF_ROOT names for every client the script runs, served by at
# most one svc.configd and one svc.startd.  Readiness is observed, never slept on: svc.configd
# is ready once its socket ($DOOR) appears (it creates it only when it serves), and a socket a
# killed configd left behind does not count; svc.startd is ready once its log holds one "ready"
# line per start so far.  Every wait is sandbox_poll: a poll every 10 ms that ends when the
# condition holds, when the daemon it waits on dies, or at a deadline (READY_DEADLINE_S).
#
# INVARIANTS
#
# - CONFIGD_PID and STARTD_PID hold a pid exactly while this file's daemon may still run
#   unreaped; whatever stops or reaps one empties its variable.
# - Cleanup (sandbox_cleanup, the EXIT trap) signals only those two pids, startd first so that it
#   can stop its services while configd still answers, and removes only the directories that
#   sandbox_new and sandbox_tmpdir made.
#
# State, under the names the tests use: ROOT, DOOR, CONFIGD_PID, CONFIGD_LOG, STARTD_PID,
# STARTD_LOG (and SMF_ROOT, exported).  Knobs, read when a function runs:
#   SVC_CONFIGD, SVC_STARTD  the daemons (sandbox_use_build sets them and the CLI's paths)
#   READY_DEADLINE_S         seconds a wait may last (default 20: the sanitizer build on a loaded
#                            2-core machine; a poll returns as soon as its condition holds)
#   SANDBOX_WRAP             an array run before a daemon's command line (taskset -c 0, ...)
#   SANDBOX_STOP_SIGNAL      how cleanup ends a daemon still running: TERM (the default: startd
#                            stops its services; KILL at the deadline) or KILL (at once)
#   SANDBOX_KEEP             at exit, "" removes the directories, "failure" keeps them when the
#                            exit status is neither 0 nor 77, "always" keeps them
#   SANDBOX_NAME             what messages start with (default: the script's name)
# Failures go through sandbox_fail MESSAGE, which must not return; a caller may define its own
# after sourcing this file (lib.sh does, to show its configd's log its way).

READY_DEADLINE_S=${READY_DEADLINE_S:-20}
SANDBOX_NAME=${SANDBOX_NAME:-$(basename "${0%.sh}")}
SANDBOX_STOP_SIGNAL=${SANDBOX_STOP_SIGNAL:-TERM}
SANDBOX_KEEP=${SANDBOX_KEEP:-}
[ -n "${SANDBOX_WRAP+set}" ] || SANDBOX_WRAP=()
SANDBOX_DIRS=()
SANDBOX_TRAPPED=""
SANDBOX_STARTD_STARTS=0
SANDBOX_STATUS=0
ROOT="" DOOR="" CONFIGD_PID="" CONFIGD_LOG="" STARTD_PID="" STARTD_LOG=""

sandbox_fail() {
	local log
	echo "$SANDBOX_NAME: $*" >&2
	for log in "$CONFIGD_LOG" "$STARTD_LOG"; do
		[ -n "$log" ] && [ -s "$log" ] || continue
		echo "--- $log (last 30 lines) ---" >&2
		tail -n 30 "$log" >&2
	done
	exit 1
}

# sandbox_use_build BUILD-DIR: the daemons and the CLI of a meson build directory.
sandbox_use_build() {
	local b
	b=$(cd "$1" && pwd) || sandbox_fail "no build directory $1"
	SVC_CONFIGD=$b/configd/svc.configd
	SVC_STARTD=$b/startd/svc.startd
	SVCCFG=$b/cli/svccfg
	SVCADM=$b/cli/svcadm
	SVCPROP=$b/cli/svcprop
	SVCS=$b/cli/svcs
	SVCTRACE=$b/cli/race/svctrace
}

# ---------------------------------------------------------------------------------------------
# Directories

# sandbox_tmpdir VAR NAME-OR-TEMPLATE: a new directory, its path in VAR, removed at exit.  A
# template (it holds XXXXXX) goes to mktemp -d as it is; a name becomes $TMPDIR/NAME.XXXXXX.
sandbox_tmpdir() {
	local t=$2 d
	[[ "$t" == *XXXXXX* ]] || t=${TMPDIR:-/tmp}/$t.XXXXXX
	d=$(mktemp -d "$t") || sandbox_fail "cannot make a directory like $t"
	SANDBOX_DIRS+=("$d")
	printf -v "$1" %s "$d"
	sandbox_trap
}

# sandbox_at DIR: DIR is the root (made if missing); nothing removes it, nothing stops its
# daemons at exit (make run keeps its sandbox on purpose).
sandbox_at() {
	mkdir -p "$1"
	ROOT=$(cd "$1" && pwd)
	DOOR=$ROOT/etc/svc/volatile/repository_door
	CONFIGD_LOG=$ROOT/svc.configd.log
	STARTD_LOG=$ROOT/svc.startd.log
	export SMF_ROOT=$ROOT
	# The daemons are this script's, not a service manager's to hear from.
	unset NOTIFY_SOCKET
}

# sandbox_new [NAME-OR-TEMPLATE]: a fresh private root (as sandbox_tmpdir; default
# minismf-SANDBOX_NAME), mode 0755 so that an unprivileged peer can reach the socket.
sandbox_new() {
	local r
	sandbox_tmpdir r "${1:-minismf-$SANDBOX_NAME}"
	chmod 0755 "$r"
	sandbox_at "$r"
}

# The EXIT trap is set once: a caller that replaced it with its own cleanup keeps it.
sandbox_trap() {
	[ -z "$SANDBOX_TRAPPED" ] || return 0
	SANDBOX_TRAPPED=1
	trap sandbox_cleanup EXIT
	trap 'exit 130' INT TERM
}

# sandbox_cleanup [STATUS]: the EXIT trap.  Ends the daemons still running (startd first),
# removes the directories (unless SANDBOX_KEEP says otherwise) and exits with STATUS (default:
# the status the script is exiting with).  A caller with more to clean does that, then calls
# this with the status it saw.
sandbox_cleanup() {
	local rc=${1:-$?} d
	set +e
	sandbox_halt startd
	sandbox_halt configd
	for d in "${SANDBOX_DIRS[@]}"; do
		[ -d "$d" ] || continue
		if [ "$SANDBOX_KEEP" = always ] ||
			{ [ "$SANDBOX_KEEP" = failure ] && [ "$rc" -ne 0 ] && [ "$rc" -ne 77 ]; }; then
			echo "$SANDBOX_NAME: kept $d" >&2
		else
			rm -rf "$d"
		fi
	done
	exit "$rc"
}

# ---------------------------------------------------------------------------------------------
# Waiting

# sandbox_alive PID: PID runs (a zombie, exited but not reaped yet, does not).
sandbox_alive() {
	local st
	{ read -r st <"/proc/$1/stat"; } 2>/dev/null || return 1
	st=${st##*") "}
	[ "${st%% *}" != Z ]
}

sandbox_gone() { ! sandbox_alive "$1"; }

# sandbox_poll SECONDS PID CMD...: runs CMD until it succeeds (0), PID (unless "") has died (2)
# or SECONDS have passed (1).  The pause between tries starts at 10 ms and doubles up to 100 ms:
# most conditions hold within a few tries, and a long wait must not spend the CPU that the
# daemons it waits for need (a try is often a pipeline of three processes, and fork is dear on
# a virtual machine: at 10 ms, the polls of two tests took most of both cores).
# Its locals have names no caller uses, because CMD may be an eval that reads the caller's.
sandbox_poll() {
	local _sp_deadline=$((SECONDS + $1)) _sp_pid=$2 _sp_ms=10 _sp_pause
	shift 2
	until "$@"; do
		[ -z "$_sp_pid" ] || sandbox_alive "$_sp_pid" || return 2
		[ "$SECONDS" -lt "$_sp_deadline" ] || return 1
		printf -v _sp_pause '0.%03d' "$_sp_ms"
		sleep "$_sp_pause"
		_sp_ms=$((_sp_ms * 2 > 100 ? 100 : _sp_ms * 2))
	done
}

# wait_until CMD MESSAGE [SECONDS]: polls the shell command CMD (a string, evaluated afresh each
# time) until it succeeds; fails with MESSAGE after SECONDS (default READY_DEADLINE_S).  MESSAGE
# is expanded once more at the deadline: escape a $ in it (\$) to show the state then.  Both
# see the caller's variables, not its positional parameters: expand those in the call.
wait_until() {
	sandbox_poll "${3:-$READY_DEADLINE_S}" "" eval "$1" || eval "sandbox_fail \"$2\""
}

# sandbox_reap PID MESSAGE: waits until PID exits (failing with MESSAGE at the deadline) and
# reaps it; its exit status goes to SANDBOX_STATUS.
sandbox_reap() {
	sandbox_poll "$READY_DEADLINE_S" "" sandbox_gone "$1" || sandbox_fail "$2"
	SANDBOX_STATUS=0
	wait "$1" || SANDBOX_STATUS=$?
}

# ---------------------------------------------------------------------------------------------
# The daemons: NAME is configd or startd

sandbox_door_inode() { stat -c %i "$DOOR" 2>/dev/null || echo none; }

# The socket is there and is not the one whose inode is STALE.
sandbox_door_new() {
	[ -S "$DOOR" ] && { [ "$1" = none ] || [ "$(sandbox_door_inode)" != "$1" ]; }
}

# sandbox_start_configd [ARG...]: starts svc.configd --root ROOT ARG... and returns once it
# serves; fails if it dies first or the deadline passes.
sandbox_start_configd() {
	local stale
	# A socket left by a killed configd must not pass for the new one's.
	stale=$(sandbox_door_inode)
	"${SANDBOX_WRAP[@]}" "$SVC_CONFIGD" --root "$ROOT" "$@" >>"$CONFIGD_LOG" 2>&1 &
	CONFIGD_PID=$!
	sandbox_poll "$READY_DEADLINE_S" "$CONFIGD_PID" sandbox_door_new "$stale" || case $? in
	2) sandbox_fail "svc.configd (pid $CONFIGD_PID) exited before it was ready" ;;
	*) sandbox_fail "svc.configd did not create $DOOR within ${READY_DEADLINE_S}s" ;;
	esac
}

# startd writes "ready" once per start: the n-th start is ready at the n-th line.
sandbox_startd_ready() {
	local n
	n=$(grep -c 'ready$' "$STARTD_LOG" 2>/dev/null)
	[ "${n:-0}" -ge "$SANDBOX_STARTD_STARTS" ]
}

# sandbox_start_startd [ARG...]: starts svc.startd --root ROOT ARG... and returns once it is
# ready; fails if it dies first or the deadline passes.
sandbox_start_startd() {
	SANDBOX_STARTD_STARTS=$((SANDBOX_STARTD_STARTS + 1))
	"${SANDBOX_WRAP[@]}" "$SVC_STARTD" --root "$ROOT" "$@" >>"$STARTD_LOG" 2>&1 &
	STARTD_PID=$!
	sandbox_poll "$READY_DEADLINE_S" "$STARTD_PID" sandbox_startd_ready || case $? in
	2) sandbox_fail "svc.startd exited before it was ready" ;;
	*) sandbox_fail "svc.startd not ready within ${READY_DEADLINE_S}s" ;;
	esac
}

# sandbox_stop NAME: SIGTERM, then the daemon must exit with status 0 within the deadline: a
# crash or a sanitizer report at shutdown is a failure too.
sandbox_stop() {
	local var=${1^^}_PID
	local pid=${!var}
	[ -n "$pid" ] || return 0
	kill -TERM "$pid"
	sandbox_reap "$pid" "svc.$1 did not exit within ${READY_DEADLINE_S}s of SIGTERM"
	printf -v "$var" ''
	[ "$SANDBOX_STATUS" -eq 0 ] ||
		sandbox_fail "svc.$1 exited with status $SANDBOX_STATUS after SIGTERM (expected 0)"
}

# sandbox_kill NAME: SIGKILL (a crash: no chance to clean up), reaped.  The daemon must still
# be there to be killed.
sandbox_kill() {
	local var=${1^^}_PID
	local pid=${!var}
	kill -KILL "$pid"
	wait "$pid" 2>/dev/null || true
	printf -v "$var" ''
}

# sandbox_halt NAME: ends the daemon whatever its state, by SANDBOX_STOP_SIGNAL (TERM: KILL at
# the deadline); its exit status does not matter.
sandbox_halt() {
	local var=${1^^}_PID
	local pid=${!var}
	[ -n "$pid" ] || return 0
	if [ "$SANDBOX_STOP_SIGNAL" = TERM ] && kill -TERM "$pid" 2>/dev/null; then
		sandbox_poll "$READY_DEADLINE_S" "" sandbox_gone "$pid" ||
			kill -KILL "$pid" 2>/dev/null || true
	else
		kill -KILL "$pid" 2>/dev/null || true
	fi
	wait "$pid" 2>/dev/null || true
	printf -v "$var" ''
}
