/*
 * lock.c: the lock order's check (see lock.h).
 *
 * A condition wait gives its mutex up and takes it back before it returns: to the record the
 * lock stays held, which is what the caller sees.
 */
#include <assert.h>

#include "lock.h"

/* Bit r: this thread holds a lock of rank r. */
static __thread unsigned held;

void lock_take(pthread_mutex_t *l, lock_rank_t rank)
{
	assert(rank > 0 && rank < _LOCK_RANK_MAX);
	/* Every lock held ranks lower: none of this rank or above. */
	assert((held >> rank) == 0);
	pthread_mutex_lock(l);
	held |= 1u << rank;
}

void lock_drop(pthread_mutex_t *l, lock_rank_t rank)
{
	assert(held & (1u << rank));
	held &= ~(1u << rank);
	pthread_mutex_unlock(l);
}
