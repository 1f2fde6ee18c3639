/*
 * Unit tests of startd's lock order check (startd/lock.c): locks taken in rank order pass,
 * one taken under a lock that ranks at or below it aborts (the assert every tested build
 * has on), so a change that nests two locks the wrong way fails where it does, not in a run
 * that happens to deadlock.  An abort is watched from the parent of a forked child.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "lock.h"

static pthread_mutex_t a = PTHREAD_MUTEX_INITIALIZER, b = PTHREAD_MUTEX_INITIALIZER;

/* Runs fn in a child; its wait status. */
static int in_child(void (*fn)(void))
{
	int status = 0;
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		/* The abort's message is the point, not noise for the test's log. */
		(void)freopen("/dev/null", "w", stderr);
		fn();
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	return status;
}

static void in_order(void)
{
	lock_take(&a, LOCK_INSTANCES);
	lock_take(&b, LOCK_QUEUE);
	lock_drop(&b, LOCK_QUEUE);
	lock_drop(&a, LOCK_INSTANCES);
	/* Dropped: the same two again, and each alone. */
	lock_take(&b, LOCK_BULK);
	lock_drop(&b, LOCK_BULK);
	lock_take(&a, LOCK_LEAF);
	lock_drop(&a, LOCK_LEAF);
}

static void inverted(void)
{
	lock_take(&b, LOCK_QUEUE);
	lock_take(&a, LOCK_INSTANCES); /* the instance table under a queue: asserted */
}

static void same_rank(void)
{
	lock_take(&a, LOCK_LEAF);
	lock_take(&b, LOCK_LEAF); /* two leaves: asserted */
}

static void dropped_unheld(void)
{
	lock_drop(&a, LOCK_WORKERS);
}

static void test_in_order(void **state)
{
	int status = in_child(in_order);

	(void)state;
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

static void test_inverted(void **state)
{
	int status = in_child(inverted);

	(void)state;
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

static void test_same_rank(void **state)
{
	int status = in_child(same_rank);

	(void)state;
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

static void test_dropped_unheld(void **state)
{
	int status = in_child(dropped_unheld);

	(void)state;
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
}

/* The record is per thread: a lock another thread holds is no order of this one's. */
static void *take_queue(void *userdata)
{
	lock_take(userdata, LOCK_QUEUE);
	lock_drop(userdata, LOCK_QUEUE);
	return NULL;
}

static void test_per_thread(void **state)
{
	pthread_t t;

	(void)state;
	lock_take(&a, LOCK_LEAF);
	assert_int_equal(pthread_create(&t, NULL, take_queue, &b), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	lock_drop(&a, LOCK_LEAF);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_in_order),
	        cmocka_unit_test(test_inverted),
	        cmocka_unit_test(test_same_rank),
	        cmocka_unit_test(test_dropped_unheld),
	        cmocka_unit_test(test_per_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
