/*
 * dispatch.c: the restarter dispatcher, the instance table and the instance workers.
 *
 * The dispatcher thread drains the restarter queue (fed by the graph and by the reaper) and
 * moves each event onto its instance's own queue, creating the instance on RE_INSERT.  An
 * instance's queue is drained by whichever thread holds its worker bit (queue.h).  A push that
 * finds no worker hands the queue to the bulk worker when the event may need neither a method
 * nor a read (a fresh insert, enable, disable: bulk_event()), else to a worker thread started
 * on demand.  The bulk worker (below) handles such events of many instances at once and writes
 * their restarter pgs in batches; the first event it cannot handle passes the instance, bit
 * and all, to a worker thread.  A worker binds a repository handle (from a pool of idle ones)
 * while it has events, runs them one at a time (methods included, so a slow method delays only
 * its own instance), and retires after WORKER_LINGER_USEC without events, as illumos'
 * lingering instance threads do.  Instances are freed only at exit, so a worker never outlives
 * its instance.
 *
 * Traced (startd.restarter_enqueue / _dequeue, string: the event's name) where an event goes
 * onto its instance's own queue and where the worker takes it off, so the two pair up one to
 * one and their distance is the time the event waited for its instance.  The enqueue is traced
 * before the push: once pushed, the worker may dequeue (and trace) it at once.  The delay
 * points startd.restarter.before_enqueue (in the dispatcher, before an event from the graph or
 * the reaper goes on its instance's queue: the dispatcher is one thread, so every instance's
 * events wait behind it) and startd.worker.after_dequeue (in the worker, right after the
 * dequeue is traced: only that instance waits; in the bulk worker once per round, after the
 * round's dequeues: the round's instances wait together) sit on either side of the queue.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "delay.h"
#include "instance.h"
#include "lock.h"
#include "log.h"
#include "macro.h"
#include "probes.h"
#include "proc.h"
#include "retry.h"
#include "startd.h"
#include "thread.h"
#include "timeutil.h"

#define WORKER_LINGER_USEC (3 * USEC_PER_SEC)
/* The bulk worker handles at most this many instances' events in one round (one batch). */
#define BULK_ROUND_MAX 1024
/* Rebinds for one step of a worker: more means configd drops this call itself, not a restart. */
#define REBIND_TRIES 5
/* illumos' RINST_QUEUE_THRESHOLD: past it, administrative requests are dropped. */
#define ADMIN_QUEUE_THRESHOLD 100

static void worker_exited(startd_t *m)
{
	lock_take(&m->workers_lock, LOCK_WORKERS);
	m->n_workers--;
	pthread_cond_broadcast(&m->workers_cond);
	lock_drop(&m->workers_lock, LOCK_WORKERS);
}

/*
 * Idle handles.  A worker holds a repository handle only while it has events: when its queue
 * is empty it puts the handle here (handle_release()), and binds one from here, or a new one,
 * for its next event.  So a burst of instances that each run a method costs as many
 * connections as workers busy at once, not one per instance for as long as each lingers.  A
 * handle is used by one thread at a time, as ever: it passes from one to the next through the
 * pool's lock.  The epoch moves when configd restarts (resync_all()): a handle from before is
 * dead, and is destroyed instead of kept.
 */
