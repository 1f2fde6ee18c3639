/*
 * test-strv.c: string vectors, in particular the counted builder that long listings use.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "strv.h"

/* Every length from 0 to 5000, from both starting points, keeps order and the NULL end. */
static void test_extend_counted(void **state)
{
	for (int from_null = 0; from_null < 2; from_null++) {
		_cleanup_strv_free_ char **l = from_null ? NULL : strv_new_empty();
		char buf[16];
		size_t n = 0;

		for (int i = 0; i < 5000; i++) {
			snprintf(buf, sizeof(buf), "s%d", i);
			assert_int_equal(strv_extend_counted(&l, &n, buf), 0);
			assert_int_equal(n, (size_t)i + 1);
			assert_null(l[n]);
		}
		assert_int_equal(strv_length(l), 5000);
		for (int i = 0; i < 5000; i++) {
			snprintf(buf, sizeof(buf), "s%d", i);
			assert_string_equal(l[i], buf);
		}
	}
}

static void test_basics(void **state)
{
	_cleanup_strv_free_ char **l = strv_new_empty(), **c = NULL;

	assert_non_null(l);
	assert_int_equal(strv_length(l), 0);
	assert_int_equal(strv_extend(&l, "b"), 0);
	assert_int_equal(strv_extend(&l, "a"), 0);
	assert_true(strv_contains(l, "a"));
	assert_false(strv_contains(l, "c"));
	strv_sort(l);
	assert_string_equal(l[0], "a");
	c = strv_copy(l);
	assert_non_null(c);
	assert_int_equal(strv_length(c), 2);
	assert_string_equal(c[1], "b");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_extend_counted),
	        cmocka_unit_test(test_basics),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
