/* writer.c: a service bundle from the repository, on libxml2's xmlTextWriter (see writer.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "manifest.h"
#include "strv.h"
#include "writer.h"

#define X(s) ((const xmlChar *)(s))

/* libxml2's writer returns -1 on failure; ours are negative errnos. */
static int xw(int r)
{
	return r < 0 ? -EIO : 0;
}

static int start(bundle_writer_t *bw, const char *elem)
{
	return xw(xmlTextWriterStartElement(bw->w, X(elem)));
}

static int end(bundle_writer_t *bw)
{
	return xw(xmlTextWriterEndElement(bw->w));
}

static int attr(bundle_writer_t *bw, const char *name, const char *value)
{
	return xw(xmlTextWriterWriteAttribute(bw->w, X(name), X(value)));
}

int writer_begin(bundle_writer_t *bw, scf_handle_t *h, const char *type, const char *name)
{
	int r;

	bw->h = h;
	bw->buf = xmlBufferCreate();
	if (!bw->buf || !(bw->w = xmlNewTextWriterMemory(bw->buf, 0)))
		return -ENOMEM;
	xmlTextWriterSetIndent(bw->w, 1);
	xmlTextWriterSetIndentString(bw->w, X("  "));
	if ((r = xw(xmlTextWriterStartDocument(bw->w, "1.0", NULL, NULL))) < 0 ||
	        (r = xw(xmlTextWriterWriteDTD(
	                 bw->w, X("service_bundle"), NULL, X(MF_DTD_PATH), NULL))) < 0 ||
	        (r = start(bw, "service_bundle")) < 0 || (r = attr(bw, "type", type)) < 0 ||
	        (r = attr(bw, "name", name)) < 0)
		return r;
	return 0;
}

int writer_end(bundle_writer_t *bw, FILE *f)
{
	int r;

	if ((r = xw(xmlTextWriterEndDocument(bw->w))) < 0)
		return r;
	xmlFreeTextWriter(bw->w);
	bw->w = NULL;
	if (fwrite(xmlBufferContent(bw->buf), 1, xmlBufferLength(bw->buf), f) !=
	                (size_t)xmlBufferLength(bw->buf) ||
	        fflush(f) != 0)
		return -errno;
	return 0;
}

void writer_free(bundle_writer_t *bw)
{
	if (bw->w)
		xmlFreeTextWriter(bw->w);
	if (bw->buf)
		xmlBufferFree(bw->buf);
	bw->w = NULL;
	bw->buf = NULL;
}

static int write_property(bundle_writer_t *bw, const scf_property_t *p)
{
	const char *type = scf_type_to_string(p->type);
	char list[64];
	int r;

	if (p->n_values == 1)
		return (r = start(bw, "propval")) < 0 || (r = attr(bw, "name", p->name)) < 0 ||
		                (r = attr(bw, "type", type)) < 0 ||
		                (r = attr(bw, "value", p->values[0])) < 0
		        ? r
		        : end(bw);
	if ((r = start(bw, "property")) < 0 || (r = attr(bw, "name", p->name)) < 0 ||
	        (r = attr(bw, "type", type)) < 0)
		return r;
	if (p->n_values > 0) {
		snprintf(list, sizeof(list), "%s_list", type);
		if ((r = start(bw, list)) < 0)
			return r;
		for (size_t i = 0; i < p->n_values; i++)
			if ((r = start(bw, "value_node")) < 0 ||
			        (r = attr(bw, "value", p->values[i])) < 0 || (r = end(bw)) < 0)
				return r;
		if ((r = end(bw)) < 0)
			return r;
	}
	return end(bw);
}

/* The pg's props inside whatever element is open, skipping the names in skip. */
static int write_props(bundle_writer_t *bw, const scf_pg_t *pg, const char *const *skip)
{
	int r;

	for (size_t i = 0; i < pg->n_props; i++) {
		bool skipped = false;

		for (const char *const *s = skip; s && *s; s++)
			skipped = skipped || streq(*s, pg->props[i].name);
		if (!skipped && (r = write_property(bw, &pg->props[i])) < 0)
			return r;
	}
	return 0;
}

static bool pg_is_external(const scf_pg_t *pg)
{
	const scf_property_t *p = scf_pg_property(pg, "external");
	bool b = false;

	return p && scf_property_get_boolean(p, &b) >= 0 && b;
}

/* Is this pg written by something other than a <property_group> of its own? */
static bool pg_skipped(const scf_pg_t *pg)
{
	return (pg->flags & SCF_PG_FLAG_NONPERSISTENT) || streq(pg->name, "dependents") ||
	        streq(pg->name, "manifestfiles") || pg_is_external(pg);
}

static int write_pg(bundle_writer_t *bw, const scf_pg_t *pg)
{
	int r;

	if ((r = start(bw, "property_group")) < 0 || (r = attr(bw, "name", pg->name)) < 0 ||
	        (r = attr(bw, "type", pg->type)) < 0 || (r = write_props(bw, pg, NULL)) < 0)
		return r;
	return end(bw);
}

/*
 * The dependency pg that ent's dependent p wrote into its target, or NULL when the target has
 * none (it did not exist when ent was imported; illumos writes it only then).
 */
static scf_pg_t *dependent_target_pg(bundle_writer_t *bw, const scf_property_t *p)
{
	const char *target = NULL;
	scf_pg_t *tpg = NULL;

	if (scf_property_get_string(p, &target) < 0 ||
	        scf_pg_get(bw->h, target, p->name, NULL, 0, &tpg) < 0)
		return NULL;
	if (!pg_is_external(tpg)) {
		scf_pg_free(tpg);
		return NULL;
	}
	return tpg;
}

