/*
 * writer.c: the model (bundle.h) written as a service bundle, on libxml2's xmlTextWriter.
 *
 * One function per element of the format, called in the order the content model asks
 * (schema.c has the same order as data), so a written bundle passes the reader's structural
 * check by construction.  libxml2 does the escaping and the indentation.
 *
 * Errors are sticky: the first failing libxml2 call sets w->r and every later call does
 * nothing, so the element functions need not check each step; mf_bundle_write() looks once at
 * the end.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "model.h"
#include "strv.h"
#include "writer.h"

#define X(s) ((const xmlChar *)(s))

typedef struct mf_writer {
	xmlTextWriterPtr w;
	int r; /* 0, or the first failure */
} mf_writer_t;

/* libxml2's writer returns -1 on failure; that is all it says. */
static void check(mf_writer_t *w, int k)
{
	if (k < 0 && w->r >= 0)
		w->r = -EIO;
}

static void start(mf_writer_t *w, const char *elem)
{
	if (w->r >= 0)
		check(w, xmlTextWriterStartElement(w->w, X(elem)));
}

static void end(mf_writer_t *w)
{
	if (w->r >= 0)
		check(w, xmlTextWriterEndElement(w->w));
}

/*
 * A string XML 1.0 cannot carry (a control character but TAB, LF, CR; U+FFFE, U+FFFF) would make
 * a document no reader accepts: -EILSEQ instead.  Values are refused such characters when they
 * are stored, and export checks them first; this is the guard that no caller can miss.
 */
static bool carried(mf_writer_t *w, const char *s)
{
	if (w->r >= 0 && smf_value_forbidden_char(s)) {
		w->r = -EILSEQ;
		return false;
	}
	return w->r >= 0;
}

/* An attribute; none when value is NULL. */
static void attr(mf_writer_t *w, const char *name, const char *value)
{
	if (value && carried(w, value))
		check(w, xmlTextWriterWriteAttribute(w->w, X(name), X(value)));
}

/* A boolean attribute whose default is false: written only when true. */
static void attr_true(mf_writer_t *w, const char *name, bool value)
{
	if (value)
		attr(w, name, "true");
}

static void text(mf_writer_t *w, const char *s)
{
	if (carried(w, s))
		check(w, xmlTextWriterWriteString(w->w, X(s)));
}

/* <elem value="..."/> (service_fmri, stability, event, value_node). */
static void value_elem(mf_writer_t *w, const char *elem, const char *value)
{
	start(w, elem);
	attr(w, "value", value);
	end(w);
}

static void write_property(mf_writer_t *w, const mf_property_t *p)
{
	const char *type = p->type == SCF_TYPE_INVALID ? NULL : scf_type_to_string(p->type);
	char list[64];

	if (!p->is_list) {
		/* <propval> holds exactly one value: the reader never builds another. */
		assert(strv_length(p->values) == 1);
		start(w, "propval");
		attr(w, "name", p->name);
		attr(w, "type", type);
		attr(w, "value", p->values[0]);
		attr_true(w, "override", p->override);
		end(w);
		return;
	}
	start(w, "property");
	attr(w, "name", p->name);
	attr(w, "type", type);
	attr_true(w, "override", p->override);
	if (strv_length(p->values) > 0) {
		/* A value list is named by its type, so a list needs one (the reader gives it). */
		assert(type);
		snprintf(list, sizeof(list), "%s_list", type);
		start(w, list);
		STRV_FOREACH (v, p->values)
			value_elem(w, "value_node", *v);
		end(w);
	}
	end(w);
}

/* The <stability> and properties of a pg-like element, inside it. */
static void write_props(mf_writer_t *w, const mf_props_t *props)
{
	if (props->stability)
		value_elem(w, "stability", props->stability);
	for (size_t i = 0; i < props->n; i++)
		write_property(w, props->v[i]);
}

