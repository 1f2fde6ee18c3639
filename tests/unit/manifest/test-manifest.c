/*
 * test-manifest.c: the manifest reader against the illumos corpus and against bad input.
 *
 * The corpus (../shared/corpus/illumos, path in $MF_CORPUS) is read where it lies.  What each
 * file should yield is computed here independently of the reader: libxml2 XPath over the raw
 * document counts <service>, <instance> and <create_default_instance> elements and reads
 * every <propval> and <property>, and the reader's model must agree.  Bad inputs are written
 * into a fresh temporary directory; each must fail with a diagnostic naming the file and the
 * line of the offending element.
 *
 * The writer is checked as the reader's inverse: every corpus bundle and the full manifest
 * below, written and read again, give the same model field by field, and writing that again
 * gives the same bytes.  One small bundle pins the exact text the writer produces (the form
 * svccfg export's output depends on).
 */
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <libxml/parser.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include "manifest.h"
#include "strv.h"
#include "test-root.h"
#include "writer.h"

#define HEAD                                                                                       \
	"<?xml version='1.0'?>\n"                                                                  \
	"<!DOCTYPE service_bundle SYSTEM '/usr/share/lib/xml/dtd/service_bundle.dtd.1'>\n"

/* Line 3 onwards of a document that starts with HEAD. */
#define BUNDLE_OPEN "<service_bundle type='manifest' name='test'>\n"
#define SERVICE_OPEN "<service name='site/test' version='1' type='service'>\n"
#define CLOSE "</service>\n</service_bundle>\n"

static char tmpdir[PATH_MAX];
static char **corpus_files;

/*
 * libxml2's loader of external entities (DTDs, included documents) is replaced for the whole
 * run by one that counts and refuses: the reader must never call it.
 */
static unsigned external_loads;

static xmlParserInputPtr refusing_loader(const char *url, const char *id, xmlParserCtxtPtr ctxt)
{
	external_loads++;
	fprintf(stderr, "external entity load attempted: %s\n", url ? url : "(null)");
	return NULL;
}

/* ---- helpers ---- */

static char *write_file(const char *name, const char *content, size_t len)
{
	char *path;
	FILE *f;

	assert_true(asprintf(&path, "%s/%s", tmpdir, name) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(content, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

static char *write_str(const char *name, const char *content)
{
	return write_file(name, content, strlen(content));
}

/*
 * Reads path, expects failure with err and a diagnostic at line (0: none) of file whose
 * message contains what, formatted as "file:line: ...".
 */
static void expect_error_in(
        const char *path, const char *file, int err, unsigned line, const char *what)
{
	mf_diags_t d = {0};
	mf_bundle_t *b = NULL;
	bool found = false;

	assert_int_equal(mf_read_file(path, 0, &d, &b), err);
	assert_null(b);
	assert_true(d.n > 0);
	for (size_t i = 0; i < d.n; i++) {
		_cleanup_free_ char *s = mf_diag_format(&d.v[i]), *prefix = NULL;

		assert_non_null(s);
		if (line)
			assert_true(asprintf(&prefix, "%s:%u: ", file, line) > 0);
		else
			assert_true(asprintf(&prefix, "%s: ", file) > 0);
		if (strneq(s, prefix, strlen(prefix)) && strstr(s, what))
			found = true;
	}
	if (!found) {
		fprintf(stderr, "expected %s:%u: ...%s... in:\n", file, line, what);
		mf_diags_print(&d, stderr);
	}
	assert_true(found);
	mf_diags_clear(&d);
}

static void expect_error(const char *path, int err, unsigned line, const char *what)
{
	expect_error_in(path, path, err, line, what);
}

static void expect_bad_doc(const char *name, const char *body, unsigned line, const char *what)
{
	_cleanup_free_ char *doc = NULL, *path = NULL;

	assert_true(asprintf(&doc, HEAD "%s", body) > 0);
	path = write_str(name, doc);
	expect_error(path, -EINVAL, line, what);
}

static mf_bundle_t *read_ok(const char *path)
{
	mf_diags_t d = {0};
	mf_bundle_t *b = NULL;
	int r = mf_read_file(path, 0, &d, &b);

	if (r < 0)
		mf_diags_print(&d, stderr);
	assert_int_equal(r, 0);
	assert_int_equal(d.n, 0);
	mf_diags_clear(&d);
	return b;
}

/* ---- the corpus, checked against an independent XPath reading ---- */

static int collect(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	size_t len = strlen(path);

	if (flag == FTW_F && len > 4 && streq(path + len - 4, ".xml"))
		assert_int_equal(strv_extend(&corpus_files, path), 0);
	return 0;
}

static int setup_corpus(void **state)
{
	const char *dir = getenv("MF_CORPUS");
	_cleanup_free_ char *root = NULL;

	if (!dir) {
		fprintf(stderr, "MF_CORPUS is not set\n");
		return -1;
	}
	if (asprintf(&root, "%s/illumos/usr", dir) < 0 || nftw(root, collect, 16, FTW_PHYS) < 0) {
		fprintf(stderr, "cannot walk %s\n", root ? root : dir);
		return -1;
	}
	strv_sort(corpus_files);
	return 0;
}

static int teardown_corpus(void **state)
{
	strv_free(corpus_files);
	return 0;
}

/* The raw document, parsed here without the reader (and without libxml2's file loader). */
static xmlDoc *read_xml(const char *path)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "re");
	xmlDoc *doc;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = (size_t)ftell(f);
	rewind(f);
	buf = malloc(len + 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, len, f), len);
	fclose(f);
	doc = xmlReadMemory(buf, (int)len, path, NULL, XML_PARSE_NONET);
	assert_non_null(doc);
	return doc;
}

static char *xattr(xmlNode *n, const char *name)
{
	return (char *)xmlGetProp(n, (const xmlChar *)name);
}

static long xcount(xmlXPathContext *ctx, const char *expr)
{
	xmlXPathObject *o = xmlXPathEvalExpression((const xmlChar *)expr, ctx);
	long n;

	assert_non_null(o);
	n = (long)xmlXPathCastToNumber(o);
	xmlXPathFreeObject(o);
	return n;
}

static const mf_entity_t *entity_of(const mf_bundle_t *b, xmlNode *n)
{
	_cleanup_free_ char *name = xattr(n, "name");
	const mf_service_t *s;

	if (streq((const char *)n->name, "service")) {
		s = mf_bundle_find_service(b, name);
		assert_non_null(s);
		return &s->e;
	}
	assert_string_equal((const char *)n->name, "instance");
	{
		_cleanup_free_ char *sname = xattr(n->parent, "name");
		const mf_instance_t *i;

		s = mf_bundle_find_service(b, sname);
		assert_non_null(s);
		i = mf_service_find_instance(s, name);
		assert_non_null(i);
		return &i->e;
	}
}

/* The model's property for a <propval>/<property> element, found by the XML's own names. */
static const mf_property_t *model_property(const mf_bundle_t *b, xmlNode *n)
{
	xmlNode *pg = n->parent;
	const mf_entity_t *e = entity_of(b, pg->parent);
	_cleanup_free_ char *pgname = xattr(pg, "name"), *name = xattr(n, "name");
	const mf_props_t *props = NULL;
	const char *kind = (const char *)pg->name;

	if (streq(kind, "property_group")) {
		const mf_pg_t *p = mf_entity_find_pg(e, pgname);

		assert_non_null(p);
		props = &p->props;
	} else if (streq(kind, "dependency")) {
		for (size_t i = 0; i < e->n_dependencies; i++)
			if (streq(e->dependencies[i]->name, pgname))
				props = &e->dependencies[i]->props;
	} else if (streq(kind, "dependent")) {
		for (size_t i = 0; i < e->n_dependents; i++)
			if (streq(e->dependents[i]->name, pgname))
				props = &e->dependents[i]->props;
	} else if (streq(kind, "exec_method")) {
		for (size_t i = 0; i < e->n_methods; i++)
			if (streq(e->methods[i]->name, pgname))
				props = &e->methods[i]->props;
	}
	assert_non_null(props);
	return mf_props_find(props, name);
}

