/*
 * method.h: running an instance's methods as illumos does (method.c).
 */
#ifndef STARTD_METHOD_H
#define STARTD_METHOD_H

#include <stdbool.h>
#include <sys/types.h>

#include "instance.h"

typedef enum method_result {
	METHOD_OK = 0,
	METHOD_FAILED,   /* exited non-zero (retryable) or died on a signal */
	METHOD_FATAL,    /* exit 95/96/99/100, or cannot run at all: maintenance at once */
	METHOD_CONFIG,   /* its method_context cannot be set up: maintenance at once */
	METHOD_TIMEOUT,  /* exceeded timeout_seconds and was killed */
	METHOD_CANCELED, /* a start method killed because startd shuts down */
} method_result_t;

/*
 * Runs the named method ("start", "stop") from the instance's running snapshot.  For "start",
 * the method's process group becomes the instance's contract (i->pgid, i->start_pid);
 * with wait_model the method is not waited for.  *code gets the exit status (or -signal).
 * Returns 0 with *res, or < 0 when the method is not defined (-ENOENT) or cannot be read
 * (the repository's error: instance_connection_lost() when configd did not come back).
 */
int method_run(instance_t *i, const char *name, bool wait_model, method_result_t *res, int *code);
/* The instance's service model from startd/duration. */
smodel_t method_model(instance_t *i);
/* The uid the named method runs as (its method_context's user, else startd's), or < 0. */
int method_uid(instance_t *i, const char *name, uid_t *uid);
/* $ROOT/var/svc/log/<service with / as ->:<instance>.log, malloc'd. */
int method_logfile_path(const char *root, const char *fmri, char **ret);

#endif
