/*
 * check.h: stage 2 of a read, the structural check (see check.c).  Not for callers of the
 * library.
 */
#ifndef SMF_MANIFEST_CHECK_H
#define SMF_MANIFEST_CHECK_H

#include "reader.h"

/* Checks root and everything below it against schema.c; 0 or -EINVAL (errors recorded). */
int mf_check_tree(mf_reader_t *r, xmlNode *root);

#endif
