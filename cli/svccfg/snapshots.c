/*
 * snapshots.c: listsnap and refresh.
 *
 * refresh makes the running snapshot match the current properties (configd moves the old
 * running snapshot to "previous"); a service's refresh refreshes each of its instances, since
 * only instances have snapshots.  As illumos' smf_refresh_instance(), it also asks the
 * restarter to refresh (restarter_actions/refresh), so svc.startd re-reads what changed:
 * configd sends no notification for a snapshot.
 */
#include <errno.h>

#include "cli-action.h"
#include "commands.h"
#include "strv.h"

int cmd_listsnap(svccfg_t *c, const token_t *args, size_t n)
{
	char **l = NULL;
	scf_handle_t *h;
	int r;

	if (n != 0)
		return command_syntax_error(c);
	if (!c->cur_inst) {
		svccfg_error(c, "Instance not selected.");
		return -EINVAL;
	}
	if ((r = svccfg_handle(c, &h)) < 0)
		return r;
	r = scf_snapshot_list(h, c->cur_inst, &l);
	if (r < 0)
		return svccfg_scf_error(c, r, c->cur_inst);
	STRV_FOREACH (s, l) {
		puts(*s);
	}
	scf_strv_free(l);
	return 0;
}

static int refresh_one(svccfg_t *c, scf_handle_t *h, const char *inst)
{
	int r = cli_refresh_instance(h, inst);

	if (r < 0)
		return svccfg_scf_error(c, r, inst);
	if (c->verbose)
		svccfg_warn(c, "Refreshed %s.", inst);
	return 0;
}

int cmd_refresh(svccfg_t *c, const token_t *args, size_t n)
{
	char **l = NULL;
	scf_handle_t *h;
	int r;

	if (n != 0)
		return command_syntax_error(c);
	if ((r = svccfg_need_entity(c)) < 0 || (r = svccfg_handle(c, &h)) < 0)
		return r;
	if (c->cur_inst)
		return refresh_one(c, h, c->cur_inst);
	r = scf_instance_list(h, c->cur_svc, &l);
	if (r < 0)
		return svccfg_scf_error(c, r, c->cur_svc);
	r = 0;
	STRV_FOREACH (s, l) {
		if ((r = refresh_one(c, h, *s)) < 0)
			break;
	}
	scf_strv_free(l);
	return r;
}
