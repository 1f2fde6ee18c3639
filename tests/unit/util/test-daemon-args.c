/*
 * test-daemon-args: the daemons' command line (lib/util/daemon.c), with the second flag of
 * their own that svc.configd's --eager needs beside --native.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include <cmocka.h>

#include "daemon.h"
#include "macro.h"

static const daemon_args_spec_t two = {
        .program = "svc.test",
        .description = "a test",
        .flag_name = "native",
        .flag_short = 'n',
        .flag_help = "first",
        .flag2_name = "eager",
        .flag2_short = 'e',
        .flag2_help = "second",
};
static const daemon_args_spec_t one = {
        .program = "svc.test",
        .description = "a test",
        .flag_name = "native",
        .flag_short = 'n',
        .flag_help = "first",
};
static const daemon_args_spec_t none = {.program = "svc.test", .description = "a test"};

/* Parses argv (NULL-terminated) with spec; getopt starts over each time. */
static int parse(const daemon_args_spec_t *spec, char **argv, daemon_args_t *a)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	optind = 0;
	opterr = 0;
	return daemon_parse_args(spec, argc, argv, a);
}

static void test_flags(void **state)
{
	daemon_args_t a;

	(void)state;
	assert_int_equal(parse(&two, (char *[]){"x", "--root", "/r", NULL}, &a), 1);
	assert_string_equal(a.root, "/r");
	assert_false(a.flag || a.flag2);
	assert_int_equal(parse(&two, (char *[]){"x", "--eager", NULL}, &a), 1);
	assert_true(!a.flag && a.flag2);
	assert_int_equal(parse(&two, (char *[]){"x", "-n", "-e", NULL}, &a), 1);
	assert_true(a.flag && a.flag2);
	assert_int_equal(parse(&two, (char *[]){"x", "--native", NULL}, &a), 1);
	assert_true(a.flag && !a.flag2);
	/* A spec without the second flag refuses it; one without flags refuses both. */
	assert_int_equal(parse(&one, (char *[]){"x", "--native", NULL}, &a), 1);
	assert_true(a.flag);
	assert_int_equal(parse(&one, (char *[]){"x", "--eager", NULL}, &a), -EINVAL);
	assert_int_equal(parse(&one, (char *[]){"x", "-e", NULL}, &a), -EINVAL);
	assert_int_equal(parse(&none, (char *[]){"x", "--native", NULL}, &a), -EINVAL);
	assert_int_equal(parse(&none, (char *[]){"x", "-r", "/q", NULL}, &a), 1);
	assert_string_equal(a.root, "/q");
	assert_int_equal(parse(&two, (char *[]){"x", "stray", NULL}, &a), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_flags),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
