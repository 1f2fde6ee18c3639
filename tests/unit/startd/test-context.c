/*
 * Unit tests of illumos privilege sets read as Linux capabilities (startd/context.c,
 * privileges_to_caps()): the mapping, the set names, removal, and what is refused.
 */
#include <errno.h>
#include <linux/capability.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "context.h"

#define CAP(c) (UINT64_C(1) << (c))

static uint64_t caps_of(const char *set)
{
	const char *bad = NULL;
	uint64_t caps = 0;

	if (privileges_to_caps(set, &caps, &bad) < 0)
		fail_msg("\"%s\" refused at \"%s\"", set, bad ? bad : "?");
	return caps;
}

static void assert_refused(const char *set, const char *want_bad)
{
	const char *bad = NULL;
	uint64_t caps;

	assert_int_equal(privileges_to_caps(set, &caps, &bad), -EINVAL);
	assert_non_null(bad);
	assert_string_equal(bad, want_bad);
}

static void test_mapping(void **state)
{
	(void)state;
	assert_int_equal(caps_of("basic"), 0);
	assert_int_equal(caps_of(""), 0);
	assert_int_equal(caps_of("none"), 0);
	assert_int_equal(caps_of("basic,file_dac_write"), CAP(CAP_DAC_OVERRIDE));
	assert_int_equal(caps_of("basic,file_dac_write,file_dac_search"),
	        CAP(CAP_DAC_OVERRIDE) | CAP(CAP_DAC_READ_SEARCH));
	assert_int_equal(caps_of("net_privaddr"), CAP(CAP_NET_BIND_SERVICE));
	assert_int_equal(caps_of("proc_setid"), CAP(CAP_SETUID) | CAP(CAP_SETGID));
	assert_int_equal(
	        caps_of("basic,sys_devices,sys_mount"), CAP(CAP_MKNOD) | CAP(CAP_SYS_ADMIN));
	/* names are case-insensitive, as illumos' priv_getbyname() */
	assert_int_equal(caps_of("FILE_OWNER"), CAP(CAP_FOWNER));
	/* the basic members need no capability */
	assert_int_equal(caps_of("proc_fork,proc_exec,file_read"), 0);
}

static void test_sets_and_removal(void **state)
{
	(void)state;
	assert_int_equal(caps_of("all"), ~UINT64_C(0));
	assert_int_equal(caps_of("zone"), ~UINT64_C(0));
	assert_int_equal(caps_of("all,!sys_time"), ~CAP(CAP_SYS_TIME));
	assert_int_equal(caps_of("zone,-proc_setid"), ~(CAP(CAP_SETUID) | CAP(CAP_SETGID)));
	assert_int_equal(caps_of("file_owner,!all"), 0);
	/* left to right: a later grant comes back */
	assert_int_equal(caps_of("all,!sys_time,sys_time"), ~UINT64_C(0));
}

static void test_refused(void **state)
{
	(void)state;
	assert_refused("basic,winged_flying_lemurs", "winged_flying_lemurs");
	assert_refused("basic,dtrace_kernel", "dtrace_kernel");
	assert_refused("basic,!proc_fork", "proc_fork");
	assert_refused("basic,sys_devices,!file_link_any,!proc_session", "file_link_any");
	assert_refused("!basic", "basic");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_mapping),
	        cmocka_unit_test(test_sets_and_removal),
	        cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
