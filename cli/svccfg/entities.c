/*
 * entities.c: list, add, delete, select, unselect.
 *
 * A name is first taken relative to the selection (an instance of the selected service, or a
 * service at the scope) and only then as an FMRI or abbreviation, as illumos does, so
 * "select default" under svc:/a/b means svc:/a/b:default even if other services have a
 * "default" instance.
 *
 * add of an instance waits, like import, until the restarter has taken it up (add_wait(),
 * import-wait.c): the instance exists at once, its restarter pg only once svc.startd has seen
 * it, and a script's next "svcadm enable -s" must not find it misconfigured.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "cli-resolve.h"
#include "commands.h"
#include "dependents.h"
#include "import-wait.h"
#include "restarter.h"
#include "strv.h"

/* 1 if fmri is a valid FMRI of an existing entity, 0 if not, < 0 (reported) on error. */
static int entity_exists(svccfg_t *c, scf_handle_t *h, const char *fmri)
{
	scf_fmri_t f = {0};
	int r;

	if (scf_fmri_parse(fmri, &f) < 0)
		return 0;
	scf_fmri_clear(&f);
	r = scf_entity_exists(h, fmri);
	if (r == -SCF_ERROR_INVALID_ARGUMENT || r == -SCF_ERROR_CONSTRAINT_VIOLATED)
		return 0;
	if (r < 0)
		return svccfg_scf_error(c, r, fmri);
	return r;
}

/*
 * The FMRI that name has relative to the selection (a service is selected, no instance): an
 * instance of the selected service, or a service at the scope.  Not checked: see names_itself().
 */
static int relative_fmri(const svccfg_t *c, const char *name, char **ret)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t sel = {0};
	int r;

	if (!c->cur_svc)
		return scf_fmri_format_entity(name, NULL, ret);
	r = scf_fmri_parse(c->cur_svc, &sel);
	if (r < 0)
		return r;
	return scf_fmri_format_entity(sel.service, name, ret);
}

/*
 * Finds the one service or instance that name designates (see the top of this file); returns
 * 0 with its canonical FMRI in *ret, or a negative code (reported).  As illumos' lscf_select():
 * scf_walk_fmri() with SCF_WALK_SERVICE, so "good" naming svc:/site/good and its instance
 * svc:/site/good:default selects the service.
 */
static int find_entity(svccfg_t *c, const char *name, char **ret)
{
	_cleanup_free_ char *rel = NULL;
	scf_handle_t *h;
	int r;

	r = svccfg_handle(c, &h);
	if (r < 0)
		return r;
	/* A name with a ':' or under a selected instance has no relative meaning. */
	if (!c->cur_inst && !strchr(name, ':') && relative_fmri(c, name, &rel) >= 0) {
		r = entity_exists(c, h, rel);
		if (r < 0)
			return r;
		if (r > 0 && scf_fmri_canonicalize(rel, ret) >= 0)
			return 0;
	}
	return svccfg_walk_one(c, name, CLI_WALK_SERVICE, ret);
}

/* Splits a canonical entity FMRI into its service FMRI and (for an instance) itself. */
static int select_fmri(svccfg_t *c, const char *fmri)
{
	scf_fmri_t f = {0};
	_cleanup_free_ char *svc = NULL;
	int r;

	r = scf_fmri_parse(fmri, &f);
	if (r < 0)
		return svccfg_scf_error(c, r, fmri);
	r = scf_fmri_format_entity(f.service, NULL, &svc) < 0
	        ? svccfg_oom(c)
	        : svccfg_select_set(c, svc, f.instance ? fmri : NULL);
	scf_fmri_clear(&f);
	return r;
}

int cmd_select(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *fmri = NULL;
	int r;

	if (n != 1 || !token_is_text(&args[0]))
		return command_syntax_error(c);
	if (streq(args[0].text, "svc:"))
		return svccfg_select_set(c, NULL, NULL);
	if (streq(args[0].text, ":properties")) {
		svccfg_error(c,
		        ":properties is not an entity.  Try 'listprop' to list "
		        "properties.");
		return -EINVAL;
	}
	r = find_entity(c, args[0].text, &fmri);
	if (r < 0)
		return r;
	return select_fmri(c, fmri);
}

int cmd_unselect(svccfg_t *c, const token_t *args, size_t n)
{
	if (n != 0)
		return command_syntax_error(c);
	if (c->cur_inst)
		return svccfg_select_set(c, c->cur_svc, NULL);
	if (c->cur_svc)
		return svccfg_select_set(c, NULL, NULL);
	svccfg_error(c, "Cannot unselect at scope level.");
	return -EINVAL;
}

/* Prints the last component of each FMRI of l ("svc:/a/b" -> "a/b", "svc:/a:i" -> "i"). */
static void print_names(char *const *l, const char *pattern, size_t skip_prefix, char sep)
{
	STRV_FOREACH (s, l) {
		const char *name = sep ? strrchr(*s, sep) + 1 : *s + skip_prefix;

		if (!pattern || fnmatch(pattern, name, 0) == 0)
			puts(name);
	}
}

int cmd_list(svccfg_t *c, const token_t *args, size_t n)
{
	char **l = NULL;
	const char *pattern;
	scf_handle_t *h;
	int r;

	if (args_optional_word(args, n, &pattern) < 0)
		return command_syntax_error(c);
	if (c->cur_inst) {
		puts(":properties");
		return 0;
	}
	r = svccfg_handle(c, &h);
	if (r < 0)
		return r;
	r = c->cur_svc ? scf_instance_list(h, c->cur_svc, &l) : scf_service_list(h, &l);
	if (r < 0)
		return svccfg_scf_error(c, r, c->cur_svc ? c->cur_svc : "svc:");
	if (c->cur_svc)
		puts(":properties");
	print_names(l, pattern, strlen("svc:/"), c->cur_svc ? ':' : 0);
	scf_strv_free(l);
	return 0;
}

