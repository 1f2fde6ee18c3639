/*
 * wait.c: enable -s and disable -s, waiting until each instance gets where it was sent.
 *
 * One question per instance, asked by libscf's scf_restarter_wait() after every restarter
 * notification (the registration came before svcadm's writes, in commands.c) and at least
 * every 3 s, as illumos re-checks: a dependency's state lives in other instances, a file
 * dependency sends no notification at all.  The answer is "done" when the instance is there
 * (up for enable, disabled for disable) and also when it never will be: it is in maintenance,
 * someone else flipped its enabled value, or nothing can bring it there (dependencies, no
 * restarter); each of those is reported and recorded in the exit status.  Instances are waited
 * for one after the other, in operand order, as illumos does, so the messages come in that
 * order.  There is no deadline.  But a wait does not go on in silence while startd cannot record
 * states: an instance without a restarter pg because configd's non-persistent store refuses
 * startd's writes (state_read()), or whose state has not moved for a second while it does
 * (stalled()), ends the command with libscf's sentence naming the store (a full filesystem),
 * exit 1, as any repository failure does.
 *
 * svcadm-wait (SVCADM_WAIT_RESTARTER=1; off by default, as illumos fails at once): before
 * those questions, wait for the restarter pg of every instance to appear, with libscf's
 * scf_instance_wait_restarter() (the wait svccfg import and add use, with their exceptions and
 * deadline, SVCCFG_IMPORT_TIMEOUT or 60 s).  An instance whose restarter has not taken it up
 * yet is then waited for instead of called misconfigured.  When no restarter is attached, or
 * early manifest import is pending, or the deadline passes, nothing more is done here and the
 * questions below answer as without the variable: "misconfigured", exit 3.  Traced as
 * svcadm.wait_restarter_begin (when the wait really happens) and svcadm.wait_restarter_done.
 */
#include <assert.h>
#include <stdlib.h>

#include "probe.h"
#include "restarter-wait.h"
#include "strv.h"
#include "svcadm.h"
#include "timeutil.h"

/* How often a waiting -s re-checks dependencies even without a notification (illumos: 3 s). */
#define WAIT_INTERVAL_USEC (3 * USEC_PER_SEC)

/* What reached() waits for, and what it saw of the instance so far. */
typedef struct want {
	bool enable;
	bool seen;                       /* a state was read */
	restarter_instance_state_t last; /* the last one read */
	uint64_t since;                  /* when it was first read (monotonic usec) */
} want_t;

/*
 * The instance is still not where it was sent: if its state has not moved for
 * SMF_WAIT_STORE_CHECK_USEC, startd may be unable to record the next one (a full
 * non-persistent store): < 0, libscf's sentence in h's errmsg, ends the wait then.
 */
static int stalled(scf_handle_t *h, const char *fmri, want_t *w, restarter_instance_state_t s)
{
	uint64_t now = now_monotonic_usec();

	if (!w->seen || w->last != s) {
		w->seen = true;
		w->last = s;
		w->since = now;
		return 0;
	}
	if (now - w->since < SMF_WAIT_STORE_CHECK_USEC)
		return 0;
	return smf_restarter_store_check(h, fmri, 0);
}

/* The scf_restarter_pred_t: 1 done (or given up, reported), 0 keep waiting, < 0 error. */
static int reached(scf_handle_t *h, const char *fmri, void *userdata)
{
	want_t *w = userdata;
	bool enable = w->enable;
	restarter_instance_state_t s;
	int r;

	r = state_read(fmri, &s);
	if (r < 0)
		return r;
	if (r == 0) { /* misconfigured, reported */
		svcadm_fail(EXIT_SVC_FAILURE);
		return 1;
	}
	if (enable ? restarter_state_is_up(s) : s == RESTARTER_STATE_DISABLED)
		return 1;
	if (s == RESTARTER_STATE_MAINT) {
		svcadm_warn("Instance \"%s\" is in maintenance state.", fmri);
		svcadm_fail(EXIT_SVC_FAILURE);
		return 1;
	}
	if (state_is_enabled(fmri) != enable) {
		svcadm_warn("Instance \"%s\" has been %s by another entity.", fmri,
		        enable ? "disabled" : "enabled");
		svcadm_fail(EXIT_SVC_FAILURE);
		return 1;
	}
	if (!deps_have_potential(fmri, !enable)) {
		if (enable)
			svcadm_warn("Instance \"%s\" has unsatisfied dependencies.", fmri);
		else
			svcadm_warn("Restarter for instance \"%s\" is unavailable.", fmri);
		svcadm_fail(EXIT_DEP_FAILURE);
		return 1;
	}
	return stalled(h, fmri, w, s);
}

/* smf_wait_begin_fn: the restarter-pg wait really happens. */
static void trace_begin(size_t n, void *userdata)
{
	char buf[32];

	(void)userdata;
	snprintf(buf, sizeof(buf), "%zu", n);
	SMF_PROBE(wait_restarter_begin, SMF_TRACE_SVCADM_WAIT_RESTARTER_BEGIN, 0, buf);
}

/* svcadm-wait: until each instance has a restarter pg, within the deadline; see the top. */
static void wait_for_restarter_pgs(char **fmris)
{
	const char *how;
	int r;

	r = smf_instance_wait_restarter(svcadm.h, (const char *const *)fmris, strv_length(fmris), 0,
	        NULL, NULL, trace_begin, NULL);
	switch (r) {
	case SCF_WAIT_RESTARTER_DONE:
		how = "ok";
		break;
	case SCF_WAIT_RESTARTER_NO_RESTARTER:
		how = "skipped: no restarter attached";
		break;
	case SCF_WAIT_RESTARTER_EMI_PENDING:
		how = "skipped: early-manifest-import pending";
		break;
	case -SCF_ERROR_TIMEOUT:
		how = "timeout";
		break;
	default:
		SMF_PROBE(wait_restarter_done, SMF_TRACE_SVCADM_WAIT_RESTARTER_DONE, 0, "error");
		svcadm_die(r);
	}
	SMF_PROBE(wait_restarter_done, SMF_TRACE_SVCADM_WAIT_RESTARTER_DONE, 0, how);
}

void wait_for_states(char **fmris, bool enable)
{
	const char *e = getenv("SVCADM_WAIT_RESTARTER");

	if (e && streq(e, "1"))
		wait_for_restarter_pgs(fmris);
	STRV_FOREACH (f, fmris) {
		const char *one = *f;
		want_t w = {.enable = enable};
		int r = scf_restarter_wait(
		        svcadm.h, &one, 1, reached, &w, USEC_INFINITY, WAIT_INTERVAL_USEC, NULL);

		if (r < 0)
			svcadm_die(r);
		assert(r == 0); /* no deadline */
	}
}
