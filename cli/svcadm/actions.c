/*
 * actions.c: svcadm's writes.  enable/disable write general/enabled (then delete
 * general_ovr/enabled, in that order so the effective value never glitches) or, temporarily,
 * general_ovr/enabled; the other requests are restarter_actions timestamps (cli-action.h).
 * Every failure is reported here, once, and recorded in the exit status.
 *
 * A temporary enable or disable first gives an instance that has none a general pg with
 * enabled=false, as illumos' svcadm does: svc.startd takes an instance into its graph only
 * once it has general/enabled, so without it "svccfg add X:i; svcadm enable -t X:i" would
 * never start anything.
 */
#include <assert.h>
#include <stdio.h>

#include "cli-action.h"
#include "cli-error.h"
#include "svcadm.h"

void action_write_failed(const char *fmri, const char *what, int r)
{
	assert(r < 0);
	if (cli_scf_is_fatal(r))
		svcadm_die(r);
	if (r == -SCF_ERROR_PERMISSION_DENIED) {
		if (svcadm.verbose)
			svcadm_warn(
			        "%s: Couldn't modify \"%s\" property group (permission denied).",
			        fmri, what);
		else
			svcadm_warn("%s: Permission denied.", fmri);
	} else if (r == -SCF_ERROR_BACKEND_READONLY)
		svcadm_warn("%s: Repository read-only.", fmri);
	else
		svcadm_warn(
		        "%s: Couldn't modify \"%s\": %s.", fmri, what, cli_scf_reason(svcadm.h, r));
	svcadm_fail(EXIT_FATAL);
}

int tx_delete_if_present(scf_tx_t *tx, void *userdata)
{
	const char *prop = userdata;

	if (!scf_pg_property(scf_tx_pg(tx), prop))
		return 0;
	return scf_tx_delete(tx, prop);
}

static int tx_set_enabled(scf_tx_t *tx, void *userdata)
{
	const char *v = *(bool *)userdata ? "true" : "false";
	const char *comment = svcadm.comment ? svcadm.comment : "";
	int r = scf_tx_set(tx, SCF_PROPERTY_ENABLED, SCF_TYPE_BOOLEAN, &v, 1);

	/* As illumos 12721: the comment (disable -c, else "") in the same transaction. */
	return r < 0 ? r : scf_tx_set(tx, SCF_PROPERTY_COMMENT, SCF_TYPE_ASTRING, &comment, 1);
}

/* A persistent enable or disable drops the override and its comment. */
static int tx_delete_override(scf_tx_t *tx, void *userdata)
{
	int r = tx_delete_if_present(tx, (void *)SCF_PROPERTY_ENABLED);

	(void)userdata;
	return r < 0 ? r : tx_delete_if_present(tx, (void *)SCF_PROPERTY_COMMENT);
}

static int pg_get_or_add(const char *fmri, const char *pg, uint32_t flags)
{
	int r = scf_pg_add(svcadm.h, fmri, pg, SCF_GROUP_FRAMEWORK, flags);

	return r == -SCF_ERROR_EXISTS ? 0 : r;
}

/* An scf_tx_fn: general/enabled = false, unless the pg has an enabled property already. */
static int tx_default_disabled(scf_tx_t *tx, void *userdata)
{
	bool no = false;

	(void)userdata;
	if (scf_pg_property(scf_tx_pg(tx), SCF_PROPERTY_ENABLED))
		return 0;
	return tx_set_enabled(tx, &no);
}

int action_set_enabled(const char *fmri, bool temp, bool enable)
{
	const char *pg = temp ? SCF_PG_GENERAL_OVR : SCF_PG_GENERAL;
	int r = 0;

	if (temp) {
		r = pg_get_or_add(fmri, SCF_PG_GENERAL, 0);
		if (r >= 0)
			r = scf_tx_run(
			        svcadm.h, fmri, SCF_PG_GENERAL, tx_default_disabled, NULL, 0);
		if (r < 0) {
			action_write_failed(fmri, SCF_PG_GENERAL, r);
			return r;
		}
	}
	r = pg_get_or_add(fmri, pg, temp ? SCF_PG_FLAG_NONPERSISTENT : 0);
	if (r >= 0)
		r = scf_tx_run(svcadm.h, fmri, pg, tx_set_enabled, &enable, 0);
	if (r < 0) {
		action_write_failed(fmri, pg, r);
		return r;
	}
	if (!temp) {
		r = scf_tx_run(svcadm.h, fmri, SCF_PG_GENERAL_OVR, tx_delete_override, NULL, 0);
		if (r < 0 && r != -SCF_ERROR_NOT_FOUND) {
			action_write_failed(fmri, SCF_PG_GENERAL_OVR, r);
			return r;
		}
	}
	if (svcadm.verbose)
		printf("%s %s%s.\n", fmri, temp ? "temporarily " : "",
		        enable ? "enabled" : "disabled");
	return 0;
}

int action_request(const char *fmri, const char *action)
{
	int r = cli_request_action(svcadm.h, fmri, action);

	if (r < 0) {
		action_write_failed(fmri, SCF_PG_RESTARTER_ACTIONS, r);
		return r;
	}
	if (svcadm.verbose)
		printf("Action %s set for %s.\n", action, fmri);
	return 0;
}

int action_refresh(const char *fmri)
{
	int r = scf_instance_refresh(svcadm.h, fmri);

	if (r < 0) {
		action_write_failed(fmri, "running snapshot", r);
		return r;
	}
	return action_request(fmri, RESTARTER_ACTION_REFRESH);
}
