/*
 * xinclude.c: XInclude for service bundles, done here rather than by libxml2.
 *
 * libxml2's own XInclude loads the DTD of every included document (it parses them with
 * XML_PARSE_DTDLOAD) and will try any URL scheme its loaders know.  A bundle reader must do
 * neither, so we do the small part of XInclude that bundles use ourselves: <xi:include
 * href="..."/> with parse="xml" (the default), no xpointer, href relative to the including
 * element's base or a file: URL, and <xi:fallback> when the file cannot be read.  The
 * included document's root element replaces the xi:include element, keeping its own line
 * numbers and marked with xml:base naming its file, so diagnostics point into the right file.
 * Includes nest up to MF_XINCLUDE_MAX_DEPTH deep, which also stops include loops.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/uri.h>

#include "xinclude.h"

#define MF_XINCLUDE_MAX_DEPTH 8

static bool in_xi_ns(const xmlNode *n)
{
	return n->type == XML_ELEMENT_NODE && mf_in_xinclude_ns(n);
}

static bool is_xi(const xmlNode *n, const char *name)
{
	return in_xi_ns(n) && streq((const char *)n->name, name);
}

static void xfreep(xmlChar **p)
{
	if (*p)
		xmlFree(*p);
}
#define _cleanup_xfree_ _cleanup_(xfreep)

static void urip(xmlURIPtr *u)
{
	if (*u)
		xmlFreeURI(*u);
}

/* The local file an href names, resolved against the base of the including element. */
static int include_path(mf_reader_t *r, xmlNode *inc, const char *href, char **ret)
{
	_cleanup_xfree_ xmlChar *base = xmlNodeGetBase(inc->doc, inc), *uri = NULL;
	_cleanup_(urip) xmlURIPtr u = NULL;

	uri = xmlBuildURI((const xmlChar *)href, base);
	if (uri)
		u = xmlParseURI((const char *)uri);
	if (!u || !u->path || !*u->path)
		return mf_err(r, inc, "cannot include \"%s\": not a file name or file: URL", href);
	if (u->scheme && !streq(u->scheme, "file"))
		return mf_err(r, inc, "will not fetch \"%s\": only local files are included", href);
	if (u->server && *u->server && !streq(u->server, "localhost"))
		return mf_err(r, inc, "will not fetch \"%s\": it names another host", href);
	*ret = strdup(u->path);
	if (!*ret)
		r->oom = true;
	return *ret ? 0 : -ENOMEM;
}

/* Replaces inc by the children of its <xi:fallback>; false if it has none. */
static bool use_fallback(mf_reader_t *r, xmlNode *inc, unsigned depth)
{
	xmlNode *fb = NULL;

	for (xmlNode *c = inc->children; c && !fb; c = c->next)
		if (is_xi(c, "fallback"))
			fb = c;
	if (!fb)
		return false;
	while (fb->children) {
		xmlNode *c = fb->children;

		xmlUnlinkNode(c);
		xmlAddPrevSibling(inc, c);
		if (c->type == XML_ELEMENT_NODE)
			mf_xinclude(r, c, depth);
	}
	return true;
}

static int include_one(mf_reader_t *r, xmlNode *inc, unsigned depth)
{
	_cleanup_free_ char *href = mf_attr(inc, "href"), *parse = mf_attr(inc, "parse");
	_cleanup_free_ char *xpointer = mf_attr(inc, "xpointer"), *path = NULL, *buf = NULL;
	_cleanup_(ctxtp) xmlParserCtxtPtr ctxt = NULL;
	_cleanup_(docp) xmlDocPtr sub = NULL;
	_cleanup_close_ int fd = -1;
	xmlNode *root, *copy;
	size_t len = 0;
	int k;

	if (!href || !*href)
		return mf_err(r, inc, "<xi:include> without href");
	if (parse && !streq(parse, "xml"))
		return mf_err(r, inc, "<xi:include parse=\"%s\">: only parse=\"xml\" is supported",
		        parse);
	if (xpointer)
		return mf_err(r, inc, "<xi:include xpointer=...> is not supported");
	if (depth >= MF_XINCLUDE_MAX_DEPTH)
		return mf_err(r, inc, "cannot include \"%s\": includes nested too deeply (a loop?)",
		        href);
	k = include_path(r, inc, href, &path);
	if (k < 0)
		return k;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	k = fd < 0 ? negative_errno() : mf_read_all(fd, &buf, &len);
	if (k == -ENOMEM) {
		r->oom = true;
		return k;
	}
	if (k < 0) {
		if (use_fallback(r, inc, depth))
			goto done;
		return mf_err(r, inc, "cannot include \"%s\": %s", href, strerror(-k));
	}
	if (len > INT_MAX)
		return mf_err(r, inc, "cannot include \"%s\": file too large", href);
	ctxt = xmlNewParserCtxt();
	if (!ctxt) {
		r->oom = true;
		return -ENOMEM;
	}
	/* Its parse errors arrive through our handler, naming path. */
	sub = xmlCtxtReadMemory(ctxt, buf ? buf : "", (int)len, path, NULL, MF_XML_OPTIONS);
	if (!sub || !ctxt->wellFormed || !(root = xmlDocGetRootElement(sub)))
		return mf_err(r, inc, "cannot include \"%s\": not a well-formed document", href);
	mf_xinclude(r, root, depth + 1);

	copy = xmlDocCopyNode(root, inc->doc, 1);
	if (!copy) {
		r->oom = true;
		return -ENOMEM;
	}
	xmlNodeSetBase(copy, (const xmlChar *)path);
	xmlAddPrevSibling(inc, copy);
done:
	xmlUnlinkNode(inc);
	xmlFreeNode(inc);
	return 0;
}

void mf_xinclude(mf_reader_t *r, xmlNode *n, unsigned depth)
{
	xmlNode *c = n->children;

	while (c) {
		xmlNode *next = c->next;

		if (is_xi(c, "include"))
			include_one(r, c, depth);
		else if (c->type == XML_ELEMENT_NODE && !in_xi_ns(c))
			mf_xinclude(r, c, depth);
		c = next;
	}
}
