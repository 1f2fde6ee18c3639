/*
 * unmap.c: the repository read back into a bundle, the reverse of mapping.c (mapping.h).
 *
 * THE MODEL.  Export, archive and extract build an mf_bundle_t from the repository and hand it
 * to the manifest library's writer (lib/manifest/include/writer.h); only the question of what
 * the bundle holds is answered here.  The answer is chosen so that importing the bundle gives
 * back the same repository content (what `repodump` shows, less generations, snapshots and the
 * import bookkeeping), not the manifest that was imported:
 *
 *   repository                                   bundle
 *   service svc:/S                               <service name="S" type="service" version="1">
 *   instance svc:/S:I                            <instance name="I" enabled=general/enabled>
 *   a persistent pg P of type T                  <property_group name="P" type="T">, every
 *                                                property with its type and all its values
 *                                                (<propval> for one value, else <property>)
 *   dependents/D = TARGET, and TARGET's pg D     <dependent name="D"> with TARGET's grouping,
 *   marked external (written by the dependent)   restart_on, entity_stability and other props
 *   dependents/D = TARGET, TARGET has no such pg <property_group name="dependents"> holding D,
 *   (it did not exist when D was imported)       so that a re-import does not write one either
 *   non-persistent pgs, manifestfiles, pgs       nothing (the first are the restarter's, the
 *   marked external                              second names the imported file, the third are
 *                                                their dependent's <dependent>)
 *
 * Mapping a manifest's dependency, exec_method or template elements back to those elements
 * (illumos' form of export) would change only the table above: the bundle and its writer hold
 * them already.
 *
 * Only reads: nothing here changes the repository.  A failed read fails the whole bundle, so
 * export never writes half a service.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "mapping.h"
#include "strv.h"

static int oom(void)
{
	return -SCF_ERROR_NO_MEMORY;
}

static bool pg_is_external(const scf_pg_t *pg)
{
	const scf_property_t *p = scf_pg_property(pg, SCF_PROPERTY_EXTERNAL);
	bool b = false;

	return p && scf_property_get_boolean(p, &b) >= 0 && b;
}

/* Is this pg written by something other than a <property_group> of its own? */
static bool pg_skipped(const scf_pg_t *pg)
{
	return (pg->flags & SCF_PG_FLAG_NONPERSISTENT) || streq(pg->name, SCF_PG_DEPENDENTS) ||
	        streq(pg->name, SCF_PG_MANIFESTFILES) || pg_is_external(pg);
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

/* The props of pg into props, leaving out the names in skip (NULL-terminated, or NULL). */
static int unmap_props(const scf_pg_t *pg, const char *const *skip, mf_props_t *props)
{
	int r;

	for (size_t i = 0; i < pg->n_props; i++) {
		bool skipped = false;

		for (const char *const *s = skip; s && *s; s++)
			skipped = skipped || streq(*s, pg->props[i].name);
		if (!skipped && (r = unmap_property(&pg->props[i], props)) < 0)
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
	        SCF_PROPERTY_ENTITY_STABILITY, NULL};
	mf_dependent_t *d = calloc(1, sizeof(*d));
	int r;

	if (!d)
		return oom();
	/* dependent_target_pg() read the target from this one value. */
	assert(p->n_values == 1);
	if (mf_array_push(&e->dependents, &e->n_dependents, d) < 0) {
		free(d);
		return oom();
	}
	/* From here d belongs to the entity (mf_bundle_free() takes what is filled in). */
	d->name = strdup(p->name);
	d->target = strdup(p->values[0]);
	if (!d->name || !d->target)
		return oom();
	if ((r = string_prop(tpg, SCF_PROPERTY_GROUPING, "require_all", &d->grouping)) < 0 ||
	        (r = string_prop(tpg, SCF_PROPERTY_RESTART_ON, "restart", &d->restart_on)) < 0 ||
	        (r = string_prop(tpg, SCF_PROPERTY_ENTITY_STABILITY, NULL, &d->props.stability)) <
	                0)
		return r;
	return unmap_props(tpg, written, &d->props);
}

/*
 * The "dependents" pg: a <dependent> for every entry whose target holds the pg it wrote (so a
 * re-import writes it again), and a plain pg of the same name holding the entries whose target
 * has none, so that a re-import does not write one either.
 */
static int unmap_dependents(scf_handle_t *h, const scf_pg_t *pg, mf_entity_t *e)
{
	mf_pg_t *plain = NULL;
	int r = 0;

	for (size_t i = 0; r >= 0 && i < pg->n_props; i++) {
		_cleanup_(scf_pg_freep) scf_pg_t *tpg = dependent_target_pg(h, &pg->props[i]);

		if (tpg) {
			r = unmap_dependent(&pg->props[i], tpg, e);
			continue;
		}
		if (!plain && (r = add_pg(e, pg->name, pg->type, &plain)) < 0)
			break;
		r = unmap_property(&pg->props[i], &plain->props);
	}
	return r;
}

static int unmap_pgs(scf_handle_t *h, const char *ent, mf_entity_t *e)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	int r;

	if ((r = scf_pg_list(h, ent, NULL, 0, &infos, &n)) < 0)
		return r;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
		mf_pg_t *mpg;

		if ((r = scf_pg_get(h, ent, infos[i].name, NULL, 0, &pg)) < 0)
			break;
		if (streq(pg->name, SCF_PG_DEPENDENTS))
			r = unmap_dependents(h, pg, e);
		else if (!pg_skipped(pg) && (r = add_pg(e, pg->name, pg->type, &mpg)) >= 0)
			r = unmap_props(pg, NULL, &mpg->props);
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

static int unmap_instance(scf_handle_t *h, const char *inst, unmap_depth_t depth, mf_service_t *s)
{
	const char *name = strrchr(inst, ':');
	mf_instance_t *i = calloc(1, sizeof(*i));

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
	return depth == UNMAP_FULL ? unmap_pgs(h, inst, &i->e) : 0;
}

int unmap_service(scf_handle_t *h, const char *service_fmri, unmap_depth_t depth, mf_bundle_t *b)
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
	if (depth == UNMAP_FULL && (r = unmap_pgs(h, service_fmri, &s->e)) < 0)
		return r;
	STRV_FOREACH (i, insts) {
		if ((r = unmap_instance(h, *i, depth, s)) < 0)
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
