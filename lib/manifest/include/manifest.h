/*
 * manifest.h: the manifest library's front page, and the reader's entry points.
 *
 * THE MODEL.  A service bundle (illumos' manifest, profile or archive) is read into one
 * in-memory tree, mf_bundle_t (bundle.h), and written back from one (writer.h).  The tree is
 * the library's vocabulary: svccfg maps it onto the repository for import and apply, and
 * builds it from the repository for export, so both directions meet in one type.  The library
 * knows nothing of the repository: it stands on lib/model (names, value types) and libxml2.
 *
 * LAYERS.  Each file includes only what is below it; no stage knows another:
 *
 *   manifest.h, parse.c     the reader's entry points: run the stages below in order
 *     xinclude.h/.c         stage 1: XInclude, ours (no DTD, no network)
 *     check.h/.c            stage 2: the structural check against the rules in schema.h/.c
 *     build.h/.c            stage 3: the tree into an mf_bundle_t, with the semantic checks
 *   reader.h/.c             what the stages share: the read in progress, its errors, XML helpers
 *   writer.h/.c             an mf_bundle_t as XML (beside the reader, not above or below it)
 *   diag.h/.c               the list of problems found (public)
 *   bundle.h/.c             the model (public)
 *
 * Reading: mf_read_file() and mf_read_memory() parse a bundle with libxml2, check its
 * structure and its semantics, and build the model.  Problems are not printed: each becomes a
 * diagnostic (diag.h) in the caller's list.  The reader goes on after an error where it can,
 * so one run reports as many problems as possible.
 */
#ifndef SMF_MANIFEST_MANIFEST_H
#define SMF_MANIFEST_MANIFEST_H

#include <stddef.h>

#include "bundle.h"
#include "diag.h"

enum {
	/*
	 * Leave xi:include elements unprocessed (they are then reported as errors): reading a
	 * document from memory that must not touch the file system, e.g. when fuzzing.
	 */
	MF_READ_NO_XINCLUDE = 1 << 0,
};

/* What a diagnostic of a document libxml2 cannot parse starts with: illumos' svccfg's words. */
#define MF_UNPARSEABLE "couldn't parse document"

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
