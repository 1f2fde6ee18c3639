/*
 * test-fmri.c: FMRI parsing, formatting, canonical forms and illumos abbreviation matching.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libscf.h"
#include "macro.h"
#include "model.h"

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);
	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static bool streq_or_null(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void assert_streq_or_null(const char *a, const char *b)
{
	if (!b)
		assert_null(a);
	else
		assert_string_equal(a, b);
}

/* Table rows name themselves only when they fail, so a passing run stays quiet. */
#define CHECK_ROW(cond, ...)                                                                       \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			print_error(__VA_ARGS__);                                                  \
			fail();                                                                    \
		}                                                                                  \
	} while (0)

/* ---- parse -------------------------------------------------------------------------------- */

static const struct {
	const char *in;
	const char *scope, *service, *instance, *pg, *prop;
	const char *canonical;
} good[] = {
        {"svc:/network/ssh", NULL, "network/ssh", NULL, NULL, NULL, "svc:/network/ssh"},
        {"svc:/network/ssh:default", NULL, "network/ssh", "default", NULL, NULL,
                "svc:/network/ssh:default"},
        {"network/ssh:default", NULL, "network/ssh", "default", NULL, NULL,
                "svc:/network/ssh:default"},
        {"/network/ssh:default", NULL, "network/ssh", "default", NULL, NULL,
                "svc:/network/ssh:default"},
        {"svc:network/ssh", NULL, "network/ssh", NULL, NULL, NULL, "svc:/network/ssh"},
        {"svc://localhost/network/ssh:default", "localhost", "network/ssh", "default", NULL, NULL,
                "svc:/network/ssh:default"},
        {"svc:///system/console-login:vt2", "localhost", "system/console-login", "vt2", NULL, NULL,
                "svc:/system/console-login:vt2"},
        {"svc:/network/ssh:default/:properties/general", NULL, "network/ssh", "default", "general",
                NULL, "svc:/network/ssh:default/:properties/general"},
        {"svc:/network/ssh:default/:properties/general/enabled", NULL, "network/ssh", "default",
                "general", "enabled", "svc:/network/ssh:default/:properties/general/enabled"},
        {"svc:/network/ssh/:properties/start/exec", NULL, "network/ssh", NULL, "start", "exec",
                "svc:/network/ssh/:properties/start/exec"},
        {"smtp", NULL, "smtp", NULL, NULL, NULL, "svc:/smtp"},
        {"svc:/SUNW,foo/com.example,bar_baz-2:inst_1", NULL, "SUNW,foo/com.example,bar_baz-2",
                "inst_1", NULL, NULL, "svc:/SUNW,foo/com.example,bar_baz-2:inst_1"},
        {"svc:/a/:properties/_p.x/SUNW,v-1", NULL, "a", NULL, "_p.x", "SUNW,v-1",
                "svc:/a/:properties/_p.x/SUNW,v-1"},
        {"svc:/system/early-manifest-import:default", NULL, "system/early-manifest-import",
                "default", NULL, NULL, "svc:/system/early-manifest-import:default"},
};

static void test_parse_good(void **state)
{
	for (size_t i = 0; i < ELEMENTSOF(good); i++) {
		scf_fmri_t f = {0};
		char *c = NULL;

		CHECK_ROW(scf_fmri_parse(good[i].in, &f) == 0, "parse %s failed\n", good[i].in);
		CHECK_ROW(streq_or_null(f.scope, good[i].scope) &&
		                streq_or_null(f.service, good[i].service) &&
		                streq_or_null(f.instance, good[i].instance) &&
		                streq_or_null(f.pg, good[i].pg) &&
		                streq_or_null(f.prop, good[i].prop),
		        "parse %s: wrong fields\n", good[i].in);

		assert_int_equal(scf_fmri_format(&f, &c), 0);
		assert_string_equal(c, good[i].canonical);
		free(c);

		scf_fmri_clear(&f);
		assert_null(f.service);
		assert_null(f.instance);

		assert_int_equal(scf_fmri_canonicalize(good[i].in, &c), 0);
		assert_string_equal(c, good[i].canonical);
		/* the canonical form is a fixed point */
		{
			char *again = NULL;
			assert_int_equal(scf_fmri_canonicalize(c, &again), 0);
			assert_string_equal(again, c);
			free(again);
		}
		free(c);
	}
}

