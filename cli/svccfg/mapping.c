/*
 * mapping.c: a bundle mapped onto the repository, as steps of one batch.
 *
 * THE MODEL.  A bundle is a tree of services, instances and pg-like elements (bundle.h); the
 * repository is entities holding typed pgs.  The mapping walks the tree once and emits, for each
 * element, "ensure the entity / the pg" followed by "set these properties" (docs/manifests.md
 * has the table; it is illumos' svccfg_xml.c mapping).  Dependents are emitted last, after every
 * entity of the bundle exists, because they write into their target, which may be defined
 * further down the same bundle.
 *
 * INVARIANTS.  Nothing is written here: steps only go into the batch, which configd applies in
 * one SQLite transaction at commit, so a bundle that fails half-way leaves nothing behind.  The
 * only reads are the existence checks that choose what to do (is this instance new, does the
 * dependent's target exist, what type does an untyped profile property have); they see the
 * repository as it is before the commit, which is what illumos sees too.
 *
 * Upgrade rule (re-import of a changed manifest): everything the manifest names is set to the
 * manifest's value; pgs and properties it does not name are left alone; the one exception is
 * general/enabled of an instance that existed before, which stays as the administrator left it
 * (illumos reaches the same result through its last-import comparison for the common case).
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cut.h"
#include "hashmap.h"
#include "macro.h"
#include "mapping.h"
#include "strv.h"

#define UINT64_MAX_STR "18446744073709551615"

void map_ctx_done(map_ctx_t *ctx)
{
	strv_free(ctx->instances);
	strv_free(ctx->new_instances);
	strv_free(ctx->dependent_targets);
	ctx->dependent_targets = NULL;
	free(ctx->step_lines);
	ctx->existing = hashmap_free(ctx->existing);
	ctx->instances = ctx->new_instances = NULL;
	ctx->n_instances = ctx->n_new_instances = 0;
	ctx->step_lines = NULL;
	ctx->n_step_lines = ctx->n_step_lines_allocated = 0;
}

/* Records the current element's line for every step the last adder appended. */
static int step(map_ctx_t *ctx, int r)
{
	size_t n;

	if (r < 0)
		return r;
	n = scf_batch_size(ctx->b);
	/* Steps are only ever added to the batch, never taken away. */
	assert(n >= ctx->n_step_lines);
	if (GREEDY_REALLOC(ctx->step_lines, ctx->n_step_lines_allocated, n) < 0)
		return -SCF_ERROR_NO_MEMORY;
	for (size_t i = ctx->n_step_lines; i < n; i++)
		ctx->step_lines[i] = ctx->line;
	ctx->n_step_lines = n;
	return 0;
}

static int pg_ensure(map_ctx_t *ctx, const char *ent, const char *pg, const char *type)
{
	return step(ctx, scf_batch_pg_ensure(ctx->b, ent, pg, type, 0));
}

static int set_values(map_ctx_t *ctx, const char *ent, const char *pg, const char *prop,
        scf_type_t t, char *const *values)
{
	return step(ctx,
	        scf_batch_prop_set(ctx->b, ent, pg, prop, t, (const char *const *)values,
	                strv_length(values)));
}

static int set1(map_ctx_t *ctx, const char *ent, const char *pg, const char *prop, scf_type_t t,
        const char *value)
{
	const char *v[] = {value};

	if (!value)
		return 0;
	return step(ctx, scf_batch_prop_set(ctx->b, ent, pg, prop, t, v, 1));
}

/* A profile's property with no type takes the repository's type (astring when it is new). */
static scf_type_t untyped_property_type(
        map_ctx_t *ctx, const char *ent, const char *pg, const char *prop)
{
	scf_property_t *p = NULL;
	scf_type_t t = SCF_TYPE_ASTRING;

	if (scf_property_read(ctx->h, ent, pg, prop, &p) >= 0) {
		t = p->type;
		scf_property_free(p);
	}
	return t;
}

