/*
 * build.c: from a structurally checked tree to an mf_bundle_t, with the semantic checks.
 *
 * Runs only on a tree that passed check.c, so required attributes are present and enumerated
 * ones are legal; what is left to check here is what a content model cannot say, the checks
 * illumos' svccfg makes while it reads a bundle: names are legal (services, instances, pgs,
 * properties), every value parses for its type, a property's list matches its type, a
 * dependent names exactly one service or instance, environment variables are well formed,
 * and nothing is defined twice (service, instance, pg, property).  Each problem is recorded
 * with its element's line and the build goes on, so one pass reports them all; the caller
 * throws the bundle away if anything was recorded.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/tree.h>

#include "build.h"
#include "model.h"
#include "strv.h"

typedef struct builder {
	mf_reader_t *r;
	bool profile;
} builder_t;

static bool is_elem(const xmlNode *n, const char *name)
{
	return n->type == XML_ELEMENT_NODE && !n->ns && streq((const char *)n->name, name);
}

#define FOREACH_CHILD(c, n)                                                                        \
	for (xmlNode *c = (n)->children; c; c = c->next)                                           \
		if (c->type == XML_ELEMENT_NODE)

/* A strdup'ed attribute; a required one that is missing can only mean memory ran out. */
static char *attr(builder_t *b, const xmlNode *n, const char *name, bool required)
{
	char *v = mf_attr(n, name);

	if (!v && (required || xmlHasProp(n, (const xmlChar *)name)))
		b->r->oom = true;
	return v;
}

static bool attr_bool(const xmlNode *n, const char *name, bool dflt)
{
	_cleanup_free_ char *v = mf_attr(n, name);

	return v ? streq(v, "true") : dflt;
}

static void *new0(builder_t *b, size_t size)
{
	void *p = calloc(1, size);

	if (!p)
		b->r->oom = true;
	return p;
}

static void push(builder_t *b, void *arr, size_t *n, void *p)
{
	if (mf_array_push(arr, n, p) < 0) {
		b->r->oom = true;
		free(p);
	}
}

static void check_name(builder_t *b, const xmlNode *n, const char *what, const char *name)
{
	int k = scf_name_validate(name);

	if (k == -SCF_ERROR_CONSTRAINT_VIOLATED)
		mf_err(b->r, n, "%s name \"%s\" is too long (at most %d bytes)", what, name,
		        SCF_LIMIT_MAX_NAME_LENGTH);
	else if (k < 0)
		mf_err(b->r, n, "illegal %s name \"%s\"", what, name);
}

static scf_type_t type_of(const char *s)
{
	return s ? scf_string_to_type(s) : SCF_TYPE_INVALID;
}

/* Validates raw for t and appends its canonical form to *values. */
static void add_value(builder_t *b, const xmlNode *n, scf_type_t t, const char *raw, const char *pg,
        const char *prop, char ***values)
{
	char *norm = NULL;
	int k;

	if (t == SCF_TYPE_INVALID)
		/* A profile's untyped property: apply types it from the repository. */
		norm = strdup(raw);
	else if (t == SCF_TYPE_BOOLEAN) {
		/* Bundles spell booleans out; "1" and "t" are libscf syntax only. */
		if (streq(raw, "true") || streq(raw, "false"))
			norm = strdup(raw);
		else {
			mf_err(b->r, n,
			        "illegal value \"%s\" for boolean property \"%s/%s\" (expected "
			        "true or false)",
			        raw, pg, prop);
			return;
		}
	} else {
		k = scf_value_normalize(t, raw, &norm);
		if (k < 0) {
			mf_err(b->r, n, "illegal value \"%s\" for %s property \"%s/%s\"%s", raw,
			        scf_type_to_string(t), pg, prop,
			        k == -SCF_ERROR_CONSTRAINT_VIOLATED ? " (too long)" : "");
			return;
		}
	}
	if (!norm || strv_consume(values, norm) < 0)
		b->r->oom = true;
}

