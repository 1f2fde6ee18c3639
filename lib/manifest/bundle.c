/*
 * bundle.c: releasing and searching the in-memory bundle model (see bundle.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bundle.h"
#include "macro.h"
#include "strv.h"

size_t mf_array_capacity(size_t n)
{
	/* GREEDY_REALLOC's growth, replayed: 8 at first, then doubling. */
	size_t cap = 8;

	if (n == 0)
		return 0;
	while (cap < n)
		cap *= 2;
	return cap;
}

int mf_array_push(void *v, size_t *n, void *p)
{
	void ***arr = v;

	if (MF_ARRAY_GROW(*arr, *n) < 0)
		return -ENOMEM;
	(*arr)[(*n)++] = p;
	return 0;
}

static void props_clear(mf_props_t *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i]->name);
		strv_free(p->v[i]->values);
		free(p->v[i]);
	}
	free(p->v);
	free(p->stability);
}

static void loctexts_clear(mf_loctexts_t *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].lang);
		free(l->v[i].text);
	}
	free(l->v);
}

void mf_method_context_free(mf_method_context_t *c)
{
	if (!c)
		return;
	free(c->working_directory);
	free(c->project);
	free(c->resource_pool);
	free(c->security_flags);
	free(c->profile);
	free(c->user);
	free(c->group);
	free(c->supp_groups);
	free(c->privileges);
	free(c->limit_privileges);
	strv_free(c->environment);
	free(c);
}

static void notify_free(mf_notify_params_t *np)
{
	for (size_t i = 0; i < np->n_types; i++) {
		mf_notify_type_t *t = np->types[i];

		for (size_t j = 0; j < t->n_params; j++)
			strv_free(t->param_values[j]);
		free(t->param_values);
		strv_free(t->param_names);
		free(t->name);
		free(t);
	}
	free(np->types);
	free(np->event);
	free(np);
}

static void template_free(mf_template_t *t)
{
	if (!t)
		return;
	loctexts_clear(&t->common_name);
	loctexts_clear(&t->description);
	for (size_t i = 0; i < t->n_manpages; i++) {
		free(t->manpages[i].title);
		free(t->manpages[i].section);
		free(t->manpages[i].manpath);
	}
	free(t->manpages);
	for (size_t i = 0; i < t->n_doc_links; i++) {
		free(t->doc_links[i].name);
		free(t->doc_links[i].uri);
	}
	free(t->doc_links);
	for (size_t i = 0; i < t->n_pg_patterns; i++) {
		mf_pg_pattern_t *pp = t->pg_patterns[i];

		for (size_t j = 0; j < pp->n_props; j++) {
			free(pp->props[j]->name);
			loctexts_clear(&pp->props[j]->common_name);
			loctexts_clear(&pp->props[j]->description);
			free(pp->props[j]);
		}
		free(pp->props);
		free(pp->name);
		free(pp->type);
		free(pp->target);
		loctexts_clear(&pp->common_name);
		loctexts_clear(&pp->description);
		free(pp);
	}
	free(t->pg_patterns);
	free(t);
}

static void entity_clear(mf_entity_t *e)
{
	free(e->name);
	free(e->restarter);
	for (size_t i = 0; i < e->n_dependencies; i++) {
		mf_dependency_t *d = e->dependencies[i];

		free(d->name);
		free(d->grouping);
		free(d->restart_on);
		free(d->type);
		strv_free(d->entities);
		props_clear(&d->props);
		free(d);
	}
	free(e->dependencies);
	for (size_t i = 0; i < e->n_dependents; i++) {
		mf_dependent_t *d = e->dependents[i];

		free(d->name);
		free(d->grouping);
		free(d->restart_on);
		free(d->target);
		props_clear(&d->props);
		free(d);
	}
	free(e->dependents);
	mf_method_context_free(e->context);
	for (size_t i = 0; i < e->n_methods; i++) {
		mf_exec_method_t *m = e->methods[i];

		free(m->name);
		free(m->type);
		free(m->exec);
		mf_method_context_free(m->context);
		props_clear(&m->props);
		free(m);
	}
	free(e->methods);
	for (size_t i = 0; i < e->n_notify; i++)
		notify_free(e->notify[i]);
	free(e->notify);
	for (size_t i = 0; i < e->n_pgs; i++) {
		free(e->pgs[i]->name);
		free(e->pgs[i]->type);
		props_clear(&e->pgs[i]->props);
		free(e->pgs[i]);
	}
	free(e->pgs);
	template_free(e->template);
}

