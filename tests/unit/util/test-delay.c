/*
 * test-delay.c: SMF_DELAY specs (fixed and random), and the replayability of random delays.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "delay.h"
#include "timeutil.h"

#define DRAWS 1000

static void test_fixed_units(void **state)
{
	_cleanup_delay_free_ delay_table_t *t = NULL;

	(void)state;
	assert_int_equal(smf_delay_parse("a=7us,b=250ms,c=2s,d=0ms", 1, &t), 0);
	assert_int_equal(smf_delay_count(t), 4);
	assert_false(smf_delay_has_random(t));
	for (int i = 0; i < 3; i++) {
		assert_int_equal(smf_delay_usec(t, "a"), 7);
		assert_int_equal(smf_delay_usec(t, "b"), 250 * USEC_PER_MSEC);
		assert_int_equal(smf_delay_usec(t, "c"), 2 * USEC_PER_SEC);
		assert_int_equal(smf_delay_usec(t, "d"), 0);
	}
	assert_int_equal(smf_delay_usec(t, "e"), 0);
	assert_int_equal(smf_delay_usec(t, "b.x"), 0);
	assert_int_equal(smf_delay_usec(NULL, "a"), 0);
}

/* The values the integration and stress tests use must keep meaning what they meant. */
static void test_startd_points(void **state)
{
	_cleanup_delay_free_ delay_table_t *t = NULL;

	(void)state;
	assert_int_equal(smf_delay_parse("startd.restarter.before_pg_write=1000ms,"
	                                 "startd.graph.before_insert=20ms",
	                         0, &t),
	        0);
	assert_int_equal(smf_delay_usec(t, "startd.restarter.before_pg_write"), 1000000);
	assert_int_equal(smf_delay_usec(t, "startd.graph.before_insert"), 20000);
}

static void test_whitespace(void **state)
{
	_cleanup_delay_free_ delay_table_t *t = NULL;

	(void)state;
	assert_int_equal(smf_delay_parse("  a = 5ms ,\tb=rand:1-2s , ,", 1, &t), 0);
	assert_int_equal(smf_delay_count(t), 2);
	assert_int_equal(smf_delay_usec(t, "a"), 5000);
	assert_true(smf_delay_has_random(t));
}

/* Each bad entry is skipped and counted; the good ones around it still apply. */
static void test_bad_entries(void **state)
{
	static const char *const bad[] = {
	        "a=5",
	        "a=5m",
	        "a=ms",
	        "a=-5ms",
	        "a=+5ms",
	        "a=5 ms",
	        "a=5msx",
	        "a=rand:5ms",
	        "a=rand:9-1ms",
	        "a=rand:1-ms",
	        "a=rand:-1-2ms",
	        "a=rand:1-2",
	        "a=random:1-2ms",
	        "=5ms",
	        "a",
	        "a=99999999999999999999us",
	        "a=18446744073709551615s",
	};

	(void)state;
	for (size_t k = 0; k < sizeof(bad) / sizeof(bad[0]); k++) {
		_cleanup_delay_free_ delay_table_t *t = NULL;
		char spec[128];

		snprintf(spec, sizeof(spec), "x=1ms,%s,y=2ms", bad[k]);
		if (smf_delay_parse(spec, 1, &t) != 1)
			fail_msg("\"%s\" was not rejected", bad[k]);
		assert_int_equal(smf_delay_count(t), 2);
		assert_int_equal(smf_delay_usec(t, "a"), 0);
		assert_int_equal(smf_delay_usec(t, "x"), 1000);
		assert_int_equal(smf_delay_usec(t, "y"), 2000);
	}
}

static void test_duplicate(void **state)
{
	_cleanup_delay_free_ delay_table_t *t = NULL;

	(void)state;
	assert_int_equal(smf_delay_parse("a=1ms,a=2ms", 1, &t), 1);
	assert_int_equal(smf_delay_usec(t, "a"), 1000);
}

