/*
 * build.h: stage 3 of a read, the model built from the tree (see build.c).  Not for callers of
 * the library.
 */
#ifndef SMF_MANIFEST_BUILD_H
#define SMF_MANIFEST_BUILD_H

#include "bundle.h"
#include "reader.h"

/*
 * Builds the bundle from a tree that passed mf_check_tree(), with the semantic checks; 0, or
 * -EINVAL (errors recorded) or -ENOMEM.
 */
int mf_build_bundle(mf_reader_t *r, xmlNode *root, mf_bundle_t **ret);

#endif
