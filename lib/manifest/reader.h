/*
 * reader.h: what the reader's stages (xinclude.c, check.c, build.c) and its entry points
 * (parse.c) share: the read in progress, how a problem is recorded, and small libxml2 helpers.
 * Below every stage; includes no stage.  Not for callers of the library.
 */
#ifndef SMF_MANIFEST_READER_H
#define SMF_MANIFEST_READER_H

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <stdbool.h>

#include "diag.h"
#include "macro.h"

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

/* One read, from the first byte to the bundle. */
typedef struct mf_reader {
	const char *file;
	unsigned flags;
	mf_diags_t *diags;
	unsigned n_errors; /* only grows: a stage that added one makes the read fail */
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
/* Is n in one of the XInclude namespaces? */
bool mf_in_xinclude_ns(const xmlNode *n);

/* Reads what is left of fd into a malloc()ed buffer; 0, -EFBIG past MF_MAX_FILE_SIZE, -errno. */
int mf_read_all(int fd, char **ret, size_t *ret_len);

#endif