/* What the model should hold for a raw value: its canonical form. */
static char *expected_value(const char *type, const char *raw)
{
	scf_type_t t = type ? scf_string_to_type(type) : SCF_TYPE_INVALID;
	char *norm = NULL;

	if (t == SCF_TYPE_INVALID || t == SCF_TYPE_BOOLEAN)
		return strdup(raw);
	assert_int_equal(scf_value_normalize(t, raw, &norm), 0);
	return norm;
}

static void check_propvals(const mf_bundle_t *b, xmlXPathContext *ctx, size_t *checked)
{
	xmlXPathObject *o = xmlXPathEvalExpression((const xmlChar *)"//propval", ctx);

	assert_non_null(o);
	for (int i = 0; o->nodesetval && i < o->nodesetval->nodeNr; i++) {
		xmlNode *n = o->nodesetval->nodeTab[i];
		_cleanup_free_ char *type = xattr(n, "type"), *value = xattr(n, "value");
		_cleanup_free_ char *want = expected_value(type, value);
		const mf_property_t *p = model_property(b, n);

		assert_non_null(p);
		assert_false(p->is_list);
		assert_int_equal(strv_length(p->values), 1);
		assert_string_equal(p->values[0], want);
		if (type)
			assert_string_equal(scf_type_to_string(p->type), type);
		(*checked)++;
	}
	xmlXPathFreeObject(o);
}

static void check_properties(const mf_bundle_t *b, xmlXPathContext *ctx, size_t *checked)
{
	xmlXPathObject *o = xmlXPathEvalExpression((const xmlChar *)"//property", ctx);

	assert_non_null(o);
	for (int i = 0; o->nodesetval && i < o->nodesetval->nodeNr; i++) {
		xmlNode *n = o->nodesetval->nodeTab[i];
		_cleanup_free_ char *type = xattr(n, "type");
		const mf_property_t *p = model_property(b, n);
		size_t k = 0;

		assert_non_null(p);
		assert_true(p->is_list);
		for (xmlNode *l = n->children; l; l = l->next)
			for (xmlNode *v = l->children; v; v = v->next) {
				_cleanup_free_ char *raw = NULL, *want = NULL;

				if (v->type != XML_ELEMENT_NODE)
					continue;
				raw = xattr(v, "value");
				want = expected_value(type, raw);
				assert_true(k < strv_length(p->values));
				assert_string_equal(p->values[k], want);
				k++;
			}
		assert_int_equal(k, strv_length(p->values));
		(*checked)++;
	}
	xmlXPathFreeObject(o);
}

static void check_instances(const mf_bundle_t *b, xmlXPathContext *ctx)
{
	xmlXPathObject *o = xmlXPathEvalExpression((const xmlChar *)"//service", ctx);

	assert_non_null(o);
	for (int i = 0; o->nodesetval && i < o->nodesetval->nodeNr; i++) {
		xmlNode *sn = o->nodesetval->nodeTab[i];
		const mf_service_t *s = (const mf_service_t *)entity_of(b, sn);
		size_t want = 0;

		for (xmlNode *c = sn->children; c; c = c->next) {
			_cleanup_free_ char *enabled = NULL, *name = NULL;
			const mf_instance_t *inst;

			if (c->type != XML_ELEMENT_NODE)
				continue;
			if (streq((const char *)c->name, "create_default_instance"))
				name = strdup("default");
			else if (streq((const char *)c->name, "instance"))
				name = xattr(c, "name");
			else
				continue;
			want++;
			inst = mf_service_find_instance(s, name);
			assert_non_null(inst);
			enabled = xattr(c, "enabled");
			assert_int_equal(inst->enabled, streq(enabled, "true"));
		}
		assert_int_equal(s->n_instances, want);
	}
	xmlXPathFreeObject(o);
}

static void test_corpus(void **state)
{
	size_t manifests = 0, profiles = 0, include_failures = 0, propvals = 0, properties = 0;

	for (char **f = corpus_files; f && *f; f++) {
		xmlDoc *doc = read_xml(*f);
		xmlXPathContext *ctx;
		_cleanup_free_ char *type = NULL;
		mf_diags_t d = {0};
		mf_bundle_t *b = NULL;
		long services, instances;
		size_t got_instances = 0;
		int r;

		assert_non_null(doc);
		ctx = xmlXPathNewContext(doc);
		assert_non_null(ctx);
		type = xattr(xmlDocGetRootElement(doc), "type");
		if (streq(type, "profile"))
			profiles++;
		else
			manifests++;

		r = mf_read_file(*f, 0, &d, &b);
		/* Both XInclude namespaces (the corpus uses the 2003 one). */
		if (xcount(ctx, "count(//*[local-name()='include'])") > 0) {
			/* They include /etc/svc/profile files that only an installed system has. */
			assert_int_equal(r, -EINVAL);
			assert_true(d.n > 0);
			assert_string_equal(d.v[0].file, *f);
			assert_true(d.v[0].line > 0);
			assert_non_null(strstr(d.v[0].message, "name_service.xml"));
			include_failures++;
		} else {
			if (r < 0)
				mf_diags_print(&d, stderr);
			assert_int_equal(r, 0);
			assert_string_equal(mf_bundle_type_to_string(b->type), type);
			services = xcount(ctx, "count(//service)");
			instances =
			        xcount(ctx, "count(//instance) + count(//create_default_instance)");
			assert_int_equal(b->n_services, services);
			for (size_t i = 0; i < b->n_services; i++)
				got_instances += b->services[i]->n_instances;
			assert_int_equal(got_instances, instances);
			check_instances(b, ctx);
			check_propvals(b, ctx, &propvals);
			check_properties(b, ctx, &properties);
		}
		mf_bundle_free(b);
		mf_diags_clear(&d);
		xmlXPathFreeContext(ctx);
		xmlFreeDoc(doc);
	}
	assert_int_equal(manifests, 182);
	assert_int_equal(profiles, 14);
	assert_int_equal(include_failures, 2);
	assert_int_equal(external_loads, 0);
	/* The corpus has 976 propvals and 24 properties; a broken walk would find none. */
	assert_true(propvals > 900);
	assert_true(properties > 20);
}

/* ---- one manifest with every element, mapped field by field ---- */

