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
	unsigned h_epoch; /* dispatch.c's handle pool: when h was bound */
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
 * The bulk worker (dispatch.c) holds the worker bits of many instances and handles the events
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
 * dispatch.c.  A repository call of i's worker on i->h returned r.  When r means the
 * connection is gone (configd died or restarts), waits for configd as the repository thread
 * does (until SVC_STARTD_RECONNECT_TIMEOUT, or until startd stops), puts a new handle in i->h
 * and returns true: the caller repeats the call.  false for any other r, when configd did not
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

/* What a restarter pg commit writes: state, next_state, auxiliary_state and state_timestamp
 * always; the pids and logfile only when set (>= 0, non-NULL). */
typedef struct state_update {
	restarter_instance_state_t state, next_state;
	const char *aux;
	pid_t start_pid; /* -1: leave as is */
	pid_t contract;  /* -1: leave as is */
	const char *logfile;
} state_update_t;

/*
 * rpg.c: i's restarter pg, written with one atomic batch over i->h (startd is its only
 * writer, and only the thread that holds i's worker bit writes it: its worker; the bulk
 * worker writes with rpg_batch_*).
 */
int rpg_write(instance_t *i, const state_update_t *u);
/*
 * The graph thread's first sight of an instance that has no restarter pg and no general pg:
 * the uninitialized pg (state uninitialized, next_state none, auxiliary_state
 * insert_in_graph), over the graph's handle h, before the instance has a worker.  Failures are
 * logged, except -SCF_ERROR_NOT_FOUND (the instance is gone).
 */
int rpg_write_initial(scf_handle_t *h, const char *fmri);

/* One write of a batch: i's state as u says, under the cause of the event it is for. */
typedef struct rpg_item {
	instance_t *i;
	state_update_t u;
	uint64_t cause;
	bool report; /* the state is reported to the graph once written (instance_bulk_report()) */
	bool done;   /* written (or given up: its instance is gone); a commit again skips it */
} rpg_item_t;

/* The restarter pg writes of many instances, committed in one scf_batch (one transaction). */
typedef struct rpg_batch {
	rpg_item_t *items;
	size_t n, cap;
	bool first; /* an item is the first write of its pg (startd.restarter.before_pg_write) */
	bool later; /* an item is a later one (startd.restarter.before_state_write) */
} rpg_batch_t;

/* Adds i's write under the calling thread's cause (it holds i's worker bit).  0, -ENOMEM. */
int rpg_batch_add(rpg_batch_t *b, instance_t *i, const state_update_t *u, bool first, bool report);
/*
 * Commits the writes over h in one batch per cause (the writes that descend from one commit:
 * svctrace links a commit to one cause), startd.write for each pg, with the cause, before the
 * commit, startd.restarter_pg_written for each after it.  When configd refuses a batch (an
 * instance deleted meanwhile, say), each of its writes is made on its own instead, so one
 * instance cannot cost the others theirs.  0, -ENOMEM, instance_connection_lost()'s codes
 * when the connection broke (the caller rebinds and commits again: a write repeated is the
 * same write), or retry_store_failed()'s when configd's store failed (retry.h: the caller
 * waits and commits again).  The items written are marked done, so a commit again writes
 * only the others.
 */
int rpg_batch_commit(scf_handle_t *h, rpg_batch_t *b);
/* Empties b (the items' instances are the caller's). */
void rpg_batch_clear(rpg_batch_t *b);

/* method.c */
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
