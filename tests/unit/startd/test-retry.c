/*
 * Unit tests of startd's retries of writes the repository's store refused (startd/retry.c):
 * the backoff schedule (a pure function), which errors are the store's, how an episode reaches
 * the log (once, not once per try), and the wait between tries, which startd's stop ends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "macro.h"
#include "retry.h"

static void test_schedule(void **state)
{
	(void)state;
	/* 100 ms doubling: 100, 200, 400, 800, 1600, 3200, then the cap. */
	assert_int_equal(retry_delay_usec(0), 100 * USEC_PER_MSEC);
	assert_int_equal(retry_delay_usec(1), 200 * USEC_PER_MSEC);
	assert_int_equal(retry_delay_usec(2), 400 * USEC_PER_MSEC);
	assert_int_equal(retry_delay_usec(4), 1600 * USEC_PER_MSEC);
	assert_int_equal(retry_delay_usec(5), RETRY_CAP_USEC);
	assert_int_equal(retry_delay_usec(6), RETRY_CAP_USEC);
	/* No shift overflows, however long the store stays full. */
	assert_int_equal(retry_delay_usec(31), RETRY_CAP_USEC);
	assert_int_equal(retry_delay_usec(32), RETRY_CAP_USEC);
	assert_int_equal(retry_delay_usec(63), RETRY_CAP_USEC);
	assert_int_equal(retry_delay_usec(64), RETRY_CAP_USEC);
	assert_int_equal(retry_delay_usec(UINT32_MAX), RETRY_CAP_USEC);
	for (unsigned a = 0; a < 200; a++) {
		assert_true(retry_delay_usec(a) >= RETRY_FIRST_USEC);
		assert_true(retry_delay_usec(a) <= RETRY_CAP_USEC);
		assert_true(retry_delay_usec(a + 1) >= retry_delay_usec(a));
	}
}

static void test_store_failed(void **state)
{
	(void)state;
	assert_true(retry_store_failed(-SCF_ERROR_BACKEND_ACCESS));
	assert_true(retry_store_failed(-SCF_ERROR_BACKEND_READONLY));
	/* A refused request, a lost connection (instance_rebind()'s), configd's memory: not. */
	assert_false(retry_store_failed(0));
	assert_false(retry_store_failed(1));
	assert_false(retry_store_failed(-SCF_ERROR_NOT_FOUND));
	assert_false(retry_store_failed(-SCF_ERROR_CONNECTION_BROKEN));
	assert_false(retry_store_failed(-SCF_ERROR_NO_SERVER));
	assert_false(retry_store_failed(-SCF_ERROR_NO_RESOURCES));
	assert_false(retry_store_failed(-SCF_ERROR_PERMISSION_DENIED));
	assert_false(retry_store_failed(-ENOMEM));
}

/* Runs fn with stderr going to a file; the number of lines it wrote there. */
static int lines_logged(void (*fn)(void))
{
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO), n = 0, c;

	assert_non_null(f);
	assert_true(saved >= 0);
	fflush(stderr);
	assert_true(dup2(fileno(f), STDERR_FILENO) >= 0);
	fn();
	fflush(stderr);
	assert_true(dup2(saved, STDERR_FILENO) >= 0);
	close(saved);
	rewind(f);
	while ((c = fgetc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

static void fail_many(void)
{
	for (int k = 0; k < 82; k++)
		retry_failed("svc:/a:default", -SCF_ERROR_BACKEND_ACCESS,
		        "repository database: committing: database or disk is full");
}

static void succeed_twice(void)
{
	retry_succeeded();
	retry_succeeded();
}

static void test_episode_log(void **state)
{
	(void)state;
	log_set_program("test-retry");
	/* Without an episode, a success says nothing. */
	assert_int_equal(lines_logged(succeed_twice), 0);
	/* 82 failed tries (the count of the bug report): one line, then one when it ends. */
	assert_int_equal(lines_logged(fail_many), 1);
	assert_int_equal(lines_logged(succeed_twice), 1);
	/* Another episode within RETRY_LOG_INTERVAL_USEC: no line, and none when it ends. */
	assert_int_equal(lines_logged(fail_many), 0);
	assert_int_equal(lines_logged(succeed_twice), 0);
}

static void test_wait(void **state)
{
	startd_t m = {.repo_stop_fd = -1};
	uint64_t t0, eventfd_one = 1;

	(void)state;
	/* Before the stop fd exists, a try waits its whole delay. */
	t0 = now_monotonic_usec();
	assert_true(retry_wait(&m, 0));
	assert_true(now_monotonic_usec() - t0 >= retry_delay_usec(0));
	/* Once startd stops, a try at the cap gives up at once. */
	m.repo_stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	assert_true(m.repo_stop_fd >= 0);
	assert_int_equal(write(m.repo_stop_fd, &eventfd_one, sizeof(eventfd_one)),
	        (ssize_t)sizeof(eventfd_one));
	t0 = now_monotonic_usec();
	assert_false(retry_wait(&m, 10));
	assert_true(now_monotonic_usec() - t0 < RETRY_CAP_USEC / 2);
	close(m.repo_stop_fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_schedule),
	        cmocka_unit_test(test_store_failed),
	        cmocka_unit_test(test_episode_log),
	        cmocka_unit_test(test_wait),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
