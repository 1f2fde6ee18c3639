/*
 * unmap.c: the repository read back into a bundle, the reverse of mapping.c (mapping.h).
 *
 * THE MODEL.  Export, archive and extract build an mf_bundle_t from the repository and hand it
 * to the manifest library's writer (lib/manifest/include/writer.h); only the question of what
 * the bundle holds is answered here.  Two requirements, in this order:
 *
 *   1. importing the bundle gives back the same repository content (what `repodump` shows,
 *      less generations, snapshots and the import bookkeeping);
 *   2. the bundle reads like the manifest that was imported: illumos' element form
 *      (svccfg_libscf.c export_service, export_instance, export_pg and friends).
 *
 * Every pg is turned back into the element mapping.c would have made it from, but only when
 * mapping that element again writes exactly the pg's properties (each element's fields are
 * taken from properties of the right type and shape; whatever is left stays a property or a
 * <stability> of the element); a pg that does not fit its element is written as a plain
 * <property_group>, which always maps back exactly.  So requirement 1 holds by construction,
 * and requirement 2 for everything an import wrote.
 *
 *   repository                                   bundle
 *   instance svc:/S:I, general/enabled           <instance name="I" enabled="...">, or
 *                                                <create_default_instance> for a bare default
 *   general/single_instance, entity_stability,   <single_instance/>, <stability>, <restarter>
 *   restarter (service); restarter (instance)    (other general properties: a general pg)
 *   a pg of type dependency                      <dependency> (external ones: not at all; they
 *                                                are their dependent's)
 *   dependents/D = T, and T's external pg D      <dependent name="D">; without T's pg, a
 *                                                "dependents" pg holding D
 *   a pg of type method                          <exec_method>, with a <method_context> when
 *                                                it holds context properties
 *   framework pg method_context                  <method_context>
 *   notify_params pg EVENT                       <notification_parameters>
 *   tm_common_name, tm_description, tm_man_*,    <template>: <common_name>, <description>,
 *   tm_doc_*                                     <documentation> (pg and prop patterns stay
 *                                                pgs, as illumos exports them)
 *   a "stability" astring of any pg              <stability value=...> inside its element
 *   anything else persistent                     <property_group>
 *   non-persistent pgs, a service's              nothing (the restarter's; the imported files)
 *   manifestfiles
 *
 * Only reads: nothing here changes the repository.  A failed read fails the whole bundle, so
 * export never writes half a service.  So does a value import would refuse: one stored before
 * issue 18 may hold a control character that XML 1.0 cannot carry (docs/values.md); the bundle
 * would not import back, so it is not made, and *why names the property.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "mapping.h"
#include "model.h"
#include "restarter.h"
#include "strv.h"

#define STABILITY "stability"
#define METHOD_CONTEXT "method_context"
#define USE_PROFILE "use_profile"
#define ENVIRONMENT "environment"
#define NOTIFY_PARAMS "notify_params"
#define TM_COMMON_NAME "tm_common_name"
#define TM_DESCRIPTION "tm_description"
#define UINT64_MAX_STR "18446744073709551615"

static int oom(void)
{
	return -SCF_ERROR_NO_MEMORY;
}

/*
 * Every value of pg (of entity ent) as import would take it: -SCF_ERROR_CONSTRAINT_VIOLATED and
 * the reason in *why for the first that is not (values are checked when they are stored, but by
 * the rules of the configd that stored them).
 */
static int check_exportable(const char *ent, const scf_pg_t *pg, char **why)
{
	for (size_t i = 0; i < pg->n_props; i++) {
		const scf_property_t *p = &pg->props[i];

		for (size_t k = 0; k < p->n_values; k++) {
			char reason[80];
			const char *r;

			if (scf_value_normalize(p->type, p->values[k], NULL) >= 0)
				continue;
			r = smf_value_forbidden_why(p->values[k], reason, sizeof(reason));
			if (asprintf(why,
			            "%s/:properties/%s/%s: value %zu (\"%s\") is not a valid "
			            "%s%s%s; "
			            "import would refuse it, so it cannot be exported (change or "
			            "delete it first)",
			            ent, pg->name, p->name, k + 1, p->values[k],
			            scf_type_to_string(p->type), r ? ": " : "", r ? r : "") < 0)
				*why = NULL;
			return -SCF_ERROR_CONSTRAINT_VIOLATED;
		}
	}
	return 0;
}

