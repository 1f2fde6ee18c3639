/*
 * method.h: running an instance's methods as illumos does (method.c).
 */
#ifndef STARTD_METHOD_H
#define STARTD_METHOD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fsm.h"
#include "instance.h"

/* One run of a method: what the machine asked for, then what method_spawn() made of it. */
typedef struct method_call {
	const char *name; /* "start", "stop", "refresh" */
	pid_t contract;   /* the instance's contract: ":kill" signals it */
	bool cgroup;      /* the child enters the instance's cgroup leaf */
	/* method_spawn()'s, for method_wait(): */
	pid_t pid; /* the method's process (and process group) */
	int log_fd;
	char *exec;
	uint64_t timeout_s; /* 0: none */
} method_call_t;

/*
 * Reads the method from the instance's running snapshot (or its current view) and spawns it
 * in its process group: 1, c->pid running, method_wait() to follow.  0 when it ended without
 * a process of its own, with *end: ":true" and ":kill" (exited 0), a method_context that cannot
 * be set up, a spawn that failed, a method undefined (-ENOENT) or that cannot be read (the
 * repository's error in end->code; METHOD_UNREACHABLE when configd did not come back).
 */
int method_spawn(instance_t *i, method_call_t *c, method_end_t *end);
/*
 * Waits for c's method, killing its group at its timeout_seconds, or, for a start, when startd
 * shuts down (proc_cancel_waits()); what a stop or refresh method left is killed.  *end: how
 * it ended.
 */
void method_wait(instance_t *i, method_call_t *c, method_end_t *end);
/* What method_spawn() holds (its log, its exec string), let go; c may be spawned again. */
void method_call_done(method_call_t *c);

/* The instance's service model from startd/duration. */
smodel_t method_model(instance_t *i);
/* The uid the named method runs as (its method_context's user, else startd's), or < 0. */
int method_uid(instance_t *i, const char *name, uid_t *uid);
/* $ROOT/var/svc/log/<service with / as ->:<instance>.log, malloc'd. */
int method_logfile_path(const char *root, const char *fmri, char **ret);

#endif
