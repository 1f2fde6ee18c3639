/* queue.c: FIFOs of events between threads (see queue.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "macro.h"
#include "queue.h"
#include "timeutil.h"

void event_queue_init(EventQueue *q)
{
	pthread_condattr_t ca;

	*q = (EventQueue){};
	pthread_mutex_init(&q->lock, NULL);
	/* Deadlines are monotonic so that a clock step cannot stretch a linger or a wait. */
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&q->cond, &ca);
	pthread_condattr_destroy(&ca);
}

void event_free(Event *e)
{
	if (!e)
		return;
	free(e->fmri);
	free(e->pg);
	free(e->pgtype);
	free(e);
}

void event_queue_done(EventQueue *q)
{
	while (q->head) {
		Event *e = q->head;
		q->head = e->next;
		event_free(e);
	}
	q->tail = NULL;
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

int event_queue_push(EventQueue *q, int type, const char *fmri, const char *pg, const char *pgtype,
        int64_t arg, bool *need_worker)
{
	Event *e = calloc(1, sizeof(*e));

	if (!e)
		return -ENOMEM;
	e->type = type;
	e->arg = arg;
	if (dup_opt(fmri, &e->fmri) < 0 || dup_opt(pg, &e->pg) < 0 ||
	        dup_opt(pgtype, &e->pgtype) < 0) {
		event_free(e);
		return -ENOMEM;
	}
	pthread_mutex_lock(&q->lock);
	if (q->tail)
		q->tail->next = e;
	else
		q->head = e;
	q->tail = e;
	q->n++;
	if (need_worker) {
		*need_worker = !q->worker;
		q->worker = true;
	}
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

static void timespec_at(uint64_t usec, struct timespec *ts)
{
	ts->tv_sec = (time_t)(usec / USEC_PER_SEC);
	ts->tv_nsec = (long)((usec % USEC_PER_SEC) * NSEC_PER_USEC);
}

/* Called with the lock held: waits until an event or the deadline; the head or NULL. */
static Event *pop_locked(EventQueue *q, uint64_t timeout_usec)
{
	uint64_t deadline = deadline_after_usec(timeout_usec);
	Event *e;

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
	e = q->head;
	q->head = e->next;
	if (!q->head)
		q->tail = NULL;
	q->n--;
	e->next = NULL;
	return e;
}

Event *event_queue_pop(EventQueue *q, uint64_t timeout_usec)
{
	Event *e;

	pthread_mutex_lock(&q->lock);
	e = pop_locked(q, timeout_usec);
	pthread_mutex_unlock(&q->lock);
	return e;
}

Event *event_queue_pop_or_retire(EventQueue *q, uint64_t linger_usec)
{
	Event *e;

	pthread_mutex_lock(&q->lock);
	e = pop_locked(q, linger_usec);
	if (!e)
		q->worker = false;
	pthread_mutex_unlock(&q->lock);
	return e;
}

void event_queue_retire(EventQueue *q)
{
	pthread_mutex_lock(&q->lock);
	q->worker = false;
	pthread_mutex_unlock(&q->lock);
}

size_t event_queue_length(EventQueue *q)
{
	size_t n;

	pthread_mutex_lock(&q->lock);
	n = q->n;
	pthread_mutex_unlock(&q->lock);
	return n;
}
