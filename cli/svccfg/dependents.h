/* dependents.h: the dependency pgs an entity wrote into other entities as their dependents. */
#ifndef SVCCFG_DEPENDENTS_H
#define SVCCFG_DEPENDENTS_H

#include "libscf.h"

/*
 * Adds to b a deletion of every pg that entity (and, for a service, each of its instances)
 * wrote into a target as a <dependent>: the target's pg named after the dependent, if it is
 * still marked external and still names entity.  0 or a negative scf error (errmsg on h).
 */
int dependents_add_cleanup(scf_handle_t *h, scf_batch_t *b, const char *entity);

#endif
