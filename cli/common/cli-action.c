/* cli-action.c: restarter_actions requests (see cli-action.h). */
#include <inttypes.h>
#include <stdio.h>

#include "cli-action.h"
#include "restarter.h"
#include "timeutil.h"

typedef struct action {
	const char *name;
	char value[32];
} action_t;

/* As illumos: a newer timestamp already there is left alone (the request is pending). */
static int tx_set_action(scf_tx_t *tx, void *userdata)
{
	action_t *a = userdata;
	const scf_property_t *p = scf_pg_property(scf_tx_pg(tx), a->name);
	uint64_t now = now_monotonic_nsec();
	const char *v = a->value;
	int64_t t;

	if (p && scf_property_get_integer(p, &t) >= 0 && t > 0 && (uint64_t)t > now)
		return 0;
	snprintf(a->value, sizeof(a->value), "%" PRIu64, now);
	return scf_tx_set(tx, a->name, SCF_TYPE_INTEGER, &v, 1);
}

int cli_request_action(scf_handle_t *h, const char *fmri, const char *action)
{
	action_t a = {.name = action};
	int r;

	r = scf_pg_add(
	        h, fmri, SCF_PG_RESTARTER_ACTIONS, SCF_GROUP_FRAMEWORK, SCF_PG_FLAG_NONPERSISTENT);
	if (r < 0 && r != -SCF_ERROR_EXISTS)
		return r;
	r = scf_tx_run(h, fmri, SCF_PG_RESTARTER_ACTIONS, tx_set_action, &a, 0);
	return r < 0 ? r : 0;
}

int cli_refresh_instance(scf_handle_t *h, const char *fmri)
{
	int r = scf_instance_refresh(h, fmri);

	return r < 0 ? r : cli_request_action(h, fmri, RESTARTER_ACTION_REFRESH);
}