static const char *string_prop(const scf_pg_t *pg, const char *name, const char *dflt)
{
	const scf_property_t *q = scf_pg_property(pg, name);
	const char *v = dflt;

	if (q)
		(void)scf_property_get_string(q, &v);
	return v;
}

/* One <dependent>: its name and target from ent's "dependents" pg, the rest from the target. */
static int write_dependent(bundle_writer_t *bw, const scf_property_t *p, const scf_pg_t *tpg)
{
	static const char *const written[] = {
	        "grouping", "restart_on", "type", "entities", "external", "entity_stability", NULL};
	const char *stability = string_prop(tpg, "entity_stability", NULL);
	int r;

	if ((r = start(bw, "dependent")) < 0 || (r = attr(bw, "name", p->name)) < 0 ||
	        (r = attr(bw, "grouping", string_prop(tpg, "grouping", "require_all"))) < 0 ||
	        (r = attr(bw, "restart_on", string_prop(tpg, "restart_on", "restart"))) < 0 ||
	        (r = start(bw, "service_fmri")) < 0 || (r = attr(bw, "value", p->values[0])) < 0 ||
	        (r = end(bw)) < 0)
		return r;
	if (stability &&
	        ((r = start(bw, "stability")) < 0 || (r = attr(bw, "value", stability)) < 0 ||
	                (r = end(bw)) < 0))
		return r;
	if ((r = write_props(bw, tpg, written)) < 0)
		return r;
	return end(bw);
}

/*
 * The "dependents" pg: a <dependent> for every entry whose target holds the pg it wrote (so a
 * re-import writes it again); with only_plain, instead, a plain <property_group> holding the
 * entries whose target has none, so that a re-import does not write one either.
 */
static int write_dependents(bundle_writer_t *bw, const char *ent, bool only_plain)
{
	scf_pg_t *pg = NULL;
	bool opened = false;
	int r = 0;

	if (scf_pg_get(bw->h, ent, "dependents", NULL, 0, &pg) < 0)
		return 0;
	for (size_t i = 0; r >= 0 && i < pg->n_props; i++) {
		scf_pg_t *tpg = dependent_target_pg(bw, &pg->props[i]);

		if (tpg && !only_plain)
			r = write_dependent(bw, &pg->props[i], tpg);
		else if (!tpg && only_plain) {
			if (!opened &&
			        ((r = start(bw, "property_group")) < 0 ||
			                (r = attr(bw, "name", pg->name)) < 0 ||
			                (r = attr(bw, "type", pg->type)) < 0))
				break;
			opened = true;
			r = write_property(bw, &pg->props[i]);
		}
		scf_pg_free(tpg);
	}
	if (r >= 0 && opened)
		r = end(bw);
	scf_pg_free(pg);
	return r;
}

static int write_pgs(bundle_writer_t *bw, const char *ent)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	int r;

	if ((r = scf_pg_list(bw->h, ent, NULL, 0, &infos, &n)) < 0)
		return r;
	for (size_t i = 0; r >= 0 && i < n; i++) {
		scf_pg_t *pg = NULL;

		if ((r = scf_pg_get(bw->h, ent, infos[i].name, NULL, 0, &pg)) < 0)
			break;
		if (streq(pg->name, "dependents"))
			r = write_dependents(bw, ent, true);
		else if (!pg_skipped(pg))
			r = write_pg(bw, pg);
		scf_pg_free(pg);
	}
	scf_pg_info_free(infos, n);
	return r;
}

/* An instance's general/enabled, "false" when it has none. */
static const char *instance_enabled(bundle_writer_t *bw, const char *inst)
{
	scf_property_t *p = NULL;
	bool b = false;

	if (scf_property_read(bw->h, inst, SCF_PG_GENERAL, "enabled", &p) >= 0) {
		(void)scf_property_get_boolean(p, &b);
		scf_property_free(p);
	}
	return b ? "true" : "false";
}

/* "svc:/a/b:inst" -> "inst" */
static const char *last_component(const char *fmri)
{
	const char *c = strrchr(fmri, ':');

	return c ? c + 1 : fmri;
}

static int write_instance(bundle_writer_t *bw, const char *inst, bool full)
{
	int r;

	if ((r = start(bw, "instance")) < 0 || (r = attr(bw, "name", last_component(inst))) < 0 ||
	        (r = attr(bw, "enabled", instance_enabled(bw, inst))) < 0)
		return r;
	if (full && ((r = write_dependents(bw, inst, false)) < 0 || (r = write_pgs(bw, inst)) < 0))
		return r;
	return end(bw);
}

static int write_service(bundle_writer_t *bw, const char *svc, bool full)
{
	_cleanup_strv_free_ char **insts = NULL;
	int r;

	if ((r = scf_instance_list(bw->h, svc, &insts)) < 0)
		return r;
	if ((r = start(bw, "service")) < 0 || (r = attr(bw, "name", svc + strlen("svc:/"))) < 0 ||
	        (r = attr(bw, "type", "service")) < 0 || (r = attr(bw, "version", "1")) < 0)
		return r;
	if (full && ((r = write_dependents(bw, svc, false)) < 0 || (r = write_pgs(bw, svc)) < 0))
		return r;
	STRV_FOREACH (i, insts) {
		if ((r = write_instance(bw, *i, full)) < 0)
			return r;
	}
	return end(bw);
}

int writer_service(bundle_writer_t *bw, const char *service_fmri)
{
	return write_service(bw, service_fmri, true);
}

int writer_service_enabled(bundle_writer_t *bw, const char *service_fmri)
{
	return write_service(bw, service_fmri, false);
}