static const char full_manifest[] = HEAD
        "<service_bundle type='manifest' name='test:full'>\n"
        "<service name='site/full' version='1' type='restarter'>\n"
        "  <create_default_instance enabled='true'/>\n"
        "  <single_instance/>\n"
        "  <restarter><service_fmri value='svc:/system/svc/restarter:default'/></restarter>\n"
        "  <dependency name='net' grouping='require_all' restart_on='error' type='service'>\n"
        "    <service_fmri value='svc:/network/loopback'/>\n"
        "    <service_fmri value='svc:/network/physical:default'/>\n"
        "    <stability value='Stable'/>\n"
        "    <propval name='extra' type='astring' value='x'/>\n"
        "  </dependency>\n"
        "  <dependency name='conf' grouping='optional_all' restart_on='none' type='path'>\n"
        "    <service_fmri value='file://localhost/etc/full.conf'/>\n"
        "  </dependency>\n"
        "  <dependent name='full_multi-user' grouping='optional_all' restart_on='none'>\n"
        "    <service_fmri value='svc:/milestone/multi-user'/>\n"
        "  </dependent>\n"
        "  <method_context working_directory='/tmp' project=':default'>\n"
        "    <method_credential user='root' group='other' privileges='basic'/>\n"
        "    <method_environment>\n"
        "      <envvar name='PATH' value='/usr/bin'/>\n"
        "      <envvar name='LANG' value='C'/>\n"
        "    </method_environment>\n"
        "  </method_context>\n"
        "  <exec_method type='method' name='start' exec='/bin/true' timeout_seconds='60'>\n"
        "    <method_context><method_profile name='Service Management'/></method_context>\n"
        "  </exec_method>\n"
        "  <exec_method type='method' name='stop' exec=':kill' timeout_seconds='-1'/>\n"
        "  <notification_parameters>\n"
        "    <event value='to-maintenance'/>\n"
        "    <type name='smtp' active='false'>\n"
        "      <paramval name='to' value='root@localhost'/>\n"
        "      <parameter name='cc'><value_node value='a'/><value_node value='b'/></parameter>\n"
        "    </type>\n"
        "  </notification_parameters>\n"
        "  <property_group name='config' type='application'>\n"
        "    <stability value='Evolving'/>\n"
        "    <propval name='count' type='count' value='0x10'/>\n"
        "    <propval name='integer' type='integer' value='-5'/>\n"
        "    <propval name='opaque' type='opaque' value='DEADbeef'/>\n"
        "    <propval name='host' type='host' value='example.com'/>\n"
        "    <propval name='hostname' type='hostname' value='www.example.com'/>\n"
        "    <propval name='net_address' type='net_address' value='10.0.0.1'/>\n"
        "    <propval name='net_address_v4' type='net_address_v4' value='192.168.1.0/24'/>\n"
        "    <propval name='net_address_v6' type='net_address_v6' value='fe80::1'/>\n"
        "    <propval name='time' type='time' value='1'/>\n"
        "    <propval name='astring' type='astring' value='a b'/>\n"
        "    <propval name='ustring' type='ustring' value='h\xc3\xa9llo'/>\n"
        "    <propval name='boolean' type='boolean' value='true'/>\n"
        "    <propval name='fmri' type='fmri' value='svc:/a/b:c'/>\n"
        "    <propval name='uri' type='uri' value='http://example.com/x'/>\n"
        "    <property name='counts' type='count'>\n"
        "      <count_list><value_node value='1'/><value_node value='2'/></count_list>\n"
        "    </property>\n"
        "    <property name='empty' type='astring'/>\n"
        "    <property name='v6s' type='net_address_v6'>\n"
        "      <net_address_v6_list><value_node value='::1'/></net_address_v6_list>\n"
        "    </property>\n"
        "  </property_group>\n"
        "  <instance name='second' enabled='false'>\n"
        "    <property_group name='config' type='application'>\n"
        "      <propval name='v' type='integer' value='7'/>\n"
        "    </property_group>\n"
        "  </instance>\n"
        "  <stability value='Unstable'/>\n"
        "  <template>\n"
        "    <common_name><loctext xml:lang='C'> full test </loctext></common_name>\n"
        "    <documentation>\n"
        "      <manpage title='full' section='8'/>\n"
        "      <doc_link name='example' uri='http://example.com/'/>\n"
        "    </documentation>\n"
        "    <pg_pattern name='config' type='application' required='false'>\n"
        "      <prop_pattern name='count' type='count' required='true'>\n"
        "        <description><loctext xml:lang='C'>a count</loctext></description>\n"
        "        <cardinality min='1' max='1'/>\n"
        "      </prop_pattern>\n"
        "    </pg_pattern>\n"
        "  </template>\n"
        "</service>\n"
        "</service_bundle>\n";

static void test_full_model(void **state)
{
	_cleanup_free_ char *path = write_str("full.xml", full_manifest);
	_cleanup_bundle_ mf_bundle_t *b = read_ok(path);
	const mf_service_t *s;
	const mf_entity_t *e;
	const mf_pg_t *pg;
	const mf_property_t *p;
	const mf_template_t *t;

	assert_string_equal(b->name, "test:full");
	assert_int_equal(b->type, MF_BUNDLE_MANIFEST);
	assert_string_equal(b->file, path);
	assert_int_equal(b->n_services, 1);
	s = b->services[0];
	e = &s->e;
	assert_string_equal(e->name, "site/full");
	assert_int_equal(e->line, 4);
	assert_int_equal(s->type, MF_SERVICE_RESTARTER);
	assert_string_equal(s->version, "1");
	assert_true(s->single_instance);
	assert_string_equal(s->stability, "Unstable");
	assert_string_equal(e->restarter, "svc:/system/svc/restarter:default");

	assert_int_equal(s->n_instances, 2);
	assert_string_equal(s->instances[0]->e.name, "default");
	assert_true(s->instances[0]->implicit);
	assert_true(s->instances[0]->enabled);
	assert_string_equal(s->instances[1]->e.name, "second");
	assert_false(s->instances[1]->enabled);
	assert_false(s->instances[1]->implicit);
	pg = mf_entity_find_pg(&s->instances[1]->e, "config");
	assert_non_null(pg);
	assert_string_equal(mf_props_find(&pg->props, "v")->values[0], "7");

	assert_int_equal(e->n_dependencies, 2);
	assert_string_equal(e->dependencies[0]->grouping, "require_all");
	assert_string_equal(e->dependencies[0]->restart_on, "error");
	assert_string_equal(e->dependencies[0]->type, "service");
	assert_int_equal(strv_length(e->dependencies[0]->entities), 2);
	assert_string_equal(e->dependencies[0]->entities[1], "svc:/network/physical:default");
	assert_string_equal(e->dependencies[0]->props.stability, "Stable");
	assert_non_null(mf_props_find(&e->dependencies[0]->props, "extra"));
	assert_string_equal(e->dependencies[1]->type, "path");
	assert_string_equal(e->dependencies[1]->entities[0], "file://localhost/etc/full.conf");

	assert_int_equal(e->n_dependents, 1);
	assert_string_equal(e->dependents[0]->name, "full_multi-user");
	assert_string_equal(e->dependents[0]->target, "svc:/milestone/multi-user");
	assert_false(e->dependents[0]->override);

	assert_non_null(e->context);
	assert_string_equal(e->context->working_directory, "/tmp");
	assert_string_equal(e->context->project, ":default");
	assert_null(e->context->resource_pool);
	assert_true(e->context->has_credential);
	assert_string_equal(e->context->user, "root");
	assert_string_equal(e->context->group, "other");
	assert_string_equal(e->context->privileges, "basic");
	assert_null(e->context->profile);
	assert_true(e->context->has_environment);
	assert_int_equal(strv_length(e->context->environment), 2);
	assert_string_equal(e->context->environment[0], "PATH=/usr/bin");
	assert_string_equal(e->context->environment[1], "LANG=C");

	assert_int_equal(e->n_methods, 2);
	assert_string_equal(e->methods[0]->name, "start");
	assert_string_equal(e->methods[0]->type, "method");
	assert_string_equal(e->methods[0]->exec, "/bin/true");
	assert_int_equal(e->methods[0]->timeout_seconds, 60);
	assert_non_null(e->methods[0]->context);
	assert_string_equal(e->methods[0]->context->profile, "Service Management");
	assert_false(e->methods[0]->context->has_credential);
	assert_true(e->methods[1]->timeout_seconds == UINT64_MAX);

	assert_int_equal(e->n_notify, 1);
	assert_string_equal(e->notify[0]->event, "to-maintenance");
	assert_int_equal(e->notify[0]->n_types, 1);
	assert_string_equal(e->notify[0]->types[0]->name, "smtp");
	assert_false(e->notify[0]->types[0]->active);
	assert_int_equal(e->notify[0]->types[0]->n_params, 2);
	assert_string_equal(e->notify[0]->types[0]->param_names[1], "cc");
	assert_int_equal(strv_length(e->notify[0]->types[0]->param_values[1]), 2);

	pg = mf_entity_find_pg(e, "config");
	assert_non_null(pg);
	assert_string_equal(pg->type, "application");
	assert_string_equal(pg->props.stability, "Evolving");
	assert_int_equal(pg->props.n, 17);
	/* One propval per type, in type order; values in canonical form. */
	for (size_t i = 0; i < 14; i++) {
		p = pg->props.v[i];
		assert_string_equal(scf_type_to_string(p->type), p->name);
		assert_int_equal(strv_length(p->values), 1);
	}
	assert_string_equal(mf_props_find(&pg->props, "count")->values[0], "16");
	assert_string_equal(mf_props_find(&pg->props, "opaque")->values[0], "deadbeef");
	assert_string_equal(mf_props_find(&pg->props, "ustring")->values[0], "h\xc3\xa9llo");
	p = mf_props_find(&pg->props, "counts");
	assert_true(p->is_list);
	assert_int_equal(strv_length(p->values), 2);
	assert_string_equal(p->values[1], "2");
	p = mf_props_find(&pg->props, "empty");
	assert_true(p->is_list);
	assert_int_equal(p->type, SCF_TYPE_ASTRING);
	assert_int_equal(strv_length(p->values), 0);
	assert_int_equal(mf_props_find(&pg->props, "v6s")->type, SCF_TYPE_NET_ADDR_V6);

	t = e->template;
	assert_non_null(t);
	assert_int_equal(t->common_name.n, 1);
	assert_string_equal(t->common_name.v[0].lang, "C");
	assert_string_equal(t->common_name.v[0].text, "full test");
	assert_int_equal(t->n_manpages, 1);
	assert_string_equal(t->manpages[0].manpath, ":default");
	assert_int_equal(t->n_doc_links, 1);
	assert_int_equal(t->n_pg_patterns, 1);
	assert_string_equal(t->pg_patterns[0]->target, "this");
	assert_int_equal(t->pg_patterns[0]->n_props, 1);
	assert_true(t->pg_patterns[0]->props[0]->required);
	assert_int_equal(t->pg_patterns[0]->props[0]->type, SCF_TYPE_COUNT);
	assert_string_equal(t->pg_patterns[0]->props[0]->description.v[0].text, "a count");
}

