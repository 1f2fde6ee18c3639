/*
 * lock.h: startd's locks, taken in one order (main.c, "Lock ordering"), and the check of it.
 *
 * Each mutex of startd has a rank; a thread takes a lock only when every lock it holds ranks
 * lower, so no two threads can each hold a lock the other waits for.  lock_take() asserts it
 * against a per-thread record of the ranks held (asserts are on in every tested build:
 * docs/style.md), so a change that nests two locks the other way fails the first test that
 * takes that path, not a run that happens to deadlock.  Locks of one rank are never held
 * together.
 */
#ifndef STARTD_LOCK_H
#define STARTD_LOCK_H

#include <pthread.h>

typedef enum lock_rank {
	LOCK_INSTANCES = 1, /* startd_t.insts_lock: the instance table (dispatch.c) */
	LOCK_BULK,          /* the instances handed to the bulk worker (bulk.c) */
	LOCK_WORKERS,       /* startd_t.workers_lock: how many instance workers live (worker.c) */
	LOCK_TRACKED,       /* the processes startd tracks: children, contracts (proc.c) */
	LOCK_QUEUE,         /* one event queue (queue.c) */
	LOCK_LEAF,          /* nothing is taken under it: the idle handles (instance.c), the
	                       survivors' table (survivors.c), the store's episode (retry.c) */
	_LOCK_RANK_MAX,
} lock_rank_t;

/* pthread_mutex_lock(), once the order is checked; the rank is held until lock_drop(). */
void lock_take(pthread_mutex_t *l, lock_rank_t rank);
void lock_drop(pthread_mutex_t *l, lock_rank_t rank);

#endif