static void write_restarter(mf_writer_t *w, const char *fmri)
{
	start(w, "restarter");
	value_elem(w, "service_fmri", fmri);
	end(w);
}

static void write_dependency(mf_writer_t *w, const mf_dependency_t *d)
{
	start(w, "dependency");
	attr(w, "name", d->name);
	attr(w, "grouping", d->grouping);
	attr(w, "restart_on", d->restart_on);
	attr(w, "type", d->type);
	attr_true(w, "delete", d->delete);
	STRV_FOREACH (e, d->entities)
		value_elem(w, "service_fmri", *e);
	write_props(w, &d->props);
	end(w);
}

static void write_dependent(mf_writer_t *w, const mf_dependent_t *d)
{
	start(w, "dependent");
	attr(w, "name", d->name);
	attr(w, "grouping", d->grouping);
	attr(w, "restart_on", d->restart_on);
	attr_true(w, "delete", d->delete);
	attr_true(w, "override", d->override);
	value_elem(w, "service_fmri", d->target);
	write_props(w, &d->props);
	end(w);
}

/* One "NAME=value" of a method environment. */
static void write_envvar(mf_writer_t *w, const char *var)
{
	const char *eq = strchr(var, '=');
	_cleanup_free_ char *name = NULL;

	assert(eq);
	name = strndup(var, eq - var);
	if (!name) {
		w->r = w->r < 0 ? w->r : -ENOMEM;
		return;
	}
	start(w, "envvar");
	attr(w, "name", name);
	attr(w, "value", eq + 1);
	end(w);
}

static void write_context(mf_writer_t *w, const mf_method_context_t *mc)
{
	start(w, "method_context");
	attr(w, "working_directory", mc->working_directory);
	attr(w, "project", mc->project);
	attr(w, "resource_pool", mc->resource_pool);
	attr(w, "security_flags", mc->security_flags);
	if (mc->profile) {
		start(w, "method_profile");
		attr(w, "name", mc->profile);
		end(w);
	} else if (mc->has_credential) {
		start(w, "method_credential");
		attr(w, "user", mc->user);
		attr(w, "group", mc->group);
		attr(w, "supp_groups", mc->supp_groups);
		attr(w, "privileges", mc->privileges);
		attr(w, "limit_privileges", mc->limit_privileges);
		end(w);
	}
	if (mc->has_environment) {
		start(w, "method_environment");
		STRV_FOREACH (v, mc->environment)
			write_envvar(w, *v);
		end(w);
	}
	end(w);
}

static void write_exec_method(mf_writer_t *w, const mf_exec_method_t *m)
{
	char timeout[32];

	/* UINT64_MAX is how the model keeps inetd's "-1" (no timeout). */
	if (m->timeout_seconds == UINT64_MAX)
		snprintf(timeout, sizeof(timeout), "-1");
	else
		snprintf(timeout, sizeof(timeout), "%llu", (unsigned long long)m->timeout_seconds);
	start(w, "exec_method");
	attr(w, "type", m->type);
	attr(w, "name", m->name);
	attr(w, "exec", m->exec);
	attr(w, "timeout_seconds", timeout);
	attr_true(w, "delete", m->delete);
	if (m->context)
		write_context(w, m->context);
	write_props(w, &m->props);
	end(w);
}

static void write_notify(mf_writer_t *w, const mf_notify_params_t *np)
{
	start(w, "notification_parameters");
	value_elem(w, "event", np->event);
	for (size_t i = 0; i < np->n_types; i++) {
		const mf_notify_type_t *t = np->types[i];

		start(w, "type");
		attr(w, "name", t->name);
		if (!t->active)
			attr(w, "active", "false");
		/* The model keeps a name and its values: one value reads back the same either way. */
		for (size_t j = 0; j < t->n_params; j++) {
			char *const *values = t->param_values[j];

			if (strv_length(values) == 1) {
				start(w, "paramval");
				attr(w, "name", t->param_names[j]);
				attr(w, "value", values[0]);
				end(w);
				continue;
			}
			start(w, "parameter");
			attr(w, "name", t->param_names[j]);
			STRV_FOREACH (v, values)
				value_elem(w, "value_node", *v);
			end(w);
		}
		end(w);
	}
	end(w);
}