/* ---- the writer: the reader's inverse ---- */

/* Two models are equal field by field; lines and the file name are where they were read. */
static void assert_str_eq(const char *a, const char *b)
{
	if (!a || !b)
		assert_true(a == b);
	else
		assert_string_equal(a, b);
}

static void assert_strv_eq(char *const *a, char *const *b)
{
	assert_int_equal(strv_length(a), strv_length(b));
	for (size_t i = 0; i < strv_length(a); i++)
		assert_string_equal(a[i], b[i]);
}

static void assert_props_eq(const mf_props_t *a, const mf_props_t *b)
{
	assert_str_eq(a->stability, b->stability);
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_string_equal(a->v[i]->name, b->v[i]->name);
		assert_int_equal(a->v[i]->type, b->v[i]->type);
		assert_strv_eq(a->v[i]->values, b->v[i]->values);
		assert_int_equal(a->v[i]->override, b->v[i]->override);
		assert_int_equal(a->v[i]->is_list, b->v[i]->is_list);
	}
}

static void assert_context_eq(const mf_method_context_t *a, const mf_method_context_t *b)
{
	if (!a || !b) {
		assert_true(a == b);
		return;
	}
	assert_str_eq(a->working_directory, b->working_directory);
	assert_str_eq(a->project, b->project);
	assert_str_eq(a->resource_pool, b->resource_pool);
	assert_str_eq(a->security_flags, b->security_flags);
	assert_str_eq(a->profile, b->profile);
	assert_int_equal(a->has_credential, b->has_credential);
	assert_str_eq(a->user, b->user);
	assert_str_eq(a->group, b->group);
	assert_str_eq(a->supp_groups, b->supp_groups);
	assert_str_eq(a->privileges, b->privileges);
	assert_str_eq(a->limit_privileges, b->limit_privileges);
	assert_int_equal(a->has_environment, b->has_environment);
	assert_strv_eq(a->environment, b->environment);
}

static void assert_loctexts_eq(const mf_loctexts_t *a, const mf_loctexts_t *b)
{
	assert_int_equal(a->n, b->n);
	for (size_t i = 0; i < a->n; i++) {
		assert_str_eq(a->v[i].lang, b->v[i].lang);
		assert_str_eq(a->v[i].text, b->v[i].text);
	}
}

static void assert_template_eq(const mf_template_t *a, const mf_template_t *b)
{
	if (!a || !b) {
		assert_true(a == b);
		return;
	}
	assert_loctexts_eq(&a->common_name, &b->common_name);
	assert_loctexts_eq(&a->description, &b->description);
	assert_int_equal(a->n_manpages, b->n_manpages);
	for (size_t i = 0; i < a->n_manpages; i++) {
		assert_str_eq(a->manpages[i].title, b->manpages[i].title);
		assert_str_eq(a->manpages[i].section, b->manpages[i].section);
		assert_str_eq(a->manpages[i].manpath, b->manpages[i].manpath);
	}
	assert_int_equal(a->n_doc_links, b->n_doc_links);
	for (size_t i = 0; i < a->n_doc_links; i++) {
		assert_str_eq(a->doc_links[i].name, b->doc_links[i].name);
		assert_str_eq(a->doc_links[i].uri, b->doc_links[i].uri);
	}
	assert_int_equal(a->n_pg_patterns, b->n_pg_patterns);
	for (size_t i = 0; i < a->n_pg_patterns; i++) {
		const mf_pg_pattern_t *x = a->pg_patterns[i], *y = b->pg_patterns[i];

		assert_str_eq(x->name, y->name);
		assert_str_eq(x->type, y->type);
		assert_str_eq(x->target, y->target);
		assert_int_equal(x->required, y->required);
		assert_loctexts_eq(&x->common_name, &y->common_name);
		assert_loctexts_eq(&x->description, &y->description);
		assert_int_equal(x->n_props, y->n_props);
		for (size_t j = 0; j < x->n_props; j++) {
			assert_str_eq(x->props[j]->name, y->props[j]->name);
			assert_int_equal(x->props[j]->type, y->props[j]->type);
			assert_int_equal(x->props[j]->required, y->props[j]->required);
			assert_loctexts_eq(&x->props[j]->common_name, &y->props[j]->common_name);
			assert_loctexts_eq(&x->props[j]->description, &y->props[j]->description);
		}
	}
}

static void assert_entity_eq(const mf_entity_t *a, const mf_entity_t *b)
{
	assert_string_equal(a->name, b->name);
	assert_str_eq(a->restarter, b->restarter);
	assert_int_equal(a->n_dependencies, b->n_dependencies);
	for (size_t i = 0; i < a->n_dependencies; i++) {
		const mf_dependency_t *x = a->dependencies[i], *y = b->dependencies[i];

		assert_str_eq(x->name, y->name);
		assert_str_eq(x->grouping, y->grouping);
		assert_str_eq(x->restart_on, y->restart_on);
		assert_str_eq(x->type, y->type);
		assert_int_equal(x->delete, y->delete);
		assert_strv_eq(x->entities, y->entities);
		assert_props_eq(&x->props, &y->props);
	}
	assert_int_equal(a->n_dependents, b->n_dependents);
	for (size_t i = 0; i < a->n_dependents; i++) {
		const mf_dependent_t *x = a->dependents[i], *y = b->dependents[i];

		assert_str_eq(x->name, y->name);
		assert_str_eq(x->grouping, y->grouping);
		assert_str_eq(x->restart_on, y->restart_on);
		assert_int_equal(x->delete, y->delete);
		assert_int_equal(x->override, y->override);
		assert_str_eq(x->target, y->target);
		assert_props_eq(&x->props, &y->props);
	}
	assert_context_eq(a->context, b->context);
	assert_int_equal(a->n_methods, b->n_methods);
	for (size_t i = 0; i < a->n_methods; i++) {
		const mf_exec_method_t *x = a->methods[i], *y = b->methods[i];

		assert_str_eq(x->name, y->name);
		assert_str_eq(x->type, y->type);
		assert_str_eq(x->exec, y->exec);
		assert_true(x->timeout_seconds == y->timeout_seconds);
		assert_int_equal(x->delete, y->delete);
		assert_context_eq(x->context, y->context);
		assert_props_eq(&x->props, &y->props);
	}
	assert_int_equal(a->n_notify, b->n_notify);
	for (size_t i = 0; i < a->n_notify; i++) {
		const mf_notify_params_t *x = a->notify[i], *y = b->notify[i];

		assert_str_eq(x->event, y->event);
		assert_int_equal(x->n_types, y->n_types);
		for (size_t j = 0; j < x->n_types; j++) {
			assert_str_eq(x->types[j]->name, y->types[j]->name);
			assert_int_equal(x->types[j]->active, y->types[j]->active);
			assert_strv_eq(x->types[j]->param_names, y->types[j]->param_names);
			assert_int_equal(x->types[j]->n_params, y->types[j]->n_params);
			for (size_t k = 0; k < x->types[j]->n_params; k++)
				assert_strv_eq(
				        x->types[j]->param_values[k], y->types[j]->param_values[k]);
		}
	}
	assert_int_equal(a->n_pgs, b->n_pgs);
	for (size_t i = 0; i < a->n_pgs; i++) {
		assert_str_eq(a->pgs[i]->name, b->pgs[i]->name);
		assert_str_eq(a->pgs[i]->type, b->pgs[i]->type);
		assert_int_equal(a->pgs[i]->delete, b->pgs[i]->delete);
		assert_props_eq(&a->pgs[i]->props, &b->pgs[i]->props);
	}
	assert_template_eq(a->template, b->template);
}