static mf_property_t *new_property(
        builder_t *b, const xmlNode *n, mf_props_t *props, const char *pg)
{
	_cleanup_free_ char *name = attr(b, n, "name", true);
	mf_property_t *p, *old;

	if (!name)
		return NULL;
	check_name(b, n, "property", name);
	old = mf_props_find(props, name);
	if (old)
		mf_err(b->r, n,
		        "property \"%s\" is defined twice in property group \"%s\" (first at line "
		        "%u)",
		        name, pg, old->line);
	p = new0(b, sizeof(*p));
	if (!p)
		return NULL;
	p->name = TAKE_PTR(name);
	p->line = mf_line(n);
	p->override = attr_bool(n, "override", false);
	push(b, &props->v, &props->n, p);
	return p;
}

static void build_propval(builder_t *b, const xmlNode *n, mf_props_t *props, const char *pg)
{
	_cleanup_free_ char *type = attr(b, n, "type", false), *value = attr(b, n, "value", true);
	mf_property_t *p = new_property(b, n, props, pg);

	if (!p || !value)
		return;
	p->type = type_of(type);
	add_value(b, n, p->type, value, pg, p->name, &p->values);
}

static void build_property(builder_t *b, const xmlNode *n, mf_props_t *props, const char *pg)
{
	_cleanup_free_ char *type = attr(b, n, "type", false);
	mf_property_t *p = new_property(b, n, props, pg);

	if (!p)
		return;
	p->is_list = true;
	p->type = type_of(type);
	FOREACH_CHILD(list, n)
	{
		size_t len = strlen((const char *)list->name);
		_cleanup_free_ char *ltype =
		        strndup((const char *)list->name, len - strlen("_list"));

		if (!ltype) {
			b->r->oom = true;
			return;
		}
		if (p->type == SCF_TYPE_INVALID && !type)
			p->type = type_of(ltype);
		else if (p->type != type_of(ltype)) {
			mf_err(b->r, list, "property \"%s/%s\" of type %s has a <%s>", pg, p->name,
			        type, (const char *)list->name);
			continue;
		}
		FOREACH_CHILD(v, list)
		{
			_cleanup_free_ char *raw = attr(b, v, "value", true);

			if (raw)
				add_value(b, v, p->type, raw, pg, p->name, &p->values);
		}
	}
}

/* The <stability>, <propval> and <property> children of a pg-like element. */
static void build_props(builder_t *b, const xmlNode *n, mf_props_t *props, const char *pg)
{
	FOREACH_CHILD(c, n)
	{
		if (is_elem(c, "stability"))
			props->stability = attr(b, c, "value", true);
		else if (is_elem(c, "propval"))
			build_propval(b, c, props, pg);
		else if (is_elem(c, "property"))
			build_property(b, c, props, pg);
	}
}

/*
 * Every pg-defining element of an entity shares one name space: two of them with one name
 * would write one pg twice.  Returns the line of the earlier definition, or 0.
 */
static unsigned pg_defined(const mf_entity_t *e, const char *name)
{
	for (size_t i = 0; i < e->n_pgs; i++)
		if (streq(e->pgs[i]->name, name))
			return e->pgs[i]->line;
	for (size_t i = 0; i < e->n_dependencies; i++)
		if (streq(e->dependencies[i]->name, name))
			return e->dependencies[i]->line;
	for (size_t i = 0; i < e->n_methods; i++)
		if (streq(e->methods[i]->name, name))
			return e->methods[i]->line;
	return 0;
}

static bool check_pg_name(builder_t *b, const xmlNode *n, const mf_entity_t *e, const char *name)
{
	unsigned first = pg_defined(e, name);

	check_name(b, n, "property group", name);
	if (first)
		mf_err(b->r, n,
		        "property group \"%s\" of \"%s\" is defined twice (first at line %u)", name,
		        e->name, first);
	return first == 0;
}

