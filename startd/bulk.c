/*
 * bulk.c: the restarter's bulk worker.
 *
 * One thread, with one handle, that holds the worker bits of the instances whose queue it was
 * handed (bulk_hand()) and handles their events in rounds: in a round it takes the next event
 * of each instance it holds (at most BULK_ROUND_MAX of them), as long as the instance's
 * machine finds it light (act_light(): no method, no read of its own, one commit at most),
 * handles them all (act_batched(): the machine's actions, its commit added to the round's
 * batch), commits their restarter pg writes in one batch (rpg_batch_commit()), then reports
 * the states they settled (act_report()).  This is where a new instance's restarter pg is
 * first written, and the race window ends: bulk_round() -> act_batched() (the machine's
 * insert: one commit, "uninitialized") -> rpg_batch_add(), then the round's
 * startd.restarter.before_pg_write and bulk_commit() -> rpg_batch_commit().
 *
 * An instance whose next event is not light is handed to a worker thread of its own (the bit
 * stays set, and passes to it); an instance whose queue is empty is let go (its bit dropped,
 * under the queue's lock).  So an instance's events still run one at a time and in queue
 * order, by whichever thread holds its bit, and one round writes each instance's pg at most
 * once.
 *
 * Traced as a worker is (startd.restarter_dequeue for each event taken); the delay points
 * startd.worker.after_dequeue, startd.restarter.before_pg_write and
 * startd.restarter.before_state_write are passed once per round, before its batch: the
 * round's instances wait together, and the instances it holds wait behind them.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "act.h"
#include "bulk.h"
#include "delay.h"
#include "instance.h"
#include "lock.h"
#include "log.h"
#include "macro.h"
#include "probes.h"
#include "retry.h"
#include "rpg.h"
#include "thread.h"
#include "worker.h"

/* The bulk worker handles at most this many instances' events in one round (one batch). */
#define BULK_ROUND_MAX 1024

static struct bulk {
	startd_t *m;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	instance_t **ready; /* handed over, not yet taken up by the thread (under lock) */
	size_t n_ready, cap_ready;
	bool quit; /* bulk_stop(): exit once nothing is held or ready */
	/* The thread's own: */
	scf_handle_t *h;
	instance_t **held; /* whose bits it holds, in the order it will visit them */
	size_t n_held, cap_held;
} bulk = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

bool bulk_event(int type, int64_t arg)
{
	return (type == RE_INSERT && (arg & RE_INSERT_FRESH) && (arg & RE_INSERT_RUNNING)) ||
	        type == RE_ENABLE || type == RE_DISABLE;
}

void bulk_hand(startd_t *m, instance_t *i)
{
	lock_take(&bulk.lock, LOCK_BULK);
	if (bulk.quit || GREEDY_REALLOC(bulk.ready, bulk.cap_ready, bulk.n_ready + 1) < 0) {
		lock_drop(&bulk.lock, LOCK_BULK);
		worker_start(m, i);
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
		if (r >= 0 || !instance_connection_lost(r) || tries++ >= INSTANCE_REBIND_TRIES)
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

/* The states the batch settled, reported once written, each under its own cause. */
static void report(const rpg_batch_t *b)
{
	for (size_t k = 0; k < b->n; k++) {
		if (!b->items[k].report)
			continue;
		event_cause_set(b->items[k].cause);
		act_report(b->items[k].i, b->items[k].u.state, b->items[k].u.aux);
	}
}

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
			worker_start(bulk.m, bulk.held[k]);
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
		if (!act_light(i, type, arg)) {
			/* A method, a read, a snapshot: the instance's own worker from here on. */
			event_queue_worker_leave(&i->q);
			worker_start(bulk.m, i);
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
			act_batched(taken[k].i, taken[k].e, &b);
		}
		/* RACE WINDOW ENDS with this batch's commit, for each first write in it. */
		if (b.first)
			smf_point(SMF_POINT_STARTD_RESTARTER_BEFORE_PG_WRITE);
		if (b.later)
			smf_point(SMF_POINT_STARTD_RESTARTER_BEFORE_STATE_WRITE);
		(void)bulk_commit(&b);
		report(&b);
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
				worker_start(bulk.m, bulk.ready[k]);
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

int bulk_start(startd_t *m)
{
	bulk.m = m;
	bulk.quit = false;
	return thread_start(&bulk.thread, "startd-bulk", bulk_main, NULL);
}

void bulk_stop(void)
{
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
}
