/*
 * bundles.h: what import, validate, inventory and apply share: the manifest files named on the
 * command line (a directory stands for every *.xml below it, sorted), and reading one with its
 * diagnostics printed.
 */
#ifndef SVCCFG_BUNDLES_H
#define SVCCFG_BUNDLES_H

#include "bundle.h"
#include "lexer.h"
#include "svccfg.h"

/*
 * Appends path to *files, or, for a directory, every regular file ending in ".xml" below it,
 * recursively, in strcmp order, reading each directory once: a link to one read already is
 * skipped with a warning naming it.  Returns 0 or a negative errno (reported).
 */
int bundles_collect(svccfg_t *c, const char *path, char ***files);

/*
 * bundles_collect for each of n arguments; 0, or a negative code (reported) for one that is no
 * text (a syntax error) or fails.
 */
int bundles_collect_args(svccfg_t *c, const token_t *args, size_t n, char ***files);

/*
 * Reads (and validates) one bundle; every diagnostic goes to stderr as "FILE:LINE: message".
 * Returns 0 and the bundle, or the reader's negative errno (reported; -ENOMEM is fatal).
 */
int bundles_read(svccfg_t *c, const char *path, mf_bundle_t **ret);

#endif
