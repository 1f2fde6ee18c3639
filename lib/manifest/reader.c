/*
 * reader.c: what every stage of a read shares (reader.h): recording a problem against the
 * element it concerns, reading attributes and names, reading a whole file.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reader.h"

unsigned mf_line(const xmlNode *n)
{
	long l = n ? xmlGetLineNo(n) : 0;

	return l > 0 && l < (long)UINT_MAX ? (unsigned)l : 0;
}

/*
 * The file an element came from: XInclude copies an included document's elements into ours
 * with their own line numbers and an xml:base naming their file, so the base tells us.
 */
static const char *node_file(mf_reader_t *r, const xmlNode *n)
{
	xmlChar *base;

	if (!n || !n->doc || n->type != XML_ELEMENT_NODE)
		return r->file;
	base = xmlNodeGetBase(n->doc, n);
	if (!base)
		return r->file;
	free(r->base);
	r->base = strdup((const char *)base);
	xmlFree(base);
	return r->base ? r->base : r->file;
}

int mf_err(mf_reader_t *r, const xmlNode *n, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	r->n_errors++;
	if (r->diags->n >= MF_MAX_DIAGS)
		return -EINVAL;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (!msg || mf_diags_add(r->diags, node_file(r, n), mf_line(n), "%s", msg) < 0)
		r->oom = true;
	return -EINVAL;
}

char *mf_attr(const xmlNode *n, const char *name)
{
	xmlChar *v;
	char *s;

	if (streq(name, "xml:lang"))
		v = xmlGetNsProp(n, (const xmlChar *)"lang", XML_XML_NAMESPACE);
	else
		v = xmlGetNoNsProp(n, (const xmlChar *)name);
	if (!v)
		return NULL;
	/* Hand out malloc()ed memory, whatever allocator libxml2 was set up with. */
	s = strdup((const char *)v);
	xmlFree(v);
	return s;
}

const char *mf_elem_name(const xmlNode *n, char *buf, size_t size)
{
	if (n->ns && n->ns->prefix) {
		snprintf(buf, size, "%s:%s", (const char *)n->ns->prefix, (const char *)n->name);
		return buf;
	}
	return (const char *)n->name;
}

bool mf_in_xinclude_ns(const xmlNode *n)
{
	return n->ns && n->ns->href &&
	        (streq((const char *)n->ns->href, MF_XINCLUDE_NS) ||
	                streq((const char *)n->ns->href, MF_XINCLUDE_NS_OLD));
}

int mf_read_all(int fd, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, cap = 0;

	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap >= MF_MAX_FILE_SIZE)
				return -EFBIG;
			/* 16 KiB at first, then doubling. */
			if (GREEDY_REALLOC(buf, cap, len + 16384) < 0)
				return -ENOMEM;
		}
		n = read(fd, buf + len, cap - len);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return negative_errno();
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}
