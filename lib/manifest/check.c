/*
 * check.c: the structural check of a bundle against the format's rules (schema.c).
 *
 * Walks every element once.  Per element: its name is known and allowed in its parent, it
 * comes in the order the parent's content model asks, groups marked "at most one" or "at
 * least one" hold so, text appears only where the format has character data, every attribute
 * is known, required ones are present and enumerated ones have a listed value.  An unknown
 * element is reported and not descended into (its children would only repeat the news).
 */
#include <errno.h>
#include <string.h>

#include "check.h"
#include "schema.h"

#define MAX_RANKS 16

static bool is_blank(const xmlChar *s)
{
	for (; s && *s; s++)
		if (!strchr(" \t\r\n", *s))
			return false;
	return true;
}

static const char *attr_qname(const xmlAttr *a, char *buf, size_t size)
{
	if (a->ns && a->ns->prefix) {
		snprintf(buf, size, "%s:%s", (const char *)a->ns->prefix, (const char *)a->name);
		return buf;
	}
	return (const char *)a->name;
}

static bool in_enum(const char *const *values, const char *v)
{
	for (; *values; values++)
		if (streq(*values, v))
			return true;
	return false;
}

static void enum_error(
        mf_reader_t *r, xmlNode *n, const char *attr, const char *v, const char *const *values)
{
	char list[512] = "";

	for (const char *const *p = values; *p; p++) {
		if (p != values)
			strncat(list, ", ", sizeof(list) - strlen(list) - 1);
		strncat(list, *p, sizeof(list) - strlen(list) - 1);
	}
	mf_err(r, n, "attribute \"%s\" of <%s> has the value \"%s\"; expected one of: %s", attr,
	        (const char *)n->name, v, list);
}

static void check_attrs(mf_reader_t *r, xmlNode *n, const mf_elem_spec_t *spec, bool profile)
{
	char buf[256];

	for (xmlAttr *a = n->properties; a; a = a->next) {
		const char *name = attr_qname(a, buf, sizeof(buf));
		const mf_attr_spec_t *as = mf_schema_attr(spec, name);
		_cleanup_free_ char *v = NULL;

		/* XInclude marks what it brought in with xml:base; any element may carry it. */
		if (!as && streq(name, "xml:base"))
			continue;
		if (!as) {
			mf_err(r, n, "unknown attribute \"%s\" on <%s>", name, spec->name);
			continue;
		}
		if (!as->values)
			continue;
		v = mf_attr(n, as->name);
		if (v && !in_enum(as->values, v))
			enum_error(r, n, as->name, v, as->values);
	}
	for (const mf_attr_spec_t *as = spec->attrs; as->name; as++) {
		bool required = (as->flags & MF_ATTR_REQUIRED) ||
		        ((as->flags & MF_ATTR_REQUIRED_MANIFEST) && !profile);
		_cleanup_free_ char *v = NULL;

		if (!required)
			continue;
		v = mf_attr(n, as->name);
		if (!v)
			mf_err(r, n, "<%s> lacks the required attribute \"%s\"", spec->name,
			        as->name);
	}
}

static const char *rank_names(const mf_elem_spec_t *spec, unsigned rank, char *buf, size_t size)
{
	buf[0] = '\0';
	for (const mf_child_spec_t *c = spec->children; c->name; c++) {
		if (c->rank != rank)
			continue;
		if (buf[0])
			strncat(buf, "> or <", size - strlen(buf) - 1);
		strncat(buf, c->name, size - strlen(buf) - 1);
	}
	return buf;
}

static int check_element(mf_reader_t *r, xmlNode *n, bool profile);

static void check_children(mf_reader_t *r, xmlNode *n, const mf_elem_spec_t *spec, bool profile)
{
	unsigned count[MAX_RANKS] = {0};
	const mf_child_spec_t *last = NULL;
	char buf[256], names[256];

	for (xmlNode *c = n->children; c; c = c->next) {
		const mf_child_spec_t *cs;

		switch (c->type) {
		case XML_ELEMENT_NODE:
			break;
		case XML_TEXT_NODE:
		case XML_CDATA_SECTION_NODE:
			if (!spec->text && !is_blank(c->content))
				mf_err(r, c, "unexpected text in <%s>", spec->name);
			continue;
		case XML_ENTITY_REF_NODE:
			if (!spec->text)
				mf_err(r, c, "unexpected entity reference in <%s>", spec->name);
			continue;
		default:
			/* comments and processing instructions */
			continue;
		}

		cs = c->ns ? NULL : mf_schema_child(spec, (const char *)c->name);
		if (!cs) {
			const char *name = mf_elem_name(c, buf, sizeof(buf));

			if (mf_in_xinclude_ns(c))
				mf_err(r, c, "<%s> was not processed (XInclude is off here)", name);
			else if (c->ns || !mf_schema_element(name))
				mf_err(r, c, "unknown element <%s>", name);
			else
				mf_err(r, c, "element <%s> is not allowed in <%s>", name,
				        spec->name);
			continue;
		}
		if (last && cs->rank < last->rank)
			mf_err(r, c,
			        "element <%s> is out of order in <%s> (it must come before <%s>)",
			        cs->name, spec->name, last->name);
		else
			last = cs;
		if (cs->rank < MAX_RANKS && ++count[cs->rank] == 2 && (cs->flags & MF_CHILD_ONE))
			mf_err(r, c, "<%s> may contain only one <%s>", spec->name,
			        rank_names(spec, cs->rank, names, sizeof(names)));
		check_element(r, c, profile);
	}

	for (const mf_child_spec_t *cs = spec->children; cs->name; cs++) {
		/* Report each required group once, at its first member. */
		if (!(cs->flags & MF_CHILD_REQUIRED) || cs->rank >= MAX_RANKS || count[cs->rank])
			continue;
		mf_err(r, n, "<%s> needs a <%s>", spec->name,
		        rank_names(spec, cs->rank, names, sizeof(names)));
		count[cs->rank] = 1;
	}
}

static int check_element(mf_reader_t *r, xmlNode *n, bool profile)
{
	const mf_elem_spec_t *spec = mf_schema_element((const char *)n->name);

	if (!spec)
		return mf_err(r, n, "unknown element <%s>", (const char *)n->name);

	/* A nested (included) bundle says for itself whether it is a profile. */
	if (streq(spec->name, "service_bundle")) {
		_cleanup_free_ char *type = mf_attr(n, "type");

		profile = type && streq(type, "profile");
	}
	check_attrs(r, n, spec, profile);
	check_children(r, n, spec, profile);
	return 0;
}

int mf_check_tree(mf_reader_t *r, xmlNode *root)
{
	unsigned before = r->n_errors;

	check_element(r, root, false);
	return r->n_errors > before ? -EINVAL : 0;
}
