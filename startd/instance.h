/*
 * instance.h: one instance as the restarter holds it, and its worker's repository handle.
 *
 * An instance is its queue (events, in order, and the worker bit: queue.h), its machine's
 * state (fsm.h: what it is and what it waits for), and what its worker needs to act on the
 * machine's decisions: a repository handle while it has events, its log file.
 *
 * Invariant: everything below "worker-owned" is touched only by the thread that holds the
 * queue's worker bit, so at most one thread at a time runs an instance's events and methods,
 * in queue order, without a lock.  The machine's steps (act.c), the restarter pg's commits
 * (rpg.c) and the methods (method.c) assert it (instance_assert_worker()).
 */
#ifndef STARTD_INSTANCE_H
#define STARTD_INSTANCE_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "fsm.h"
#include "libscf.h"
#include "queue.h"
#include "startd.h"

typedef struct instance {
	startd_t *m;
	char *fmri;
	event_queue_t q;

	/* worker-owned */
	scf_handle_t *h;  /* the worker's connection while it has events (not thread-safe) */
	unsigned h_epoch; /* the handle pool's epoch when h was bound (instance_bind()) */
	fsm_t fsm;        /* its state machine: state, next_state, contract, restarts... */
	char *logfile;
	bool active; /* up or owning processes (atomic: read at shutdown) */
} instance_t;

instance_t *instance_new(startd_t *m, const char *fmri);
void instance_free(instance_t *i);

/* The calling thread holds i's worker bit: it may touch the worker-owned fields. */
#define instance_assert_worker(i) assert(event_queue_is_worker(&(i)->q))

/*
 * Whether a repository call's result r means the connection is gone or configd did not answer
 * in time (it is stopped or stuck), not a refusal.
 */
static inline bool instance_connection_lost(int r)
{
	return r == -SCF_ERROR_CONNECTION_BROKEN || r == -SCF_ERROR_NO_SERVER ||
	        r == -SCF_ERROR_TIMEOUT;
}

/*
 * The worker's repository handle.  instance_bind(): an idle one (a pool of up to 32), else a
 * new one; a configd that is away is waited for as the repository thread waits
 * (repo_wait_for_configd()), so an event is never dropped for a configd restart: 0, or
 * -SCF_ERROR_NO_SERVER when it did not come back.  instance_release(): i's handle goes back to
 * the idle ones (its worker has no event left).  instance_handles_flush(): the idle handles are
 * destroyed; with new_epoch (configd restarted) every handle bound before is dead, and is
 * destroyed instead of kept when released.
 */
int instance_bind(instance_t *i);
void instance_release(instance_t *i);
void instance_handles_flush(bool new_epoch);

/* Rebinds for one step of a worker: more means configd drops this call itself, not a restart. */
#define INSTANCE_REBIND_TRIES 5

/*
 * A repository call of i's worker on i->h returned r.  When r means the connection is gone
 * (configd died or restarts), waits for configd as the repository thread does (until
 * SVC_STARTD_RECONNECT_TIMEOUT, or until startd stops), puts a new handle in i->h and returns
 * true: the caller repeats the call.  false for any other r, when configd did not
 * come back (i->h is left as it was), or after a few rebinds for one step (*tries counts them,
 * 0 at the step's start).  A broken connection is never a bad method or a bad configuration.
 */
bool instance_rebind(instance_t *i, int r, unsigned *tries);

/*
 * Evaluates call, a repository call on i->h (re-evaluated with each new handle, so it must
 * read i->h afresh and be safe to repeat), until it returns >= 0, fails for another reason, or
 * configd does not come back; its last result.
 */
#define INSTANCE_RETRY(i, call)                                                                    \
	({                                                                                         \
		unsigned _tries = 0;                                                               \
		int _r;                                                                            \
		while ((_r = (call)) < 0 && instance_rebind((i), _r, &_tries))                     \
			;                                                                          \
		_r;                                                                                \
	})

#endif
