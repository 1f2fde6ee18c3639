/*
 * dispatch.c: the restarter's dispatcher, and the instance table.
 *
 * The dispatcher thread drains the restarter queue (fed by the graph, the reaper and the
 * repository thread) and moves each event onto its instance's own queue, creating the
 * instance on RE_INSERT.  An instance's queue is drained by whichever thread holds its worker
 * bit (queue.h).  A push that finds no worker hands the queue to the bulk worker (bulk.c) when
 * the event may need neither a method nor a read (a fresh insert, enable, disable:
 * bulk_event()), else to a worker thread of its own (worker.c), started on demand.  At a
 * configd restart (RE_RESYNC without an FMRI) it queues RE_RESYNC to every instance; at
 * shutdown, RE_SHUTDOWN to every instance that is up, owns processes or is mid-event, and
 * waits for every worker.
 *
 * Traced (startd.restarter_enqueue, string: the event's name) where an event goes onto its
 * instance's own queue, paired one to one with the worker's startd.restarter_dequeue: their
 * distance is the time the event waited for its instance.  The enqueue is traced before the
 * push: once pushed, the worker may dequeue (and trace) it at once.  The delay point
 * startd.restarter.before_enqueue sits before an event from the graph or the reaper goes on
 * its instance's queue: the dispatcher is one thread, so every instance's events wait behind
 * it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "bulk.h"
#include "delay.h"
#include "instance.h"
#include "lock.h"
#include "log.h"
#include "macro.h"
#include "probes.h"
#include "proc.h"
#include "startd.h"
#include "thread.h"
#include "timeutil.h"
#include "worker.h"

/* illumos' RINST_QUEUE_THRESHOLD: past it, administrative requests are dropped. */
#define ADMIN_QUEUE_THRESHOLD 100

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
		worker_start(m, i);
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
	instance_handles_flush(true);
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

int dispatch_start(startd_t *m)
{
	int r;

	m->insts = hashmap_new();
	if (!m->insts)
		return log_error_errno(-ENOMEM, "out of memory");
	r = bulk_start(m);
	if (r < 0)
		return log_error_errno(r, "cannot start the restarter's bulk worker");
	r = thread_start(&m->dispatch_thread, "startd-dispatch", dispatch_main, m);
	if (r < 0)
		return log_error_errno(r, "cannot start the restarter dispatcher");
	return 0;
}

void dispatch_stop(startd_t *m)
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
	bulk_stop();

	lock_take(&m->workers_lock, LOCK_WORKERS);
	while (m->n_workers > 0)
		pthread_cond_wait(&m->workers_cond, &m->workers_lock);
	lock_drop(&m->workers_lock, LOCK_WORKERS);

	instance_handles_flush(false);
	st = 0;
	while ((i = hashmap_next(m->insts, &st, &key)))
		instance_free(i);
	hashmap_free(m->insts);
	m->insts = NULL;
}