static void assert_bundles_eq(const mf_bundle_t *a, const mf_bundle_t *b)
{
	assert_string_equal(a->name, b->name);
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->n_services, b->n_services);
	for (size_t i = 0; i < a->n_services; i++) {
		const mf_service_t *x = a->services[i], *y = b->services[i];

		assert_entity_eq(&x->e, &y->e);
		assert_str_eq(x->version, y->version);
		assert_int_equal(x->type, y->type);
		assert_int_equal(x->single_instance, y->single_instance);
		assert_str_eq(x->stability, y->stability);
		assert_int_equal(x->n_instances, y->n_instances);
		for (size_t j = 0; j < x->n_instances; j++) {
			assert_entity_eq(&x->instances[j]->e, &y->instances[j]->e);
			assert_int_equal(x->instances[j]->enabled, y->instances[j]->enabled);
			assert_int_equal(
			        x->instances[j]->enabled_set, y->instances[j]->enabled_set);
			assert_int_equal(x->instances[j]->implicit, y->instances[j]->implicit);
		}
	}
}

/* b written into a malloc()ed string. */
static char *write_mem(const mf_bundle_t *b, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	assert_int_equal(mf_bundle_write(b, f), 0);
	assert_int_equal(fclose(f), 0);
	return buf;
}

/* Written, read again: the same model; written again: the same bytes. */
static void check_roundtrip(const mf_bundle_t *b)
{
	_cleanup_free_ char *xml = NULL, *again = NULL;
	_cleanup_bundle_ mf_bundle_t *b2 = NULL;
	mf_diags_t d = {0};
	size_t len = 0, len2 = 0;
	int r;

	xml = write_mem(b, &len);
	r = mf_read_memory(xml, len, b->file, MF_READ_NO_XINCLUDE, &d, &b2);
	if (r < 0) {
		mf_diags_print(&d, stderr);
		fprintf(stderr, "%s", xml);
	}
	assert_int_equal(r, 0);
	mf_diags_clear(&d);
	assert_bundles_eq(b, b2);
	again = write_mem(b2, &len2);
	assert_int_equal(len, len2);
	assert_memory_equal(xml, again, len);
}

static void test_write_corpus(void **state)
{
	size_t written = 0;

	for (char **f = corpus_files; f && *f; f++) {
		mf_diags_t d = {0};
		_cleanup_bundle_ mf_bundle_t *b = NULL;

		/* The two that include files absent from the corpus do not read (test_corpus). */
		if (mf_read_file(*f, 0, &d, &b) < 0) {
			mf_diags_clear(&d);
			continue;
		}
		check_roundtrip(b);
		written++;
	}
	assert_int_equal(written, 182 + 14 - 2);
}

static void test_write_full(void **state)
{
	_cleanup_free_ char *path = write_str("full-w.xml", full_manifest);
	_cleanup_free_ char *profile = write_str("profile-w.xml",
	        HEAD "<service_bundle type='profile' name='p'>\n" SERVICE_OPEN
	             "<instance name='default'>\n"
	             "<property_group name='config'>\n"
	             "<propval name='p' value='anything'/>\n"
	             "<property name='q'/>\n"
	             "</property_group>\n"
	             "<property_group name='gone' type='application' delete='true'/>\n"
	             "</instance>\n"
	             "<instance name='other' enabled='false'/>\n" CLOSE);
	_cleanup_bundle_ mf_bundle_t *b = read_ok(path), *p = read_ok(profile);

	check_roundtrip(b);
	check_roundtrip(p);
}

/* The exact text, for a bundle shaped like svccfg export's: what its output depends on. */
static void test_write_text(void **state)
{
	static const char want[] =
	        "<?xml version=\"1.0\"?>\n"
	        "<!DOCTYPE service_bundle\n"
	        "SYSTEM \"/usr/share/lib/xml/dtd/service_bundle.dtd.1\">\n"
	        "<service_bundle type=\"manifest\" name=\"export\">\n"
	        "  <service name=\"site/t\" type=\"service\" version=\"1\">\n"
	        "    <dependent name=\"t_tgt\" grouping=\"optional_all\" restart_on=\"none\">\n"
	        "      <service_fmri value=\"svc:/site/tgt\"/>\n"
	        "      <stability value=\"Stable\"/>\n"
	        "    </dependent>\n"
	        "    <property_group name=\"config\" type=\"application\">\n"
	        "      <propval name=\"a\" type=\"astring\" value=\"x &amp; &lt;y&gt; "
	        "&quot;z&quot;\"/>\n"
	        "      <property name=\"e\" type=\"count\"/>\n"
	        "      <property name=\"l\" type=\"count\">\n"
	        "        <count_list>\n"
	        "          <value_node value=\"1\"/>\n"
	        "          <value_node value=\"2\"/>\n"
	        "        </count_list>\n"
	        "      </property>\n"
	        "    </property_group>\n"
	        "    <instance name=\"default\" enabled=\"true\"/>\n"
	        "  </service>\n"
	        "</service_bundle>\n";
	_cleanup_free_ char *path = write_str("text.xml", want), *got = NULL;
	_cleanup_bundle_ mf_bundle_t *b = read_ok(path);
	size_t len = 0;

	got = write_mem(b, &len);
	assert_string_equal(got, want);
	assert_int_equal(len, strlen(want));
}

static void test_memory(void **state)
{
	mf_diags_t d = {0};
	mf_bundle_t *b = NULL;

	assert_int_equal(
	        mf_read_memory(full_manifest, strlen(full_manifest), "mem.xml", 0, &d, &b), 0);
	assert_int_equal(b->n_services, 1);
	assert_string_equal(b->file, "mem.xml");
	mf_bundle_free(b);
	b = NULL;

	/* Not NUL-terminated, cut short: still just an error. */
	assert_int_equal(mf_read_memory(full_manifest, 300, "cut.xml", 0, &d, &b), -EINVAL);
	assert_null(b);
	assert_true(d.n > 0);
	assert_string_equal(d.v[0].file, "cut.xml");
	mf_diags_clear(&d);
}

/* ---- XInclude ---- */