/*
 * Whether relative_fmri()'s fmri names the entity that name is the whole name of: the instance
 * name, or the service at the scope (so "a:b" or "x/:properties/p" are no name to add).
 */
static bool names_itself(const char *fmri, const char *name, bool instance)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {0};

	if (scf_fmri_parse(fmri, &f) < 0 || f.pg)
		return false;
	if (instance)
		return f.instance && streq(f.instance, name);
	return !f.instance && streq(f.service, name);
}

int cmd_add(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *fmri = NULL;
	uint64_t timeout_usec = 0;
	scf_handle_t *h;
	int r;

	if (n != 1 || !token_is_text(&args[0]))
		return command_syntax_error(c);
	if (c->cur_inst) {
		svccfg_error(c, "Cannot add entities to an instance.");
		return -EINVAL;
	}
	/* A bad deadline is refused before anything is created. */
	if (c->cur_svc && (r = import_wait_default_timeout(c, &timeout_usec)) < 0)
		return r;
	r = svccfg_handle(c, &h);
	if (r < 0)
		return r;
	r = relative_fmri(c, args[0].text, &fmri);
	if (r == -SCF_ERROR_NO_MEMORY)
		return svccfg_oom(c);
	if (r < 0 || !names_itself(fmri, args[0].text, c->cur_svc != NULL)) {
		svccfg_error(c, "Invalid name.");
		return -EINVAL;
	}
	r = c->cur_svc ? scf_instance_add(h, fmri) : scf_service_add(h, fmri);
	if (r == -SCF_ERROR_EXISTS)
		svccfg_error(c, "%s already exists.", c->cur_svc ? "Instance" : "Service");
	else if (r == -SCF_ERROR_INVALID_ARGUMENT || r == -SCF_ERROR_CONSTRAINT_VIOLATED)
		svccfg_error(c, "Invalid name.");
	else if (r < 0)
		return svccfg_scf_error(c, r, fmri);
	if (r < 0)
		return r;
	return c->cur_svc ? add_wait(c, h, fmri, timeout_usec) : 0;
}

/* 1 if the instance's restarter says it is online or degraded, else 0; < 0 reported. */
static int instance_may_run(svccfg_t *c, scf_handle_t *h, const char *inst)
{
	scf_pg_t *pg = NULL;
	const scf_property_t *p;
	const char *state;
	int r;

	r = scf_pg_get(h, inst, SCF_PG_RESTARTER, NULL, 0, &pg);
	if (r == -SCF_ERROR_NOT_FOUND)
		return 0;
	if (r < 0)
		return svccfg_scf_error(c, r, inst);
	p = scf_pg_property(pg, SCF_PROPERTY_STATE);
	r = p && scf_property_get_string(p, &state) >= 0 &&
	        restarter_state_is_up(restarter_state_from_string(state));
	scf_pg_free(pg);
	return r;
}

static int refuse_if_running(svccfg_t *c, scf_handle_t *h, const char *inst)
{
	int r = instance_may_run(c, h, inst);

	if (r <= 0)
		return r;
	svccfg_error(c, "Instance %s may be running.  Use delete -f if it is not.", inst);
	return -EBUSY;
}

/*
 * Refuses (reported) when an instance to be deleted may be running; all are checked before
 * anything is deleted, so a refused delete of a service leaves every instance in place.
 */
static int check_not_running(svccfg_t *c, scf_handle_t *h, const char *fmri, bool is_instance)
{
	char **insts = NULL;
	int r;

	if (is_instance)
		return refuse_if_running(c, h, fmri);
	r = scf_instance_list(h, fmri, &insts);
	if (r < 0)
		return svccfg_scf_error(c, r, fmri);
	r = 0;
	for (char **i = insts; r >= 0 && *i; i++)
		r = refuse_if_running(c, h, *i);
	scf_strv_free(insts);
	return r < 0 ? r : 0;
}

/* The entity and the dependency pgs it wrote into others as dependents, in one batch. */
static int delete_entity(scf_handle_t *h, const char *fmri)
{
	scf_batch_t *b = NULL;
	int r;

	r = scf_batch_new(h, &b);
	if (r < 0)
		return r;
	r = dependents_add_cleanup(h, b, fmri);
	if (r >= 0)
		r = scf_batch_entity_delete(b, fmri);
	if (r >= 0)
		r = scf_batch_commit(b);
	scf_batch_free(b);
	return r;
}

int cmd_delete(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *fmri = NULL;
	bool force = n == 2 && streq(args[0].text, "-f");
	const token_t *target = &args[n - 1];
	scf_handle_t *h;
	bool is_instance;
	int r;

	if (n < 1 || n > 2 || (n == 2 && !force) || !token_is_text(target))
		return command_syntax_error(c);
	r = find_entity(c, target->text, &fmri);
	if (r < 0)
		return r;
	r = svccfg_handle(c, &h);
	if (r < 0)
		return r;
	is_instance = strchr(fmri + strlen("svc:"), ':') != NULL;
	if (!force && (r = check_not_running(c, h, fmri, is_instance)) < 0)
		return r;
	r = delete_entity(h, fmri);
	if (r < 0)
		return svccfg_scf_error(c, r, fmri);
	/* The selection must not name what no longer exists. */
	if (c->cur_inst && streq(c->cur_inst, fmri))
		return svccfg_select_set(c, c->cur_svc, NULL);
	if (c->cur_svc && streq(c->cur_svc, fmri))
		return svccfg_select_set(c, NULL, NULL);
	return 0;
}
