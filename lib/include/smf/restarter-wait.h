/*
 * restarter-wait.h: scf_instance_wait_restarter() (libscf.h) as the CLI calls it.
 *
 * The CLI traces a wait's beginning (svccfg's import.wait_begin and add.wait_begin, svcadm's
 * svcadm.wait_restarter_begin) only when it really waits, which only the wait knows once its
 * exceptions are checked: begin, when not NULL, is called then, with the number of instances,
 * right before the first read.  Everything else is scf_instance_wait_restarter()'s.
 */
#ifndef SMF_RESTARTER_WAIT_H
#define SMF_RESTARTER_WAIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libscf.h"
#include "timeutil.h"

typedef void (*smf_wait_begin_fn)(size_t n, void *userdata);

int smf_instance_wait_restarter(scf_handle_t *h, const char *const *fmris, size_t n,
        uint64_t timeout_usec, bool *done, char **ret_detail, smf_wait_begin_fn begin,
        void *userdata);

/*
 * Asked by a restarter wait that does not progress (the import's, svcadm -s's): whether
 * svc.startd's writes of restarter pgs are refused by configd's store, the non-persistent
 * database (scf_store_status()).  0 when it takes writes, or when configd keeps no record (the
 * caller waits as before); -SCF_ERROR_BACKEND_ACCESS when its last write was refused, with h's
 * errmsg naming the instance fmri (and how many others wait too), the database's file and
 * what failed: `svc.startd cannot write the "restarter" property group of svc:/x:default: the
 * non-persistent repository /.../svc_nonpersist.db is full (database or disk is full)`; or
 * the library's errors.
 */
int smf_restarter_store_check(scf_handle_t *h, const char *fmri, size_t others);
/*
 * How often scf_instance_wait_restarter() asks it while no instance it waits for gets its pg:
 * a store that refuses writes is named within about this long (and startd's first try), and a
 * wait that progresses never asks.
 */
#define SMF_WAIT_STORE_CHECK_USEC (1 * USEC_PER_SEC)

/*
 * The default deadline: $SVCCFG_IMPORT_TIMEOUT seconds when set and non-empty, else
 * SCF_WAIT_RESTARTER_DEFAULT_SEC.  -EINVAL (*ret left at the default) when the variable is
 * not a positive number of seconds.
 */
int smf_wait_restarter_default_timeout(uint64_t *ret);

#endif
