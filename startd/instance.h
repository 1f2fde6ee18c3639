/*
 * instance.h: one instance as the restarter sees it, and the state machine its worker runs.
 *
 * Invariant: everything below "worker-owned" is touched only by the thread that holds the
 * queue's worker bit (queue.h), so at most one thread at a time runs an instance's events and
 * methods, in queue order, without a lock.  instance_handle(), the restarter pg's commits
 * (rpg_write()) and method_run() assert it (instance_assert_worker()).
 */
#ifndef STARTD_INSTANCE_H
#define STARTD_INSTANCE_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "libscf.h"
#include "queue.h"
#include "startd.h"

/* Service models (startd/duration). */
typedef enum smodel {
	SMODEL_CONTRACT = 0, /* the default: runs while its contract has processes */
	SMODEL_TRANSIENT,    /* online once start exits 0; nothing is watched */
	SMODEL_WAIT,         /* the start method's child is the service */
} smodel_t;

#define INST_RESTART_HISTORY 5 /* illumos' critical_failure_count default */

typedef struct instance {
	startd_t *m;
	char *fmri;
	event_queue_t q;

	/* worker-owned */
	scf_handle_t *h;  /* the worker's connection while it has events (not thread-safe) */
	unsigned h_epoch; /* the handle pool's epoch when h was bound (instance_bind()) */
	bool inserted;
	restarter_instance_state_t state, next_state;
	const char *aux; /* the auxiliary_state last committed (a static string) */
	smodel_t model;  /* as read at the last start (or recovery) */
	pid_t pgid;      /* the contract: the start method's process group, 0 = none */
	pid_t start_pid; /* the start method's pid */
	char *logfile;
	uint64_t restarts[INST_RESTART_HISTORY]; /* monotonic usec of the last restarts */
	unsigned n_restarts;
	bool active;             /* up or owning processes (atomic: read at shutdown) */
	struct rpg_batch *batch; /* set while the bulk worker handles an event: writes join it */
} instance_t;

instance_t *instance_new(startd_t *m, const char *fmri);
void instance_free(instance_t *i);

/* The calling thread holds i's worker bit: it may touch the worker-owned fields. */
#define instance_assert_worker(i) assert(event_queue_is_worker(&(i)->q))

/* Records start_pid and contract as soon as a start method is spawned, with the state as is, so
 * that a startd killed during the method leaves the group for its successor to find. */
void instance_note_pids(instance_t *i);

/* Runs one event on the instance (in its worker thread, with i->h bound; RE_SHUTDOWN also
 * without a handle, when configd is gone). */
void instance_handle(instance_t *i, const event_t *e);

/*
 * The bulk worker (bulk.c) holds the worker bits of many instances and handles the events
 * that need neither a method nor a read of their own, writing their restarter pgs together:
 * instance_bulk_accepts() says whether the next event (type, arg) of i is one of them in i's
 * state (a fresh INSERT whose survivors, if any, are settled elsewhere; ENABLE; DISABLE of an
 * instance that never ran or is disabled), and instance_handle_bulk() handles it as
 * instance_handle() would, except that its restarter pg write (at most one per event) joins b
 * and its state is reported to the graph only once b is committed (instance_bulk_report()).
 * Both run in the thread that holds i's worker bit.
 */
struct rpg_batch;
bool instance_bulk_accepts(instance_t *i, int type, int64_t arg);
void instance_handle_bulk(instance_t *i, const event_t *e, struct rpg_batch *b);
void instance_bulk_report(struct rpg_batch *b);

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