static void write_pg(mf_writer_t *w, const mf_pg_t *pg)
{
	start(w, "property_group");
	attr(w, "name", pg->name);
	attr(w, "type", pg->type);
	attr_true(w, "delete", pg->delete);
	write_props(w, &pg->props);
	end(w);
}

/* <common_name>, <description>: a list of <loctext>; nothing when the list is empty. */
static void write_loctexts(mf_writer_t *w, const char *elem, const mf_loctexts_t *l)
{
	if (l->n == 0)
		return;
	start(w, elem);
	for (size_t i = 0; i < l->n; i++) {
		start(w, "loctext");
		attr(w, "xml:lang", l->v[i].lang);
		text(w, l->v[i].text);
		end(w);
	}
	end(w);
}

static void write_documentation(mf_writer_t *w, const mf_template_t *t)
{
	if (t->n_manpages == 0 && t->n_doc_links == 0)
		return;
	start(w, "documentation");
	for (size_t i = 0; i < t->n_doc_links; i++) {
		start(w, "doc_link");
		attr(w, "name", t->doc_links[i].name);
		attr(w, "uri", t->doc_links[i].uri);
		end(w);
	}
	for (size_t i = 0; i < t->n_manpages; i++) {
		start(w, "manpage");
		attr(w, "title", t->manpages[i].title);
		attr(w, "section", t->manpages[i].section);
		if (t->manpages[i].manpath && !streq(t->manpages[i].manpath, ":default"))
			attr(w, "manpath", t->manpages[i].manpath);
		end(w);
	}
	end(w);
}

static void write_prop_pattern(mf_writer_t *w, const mf_prop_pattern_t *p)
{
	start(w, "prop_pattern");
	attr(w, "name", p->name);
	if (p->type != SCF_TYPE_INVALID)
		attr(w, "type", scf_type_to_string(p->type));
	attr_true(w, "required", p->required);
	write_loctexts(w, "common_name", &p->common_name);
	write_loctexts(w, "description", &p->description);
	end(w);
}

static void write_pg_pattern(mf_writer_t *w, const mf_pg_pattern_t *p)
{
	start(w, "pg_pattern");
	/* The reader keeps an absent name or type as "" and an absent target as "this". */
	if (*p->name)
		attr(w, "name", p->name);
	if (*p->type)
		attr(w, "type", p->type);
	attr_true(w, "required", p->required);
	if (!streq(p->target, "this"))
		attr(w, "target", p->target);
	write_loctexts(w, "common_name", &p->common_name);
	write_loctexts(w, "description", &p->description);
	for (size_t i = 0; i < p->n_props; i++)
		write_prop_pattern(w, p->props[i]);
	end(w);
}

static void write_template(mf_writer_t *w, const mf_template_t *t)
{
	start(w, "template");
	write_loctexts(w, "common_name", &t->common_name);
	write_loctexts(w, "description", &t->description);
	write_documentation(w, t);
	for (size_t i = 0; i < t->n_pg_patterns; i++)
		write_pg_pattern(w, t->pg_patterns[i]);
	end(w);
}

/*
 * What services and instances share, up to their pgs: the elements between the entity's own
 * ones at the start (a service's create_default_instance, single_instance) and at the end
 * (instances, stability, template).
 */