/* The names of the properties an element took, so the rest can be written as they are. */
typedef struct used {
	const char *v[24];
	size_t n;
} used_t;

static void use(used_t *u, const char *name)
{
	assert(u->n < ELEMENTSOF(u->v));
	u->v[u->n++] = name;
}

static bool used(const used_t *u, const char *name)
{
	for (size_t k = 0; u && k < u->n; k++)
		if (streq(u->v[k], name))
			return true;
	return false;
}

/* The value of a property of this type with exactly one value, or NULL. */
static const char *single(const scf_pg_t *pg, const char *name, scf_type_t type)
{
	const scf_property_t *p = scf_pg_property(pg, name);

	return p && p->type == type && p->n_values == 1 ? p->values[0] : NULL;
}

/* single() of an astring, taken for an element's field (copied into *ret); 0 or -ENOMEM. */
static int take(const scf_pg_t *pg, const char *name, used_t *u, char **ret)
{
	const char *v = single(pg, name, SCF_TYPE_ASTRING);

	*ret = NULL;
	if (!v)
		return 0;
	if (!(*ret = strdup(v)))
		return oom();
	use(u, name);
	return 0;
}

static bool pg_is_external(const scf_pg_t *pg)
{
	const scf_property_t *p = scf_pg_property(pg, SCF_PROPERTY_EXTERNAL);
	bool b = false;

	return p && scf_property_get_boolean(p, &b) >= 0 && b;
}

static int unmap_property(const scf_property_t *sp, mf_props_t *props)
{
	mf_property_t *p = calloc(1, sizeof(*p));

	if (!p)
		return oom();
	*p = (mf_property_t){
	        .name = strdup(sp->name),
	        .type = sp->type,
	        .values = sp->n_values > 0 ? strv_copy(sp->values) : NULL,
	        .is_list = sp->n_values != 1,
	};
	if (!p->name || (sp->n_values > 0 && !p->values) ||
	        mf_array_push(&props->v, &props->n, p) < 0) {
		free(p->name);
		strv_free(p->values);
		free(p);
		return oom();
	}
	return 0;
}

/*
 * The properties of pg an element did not take, into props: a single astring "stability" as
 * the element's <stability> (mapping.c writes it back as that property), the rest as they are.
 */
static int unmap_props(const scf_pg_t *pg, const used_t *u, mf_props_t *props)
{
	const char *stab = single(pg, STABILITY, SCF_TYPE_ASTRING);
	int r;

	if (stab && !used(u, STABILITY) && !(props->stability = strdup(stab)))
		return oom();
	for (size_t i = 0; i < pg->n_props; i++) {
		const char *name = pg->props[i].name;

		if (used(u, name) || (stab && streq(name, STABILITY)))
			continue;
		if ((r = unmap_property(&pg->props[i], props)) < 0)
			return r;
	}
	return 0;
}

static int add_pg(mf_entity_t *e, const char *name, const char *type, mf_pg_t **ret)
{
	mf_pg_t *pg = calloc(1, sizeof(*pg));

	if (!pg)
		return oom();
	pg->name = strdup(name);
	pg->type = strdup(type);
	if (!pg->name || !pg->type || mf_array_push(&e->pgs, &e->n_pgs, pg) < 0) {
		free(pg->name);
		free(pg->type);
		free(pg);
		return oom();
	}
	*ret = pg;
	return 0;
}

/* A <property_group>: what a pg that fits no element is written as; maps back exactly. */
static int unmap_plain(const scf_pg_t *pg, const used_t *u, mf_entity_t *e)
{
	mf_pg_t *mpg;
	int r;

	if ((r = add_pg(e, pg->name, pg->type, &mpg)) < 0)
		return r;
	return unmap_props(pg, u, &mpg->props);
}

/* ---- dependencies and dependents --------------------------------------------------------- */

static bool is_grouping(const char *s)
{
	return s && depgroup_from_string(s) >= 0;
}

static bool is_restart_on(const char *s)
{
	return s && restart_on_from_string(s) >= 0;
}