static void service_free(mf_service_t *s)
{
	entity_clear(&s->e);
	for (size_t i = 0; i < s->n_instances; i++) {
		entity_clear(&s->instances[i]->e);
		free(s->instances[i]);
	}
	free(s->instances);
	free(s->version);
	free(s->stability);
	free(s);
}

void mf_bundle_free(mf_bundle_t *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n_services; i++)
		service_free(b->services[i]);
	free(b->services);
	free(b->name);
	free(b->file);
	free(b);
}

static const char *const bundle_types[] = {
        [MF_BUNDLE_MANIFEST] = "manifest",
        [MF_BUNDLE_PROFILE] = "profile",
        [MF_BUNDLE_ARCHIVE] = "archive",
};

static const char *const service_types[] = {
        [MF_SERVICE_SERVICE] = "service",
        [MF_SERVICE_RESTARTER] = "restarter",
        [MF_SERVICE_MILESTONE] = "milestone",
};

/* The index of s in names (entry 0 unused), or 0. */
static int from_string(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 1; s && i < n; i++)
		if (names[i] && streq(names[i], s))
			return (int)i;
	return 0;
}

const char *mf_bundle_type_to_string(mf_bundle_type_t t)
{
	return (size_t)t < ELEMENTSOF(bundle_types) ? bundle_types[t] : NULL;
}

mf_bundle_type_t mf_bundle_type_from_string(const char *s)
{
	return from_string(bundle_types, ELEMENTSOF(bundle_types), s);
}

const char *mf_service_type_to_string(mf_service_type_t t)
{
	return (size_t)t < ELEMENTSOF(service_types) ? service_types[t] : NULL;
}

mf_service_type_t mf_service_type_from_string(const char *s)
{
	return from_string(service_types, ELEMENTSOF(service_types), s);
}

mf_service_t *mf_bundle_find_service(const mf_bundle_t *b, const char *name)
{
	for (size_t i = 0; i < b->n_services; i++)
		if (streq(b->services[i]->e.name, name))
			return b->services[i];
	return NULL;
}

mf_instance_t *mf_service_find_instance(const mf_service_t *s, const char *name)
{
	for (size_t i = 0; i < s->n_instances; i++)
		if (streq(s->instances[i]->e.name, name))
			return s->instances[i];
	return NULL;
}

mf_pg_t *mf_entity_find_pg(const mf_entity_t *e, const char *name)
{
	for (size_t i = 0; i < e->n_pgs; i++)
		if (streq(e->pgs[i]->name, name))
			return e->pgs[i];
	return NULL;
}

mf_property_t *mf_props_find(const mf_props_t *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (streq(p->v[i]->name, name))
			return p->v[i];
	return NULL;
}

static int pg_name_fits(char *name, char **ret, size_t *over)
{
	size_t len = strlen(name);

	*ret = name;
	if (over)
		*over = len > SCF_LIMIT_MAX_NAME_LENGTH ? len - SCF_LIMIT_MAX_NAME_LENGTH : 0;
	return len > SCF_LIMIT_MAX_NAME_LENGTH ? -ENAMETOOLONG : 0;
}

int mf_pg_pattern_pg_name(const mf_pg_pattern_t *p, char **ret, size_t *over)
{
	bool named = p->name && *p->name, typed = p->type && *p->type;
	char *n;

	/* The type is part of the name only when there is no name (svccfg_xml.c). */
	if (asprintf(&n, "%s%s_%s", MF_PG_PATTERN_PG_BASE,
	            named           ? (typed ? "nt" : "n")
	                    : typed ? "t"
	                            : "",
	            named           ? p->name
	                    : typed ? p->type
	                            : "") < 0)
		return -ENOMEM;
	return pg_name_fits(n, ret, over);
}

int mf_prop_pattern_pg_name(const char *pgpat_pg, const char *prop, char **ret, size_t *over)
{
	const char *unique = pgpat_pg;
	char *n;

	if (strneq(unique, MF_PG_PATTERN_PG_BASE, strlen(MF_PG_PATTERN_PG_BASE)))
		unique += strlen(MF_PG_PATTERN_PG_BASE);
	if (asprintf(&n, "tm_proppat_%s_%s", unique, prop) < 0)
		return -ENOMEM;
	return pg_name_fits(n, ret, over);
}
