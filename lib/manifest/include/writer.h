/*
 * writer.h: an mf_bundle_t written out as a service bundle document.
 *
 * The writer is the reader's inverse on the model: whatever the reader built, written and read
 * again, gives the same model back (tests/unit/manifest checks it on the corpus).  It writes
 * what the model holds and nothing else: each element in the place the format's content model
 * gives it, attributes that hold their default left out, a property as <propval> or as
 * <property> with a value list as its is_list says.  What the reader does not keep (comments,
 * the spelling of a value, the patterns' value constraints) cannot come back.
 *
 * Deciding what a bundle holds is the caller's business: svccfg's export builds the model from
 * the repository (cli/svccfg/unmap.c) and hands it here.
 */
#ifndef SMF_MANIFEST_WRITER_H
#define SMF_MANIFEST_WRITER_H

#include <stdio.h>

#include "bundle.h"

/*
 * Writes b to f as one document, indented by two spaces, and flushes f.  Returns 0, -ENOMEM,
 * -EIO if libxml2's writer failed, -EILSEQ (nothing written) if a string holds a character XML
 * 1.0 cannot carry (smf_value_forbidden_char()), or the negative errno of a failed write.
 */
int mf_bundle_write(const mf_bundle_t *b, FILE *f);

#endif
