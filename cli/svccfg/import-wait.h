/*
 * import-wait.h: after an import or an add of an instance, wait until the restarter has taken
 * up every new instance.
 *
 * See import-wait.c for the model.  import calls import_wait() once, after every manifest was
 * committed and refreshed, with the instances those manifests wrote; add calls add_wait() after
 * creating an instance.
 */
#ifndef SVCCFG_IMPORT_WAIT_H
#define SVCCFG_IMPORT_WAIT_H

#include <stdint.h>

#include "svccfg.h"

/*
 * Seconds (a decimal number, fractions allowed) -> microseconds; -EINVAL if it is not a
 * positive number.
 */
int import_wait_parse_timeout(const char *s, uint64_t *ret);

/*
 * $SVCCFG_IMPORT_TIMEOUT, else the default (SCF_WAIT_RESTARTER_DEFAULT_SEC); -EINVAL (reported)
 * if the variable is malformed.
 */
int import_wait_default_timeout(svccfg_t *c, uint64_t *ret);

/*
 * Waits until each of instances (canonical FMRIs) has a restarter pg with a state property, at
 * most timeout_usec.  Returns 0 (also when it decided not to wait, saying why), -ETIMEDOUT
 * (reported, naming the instances still missing) or another negative code (reported).
 * SVCCFG_IMPORT_NOWAIT=1: no wait, silently.
 */
int import_wait(svccfg_t *c, scf_handle_t *h, char *const *instances, uint64_t timeout_usec);

/* The same for svccfg add of one instance; SVCCFG_ADD_NOWAIT=1: no wait, silently. */
int add_wait(svccfg_t *c, scf_handle_t *h, const char *instance, uint64_t timeout_usec);

/* Traces import.wait_done "skipped: <why>", for a caller that does not wait at all (-n). */
void import_wait_skipped(const char *why);

#endif