static const char *const bad[] = {
        "",
        "svc:",
        "svc:/",
        "svc://localhost",
        "svc://localhost/",
        "svc://otherhost/network/ssh",
        "svc:/network/ssh:",
        "svc:/network//ssh",
        "svc:/network/ssh/",
        "svc:/1network/ssh",
        "svc:/network/ssh:1default",
        "svc:/network/ssh:def/ault",
        "svc:/network/ssh:a:b",
        "svc:/net work/ssh",
        "svc:/network/s*h",
        "svc:/network/ssh:default/:properties/",
        "svc:/network/ssh:default/:properties/general/",
        "svc:/network/ssh:default/:properties/general/a/b",
        "svc:/network/ssh:default/:properties/gen:eral",
        "svc:/network/ssh/:properties",
        "svc:/-x",
        "svc:/x,",
        "svc:/,x",
        "svc:/a.b",
        "svc:/1SUNW,x",
        "file://localhost/etc/hosts",
        "lrc:/etc/rc2.d/S99foo",
        ":default",
};

static void test_parse_bad(void **state)
{
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		scf_fmri_t f = {0};
		char *c = NULL;

		CHECK_ROW(scf_fmri_parse(bad[i], &f) == -SCF_ERROR_INVALID_ARGUMENT,
		        "\"%s\" was not refused as invalid\n", bad[i]);
		assert_null(f.service);
		assert_int_equal(scf_fmri_canonicalize(bad[i], &c), -SCF_ERROR_INVALID_ARGUMENT);
		assert_null(c);
	}
	assert_int_equal(scf_fmri_parse(NULL, &(scf_fmri_t){0}), -SCF_ERROR_INVALID_ARGUMENT);
}

static void test_parse_limits(void **state)
{
	_cleanup_free_ char *c119 = repeat('c', SCF_LIMIT_MAX_NAME_LENGTH);
	_cleanup_free_ char *c120 = repeat('c', SCF_LIMIT_MAX_NAME_LENGTH + 1);
	_cleanup_free_ char *s = NULL, *canon = NULL, *huge = NULL;
	scf_fmri_t f = {0};

	/* a component, an instance, a pg and a property of exactly the limit are fine */
	assert_true(asprintf(&s, "svc:/a/%s:%s/:properties/%s/%s", c119, c119, c119, c119) > 0);
	assert_int_equal(scf_fmri_parse(s, &f), 0);
	assert_int_equal(strlen(f.service), 2 + SCF_LIMIT_MAX_NAME_LENGTH);
	scf_fmri_clear(&f);
	free(s);

	/* one byte more in any of them is a constraint violation, not a syntax error */
	static const struct {
		const char *before, *after;
	} around[] = {{"svc:/", ""}, {"svc:/a/", "/b"}, {"svc:/a:", ""},
	        {"svc:/a/:properties/", ""}, {"svc:/a/:properties/g/", ""}};
	for (size_t i = 0; i < ELEMENTSOF(around); i++) {
		s = NULL;
		assert_true(asprintf(&s, "%s%s%s", around[i].before, c120, around[i].after) > 0);
		CHECK_ROW(scf_fmri_parse(s, &f) == -SCF_ERROR_CONSTRAINT_VIOLATED,
		        "%s<120 bytes>%s not a constraint violation\n", around[i].before,
		        around[i].after);
		assert_int_equal(scf_fmri_canonicalize(s, &canon), -SCF_ERROR_CONSTRAINT_VIOLATED);
		free(s);
	}
	s = NULL;

	/* the whole FMRI: 628 bytes pass, 629 do not */
	huge = malloc(SCF_LIMIT_MAX_FMRI_LENGTH + 2);
	assert_non_null(huge);
	strcpy(huge, "svc:/");
	while (strlen(huge) + 2 + 100 <= SCF_LIMIT_MAX_FMRI_LENGTH)
		strcat(huge,
		        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		        "aaaaaaaaaaaaaaaaaaaaaaaaa/");
	while (strlen(huge) < SCF_LIMIT_MAX_FMRI_LENGTH)
		strcat(huge, "b");
	assert_int_equal(strlen(huge), SCF_LIMIT_MAX_FMRI_LENGTH);
	assert_int_equal(scf_fmri_parse(huge, &f), 0);
	scf_fmri_clear(&f);
	strcat(huge, "b");
	assert_int_equal(scf_fmri_parse(huge, &f), -SCF_ERROR_CONSTRAINT_VIOLATED);
}

