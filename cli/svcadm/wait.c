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
 * order.  There is no deadline.
 */
#include <assert.h>

#include "strv.h"
#include "svcadm.h"
#include "timeutil.h"

/* How often a waiting -s re-checks dependencies even without a notification (illumos: 3 s). */
#define WAIT_INTERVAL_USEC (3 * USEC_PER_SEC)

/* The scf_restarter_pred_t: 1 done (or given up, reported), 0 keep waiting, < 0 error. */
static int reached(scf_handle_t *h, const char *fmri, void *userdata)
{
	bool enable = *(const bool *)userdata;
	restarter_instance_state_t s;
	int r;

	(void)h;
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
	return 0;
}

void wait_for_states(char **fmris, bool enable)
{
	STRV_FOREACH (f, fmris) {
		const char *one = *f;
		int r = scf_restarter_wait(svcadm.h, &one, 1, reached, &enable, USEC_INFINITY,
		        WAIT_INTERVAL_USEC, NULL);

		if (r < 0)
			svcadm_die(r);
		assert(r == 0); /* no deadline */
	}
}
