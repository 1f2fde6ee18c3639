/*
 * snapshots.c: listsnap, refresh, selectsnap and revert.
 *
 * refresh makes the running snapshot match the current properties (configd moves the old
 * running snapshot to "previous"); a service's refresh refreshes each of its instances, since
 * only instances have snapshots.  As illumos' smf_refresh_instance(), it also asks the
 * restarter to refresh (restarter_actions/refresh), so svc.startd re-reads what changed:
 * configd sends no notification for a snapshot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cli-action.h"
#include "commands.h"
#include "strv.h"

/* listsnap, selectsnap and revert want an instance: "Instance not selected." (-EINVAL) else. */
static int need_instance(svccfg_t *c)
{
	if (c->cur_inst)
		return 0;
	svccfg_error(c, "Instance not selected.");
	return -EINVAL;
}

int cmd_listsnap(svccfg_t *c, const token_t *args, size_t n)
{
	char **l = NULL;
	scf_handle_t *h;
	int r;

	if (n != 0)
		return command_syntax_error(c);
	if ((r = need_instance(c)) < 0)
		return r;
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

/* selectsnap [NAME]: reads go to the instance's snapshot NAME; without NAME, back to current. */
int cmd_selectsnap(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_strv_free_ char **l = NULL;
	const char *name;
	scf_handle_t *h;
	char *copy;
	int r;

	if (args_optional_word(args, n, &name) < 0)
		return command_syntax_error(c);
	if ((r = need_instance(c)) < 0)
		return r;
	if (!name) {
		free(c->cur_snap);
		c->cur_snap = NULL;
		return 0;
	}
	if (scf_name_validate(name) < 0) {
		svccfg_error(c, "Invalid name \"%s\".", name);
		return -EINVAL;
	}
	if ((r = svccfg_handle(c, &h)) < 0)
		return r;
	r = scf_snapshot_list(h, c->cur_inst, &l);
	if (r < 0)
		return svccfg_scf_error(c, r, c->cur_inst);
	if (!strv_contains(l, name)) {
		svccfg_error(c, "No such snapshot \"%s\".", name);
		return -SCF_ERROR_NOT_FOUND;
	}
	if (!(copy = strdup(name)))
		return svccfg_oom(c);
	free(c->cur_snap);
	c->cur_snap = copy;
	return 0;
}

/* ---- revert ------------------------------------------------------------------------------ */

typedef struct revert {
	scf_handle_t *h;
	scf_batch_t *b;
	const char *inst, *svc, *snap;
} revert_t;

static bool info_has(const scf_pg_info_t *v, size_t n, const char *name)
{
	for (size_t k = 0; k < n; k++)
		if (streq(v[k].name, name))
			return true;
	return false;
}

/* Copies the snapshot's pg name (read with flags) onto entity `to`, whole. */
static int revert_copy_pg(revert_t *rv, const char *name, unsigned flags, const char *to)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	int r;

	r = scf_pg_get(rv->h, rv->inst, name, rv->snap, flags, &pg);
	if (r < 0)
		return r;
	r = scf_batch_pg_ensure(rv->b, to, name, pg->type, 0);
	for (size_t i = 0; r >= 0 && i < pg->n_props; i++) {
		const scf_property_t *p = &pg->props[i];

		r = scf_batch_prop_set(rv->b, to, name, p->name, p->type,
		        (const char *const *)p->values, p->n_values);
	}
	return r;
}

/* Deletes the entity's persistent pgs for which keep() says no. */
static int revert_delete(revert_t *rv, const char *entity, const scf_pg_info_t *keep, size_t nk)
{
	scf_pg_info_t *cur = NULL;
	size_t n = 0;
	int r;

	r = scf_pg_list(rv->h, entity, NULL, 0, &cur, &n);
	for (size_t k = 0; r >= 0 && k < n; k++)
		if (!(cur[k].flags & SCF_PG_FLAG_NONPERSISTENT) && !info_has(keep, nk, cur[k].name))
			r = scf_batch_pg_delete(rv->b, entity, cur[k].name);
	scf_pg_info_free(cur, n);
	return r;
}