static void test_format(void **state)
{
	char *s = NULL;

	assert_int_equal(scf_fmri_format(&(scf_fmri_t){.service = "a/b"}, &s), 0);
	assert_string_equal(s, "svc:/a/b");
	free(s);
	/* the scope is never printed: there is only one */
	assert_int_equal(scf_fmri_format(&(scf_fmri_t){.scope = "localhost",
	                                         .service = "a",
	                                         .instance = "i",
	                                         .pg = "g",
	                                         .prop = "p"},
	                         &s),
	        0);
	assert_string_equal(s, "svc:/a:i/:properties/g/p");
	free(s);

	assert_int_equal(scf_fmri_format(&(scf_fmri_t){0}, &s), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(
	        scf_fmri_format(&(scf_fmri_t){.service = ""}, &s), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(scf_fmri_format(&(scf_fmri_t){.service = "a", .prop = "p"}, &s),
	        -SCF_ERROR_INVALID_ARGUMENT);
	scf_fmri_clear(NULL); /* harmless */
}

/* The entity form is scf_fmri_format() of a service and instance, but for the length limit. */
static void test_format_entity(void **state)
{
	char *s = NULL, *t = NULL, name[SCF_LIMIT_MAX_FMRI_LENGTH];
	scf_fmri_t f = {0};

	assert_int_equal(scf_fmri_format_entity("network/ssh", NULL, &s), 0);
	assert_string_equal(s, "svc:/network/ssh");
	free(s);
	assert_int_equal(scf_fmri_format_entity("network/ssh", "default", &s), 0);
	assert_string_equal(s, "svc:/network/ssh:default");
	assert_int_equal(scf_fmri_canonicalize(s, &t), 0);
	assert_string_equal(s, t);
	free(s);
	free(t);

	assert_int_equal(scf_fmri_format_entity(NULL, "i", &s), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(scf_fmri_format_entity("", NULL, &s), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(scf_fmri_format_entity("a", NULL, NULL), -SCF_ERROR_INVALID_ARGUMENT);

	/*
	 * Past 628 bytes scf_fmri_format() refuses; the entity form hands the FMRI on, for its
	 * reader to refuse naming it.
	 */
	memset(name, 'a', sizeof(name));
	name[SCF_LIMIT_MAX_FMRI_LENGTH - strlen("svc:/") - 2] = 0;
	assert_int_equal(scf_fmri_format(&(scf_fmri_t){.service = name, .instance = "ab"}, &s),
	        -SCF_ERROR_CONSTRAINT_VIOLATED);
	assert_int_equal(scf_fmri_format_entity(name, "ab", &s), 0);
	assert_int_equal(strlen(s), SCF_LIMIT_MAX_FMRI_LENGTH + 1);
	assert_int_equal(scf_fmri_parse(s, &f), -SCF_ERROR_CONSTRAINT_VIOLATED);
	free(s);
}

static void test_classify(void **state)
{
	static const struct {
		const char *in;
		int kind;
		const char *entity;
	} t[] = {
	        {"svc:/a/b", SMF_FMRI_SERVICE, "svc:/a/b"},
	        {"a/b:c", SMF_FMRI_INSTANCE, "svc:/a/b:c"},
	        {"svc://localhost/a:c/:properties/g", SMF_FMRI_PG, "svc:/a:c"},
	        {"svc:/a/:properties/g/p", SMF_FMRI_PROPERTY, "svc:/a"},
	        {"svc:/1", -SCF_ERROR_INVALID_ARGUMENT, NULL},
	};

	for (size_t i = 0; i < ELEMENTSOF(t); i++) {
		char *e = NULL;
		assert_int_equal(smf_fmri_classify(t[i].in, &e), t[i].kind);
		assert_streq_or_null(e, t[i].entity);
		free(e);
		assert_int_equal(smf_fmri_classify(t[i].in, NULL), t[i].kind);
	}
}

/* ---- abbreviations ------------------------------------------------------------------------ */

static const struct {
	const char *pattern, *fmri;
	bool match;
} abbrevs[] = {
        /* the illumos examples */
        {"smtp:sendmail", "svc:/network/smtp:sendmail", true},
        {"smtp", "svc:/network/smtp:sendmail", true},
        {"sendmail", "svc:/network/smtp:sendmail", true},
        {"network/*mail", "svc:/network/smtp:sendmail", true},
        {"svc:/network/smtp", "svc:/network/smtp:sendmail", true},
        {"network/smtp:sendmail", "svc:/network/smtp:sendmail", true},
        {"svc:/network/smtp:sendmail", "svc:/network/smtp:sendmail", true},
        {"tp", "svc:/network/smtp:sendmail", false},
        {"work/smtp", "svc:/network/smtp:sendmail", false},
        {"svc:/smtp", "svc:/network/smtp:sendmail", false},

        /* whole components only, at both ends */
        {"network", "svc:/network/smtp:sendmail", false},
        {"smt", "svc:/network/smtp:sendmail", false},
        {"mail", "svc:/network/smtp:sendmail", false},
        {"smtp:send", "svc:/network/smtp:sendmail", false},
        {"network/smtp", "svc:/network/smtp:sendmail", true},
        {"/network/smtp", "svc:/network/smtp:sendmail", true},
        {":sendmail", "svc:/network/smtp:sendmail", true},
        {"smtp:", "svc:/network/smtp:sendmail", true},
        {"svc", "svc:/network/smtp:sendmail", false},
        {"svc:", "svc:/network/smtp:sendmail", false},
        {"", "svc:/network/smtp:sendmail", false},
        /* every occurrence is tried, not only the first (illumos' strstr quirk) */
        {"ssh", "svc:/network/sshx/ssh:default", true},

        /* full FMRIs in other spellings */
        {"svc://localhost/network/smtp:sendmail", "svc:/network/smtp:sendmail", true},
        {"svc:///network/smtp", "svc:/network/smtp:sendmail", true},
        {"svc:/network/smtp:other", "svc:/network/smtp:sendmail", false},
        {"svc:/network/smtp:sendmail", "svc:/network/smtp", false},
        {"svc:/network/smtp:sendmail/:properties/general", "svc:/network/smtp:sendmail", false},

        /* services */
        {"smtp", "svc:/network/smtp", true},
        {"network/smtp", "svc:/network/smtp", true},
        {"svc:/network/smtp", "svc:/network/smtp", true},
        {"sendmail", "svc:/network/smtp", false},
        {"smtp:sendmail", "svc:/network/smtp", false},

        /* globs: illumos' whole-FMRI fnmatch, anchored at svc:/ */
        {"*mail", "svc:/network/smtp:sendmail", true},
        {"*", "svc:/network/smtp:sendmail", true},
        {"net*", "svc:/network/smtp:sendmail", true},
        {"svc:/net*/smtp:*", "svc:/network/smtp:sendmail", true},
        {"svc:/*ssh*", "svc:/network/smtp:sendmail", false},
        {"network/s?tp:sendmail", "svc:/network/smtp:sendmail", true},
        {"network/[st]mtp", "svc:/network/smtp", true},
        {"network/[xy]mtp", "svc:/network/smtp", false},
        /* globs: per-component suffix (beyond illumos) */
        {"smtp:*", "svc:/network/smtp:sendmail", true},
        {"s*:sendmail", "svc:/network/smtp:sendmail", true},
        {"s*", "svc:/network/smtp:sendmail", true},
        {"send*", "svc:/network/smtp:sendmail", true},
        {"*:sendmail", "svc:/network/smtp:sendmail", true},
        {":send*", "svc:/network/smtp:sendmail", true},
        {"smtp:x*", "svc:/network/smtp:sendmail", false},
        {"x*", "svc:/network/smtp:sendmail", false},
        {"/s*", "svc:/network/smtp:sendmail", false},
        {"/n*/s*", "svc:/network/smtp:sendmail", true},
        {"smtp:*", "svc:/network/smtp", false},
        {"work/s*", "svc:/network/smtp:sendmail", false},
};

static void test_abbrev(void **state)
{
	for (size_t i = 0; i < ELEMENTSOF(abbrevs); i++) {
		CHECK_ROW(scf_fmri_abbrev_match(abbrevs[i].pattern, abbrevs[i].fmri) ==
		                abbrevs[i].match,
		        "\"%s\" should %smatch %s\n", abbrevs[i].pattern,
		        abbrevs[i].match ? "" : "not ", abbrevs[i].fmri);
	}
	assert_false(scf_fmri_abbrev_match(NULL, "svc:/a"));
	assert_false(scf_fmri_abbrev_match("a", NULL));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_parse_good),
	        cmocka_unit_test(test_parse_bad),
	        cmocka_unit_test(test_parse_limits),
	        cmocka_unit_test(test_format),
	        cmocka_unit_test(test_format_entity),
	        cmocka_unit_test(test_classify),
	        cmocka_unit_test(test_abbrev),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
