/*
 * worker.c: an instance's own worker thread.
 *
 * A worker is started on demand, when an event finds its instance's queue without one (the
 * dispatcher's push, or the bulk worker handing an instance on), and takes over the queue's
 * worker bit (queue.h).  It binds a repository handle (instance_bind(): an idle one, or a new
 * one) while it has events, runs them one at a time (methods included, so a slow method
 * delays only its own instance), puts the handle back when its queue is empty, and retires
 * after WORKER_LINGER_USEC without events, as illumos' lingering instance threads do.
 * Instances are freed only at exit, so a worker never outlives its instance.  startd_t counts
 * the live workers (workers_lock), which shutdown waits for.
 *
 * Traced (startd.restarter_dequeue, string: the event's name) where the worker takes an event
 * off its queue; the delay point startd.worker.after_dequeue follows it: only that instance
 * waits.
 */
#include <stdbool.h>

#include "act.h"
#include "delay.h"
#include "instance.h"
#include "lock.h"
#include "log.h"
#include "probes.h"
#include "thread.h"
#include "timeutil.h"
#include "worker.h"

#define WORKER_LINGER_USEC (3 * USEC_PER_SEC)

static void worker_exited(startd_t *m)
{
	lock_take(&m->workers_lock, LOCK_WORKERS);
	m->n_workers--;
	pthread_cond_broadcast(&m->workers_cond);
	lock_drop(&m->workers_lock, LOCK_WORKERS);
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
			(void)instance_bind(i);
		/* Without a repository, shutdown still stops the instance's processes. */
		if (i->h || e->type == RE_SHUTDOWN)
			act_event(i, e);
		event_free(e);
		/* Nothing queued: the handle goes back to the pool while the worker lingers. */
		if (!quit && event_queue_length(&i->q) == 0)
			instance_release(i);
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

void worker_start(startd_t *m, instance_t *i)
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