/* <dependency>: grouping, restart_on, type and at least one entity (mapping.c map_dependency). */
static int unmap_dependency(const scf_pg_t *pg, mf_entity_t *e, bool *done)
{
	const scf_property_t *ents = scf_pg_property(pg, SCF_PROPERTY_ENTITIES);
	mf_dependency_t *d;
	used_t u = {0};
	int r;

	*done = false;
	if (!is_grouping(single(pg, SCF_PROPERTY_GROUPING, SCF_TYPE_ASTRING)) ||
	        !is_restart_on(single(pg, SCF_PROPERTY_RESTART_ON, SCF_TYPE_ASTRING)) ||
	        !single(pg, SCF_PROPERTY_TYPE, SCF_TYPE_ASTRING) || !ents ||
	        ents->type != SCF_TYPE_FMRI || ents->n_values == 0)
		return 0;
	if (!(d = calloc(1, sizeof(*d))) ||
	        mf_array_push(&e->dependencies, &e->n_dependencies, d) < 0) {
		free(d);
		return oom();
	}
	/* From here d belongs to the entity (mf_bundle_free() takes what is filled in). */
	*done = true;
	use(&u, SCF_PROPERTY_ENTITIES);
	if (!(d->name = strdup(pg->name)) || !(d->entities = strv_copy(ents->values)))
		return oom();
	if ((r = take(pg, SCF_PROPERTY_GROUPING, &u, &d->grouping)) < 0 ||
	        (r = take(pg, SCF_PROPERTY_RESTART_ON, &u, &d->restart_on)) < 0 ||
	        (r = take(pg, SCF_PROPERTY_TYPE, &u, &d->type)) < 0)
		return r;
	return unmap_props(pg, &u, &d->props);
}

/*
 * The dependency pg that an entity's dependent (its entry p in the entity's "dependents" pg)
 * wrote into its target, or NULL when the target has none (it did not exist when the entity
 * was imported; illumos writes it only then).
 */
static scf_pg_t *dependent_target_pg(scf_handle_t *h, const scf_property_t *p)
{
	const char *target = NULL;
	scf_pg_t *tpg = NULL;

	if (scf_property_get_string(p, &target) < 0 ||
	        scf_pg_get(h, target, p->name, NULL, 0, &tpg) < 0)
		return NULL;
	if (!pg_is_external(tpg)) {
		scf_pg_free(tpg);
		return NULL;
	}
	return tpg;
}

/* A string property of pg (dflt when it has none, or not exactly one) as a copy in *ret. */
static int string_prop(const scf_pg_t *pg, const char *name, const char *dflt, char **ret)
{
	const scf_property_t *q = scf_pg_property(pg, name);
	const char *v = dflt;

	if (q)
		(void)scf_property_get_string(q, &v);
	*ret = v ? strdup(v) : NULL;
	return v && !*ret ? oom() : 0;
}

/* One <dependent>: its name and target from the entity's entry p, the rest from the target. */
static int unmap_dependent(const scf_property_t *p, const scf_pg_t *tpg, mf_entity_t *e)
{
	/* What the mapping writes into the target for every dependent (mapping.c). */
	static const char *const written[] = {SCF_PROPERTY_GROUPING, SCF_PROPERTY_RESTART_ON,
	        SCF_PROPERTY_TYPE, SCF_PROPERTY_ENTITIES, SCF_PROPERTY_EXTERNAL,
	        SCF_PROPERTY_ENTITY_STABILITY};
	mf_dependent_t *d = calloc(1, sizeof(*d));
	used_t u = {0};
	int r;

	if (!d)
		return oom();
	/* dependent_target_pg() read the target from this one value. */
	assert(p->n_values == 1);
	if (mf_array_push(&e->dependents, &e->n_dependents, d) < 0) {
		free(d);
		return oom();
	}
	d->name = strdup(p->name);
	d->target = strdup(p->values[0]);
	if (!d->name || !d->target)
		return oom();
	if ((r = string_prop(tpg, SCF_PROPERTY_GROUPING, "require_all", &d->grouping)) < 0 ||
	        (r = string_prop(tpg, SCF_PROPERTY_RESTART_ON, "restart", &d->restart_on)) < 0 ||
	        (r = string_prop(tpg, SCF_PROPERTY_ENTITY_STABILITY, NULL, &d->props.stability)) <
	                0)
		return r;
	/* The rest as properties ("stability" too: mapping.c writes it back as one). */
	for (size_t k = 0; k < ELEMENTSOF(written); k++)
		use(&u, written[k]);
	for (size_t i = 0; i < tpg->n_props; i++)
		if (!used(&u, tpg->props[i].name) &&
		        (r = unmap_property(&tpg->props[i], &d->props)) < 0)
			return r;
	return 0;
}