static int map_props(map_ctx_t *ctx, const char *ent, const char *pg, const mf_props_t *props)
{
	int r;

	if ((r = set1(ctx, ent, pg, "stability", SCF_TYPE_ASTRING, props->stability)) < 0)
		return r;
	for (size_t i = 0; i < props->n; i++) {
		const mf_property_t *p = props->v[i];
		scf_type_t t = p->type;

		ctx->line = p->line;
		if (t == SCF_TYPE_INVALID)
			t = untyped_property_type(ctx, ent, pg, p->name);
		if ((r = set_values(ctx, ent, pg, p->name, t, p->values)) < 0)
			return r;
	}
	return 0;
}

/* The properties of a method_context, into the pg that holds them. */
static int map_context(
        map_ctx_t *ctx, const char *ent, const char *pg, const mf_method_context_t *mc)
{
	const struct {
		const char *name;
		const char *value;
	} strs[] = {
	        {"working_directory", mc->working_directory},
	        {"project", mc->project},
	        {"resource_pool", mc->resource_pool},
	        {"security_flags", mc->security_flags},
	        {"profile", mc->profile},
	        {"user", mc->user},
	        {"group", mc->group},
	        {"supp_groups", mc->supp_groups},
	        {"privileges", mc->privileges},
	        {"limit_privileges", mc->limit_privileges},
	};
	int r;

	ctx->line = mc->line;
	for (size_t i = 0; i < ELEMENTSOF(strs); i++)
		if ((r = set1(ctx, ent, pg, strs[i].name, SCF_TYPE_ASTRING, strs[i].value)) < 0)
			return r;
	if (mc->profile || mc->has_credential) {
		r = set1(ctx, ent, pg, "use_profile", SCF_TYPE_BOOLEAN,
		        mc->profile ? "true" : "false");
		if (r < 0)
			return r;
	}
	if (mc->has_environment &&
	        (r = set_values(ctx, ent, pg, "environment", SCF_TYPE_ASTRING, mc->environment)) <
	                0)
		return r;
	return 0;
}

static int map_method(map_ctx_t *ctx, const char *ent, const mf_exec_method_t *m)
{
	char timeout[32];
	int r;

	ctx->line = m->line;
	if (m->delete)
		return step(ctx, scf_batch_pg_delete(ctx->b, ent, m->name));
	if (m->timeout_seconds == UINT64_MAX)
		snprintf(timeout, sizeof(timeout), "%s", UINT64_MAX_STR);
	else
		snprintf(timeout, sizeof(timeout), "%llu", (unsigned long long)m->timeout_seconds);
	if ((r = pg_ensure(ctx, ent, m->name, SCF_GROUP_METHOD)) < 0 ||
	        (r = set1(ctx, ent, m->name, "type", SCF_TYPE_ASTRING, m->type)) < 0 ||
	        (r = set1(ctx, ent, m->name, SCF_PROPERTY_EXEC, SCF_TYPE_ASTRING, m->exec)) < 0 ||
	        (r = set1(ctx, ent, m->name, SCF_PROPERTY_TIMEOUT, SCF_TYPE_COUNT, timeout)) < 0)
		return r;
	if (m->context && (r = map_context(ctx, ent, m->name, m->context)) < 0)
		return r;
	return map_props(ctx, ent, m->name, &m->props);
}

static int map_dependency(map_ctx_t *ctx, const char *ent, const mf_dependency_t *d)
{
	int r;

	ctx->line = d->line;
	if (d->delete)
		return step(ctx, scf_batch_pg_delete(ctx->b, ent, d->name));
	if ((r = pg_ensure(ctx, ent, d->name, SCF_GROUP_DEPENDENCY)) < 0 ||
	        (r = set1(ctx, ent, d->name, SCF_PROPERTY_GROUPING, SCF_TYPE_ASTRING,
	                 d->grouping)) < 0 ||
	        (r = set1(ctx, ent, d->name, SCF_PROPERTY_RESTART_ON, SCF_TYPE_ASTRING,
	                 d->restart_on)) < 0 ||
	        (r = set1(ctx, ent, d->name, "type", SCF_TYPE_ASTRING, d->type)) < 0 ||
	        (r = set_values(
	                 ctx, ent, d->name, SCF_PROPERTY_ENTITIES, SCF_TYPE_FMRI, d->entities)) < 0)
		return r;
	return map_props(ctx, ent, d->name, &d->props);
}

