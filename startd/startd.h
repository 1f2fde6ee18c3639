/*
 * startd.h: the pieces of svc.startd and how they meet (the model is in main.c).
 */
#ifndef STARTD_H
#define STARTD_H

#include <pthread.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "hashmap.h"
#include "libscf.h"
#include "queue.h"
#include "restarter.h"

/* Events for the graph thread. */
enum {
	GE_SCAN = 1,   /* list every instance once (at start, after subscribing) */
	GE_PG_CHANGED, /* fmri, pg, pgtype: a pg was created or committed */
	GE_PG_DELETED, /* fmri, pg, pgtype: a pg (or its entity) was deleted */
	GE_STATE,      /* fmri, pg = auxiliary_state, arg = the state: a worker settled a state */
	GE_RECONNECT,  /* configd restarted: rebind, re-read every vertex, rescan */
	GE_QUIT,
	GE_INSTANCE_ADDED, /* fmri: an instance was created (configd's InstanceAdded) */
};

/*
 * RE_INSERT's arg: what the graph's first sight of the instance found.  Only startd writes a
 * restarter pg, and for an instance with general only through that instance's INSERT, so what
 * the graph saw absent is still absent when the INSERT is handled.
 */
enum {
	RE_INSERT_FRESH = 0x1,   /* no restarter pg: nothing to recover, the first write is due */
	RE_INSERT_RUNNING = 0x2, /* a running snapshot exists: nothing to take */
};

/* Restarter events: the dispatcher's queue, then each instance's own queue. */
enum {
	RE_INSERT = 1,     /* first sight (arg: RE_INSERT_*): write the pg, take "running" */
	RE_ENABLE,         /* general(_ovr)/enabled became (or was found) true */
	RE_DISABLE,        /* ... false */
	RE_START,          /* the graph found the instance offline, enabled, dependencies met */
	RE_STOP,           /* a dependency went away: stop, go offline */
	RE_CONTRACT_EMPTY, /* arg = process group: the last process of it is gone */
	RE_REMOVE,         /* the instance was deleted: stop what runs */
	/* restarter_actions (svcadm), one event per action found: */
	RE_RESTART,            /* restart: stop, then start again */
	RE_REFRESH,            /* refresh: run the refresh method */
	RE_MAINT_ON,           /* maint_on, maint_on_temporary: stop, maintenance */
	RE_MAINT_ON_IMMEDIATE, /* maint_on_immediate: kill without the stop method */
	RE_MAINT_OFF,          /* maint_off (svcadm clear): maintenance -> uninitialized */
	RE_DEGRADED,           /* degraded: online -> degraded */
	RE_RESTORE,            /* restore: degraded -> online */
	RE_RESYNC,             /* configd restarted: rebind, rewrite the restarter pg (to every
	                          instance when queued without an FMRI) */
	RE_SHUTDOWN,           /* startd exits: stop what runs, then the worker exits */
	RE_QUIT,               /* the dispatcher exits */
	RE_DEPENDENCY_CYCLE,   /* the graph found the instance completes a cycle: maintenance */
};

/* svc.startd's top-level state, made by main() and shared by every thread. */
typedef struct startd {
	char *root;
	scf_handle_t *main_h; /* the registered restarter connection; the main thread's */

	event_queue_t graph_q;
	event_queue_t restarter_q;
	pthread_t repo_thread, graph_thread, dispatch_thread, reaper_thread;
	int repo_stop_fd; /* eventfd, readable once startd stops: ends the repository thread
	                     and every wait for configd (closed by main at exit) */
	sem_t scanned;    /* posted by the graph once the first scan is queued */

	/* The restarter's instances (dispatch.c), looked up by the dispatcher and at shutdown. */
	pthread_mutex_t insts_lock;
	hashmap_t *insts;

	/* Live instance workers (worker.c), waited for at shutdown. */
	pthread_mutex_t workers_lock;
	pthread_cond_t workers_cond;
	unsigned n_workers;
} startd_t;

/* emi.c: runs svc:/system/early-manifest-import:default to completion if it exists. */
int emi_run(startd_t *m);

/* repo.c: the repository-event thread. */
int repo_thread_start(startd_t *m);
void repo_thread_stop(startd_t *m);
/* 1 once the repository connection was lost (startd then exits with status 1). */
int repo_lost(void);
/*
 * Polls configd's socket every 20 ms until a handle connects; that handle, or NULL once
 * SVC_STARTD_RECONNECT_TIMEOUT (default 60 s) has passed or startd stops (repo_stop_fd).
 */
scf_handle_t *repo_wait_for_configd(startd_t *m);

/* graph-thread.c: the graph thread. */
int graph_thread_start(startd_t *m);
void graph_thread_stop(startd_t *m);

/* dispatch.c: the dispatcher and the instance table (and the bulk worker, bulk.c). */
int dispatch_start(startd_t *m);
/* Stops the dispatcher, then shuts every instance down (stopping its processes) and waits. */
void dispatch_stop(startd_t *m);

/*
 * Queues an RE_* event for the dispatcher (the graph's decisions, the reaper's contract
 * events, the repository thread's resync): a push on the restarter queue, which producers
 * share without knowing who drains it.  0 or -ENOMEM.
 */
static inline int restarter_enqueue(startd_t *m, int type, const char *fmri, int64_t arg)
{
	return event_queue_push(&m->restarter_q, type, fmri, NULL, NULL, arg, NULL);
}

#endif
