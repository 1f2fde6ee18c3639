/*
 * reader.h: what the reader's stages (parse.c, check.c, build.c) share.  Not for callers.
 */
#ifndef SMF_MANIFEST_READER_H
#define SMF_MANIFEST_READER_H

#include <libxml/tree.h>
#include <stdbool.h>

#include "bundle.h"
#include "macro.h"
#include "manifest.h"

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

/* Checks root and everything below it against schema.c; 0 or -EINVAL (errors recorded). */
int mf_check_tree(mf_reader_t *r, xmlNode *root);

/* Builds the bundle from a tree that passed mf_check_tree(), with the semantic checks. */
int mf_build_bundle(mf_reader_t *r, xmlNode *root, mf_bundle_t **ret);

#endif