static void test_xinclude(void **state)
{
	_cleanup_free_ char *inc = write_str("inc.xml",
	        HEAD "<service_bundle type='manifest' name='inc'>\n"
	             "<service name='site/inc' version='1' type='service'>\n"
	             "<instance name='i' enabled='true'/>\n" CLOSE);
	_cleanup_free_ char *main = write_str("main.xml",
	        HEAD "<service_bundle type='manifest' name='main'\n"
	             "  xmlns:xi='http://www.w3.org/2001/XInclude'>\n"
	             "<xi:include href='inc.xml'/>\n" SERVICE_OPEN CLOSE);
	_cleanup_bundle_ mf_bundle_t *b = read_ok(main);
	_cleanup_free_ char *bad = NULL, *main2 = NULL;

	assert_string_equal(b->name, "main");
	assert_int_equal(b->n_services, 2);
	assert_non_null(inc);
	/* The included service keeps the line it has in its own file. */
	assert_non_null(mf_bundle_find_service(b, "site/inc"));
	assert_int_equal(mf_bundle_find_service(b, "site/inc")->e.line, 4);
	assert_non_null(mf_bundle_find_service(b, "site/test"));

	/* An error inside the included file names that file and its line. */
	bad = write_str("incbad.xml",
	        HEAD "<service_bundle type='manifest' name='inc'>\n"
	             "<service name='site/inc' version='1' type='service'>\n"
	             "<instance name='i' enabled='maybe'/>\n" CLOSE);
	main2 = write_str("main2.xml",
	        HEAD "<service_bundle type='manifest' name='main'\n"
	             "  xmlns:xi='http://www.w3.org/2001/XInclude'>\n"
	             "<xi:include href='incbad.xml'/>\n"
	             "</service_bundle>\n");
	expect_error(bad, -EINVAL, 5, "\"maybe\"");
	/* Reported in the included file, at its own line. */
	expect_error_in(main2, bad, -EINVAL, 5, "\"maybe\"");
	assert_int_equal(external_loads, 0);
}

static void test_xinclude_missing_and_network(void **state)
{
	/* Neither is fetched: a missing file and an http URL are both plain errors. */
	expect_bad_doc("missing-inc.xml",
	        "<service_bundle type='manifest' name='m'\n"
	        "  xmlns:xi='http://www.w3.org/2001/XInclude'>\n"
	        "<xi:include href='does-not-exist.xml'/>\n"
	        "</service_bundle>\n",
	        5, "does-not-exist.xml");
	expect_bad_doc("net-inc.xml",
	        "<service_bundle type='manifest' name='m'\n"
	        "  xmlns:xi='http://www.w3.org/2001/XInclude'>\n"
	        "<xi:include href='http://127.0.0.1:9/x.xml'/>\n"
	        "</service_bundle>\n",
	        5, "http://127.0.0.1:9/x.xml");
}

static void test_xinclude_off(void **state)
{
	static const char doc[] = HEAD "<service_bundle type='manifest' name='m'\n"
	                               "  xmlns:xi='http://www.w3.org/2001/XInclude'>\n"
	                               "<xi:include href='/etc/passwd' parse='text'/>\n"
	                               "</service_bundle>\n";
	mf_diags_t d = {0};
	mf_bundle_t *b = NULL;

	assert_int_equal(
	        mf_read_memory(doc, strlen(doc), "m.xml", MF_READ_NO_XINCLUDE, &d, &b), -EINVAL);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.v[0].line, 5);
	assert_non_null(strstr(d.v[0].message, "<xi:include> was not processed"));
	mf_diags_clear(&d);
}

/* ---- bad input, one kind per test ---- */

static void test_not_xml(void **state)
{
	_cleanup_free_ char *path = write_str("not-xml.xml", "this is not XML\n");

	expect_error(path, -EINVAL, 1, "couldn't parse document: ");
}

static void test_empty_file(void **state)
{
	_cleanup_free_ char *path = write_str("empty.xml", "");

	expect_error(path, -EINVAL, 1, "couldn't parse document: ");
}

static void test_truncated(void **state)
{
	_cleanup_free_ char *path = NULL;
	const char *cut = strstr(full_manifest, "<method_context working");

	/* Cut in the middle of line 20, inside a start tag. */
	path = write_file("truncated.xml", full_manifest, (size_t)(cut - full_manifest) + 20);
	expect_error(path, -EINVAL, 20, "couldn't parse document: ");
}

static void test_wrong_root(void **state)
{
	expect_bad_doc("root.xml", "<service name='a' version='1' type='service'/>\n", 3,
	        "document is not a service bundle (its root element is <service>)");
}

static void test_no_doctype(void **state)
{
	_cleanup_free_ char *path = write_str(
	        "nodoctype.xml", "<?xml version='1.0'?>\n" BUNDLE_OPEN "</service_bundle>\n");

	expect_error(path, -EINVAL, 2, "document has no DTD");
}

static void test_unknown_element(void **state)
{
	expect_bad_doc("unknown-element.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<instance name='i' enabled='true'>\n"
	                                 "<frobnicate/>\n"
	                                 "</instance>\n" CLOSE,
	        6, "unknown element <frobnicate>");
}

static void test_misplaced_element(void **state)
{
	expect_bad_doc("misplaced.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<instance name='i' enabled='true'>\n"
	                                 "<single_instance/>\n"
	                                 "</instance>\n" CLOSE,
	        6, "element <single_instance> is not allowed in <instance>");
	expect_bad_doc("order.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<instance name='i' enabled='true'/>\n"
	                                 "<create_default_instance enabled='true'/>\n" CLOSE,
	        6, "out of order");
}

static void test_unknown_attribute(void **state)
{
	expect_bad_doc("unknown-attr.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<instance name='i' enabled='true' colour='red'/>\n" CLOSE,
	        5, "unknown attribute \"colour\" on <instance>");
}

static void test_missing_attribute(void **state)
{
	expect_bad_doc("missing-attr.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<property_group name='pg' type='application'>\n"
	                                 "<propval name='p' value='1'/>\n"
	                                 "</property_group>\n" CLOSE,
	        6, "<propval> lacks the required attribute \"type\"");
}

static void test_bad_enum(void **state)
{
	expect_bad_doc("bad-enum.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<instance name='i' enabled='yes'/>\n" CLOSE, 5,
	        "attribute \"enabled\" of <instance> has the value \"yes\"; expected one of: true, "
	        "false");
}

static void bad_value(const char *file, const char *type, const char *value, const char *what)
{
	_cleanup_free_ char *body = NULL;

	assert_true(
	        asprintf(&body,
	                BUNDLE_OPEN SERVICE_OPEN "<property_group name='pg' type='application'>\n"
	                                         "<propval name='p' type='%s' value='%s'/>\n"
	                                         "</property_group>\n" CLOSE,
	                type, value) > 0);
	expect_bad_doc(file, body, 6, what);
}

static void test_bad_values(void **state)
{
	bad_value("count.xml", "count", "-1", "illegal value \"-1\" for count property \"pg/p\"");
	bad_value("bool.xml", "boolean", "yes", "illegal value \"yes\" for boolean property");
	bad_value("v4.xml", "net_address_v4", "300.1.2.3", "illegal value \"300.1.2.3\"");
	bad_value("v4b.xml", "net_address_v4", "1.2.3", "for net_address_v4 property");
	bad_value("int.xml", "integer", "12abc", "for integer property");
	bad_value("opaque.xml", "opaque", "abc", "for opaque property");
	bad_value("fmri.xml", "fmri", "not an fmri", "for fmri property");
}

static void test_bad_list_value(void **state)
{
	expect_bad_doc("list.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<property_group name='pg' type='application'>\n"
	                                 "<property name='p' type='count'>\n"
	                                 "<count_list>\n"
	                                 "<value_node value='1'/>\n"
	                                 "<value_node value='-1'/>\n"
	                                 "</count_list>\n"
	                                 "</property>\n"
	                                 "</property_group>\n" CLOSE,
	        9, "illegal value \"-1\"");
	expect_bad_doc("list-type.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<property_group name='pg' type='application'>\n"
	                                 "<property name='p' type='count'>\n"
	                                 "<integer_list><value_node value='1'/></integer_list>\n"
	                                 "</property>\n"
	                                 "</property_group>\n" CLOSE,
	        7, "has a <integer_list>");
}

static void test_bad_timeout(void **state)
{
	expect_bad_doc("timeout.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<exec_method type='method' name='start' exec='x'\n"
	                                 "  timeout_seconds='soon'/>\n" CLOSE,
	        /* libxml2 numbers an element by the line where its start tag ends. */
	        6, "illegal value \"soon\" for timeout_seconds");
}

