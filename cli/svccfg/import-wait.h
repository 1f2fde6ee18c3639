/*
 * import-wait.h: after an import, wait until the restarter has taken up every new instance.
 *
 * See import-wait.c for the model.  import calls import_wait() once, after every manifest was
 * committed and refreshed, with the instances those manifests wrote.
 */
#ifndef SVCCFG_IMPORT_WAIT_H
#define SVCCFG_IMPORT_WAIT_H

#include <stdint.h>

#include "svccfg.h"

#define IMPORT_WAIT_DEFAULT_SEC 60

/*
 * Seconds (a decimal number, fractions allowed) -> microseconds; -EINVAL if it is not a
 * positive number.
 */
int import_wait_parse_timeout(const char *s, uint64_t *ret);

/* $SVCCFG_IMPORT_TIMEOUT, else the default; -EINVAL (reported) if the variable is malformed. */
int import_wait_default_timeout(svccfg_t *c, uint64_t *ret);

/*
 * Waits until each of instances (canonical FMRIs) has a restarter pg with a state property, at
 * most timeout_usec.  Returns 0 (also when it decided not to wait, saying why), -ETIMEDOUT
 * (reported, naming the instances still missing) or another negative code (reported).
 */
int import_wait(svccfg_t *c, scf_handle_t *h, char *const *instances, uint64_t timeout_usec);

/* Traces import.wait_done "skipped: <why>", for a caller that does not wait at all (-n). */
void import_wait_skipped(const char *why);

#endif