/*
 * The "dependents" pg: a <dependent> for every entry whose target holds the pg it wrote (so a
 * re-import writes it again), and a plain pg of the same name holding the entries whose target
 * has none, so that a re-import does not write one either.
 */
static int unmap_dependents(scf_handle_t *h, const scf_pg_t *pg, mf_entity_t *e, char **why)
{
	mf_pg_t *plain = NULL;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < pg->n_props; i++) {
		_cleanup_(scf_pg_freep) scf_pg_t *tpg = dependent_target_pg(h, &pg->props[i]);

		if (tpg) {
			/* Its values go into this bundle's <dependent>. */
			r = check_exportable(pg->props[i].values[0], tpg, why);
			if (r >= 0)
				r = unmap_dependent(&pg->props[i], tpg, e);
			continue;
		}
		if (!plain && (r = add_pg(e, pg->name, pg->type, &plain)) < 0)
			break;
		r = unmap_property(&pg->props[i], &plain->props);
	}
	return r;
}

/* ---- methods and their contexts ---------------------------------------------------------- */

/* The astring attributes of <method_context> and <method_credential>, as mapping.c names them. */
static const char *const context_attrs[] = {
        "working_directory", "project", "resource_pool", "security_flags"};
static const char *const credential_attrs[] = {
        "user", "group", "supp_groups", "privileges", "limit_privileges"};

/* Is every value "NAME=VALUE" with a NAME an <envvar> may have (build.c build_envvar)? */
static bool envvars_ok(const scf_property_t *p)
{
	if (p->type != SCF_TYPE_ASTRING || p->n_values == 0)
		return false;
	for (size_t i = 0; i < p->n_values; i++) {
		const char *v = p->values[i], *eq = strchr(v, '=');

		if (!eq || eq == v || strneq(v, "SMF_", 4))
			return false;
	}
	return true;
}

static int take_all(
        const scf_pg_t *pg, const char *const *names, size_t n, used_t *u, char **fields[])
{
	int r;

	for (size_t k = 0; k < n; k++)
		if ((r = take(pg, names[k], u, fields[k])) < 0)
			return r;
	return 0;
}

/*
 * The context properties of pg as a <method_context> (mapping.c map_context), when they map
 * back exactly: a <method_profile> needs use_profile true and no credential, a
 * <method_credential> needs use_profile false and a user, and without use_profile there is
 * neither.  *ret stays NULL when pg holds no context, or one that does not fit; the properties
 * are then left to the element's own.
 */
static int unmap_context(const scf_pg_t *pg, used_t *u, mf_method_context_t **ret)
{
	const scf_property_t *env = scf_pg_property(pg, ENVIRONMENT);
	const char *use_profile = single(pg, USE_PROFILE, SCF_TYPE_BOOLEAN);
	bool any = false, cred = false;
	used_t mine = *u;
	mf_method_context_t *mc;
	int r;

	*ret = NULL;
	for (size_t k = 0; k < ELEMENTSOF(context_attrs); k++)
		any |= single(pg, context_attrs[k], SCF_TYPE_ASTRING) != NULL;
	for (size_t k = 0; k < ELEMENTSOF(credential_attrs); k++)
		cred |= scf_pg_property(pg, credential_attrs[k]) != NULL;
	if (env && !envvars_ok(env))
		return 0;
	if (use_profile && streq(use_profile, "true")) {
		if (cred || !single(pg, "profile", SCF_TYPE_ASTRING))
			return 0;
	} else if (use_profile) {
		if (!single(pg, "user", SCF_TYPE_ASTRING) || scf_pg_property(pg, "profile"))
			return 0;
	} else if (cred || scf_pg_property(pg, "profile") || scf_pg_property(pg, USE_PROFILE))
		return 0;
	if (!any && !use_profile && !env)
		return 0;
	if (!(mc = calloc(1, sizeof(*mc))))
		return oom();
	*ret = mc;
	{
		char **ctx_fields[] = {&mc->working_directory, &mc->project, &mc->resource_pool,
		        &mc->security_flags};
		char **cred_fields[] = {&mc->user, &mc->group, &mc->supp_groups, &mc->privileges,
		        &mc->limit_privileges};

		if ((r = take_all(pg, context_attrs, ELEMENTSOF(context_attrs), &mine,
		             ctx_fields)) < 0 ||
		        (r = take_all(pg, credential_attrs, ELEMENTSOF(credential_attrs), &mine,
		                 cred_fields)) < 0 ||
		        (r = take(pg, "profile", &mine, &mc->profile)) < 0)
			return r;
	}
	if (use_profile) {
		use(&mine, USE_PROFILE);
		mc->has_credential = streq(use_profile, "false");
	}
	if (env) {
		use(&mine, ENVIRONMENT);
		mc->has_environment = true;
		if (!(mc->environment = strv_copy(env->values)))
			return oom();
	}
	*u = mine;
	return 0;
}