static void build_pg(builder_t *b, const xmlNode *n, mf_entity_t *e)
{
	mf_pg_t *pg = new0(b, sizeof(*pg));

	if (!pg)
		return;
	pg->name = attr(b, n, "name", true);
	pg->type = attr(b, n, "type", false);
	pg->delete = attr_bool(n, "delete", false);
	pg->line = mf_line(n);
	if (!pg->name) {
		free(pg);
		return;
	}
	check_pg_name(b, n, e, pg->name);
	build_props(b, n, &pg->props, pg->name);
	push(b, &e->pgs, &e->n_pgs, pg);
}

static void build_dependency(builder_t *b, const xmlNode *n, mf_entity_t *e)
{
	mf_dependency_t *d = new0(b, sizeof(*d));

	if (!d)
		return;
	d->name = attr(b, n, "name", true);
	d->grouping = attr(b, n, "grouping", true);
	d->restart_on = attr(b, n, "restart_on", true);
	d->type = attr(b, n, "type", true);
	d->delete = attr_bool(n, "delete", false);
	d->line = mf_line(n);
	if (!d->name) {
		free(d);
		return;
	}
	check_pg_name(b, n, e, d->name);
	FOREACH_CHILD(c, n)
	{
		_cleanup_free_ char *v = NULL;

		if (!is_elem(c, "service_fmri"))
			continue;
		v = attr(b, c, "value", true);
		if (v)
			add_value(b, c, SCF_TYPE_FMRI, v, d->name, "entities", &d->entities);
	}
	/*
	 * The format allows none (service_fmri*), and illumos imports it: an "entities" property
	 * with no value, which the restarter reads as a group of no dependency.
	 */
	build_props(b, n, &d->props, d->name);
	push(b, &e->dependencies, &e->n_dependencies, d);
}

static void build_dependent(builder_t *b, const xmlNode *n, mf_entity_t *e)
{
	mf_dependent_t *d = new0(b, sizeof(*d));
	int kind;

	if (!d)
		return;
	d->name = attr(b, n, "name", true);
	d->grouping = attr(b, n, "grouping", true);
	d->restart_on = attr(b, n, "restart_on", true);
	d->delete = attr_bool(n, "delete", false);
	d->override = attr_bool(n, "override", false);
	d->line = mf_line(n);
	if (!d->name) {
		free(d);
		return;
	}
	check_name(b, n, "dependent", d->name);
	FOREACH_CHILD(c, n)
	{
		if (!is_elem(c, "service_fmri"))
			continue;
		d->target = attr(b, c, "value", true);
		/* Written into its target as a dependency pg: it names a service or instance. */
		kind = d->target ? smf_fmri_classify(d->target, NULL) : SMF_FMRI_SERVICE;
		if (kind != SMF_FMRI_SERVICE && kind != SMF_FMRI_INSTANCE)
			mf_err(b->r, c,
			        "dependent \"%s\" must name one service or instance, not \"%s\"",
			        d->name, d->target);
	}
	build_props(b, n, &d->props, d->name);
	push(b, &e->dependents, &e->n_dependents, d);
}

static void build_envvar(builder_t *b, const xmlNode *n, mf_method_context_t *ctx)
{
	_cleanup_free_ char *name = attr(b, n, "name", true), *value = attr(b, n, "value", true);
	char *s;

	if (!name || !value)
		return;
	if (!*name || strchr(name, '='))
		mf_err(b->r, n, "invalid environment variable \"%s\"", name);
	else if (strneq(name, "SMF_", 4))
		mf_err(b->r, n, "invalid environment variable \"%s\"; \"SMF_\" prefix is reserved",
		        name);
	else if (asprintf(&s, "%s=%s", name, value) < 0 || strv_consume(&ctx->environment, s) < 0)
		b->r->oom = true;
}

