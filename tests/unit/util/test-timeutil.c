/*
 * test-timeutil: parse_seconds_usec(), the one parser of a deadline in seconds (svccfg import
 * --timeout, SVCCFG_IMPORT_TIMEOUT), and the default deadline of libscf's restarter wait.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "restarter-wait.h"
#include "timeutil.h"

static void test_parse_seconds(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(parse_seconds_usec("1", &v), 0);
	assert_int_equal(v, USEC_PER_SEC);
	assert_int_equal(parse_seconds_usec("0.5", &v), 0);
	assert_int_equal(v, USEC_PER_SEC / 2);
	assert_int_equal(parse_seconds_usec("60", &v), 0);
	assert_int_equal(v, 60 * USEC_PER_SEC);
	v = 7;
	/* Not a positive, finite number of at most 1e9: refused, and *ret left alone. */
	static const char *const bad[] = {"", "0", "-1", "soon", "1s", "1 ", "nan", "inf",
	        "1e10", "0x", NULL};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_seconds_usec(bad[i], &v), -EINVAL);
	assert_int_equal(v, 7);
}

static void test_default_timeout(void **state)
{
	uint64_t v = 0;

	(void)state;
	unsetenv(SCF_WAIT_RESTARTER_TIMEOUT_ENV);
	assert_int_equal(smf_wait_restarter_default_timeout(&v), 0);
	assert_int_equal(v, SCF_WAIT_RESTARTER_DEFAULT_SEC * USEC_PER_SEC);
	setenv(SCF_WAIT_RESTARTER_TIMEOUT_ENV, "", 1);
	assert_int_equal(smf_wait_restarter_default_timeout(&v), 0);
	assert_int_equal(v, SCF_WAIT_RESTARTER_DEFAULT_SEC * USEC_PER_SEC);
	setenv(SCF_WAIT_RESTARTER_TIMEOUT_ENV, "2.5", 1);
	assert_int_equal(smf_wait_restarter_default_timeout(&v), 0);
	assert_int_equal(v, 2500 * 1000);
	setenv(SCF_WAIT_RESTARTER_TIMEOUT_ENV, "soon", 1);
	assert_int_equal(smf_wait_restarter_default_timeout(&v), -EINVAL);
	assert_int_equal(v, SCF_WAIT_RESTARTER_DEFAULT_SEC * USEC_PER_SEC);
	unsetenv(SCF_WAIT_RESTARTER_TIMEOUT_ENV);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_parse_seconds),
	        cmocka_unit_test(test_default_timeout),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
