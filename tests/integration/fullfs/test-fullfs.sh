#!/bin/bash
# A full volatile filesystem is survived (issue 18, item 5).  The non-persistent database
# (etc/svc/volatile/svc_nonpersist.db, where every restarter pg lives) sits on a 2 MiB tmpfs
# that is filled to the last block while the persistent one has room:
#   - svccfg import of 20 enabled instances fails within seconds (not at its deadline), naming
#     the full database; what it committed (the persistent database) stays;
#   - svcadm enable -s of one of them, and disable -s of an instance that was online before the
#     fill, fail with the same sentence, not "misconfigured" and not by waiting forever;
#   - once the space is freed, every instance gets its restarter pg and the enabled ones come
#     online, without anyone asking again: svc.startd retried its writes with backoff;
#   - startd's log has the episode in a few lines (it had 82, one per failed write).
# Prints the figures: time to the import's error, time to recovery.  Root only (a tmpfs mount);
# skips (77) otherwise, or when the mount is refused.
# usage: test-fullfs.sh PATH-OF-svc.startd PATH-OF-svcadm PATH-OF-svcs
source "$(dirname "$0")/../startd/lib-startd.sh"

SVC_STARTD=${1:-${SVC_STARTD:-}}
SVCADM=${2:-${SVCADM:-}}
SVCS=${3:-${SVCS:-}}
N=20
# The import's own deadline: the error must come well before it.
IMPORT_DEADLINE_S=30
ERROR_WITHIN_S=10
VOLATILE=""

[ "$(id -u)" -eq 0 ] || skip "not running as root: cannot mount a tmpfs"
need_var SVC_STARTD SVCCFG SVCPROP SVCADM SVCS

fullfs_cleanup() {
	local rc=$?
	set +e
	# The daemons hold files on the mount: they go first, then the mount, then the sandbox.
	sandbox_halt startd
	sandbox_halt configd
	if [ -n "$VOLATILE" ] && mountpoint -q "$VOLATILE"; then
		umount "$VOLATILE" || umount -l "$VOLATILE"
	fi
	(exit "$rc")
	startd_cleanup
}

sandbox_create
trap fullfs_cleanup EXIT
VOLATILE=$ROOT/etc/svc/volatile
mkdir -p "$VOLATILE"
mount -t tmpfs -o size=2m,mode=0755 tmpfs "$VOLATILE" 2>/dev/null || {
	VOLATILE=""
	skip "cannot mount a tmpfs on the sandbox's etc/svc/volatile"
}
configd_start
startd_start
unset SVCCFG_IMPORT_NOWAIT SMF_DELAY SVCADM_WAIT_RESTARTER

source "$(dirname "$0")/../../manifests.sh"
ms_now() { echo $(($(date +%s%N) / 1000000)); }
secs() { printf '%d.%03d' $(($1 / 1000)) $(($1 % 1000)); }

NP_DB=$VOLATILE/svc_nonpersist.db
# The sentence of libscf's smf_restarter_store_check(), for instance $1 (an ERE).
full_re() {
	printf '%s' "svc\\.startd cannot write the \"restarter\" property group of $1.*: the non-persistent repository $NP_DB is full \\(database or disk is full\\)"
}

# An instance online before the fill, to be disabled while the store is full.
transient_manifest test/pre pre >"$ROOT/pre.xml"
ok "$SVCCFG" import "$ROOT/pre.xml"
ok "$SVCADM" enable -s svc:/test/pre:default

# Every block of the volatile filesystem taken (dd stops at ENOSPC).
dd if=/dev/zero of="$VOLATILE/fill" bs=4k >/dev/null 2>&1 || true
avail=$(df --output=avail -k "$VOLATILE" | tail -n 1 | tr -d ' ')
[ "$avail" -eq 0 ] || fail "the volatile filesystem still has ${avail} KiB free after the fill"
log "$VOLATILE is full; the persistent database's filesystem has room"