/*
 * As illumos' lscf_revert(): "previous" takes the current state, then each level of the
 * snapshot replaces the persistent pgs of its entity, and general/enabled keeps its current
 * value.  One batch, so a revert lands whole or not at all.
 *
 * The protocol reads a snapshot's instance level alone, and its service level only through
 * the composed view; so a pg the snapshot holds at both levels is restored at the instance
 * level, and the service's pg of that name is left as it is (docs/compat.md).
 */
static int revert_build(revert_t *rv)
{
	_cleanup_(scf_property_freep) scf_property_t *enabled = NULL;
	scf_pg_info_t *ilev = NULL, *all = NULL;
	size_t ni = 0, na = 0;
	int r;

	(void)scf_property_read(rv->h, rv->inst, SCF_PG_GENERAL, SCF_PROPERTY_ENABLED, &enabled);
	if ((r = scf_pg_list(rv->h, rv->inst, rv->snap, 0, &ilev, &ni)) < 0 ||
	        (r = scf_pg_list(rv->h, rv->inst, rv->snap, SCF_READ_COMPOSED, &all, &na)) < 0)
		goto out;
	r = scf_batch_snapshot_take(rv->b, rv->inst, SCF_SNAPSHOT_PREVIOUS);
	/* Service level: what only the service holds in the snapshot; the shared names stay. */
	if (r >= 0)
		r = revert_delete(rv, rv->svc, ilev, ni);
	for (size_t k = 0; r >= 0 && k < na; k++)
		if (!info_has(ilev, ni, all[k].name))
			r = revert_copy_pg(rv, all[k].name, SCF_READ_COMPOSED, rv->svc);
	/* Instance level: exactly the snapshot's. */
	if (r >= 0)
		r = revert_delete(rv, rv->inst, NULL, 0);
	for (size_t k = 0; r >= 0 && k < ni; k++)
		r = revert_copy_pg(rv, ilev[k].name, 0, rv->inst);
	if (r >= 0 && enabled) {
		r = scf_batch_pg_ensure(rv->b, rv->inst, SCF_PG_GENERAL, SCF_GROUP_FRAMEWORK, 0);
		if (r >= 0)
			r = scf_batch_prop_set(rv->b, rv->inst, SCF_PG_GENERAL,
			        SCF_PROPERTY_ENABLED, enabled->type,
			        (const char *const *)enabled->values, enabled->n_values);
	}
out:
	scf_pg_info_free(ilev, ni);
	scf_pg_info_free(all, na);
	return r;
}

/* revert [NAME]: the selected instance (and its service) back to a snapshot. */
int cmd_revert(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_(scf_batch_freep) scf_batch_t *b = NULL;
	_cleanup_strv_free_ char **l = NULL;
	revert_t rv = {0};
	const char *name;
	int r;

	if (args_optional_word(args, n, &name) < 0)
		return command_syntax_error(c);
	if ((r = need_instance(c)) < 0)
		return r;
	if (!name && !c->cur_snap) {
		svccfg_error(c, "No snapshot selected.");
		return -EINVAL;
	}
	if (name && scf_name_validate(name) < 0) {
		svccfg_error(c, "Invalid snapshot name \"%s\".", name);
		return -EINVAL;
	}
	rv = (revert_t){.inst = c->cur_inst, .svc = c->cur_svc, .snap = name ? name : c->cur_snap};
	if ((r = svccfg_handle(c, &rv.h)) < 0)
		return r;
	if ((r = scf_snapshot_list(rv.h, rv.inst, &l)) < 0)
		return svccfg_scf_error(c, r, rv.inst);
	if (!strv_contains(l, rv.snap)) {
		svccfg_error(c, "No such snapshot.");
		return -SCF_ERROR_NOT_FOUND;
	}
	if ((r = scf_batch_new(rv.h, &b)) < 0)
		return svccfg_scf_error(c, r, rv.inst);
	rv.b = b;
	r = revert_build(&rv);
	if (r >= 0)
		r = scf_batch_commit(b);
	if (r < 0)
		return svccfg_scf_error(c, r, rv.inst);
	/* As illumos: a revert to the selected snapshot leaves it. */
	if (!name) {
		free(c->cur_snap);
		c->cur_snap = NULL;
	}
	return 0;
}