static mf_method_context_t *build_context(builder_t *b, const xmlNode *n)
{
	mf_method_context_t *ctx = new0(b, sizeof(*ctx));

	if (!ctx)
		return NULL;
	ctx->working_directory = attr(b, n, "working_directory", false);
	ctx->project = attr(b, n, "project", false);
	ctx->resource_pool = attr(b, n, "resource_pool", false);
	ctx->security_flags = attr(b, n, "security_flags", false);
	ctx->line = mf_line(n);
	FOREACH_CHILD(c, n)
	{
		if (is_elem(c, "method_profile"))
			ctx->profile = attr(b, c, "name", true);
		else if (is_elem(c, "method_credential")) {
			ctx->has_credential = true;
			ctx->user = attr(b, c, "user", true);
			ctx->group = attr(b, c, "group", false);
			ctx->supp_groups = attr(b, c, "supp_groups", false);
			ctx->privileges = attr(b, c, "privileges", false);
			ctx->limit_privileges = attr(b, c, "limit_privileges", false);
		} else if (is_elem(c, "method_environment")) {
			ctx->has_environment = true;
			FOREACH_CHILD(v, c)
			build_envvar(b, v, ctx);
		}
	}
	return ctx;
}

static void build_exec_method(builder_t *b, const xmlNode *n, mf_entity_t *e)
{
	_cleanup_free_ char *timeout = attr(b, n, "timeout_seconds", true);
	mf_exec_method_t *m = new0(b, sizeof(*m));

	if (!m)
		return;
	m->name = attr(b, n, "name", true);
	m->type = attr(b, n, "type", true);
	m->exec = attr(b, n, "exec", true);
	m->delete = attr_bool(n, "delete", false);
	m->line = mf_line(n);
	if (!m->name || !timeout) {
		free(m->name);
		free(m->type);
		free(m->exec);
		free(m);
		return;
	}
	check_pg_name(b, n, e, m->name);
	/* inetd's "-1" (no timeout) is legal here, as in illumos, and means UINT64_MAX. */
	if (streq(timeout, "-1"))
		m->timeout_seconds = UINT64_MAX;
	else if (smf_value_parse_count(timeout, &m->timeout_seconds) < 0)
		mf_err(b->r, n, "illegal value \"%s\" for timeout_seconds of method \"%s\"",
		        timeout, m->name);
	FOREACH_CHILD(c, n)
	if (is_elem(c, "method_context"))
		m->context = build_context(b, c);
	build_props(b, n, &m->props, m->name);
	push(b, &e->methods, &e->n_methods, m);
}

static void build_notify_type(builder_t *b, const xmlNode *n, mf_notify_params_t *np)
{
	mf_notify_type_t *t = new0(b, sizeof(*t));

	if (!t)
		return;
	t->name = attr(b, n, "name", true);
	t->active = attr_bool(n, "active", true);
	t->line = mf_line(n);
	FOREACH_CHILD(c, n)
	{
		char **values = NULL, *name = attr(b, c, "name", true);

		if (is_elem(c, "paramval")) {
			_cleanup_free_ char *v = attr(b, c, "value", true);

			if (v && strv_extend(&values, v) < 0)
				b->r->oom = true;
		} else
			FOREACH_CHILD(v, c)
			{
				_cleanup_free_ char *s = attr(b, v, "value", true);

				if (s && strv_extend(&values, s) < 0)
					b->r->oom = true;
			}
		if (!values)
			values = strv_new_empty();
		if (!name || !values || strv_consume(&t->param_names, name) < 0 ||
		        mf_array_push(&t->param_values, &t->n_params, values) < 0) {
			strv_free(values);
			b->r->oom = true;
		}
	}
	push(b, &np->types, &np->n_types, t);
}

static void build_notify(builder_t *b, const xmlNode *n, mf_entity_t *e)
{
	mf_notify_params_t *np = new0(b, sizeof(*np));

	if (!np)
		return;
	np->line = mf_line(n);
	FOREACH_CHILD(c, n)
	{
		if (is_elem(c, "event"))
			np->event = attr(b, c, "value", true);
		else if (is_elem(c, "type"))
			build_notify_type(b, c, np);
	}
	push(b, &e->notify, &e->n_notify, np);
}