/* Is fmri (canonical) an entity of this bundle? */
static bool entity_in_bundle(map_ctx_t *ctx, const char *fmri)
{
	const mf_bundle_t *bd = ctx->bundle;

	for (size_t i = 0; i < bd->n_services; i++) {
		const mf_service_t *s = bd->services[i];
		_cleanup_free_ char *sf = NULL;

		if (scf_fmri_format_entity(s->e.name, NULL, &sf) >= 0 && streq(sf, fmri))
			return true;
		for (size_t j = 0; j < s->n_instances; j++) {
			_cleanup_free_ char *f = NULL;

			if (scf_fmri_format_entity(s->e.name, s->instances[j]->e.name, &f) >= 0 &&
			        streq(f, fmri))
				return true;
		}
	}
	return false;
}

/* Is fmri (canonical) an entity of this bundle, or one the repository has? */
static bool entity_known(map_ctx_t *ctx, const char *fmri)
{
	return entity_in_bundle(ctx, fmri) || scf_entity_exists(ctx->h, fmri) > 0;
}

/* Does ent's "dependents" pg hold name already (in the repository)? */
static bool dependent_recorded(map_ctx_t *ctx, const char *ent, const char *name)
{
	scf_property_t *p = NULL;

	if (scf_property_read(ctx->h, ent, SCF_PG_DEPENDENTS, name, &p) < 0)
		return false;
	scf_property_free(p);
	return true;
}

/*
 * A dependent of ent: the name in ent's "dependents" pg, and (when the target exists) the
 * dependency pg written into the target, marked external so that export leaves it to ent.
 * has_pg: ent's "dependents" pg is there by this step (another dependent of ent ensured it).
 */
static int map_dependent(map_ctx_t *ctx, const char *ent, const mf_dependent_t *d, bool has_pg)
{
	_cleanup_free_ char *target = NULL;
	const char *self[] = {ent};
	int r;

	ctx->line = d->line;
	if (scf_fmri_canonicalize(d->target, &target) < 0)
		return -SCF_ERROR_INVALID_ARGUMENT;
	if (d->delete) {
		/* Nothing to delete is no error (illumos: a dependent never imported). */
		if ((has_pg || dependent_recorded(ctx, ent, d->name)) &&
		        (r = step(ctx,
		                 scf_batch_prop_delete(ctx->b, ent, SCF_PG_DEPENDENTS, d->name))) <
		                0)
			return r;
		return entity_known(ctx, target)
		        ? step(ctx, scf_batch_pg_delete(ctx->b, target, d->name))
		        : 0;
	}
	if ((r = set1(ctx, ent, SCF_PG_DEPENDENTS, d->name, SCF_TYPE_FMRI, target)) < 0)
		return r;
	if (!entity_known(ctx, target))
		return 0;
	if (!entity_in_bundle(ctx, target) && !strv_contains(ctx->dependent_targets, target) &&
	        strv_extend(&ctx->dependent_targets, target) < 0)
		return -SCF_ERROR_NO_MEMORY;
	if ((r = pg_ensure(ctx, target, d->name, SCF_GROUP_DEPENDENCY)) < 0 ||
	        (r = set1(ctx, target, d->name, SCF_PROPERTY_GROUPING, SCF_TYPE_ASTRING,
	                 d->grouping)) < 0 ||
	        (r = set1(ctx, target, d->name, SCF_PROPERTY_RESTART_ON, SCF_TYPE_ASTRING,
	                 d->restart_on)) < 0 ||
	        (r = set1(ctx, target, d->name, "type", SCF_TYPE_ASTRING, "service")) < 0 ||
	        (r = step(ctx,
	                 scf_batch_prop_set(ctx->b, target, d->name, SCF_PROPERTY_ENTITIES,
	                         SCF_TYPE_FMRI, self, 1))) < 0 ||
	        (r = set1(ctx, target, d->name, SCF_PROPERTY_EXTERNAL, SCF_TYPE_BOOLEAN, "true")) <
	                0 ||
	        (r = set1(ctx, target, d->name, SCF_PROPERTY_ENTITY_STABILITY, SCF_TYPE_ASTRING,
	                 d->props.stability)) < 0)
		return r;
	for (size_t i = 0; i < d->props.n; i++) {
		const mf_property_t *p = d->props.v[i];

		ctx->line = p->line;
		if ((r = set_values(ctx, target, d->name, p->name, p->type, p->values)) < 0)
			return r;
	}
	return 0;
}

