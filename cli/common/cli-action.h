/*
 * cli-action.h: asking an instance's restarter to act, as svcadm and svccfg both must.
 *
 * A request is an integer timestamp in the instance's non-persistent restarter_actions pg
 * (restart, refresh, maint_on, ...); svc.startd sees the pg change, acts once, and deletes
 * the property unless a newer request came meanwhile.
 */
#ifndef CLI_ACTION_H
#define CLI_ACTION_H

#include "libscf.h"

/* Writes restarter_actions/<action> = now (monotonic ns), creating the pg if needed; as
 * illumos, a newer pending request is left alone.  0 or a negative scf error. */
int cli_request_action(scf_handle_t *h, const char *fmri, const char *action);

/* illumos' smf_refresh_instance(): retake the running snapshot, then request "refresh" so the
 * restarter re-reads the configuration.  0 or a negative scf error. */
int cli_refresh_instance(scf_handle_t *h, const char *fmri);

#endif