#define HANDLE_POOL_MAX 32
static struct {
	pthread_mutex_t lock;
	scf_handle_t *h[HANDLE_POOL_MAX];
	size_t n;
	unsigned epoch;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void handle_release(instance_t *i)
{
	scf_handle_t *h = TAKE_PTR(i->h);

	lock_take(&pool.lock, LOCK_LEAF);
	if (h && i->h_epoch == pool.epoch && pool.n < HANDLE_POOL_MAX)
		pool.h[pool.n++] = TAKE_PTR(h);
	lock_drop(&pool.lock, LOCK_LEAF);
	scf_handle_destroy(h);
}

/* Destroys the idle handles; with new_epoch, every handle bound before is dead (configd). */
static void pool_flush(bool new_epoch)
{
	scf_handle_t *h[HANDLE_POOL_MAX];
	size_t n;

	lock_take(&pool.lock, LOCK_LEAF);
	n = pool.n;
	memcpy(h, pool.h, n * sizeof(*h));
	pool.n = 0;
	if (new_epoch)
		pool.epoch++;
	lock_drop(&pool.lock, LOCK_LEAF);
	for (size_t k = 0; k < n; k++)
		scf_handle_destroy(h[k]);
}

/*
 * Binds the worker's handle: an idle one, else a new one; a configd that is away is waited for
 * as the repository thread waits (repo_wait_for_configd()), so an event is never dropped for a
 * configd restart.
 */
static int worker_bind(instance_t *i)
{
	if (i->h)
		return 0;
	lock_take(&pool.lock, LOCK_LEAF);
	i->h_epoch = pool.epoch;
	if (pool.n > 0)
		i->h = pool.h[--pool.n];
	lock_drop(&pool.lock, LOCK_LEAF);
	if (i->h || scf_handle_create(i->m->root, &i->h) >= 0)
		return 0;
	log_warning("%s: the repository is unavailable; waiting for svc.configd", i->fmri);
	i->h = repo_wait_for_configd(i->m);
	if (!i->h) {
		log_error("%s: the repository did not come back", i->fmri);
		return -SCF_ERROR_NO_SERVER;
	}
	return 0;
}

bool instance_rebind(instance_t *i, int r, unsigned *tries)
{
	scf_handle_t *h;

	instance_assert_worker(i);
	if (!instance_connection_lost(r) || *tries >= REBIND_TRIES)
		return false;
	(*tries)++;
	log_warning("%s: lost the repository connection; waiting for svc.configd", i->fmri);
	/* The dead handle stays until a live one replaces it: i->h is never NULL in a step. */
	h = repo_wait_for_configd(i->m);
	if (!h) {
		log_error("%s: the repository did not come back", i->fmri);
		return false;
	}
	scf_handle_destroy(i->h);
	i->h = h;
	log_info("%s: reconnected to the repository; retrying", i->fmri);
	return true;
}

/*
 * Waits for the instance's next event; NULL once the worker has retired.  The handle is let go
 * while the worker still holds the bit (worker-owned state is never touched after it is
 * dropped): an event that arrives meanwhile is taken, and the handle bound again for it.
 */
static event_t *worker_next(instance_t *i)
{
	event_t *e = event_queue_pop(&i->q, WORKER_LINGER_USEC);

	if (e)
		return e;
	scf_handle_destroy(i->h);
	i->h = NULL;
	return event_queue_pop_or_retire(&i->q, 0);
}

static void *worker_main(void *userdata)
{
	instance_t *i = userdata;
	startd_t *m = i->m;

	event_queue_worker_enter(&i->q);
	for (;;) {
		event_t *e = worker_next(i);
		bool quit;

		if (!e)
			break;
		probe_restarter_dequeue(i->fmri, e->type);
		smf_point(SMF_POINT_STARTD_WORKER_AFTER_DEQUEUE);
		quit = e->type == RE_SHUTDOWN;
		/* A handle from before a configd restart is dead for good: bind a new one. */
		if (e->type == RE_RESYNC) {
			scf_handle_destroy(i->h);
			i->h = NULL;
		}
		if (!i->h)
			(void)worker_bind(i);
		/* Without a repository, shutdown still stops the instance's processes. */
		if (i->h || e->type == RE_SHUTDOWN)
			instance_handle(i, e);
		event_free(e);
		/* Nothing queued: the handle goes back to the pool while the worker lingers. */
		if (!quit && event_queue_length(&i->q) == 0)
			handle_release(i);
		if (quit) {
			scf_handle_destroy(i->h);
			i->h = NULL;
			event_queue_retire(&i->q);
			break;
		}
	}
	worker_exited(m);
	return NULL;
}

static void start_worker(startd_t *m, instance_t *i);

/*
 * The bulk worker: one thread, with one handle, that holds the worker bits of the instances
 * whose queue it was handed (bulk_hand()) and handles their events in rounds: in a round it
 * takes the next event of each instance it holds (at most BULK_ROUND_MAX of them), as long as
 * instance_bulk_accepts() it, handles them all, and commits their restarter pg writes in one
 * batch (rpg_batch_commit()), then reports their states.  An instance whose next event it does
 * not accept is handed to a worker thread of its own (the bit stays set, and passes to it); an
 * instance whose queue is empty is let go (its bit dropped, under the queue's lock).  So an
 * instance's events still run one at a time and in queue order, by whichever thread holds its
 * bit, and one round writes each instance's pg at most once.
 */
static struct bulk {
	startd_t *m;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	instance_t **ready; /* handed over, not yet taken up by the thread (under lock) */
	size_t n_ready, cap_ready;
	bool quit; /* restarter_stop(): exit once nothing is held or ready */
	/* The thread's own: */
	scf_handle_t *h;
	instance_t **held; /* whose bits it holds, in the order it will visit them */
	size_t n_held, cap_held;
} bulk = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

/* Whether an event that finds no worker may go to the bulk worker (which checks the state). */
static bool bulk_event(int type, int64_t arg)
{
	return (type == RE_INSERT && (arg & RE_INSERT_FRESH) && (arg & RE_INSERT_RUNNING)) ||
	        type == RE_ENABLE || type == RE_DISABLE;
}

/* i's queue has a claimed bit and no worker: the bulk worker takes it up. */
static void bulk_hand(startd_t *m, instance_t *i)
{
	lock_take(&bulk.lock, LOCK_BULK);
	if (bulk.quit || GREEDY_REALLOC(bulk.ready, bulk.cap_ready, bulk.n_ready + 1) < 0) {
		lock_drop(&bulk.lock, LOCK_BULK);
		start_worker(m, i);
		return;
	}
	bulk.ready[bulk.n_ready++] = i;
	pthread_cond_signal(&bulk.cond);
	lock_drop(&bulk.lock, LOCK_BULK);
}

/*
 * The batch over the bulk worker's handle; a broken connection is waited out as a worker's is,
 * and a store that refuses the writes (retry.h) is tried again with backoff until it takes
 * them or startd stops: meanwhile the instances of the round wait, as each would in a worker
 * of its own.  Only what is not written yet is committed again (rpg_item_t.done).
 */
static int bulk_commit(rpg_batch_t *b)
{
	unsigned tries = 0, attempt = 0;

	for (;;) {
		scf_handle_t *h;
		int r;

		if (!bulk.h && scf_handle_create(bulk.m->root, &bulk.h) < 0)
			bulk.h = NULL;
		r = bulk.h ? rpg_batch_commit(bulk.h, b) : -SCF_ERROR_NO_SERVER;
		if (r >= 0)
			retry_succeeded();
		if (retry_store_failed(r)) {
			char what[64];
			size_t left = 0;

			for (size_t k = 0; k < b->n; k++)
				left += !b->items[k].done;
			snprintf(what, sizeof(what), "%zu restarter pg writes", left);
			retry_failed(what, r, scf_handle_errmsg(bulk.h));
			if (!retry_wait(bulk.m, attempt++))
				return r;
			continue;
		}
		if (r >= 0 || !instance_connection_lost(r) || tries++ >= REBIND_TRIES)
			return r;
		log_warning("lost the repository connection; waiting for svc.configd");
		h = repo_wait_for_configd(bulk.m);
		if (!h) {
			log_error("the repository did not come back; %zu restarter pgs not written",
			        b->n);
			return r;
		}
		scf_handle_destroy(bulk.h);
		bulk.h = h;
	}
}

/* An event the bulk worker took in a round, and its instance. */
typedef struct bulk_take {
	instance_t *i;
	event_t *e;
} bulk_take_t;

/*
 * One round over the held instances (see above): the first BULK_ROUND_MAX of them are visited;
 * those not visited come first in the next round, then the visited ones that still have
 * events.
 */
static void bulk_round(void)
{
	size_t visit = bulk.n_held < BULK_ROUND_MAX ? bulk.n_held : BULK_ROUND_MAX, n_taken = 0,
	       n_kept = 0;
	_cleanup_free_ bulk_take_t *taken = calloc(visit + 1, sizeof(*taken));
	_cleanup_free_ instance_t **kept = calloc(visit + 1, sizeof(*kept));
	rpg_batch_t b = {};

	if (!taken || !kept) {
		/* Out of memory: each held instance goes to a worker thread of its own. */
		for (size_t k = 0; k < bulk.n_held; k++) {
			event_queue_worker_leave(&bulk.held[k]->q);
			start_worker(bulk.m, bulk.held[k]);
		}
		bulk.n_held = 0;
		return;
	}
	for (size_t k = 0; k < visit; k++) {
		instance_t *i = bulk.held[k];
		int64_t arg = 0;
		int type = event_queue_peek(&i->q, &arg);

		if (type == 0) {
			if (!event_queue_retire_if_empty(&i->q))
				kept[n_kept++] = i; /* one came meanwhile */
			continue;
		}
		if (!instance_bulk_accepts(i, type, arg)) {
			/* A method, a read, a snapshot: the instance's own worker from here on. */
			event_queue_worker_leave(&i->q);
			start_worker(bulk.m, i);
			continue;
		}
		taken[n_taken].i = i;
		taken[n_taken].e = event_queue_pop(&i->q, 0);
		probe_restarter_dequeue(i->fmri, taken[n_taken].e->type);
		n_taken++;
	}
	if (n_taken > 0) {
		/* A worker's points, each passed once for the round: all its instances wait. */
		smf_point(SMF_POINT_STARTD_WORKER_AFTER_DEQUEUE);
		for (size_t k = 0; k < n_taken; k++) {
			event_cause_set(taken[k].e->cause);
			instance_handle_bulk(taken[k].i, taken[k].e, &b);
		}
		/* RACE WINDOW ENDS with this batch's commit, for each first write in it. */
		if (b.first)
			smf_point(SMF_POINT_STARTD_RESTARTER_BEFORE_PG_WRITE);
		if (b.later)
			smf_point(SMF_POINT_STARTD_RESTARTER_BEFORE_STATE_WRITE);
		(void)bulk_commit(&b);
		instance_bulk_report(&b);
		rpg_batch_clear(&b);
		event_cause_set(0);
	}
	for (size_t k = 0; k < n_taken; k++) {
		event_free(taken[k].e);
		if (!event_queue_retire_if_empty(&taken[k].i->q))
			kept[n_kept++] = taken[k].i;
	}
	memmove(bulk.held, bulk.held + visit, (bulk.n_held - visit) * sizeof(*bulk.held));
	memcpy(bulk.held + (bulk.n_held - visit), kept, n_kept * sizeof(*kept));
	bulk.n_held = bulk.n_held - visit + n_kept;
}

static void *bulk_main(void *userdata)
{
	for (;;) {
		size_t first = bulk.n_held;

		lock_take(&bulk.lock, LOCK_BULK);
		while (bulk.n_ready == 0 && bulk.n_held == 0 && !bulk.quit)
			pthread_cond_wait(&bulk.cond, &bulk.lock);
		if (bulk.n_ready == 0 && bulk.n_held == 0) {
			lock_drop(&bulk.lock, LOCK_BULK);
			break;
		}
		if (bulk.n_ready > 0 &&
		        GREEDY_REALLOC(bulk.held, bulk.cap_held, bulk.n_held + bulk.n_ready) < 0) {
			/* Out of memory: to worker threads of their own, as before the bulk worker. */
			for (size_t k = 0; k < bulk.n_ready; k++)
				start_worker(bulk.m, bulk.ready[k]);
			bulk.n_ready = 0;
		}
		if (bulk.n_ready > 0)
			memcpy(bulk.held + bulk.n_held, bulk.ready,
			        bulk.n_ready * sizeof(*bulk.ready));
		bulk.n_held += bulk.n_ready;
		bulk.n_ready = 0;
		lock_drop(&bulk.lock, LOCK_BULK);
		for (size_t k = first; k < bulk.n_held; k++)
			event_queue_worker_enter(&bulk.held[k]->q);
		bulk_round();
	}
	scf_handle_destroy(bulk.h);
	bulk.h = NULL;
	return userdata;
}

static void start_worker(startd_t *m, instance_t *i)
{
	int r;

	lock_take(&m->workers_lock, LOCK_WORKERS);
	m->n_workers++;
	lock_drop(&m->workers_lock, LOCK_WORKERS);
	r = thread_start(NULL, "startd-worker", worker_main, i);
	if (r < 0) {
		log_error_errno(r, "%s: cannot start a worker thread", i->fmri);
		event_queue_retire(&i->q);
		worker_exited(m);
	}
}

static void inst_enqueue(startd_t *m, instance_t *i, int type, int64_t arg)
{
	bool need = false;

	probe_restarter_enqueue(i->fmri, type);
	if (event_queue_push(&i->q, type, NULL, NULL, NULL, arg, &need) < 0) {
		log_error("%s: out of memory, event %d dropped", i->fmri, type);
		return;
	}
	if (need && bulk_event(type, arg))
		bulk_hand(m, i);
	else if (need)
		start_worker(m, i);
}

static bool is_admin_event(int type)
{
	return type >= RE_RESTART && type <= RE_RESTORE;
}

static void dispatch(startd_t *m, const event_t *e)
{
	instance_t *i;

	lock_take(&m->insts_lock, LOCK_INSTANCES);
	i = hashmap_get(m->insts, e->fmri);
	if (!i && e->type == RE_INSERT) {
		i = instance_new(m, e->fmri);
		if (i && hashmap_put(m->insts, e->fmri, i) < 0) {
			instance_free(i);
			i = NULL;
		}
	}
	lock_drop(&m->insts_lock, LOCK_INSTANCES);
	if (!i)
		return;
	/* An instance stuck in a long method must not pile up svcadm requests without bound. */
	if (is_admin_event(e->type) && event_queue_length(&i->q) > ADMIN_QUEUE_THRESHOLD) {
		log_warning("%s: %zu events queued; dropping an administrative request", i->fmri,
		        event_queue_length(&i->q));
		return;
	}
	smf_point(SMF_POINT_STARTD_RESTARTER_BEFORE_ENQUEUE);
	inst_enqueue(m, i, e->type, e->arg);
}

/* After a configd restart every instance rewrites its restarter pg from its own state. */
static void resync_all(startd_t *m)
{
	size_t st = 0, n = 0;
	instance_t *i;

	/* The idle handles died with the old configd. */
	pool_flush(true);
	lock_take(&m->insts_lock, LOCK_INSTANCES);
	while ((i = hashmap_next(m->insts, &st, NULL))) {
		inst_enqueue(m, i, RE_RESYNC, 0);
		n++;
	}
	lock_drop(&m->insts_lock, LOCK_INSTANCES);
	log_info("rewriting the restarter pg of %zu instances", n);
}

static void *dispatch_main(void *userdata)
{
	startd_t *m = userdata;

	for (;;) {
		event_t *e = event_queue_pop(&m->restarter_q, USEC_INFINITY);

		if (e->type == RE_QUIT) {
			event_free(e);
			return NULL;
		}
		if (e->type == RE_RESYNC && !e->fmri)
			resync_all(m);
		else if (e->fmri)
			dispatch(m, e);
		event_free(e);
	}
}

int restarter_start(startd_t *m)
{
	int r;

	m->insts = hashmap_new();
	if (!m->insts)
		return log_error_errno(-ENOMEM, "out of memory");
	bulk.m = m;
	bulk.quit = false;
	r = thread_start(&bulk.thread, "startd-bulk", bulk_main, NULL);
	if (r < 0)
		return log_error_errno(r, "cannot start the restarter's bulk worker");
	r = thread_start(&m->dispatch_thread, "startd-dispatch", dispatch_main, m);
	if (r < 0)
		return log_error_errno(r, "cannot start the restarter dispatcher");
	return 0;
}

void restarter_stop(startd_t *m)
{
	const char *key;
	size_t st = 0;
	instance_t *i;

	(void)restarter_enqueue(m, RE_QUIT, NULL, 0);
	pthread_join(m->dispatch_thread, NULL);
	/* A start method in progress would hold its worker (and so shutdown) up to its timeout. */
	proc_cancel_waits();

	/* Only instances that are up or own processes (or are mid-event) have work to do. */
	lock_take(&m->insts_lock, LOCK_INSTANCES);
	while ((i = hashmap_next(m->insts, &st, &key))) {
		if (event_queue_has_worker(&i->q) || __atomic_load_n(&i->active, __ATOMIC_ACQUIRE))
			inst_enqueue(m, i, RE_SHUTDOWN, 0);
	}
	lock_drop(&m->insts_lock, LOCK_INSTANCES);

	/* The bulk worker hands what it holds on (a shutdown is not its to handle), then exits. */
	lock_take(&bulk.lock, LOCK_BULK);
	bulk.quit = true;
	pthread_cond_signal(&bulk.cond);
	lock_drop(&bulk.lock, LOCK_BULK);
	pthread_join(bulk.thread, NULL);
	free(bulk.ready);
	free(bulk.held);
	bulk.ready = NULL;
	bulk.held = NULL;
	bulk.n_ready = bulk.cap_ready = bulk.n_held = bulk.cap_held = 0;

	lock_take(&m->workers_lock, LOCK_WORKERS);
	while (m->n_workers > 0)
		pthread_cond_wait(&m->workers_cond, &m->workers_lock);
	lock_drop(&m->workers_lock, LOCK_WORKERS);

	pool_flush(false);
	st = 0;
	while ((i = hashmap_next(m->insts, &st, &key)))
		instance_free(i);
	hashmap_free(m->insts);
	m->insts = NULL;
}
