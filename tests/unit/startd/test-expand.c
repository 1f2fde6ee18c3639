/*
 * Unit tests of a method's token expansion (startd/expand.c), against a table of properties
 * instead of a repository: each token, the quoting of every shell metacharacter, multi-valued
 * properties and their separators, the three forms of a %{...} spec, and what is an error.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "expand.h"
#include "libscf.h"
#include "macro.h"
#include "strv.h"

typedef struct fake_prop {
	const char *entity; /* NULL: the instance */
	const char *pg, *prop;
	const char *values[4];
} fake_prop_t;

static const fake_prop_t props[] = {
        {NULL, "cfg", "cmd", {"/usr/bin/app"}},
        {NULL, "cfg", "multi", {"a", "b c", "d"}},
        {NULL, "cfg", "empty", {NULL}},
        {NULL, "cfg", "blank", {""}},
        {NULL, "cfg", "meta", {"x;y&z(1)|^<>\n \t\\\"'`$*"}},
        {NULL, "application", "bare", {"app-value"}},
        {"svc:/other/svc", "opts", "p", {"of-service"}},
        {"svc:/other/svc:inst", "opts", "p", {"of-instance", "two"}},
};

static int lookup(void *userdata, const expand_prop_t *p, char ***values, char **why)
{
	int *calls = userdata;

	(*calls)++;
	*why = NULL;
	for (size_t k = 0; k < ELEMENTSOF(props); k++) {
		const fake_prop_t *f = &props[k];

		if (!!f->entity != !!p->entity || (f->entity && !streq(f->entity, p->entity)) ||
		        !streq(f->pg, p->pg) || !streq(f->prop, p->prop))
			continue;
		/* an FMRI without an instance names the service itself */
		assert_int_equal(p->service, f->entity && !strchr(f->entity + 5, ':'));
		*values = strv_copy((char *const *)f->values);
		return *values ? 0 : -ENOMEM;
	}
	return -SCF_ERROR_NOT_FOUND;
}

static const expand_names_t names = {
        .fmri = "svc:/site/app:default",
        .service = "site/app",
        .instance = "default",
        .method = "start",
};

/* exec expanded; asserts success. */
static char *expand(const char *exec)
{
	char *out = NULL, *why = NULL;
	int calls = 0;
	int r = expand_method_tokens(exec, &names, lookup, &calls, &out, &why);

	if (r < 0)
		fail_msg("\"%s\": %d %s", exec, r, why ? why : "");
	assert_null(why);
	return out;
}

static void assert_expands(const char *exec, const char *want)
{
	_cleanup_free_ char *got = expand(exec);

	assert_string_equal(got, want);
}

/* exec refused; asserts the reason. */
static void assert_refused(const char *exec, const char *want_why)
{
	_cleanup_free_ char *why = NULL;
	char *out = NULL;
	int calls = 0;
	int r = expand_method_tokens(exec, &names, lookup, &calls, &out, &why);

	assert_true(r < 0);
	assert_null(out);
	assert_non_null(why);
	assert_string_equal(why, want_why);
}

static void test_letters(void **state)
{
	(void)state;
	assert_expands("%f %s %i %m %r", "svc:/site/app:default site/app default start svc.startd");
	assert_expands("100%% sure", "100% sure");
	assert_expands("a%%%%b", "a%%b");
	assert_expands("plain", "plain");
	assert_expands("", "");
	/* a '%' that ends the string is dropped, as illumos drops it */
	assert_expands("ends in %", "ends in ");
	/* values are not expanded again: a '%' in a value stays */
	assert_expands("x%sy", "xsite/appy");
}

static void test_props(void **state)
{
	(void)state;
	assert_expands("%{cfg/cmd} -l", "/usr/bin/app -l");
	assert_expands("[%{cfg/multi}]", "[a b\\ c d]");
	assert_expands("[%{cfg/multi,}]", "[a,b\\ c,d]");
	assert_expands("[%{cfg/multi:}]", "[a:b\\ c:d]");
	assert_expands("[%{cfg/empty}]", "[]");
	assert_expands("[%{cfg/blank}]", "[]");
	/* a property name alone is in pg "application" */
	assert_expands("%{bare}", "app-value");
	/* a property FMRI: another service's own pg, another instance's */
	assert_expands("%{svc:/other/svc/:properties/opts/p}", "of-service");
	assert_expands("%{svc:/other/svc:inst/:properties/opts/p,}", "of-instance,two");
}

static void test_quoting(void **state)
{
	(void)state;
	/* every metacharacter of illumos' set gets a backslash; '$' and '*' are not in it */
	assert_expands("%{cfg/meta}", "x\\;y\\&z\\(1\\)\\|\\^\\<\\>\\\n\\ \\\t\\\\\\\"\\'\\`$*");

	_cleanup_free_ char *q = expand_quote("");
	assert_string_equal(q, "");
}

static void test_errors(void **state)
{
	(void)state;
	assert_refused("%{cfg/nope} -x", "property \"cfg/nope\" not found");
	assert_refused("%{nope,}", "property \"nope\" not found");
	assert_refused("%{cfg/cmd", "parse error");
	assert_refused("%q", "unknown method token");
	assert_refused("%{svc:/other/svc/:properties/opts}", "parse error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_letters),
	        cmocka_unit_test(test_props),
	        cmocka_unit_test(test_quoting),
	        cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
