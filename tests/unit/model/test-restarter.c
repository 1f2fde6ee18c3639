/* Unit tests of the restarter model's tables (lib/model/restarter-vocabulary.c). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "restarter.h"

static void test_states_round_trip(void **state)
{
	for (int s = RESTARTER_STATE_NONE; s < _RESTARTER_STATE_MAX; s++)
		assert_int_equal(restarter_state_from_string(restarter_state_to_string(s)), s);
	assert_string_equal(restarter_state_to_string(RESTARTER_STATE_MAINT), "maintenance");
	assert_string_equal(restarter_state_to_string(RESTARTER_STATE_LEGACY), "legacy_run");
	assert_string_equal(restarter_state_to_string(_RESTARTER_STATE_MAX), "none");
	assert_string_equal(restarter_state_to_string((restarter_instance_state_t)-1), "none");
	assert_int_equal(restarter_state_from_string("bogus"), RESTARTER_STATE_NONE);
	assert_int_equal(restarter_state_from_string(NULL), RESTARTER_STATE_NONE);
}

static void test_state_is_up(void **state)
{
	assert_true(restarter_state_is_up(RESTARTER_STATE_ONLINE));
	assert_true(restarter_state_is_up(RESTARTER_STATE_DEGRADED));
	assert_false(restarter_state_is_up(RESTARTER_STATE_OFFLINE));
	assert_false(restarter_state_is_up(RESTARTER_STATE_MAINT));
	assert_false(restarter_state_is_up(RESTARTER_STATE_NONE));
}

static void test_groupings(void **state)
{
	for (int g = 0; g < _DEPGRP_MAX; g++)
		assert_int_equal(depgroup_from_string(depgroup_to_string(g)), g);
	assert_int_equal(depgroup_from_string("require_any"), DEPGRP_REQUIRE_ANY);
	assert_int_equal(depgroup_from_string("exclude_all"), DEPGRP_EXCLUDE_ALL);
	assert_int_equal(depgroup_from_string("require_some"), -EINVAL);
	assert_int_equal(depgroup_from_string(NULL), -EINVAL);
}

static void test_file_dep_path(void **state)
{
	assert_string_equal(restarter_file_dep_path("file://localhost/etc/x"), "/etc/x");
	assert_string_equal(restarter_file_dep_path("file:///etc/x"), "/etc/x");
	assert_string_equal(restarter_file_dep_path("file:/etc/x"), "/etc/x");
	assert_null(restarter_file_dep_path("svc:/a/b:c"));
	assert_null(restarter_file_dep_path(NULL));
}

static void test_restart_on(void **state)
{
	for (int r = 0; r < _RESTART_ON_MAX; r++)
		assert_int_equal(restart_on_from_string(restart_on_to_string(r)), r);
	assert_int_equal(restart_on_from_string("errors"), -EINVAL);
	/* The order is the rank a dependent compares against. */
	assert_true(RESTART_ON_NONE < RESTART_ON_ERROR);
	assert_true(RESTART_ON_ERROR < RESTART_ON_RESTART);
	assert_true(RESTART_ON_RESTART < RESTART_ON_REFRESH);
}

static void test_restart_on_reason(void **state)
{
	assert_int_equal(restart_on_reason(RESTARTER_AUX_METHOD_FAILED), RESTART_ON_ERROR);
	assert_int_equal(restart_on_reason(RESTARTER_AUX_CT_EV_EXIT), RESTART_ON_ERROR);
	assert_int_equal(restart_on_reason(RESTARTER_AUX_RESTARTING_TOO_QUICKLY), RESTART_ON_ERROR);
	assert_int_equal(restart_on_reason(RESTARTER_AUX_FAULT_THRESHOLD), RESTART_ON_ERROR);
	assert_int_equal(restart_on_reason(RESTARTER_AUX_RESTART_REQUEST), RESTART_ON_RESTART);
	assert_int_equal(restart_on_reason(RESTARTER_AUX_DISABLE_REQUEST), RESTART_ON_NONE);
	assert_int_equal(restart_on_reason(NULL), RESTART_ON_NONE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_states_round_trip),
	        cmocka_unit_test(test_state_is_up),
	        cmocka_unit_test(test_groupings),
	        cmocka_unit_test(test_file_dep_path),
	        cmocka_unit_test(test_restart_on),
	        cmocka_unit_test(test_restart_on_reason),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
