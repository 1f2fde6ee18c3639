/*
 * writer.h: repository entities written as a service bundle (export, archive, extract).
 *
 * The bundle is built so that importing it gives back the same repository content (what
 * `repodump` shows, less generations, snapshots and the import bookkeeping): every persistent
 * pg of a service and its instances is written as a <property_group> with its type and every
 * property with its type and all its values; an instance's general/enabled also becomes its
 * `enabled` attribute; the "dependents" pg becomes <dependent> elements (their target's
 * dependency pg, marked "external", is left out of the target, as illumos does), except the
 * entries whose target has no such pg (it was imported after them), which stay a plain pg so
 * that a re-import reproduces that too.  Not written:
 * non-persistent pgs, the manifestfiles pg (it names the file of the import).
 */
#ifndef SVCCFG_WRITER_H
#define SVCCFG_WRITER_H

#include <stdio.h>

#include <libxml/xmlwriter.h>

#include "libscf.h"

typedef struct bundle_writer {
	xmlBufferPtr buf;
	xmlTextWriterPtr w;
	scf_handle_t *h;
} bundle_writer_t;

/* Opens <service_bundle type=TYPE name=NAME> after the XML declaration and DOCTYPE. */
int writer_begin(bundle_writer_t *bw, scf_handle_t *h, const char *type, const char *name);
/* One <service> with everything it holds (see above). */
int writer_service(bundle_writer_t *bw, const char *service_fmri);
/* One <service> holding only its instances' enabled flags (a profile, for extract). */
int writer_service_enabled(bundle_writer_t *bw, const char *service_fmri);
/* Closes the bundle and writes it to f. */
int writer_end(bundle_writer_t *bw, FILE *f);
void writer_free(bundle_writer_t *bw);

#endif
