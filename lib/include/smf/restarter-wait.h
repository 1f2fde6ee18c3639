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

typedef void (*smf_wait_begin_fn)(size_t n, void *userdata);

int smf_instance_wait_restarter(scf_handle_t *h, const char *const *fmris, size_t n,
        uint64_t timeout_usec, bool *done, char **ret_detail, smf_wait_begin_fn begin,
        void *userdata);

/*
 * The default deadline: $SVCCFG_IMPORT_TIMEOUT seconds when set and non-empty, else
 * SCF_WAIT_RESTARTER_DEFAULT_SEC.  -EINVAL (*ret left at the default) when the variable is
 * not a positive number of seconds.
 */
int smf_wait_restarter_default_timeout(uint64_t *ret);

#endif
