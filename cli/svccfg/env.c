/*
 * env.c: setenv and unsetenv, a method's environment, as illumos' lscf_setenv().
 *
 * The environment is the astring property "environment" of a pg, one value "NAME=VALUE" per
 * variable (what <method_environment> imports to).  Which pg:
 *   -m METHOD    that method pg of the selected instance (of the service with -s); it must
 *                exist and be of type "method";
 *   -i / -s      the method_context pg (type framework, created by setenv) of the instance /
 *                of the service, for every method;
 *   neither      the first of the "start" and "inetd_start" method pgs, looked for on the
 *                instance, then on its service; the change goes where it was found.
 * setenv deletes the values "NAME=*" and appends "NAME=VALUE" in one transaction (the value is
 * taken as it is, '=' and all); unsetenv deletes them.  As setprop, neither refreshes.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "pgs.h"
#include "strv.h"

#define ENV_PROP "environment"
#define CONTEXT_PG "method_context"

typedef struct env_ctx {
	svccfg_t *c;
	const char *entity, *pg;
	const char *name;
	char *var; /* "NAME=VALUE" for setenv, NULL for unsetenv */
	bool reported;
} env_ctx_t;

/* 1 when entity has pg `name` of type method, 0 when it has none; -EINVAL (reported) if not a
 * method; < 0 on other errors (reported). */
static int method_pg(svccfg_t *c, const char *entity, const char *name, bool report_type)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	int r = scf_pg_get(c->h, entity, name, NULL, 0, &pg);

	if (r == -SCF_ERROR_NOT_FOUND)
		return 0;
	if (r < 0)
		return svccfg_scf_error(c, r, entity);
	if (streq(pg->type, SCF_GROUP_METHOD))
		return 1;
	if (!report_type)
		return 0;
	svccfg_error(c, "Property group \"%s\" is not of type \"method\".", name);
	return -EINVAL;
}

/* Chooses ctx->entity and ctx->pg from the options; 0, or < 0 (reported). */
static int choose_pg(env_ctx_t *x, bool svc_level, bool inst_level, const char *method)
{
	static const char *const starts[] = {"start", "inetd_start"};
	svccfg_t *c = x->c;
	int r;

	if (inst_level && !c->cur_inst) {
		svccfg_error(c, "No instance is selected.");
		return -EINVAL;
	}
	if (svc_level && !c->cur_svc) {
		svccfg_error(c, "No service is selected.");
		return -EINVAL;
	}
	x->entity = svc_level ? c->cur_svc : svccfg_entity(c);
	if (method) {
		if (scf_name_validate(method) < 0) {
			svccfg_error(c, "Invalid method name \"%s\".", method);
			return -EINVAL;
		}
		r = method_pg(c, x->entity, method, true);
		if (r == 0) {
			svccfg_error(c, "Couldn't find the method \"%s\".", method);
			return -SCF_ERROR_NOT_FOUND;
		}
		x->pg = method;
		return r < 0 ? r : 0;
	}
	if (svc_level || inst_level) {
		x->pg = CONTEXT_PG;
		return 0;
	}
	/* The start method, on the instance first, then on the service. */
	for (const char *e = x->entity; e; e = e == c->cur_inst ? c->cur_svc : NULL) {
		for (size_t k = 0; k < ELEMENTSOF(starts); k++) {
			r = method_pg(c, e, starts[k], false);
			if (r < 0)
				return r;
			if (r > 0) {
				x->entity = e;
				x->pg = starts[k];
				return 0;
			}
		}
	}
	svccfg_error(c, "Couldn't find start method; please specify a method with '-m'.");
	return -SCF_ERROR_NOT_FOUND;
}

static int env_fn(scf_tx_t *tx, void *userdata)
{
	env_ctx_t *x = userdata;
	const scf_property_t *cur = scf_pg_property(scf_tx_pg(tx), ENV_PROP);
	_cleanup_free_ char *pattern = NULL;
	_cleanup_free_ const char **v = NULL;
	size_t k = 0;

	if (!cur && !x->var) {
		svccfg_error(x->c, "No such property %s/%s.", x->pg, ENV_PROP);
		x->reported = true;
		return -SCF_ERROR_NOT_FOUND;
	}
	v = calloc((cur ? cur->n_values : 0) + 2, sizeof(char *));
	if (!v || asprintf(&pattern, "%s=*", x->name) < 0)
		return -SCF_ERROR_NO_MEMORY;
	/* fnmatch, as illumos deletes the values matching the glob NAME=*. */
	for (size_t i = 0; cur && i < cur->n_values; i++)
		if (fnmatch(pattern, cur->values[i], 0) != 0)
			v[k++] = cur->values[i];
	if (x->var)
		v[k++] = x->var;
	return scf_tx_set(tx, ENV_PROP, SCF_TYPE_ASTRING, v, k);
}

/* [-s | -i] [-m method] NAME [VALUE] */
static int env_command(svccfg_t *c, const token_t *args, size_t n, bool set)
{
	env_ctx_t x = {.c = c};
	const char *method = NULL;
	scf_handle_t *h;
	bool svc_level = false, inst_level = false;
	size_t i = 0;
	int r;

	for (; i < n && token_is_text(&args[i]) && args[i].text[0] == '-'; i++) {
		const char *o = args[i].text;

		if (streq(o, "-s"))
			svc_level = true;
		else if (streq(o, "-i"))
			inst_level = true;
		else if (streq(o, "-m") && i + 1 < n && token_is_text(&args[i + 1]))
			method = args[++i].text;
		else
			return command_syntax_error(c);
	}
	if ((svc_level && inst_level) || n - i != (set ? 2u : 1u) || !token_is_text(&args[i]) ||
	        (set && !token_is_text(&args[i + 1])))
		return command_syntax_error(c);
	x.name = args[i].text;
	if ((r = svccfg_need_writable(c)) < 0 || (r = svccfg_handle(c, &h)) < 0 ||
	        (r = choose_pg(&x, svc_level, inst_level, method)) < 0)
		return r;
	if (set && asprintf(&x.var, "%s=%s", x.name, args[i + 1].text) < 0)
		return svccfg_oom(c);
	if (set && streq(x.pg, CONTEXT_PG)) {
		r = scf_pg_add(h, x.entity, CONTEXT_PG, SCF_GROUP_FRAMEWORK, 0);
		if (r < 0 && r != -SCF_ERROR_EXISTS) {
			free(x.var);
			return svccfg_scf_error(c, r, x.entity);
		}
	}
	r = scf_tx_run(h, x.entity, x.pg, env_fn, &x, 0);
	free(x.var);
	if (r >= 0)
		return 0;
	if (x.reported)
		return r;
	if (r == -SCF_ERROR_NOT_FOUND || r == -SCF_ERROR_DELETED) {
		svccfg_error(c, "No such property group \"%s\".", x.pg);
		return r;
	}
	return svccfg_scf_error(c, r, x.entity);
}

int cmd_setenv(svccfg_t *c, const token_t *args, size_t n)
{
	return env_command(c, args, n, true);
}

int cmd_unsetenv(svccfg_t *c, const token_t *args, size_t n)
{
	return env_command(c, args, n, false);
}