char *map_pg_name(const char *prefix, const char *s)
{
	char *n;

	if (asprintf(&n, "%s%s", prefix, s) < 0)
		return NULL;
	for (char *p = n + strlen(prefix); *p; p++)
		if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') ||
		            ('0' <= *p && *p <= '9') || *p == '-' || *p == '_' || *p == '.'))
			*p = '_';
	if (!(('a' <= *n && *n <= 'z') || ('A' <= *n && *n <= 'Z') || *n == '_')) {
		char *u;

		if (asprintf(&u, "_%s", n) < 0)
			u = NULL;
		free(n);
		if (!(n = u))
			return NULL;
	}
	if (strlen(n) > SCF_LIMIT_MAX_NAME_LENGTH)
		n[SCF_LIMIT_MAX_NAME_LENGTH] = '\0';
	return n;
}

char *map_loctext_name(const char *prefix, const char *lang)
{
	char *n;

	if (asprintf(&n, "%s%s", prefix, lang) < 0)
		return NULL;
	for (char *p = n + strlen(prefix); *p; p++)
		if (!(('a' <= *p && *p <= 'z') || ('A' <= *p && *p <= 'Z') ||
		            ('0' <= *p && *p <= '9') || *p == '_'))
			*p = '_';
	return n;
}

static int map_loctexts(
        map_ctx_t *ctx, const char *ent, const char *pg, const char *prefix, const mf_loctexts_t *l)
{
	int r;

	for (size_t i = 0; i < l->n; i++) {
		_cleanup_free_ char *name =
		        map_loctext_name(prefix, l->v[i].lang ? l->v[i].lang : "C");

		if (!name)
			return -SCF_ERROR_NO_MEMORY;
		if ((r = set1(ctx, ent, pg, name, SCF_TYPE_USTRING, l->v[i].text)) < 0)
			return r;
	}
	return 0;
}

/* One template pg holding a loctext list (tm_common_name, tm_description). */
static int map_text_pg(map_ctx_t *ctx, const char *ent, const char *pg, const mf_loctexts_t *l)
{
	int r;

	if (l->n == 0)
		return 0;
	if ((r = pg_ensure(ctx, ent, pg, "template")) < 0)
		return r;
	return map_loctexts(ctx, ent, pg, "", l);
}

static int map_docs(map_ctx_t *ctx, const char *ent, const mf_template_t *t)
{
	int r;

	for (size_t i = 0; i < t->n_manpages; i++) {
		const mf_manpage_t *m = &t->manpages[i];
		_cleanup_free_ char *key = NULL, *pg = NULL;

		if (asprintf(&key, "%s_%s", m->title, m->section) < 0 ||
		        !(pg = map_pg_name("tm_man_", key)))
			return -SCF_ERROR_NO_MEMORY;
		if ((r = pg_ensure(ctx, ent, pg, "template_manpage")) < 0 ||
		        (r = set1(ctx, ent, pg, "title", SCF_TYPE_ASTRING, m->title)) < 0 ||
		        (r = set1(ctx, ent, pg, "section", SCF_TYPE_ASTRING, m->section)) < 0 ||
		        (r = set1(ctx, ent, pg, "manpath", SCF_TYPE_ASTRING, m->manpath)) < 0)
			return r;
	}
	for (size_t i = 0; i < t->n_doc_links; i++) {
		const mf_doc_link_t *d = &t->doc_links[i];
		_cleanup_free_ char *pg = map_pg_name("tm_doc_", d->name);

		if (!pg)
			return -SCF_ERROR_NO_MEMORY;
		if ((r = pg_ensure(ctx, ent, pg, "template_doc_link")) < 0 ||
		        (r = set1(ctx, ent, pg, "name", SCF_TYPE_ASTRING, d->name)) < 0 ||
		        (r = set1(ctx, ent, pg, "uri", SCF_TYPE_ASTRING, d->uri)) < 0)
			return r;
	}
	return 0;
}

