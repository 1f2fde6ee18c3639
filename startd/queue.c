/* queue.c: FIFOs of events between threads (see queue.h). */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fifo.h"
#include "lock.h"
#include "macro.h"
#include "queue.h"
#include "timeutil.h"

/* The cause the calling thread works for: that of the event it took last (queue.h). */
static __thread uint64_t current_cause;

uint64_t event_cause(void)
{
	return current_cause;
}

void event_cause_set(uint64_t cause)
{
	current_cause = cause;
}

void event_queue_init(event_queue_t *q)
{
	pthread_condattr_t ca;

	*q = (event_queue_t){};
	pthread_mutex_init(&q->lock, NULL);
	/* Deadlines are monotonic so that a clock step cannot stretch a linger or a wait. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cond, &ca);
	pthread_condattr_destroy(&ca);
}

void event_free(event_t *e)
{
	if (!e)
		return;
	free(e->fmri);
	free(e->pg);
	free(e->pgtype);
	free(e);
}

void event_queue_done(event_queue_t *q)
{
	event_t *e;

	while ((e = FIFO_POP(q->head, q->tail)))
		event_free(e);
	q->n = 0;
	pthread_cond_destroy(&q->cond);
	pthread_mutex_destroy(&q->lock);
}

static int dup_opt(const char *s, char **ret)
{
	*ret = NULL;
	if (!s)
		return 0;
	*ret = strdup(s);
	return *ret ? 0 : -ENOMEM;
}

int event_queue_push(event_queue_t *q, int type, const char *fmri, const char *pg,
        const char *pgtype, int64_t arg, bool *need_worker)
{
	event_t *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->type = type;
	e->arg = arg;
	e->cause = current_cause;
	if (dup_opt(fmri, &e->fmri) < 0 || dup_opt(pg, &e->pg) < 0 ||
	        dup_opt(pgtype, &e->pgtype) < 0) {
		event_free(e);
		return -ENOMEM;
	}
	lock_take(&q->lock, LOCK_QUEUE);
	FIFO_PUSH(q->head, q->tail, e);
	q->n++;
	if (need_worker) {
		*need_worker = !q->worker;
		q->worker = true;
	}
	pthread_cond_signal(&q->cond);
	lock_drop(&q->lock, LOCK_QUEUE);
	return 0;
}

static void timespec_at(uint64_t usec, struct timespec *ts)
{
	ts->tv_sec = (time_t)(usec / USEC_PER_SEC);
	ts->tv_nsec = (long)((usec % USEC_PER_SEC) * NSEC_PER_USEC);
}

/* Called with the lock held: waits until an event or the deadline; the head or NULL. */
static event_t *pop_locked(event_queue_t *q, uint64_t timeout_usec)
{
	uint64_t deadline = deadline_after_usec(timeout_usec);
	event_t *e;

	while (!q->head) {
		struct timespec ts;

		if (deadline == USEC_INFINITY) {
			pthread_cond_wait(&q->cond, &q->lock);
			continue;
		}
		if (deadline_left_usec(deadline) == 0)
			return NULL;
		timespec_at(deadline, &ts);
		(void)pthread_cond_timedwait(&q->cond, &q->lock, &ts);
	}
	q->n--;
	e = FIFO_POP(q->head, q->tail);
	current_cause = e->cause;
	return e;
}

event_t *event_queue_pop(event_queue_t *q, uint64_t timeout_usec)
{
	event_t *e;

	lock_take(&q->lock, LOCK_QUEUE);
	e = pop_locked(q, timeout_usec);
	lock_drop(&q->lock, LOCK_QUEUE);
	return e;
}

/* Called with the lock held, by the owner if there is one. */
static void retire_locked(event_queue_t *q)
{
	assert(!q->has_owner || pthread_equal(q->worker_owner, pthread_self()));
	q->worker = false;
	q->has_owner = false;
}

event_t *event_queue_pop_or_retire(event_queue_t *q, uint64_t linger_usec)
{
	event_t *e;

	lock_take(&q->lock, LOCK_QUEUE);
	e = pop_locked(q, linger_usec);
	if (!e)
		retire_locked(q);
	lock_drop(&q->lock, LOCK_QUEUE);
	return e;
}

void event_queue_worker_enter(event_queue_t *q)
{
	lock_take(&q->lock, LOCK_QUEUE);
	assert(q->worker && !q->has_owner);
	q->worker_owner = pthread_self();
	q->has_owner = true;
	lock_drop(&q->lock, LOCK_QUEUE);
}

void event_queue_claim_worker(event_queue_t *q)
{
	lock_take(&q->lock, LOCK_QUEUE);
	assert(!q->worker);
	q->worker = true;
	q->worker_owner = pthread_self();
	q->has_owner = true;
	lock_drop(&q->lock, LOCK_QUEUE);
}

bool event_queue_is_worker(event_queue_t *q)
{
	bool mine;

	lock_take(&q->lock, LOCK_QUEUE);
	mine = q->worker && q->has_owner && pthread_equal(q->worker_owner, pthread_self());
	lock_drop(&q->lock, LOCK_QUEUE);
	return mine;
}

void event_queue_retire(event_queue_t *q)
{
	lock_take(&q->lock, LOCK_QUEUE);
	retire_locked(q);
	lock_drop(&q->lock, LOCK_QUEUE);
}

int event_queue_peek(event_queue_t *q, int64_t *arg)
{
	int type = 0;

	lock_take(&q->lock, LOCK_QUEUE);
	assert(q->has_owner && pthread_equal(q->worker_owner, pthread_self()));
	if (q->head) {
		type = q->head->type;
		*arg = q->head->arg;
	}
	lock_drop(&q->lock, LOCK_QUEUE);
	return type;
}

bool event_queue_retire_if_empty(event_queue_t *q)
{
	bool empty;

	lock_take(&q->lock, LOCK_QUEUE);
	empty = !q->head;
	if (empty)
		retire_locked(q);
	lock_drop(&q->lock, LOCK_QUEUE);
	return empty;
}

void event_queue_worker_leave(event_queue_t *q)
{
	lock_take(&q->lock, LOCK_QUEUE);
	assert(q->worker && q->has_owner && pthread_equal(q->worker_owner, pthread_self()));
	q->has_owner = false;
	lock_drop(&q->lock, LOCK_QUEUE);
}

bool event_queue_has_worker(event_queue_t *q)
{
	bool worker;

	lock_take(&q->lock, LOCK_QUEUE);
	worker = q->worker;
	lock_drop(&q->lock, LOCK_QUEUE);
	return worker;
}

size_t event_queue_length(event_queue_t *q)
{
	size_t n;

	lock_take(&q->lock, LOCK_QUEUE);
	n = q->n;
	lock_drop(&q->lock, LOCK_QUEUE);
	return n;
}