# 1. The import: commits, then fails quickly naming the full database.
burst_manifest fullfs 1 "$N" 1 >"$ROOT/burst.xml"
t0=$(ms_now)
SVCCFG_IMPORT_TIMEOUT=$IMPORT_DEADLINE_S run "$SVCCFG" import "$ROOT/burst.xml"
t_error=$(($(ms_now) - t0))
[ "$RC" -ne 0 ] || fail "import succeeded with the volatile filesystem full:
$(describe_run svccfg import)"
assert_match "^svccfg: $(full_re 'svc:/fullfs/s0:i0')" "$ERR" "import's error"
assert_no_match "Timed out" "$ERR" "import's error"
[ "$t_error" -lt $((ERROR_WITHIN_S * 1000)) ] ||
	fail "import took $(secs "$t_error") s to fail (bound ${ERROR_WITHIN_S} s, deadline ${IMPORT_DEADLINE_S} s)"

# 2. What the import committed (the persistent database) is there, for every instance.
for ((i = 0; i < N; i++)); do
	I=svc:/fullfs/s0:i$i
	ok "$SVCPROP" -p general/enabled "$I"
	assert_eq true "$OUT" "$I general/enabled"
	ok "$SVCPROP" -p start/exec "$I"
	assert_eq ':true' "$OUT" "$I start/exec"
done

# 3. svcadm -s: the same sentence, exit 1, not "misconfigured" and not a hang.
run timeout 30 "$SVCADM" enable -s svc:/fullfs/s0:i0
[ "$RC" -ne 124 ] || fail "svcadm enable -s hung with the volatile filesystem full"
assert_rc 1 "svcadm enable -s with the volatile filesystem full"
assert_match "^svcadm: $(full_re 'svc:/fullfs/s0:i0')" "$ERR" "svcadm enable -s"
assert_no_match "misconfigured" "$ERR" "svcadm enable -s"
run timeout 30 "$SVCADM" disable -s svc:/test/pre:default
[ "$RC" -ne 124 ] || fail "svcadm disable -s hung with the volatile filesystem full"
assert_rc 1 "svcadm disable -s with the volatile filesystem full"
assert_match "^svcadm: $(full_re 'svc:/test/pre:default')" "$ERR" "svcadm disable -s"

# 4. Space comes back: startd's retries get every pg written, and the enabled ones online,
# with no command run again.
rm -f "$VOLATILE/fill"
t0=$(ms_now)
# One svcs for all of them: a poll costs one process, not 2N (svcprop each) under the sanitizers.
all_online() {
	[ "$("$SVCS" -H -o state,nstate 'svc:/fullfs/s0:*' 2>/dev/null | squeeze |
		grep -cx 'online -')" -eq "$N" ]
}
# The states of the instances, counted ("20 online").
states() { "$SVCS" -H -o state 'svc:/fullfs/s0:*' 2>&1 | sort | uniq -c | tr -s ' \n' ' '; }
wait_until all_online "not every instance online 30 s after the space was freed: \$(states)" 30
t_recovery=$(($(ms_now) - t0))
wait_state svc:/test/pre:default disabled

# 5. The episode in startd's log: one line when it began (at most one more a minute), one
# when it ended; not a line per failed write.
n_fail=$(grep -c "cannot store the restarter's writes" "$STARTD_LOG" || true)
n_full=$(grep -c "database or disk is full" "$STARTD_LOG" || true)
n_ok=$(grep -c "stores the restarter's writes again" "$STARTD_LOG" || true)
[ "$n_fail" -ge 1 ] && [ "$n_fail" -le 3 ] ||
	fail "startd logged the failing store $n_fail times (expected 1 to 3)"
[ "$n_full" -le 3 ] || fail "startd logged 'database or disk is full' $n_full times (expected at most 3)"
[ "$n_ok" -ge 1 ] || fail "startd did not log that the store takes its writes again"

log "figures: import failed after $(secs "$t_error") s (deadline ${IMPORT_DEADLINE_S} s); all $N instances online $(secs "$t_recovery") s after the space was freed; startd logged the episode in $n_fail + $n_ok lines"

startd_stop
configd_stop
