/*
 * Unit tests of startd's event queues (startd/queue.c): order, and the worker bit with its
 * owning thread, which the instance invariants are asserted against.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "macro.h"
#include "queue.h"

static void test_fifo_order(void **state)
{
	event_queue_t q;
	event_t *e;

	event_queue_init(&q);
	assert_null(event_queue_pop(&q, 0));
	for (int k = 1; k <= 3; k++)
		assert_int_equal(
		        event_queue_push(&q, k, "svc:/a:default", NULL, NULL, k * 10, NULL), 0);
	assert_int_equal(event_queue_length(&q), 3);
	for (int k = 1; k <= 3; k++) {
		e = event_queue_pop(&q, 0);
		assert_non_null(e);
		assert_int_equal(e->type, k);
		assert_int_equal(e->arg, k * 10);
		assert_string_equal(e->fmri, "svc:/a:default");
		assert_null(e->pg);
		assert_null(e->next);
		event_free(e);
	}
	assert_int_equal(event_queue_length(&q), 0);
	assert_null(event_queue_pop(&q, 0));
	/* What is left at the end is freed with the queue. */
	assert_int_equal(event_queue_push(&q, 7, NULL, "general", "framework", 0, NULL), 0);
	event_queue_done(&q);
}

typedef struct worker_check {
	event_queue_t *q;
	bool mine_before, mine_after, retired_empty;
	int type;
} worker_check_t;

/* Does what startd's instance worker does: enter, drain, retire. */
static void *worker(void *userdata)
{
	worker_check_t *w = userdata;
	event_t *e;

	w->mine_before = event_queue_is_worker(w->q);
	event_queue_worker_enter(w->q);
	w->mine_after = event_queue_is_worker(w->q);
	e = event_queue_pop_or_retire(w->q, 0);
	w->type = e ? e->type : 0;
	event_free(e);
	w->retired_empty = event_queue_pop_or_retire(w->q, 0) == NULL;
	return NULL;
}

static void test_worker_bit(void **state)
{
	worker_check_t w = {};
	event_queue_t q;
	bool need = false;
	event_t *e;
	pthread_t t;

	event_queue_init(&q);
	w.q = &q;
	/* The first push asks for a worker, the next one finds it claimed. */
	assert_int_equal(event_queue_push(&q, 5, NULL, NULL, NULL, 0, &need), 0);
	assert_true(need);
	assert_int_equal(event_queue_push(&q, 6, NULL, NULL, NULL, 0, &need), 0);
	assert_false(need);
	/* Claimed, but nobody has entered: no thread owns the instance yet. */
	assert_false(event_queue_is_worker(&q));

	e = event_queue_pop(&q, 0); /* leaves one event */
	assert_non_null(e);
	assert_int_equal(e->type, 5);
	event_free(e);
	assert_int_equal(pthread_create(&t, NULL, worker, &w), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_false(w.mine_before);
	assert_true(w.mine_after);
	assert_int_equal(w.type, 6);
	assert_true(w.retired_empty);
	/* Retired: the bit and its owner are gone, the next push asks for a worker again. */
	assert_false(event_queue_is_worker(&q));
	assert_int_equal(event_queue_push(&q, 7, NULL, NULL, NULL, 0, &need), 0);
	assert_true(need);
	event_queue_done(&q);
}

static void test_claim_worker(void **state)
{
	event_queue_t q;

	event_queue_init(&q);
	event_queue_claim_worker(&q);
	assert_true(event_queue_is_worker(&q));
	event_queue_retire(&q);
	assert_false(event_queue_is_worker(&q));
	event_queue_done(&q);
}

/* A thread that takes over a bit another left (the bulk worker's hand-off), and drains it. */
static void *successor(void *userdata)
{
	worker_check_t *w = userdata;
	event_t *e;

	event_queue_worker_enter(w->q);
	w->mine_after = event_queue_is_worker(w->q);
	e = event_queue_pop(w->q, 0);
	w->type = e ? e->type : 0;
	event_free(e);
	w->retired_empty = event_queue_retire_if_empty(w->q);
	return NULL;
}

/* What bulk.c's bulk worker does with the bits it holds: peek, take, let go, hand on. */
static void test_bulk_holder(void **state)
{
	worker_check_t w = {};
	event_queue_t q;
	bool need = false;
	int64_t arg = 0;
	event_t *e;
	pthread_t t;

	event_queue_init(&q);
	w.q = &q;
	assert_int_equal(event_queue_push(&q, 1, NULL, NULL, NULL, 11, &need), 0);
	assert_true(need);
	event_queue_worker_enter(&q);

	/* Peeking shows the head and leaves it: the holder decides, then takes. */
	assert_int_equal(event_queue_peek(&q, &arg), 1);
	assert_int_equal(arg, 11);
	assert_int_equal(event_queue_length(&q), 1);
	e = event_queue_pop(&q, 0);
	assert_int_equal(e->type, 1);
	event_free(e);
	assert_int_equal(event_queue_peek(&q, &arg), 0);

	/* An event queued meanwhile keeps the bit: it is not left without a worker. */
	assert_int_equal(event_queue_push(&q, 2, NULL, NULL, NULL, 0, &need), 0);
	assert_false(need);
	assert_false(event_queue_retire_if_empty(&q));
	assert_true(event_queue_is_worker(&q));

	/* Handed on: the bit stays set (a push starts nobody), another thread enters and drains. */
	event_queue_worker_leave(&q);
	assert_false(event_queue_is_worker(&q));
	assert_int_equal(event_queue_push(&q, 3, NULL, NULL, NULL, 0, &need), 0);
	assert_false(need);
	e = event_queue_pop(&q, 0); /* as the holder would have: its events go in order */
	assert_int_equal(e->type, 2);
	event_free(e);
	assert_int_equal(pthread_create(&t, NULL, successor, &w), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_true(w.mine_after);
	assert_int_equal(w.type, 3);
	assert_true(w.retired_empty);

	/* Let go when empty: the next push asks for a worker again. */
	assert_int_equal(event_queue_push(&q, 4, NULL, NULL, NULL, 0, &need), 0);
	assert_true(need);
	event_queue_done(&q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_fifo_order),
	        cmocka_unit_test(test_worker_bit),
	        cmocka_unit_test(test_claim_worker),
	        cmocka_unit_test(test_bulk_holder),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