/* The DTD allows service_fmri*, and illumos imports a dependency on nothing. */
static void test_dependency_without_fmri(void **state)
{
	_cleanup_free_ char *path = write_str("dep.xml",
	        HEAD BUNDLE_OPEN SERVICE_OPEN "<dependency name='d' grouping='require_all' "
	                                      "restart_on='none' type='service'/>\n" CLOSE);
	_cleanup_bundle_ mf_bundle_t *b = read_ok(path);

	assert_int_equal(b->services[0]->e.n_dependencies, 1);
	assert_string_equal(b->services[0]->e.dependencies[0]->name, "d");
	assert_null(b->services[0]->e.dependencies[0]->entities);
}

/* The pg names illumos' svccfg gives pg and prop patterns (svccfg_xml.c). */
static void test_pattern_pg_names(void **state)
{
	static const struct {
		const char *name, *type, *pg, *prop_pg;
	} cases[] = {
	        {"beers", "application", "tm_pgpatnt_beers", "tm_proppat_nt_beers_p"},
	        {"beers", "", "tm_pgpatn_beers", "tm_proppat_n_beers_p"},
	        {"", "application", "tm_pgpatt_application", "tm_proppat_t_application_p"},
	        {"", "", "tm_pgpat_", "tm_proppat___p"},
	};
	char longname[SCF_LIMIT_MAX_NAME_LENGTH];

	for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
		mf_pg_pattern_t p = {.name = (char *)cases[i].name, .type = (char *)cases[i].type};
		_cleanup_free_ char *pg = NULL, *prop = NULL;
		size_t over = 1;

		assert_int_equal(mf_pg_pattern_pg_name(&p, &pg, &over), 0);
		assert_string_equal(pg, cases[i].pg);
		assert_int_equal(over, 0);
		assert_int_equal(mf_prop_pattern_pg_name(pg, "p", &prop, NULL), 0);
		assert_string_equal(prop, cases[i].prop_pg);
	}
	/* "tm_pgpatnt_" and 109 bytes: one more than a pg name may hold. */
	memset(longname, 'a', 109);
	longname[109] = '\0';
	{
		mf_pg_pattern_t p = {.name = longname, .type = "application"};
		_cleanup_free_ char *pg = NULL;
		size_t over = 0;

		assert_int_equal(mf_pg_pattern_pg_name(&p, &pg, &over), -ENAMETOOLONG);
		assert_int_equal(over, 1);
	}
}

/* What illumos' lxml_get_tm_pg_pattern() and lxml_get_loctext() refuse, in its words. */
static void test_bad_templates(void **state)
{
#define TEMPLATE_OPEN "<template><common_name><loctext xml:lang='C'>t</loctext></common_name>\n"
	expect_bad_doc("pgpat-dup.xml",
	        BUNDLE_OPEN SERVICE_OPEN TEMPLATE_OPEN
	        "<pg_pattern name='beers' type='application'/>\n"
	        "<pg_pattern name='beers' type='framework'/>\n"
	        "</template>\n" CLOSE,
	        7,
	        "pg_pattern with name \"beers\" and type \"framework\" is not unique in site/test");
	expect_bad_doc("pgpat-long.xml",
	        BUNDLE_OPEN SERVICE_OPEN TEMPLATE_OPEN
	        "<pg_pattern name='"
	        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	        "aaaaaaa"
	        "aaaaaaaaaaaaaaaaaaaa' type='application'/>\n"
	        "</template>\n" CLOSE,
	        6, "pg_pattern property group name for site/test is 1 bytes too long");
	expect_bad_doc("proppat-long.xml",
	        BUNDLE_OPEN SERVICE_OPEN TEMPLATE_OPEN
	        "<pg_pattern name='"
	        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	        "aaaaaaa"
	        "aaaaaaaaaaaaaaaaaa' type='application'>\n"
	        "<prop_pattern name='p' type='count'/>\n"
	        "</pg_pattern>\n"
	        "</template>\n" CLOSE,
	        7, "prop_pattern name, \"p\", for site/test is 4 characters too long");
	expect_bad_doc("pgpat-name.xml",
	        BUNDLE_OPEN SERVICE_OPEN TEMPLATE_OPEN "<pg_pattern name='9beers'/>\n"
	                                               "</template>\n" CLOSE,
	        6, "pg_pattern name attribute, \"9beers\", for site/test is invalid");
	expect_bad_doc("loctext-empty.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<template><common_name>\n"
	                                 "<loctext xml:lang='C'></loctext>\n"
	                                 "</common_name></template>\n" CLOSE,
	        6, "loctext element has no content for \"site/test\"");
#undef TEMPLATE_OPEN
}

static void test_dependent(void **state)
{
	expect_bad_doc("dependent-none.xml",
	        BUNDLE_OPEN SERVICE_OPEN
	        "<dependent name='d' grouping='require_all' restart_on='none'/>\n" CLOSE,
	        5, "<dependent> needs a <service_fmri>");
	expect_bad_doc("dependent-two.xml",
	        BUNDLE_OPEN SERVICE_OPEN
	        "<dependent name='d' grouping='require_all' restart_on='none'>\n"
	        "<service_fmri value='svc:/a'/>\n"
	        "<service_fmri value='svc:/b'/>\n"
	        "</dependent>\n" CLOSE,
	        7, "<dependent> may contain only one <service_fmri>");
	expect_bad_doc("dependent-pg.xml",
	        BUNDLE_OPEN SERVICE_OPEN
	        "<dependent name='d' grouping='require_all' restart_on='none'>\n"
	        "<service_fmri value='svc:/a/b:c/:properties/pg'/>\n"
	        "</dependent>\n" CLOSE,
	        6, "must name one service or instance");
}

static void test_duplicates(void **state)
{
	expect_bad_doc("dup-instance.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<instance name='i' enabled='true'/>\n"
	                                 "<instance name='i' enabled='false'/>\n" CLOSE,
	        6, "instance \"i\" of service \"site/test\" is defined twice (first at line 5)");
	expect_bad_doc("dup-default.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<create_default_instance enabled='true'/>\n"
	                                 "<instance name='default' enabled='false'/>\n" CLOSE,
	        6, "instance \"default\"");
	expect_bad_doc("dup-pg.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<property_group name='pg' type='application'/>\n"
	                                 "<property_group name='pg' type='application'/>\n" CLOSE,
	        6, "property group \"pg\" of \"site/test\" is defined twice");
	expect_bad_doc("dup-prop.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<property_group name='pg' type='application'>\n"
	                                 "<propval name='p' type='astring' value='a'/>\n"
	                                 "<propval name='p' type='astring' value='b'/>\n"
	                                 "</property_group>\n" CLOSE,
	        7, "property \"p\" is defined twice");
	expect_bad_doc("dup-service.xml",
	        BUNDLE_OPEN SERVICE_OPEN "</service>\n" SERVICE_OPEN CLOSE, 6,
	        "service \"site/test\" is defined twice");
}

static void test_bad_names(void **state)
{
	expect_bad_doc("svc-name.xml",
	        BUNDLE_OPEN "<service name='site//x' version='1' type='service'/>\n"
	                    "</service_bundle>\n",
	        4, "illegal service name");
	expect_bad_doc("inst-name.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<instance name='a:b' enabled='true'/>\n" CLOSE, 5,
	        "illegal instance name");
	expect_bad_doc("pg-name.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<property_group name='9pg' type='application'/>\n" CLOSE,
	        5, "illegal property group name");
	expect_bad_doc("env.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<method_context><method_environment>\n"
	                                 "<envvar name='SMF_FMRI' value='x'/>\n"
	                                 "</method_environment></method_context>\n" CLOSE,
	        6, "\"SMF_\" prefix is reserved");
}

static void test_bad_bundle_type(void **state)
{
	expect_bad_doc("bundle-type.xml", "<service_bundle type='recipe' name='x'/>\n", 3,
	        "unknown service_bundle type \"recipe\"");
}