static int map_prop_pattern(
        map_ctx_t *ctx, const char *ent, const char *pgpat, const mf_prop_pattern_t *pp)
{
	_cleanup_free_ char *pg = NULL;
	int r;

	ctx->line = pp->line;
	/* The reader refused a name too long (build.c): only memory can fail here. */
	if (mf_prop_pattern_pg_name(pgpat, pp->name, &pg, NULL) < 0)
		return -SCF_ERROR_NO_MEMORY;
	if ((r = pg_ensure(ctx, ent, pg, "template_prop_pattern")) < 0 ||
	        (r = set1(ctx, ent, pg, "name", SCF_TYPE_ASTRING, pp->name)) < 0 ||
	        (r = set1(ctx, ent, pg, "pg_pattern", SCF_TYPE_ASTRING, pgpat)) < 0 ||
	        (r = set1(ctx, ent, pg, "type", SCF_TYPE_ASTRING, scf_type_to_string(pp->type))) <
	                0 ||
	        (r = set1(ctx, ent, pg, "required", SCF_TYPE_BOOLEAN,
	                 pp->required ? "true" : "false")) < 0 ||
	        (r = map_loctexts(ctx, ent, pg, "common_name_", &pp->common_name)) < 0)
		return r;
	return map_loctexts(ctx, ent, pg, "description_", &pp->description);
}

static int map_pg_pattern(map_ctx_t *ctx, const char *ent, const mf_pg_pattern_t *p)
{
	_cleanup_free_ char *pg = NULL;
	int r;

	ctx->line = p->line;
	if (mf_pg_pattern_pg_name(p, &pg, NULL) < 0)
		return -SCF_ERROR_NO_MEMORY;
	if ((r = pg_ensure(ctx, ent, pg, "template_pg_pattern")) < 0 ||
	        (r = set1(ctx, ent, pg, "name", SCF_TYPE_ASTRING, p->name)) < 0 ||
	        (r = set1(ctx, ent, pg, "type", SCF_TYPE_ASTRING, p->type)) < 0 ||
	        (r = set1(ctx, ent, pg, "target", SCF_TYPE_ASTRING, p->target)) < 0 ||
	        (r = set1(ctx, ent, pg, "required", SCF_TYPE_BOOLEAN,
	                 p->required ? "true" : "false")) < 0 ||
	        (r = map_loctexts(ctx, ent, pg, "common_name_", &p->common_name)) < 0 ||
	        (r = map_loctexts(ctx, ent, pg, "description_", &p->description)) < 0)
		return r;
	for (size_t i = 0; i < p->n_props; i++)
		if ((r = map_prop_pattern(ctx, ent, pg, p->props[i])) < 0)
			return r;
	return 0;
}

/* Templates as illumos stores them: tm_common_name, tm_description, tm_man_*, tm_doc_*, ... */
static int map_template(map_ctx_t *ctx, const char *ent, const mf_template_t *t)
{
	int r;

	ctx->line = t->line;
	if ((r = map_text_pg(ctx, ent, "tm_common_name", &t->common_name)) < 0 ||
	        (r = map_text_pg(ctx, ent, "tm_description", &t->description)) < 0 ||
	        (r = map_docs(ctx, ent, t)) < 0)
		return r;
	for (size_t i = 0; i < t->n_pg_patterns; i++)
		if ((r = map_pg_pattern(ctx, ent, t->pg_patterns[i])) < 0)
			return r;
	return 0;
}

