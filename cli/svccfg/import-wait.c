/*
 * import-wait.c: svccfg's restarter waits, the fix for the race between creating an instance
 * and the restarter taking it up: after import (import-wait) and after add of an instance
 * (add-wait).
 *
 * THE MODEL.  configd commits a new instance; svc.startd learns of it by a notification and,
 * later, writes its restarter pg (the graph at first sight for an instance without general,
 * the instance's worker for one with it).  Until then the instance looks "misconfigured" to
 * svcadm.  So import, after committing and refreshing every manifest, and add, after creating
 * an instance, wait until each instance they created has a restarter pg with a state property.
 * The wait is libscf's (lib/client/wait.c, smf_instance_wait_restarter(), public as
 * scf_instance_wait_restarter()): interest in pgs named "restarter" first, then one read per
 * instance, then notifications until the deadline.  It never polls.  What stays here is
 * svccfg's: the switches, the deadline's options, the trace and the words.
 *
 * It does not wait (and says so in one line) when nobody would ever write the pg: no restarter
 * is attached (configd --native, startd down), or svc:/system/early-manifest-import:default
 * exists and is neither online nor disabled (startd is still running EMI, which is likely us,
 * and handles no notification until it ends).  Not at all, silently, with SVCCFG_IMPORT_NOWAIT=1
 * (import) or SVCCFG_ADD_NOWAIT=1 (add): the old behaviour, for the race harness; nor with
 * import -n (import.c does not call us then).
 *
 * Traced (docs/trace-format.md): import.wait_begin / add.wait_begin with the number of
 * instances once the interest is registered (only when the wait really happens), and
 * import.wait_done / add.wait_done ("ok", "timeout", "error", or "skipped: <why>" whenever the
 * wait is not done at all) once it ends, so a trace tells a command that waited from one that
 * did not.
 *
 * INVARIANTS.  The notification interest is dropped (scf_notify_reset) before returning, so a
 * later command of the same svccfg session does not pile up notifications.  The deadline is
 * bounded (default 60 s, import's --timeout, SVCCFG_IMPORT_TIMEOUT for both); reaching it is an
 * error that names every instance still without a state (instances deleted meanwhile are not
 * waited for).  So is a wait that stalls while configd's non-persistent store refuses startd's
 * writes (a full filesystem): libscf ends it within about a second with a sentence that names
 * the database, which is printed as it is.
 */
#include <assert.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import-wait.h"
#include "probe.h"
#include "restarter-wait.h"
#include "strv.h"
#include "timeutil.h"

/* What differs between the two waits: the switch, the trace events, the subject of errors. */
typedef struct wait_kind {
	const char *nowait_env;
	uint16_t begin_event, done_event;
	const char *subject;
} wait_kind_t;

static const wait_kind_t import_kind = {
        "SVCCFG_IMPORT_NOWAIT", SMF_TRACE_IMPORT_WAIT_BEGIN, SMF_TRACE_IMPORT_WAIT_DONE, "import"};
static const wait_kind_t add_kind = {
        "SVCCFG_ADD_NOWAIT", SMF_TRACE_ADD_WAIT_BEGIN, SMF_TRACE_ADD_WAIT_DONE, "add"};

int import_wait_parse_timeout(const char *s, uint64_t *ret)
{
	return parse_seconds_usec(s, ret);
}

int import_wait_default_timeout(svccfg_t *c, uint64_t *ret)
{
	if (smf_wait_restarter_default_timeout(ret) < 0) {
		svccfg_error(c, "%s: \"%s\" is not a number of seconds.",
		        SCF_WAIT_RESTARTER_TIMEOUT_ENV, getenv(SCF_WAIT_RESTARTER_TIMEOUT_ENV));
		return -EINVAL;
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The instances, sorted, each once (two manifests may name one), in a new strv. */
static char **distinct(char *const *instances)
{
	char **l = strv_copy(instances);
	size_t n = strv_length(l), k = 0;

	if (!l)
		return NULL;
	qsort(l, n, sizeof(char *), cmp_str);
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && streq(l[i], l[k - 1]))
			free(l[i]);
		else
			l[k++] = l[i];
	}
	l[k] = NULL;
	return l;
}

static void trace_done(const wait_kind_t *k, const char *how)
{
	SMF_PROBE(wait_done, k->done_event, 0, how);
}

static void trace_skipped(const wait_kind_t *k, const char *why)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "skipped: %s", why);
	trace_done(k, buf);
}