static void test_unreadable(void **state)
{
	_cleanup_free_ char *missing = NULL, *locked = NULL;

	assert_true(asprintf(&missing, "%s/no-such-file.xml", tmpdir) > 0);
	expect_error(missing, -ENOENT, 0, "cannot open: No such file or directory");
	expect_error(tmpdir, -EISDIR, 0, "Is a directory");

	/* Permissions do not stop root; only an unprivileged run can test them. */
	if (geteuid() != 0) {
		locked = write_str("locked.xml", full_manifest);
		assert_int_equal(chmod(locked, 0), 0);
		expect_error(locked, -EACCES, 0, "cannot open: Permission denied");
	}
}

static void test_profile_untyped(void **state)
{
	_cleanup_free_ char *path = write_str("profile.xml",
	        HEAD "<service_bundle type='profile' name='p'>\n"
	             "<service name='site/test' version='1' type='service'>\n"
	             "<instance name='default' enabled='true'>\n"
	             "<property_group name='config'>\n"
	             "<propval name='p' value='anything'/>\n"
	             "</property_group>\n"
	             "</instance>\n" CLOSE);
	_cleanup_bundle_ mf_bundle_t *b = read_ok(path);
	const mf_pg_t *pg = mf_entity_find_pg(&b->services[0]->instances[0]->e, "config");
	const mf_property_t *p;

	assert_int_equal(b->type, MF_BUNDLE_PROFILE);
	assert_non_null(pg);
	assert_null(pg->type);
	p = mf_props_find(&pg->props, "p");
	assert_int_equal(p->type, SCF_TYPE_INVALID);
	assert_string_equal(p->values[0], "anything");
}

static void test_profile_rules(void **state)
{
	_cleanup_free_ char *path = write_str("profile-noenabled.xml",
	        HEAD "<service_bundle type='profile' name='p'>\n" SERVICE_OPEN
	             "<instance name='default'/>\n" CLOSE);
	_cleanup_bundle_ mf_bundle_t *b = read_ok(path);

	/* A profile may leave enabled out (it then leaves general/enabled alone)... */
	assert_false(b->services[0]->instances[0]->enabled_set);
	/* ...a manifest may not. */
	expect_bad_doc("manifest-noenabled.xml",
	        BUNDLE_OPEN SERVICE_OPEN "<instance name='default'/>\n" CLOSE, 5,
	        "<instance> lacks the required attribute \"enabled\"");
	expect_bad_doc("profile-template.xml",
	        "<service_bundle type='profile' name='p'>\n" SERVICE_OPEN
	        "<template><common_name><loctext "
	        "xml:lang='C'>x</loctext></common_name></template>\n" CLOSE,
	        5, "may not be modified in a profile");
}

static void test_included_bundle_type(void **state)
{
	_cleanup_free_ char *inc =
	        write_str("inc-profile.xml", HEAD "<service_bundle type='profile' name='inc'/>\n");
	_cleanup_free_ char *main = write_str("main-manifest.xml",
	        HEAD "<service_bundle type='manifest' name='main'\n"
	             "  xmlns:xi='http://www.w3.org/2001/XInclude'>\n"
	             "<xi:include href='inc-profile.xml'/>\n"
	             "</service_bundle>\n");

	expect_error_in(main, inc, -EINVAL, 3, "included bundle of different type");
}

static void test_xinclude_loop(void **state)
{
	_cleanup_free_ char *path = write_str("loop.xml",
	        HEAD "<service_bundle type='manifest' name='loop'\n"
	             "  xmlns:xi='http://www.w3.org/2001/XInclude'>\n"
	             "<xi:include href='loop.xml'/>\n"
	             "</service_bundle>\n");

	expect_error(path, -EINVAL, 5, "nested too deeply");
}

static void test_xinclude_fallback(void **state)
{
	_cleanup_free_ char *path = write_str("fallback.xml",
	        HEAD "<service_bundle type='manifest' name='fb'\n"
	             "  xmlns:xi='http://www.w3.org/2001/XInclude'>\n"
	             "<xi:include href='absent.xml'>\n"
	             "<xi:fallback>" SERVICE_OPEN "</service></xi:fallback>\n"
	             "</xi:include>\n"
	             "</service_bundle>\n");
	_cleanup_bundle_ mf_bundle_t *b = read_ok(path);

	assert_int_equal(b->n_services, 1);
	assert_string_equal(b->services[0]->e.name, "site/test");
}

static void test_unknown_dtd(void **state)
{
	_cleanup_free_ char *path = write_str("dtd.xml",
	        "<?xml version='1.0'?>\n"
	        "<!DOCTYPE service_bundle SYSTEM 'http://example.com/evil.dtd'>\n" BUNDLE_OPEN
	        "</service_bundle>\n");

	/* Named, not fetched. */
	expect_error(path, -EINVAL, 3,
	        "document DTD unknown; not service bundle? (its system identifier is "
	        "\"http://example.com/evil.dtd\"");
}

static void test_many_errors_are_capped(void **state)
{
	_cleanup_free_ char *body = NULL, *path = NULL;
	mf_diags_t d = {0};
	mf_bundle_t *b = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&body, &len);

	assert_non_null(f);
	fputs(HEAD BUNDLE_OPEN SERVICE_OPEN, f);
	for (int i = 0; i < 1000; i++)
		fputs("<bogus/>\n", f);
	fputs(CLOSE, f);
	assert_int_equal(fclose(f), 0);
	path = write_str("many.xml", body);
	assert_int_equal(mf_read_file(path, 0, &d, &b), -EINVAL);
	assert_true(d.n > 10 && d.n <= 100);
	mf_diags_clear(&d);
}

static int setup_tmp(void **state)
{
	return test_root_make(tmpdir, sizeof(tmpdir), "test-manifest");
}

static int teardown_tmp(void **state)
{
	return test_root_remove(tmpdir);
}

int main(void)
{
	const struct CMUnitTest corpus[] = {
	        cmocka_unit_test(test_corpus),
	        cmocka_unit_test(test_write_corpus),
	};
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_full_model),
	        cmocka_unit_test(test_write_full),
	        cmocka_unit_test(test_write_text),
	        cmocka_unit_test(test_memory),
	        cmocka_unit_test(test_xinclude),
	        cmocka_unit_test(test_xinclude_missing_and_network),
	        cmocka_unit_test(test_xinclude_off),
	        cmocka_unit_test(test_not_xml),
	        cmocka_unit_test(test_empty_file),
	        cmocka_unit_test(test_truncated),
	        cmocka_unit_test(test_wrong_root),
	        cmocka_unit_test(test_no_doctype),
	        cmocka_unit_test(test_unknown_element),
	        cmocka_unit_test(test_misplaced_element),
	        cmocka_unit_test(test_unknown_attribute),
	        cmocka_unit_test(test_missing_attribute),
	        cmocka_unit_test(test_bad_enum),
	        cmocka_unit_test(test_bad_values),
	        cmocka_unit_test(test_bad_list_value),
	        cmocka_unit_test(test_bad_timeout),
	        cmocka_unit_test(test_dependency_without_fmri),
	        cmocka_unit_test(test_pattern_pg_names),
	        cmocka_unit_test(test_bad_templates),
	        cmocka_unit_test(test_dependent),
	        cmocka_unit_test(test_duplicates),
	        cmocka_unit_test(test_bad_names),
	        cmocka_unit_test(test_bad_bundle_type),
	        cmocka_unit_test(test_unreadable),
	        cmocka_unit_test(test_profile_untyped),
	        cmocka_unit_test(test_profile_rules),
	        cmocka_unit_test(test_included_bundle_type),
	        cmocka_unit_test(test_unknown_dtd),
	        cmocka_unit_test(test_xinclude_loop),
	        cmocka_unit_test(test_xinclude_fallback),
	        cmocka_unit_test(test_many_errors_are_capped),
	};
	int r;

	xmlInitParser();
	xmlSetExternalEntityLoader(refusing_loader);
	r = cmocka_run_group_tests_name("corpus", corpus, setup_corpus, teardown_corpus);
	r += cmocka_run_group_tests_name("manifest", tests, setup_tmp, teardown_tmp);
	return r;
}