/* notification_parameters: one notify_params pg per event, "TRANSPORT,PARAM" properties. */
static int map_notify(map_ctx_t *ctx, const char *ent, const mf_notify_params_t *np)
{
	_cleanup_free_ char *pg = map_pg_name("", np->event);
	int r;

	ctx->line = np->line;
	if (!pg)
		return -SCF_ERROR_NO_MEMORY;
	if ((r = pg_ensure(ctx, ent, pg, "notify_params")) < 0)
		return r;
	for (size_t i = 0; i < np->n_types; i++) {
		const mf_notify_type_t *t = np->types[i];
		_cleanup_free_ char *active = NULL;

		ctx->line = t->line;
		if (asprintf(&active, "%s,active", t->name) < 0)
			return -SCF_ERROR_NO_MEMORY;
		if ((r = set1(ctx, ent, pg, active, SCF_TYPE_BOOLEAN,
		             t->active ? "true" : "false")) < 0)
			return r;
		for (size_t j = 0; j < t->n_params; j++) {
			_cleanup_free_ char *name = NULL;

			if (asprintf(&name, "%s,%s", t->name, t->param_names[j]) < 0)
				return -SCF_ERROR_NO_MEMORY;
			r = set_values(ctx, ent, pg, name, SCF_TYPE_ASTRING, t->param_values[j]);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int map_pg(map_ctx_t *ctx, const char *ent, const mf_pg_t *pg)
{
	const char *type = pg->type;
	int r;

	ctx->line = pg->line;
	if (pg->delete)
		return step(ctx, scf_batch_pg_delete(ctx->b, ent, pg->name));
	if (!type) {
		/* A profile may leave the type to the pg it changes. */
		scf_pg_t *cur = NULL;

		if (scf_pg_get(ctx->h, ent, pg->name, NULL, 0, &cur) < 0) {
			fprintf(ctx->warn,
			        "svccfg: %s: property group \"%s\" does not exist and has "
			        "no type; skipped.\n",
			        ent, pg->name);
			ctx->warnings++;
			return 0;
		}
		r = pg_ensure(ctx, ent, pg->name, cur->type);
		scf_pg_free(cur);
	} else
		r = pg_ensure(ctx, ent, pg->name, type);
	if (r < 0)
		return r;
	return map_props(ctx, ent, pg->name, &pg->props);
}

/* What services and instances share (dependents come later, see the top of the file). */
static int map_entity(map_ctx_t *ctx, const char *ent, const mf_entity_t *e)
{
	int r;

	ctx->line = e->line;
	if (e->restarter &&
	        ((r = pg_ensure(ctx, ent, SCF_PG_GENERAL, SCF_GROUP_FRAMEWORK)) < 0 ||
	                (r = set1(ctx, ent, SCF_PG_GENERAL, SCF_PROPERTY_RESTARTER, SCF_TYPE_FMRI,
	                         e->restarter)) < 0))
		return r;
	if (e->context &&
	        ((r = pg_ensure(ctx, ent, "method_context", SCF_GROUP_FRAMEWORK)) < 0 ||
	                (r = map_context(ctx, ent, "method_context", e->context)) < 0))
		return r;
	for (size_t i = 0; i < e->n_dependencies; i++)
		if ((r = map_dependency(ctx, ent, e->dependencies[i])) < 0)
			return r;
	for (size_t i = 0; i < e->n_methods; i++)
		if ((r = map_method(ctx, ent, e->methods[i])) < 0)
			return r;
	for (size_t i = 0; i < e->n_notify; i++)
		if ((r = map_notify(ctx, ent, e->notify[i])) < 0)
			return r;
	for (size_t i = 0; i < e->n_pgs; i++)
		if ((r = map_pg(ctx, ent, e->pgs[i])) < 0)
			return r;
	if (e->template && (r = map_template(ctx, ent, e->template)) < 0)
		return r;
	return 0;
}

static void warn(map_ctx_t *ctx, const char *fmt, ...) _printf_(2, 3);
static void warn(map_ctx_t *ctx, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	/* A warning quotes the bundle: cut and escaped as every message is (cut.h). */
	va_start(ap, fmt);
	msg = smf_cut_vformat(fmt, ap);
	va_end(ap);
	fprintf(ctx->warn, "svccfg: %s\n", msg ? msg : fmt);
	ctx->warnings++;
}

/* Values of ctx->existing (never NULL, which hashmap_get() returns for a missing key). */
#define INSTANCE_EXISTS ((void *)1)
#define INSTANCE_ABSENT ((void *)2)

typedef struct existing_read {
	hashmap_t *set;
	char **fmris; /* as listed: the answers come in this order */
	size_t next;
} existing_read_t;

static int note_existing(const scf_bulk_entity_t *e, void *userdata)
{
	existing_read_t *x = userdata;
	const char *fmri = x->fmris[x->next++];

	/* Any other error (not an instance FMRI) is left to scf_entity_exists() to report. */
	if (e->error != 0 && e->error != -SCF_ERROR_NOT_FOUND)
		return 0;
	if (hashmap_put(x->set, fmri, e->error == 0 ? INSTANCE_EXISTS : INSTANCE_ABSENT) < 0)
		return -SCF_ERROR_NO_MEMORY;
	return 0;
}

/*
 * Which of the bundle's instances exist, in one bulk read (a manifest of 10,000 instances asked
 * one by one cost 10,000 round trips, a third of its import).  A configd without bulk reads
 * leaves ctx->existing NULL: each instance is then asked on its own.
 */
static int read_existing(map_ctx_t *ctx)
{
	const mf_bundle_t *bd = ctx->bundle;
	_cleanup_strv_free_ char **l = NULL;
	_cleanup_(hashmap_freep) hashmap_t *set = hashmap_new();
	existing_read_t x;
	size_t n = 0;
	int r;

	if (!set)
		return -SCF_ERROR_NO_MEMORY;
	for (size_t i = 0; i < bd->n_services; i++) {
		const mf_service_t *s = bd->services[i];

		for (size_t j = 0; j < s->n_instances; j++) {
			_cleanup_free_ char *f = NULL;

			r = scf_fmri_format_entity(s->e.name, s->instances[j]->e.name, &f);
			if (r < 0)
				return r;
			if (strv_extend_counted(&l, &n, f) < 0)
				return -SCF_ERROR_NO_MEMORY;
		}
	}
	if (n == 0)
		return 0;
	x = (existing_read_t){.set = set, .fmris = l};
	r = scf_bulk_read(ctx->h,
	        &(scf_bulk_query_t){.fmris = (const char *const *)l, .n_fmris = n}, note_existing,
	        &x);
	if (r == -SCF_ERROR_VERSION_MISMATCH)
		return 0;
	if (r < 0)
		return r;
	assert(x.next == n);
	ctx->existing = TAKE_PTR(set);
	return 0;
}

/* 1 if the instance fmri exists, 0 if not, or < 0. */
static int instance_exists(map_ctx_t *ctx, const char *fmri)
{
	void *v = ctx->existing ? hashmap_get(ctx->existing, fmri) : NULL;

	if (v)
		return v == INSTANCE_EXISTS;
	return scf_entity_exists(ctx->h, fmri);
}

static int map_instance(map_ctx_t *ctx, const char *svc, const mf_instance_t *i)
{
	_cleanup_free_ char *fmri = NULL;
	bool set_enabled;
	int r, exists;

	ctx->line = i->e.line;
	r = scf_fmri_format_entity(svc, i->e.name, &fmri);
	if (r < 0)
		return r;
	exists = instance_exists(ctx, fmri);
	if (exists < 0)
		return exists;
	if (ctx->mode == MAP_APPLY && !exists) {
		warn(ctx, "%s: instance does not exist; profile entries for it are ignored.", fmri);
		return 0;
	}
	if (ctx->mode == MAP_IMPORT) {
		if ((r = step(ctx, scf_batch_instance_ensure(ctx->b, fmri))) < 0)
			return r;
		if (!exists &&
		        strv_extend_counted(&ctx->new_instances, &ctx->n_new_instances, fmri) < 0)
			return -SCF_ERROR_NO_MEMORY;
		set_enabled = !exists;
	} else
		set_enabled = i->enabled_set;
	if (strv_extend_counted(&ctx->instances, &ctx->n_instances, fmri) < 0)
		return -SCF_ERROR_NO_MEMORY;
	if (set_enabled &&
	        ((r = pg_ensure(ctx, fmri, SCF_PG_GENERAL, SCF_GROUP_FRAMEWORK)) < 0 ||
	                (r = set1(ctx, fmri, SCF_PG_GENERAL, SCF_PROPERTY_ENABLED, SCF_TYPE_BOOLEAN,
	                         i->enabled ? "true" : "false")) < 0))
		return r;
	return map_entity(ctx, fmri, &i->e);
}

static int map_service(map_ctx_t *ctx, const mf_service_t *s)
{
	_cleanup_free_ char *fmri = NULL;
	int r;

	ctx->line = s->e.line;
	r = scf_fmri_format_entity(s->e.name, NULL, &fmri);
	if (r < 0)
		return r;
	if (ctx->mode == MAP_APPLY) {
		r = scf_entity_exists(ctx->h, fmri);
		if (r < 0)
			return r;
		if (r == 0) {
			warn(ctx, "%s: service does not exist; profile entries for it are ignored.",
			        fmri);
			return 0;
		}
	} else if ((r = step(ctx, scf_batch_service_ensure(ctx->b, fmri))) < 0)
		return r;
	if ((s->single_instance || s->stability) &&
	        (r = pg_ensure(ctx, fmri, SCF_PG_GENERAL, SCF_GROUP_FRAMEWORK)) < 0)
		return r;
	if (s->single_instance &&
	        (r = set1(ctx, fmri, SCF_PG_GENERAL, "single_instance", SCF_TYPE_BOOLEAN, "true")) <
	                0)
		return r;
	if ((r = set1(ctx, fmri, SCF_PG_GENERAL, SCF_PROPERTY_ENTITY_STABILITY, SCF_TYPE_ASTRING,
	             s->stability)) < 0)
		return r;
	if ((r = map_entity(ctx, fmri, &s->e)) < 0)
		return r;
	for (size_t i = 0; i < s->n_instances; i++)
		if ((r = map_instance(ctx, s->e.name, s->instances[i])) < 0)
			return r;
	return 0;
}

static int map_dependents_of(map_ctx_t *ctx, const char *fmri, const mf_entity_t *e)
{
	bool has_pg = false;
	int r;

	/* The "dependents" pg first, when a dependent is written (a deleted one may come before). */
	for (size_t i = 0; i < e->n_dependents && !has_pg; i++)
		if (!e->dependents[i]->delete) {
			if ((r = pg_ensure(ctx, fmri, SCF_PG_DEPENDENTS, SCF_GROUP_FRAMEWORK)) < 0)
				return r;
			has_pg = true;
		}
	for (size_t i = 0; i < e->n_dependents; i++)
		if ((r = map_dependent(ctx, fmri, e->dependents[i], has_pg)) < 0)
			return r;
	return 0;
}

static int map_dependents(map_ctx_t *ctx, const mf_service_t *s)
{
	_cleanup_free_ char *fmri = NULL;
	int r;

	r = scf_fmri_format_entity(s->e.name, NULL, &fmri);
	if (r < 0)
		return r;
	if (ctx->mode == MAP_APPLY && scf_entity_exists(ctx->h, fmri) <= 0)
		return 0;
	if ((r = map_dependents_of(ctx, fmri, &s->e)) < 0)
		return r;
	for (size_t i = 0; i < s->n_instances; i++) {
		_cleanup_free_ char *inst = NULL;

		r = scf_fmri_format_entity(s->e.name, s->instances[i]->e.name, &inst);
		if (r < 0)
			return r;
		if (ctx->mode == MAP_APPLY && !strv_contains(ctx->instances, inst))
			continue;
		if ((r = map_dependents_of(ctx, inst, &s->instances[i]->e)) < 0)
			return r;
	}
	return 0;
}

static char *format_error(const map_ctx_t *ctx, unsigned line, const char *msg)
{
	char *s;
	int r;

	/* The bookkeeping steps (hash, snapshots) belong to no element: no line then. */
	if (line > 0)
		r = asprintf(&s, "%s:%u: %s", ctx->bundle->file, line, msg);
	else
		r = asprintf(&s, "%s: %s", ctx->bundle->file, msg);
	return r < 0 ? NULL : s;
}

int map_bundle(map_ctx_t *ctx, char **errmsg)
{
	const mf_bundle_t *bd = ctx->bundle;
	int r;

	r = read_existing(ctx);
	for (size_t i = 0; r >= 0 && i < bd->n_services; i++)
		r = map_service(ctx, bd->services[i]);
	for (size_t i = 0; r >= 0 && i < bd->n_services; i++)
		r = map_dependents(ctx, bd->services[i]);
	if (r < 0) {
		const char *m = scf_handle_errmsg(ctx->h);

		*errmsg = format_error(ctx, ctx->line, m && *m ? m : scf_strerror(r));
	}
	return r;
}

char *map_commit_error(const map_ctx_t *ctx, int r)
{
	const char *m = scf_handle_errmsg(ctx->h);
	size_t stepno;
	unsigned line = 0;

	if (!m || !*m)
		m = scf_strerror(r);
	/* configd names the failing step ("step 12 (...): ..."), counted from 1. */
	if (sscanf(m, "step %zu", &stepno) == 1 && stepno >= 1 && stepno <= ctx->n_step_lines)
		line = ctx->step_lines[stepno - 1];
	return format_error(ctx, line, m);
}
