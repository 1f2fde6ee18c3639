/*
 * queue.h: the event queues between startd's threads.
 *
 * Every hand-off in startd (repository thread -> graph, graph -> restarter dispatcher,
 * dispatcher -> one instance, reaper -> dispatcher) is a FIFO of events guarded by one mutex
 * and one condition variable: producers never block for long, and the consumer sees events in
 * the order they were pushed.  A queue can also own the "a worker is draining me" bit, so that
 * an instance's worker thread is started on demand and retires, lingering, when its queue stays
 * empty; both decisions are taken under the queue's lock, so no event is ever left without a
 * worker.
 *
 * The worker bit has an owner: the thread that drains the queue records itself
 * (event_queue_worker_enter()) before it touches the state the bit protects, and asserts it
 * (event_queue_is_worker()) where that state is used; the owner is forgotten when the bit is
 * dropped.
 *
 * CAUSES.  Every event carries the commit id of the repository write it descends from (its
 * cause, 0 when none: a scan, a reaped process, startd's own timers).  A thread has a current
 * cause: taking an event off a queue makes that event's cause the thread's, and every event the
 * thread pushes carries it, so the id a notification brought (repo.c sets it) follows the work
 * from the repository thread through the graph and the dispatcher to the instance's worker and
 * into the trace (probes.c), with no call site passing it by hand.
 */
#ifndef STARTD_QUEUE_H
#define STARTD_QUEUE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct event {
	struct event *next;
	int type;
	char *fmri;     /* the entity the event is about (may be NULL) */
	char *pg;       /* a pg name, for repository events (may be NULL) */
	char *pgtype;   /* its type, when known (may be NULL) */
	int64_t arg;    /* a state, a process group... as the event type says */
	uint64_t cause; /* the commit id this event descends from, 0 if none (CAUSES above) */
} event_t;

typedef struct event_queue {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	event_t *head, *tail;
	size_t n;
	bool worker;    /* a worker thread is draining this queue (on-demand queues only) */
	bool has_owner; /* worker_owner is set: the worker entered */
	pthread_t worker_owner;
} event_queue_t;

void event_queue_init(event_queue_t *q);
/* Frees the events still queued; the queue must have no user left. */
void event_queue_done(event_queue_t *q);
void event_free(event_t *e);

/*
 * Pushes a copy of the strings.  With need_worker != NULL, claims the worker bit: *need_worker
 * is set when no worker was draining the queue, and the caller must start one.  0 or -ENOMEM.
 */
int event_queue_push(event_queue_t *q, int type, const char *fmri, const char *pg,
        const char *pgtype, int64_t arg, bool *need_worker);

/* Waits for the next event; NULL after timeout_usec (USEC_INFINITY: waits forever). */
event_t *event_queue_pop(event_queue_t *q, uint64_t timeout_usec);

/*
 * As event_queue_pop(), for a queue's worker: when nothing arrives within linger_usec the
 * worker bit is dropped under the lock and NULL is returned; the worker must then exit.
 */
event_t *event_queue_pop_or_retire(event_queue_t *q, uint64_t linger_usec);

/*
 * The calling thread becomes the worker: the bit must be claimed already (by the push that
 * started it) and have no owner.  event_queue_claim_worker() claims the bit and enters at
 * once, for a thread that acts as an instance's worker without a queue to drain (EMI); it
 * asserts that no worker holds the bit.
 */
void event_queue_worker_enter(event_queue_t *q);
void event_queue_claim_worker(event_queue_t *q);
/* Whether the calling thread holds the worker bit (for asserts). */
bool event_queue_is_worker(event_queue_t *q);

/* Drops the worker bit at once (a worker that exits for another reason). */
void event_queue_retire(event_queue_t *q);

/*
 * For a worker that holds the bits of many queues at once (bulk.c's bulk worker):
 * event_queue_peek() copies the type and arg of the next event without taking it (0 when the
 * queue is empty; only the bit's owner takes events, so the head stays until it does);
 * event_queue_retire_if_empty() drops the bit only if no event is queued, under the lock, so
 * that no event is left without a worker (true: dropped); event_queue_worker_leave() gives up
 * the ownership but keeps the bit, for a thread the caller starts and that enters.
 */
int event_queue_peek(event_queue_t *q, int64_t *arg);
bool event_queue_retire_if_empty(event_queue_t *q);
void event_queue_worker_leave(event_queue_t *q);

/* Whether a worker holds the queue's bit (is draining it, or is handed it). */
bool event_queue_has_worker(event_queue_t *q);

size_t event_queue_length(event_queue_t *q);

/* The calling thread's current cause (CAUSES above), and setting it (repo.c, from a notification). */
uint64_t event_cause(void);
void event_cause_set(uint64_t cause);

#endif
