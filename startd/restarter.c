/*
 * restarter.c: the restarter dispatcher, the instance table and the instance workers.
 *
 * The dispatcher thread drains the restarter queue (fed by the graph and by the reaper) and
 * moves each event onto its instance's own queue, creating the instance on RE_INSERT.  An
 * instance's queue is drained by a worker thread started on demand; the worker binds its own
 * repository handle, runs events one at a time (methods included, so a slow method delays only
 * its own instance), and retires after WORKER_LINGER_USEC without events, as illumos' lingering
 * instance threads do.  Instances are freed only at exit, so a worker never outlives its
 * instance.
 *
 * Traced (startd.restarter_enqueue / _dequeue, string: the event's name) where an event goes
 * onto its instance's own queue and where the worker takes it off, so the two pair up one to
 * one and their distance is the time the event waited for its instance.  The enqueue is traced
 * before the push: once pushed, the worker may dequeue (and trace) it at once.  The delay
 * points startd.restarter.before_enqueue (in the dispatcher, before an event from the graph or
 * the reaper goes on its instance's queue: the dispatcher is one thread, so every instance's
 * events wait behind it) and startd.worker.after_dequeue (in the worker, right after the
 * dequeue is traced: only that instance waits) sit on either side of the queue.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "delay.h"
#include "instance.h"
#include "log.h"
#include "macro.h"
#include "probes.h"
#include "proc.h"
#include "startd.h"
#include "timeutil.h"

#define WORKER_LINGER_USEC (3 * USEC_PER_SEC)
/* Rebinds for one step of a worker: more means configd drops this call itself, not a restart. */
#define REBIND_TRIES 5
/* illumos' RINST_QUEUE_THRESHOLD: past it, administrative requests are dropped. */
#define ADMIN_QUEUE_THRESHOLD 100

int restarter_enqueue(startd_t *m, int type, const char *fmri, int64_t arg)
{
	return event_queue_push(&m->restarter_q, type, fmri, NULL, NULL, arg, NULL);
}

static void worker_exited(startd_t *m)
{
	pthread_mutex_lock(&m->workers_lock);
	m->n_workers--;
	pthread_cond_broadcast(&m->workers_cond);
	pthread_mutex_unlock(&m->workers_lock);
}

/*
 * Binds the worker's handle; a configd that is away is waited for as the repository thread
 * waits (repo_wait_for_configd()), so an event is never dropped for a configd restart.
 */
static int worker_bind(instance_t *i)
{
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
	(void)worker_bind(i);
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

static void start_worker(startd_t *m, instance_t *i)
{
	pthread_attr_t a;
	pthread_t t;
	int r;

	pthread_mutex_lock(&m->workers_lock);
	m->n_workers++;
	pthread_mutex_unlock(&m->workers_lock);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&t, &a, worker_main, i);
	pthread_attr_destroy(&a);
	if (r != 0) {
		log_error_errno(-r, "%s: cannot start a worker thread", i->fmri);
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
	if (need)
		start_worker(m, i);
}

static bool is_admin_event(int type)
{
	return type >= RE_RESTART && type <= RE_RESTORE;
}

static void dispatch(startd_t *m, const event_t *e)
{
	instance_t *i;

	pthread_mutex_lock(&m->insts_lock);
	i = hashmap_get(m->insts, e->fmri);
	if (!i && e->type == RE_INSERT) {
		i = instance_new(m, e->fmri);
		if (i && hashmap_put(m->insts, e->fmri, i) < 0) {
			instance_free(i);
			i = NULL;
		}
	}
	pthread_mutex_unlock(&m->insts_lock);
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

	pthread_mutex_lock(&m->insts_lock);
	while ((i = hashmap_next(m->insts, &st, NULL))) {
		inst_enqueue(m, i, RE_RESYNC, 0);
		n++;
	}
	pthread_mutex_unlock(&m->insts_lock);
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
	r = -pthread_create(&m->dispatch_thread, NULL, dispatch_main, m);
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
	pthread_mutex_lock(&m->insts_lock);
	while ((i = hashmap_next(m->insts, &st, &key))) {
		bool busy;

		pthread_mutex_lock(&i->q.lock);
		busy = i->q.worker;
		pthread_mutex_unlock(&i->q.lock);
		if (busy || __atomic_load_n(&i->active, __ATOMIC_ACQUIRE))
			inst_enqueue(m, i, RE_SHUTDOWN, 0);
	}
	pthread_mutex_unlock(&m->insts_lock);

	pthread_mutex_lock(&m->workers_lock);
	while (m->n_workers > 0)
		pthread_cond_wait(&m->workers_cond, &m->workers_lock);
	pthread_mutex_unlock(&m->workers_lock);

	st = 0;
	while ((i = hashmap_next(m->insts, &st, &key)))
		instance_free(i);
	hashmap_free(m->insts);
	m->insts = NULL;
}
