/*
 * queue.h: the event queues between startd's threads.
 *
 * Every hand-off in startd (repository thread -> graph, graph -> restarter dispatcher,
 * dispatcher -> one instance, reaper -> dispatcher) is a FIFO of Events guarded by one mutex and
 * one condition variable: producers never block for long, and the consumer sees events in the
 * order they were pushed.  A queue can also own the "a worker is draining me" bit, so that an
 * instance's worker thread is started on demand and retires, lingering, when its queue stays
 * empty; both decisions are taken under the queue's lock, so no event is ever left without a
 * worker.
 */
#ifndef STARTD_QUEUE_H
#define STARTD_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct Event {
	struct Event *next;
	int type;
	char *fmri;   /* the entity the event is about (may be NULL) */
	char *pg;     /* a pg name, for repository events (may be NULL) */
	char *pgtype; /* its type, when known (may be NULL) */
	int64_t arg;  /* a state, a process group... as the event type says */
} Event;

typedef struct EventQueue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	Event *head, *tail;
	size_t n;
	bool worker; /* a worker thread is draining this queue (on-demand queues only) */
} EventQueue;

void event_queue_init(EventQueue *q);
/* Frees the events still queued; the queue must have no user left. */
void event_queue_done(EventQueue *q);
void event_free(Event *e);

/*
 * Pushes a copy of the strings.  With need_worker != NULL, claims the worker bit: *need_worker
 * is set when no worker was draining the queue, and the caller must start one.  0 or -ENOMEM.
 */
int event_queue_push(EventQueue *q, int type, const char *fmri, const char *pg, const char *pgtype,
        int64_t arg, bool *need_worker);

/* Waits for the next event; NULL after timeout_usec (USEC_INFINITY: waits forever). */
Event *event_queue_pop(EventQueue *q, uint64_t timeout_usec);

/*
 * As event_queue_pop(), for a queue's worker: when nothing arrives within linger_usec the
 * worker bit is dropped under the lock and NULL is returned; the worker must then exit.
 */
Event *event_queue_pop_or_retire(EventQueue *q, uint64_t linger_usec);

/* Drops the worker bit at once (a worker that exits for another reason). */
void event_queue_retire(EventQueue *q);

size_t event_queue_length(EventQueue *q);

#endif
