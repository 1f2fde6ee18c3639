/*
 * manifest.h: the manifest reader's entry points and its list of diagnostics.
 *
 * mf_read_file() and mf_read_memory() parse a service bundle with libxml2 (no network, no DTD
 * loading, XInclude processed), check its structure and its semantics, and build an
 * mf_bundle_t (bundle.h).  Problems are not printed: each becomes an mf_diag_t naming the file,
 * the line and what is wrong, collected in the caller's mf_diags_t so that svccfg validate can
 * print them all and svccfg import can refuse the manifest.  The reader goes on after an error
 * where it can, so one run reports as many problems as possible.
 */
#ifndef SMF_MANIFEST_MANIFEST_H
#define SMF_MANIFEST_MANIFEST_H

#include <stddef.h>
#include <stdio.h>

#include "bundle.h"
#include "macro.h"

/*
 * The DOCTYPE's system identifier every bundle carries (and export writes).  It names illumos'
 * DTD; it is compared, never opened.
 */
#define MF_DTD_PATH "/usr/share/lib/xml/dtd/service_bundle.dtd.1"

typedef struct mf_diag {
	char *file;
	unsigned line; /* 0 when no line applies (the file could not be read) */
	char *message;
} mf_diag_t;

typedef struct mf_diags {
	mf_diag_t *v;
	size_t n;
} mf_diags_t;

/* Adds one diagnostic; -ENOMEM if it could not be recorded. */
int mf_diags_add(mf_diags_t *d, const char *file, unsigned line, const char *fmt, ...)
        _printf_(4, 5);
void mf_diags_clear(mf_diags_t *d);
/* "FILE:LINE: message" (or "FILE: message" without a line); the caller frees it. */
char *mf_diag_format(const mf_diag_t *d);
/* One formatted diagnostic per line. */
void mf_diags_print(const mf_diags_t *d, FILE *f);

enum {
	/*
	 * Leave xi:include elements unprocessed (they are then reported as errors): reading a
	 * document from memory that must not touch the file system, e.g. when fuzzing.
	 */
	MF_READ_NO_XINCLUDE = 1 << 0,
};

/*
 * Reads the bundle in the file at path.  Returns 0 and the bundle in *ret, or a negative errno:
 * -EINVAL when the document is malformed or invalid, -ENOENT/-EACCES/-EISDIR/... when the file
 * cannot be read, -ENOMEM.  Every failure but -ENOMEM adds at least one diagnostic to diags.
 */
int mf_read_file(const char *path, unsigned flags, mf_diags_t *diags, mf_bundle_t **ret);

/*
 * The same from len bytes at buf; name is used in diagnostics and as the document's URL, so
 * relative xi:include references resolve against it.
 */
int mf_read_memory(const void *buf, size_t len, const char *name, unsigned flags, mf_diags_t *diags,
        mf_bundle_t **ret);

#endif