static char *text_of(builder_t *b, const xmlNode *n)
{
	xmlChar *t = xmlNodeGetContent(n);
	const char *s = t ? (const char *)t : "";
	size_t len;
	char *ret;

	s += strspn(s, " \t\r\n");
	len = strlen(s);
	while (len > 0 && strchr(" \t\r\n", s[len - 1]))
		len--;
	ret = strndup(s, len);
	xmlFree(t);
	if (!ret)
		b->r->oom = true;
	return ret;
}

/*
 * Each <loctext> of a <common_name> or <description>.  One with no text at all (<loctext/>, or
 * only a comment) is refused, as illumos' lxml_get_loctext() refuses it; white space alone is
 * an empty text.
 */
static void build_loctexts(builder_t *b, const xmlNode *n, const char *ent, mf_loctexts_t *l)
{
	FOREACH_CHILD(c, n)
	{
		bool has_text = false;

		for (const xmlNode *t = c->children; t && !has_text; t = t->next)
			has_text = t->type == XML_TEXT_NODE || t->type == XML_CDATA_SECTION_NODE;
		if (!has_text) {
			mf_err(b->r, c, "loctext element has no content for \"%s\"", ent);
			continue;
		}
		if (MF_ARRAY_GROW(l->v, l->n) < 0) {
			b->r->oom = true;
			return;
		}
		l->v[l->n++] =
		        (mf_loctext_t){.lang = attr(b, c, "xml:lang", true), .text = text_of(b, c)};
	}
}

static void build_documentation(builder_t *b, const xmlNode *n, mf_template_t *t)
{
	FOREACH_CHILD(c, n)
	{
		if (is_elem(c, "manpage")) {
			char *path = attr(b, c, "manpath", false);

			if (MF_ARRAY_GROW(t->manpages, t->n_manpages) < 0) {
				free(path);
				b->r->oom = true;
				return;
			}
			t->manpages[t->n_manpages++] = (mf_manpage_t){
			        .title = attr(b, c, "title", true),
			        .section = attr(b, c, "section", true),
			        .manpath = path ? path : strdup(":default"),
			};
		} else if (is_elem(c, "doc_link")) {
			if (MF_ARRAY_GROW(t->doc_links, t->n_doc_links) < 0) {
				b->r->oom = true;
				return;
			}
			t->doc_links[t->n_doc_links++] = (mf_doc_link_t){
			        .name = attr(b, c, "name", true),
			        .uri = attr(b, c, "uri", true),
			};
		}
	}
}

/*
 * A <prop_pattern> of the pg_pattern whose pg is pgpat_pg.  Its own pg's name holds both names
 * (bundle.h), so it must be a legal name, short enough, and unique in the entity: illumos'
 * lxml_get_tm_prop_pattern() refuses the bundle otherwise, with these words.
 */
static void build_prop_pattern(builder_t *b, const xmlNode *n, const char *ent,
        const char *pgpat_pg, mf_pg_pattern_t *pp, char ***pg_names)
{
	_cleanup_free_ char *type = attr(b, n, "type", false), *pg = NULL;
	mf_prop_pattern_t *p = new0(b, sizeof(*p));
	size_t over = 0;
	int k;

	if (!p)
		return;
	p->name = attr(b, n, "name", true);
	p->type = type_of(type);
	p->required = attr_bool(n, "required", false);
	p->line = mf_line(n);
	if (p->name && scf_name_validate(p->name) == -SCF_ERROR_INVALID_ARGUMENT)
		mf_err(b->r, n, "prop_pattern name, \"%s\", for %s is not valid.", p->name, ent);
	else if (p->name && pgpat_pg) {
		k = mf_prop_pattern_pg_name(pgpat_pg, p->name, &pg, &over);
		if (k == -ENOMEM)
			b->r->oom = true;
		else if (k == -ENAMETOOLONG)
			mf_err(b->r, n,
			        "prop_pattern name, \"%s\", for %s is %zu characters too long",
			        p->name, ent, over);
		else if (strv_contains(*pg_names, pg))
			mf_err(b->r, n,
			        "Property group for prop_pattern, \"%s\", already exists in %s",
			        p->name, ent);
		else if (strv_consume(pg_names, TAKE_PTR(pg)) < 0)
			b->r->oom = true;
	}
	FOREACH_CHILD(c, n)
	{
		if (is_elem(c, "common_name"))
			build_loctexts(b, c, ent, &p->common_name);
		else if (is_elem(c, "description"))
			build_loctexts(b, c, ent, &p->description);
	}
	push(b, &pp->props, &pp->n_props, p);
}