void import_wait_skipped(const char *why)
{
	trace_skipped(&import_kind, why);
}

/* smf_wait_begin_fn: the wait really happens. */
static void trace_begin(size_t n, void *userdata)
{
	const wait_kind_t *k = userdata;
	char buf[32];

	snprintf(buf, sizeof(buf), "%zu", n);
	SMF_PROBE(wait_begin, k->begin_event, 0, buf);
}

/* Once per process: a command file importing 100 manifests would say it 100 times. */
static void say_no_restarter(svccfg_t *c, char *const *l)
{
	static bool said;

	if (said)
		return;
	said = true;
	svccfg_warn(c,
	        "No restarter is attached to the repository; not waiting for it to take up "
	        "%s%s.",
	        l[0], l[1] ? " and the other instances" : "");
}

static void say_emi(svccfg_t *c, char *const *l, const char *emi)
{
	size_t n = strv_length(l);

	if (n > 1)
		svccfg_warn(c,
		        "Not validating instance %s (and %zu more) because EMI's state is %s.",
		        l[0], n - 1, emi);
	else
		svccfg_warn(c, "Not validating instance %s because EMI's state is %s.", l[0], emi);
}

static int wait_restarter(svccfg_t *c, scf_handle_t *h, char *const *instances,
        uint64_t timeout_usec, const wait_kind_t *k)
{
	const char *nowait = getenv(k->nowait_env);
	_cleanup_strv_free_ char **l = NULL;
	_cleanup_free_ char *detail = NULL, *why = NULL;
	int r, q;

	if (!instances || !instances[0]) {
		trace_skipped(k, "no instances");
		return 0;
	}
	if (nowait && streq(nowait, "1")) {
		trace_skipped(k, k->nowait_env);
		return 0;
	}
	l = distinct(instances);
	if (!l) {
		trace_done(k, "error");
		return svccfg_scf_error(c, -SCF_ERROR_NO_MEMORY, k->subject);
	}
	r = smf_instance_wait_restarter(h, (const char *const *)l, strv_length(l), timeout_usec,
	        NULL, &detail, trace_begin, (void *)k);
	/* The wait's sentence, before the reset below clears the handle's. */
	if (r == -SCF_ERROR_BACKEND_ACCESS && !(why = strdup(scf_handle_errmsg(h)))) {
		trace_done(k, "error");
		return svccfg_scf_error(c, -SCF_ERROR_NO_MEMORY, k->subject);
	}
	/* The interest is ours alone (svccfg registers no other): drop it, and what it queued. */
	q = scf_notify_reset(h);
	if (r >= 0 && q < 0)
		r = q;
	switch (r) {
	case SCF_WAIT_RESTARTER_DONE:
		trace_done(k, "ok");
		return 0;
	case SCF_WAIT_RESTARTER_NO_RESTARTER:
		trace_skipped(k, "no restarter attached");
		say_no_restarter(c, l);
		return 0;
	case SCF_WAIT_RESTARTER_EMI_PENDING:
		trace_skipped(k, "early-manifest-import pending");
		say_emi(c, l, detail);
		return 0;
	case -SCF_ERROR_BACKEND_ACCESS:
		/* libscf's sentence names the instance, the full database and why: it is ours. */
		trace_done(k, "store failing");
		svccfg_error(c, "%s.", why);
		return r;
	case -SCF_ERROR_TIMEOUT:
		/* No instance named: a call of the wait's own timed out (configd did not answer). */
		if (!detail) {
			trace_done(k, "error");
			return svccfg_scf_error(c, r, k->subject);
		}
		trace_done(k, "timeout");
		svccfg_error(c,
		        "Timed out after %.3g s waiting for the restarter to take up %s (no "
		        "\"restarter\" property group with a state).",
		        (double)timeout_usec / (double)USEC_PER_SEC, detail);
		return -ETIMEDOUT;
	default:
		assert(r < 0);
		trace_done(k, "error");
		return svccfg_scf_error(c, r, k->subject);
	}
}

int import_wait(svccfg_t *c, scf_handle_t *h, char *const *instances, uint64_t timeout_usec)
{
	return wait_restarter(c, h, instances, timeout_usec, &import_kind);
}

int add_wait(svccfg_t *c, scf_handle_t *h, const char *instance, uint64_t timeout_usec)
{
	char *const one[] = {(char *)instance, NULL};

	return wait_restarter(c, h, one, timeout_usec, &add_kind);
}