/* <exec_method>: type, exec and timeout_seconds (mapping.c map_method). */
static int unmap_method(const scf_pg_t *pg, mf_entity_t *e, bool *done)
{
	const char *type = single(pg, SCF_PROPERTY_TYPE, SCF_TYPE_ASTRING);
	const char *timeout = single(pg, SCF_PROPERTY_TIMEOUT, SCF_TYPE_COUNT);
	mf_exec_method_t *m;
	used_t u = {0};
	int r;

	*done = false;
	if (!type || !(streq(type, "method") || streq(type, "monitor")) || !timeout ||
	        !single(pg, SCF_PROPERTY_EXEC, SCF_TYPE_ASTRING))
		return 0;
	if (!(m = calloc(1, sizeof(*m))) || mf_array_push(&e->methods, &e->n_methods, m) < 0) {
		free(m);
		return oom();
	}
	*done = true;
	use(&u, SCF_PROPERTY_TIMEOUT);
	m->timeout_seconds =
	        streq(timeout, UINT64_MAX_STR) ? UINT64_MAX : strtoull(timeout, NULL, 10);
	if (!(m->name = strdup(pg->name)))
		return oom();
	if ((r = take(pg, SCF_PROPERTY_TYPE, &u, &m->type)) < 0 ||
	        (r = take(pg, SCF_PROPERTY_EXEC, &u, &m->exec)) < 0 ||
	        (r = unmap_context(pg, &u, &m->context)) < 0)
		return r;
	return unmap_props(pg, &u, &m->props);
}

/* The entity's method_context pg as <method_context>, if it holds nothing else. */
static int unmap_entity_context(const scf_pg_t *pg, mf_entity_t *e, bool *done)
{
	used_t u = {0};
	int r;

	*done = false;
	if (!streq(pg->type, SCF_GROUP_FRAMEWORK) || pg->n_props == 0)
		return 0;
	if ((r = unmap_context(pg, &u, &e->context)) < 0 || !e->context)
		return r;
	if (u.n != pg->n_props) {
		/* Something else in it: the whole pg is written as it is. */
		mf_method_context_free(e->context);
		e->context = NULL;
		return 0;
	}
	*done = true;
	return 0;
}

/* ---- general ----------------------------------------------------------------------------- */

/*
 * A service's general pg: <single_instance/>, <stability>, <restarter> (mapping.c
 * map_service, map_entity), and what is left as a general pg.
 */
static int unmap_general(const scf_pg_t *pg, mf_service_t *s, mf_instance_t *inst)
{
	mf_entity_t *e = s ? &s->e : &inst->e;
	const char *v;
	used_t u = {0};
	int r;

	if (!streq(pg->type, SCF_GROUP_FRAMEWORK))
		return unmap_plain(pg, NULL, e);
	if ((v = single(pg, SCF_PROPERTY_RESTARTER, SCF_TYPE_FMRI))) {
		use(&u, SCF_PROPERTY_RESTARTER);
		if (!(e->restarter = strdup(v)))
			return oom();
	}
	if (s && (v = single(pg, "single_instance", SCF_TYPE_BOOLEAN)) && streq(v, "true")) {
		use(&u, "single_instance");
		s->single_instance = true;
	}
	if (s && (r = take(pg, SCF_PROPERTY_ENTITY_STABILITY, &u, &s->stability)) < 0)
		return r;
	/* An instance's enabled flag is the attribute of its element. */
	if (inst && single(pg, SCF_PROPERTY_ENABLED, SCF_TYPE_BOOLEAN))
		use(&u, SCF_PROPERTY_ENABLED);
	if (u.n == pg->n_props && u.n > 0)
		return 0;
	return unmap_plain(pg, &u, e);
}

/* ---- notification parameters ------------------------------------------------------------- */

