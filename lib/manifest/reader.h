/*
 * reader.h: what the reader's stages (parse.c, check.c, build.c) share.  Not for callers.
 */
#ifndef SMF_MANIFEST_READER_H
#define SMF_MANIFEST_READER_H

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdbool.h>

#include "bundle.h"
#include "macro.h"
#include "manifest.h"

#define MF_XML_OPTIONS (XML_PARSE_NONET | XML_PARSE_BIG_LINES | XML_PARSE_NOCDATA)
#define MF_XINCLUDE_NS "http://www.w3.org/2001/XInclude"
#define MF_XINCLUDE_NS_OLD "http://www.w3.org/2003/XInclude"
/* Cleanups for what parse.c and xinclude.c parse. */
static inline void docp(xmlDocPtr *d)
{
	if (*d)
		xmlFreeDoc(*d);
}

static inline void ctxtp(xmlParserCtxtPtr *c)
{
	if (*c)
		xmlFreeParserCtxt(*c);
}

/* A manifest is a few KiB; this only keeps a mistaken argument from eating the memory. */
#define MF_MAX_FILE_SIZE (64u << 20)

/* Past this many diagnostics a document is hopeless; stop adding more (fuzzed input). */
#define MF_MAX_DIAGS 100

typedef struct mf_reader {
	const char *file;
	unsigned flags;
	mf_diags_t *diags;
	unsigned n_errors;
	bool oom;
	char *base; /* scratch: the file of the element being reported */
} mf_reader_t;

/*
 * Records "FILE:LINE(n): message".  Returns -EINVAL, so callers write "return mf_err(...)";
 * a failed allocation is remembered in r->oom and turned into -ENOMEM at the end.
 */
int mf_err(mf_reader_t *r, const xmlNode *n, const char *fmt, ...) _printf_(3, 4);
unsigned mf_line(const xmlNode *n);

/* An attribute's value (the xml:lang attribute for "xml:lang"), or NULL; the caller frees it. */
char *mf_attr(const xmlNode *n, const char *name);
/* The element's name as written, with its namespace prefix ("xi:include"). */
const char *mf_elem_name(const xmlNode *n, char *buf, size_t size);

/* Reads what is left of fd into a malloc()ed buffer; 0, -EFBIG past MF_MAX_FILE_SIZE, -errno. */
int mf_read_all(int fd, char **ret, size_t *ret_len);

/*
 * Replaces every xi:include below n by the root element of the document it names (xinclude.c);
 * problems are recorded as errors.
 */
void mf_xinclude(mf_reader_t *r, xmlNode *n, unsigned depth);

/* Checks root and everything below it against schema.c; 0 or -EINVAL (errors recorded). */
int mf_check_tree(mf_reader_t *r, xmlNode *root);

/* Builds the bundle from a tree that passed mf_check_tree(), with the semantic checks. */
int mf_build_bundle(mf_reader_t *r, xmlNode *root, mf_bundle_t **ret);

#endif
