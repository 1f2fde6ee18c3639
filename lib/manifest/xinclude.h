/* xinclude.h: stage 1 of a read, XInclude (see xinclude.c).  Not for callers of the library. */
#ifndef SMF_MANIFEST_XINCLUDE_H
#define SMF_MANIFEST_XINCLUDE_H

#include "reader.h"

/*
 * Replaces every xi:include below n by the root element of the document it names; problems
 * are recorded as errors on r.
 */
void mf_xinclude(mf_reader_t *r, xmlNode *n, unsigned depth);

#endif