static void test_random_in_range(void **state)
{
	_cleanup_delay_free_ delay_table_t *t = NULL;
	uint64_t lo = UINT64_MAX, hi = 0;

	(void)state;
	assert_int_equal(smf_delay_parse("r=rand:10-50ms,p=rand:3-3us,z=rand:0-1s", 42, &t), 0);
	assert_int_equal(smf_delay_seed(t), 42);
	for (int i = 0; i < DRAWS; i++) {
		uint64_t v = smf_delay_usec(t, "r");

		assert_in_range(v, 10000, 50000);
		lo = v < lo ? v : lo;
		hi = v > hi ? v : hi;
		assert_int_equal(smf_delay_usec(t, "p"), 3);
		assert_in_range(smf_delay_usec(t, "z"), 0, USEC_PER_SEC);
	}
	/* Uniform over 40001 values: 1000 draws cover most of the range. */
	assert_true(lo < 12000 && hi > 48000);
}

static void draw(uint64_t seed, const char *point, uint64_t *out)
{
	_cleanup_delay_free_ delay_table_t *t = NULL;

	assert_int_equal(smf_delay_parse("a=rand:0-1000000us,b=rand:0-1000000us", seed, &t), 0);
	for (int i = 0; i < DRAWS; i++) {
		out[i] = smf_delay_usec(t, point);
		/* Passes through another point do not shift this point's sequence. */
		(void)smf_delay_usec(t, point[0] == 'a' ? "b" : "a");
	}
}

static int differ(const uint64_t *x, const uint64_t *y)
{
	int n = 0;

	for (int i = 0; i < DRAWS; i++)
		n += x[i] != y[i];
	return n;
}

static void test_seed_replay(void **state)
{
	static uint64_t a1[DRAWS], a2[DRAWS], b1[DRAWS], a3[DRAWS];
	_cleanup_delay_free_ delay_table_t *t = NULL;

	(void)state;
	draw(12345, "a", a1);
	draw(12345, "a", a2);
	draw(12345, "b", b1);
	draw(12346, "a", a3);
	assert_int_equal(differ(a1, a2), 0);
	/* Collisions are possible over 10^6 values, but not many of them. */
	assert_true(differ(a1, b1) > DRAWS - 10);
	assert_true(differ(a1, a3) > DRAWS - 10);

	/* Only the name's stream matters, not the order points appear in the spec. */
	assert_int_equal(smf_delay_parse("b=1ms,a=rand:0-1000000us", 12345, &t), 0);
	for (int i = 0; i < DRAWS; i++)
		assert_int_equal(smf_delay_usec(t, "a"), a1[i]);
}

static void test_from_env(void **state)
{
	delay_table_t *t = NULL;

	(void)state;
	unsetenv("SMF_DELAY");
	assert_int_equal(smf_delay_from_env("test", &t), 0);
	assert_null(t);

	setenv("SMF_DELAY", "a=bad", 1);
	assert_int_equal(smf_delay_from_env("test", &t), 0);
	assert_null(t);

	setenv("SMF_DELAY", "a=rand:1-9ms", 1);
	setenv("SMF_DELAY_SEED", "777", 1);
	assert_int_equal(smf_delay_from_env("test", &t), 0);
	assert_non_null(t);
	assert_int_equal(smf_delay_seed(t), 777);
	t = smf_delay_free(t);

	setenv("SMF_DELAY_SEED", "nope", 1);
	assert_int_equal(smf_delay_from_env("test", &t), 0);
	assert_non_null(t);
	assert_in_range(smf_delay_usec(t, "a"), 1000, 9000);
	t = smf_delay_free(t);
	unsetenv("SMF_DELAY");
	unsetenv("SMF_DELAY_SEED");
}

static void test_sleep(void **state)
{
	uint64_t start = now_monotonic_usec();

	(void)state;
	smf_delay_sleep(2000);
	assert_true(now_monotonic_usec() - start >= 2000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_fixed_units),
	        cmocka_unit_test(test_startd_points),
	        cmocka_unit_test(test_whitespace),
	        cmocka_unit_test(test_bad_entries),
	        cmocka_unit_test(test_duplicate),
	        cmocka_unit_test(test_random_in_range),
	        cmocka_unit_test(test_seed_replay),
	        cmocka_unit_test(test_from_env),
	        cmocka_unit_test(test_sleep),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