static void pg_pattern_not_unique(
        builder_t *b, const xmlNode *n, const mf_pg_pattern_t *pp, const char *ent)
{
	if (!*pp->name && !*pp->type)
		mf_err(b->r, n, "pg_pattern with empty name and type is not unique in %s", ent);
	else if (!*pp->name)
		mf_err(b->r, n, "pg_pattern with empty name and type \"%s\" is not unique in %s",
		        pp->type, ent);
	else if (!*pp->type)
		mf_err(b->r, n, "pg_pattern with name \"%s\" and empty type is not unique in %s",
		        pp->name, ent);
	else
		mf_err(b->r, n, "pg_pattern with name \"%s\" and type \"%s\" is not unique in %s",
		        pp->name, pp->type, ent);
}

/*
 * A <pg_pattern>: its pg's name (bundle.h) is checked as illumos' lxml_get_tm_pg_pattern()
 * checks it, with its words: a legal name, not too long, and unique among the entity's
 * template pgs (pg_names, which its prop_patterns' pgs join).
 */
static void build_pg_pattern(
        builder_t *b, const xmlNode *n, const char *ent, mf_template_t *t, char ***pg_names)
{
	mf_pg_pattern_t *pp = new0(b, sizeof(*pp));
	_cleanup_free_ char *pg = NULL;
	bool pg_ok = false;
	size_t over = 0;
	char *s;
	int k;

	if (!pp)
		return;
	s = attr(b, n, "name", false);
	pp->name = s ? s : strdup("");
	s = attr(b, n, "type", false);
	pp->type = s ? s : strdup("");
	s = attr(b, n, "target", false);
	pp->target = s ? s : strdup("this");
	pp->required = attr_bool(n, "required", false);
	pp->line = mf_line(n);
	if (!pp->name || !pp->type || !pp->target) {
		b->r->oom = true;
		free(pp->name);
		free(pp->type);
		free(pp->target);
		free(pp);
		return;
	}
	if (*pp->name && scf_name_validate(pp->name) == -SCF_ERROR_INVALID_ARGUMENT)
		mf_err(b->r, n, "pg_pattern name attribute, \"%s\", for %s is invalid", pp->name,
		        ent);
	else if ((k = mf_pg_pattern_pg_name(pp, &pg, &over)) == -ENOMEM)
		b->r->oom = true;
	else if (k == -ENAMETOOLONG)
		mf_err(b->r, n, "pg_pattern property group name for %s is %zu bytes too long", ent,
		        over);
	else if (strv_contains(*pg_names, pg))
		pg_pattern_not_unique(b, n, pp, ent);
	else if (strv_extend(pg_names, pg) < 0)
		b->r->oom = true;
	else
		pg_ok = true;
	FOREACH_CHILD(c, n)
	{
		if (is_elem(c, "common_name"))
			build_loctexts(b, c, ent, &pp->common_name);
		else if (is_elem(c, "description"))
			build_loctexts(b, c, ent, &pp->description);
		else if (is_elem(c, "prop_pattern"))
			build_prop_pattern(b, c, ent, pg_ok ? pg : NULL, pp, pg_names);
	}
	push(b, &t->pg_patterns, &t->n_pg_patterns, pp);
}

static mf_template_t *build_template(builder_t *b, const xmlNode *n, const char *ent)
{
	mf_template_t *t = new0(b, sizeof(*t));
	_cleanup_strv_free_ char **pg_names = NULL;

	if (!t)
		return NULL;
	t->line = mf_line(n);
	FOREACH_CHILD(c, n)
	{
		if (is_elem(c, "common_name"))
			build_loctexts(b, c, ent, &t->common_name);
		else if (is_elem(c, "description"))
			build_loctexts(b, c, ent, &t->description);
		else if (is_elem(c, "documentation"))
			build_documentation(b, c, t);
		else if (is_elem(c, "pg_pattern"))
			build_pg_pattern(b, c, ent, t, &pg_names);
	}
	return t;
}