static mf_notify_type_t *notify_type(mf_notify_params_t *np, const char *name, size_t len)
{
	mf_notify_type_t *t;

	for (size_t k = 0; k < np->n_types; k++)
		if (strlen(np->types[k]->name) == len && strneq(np->types[k]->name, name, len))
			return np->types[k];
	if (!(t = calloc(1, sizeof(*t))))
		return NULL;
	if (!(t->name = strndup(name, len)) || mf_array_push(&np->types, &np->n_types, t) < 0) {
		free(t->name);
		free(t);
		return NULL;
	}
	return t;
}

/* Does every property read "TYPE,active" (one boolean per TYPE) or "TYPE,PARAM" (astrings)? */
static bool notify_fits(const scf_pg_t *pg)
{
	if (pg->n_props == 0)
		return false;
	for (size_t i = 0; i < pg->n_props; i++) {
		const scf_property_t *p = &pg->props[i];
		const char *comma = strchr(p->name, ',');
		_cleanup_free_ char *active = NULL;

		if (!comma || comma == p->name || !comma[1] || p->n_values == 0)
			return false;
		if (asprintf(&active, "%.*s,active", (int)(comma - p->name), p->name) < 0)
			return false;
		if (!single(pg, active, SCF_TYPE_BOOLEAN))
			return false;
		if (!streq(p->name, active) && p->type != SCF_TYPE_ASTRING)
			return false;
	}
	return true;
}

/* <notification_parameters> of one event (mapping.c map_notify). */
static int unmap_notify(const scf_pg_t *pg, mf_entity_t *e, bool *done)
{
	_cleanup_free_ char *canon = map_pg_name("", pg->name);
	mf_notify_params_t *np;

	*done = false;
	if (!canon || !streq(canon, pg->name) || !notify_fits(pg))
		return canon ? 0 : oom();
	if (!(np = calloc(1, sizeof(*np))) || mf_array_push(&e->notify, &e->n_notify, np) < 0) {
		free(np);
		return oom();
	}
	*done = true;
	if (!(np->event = strdup(pg->name)))
		return oom();
	for (size_t i = 0; i < pg->n_props; i++) {
		const scf_property_t *p = &pg->props[i];
		const char *comma = strchr(p->name, ',');
		mf_notify_type_t *t = notify_type(np, p->name, (size_t)(comma - p->name));
		char **values;

		if (!t)
			return oom();
		if (streq(comma + 1, "active")) {
			t->active = streq(p->values[0], "true");
			continue;
		}
		if (MF_ARRAY_GROW(t->param_values, t->n_params) < 0 ||
		        !(values = strv_copy(p->values)))
			return oom();
		if (strv_extend(&t->param_names, comma + 1) < 0) {
			strv_free(values);
			return oom();
		}
		t->param_values[t->n_params++] = values;
	}
	return 0;
}

/* ---- templates --------------------------------------------------------------------------- */

static mf_template_t *template_of(mf_entity_t *e)
{
	if (!e->template)
		e->template = calloc(1, sizeof(*e->template));
	return e->template;
}

/*
 * tm_common_name, tm_description: one single ustring per locale, named as mapping.c names it
 * and written as the reader reads it back (no surrounding blanks, not empty).
 */
static bool loctexts_fit(const scf_pg_t *pg)
{
	if (!streq(pg->type, "template") || pg->n_props == 0)
		return false;
	for (size_t i = 0; i < pg->n_props; i++) {
		const scf_property_t *p = &pg->props[i];
		_cleanup_free_ char *canon = map_loctext_name("", p->name);
		const char *v = p->n_values == 1 ? p->values[0] : NULL;
		size_t len = v ? strlen(v) : 0;

		if (p->type != SCF_TYPE_USTRING || !v || len == 0 || !canon ||
		        !streq(canon, p->name) || strchr(" \t\r\n", v[0]) ||
		        strchr(" \t\r\n", v[len - 1]) || strchr(v, '\r'))
			return false;
	}
	return true;
}

static int unmap_loctexts(const scf_pg_t *pg, mf_loctexts_t *l)
{
	for (size_t i = 0; i < pg->n_props; i++) {
		if (MF_ARRAY_GROW(l->v, l->n) < 0)
			return oom();
		l->v[l->n] = (mf_loctext_t){
		        .lang = strdup(pg->props[i].name), .text = strdup(pg->props[i].values[0])};
		if (!l->v[l->n].lang || !l->v[l->n++].text)
			return oom();
	}
	return 0;
}

