/*
 * test-error.c: lib/util/error.c, the one table of an error code's words: scf_strerror()'s
 * message and the tools' phrase, which scripts read, so a change to either must be meant.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "error.h"
#include "libscf.h"

/* Every code has both words or neither: a row is never half filled. */
static void test_rows_whole(void **state)
{
	int n = 0;

	for (int e = SCF_ERROR_NONE; e <= SCF_ERROR_NOT_SUPPORTED; e++) {
		bool message = strcmp(smf_strerror(e), "unknown error") != 0;
		bool phrase = strcmp(smf_error_phrase(e), "unknown error") != 0;

		assert_int_equal(message, phrase);
		n += message;
	}
	/* Every scf_error_t of libscf.h: NONE to DELETED (16), INTERNAL and minismf's three. */
	assert_int_equal(n, 20);
}

/* The two registers: illumos libscf's messages, the tools' phrases. */
static void test_words(void **state)
{
	static const struct {
		int code;
		const char *message, *phrase;
	} rows[] = {
	        {SCF_ERROR_NOT_FOUND, "entity not found", "entity not found"},
	        {SCF_ERROR_PERMISSION_DENIED, "insufficient privileges for action",
	                "permission denied"},
	        {SCF_ERROR_NO_SERVER, "repository server unavailable",
	                "repository server unavailable"},
	        {SCF_ERROR_CONNECTION_BROKEN, "connection to repository broken",
	                "repository connection broken"},
	        {SCF_ERROR_AMBIGUOUS, "FMRI is ambiguous", "pattern matches more than one entity"},
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		assert_string_equal(smf_strerror(rows[i].code), rows[i].message);
		assert_string_equal(smf_strerror(-rows[i].code), rows[i].message);
		assert_string_equal(smf_error_phrase(rows[i].code), rows[i].phrase);
		assert_string_equal(smf_error_phrase(-rows[i].code), rows[i].phrase);
	}
}

/* 0, errno values and codes the table does not know read the same in both. */
static void test_outside_the_table(void **state)
{
	assert_string_equal(smf_strerror(0), "no error");
	assert_string_equal(smf_error_phrase(0), "no error");
	assert_string_equal(smf_error_phrase(-ENOENT), strerror(ENOENT));
	assert_string_equal(smf_error_phrase(EACCES), smf_strerror(EACCES));
	assert_string_equal(smf_error_phrase(-1500), "unknown error");
	assert_string_equal(smf_strerror(1500), "unknown error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_rows_whole),
	        cmocka_unit_test(test_words),
	        cmocka_unit_test(test_outside_the_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