static void write_entity_body(mf_writer_t *w, const mf_entity_t *e)
{
	if (e->restarter)
		write_restarter(w, e->restarter);
	for (size_t i = 0; i < e->n_dependencies; i++)
		write_dependency(w, e->dependencies[i]);
	for (size_t i = 0; i < e->n_dependents; i++)
		write_dependent(w, e->dependents[i]);
	if (e->context)
		write_context(w, e->context);
	for (size_t i = 0; i < e->n_methods; i++)
		write_exec_method(w, e->methods[i]);
	for (size_t i = 0; i < e->n_notify; i++)
		write_notify(w, e->notify[i]);
	for (size_t i = 0; i < e->n_pgs; i++)
		write_pg(w, e->pgs[i]);
}

static void write_instance(mf_writer_t *w, const mf_instance_t *inst)
{
	start(w, "instance");
	attr(w, "name", inst->e.name);
	if (inst->enabled_set)
		attr(w, "enabled", inst->enabled ? "true" : "false");
	write_entity_body(w, &inst->e);
	if (inst->e.template)
		write_template(w, inst->e.template);
	end(w);
}

/* The instance <create_default_instance> stands for, if the service has one. */
static const mf_instance_t *implicit_instance(const mf_service_t *s)
{
	for (size_t i = 0; i < s->n_instances; i++)
		if (s->instances[i]->implicit)
			return s->instances[i];
	return NULL;
}

static void write_service(mf_writer_t *w, const mf_service_t *s)
{
	const mf_instance_t *dflt = implicit_instance(s);

	start(w, "service");
	attr(w, "name", s->e.name);
	attr(w, "type", mf_service_type_to_string(s->type));
	attr(w, "version", s->version);
	if (dflt) {
		/* The element says only whether it is enabled; the rest is the service's. */
		assert(dflt->enabled_set && dflt->e.n_pgs == 0 && dflt->e.n_methods == 0);
		start(w, "create_default_instance");
		attr(w, "enabled", dflt->enabled ? "true" : "false");
		end(w);
	}
	if (s->single_instance) {
		start(w, "single_instance");
		end(w);
	}
	write_entity_body(w, &s->e);
	for (size_t i = 0; i < s->n_instances; i++)
		if (!s->instances[i]->implicit)
			write_instance(w, s->instances[i]);
	if (s->stability)
		value_elem(w, "stability", s->stability);
	if (s->e.template)
		write_template(w, s->e.template);
	end(w);
}

static void write_bundle(mf_writer_t *w, const mf_bundle_t *b)
{
	check(w, xmlTextWriterSetIndent(w->w, 1));
	check(w, xmlTextWriterSetIndentString(w->w, X("  ")));
	if (w->r >= 0)
		check(w, xmlTextWriterStartDocument(w->w, "1.0", NULL, NULL));
	if (w->r >= 0)
		check(w,
		        xmlTextWriterWriteDTD(
		                w->w, X("service_bundle"), NULL, X(MF_DTD_PATH), NULL));
	start(w, "service_bundle");
	attr(w, "type", mf_bundle_type_to_string(b->type));
	attr(w, "name", b->name);
	for (size_t i = 0; i < b->n_services; i++)
		write_service(w, b->services[i]);
	if (w->r >= 0)
		check(w, xmlTextWriterEndDocument(w->w));
}

int mf_bundle_write(const mf_bundle_t *b, FILE *f)
{
	xmlBufferPtr buf = xmlBufferCreate();
	mf_writer_t w = {0};
	size_t len;
	int r;

	assert(b && b->name && mf_bundle_type_to_string(b->type));
	if (!buf)
		return -ENOMEM;
	w.w = xmlNewTextWriterMemory(buf, 0);
	if (!w.w) {
		xmlBufferFree(buf);
		return -ENOMEM;
	}
	write_bundle(&w, b);
	/* Freeing the writer flushes what it holds into buf. */
	xmlFreeTextWriter(w.w);
	r = w.r;
	if (r >= 0) {
		len = (size_t)xmlBufferLength(buf);
		if (fwrite(xmlBufferContent(buf), 1, len, f) != len || fflush(f) != 0)
			r = negative_errno();
	}
	xmlBufferFree(buf);
	return r;
}