static void build_restarter(builder_t *b, const xmlNode *n, mf_entity_t *e)
{
	FOREACH_CHILD(c, n)
	{
		_cleanup_free_ char *v = attr(b, c, "value", true);
		char **one = NULL;

		if (!v)
			continue;
		add_value(b, c, SCF_TYPE_FMRI, v, "general", "restarter", &one);
		if (one)
			e->restarter = strdup(one[0]);
		strv_free(one);
	}
}

/* The children services and instances share; false if c is not one of them. */
static bool build_entity_child(builder_t *b, const xmlNode *c, mf_entity_t *e)
{
	if (is_elem(c, "restarter"))
		build_restarter(b, c, e);
	else if (is_elem(c, "dependency"))
		build_dependency(b, c, e);
	else if (is_elem(c, "dependent"))
		build_dependent(b, c, e);
	else if (is_elem(c, "method_context"))
		e->context = build_context(b, c);
	else if (is_elem(c, "exec_method"))
		build_exec_method(b, c, e);
	else if (is_elem(c, "notification_parameters"))
		build_notify(b, c, e);
	else if (is_elem(c, "property_group"))
		build_pg(b, c, e);
	else if (is_elem(c, "template")) {
		if (b->profile)
			mf_err(b->r, c, "template data for \"%s\" may not be modified in a profile",
			        e->name);
		else
			e->template = build_template(b, c, e->name);
	} else
		return false;
	return true;
}

/* After all children: a dependent's name must not clash with a pg of the same entity. */
static void check_dependents(builder_t *b, const xmlNode *n, const mf_entity_t *e)
{
	for (size_t i = 0; i < e->n_dependents; i++) {
		const mf_dependent_t *d = e->dependents[i];
		unsigned first = pg_defined(e, d->name);

		for (size_t j = 0; j < i && !first; j++)
			if (streq(e->dependents[j]->name, d->name))
				first = e->dependents[j]->line;
		if (first)
			mf_err(b->r, n,
			        "dependent \"%s\" of \"%s\" (line %u) has the name of another "
			        "property group or dependent (line %u)",
			        d->name, e->name, d->line, first);
	}
}

static void add_instance(builder_t *b, const xmlNode *n, mf_service_t *s, mf_instance_t *i)
{
	mf_instance_t *old = mf_service_find_instance(s, i->e.name);

	if (old)
		mf_err(b->r, n,
		        "instance \"%s\" of service \"%s\" is defined twice (first at line %u)",
		        i->e.name, s->e.name, old->e.line);
	push(b, &s->instances, &s->n_instances, i);
}

static void build_instance(builder_t *b, const xmlNode *n, mf_service_t *s)
{
	mf_instance_t *i = new0(b, sizeof(*i));
	int k;

	if (!i)
		return;
	i->e.name = attr(b, n, "name", true);
	i->e.line = mf_line(n);
	i->enabled = attr_bool(n, "enabled", false);
	i->enabled_set = xmlHasProp(n, (const xmlChar *)"enabled") != NULL;
	if (!i->e.name) {
		free(i);
		return;
	}
	k = smf_instance_name_validate(i->e.name);
	if (k < 0)
		mf_err(b->r, n, "illegal instance name \"%s\"%s", i->e.name,
		        k == -SCF_ERROR_CONSTRAINT_VIOLATED ? " (too long)" : "");
	FOREACH_CHILD(c, n)
	build_entity_child(b, c, &i->e);
	check_dependents(b, n, &i->e);
	add_instance(b, n, s, i);
}

