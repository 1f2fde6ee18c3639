/*
 * test-name.c: pg/property names (libscf.h's rule) and entity names (illumos' rule).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libscf.h"
#include "macro.h"
#include "model.h"

#define CHECK_ROW(cond, ...)                                                                       \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			print_error(__VA_ARGS__);                                                  \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);
	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static const struct {
	const char *name;
	int pg_rule;     /* scf_name_validate() */
	int entity_rule; /* smf_instance_name_validate() */
} names[] = {
        {"general", 0, 0},
        {"general_ovr", 0, 0},
        {"restarter_actions", 0, 0},
        {"start", 0, 0},
        {"a", 0, 0},
        {"A9-_x", 0, 0},
        {"SUNW,foo", 0, 0},
        {"com.example,bar", 0, 0},
        {"vt2", 0, 0},
        {"_private", 0, -SCF_ERROR_INVALID_ARGUMENT},
        {"tm_man.1", 0, -SCF_ERROR_INVALID_ARGUMENT},
        {"a.b.c", 0, -SCF_ERROR_INVALID_ARGUMENT},
        {"", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"1abc", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"-abc", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {".abc", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"a b", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"a/b", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"a:b", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"a*", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"a,b,c", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {",b", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"a,", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"1SUNW,b", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"SUNW,1b", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
        {"caf\xc3\xa9", -SCF_ERROR_INVALID_ARGUMENT, -SCF_ERROR_INVALID_ARGUMENT},
};

static void test_names(void **state)
{
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		int r = scf_name_validate(names[i].name);
		CHECK_ROW(r == names[i].pg_rule, "scf_name_validate(\"%s\") = %d, want %d\n",
		        names[i].name, r, names[i].pg_rule);
		r = smf_instance_name_validate(names[i].name);
		CHECK_ROW(r == names[i].entity_rule,
		        "smf_instance_name_validate(\"%s\") = %d, want %d\n", names[i].name, r,
		        names[i].entity_rule);
	}
	assert_int_equal(scf_name_validate(NULL), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(smf_instance_name_validate(NULL), -SCF_ERROR_INVALID_ARGUMENT);
}

static void test_name_limits(void **state)
{
	_cleanup_free_ char *n119 = repeat('n', SCF_LIMIT_MAX_NAME_LENGTH);
	_cleanup_free_ char *n120 = repeat('n', SCF_LIMIT_MAX_NAME_LENGTH + 1);
	_cleanup_free_ char *bad120 = repeat('-', SCF_LIMIT_MAX_NAME_LENGTH + 1);

	assert_int_equal(scf_name_validate(n119), 0);
	assert_int_equal(scf_name_validate(n120), -SCF_ERROR_CONSTRAINT_VIOLATED);
	assert_int_equal(smf_instance_name_validate(n119), 0);
	assert_int_equal(smf_instance_name_validate(n120), -SCF_ERROR_CONSTRAINT_VIOLATED);
	/* too long wins over malformed: the caller learns the limit first */
	assert_int_equal(scf_name_validate(bad120), -SCF_ERROR_CONSTRAINT_VIOLATED);

	/* counted forms look at n bytes only */
	assert_int_equal(smf_name_validate_n("general/enabled", 7), 0);
	assert_int_equal(smf_component_validate_n("ssh:default", 3), 0);
	assert_int_equal(smf_component_validate_n("ssh", 0), -SCF_ERROR_INVALID_ARGUMENT);
}

static void test_service_names(void **state)
{
	static const struct {
		const char *name;
		int r;
	} t[] = {
	        {"network/ssh", 0},
	        {"ssh", 0},
	        {"system/filesystem/local", 0},
	        {"SUNW,app/com.example,x-y_z", 0},
	        {"application/x11/x11-server", 0},
	        {"", -SCF_ERROR_INVALID_ARGUMENT},
	        {"/network/ssh", -SCF_ERROR_INVALID_ARGUMENT},
	        {"network/ssh/", -SCF_ERROR_INVALID_ARGUMENT},
	        {"network//ssh", -SCF_ERROR_INVALID_ARGUMENT},
	        {"network/ssh:default", -SCF_ERROR_INVALID_ARGUMENT},
	        {"network/1ssh", -SCF_ERROR_INVALID_ARGUMENT},
	        {"net.work/ssh", -SCF_ERROR_INVALID_ARGUMENT},
	};
	_cleanup_free_ char *long_component = NULL, *c = repeat('c', SCF_LIMIT_MAX_NAME_LENGTH + 1);

	for (size_t i = 0; i < ELEMENTSOF(t); i++) {
		int r = smf_service_name_validate(t[i].name);
		CHECK_ROW(r == t[i].r, "smf_service_name_validate(\"%s\") = %d, want %d\n",
		        t[i].name, r, t[i].r);
	}
	assert_int_equal(smf_service_name_validate(NULL), -SCF_ERROR_INVALID_ARGUMENT);
	assert_true(asprintf(&long_component, "network/%s/x", c) > 0);
	assert_int_equal(smf_service_name_validate(long_component), -SCF_ERROR_CONSTRAINT_VIOLATED);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_names),
	        cmocka_unit_test(test_name_limits),
	        cmocka_unit_test(test_service_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