/* The pg name mapping.c gives a manpage or doc link, and whether pg has exactly these props. */
static bool template_pg_fits(const scf_pg_t *pg, const char *type, const char *prefix,
        const char *key, const char *const *props, size_t n)
{
	_cleanup_free_ char *canon = key ? map_pg_name(prefix, key) : NULL;

	if (!streq(pg->type, type) || pg->n_props != n || !canon || !streq(canon, pg->name))
		return false;
	for (size_t k = 0; k < n; k++)
		if (!single(pg, props[k], SCF_TYPE_ASTRING))
			return false;
	return true;
}

static int unmap_manpage(const scf_pg_t *pg, mf_entity_t *e, bool *done)
{
	static const char *const props[] = {"title", "section", "manpath"};
	const char *title = single(pg, "title", SCF_TYPE_ASTRING);
	const char *section = single(pg, "section", SCF_TYPE_ASTRING);
	_cleanup_free_ char *key = NULL;
	mf_template_t *t;
	mf_manpage_t *m;

	*done = false;
	if (title && section && asprintf(&key, "%s_%s", title, section) < 0)
		return oom();
	if (!template_pg_fits(pg, "template_manpage", "tm_man_", key, props, ELEMENTSOF(props)))
		return 0;
	if (!(t = template_of(e)) || MF_ARRAY_GROW(t->manpages, t->n_manpages) < 0)
		return oom();
	*done = true;
	m = &t->manpages[t->n_manpages++];
	*m = (mf_manpage_t){.title = strdup(title),
	        .section = strdup(section),
	        .manpath = strdup(single(pg, "manpath", SCF_TYPE_ASTRING))};
	return m->title && m->section && m->manpath ? 0 : oom();
}

static int unmap_doc_link(const scf_pg_t *pg, mf_entity_t *e, bool *done)
{
	static const char *const props[] = {"name", "uri"};
	const char *name = single(pg, "name", SCF_TYPE_ASTRING);
	mf_template_t *t;
	mf_doc_link_t *d;

	*done = false;
	if (!template_pg_fits(pg, "template_doc_link", "tm_doc_", name, props, ELEMENTSOF(props)))
		return 0;
	if (!(t = template_of(e)) || MF_ARRAY_GROW(t->doc_links, t->n_doc_links) < 0)
		return oom();
	*done = true;
	d = &t->doc_links[t->n_doc_links++];
	*d = (mf_doc_link_t){
	        .name = strdup(name), .uri = strdup(single(pg, "uri", SCF_TYPE_ASTRING))};
	return d->name && d->uri ? 0 : oom();
}

static int unmap_template_pg(const scf_pg_t *pg, mf_entity_t *e, bool *done)
{
	mf_template_t *t;

	*done = false;
	if (streq(pg->name, TM_COMMON_NAME) || streq(pg->name, TM_DESCRIPTION)) {
		if (!loctexts_fit(pg))
			return 0;
		if (!(t = template_of(e)))
			return oom();
		*done = true;
		return unmap_loctexts(
		        pg, streq(pg->name, TM_COMMON_NAME) ? &t->common_name : &t->description);
	}
	if (strneq(pg->name, "tm_man_", 7))
		return unmap_manpage(pg, e, done);
	if (strneq(pg->name, "tm_doc_", 7))
		return unmap_doc_link(pg, e, done);
	return 0;
}

/* ---- entities ---------------------------------------------------------------------------- */

/* One pg into its element (see the table at the top), or a plain pg when it fits none. */
static int unmap_pg(scf_handle_t *h, const char *ent, const scf_pg_t *pg, mf_service_t *s,
        mf_instance_t *inst, char **why)
{
	mf_entity_t *e = s ? &s->e : &inst->e;
	bool done = false;
	int r = 0;

	if (pg->flags & SCF_PG_FLAG_NONPERSISTENT)
		return 0;
	if (s && streq(pg->name, SCF_PG_MANIFESTFILES))
		return 0;
	if ((r = check_exportable(ent, pg, why)) < 0)
		return r;
	if (streq(pg->name, SCF_PG_GENERAL))
		return unmap_general(pg, s, inst);
	if (streq(pg->name, SCF_PG_DEPENDENTS))
		return unmap_dependents(h, pg, e, why);
	if (streq(pg->type, SCF_GROUP_DEPENDENCY)) {
		/* A dependent's pg in its target: written by its dependent's <dependent>. */
		if (pg_is_external(pg))
			return 0;
		r = unmap_dependency(pg, e, &done);
	} else if (streq(pg->type, SCF_GROUP_METHOD))
		r = unmap_method(pg, e, &done);
	else if (streq(pg->name, METHOD_CONTEXT))
		r = unmap_entity_context(pg, e, &done);
	else if (streq(pg->type, NOTIFY_PARAMS))
		r = unmap_notify(pg, e, &done);
	else if (strneq(pg->name, "tm_", 3))
		r = unmap_template_pg(pg, e, &done);
	if (r < 0 || done)
		return r;
	return unmap_plain(pg, NULL, e);
}