static void build_default_instance(builder_t *b, const xmlNode *n, mf_service_t *s)
{
	mf_instance_t *i = new0(b, sizeof(*i));

	if (!i)
		return;
	i->e.name = strdup("default");
	i->e.line = mf_line(n);
	i->enabled = attr_bool(n, "enabled", false);
	i->enabled_set = true;
	i->implicit = true;
	if (!i->e.name) {
		free(i);
		b->r->oom = true;
		return;
	}
	add_instance(b, n, s, i);
}

static void build_service(builder_t *b, const xmlNode *n, mf_bundle_t *bundle)
{
	_cleanup_free_ char *type = attr(b, n, "type", true);
	mf_service_t *s = new0(b, sizeof(*s)), *old;
	int k;

	if (!s)
		return;
	s->e.name = attr(b, n, "name", true);
	s->e.line = mf_line(n);
	s->version = attr(b, n, "version", true);
	/* check.c let only the enumerated values through; "service" is the format's default. */
	s->type = mf_service_type_from_string(type) ?: MF_SERVICE_SERVICE;
	if (!s->e.name) {
		free(s->version);
		free(s);
		return;
	}
	k = smf_service_name_validate(s->e.name);
	if (k < 0)
		mf_err(b->r, n, "illegal service name \"%s\"%s", s->e.name,
		        k == -SCF_ERROR_CONSTRAINT_VIOLATED ? " (a component is too long)" : "");
	old = mf_bundle_find_service(bundle, s->e.name);
	if (old)
		mf_err(b->r, n, "service \"%s\" is defined twice (first at line %u)", s->e.name,
		        old->e.line);
	FOREACH_CHILD(c, n)
	{
		if (build_entity_child(b, c, &s->e))
			continue;
		if (is_elem(c, "create_default_instance"))
			build_default_instance(b, c, s);
		else if (is_elem(c, "single_instance"))
			s->single_instance = true;
		else if (is_elem(c, "stability"))
			s->stability = attr(b, c, "value", true);
		else if (is_elem(c, "instance"))
			build_instance(b, c, s);
	}
	check_dependents(b, n, &s->e);
	push(b, &bundle->services, &bundle->n_services, s);
}

/* Fills bundle from n; a nested bundle (an included one) adds its services to the same. */
static void build_services(builder_t *b, const xmlNode *n, mf_bundle_t *bundle)
{
	_cleanup_free_ char *type = attr(b, n, "type", true), *name = attr(b, n, "name", true);
	bool outer = b->profile;

	if (!type || !name)
		return;
	if (!mf_bundle_type_from_string(type)) {
		mf_err(b->r, n,
		        "unknown service_bundle type \"%s\" (expected manifest, profile or "
		        "archive)",
		        type);
		return;
	}
	if (!*name)
		mf_err(b->r, n, "service bundle has an empty name");
	if (!bundle->name) {
		bundle->name = TAKE_PTR(name);
		bundle->type = mf_bundle_type_from_string(type);
	} else if (bundle->type != mf_bundle_type_from_string(type)) {
		mf_err(b->r, n, "included bundle of different type (\"%s\" in a %s)", type,
		        mf_bundle_type_to_string(bundle->type));
		return;
	}
	b->profile = streq(type, "profile");
	FOREACH_CHILD(c, n)
	{
		if (is_elem(c, "service"))
			build_service(b, c, bundle);
		else if (is_elem(c, "service_bundle"))
			build_services(b, c, bundle);
	}
	b->profile = outer;
}

int mf_build_bundle(mf_reader_t *r, xmlNode *root, mf_bundle_t **ret)
{
	builder_t b = {.r = r};
	_cleanup_bundle_ mf_bundle_t *bundle = calloc(1, sizeof(*bundle));

	/* Only a tree that passed every earlier stage is built (parse.c). */
	assert(r->n_errors == 0 && !r->oom);
	if (!bundle)
		return -ENOMEM;
	bundle->file = strdup(r->file);
	if (!bundle->file)
		return -ENOMEM;
	build_services(&b, root, bundle);
	if (r->oom)
		return -ENOMEM;
	if (r->n_errors > 0)
		return -EINVAL;
	*ret = TAKE_PTR(bundle);
	return 0;
}
