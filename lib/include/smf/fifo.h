/*
 * fifo.h: the one first-in, first-out queue of minismf, intrusive and singly linked.
 *
 * An element type carries a "next" pointer; a queue is a head and a tail of that type.
 * Used by libscf's notification queue and startd's event queues (which add their lock and
 * condition variable around it).  Invariant: head and tail are both NULL or both set, and
 * tail->next is NULL.  No locking here.
 */
#ifndef SMF_FIFO_H
#define SMF_FIFO_H

#include <assert.h>
#include <stddef.h>

/* Appends e at the tail. */
#define FIFO_PUSH(head, tail, e)                                                                   \
	do {                                                                                       \
		__typeof__(e) _e_ = (e);                                                           \
		assert(((head) == NULL) == ((tail) == NULL));                                      \
		_e_->next = NULL;                                                                  \
		if (tail)                                                                          \
			(tail)->next = _e_;                                                        \
		else                                                                               \
			(head) = _e_;                                                              \
		(tail) = _e_;                                                                      \
	} while (0)

/* Removes and evaluates to the head, NULL when the queue is empty. */
#define FIFO_POP(head, tail)                                                                       \
	({                                                                                         \
		__typeof__(head) _h_ = (head);                                                     \
		if (_h_) {                                                                         \
			(head) = _h_->next;                                                        \
			if (!(head))                                                               \
				(tail) = NULL;                                                     \
			_h_->next = NULL;                                                          \
		}                                                                                  \
		_h_;                                                                               \
	})

#endif
