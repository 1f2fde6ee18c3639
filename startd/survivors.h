/*
 * survivors.h: the processes a previous svc.startd of this root left running (survivors.c).
 */
#ifndef STARTD_SURVIVORS_H
#define STARTD_SURVIVORS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "startd.h"

/* One process group found running for an instance. */
typedef struct survivor {
	pid_t pgid;
	pid_t sid;       /* its session: pgid == sid is a process that called setsid() */
	uid_t uid;       /* startd's euid if one of its processes has it as real uid, else the
	                    real uid of the first found */
	bool from_start; /* made by a start method (SMF_METHOD=start, or in the cgroup leaf) */
	bool in_cgroup;  /* found in the instance's cgroup v2 leaf (attributed beyond doubt) */
	bool leader;     /* its leader runs: the method's own process (pid == pgid) */
} survivor_t;

/* What was found for one instance. */
typedef struct survivors {
	survivor_t *groups;
	size_t n;
} survivors_t;

/*
 * Once, at start-up, after the reaper started and before any method is spawned: finds every
 * process of this root's instances (cgroup leaves, then the environment startd gives methods),
 * and stops at once those of instances that will never be inserted (gone, or without a general
 * pg).  Never fails startd: what cannot be read is not found.
 */
void survivors_scan(startd_t *m);
/* Takes what was found for fmri out of the table (the caller frees it); NULL if nothing. */
survivors_t *survivors_take(const char *fmri);
/* Whether something was found for fmri and not taken yet (the bulk insert leaves it to a worker). */
bool survivors_pending(const char *fmri);
survivors_t *survivors_free(survivors_t *s);
static inline void survivors_freep(survivors_t **s)
{
	survivors_free(*s);
}
/* SIGTERM, then SIGKILL after the grace period, to a group found for fmri, if it still runs. */
void survivors_stop(const char *fmri, const survivor_t *g);
/* Frees what nobody took (at exit). */
void survivors_done(void);

#endif