static int unmap_pgs(
        scf_handle_t *h, const char *ent, mf_service_t *s, mf_instance_t *inst, char **why)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	int r;

	if ((r = scf_pg_list(h, ent, NULL, 0, &infos, &n)) < 0)
		return r;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;

		if ((r = scf_pg_get(h, ent, infos[i].name, NULL, 0, &pg)) >= 0)
			r = unmap_pg(h, ent, pg, s, inst, why);
	}
	scf_pg_info_free(infos, n);
	return r;
}

/* An instance's general/enabled, false when it has none. */
static bool instance_enabled(scf_handle_t *h, const char *inst)
{
	_cleanup_(scf_property_freep) scf_property_t *p = NULL;
	bool b = false;

	if (scf_property_read(h, inst, SCF_PG_GENERAL, SCF_PROPERTY_ENABLED, &p) >= 0)
		(void)scf_property_get_boolean(p, &b);
	return b;
}

/* What <create_default_instance> can stand for: "default" with nothing but its flag. */
static bool bare_default(const mf_instance_t *i)
{
	const mf_entity_t *e = &i->e;

	return streq(e->name, "default") && !e->restarter && e->n_dependencies == 0 &&
	        e->n_dependents == 0 && !e->context && e->n_methods == 0 && e->n_notify == 0 &&
	        e->n_pgs == 0 && !e->template;
}

static int unmap_instance(
        scf_handle_t *h, const char *inst, unmap_depth_t depth, mf_service_t *s, char **why)
{
	const char *name = strrchr(inst, ':');
	mf_instance_t *i = calloc(1, sizeof(*i));
	int r;

	/* An instance FMRI from scf_instance_list(): "svc:/S:I". */
	assert(name && name > inst + strlen("svc:"));
	if (!i)
		return oom();
	if (!(i->e.name = strdup(name + 1)) ||
	        mf_array_push(&s->instances, &s->n_instances, i) < 0) {
		free(i->e.name);
		free(i);
		return oom();
	}
	i->enabled = instance_enabled(h, inst);
	i->enabled_set = true;
	if (depth != UNMAP_FULL)
		return 0;
	if ((r = unmap_pgs(h, inst, NULL, i, why)) < 0)
		return r;
	i->implicit = bare_default(i);
	return 0;
}

int unmap_service(
        scf_handle_t *h, const char *service_fmri, unmap_depth_t depth, mf_bundle_t *b, char **why)
{
	_cleanup_strv_free_ char **insts = NULL;
	mf_service_t *s;
	int r;

	assert(strneq(service_fmri, "svc:/", strlen("svc:/")));
	if ((r = scf_instance_list(h, service_fmri, &insts)) < 0)
		return r;
	s = calloc(1, sizeof(*s));
	if (!s)
		return oom();
	if (mf_array_push(&b->services, &b->n_services, s) < 0) {
		free(s);
		return oom();
	}
	/* The repository keeps neither a service's type nor its version: these are the defaults. */
	s->e.name = strdup(service_fmri + strlen("svc:/"));
	s->version = strdup("1");
	s->type = MF_SERVICE_SERVICE;
	if (!s->e.name || !s->version)
		return oom();
	if (depth == UNMAP_FULL && (r = unmap_pgs(h, service_fmri, s, NULL, why)) < 0)
		return r;
	STRV_FOREACH (i, insts) {
		if ((r = unmap_instance(h, *i, depth, s, why)) < 0)
			return r;
	}
	return 0;
}

int unmap_bundle_new(mf_bundle_type_t type, const char *name, mf_bundle_t **ret)
{
	mf_bundle_t *b = calloc(1, sizeof(*b));

	if (!b || !(b->name = strdup(name))) {
		free(b);
		return oom();
	}
	b->type = type;
	*ret = b;
	return 0;
}
