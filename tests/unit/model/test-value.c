/*
 * test-value.c: the 14 value types: type names, what each accepts, canonical forms, limits.
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

#define BAD (-SCF_ERROR_INVALID_ARGUMENT)

static void test_type_names(void **state)
{
	static const char *const names[] = {"boolean", "count", "integer", "time", "astring",
	        "opaque", "ustring", "uri", "fmri", "host", "hostname", "net_address",
	        "net_address_v4", "net_address_v6"};

	assert_int_equal(ELEMENTSOF(names), _SCF_TYPE_MAX - 1);
	for (size_t i = 0; i < ELEMENTSOF(names); i++) {
		scf_type_t t = scf_string_to_type(names[i]);
		CHECK_ROW(t != SCF_TYPE_INVALID, "type %s unknown\n", names[i]);
		assert_string_equal(scf_type_to_string(t), names[i]);
	}
	assert_int_equal(scf_string_to_type("string"), SCF_TYPE_INVALID);
	assert_int_equal(scf_string_to_type("Boolean"), SCF_TYPE_INVALID);
	assert_int_equal(scf_string_to_type(""), SCF_TYPE_INVALID);
	assert_int_equal(scf_string_to_type(NULL), SCF_TYPE_INVALID);
	assert_null(scf_type_to_string(SCF_TYPE_INVALID));
	assert_null(scf_type_to_string(_SCF_TYPE_MAX));
	assert_null(scf_type_to_string((scf_type_t)-1));
}

/* canonical == NULL: the value is refused with the error r */
static const struct {
	scf_type_t type;
	const char *in;
	const char *canonical;
	int r;
} values[] = {
        {SCF_TYPE_BOOLEAN, "true", "true", 0},
        {SCF_TYPE_BOOLEAN, "t", "true", 0},
        {SCF_TYPE_BOOLEAN, "1", "true", 0},
        {SCF_TYPE_BOOLEAN, "false", "false", 0},
        {SCF_TYPE_BOOLEAN, "f", "false", 0},
        {SCF_TYPE_BOOLEAN, "0", "false", 0},
        {SCF_TYPE_BOOLEAN, "TRUE", NULL, BAD},
        {SCF_TYPE_BOOLEAN, "yes", NULL, BAD},
        {SCF_TYPE_BOOLEAN, "2", NULL, BAD},
        {SCF_TYPE_BOOLEAN, "", NULL, BAD},
        {SCF_TYPE_BOOLEAN, " true", NULL, BAD},

        {SCF_TYPE_COUNT, "0", "0", 0},
        {SCF_TYPE_COUNT, "42", "42", 0},
        {SCF_TYPE_COUNT, "+42", "42", 0},
        {SCF_TYPE_COUNT, "0x2A", "42", 0},
        {SCF_TYPE_COUNT, "052", "42", 0},
        {SCF_TYPE_COUNT, "00", "0", 0},
        {SCF_TYPE_COUNT, "18446744073709551615", "18446744073709551615", 0},
        {SCF_TYPE_COUNT, "0xffffffffffffffff", "18446744073709551615", 0},
        {SCF_TYPE_COUNT, "18446744073709551616", NULL, BAD},
        {SCF_TYPE_COUNT, "99999999999999999999999", NULL, BAD},
        {SCF_TYPE_COUNT, "-1", NULL, BAD},
        {SCF_TYPE_COUNT, "-0", NULL, BAD},
        {SCF_TYPE_COUNT, "", NULL, BAD},
        {SCF_TYPE_COUNT, " 1", NULL, BAD},
        {SCF_TYPE_COUNT, "1 ", NULL, BAD},
        {SCF_TYPE_COUNT, "1.5", NULL, BAD},
        {SCF_TYPE_COUNT, "0x", NULL, BAD},
        {SCF_TYPE_COUNT, "09", NULL, BAD},
        {SCF_TYPE_COUNT, "abc", NULL, BAD},
        {SCF_TYPE_COUNT, "+", NULL, BAD},

        {SCF_TYPE_INTEGER, "0", "0", 0},
        {SCF_TYPE_INTEGER, "-0", "0", 0},
        {SCF_TYPE_INTEGER, "-17", "-17", 0},
        {SCF_TYPE_INTEGER, "+17", "17", 0},
        {SCF_TYPE_INTEGER, "-0x10", "-16", 0},
        {SCF_TYPE_INTEGER, "007", "7", 0},
        {SCF_TYPE_INTEGER, "9223372036854775807", "9223372036854775807", 0},
        {SCF_TYPE_INTEGER, "-9223372036854775808", "-9223372036854775808", 0},
        {SCF_TYPE_INTEGER, "9223372036854775808", NULL, BAD},
        {SCF_TYPE_INTEGER, "-9223372036854775809", NULL, BAD},
        {SCF_TYPE_INTEGER, "18446744073709551615", NULL, BAD},
        {SCF_TYPE_INTEGER, "--1", NULL, BAD},
        {SCF_TYPE_INTEGER, "1e3", NULL, BAD},
        {SCF_TYPE_INTEGER, "", NULL, BAD},

        {SCF_TYPE_TIME, "0", "0", 0},
        {SCF_TYPE_TIME, "1700000000", "1700000000", 0},
        {SCF_TYPE_TIME, "1700000000.5", "1700000000.5", 0},
        {SCF_TYPE_TIME, "1700000000.500000000", "1700000000.5", 0},
        {SCF_TYPE_TIME, "1700000000.000000001", "1700000000.000000001", 0},
        {SCF_TYPE_TIME, "1700000000.000000000", "1700000000", 0},
        {SCF_TYPE_TIME, "1.010", "1.01", 0},
        {SCF_TYPE_TIME, "-5.25", "-5.25", 0},
        {SCF_TYPE_TIME, "+5", "5", 0},
        {SCF_TYPE_TIME, "0005", "5", 0},
        {SCF_TYPE_TIME, "1.", NULL, BAD},
        {SCF_TYPE_TIME, ".5", NULL, BAD},
        {SCF_TYPE_TIME, "1.1234567890", NULL, BAD},
        {SCF_TYPE_TIME, "1.-5", NULL, BAD},
        {SCF_TYPE_TIME, "1.5x", NULL, BAD},
        {SCF_TYPE_TIME, "1:00", NULL, BAD},
        {SCF_TYPE_TIME, "9223372036854775808", NULL, BAD},
        {SCF_TYPE_TIME, "", NULL, BAD},

        {SCF_TYPE_OPAQUE, "", "", 0},
        {SCF_TYPE_OPAQUE, "00ff", "00ff", 0},
        {SCF_TYPE_OPAQUE, "DEADbeef", "deadbeef", 0},
        {SCF_TYPE_OPAQUE, "abc", NULL, BAD},
        {SCF_TYPE_OPAQUE, "0g", NULL, BAD},
        {SCF_TYPE_OPAQUE, "0x00", NULL, BAD},
        {SCF_TYPE_OPAQUE, "00 ff", NULL, BAD},

        {SCF_TYPE_ASTRING, "", "", 0},
        {SCF_TYPE_ASTRING, "/usr/sbin/sshd -D", "/usr/sbin/sshd -D", 0},
        {SCF_TYPE_ASTRING, "tab\there \"quoted\" \\", "tab\there \"quoted\" \\", 0},
        {SCF_TYPE_ASTRING, "caf\xc3\xa9", "caf\xc3\xa9", 0},
        {SCF_TYPE_ASTRING, "bad \xff byte", NULL, BAD},

        {SCF_TYPE_USTRING, "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
                "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 0},
        {SCF_TYPE_USTRING, "", "", 0},
        {SCF_TYPE_USTRING, "\xc3", NULL, BAD},             /* truncated */
        {SCF_TYPE_USTRING, "\xc0\xaf", NULL, BAD},         /* overlong '/' */
        {SCF_TYPE_USTRING, "\xed\xa0\x80", NULL, BAD},     /* UTF-16 surrogate */
        {SCF_TYPE_USTRING, "\xf4\x90\x80\x80", NULL, BAD}, /* > U+10FFFF */
        {SCF_TYPE_USTRING, "\x80", NULL, BAD},             /* lone continuation */
        {SCF_TYPE_USTRING, "\xfe", NULL, BAD},

        {SCF_TYPE_URI, "http://www.illumos.org/", "http://www.illumos.org/", 0},
        {SCF_TYPE_URI, "http://example.com/a?b=c#d", "http://example.com/a?b=c#d", 0},
        {SCF_TYPE_URI, "mailto:root@localhost", "mailto:root@localhost", 0},
        {SCF_TYPE_URI, "file:///etc/hosts", "file:///etc/hosts", 0},
        {SCF_TYPE_URI, "relative/path", "relative/path", 0},
        {SCF_TYPE_URI, "man:sshd(8)", "man:sshd(8)", 0},
        {SCF_TYPE_URI, "http://example.com", NULL, BAD}, /* illumos: the path may not be empty */
        {SCF_TYPE_URI, "", NULL, BAD},
        {SCF_TYPE_URI, "?query", NULL, BAD},
        {SCF_TYPE_URI, "#frag", NULL, BAD},

        {SCF_TYPE_FMRI, "svc:/milestone/network:default", "svc:/milestone/network:default", 0},
        {SCF_TYPE_FMRI, "svc:/system/filesystem/local", "svc:/system/filesystem/local", 0},
        {SCF_TYPE_FMRI, "svc://localhost/network/ssh", "svc://localhost/network/ssh", 0},
        {SCF_TYPE_FMRI, "network/ssh:default", "network/ssh:default", 0},
        {SCF_TYPE_FMRI, "svc:/a:b/:properties/general/enabled",
                "svc:/a:b/:properties/general/enabled", 0},
        {SCF_TYPE_FMRI, "file://localhost/etc/inet/hosts", "file://localhost/etc/inet/hosts", 0},
        {SCF_TYPE_FMRI, "file:///etc/hosts", "file:///etc/hosts", 0},
        {SCF_TYPE_FMRI, "file:/etc/hosts", "file:/etc/hosts", 0},
        {SCF_TYPE_FMRI, "lrc:/etc/rc2_d/S99foo", "lrc:/etc/rc2_d/S99foo", 0},
        {SCF_TYPE_FMRI, "file://otherhost/etc/hosts", NULL, BAD},
        {SCF_TYPE_FMRI, "file:etc/hosts", NULL, BAD},
        {SCF_TYPE_FMRI, "file:///", NULL, BAD},
        {SCF_TYPE_FMRI, "lrc:", NULL, BAD},
        {SCF_TYPE_FMRI, "svc:/", NULL, BAD},
        {SCF_TYPE_FMRI, "svc:/1bad", NULL, BAD},
        {SCF_TYPE_FMRI, "http://example.com/", NULL, BAD},
        {SCF_TYPE_FMRI, "", NULL, BAD},

        {SCF_TYPE_HOSTNAME, "localhost", "localhost", 0},
        {SCF_TYPE_HOSTNAME, "www.illumos.org", "www.illumos.org", 0},
        {SCF_TYPE_HOSTNAME, "www.illumos.org.", "www.illumos.org.", 0},
        {SCF_TYPE_HOSTNAME, "3com.example", "3com.example", 0}, /* RFC 1123: digits may lead */
        {SCF_TYPE_HOSTNAME, "a-b.c-d", "a-b.c-d", 0},
        {SCF_TYPE_HOSTNAME, "-ab.example", NULL, BAD},
        {SCF_TYPE_HOSTNAME, "ab-.example", NULL, BAD},
        {SCF_TYPE_HOSTNAME, "a..b", NULL, BAD},
        {SCF_TYPE_HOSTNAME, ".a", NULL, BAD},
        {SCF_TYPE_HOSTNAME, "a_b", NULL, BAD},
        {SCF_TYPE_HOSTNAME, "a b", NULL, BAD},
        {SCF_TYPE_HOSTNAME, "::1", NULL, BAD},
        {SCF_TYPE_HOSTNAME, ".", NULL, BAD},
        {SCF_TYPE_HOSTNAME, "", NULL, BAD},

        {SCF_TYPE_NET_ADDR_V4, "127.0.0.1", "127.0.0.1", 0},
        {SCF_TYPE_NET_ADDR_V4, "10.0.0.0/8", "10.0.0.0/8", 0},
        {SCF_TYPE_NET_ADDR_V4, "0.0.0.0/0", "0.0.0.0/0", 0},
        {SCF_TYPE_NET_ADDR_V4, "192.168.1.1/32", "192.168.1.1/32", 0},
        {SCF_TYPE_NET_ADDR_V4, "192.168.1.1/33", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V4, "192.168.1.1/", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V4, "192.168.1.1/08", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V4, "192.168.1.1/-1", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V4, "256.0.0.1", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V4, "1.2.3", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V4, "1.2.3.4.5", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V4, "::1", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V4, "localhost", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V4, "", NULL, BAD},

        {SCF_TYPE_NET_ADDR_V6, "::1", "::1", 0},
        {SCF_TYPE_NET_ADDR_V6, "::", "::", 0},
        {SCF_TYPE_NET_ADDR_V6, "fe80::1/64", "fe80::1/64", 0},
        {SCF_TYPE_NET_ADDR_V6, "2001:DB8::1/128", "2001:DB8::1/128", 0},
        {SCF_TYPE_NET_ADDR_V6, "::ffff:10.0.0.1", "::ffff:10.0.0.1", 0},
        {SCF_TYPE_NET_ADDR_V6, "2001:db8::1/129", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V6, "2001:db8:::1", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V6, "2001:db8::g", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V6, "10.0.0.1", NULL, BAD},
        {SCF_TYPE_NET_ADDR_V6, "", NULL, BAD},

        {SCF_TYPE_NET_ADDR, "10.0.0.1/24", "10.0.0.1/24", 0},
        {SCF_TYPE_NET_ADDR, "fe80::1/10", "fe80::1/10", 0},
        {SCF_TYPE_NET_ADDR, "localhost", NULL, BAD},
        {SCF_TYPE_NET_ADDR, "10.0.0.1/99", NULL, BAD},

        {SCF_TYPE_HOST, "localhost", "localhost", 0},
        {SCF_TYPE_HOST, "mail.example.com", "mail.example.com", 0},
        {SCF_TYPE_HOST, "10.0.0.1", "10.0.0.1", 0},
        {SCF_TYPE_HOST, "::1", "::1", 0},
        {SCF_TYPE_HOST, "10.0.0.0/8", "10.0.0.0/8", 0},
        {SCF_TYPE_HOST, "bad_host", NULL, BAD},
        {SCF_TYPE_HOST, "", NULL, BAD},
};

static void test_values(void **state)
{
	for (size_t i = 0; i < ELEMENTSOF(values); i++) {
		const char *tn = scf_type_to_string(values[i].type);
		char *c = (char *)"untouched";
		int r = scf_value_normalize(values[i].type, values[i].in, &c);

		CHECK_ROW(r == values[i].r, "%s \"%s\": %d, want %d\n", tn, values[i].in, r,
		        values[i].r);
		if (values[i].canonical) {
			CHECK_ROW(c && strcmp(c, values[i].canonical) == 0,
			        "%s \"%s\": canonical \"%s\", want \"%s\"\n", tn, values[i].in,
			        c ? c : "(null)", values[i].canonical);
			/* the canonical form is a fixed point */
			char *again = NULL;
			CHECK_ROW(scf_value_normalize(values[i].type, c, &again) == 0 &&
			                strcmp(again, c) == 0,
			        "%s \"%s\": canonical form not stable\n", tn, c);
			free(again);
			free(c);
		} else {
			CHECK_ROW(c == NULL, "%s \"%s\": *ret not NULL on failure\n", tn,
			        values[i].in);
		}
		/* the check alone agrees with the check and the conversion */
		CHECK_ROW(scf_value_normalize(values[i].type, values[i].in, NULL) == values[i].r,
		        "%s \"%s\": check-only answer differs\n", tn, values[i].in);
	}
}

static char *repeat(char c, size_t n)
{
	char *s = malloc(n + 1);
	assert_non_null(s);
	memset(s, c, n);
	s[n] = '\0';
	return s;
}

static void test_limits(void **state)
{
	_cleanup_free_ char *max = repeat('a', SCF_LIMIT_MAX_VALUE_LENGTH);
	_cleanup_free_ char *over = repeat('a', SCF_LIMIT_MAX_VALUE_LENGTH + 1);
	_cleanup_free_ char *hex_max = repeat('f', SCF_LIMIT_MAX_VALUE_LENGTH - 1);
	_cleanup_free_ char *hex_over = repeat('f', SCF_LIMIT_MAX_VALUE_LENGTH + 1);
	_cleanup_free_ char *digits_over = repeat('1', SCF_LIMIT_MAX_VALUE_LENGTH + 1);
	char *c = NULL;

	assert_int_equal(scf_value_normalize(SCF_TYPE_ASTRING, max, &c), 0);
	assert_int_equal(strlen(c), SCF_LIMIT_MAX_VALUE_LENGTH);
	free(c);
	assert_int_equal(scf_value_normalize(SCF_TYPE_USTRING, max, NULL), 0);
	assert_int_equal(scf_value_normalize(SCF_TYPE_OPAQUE, hex_max, NULL), 0);

	/* every type refuses a value over the limit as a constraint violation */
	for (int t = SCF_TYPE_BOOLEAN; t < _SCF_TYPE_MAX; t++) {
		int r = scf_value_normalize((scf_type_t)t, over, &c);
		CHECK_ROW(r == -SCF_ERROR_CONSTRAINT_VIOLATED, "%s: over-long value gave %d\n",
		        scf_type_to_string((scf_type_t)t), r);
		assert_null(c);
	}
	assert_int_equal(scf_value_normalize(SCF_TYPE_OPAQUE, hex_over, NULL),
	        -SCF_ERROR_CONSTRAINT_VIOLATED);
	assert_int_equal(scf_value_normalize(SCF_TYPE_COUNT, digits_over, NULL),
	        -SCF_ERROR_CONSTRAINT_VIOLATED);

	/* hostname: 63-byte labels and 253 bytes in all */
	_cleanup_free_ char *l63 = repeat('h', 63), *l64 = repeat('h', 64);
	assert_true(smf_hostname_valid(l63));
	assert_false(smf_hostname_valid(l64));
	char name[300];
	snprintf(name, sizeof(name), "%s.%s.%s.%.61s", l63, l63, l63, l63); /* 253 */
	assert_int_equal(strlen(name), 253);
	assert_true(smf_hostname_valid(name));
	strcat(name, "h");
	assert_false(smf_hostname_valid(name));
}

static void test_bad_arguments(void **state)
{
	char *c = NULL;

	assert_int_equal(scf_value_normalize(SCF_TYPE_INVALID, "1", &c), BAD);
	assert_int_equal(scf_value_normalize(_SCF_TYPE_MAX, "1", &c), BAD);
	assert_int_equal(scf_value_normalize(SCF_TYPE_ASTRING, NULL, &c), BAD);
	assert_null(c);
}

static void test_parse_helpers(void **state)
{
	bool b = false;
	uint64_t u = 0;
	int64_t i = 0, sec = 0;
	uint32_t ns = 1;

	assert_int_equal(smf_value_parse_boolean("t", &b), 0);
	assert_true(b);
	assert_int_equal(smf_value_parse_boolean("nope", &b), BAD);
	assert_int_equal(smf_value_parse_count("18446744073709551615", &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(smf_value_parse_count("-1", &u), BAD);
	assert_int_equal(smf_value_parse_integer("-9223372036854775808", &i), 0);
	assert_true(i == INT64_MIN);
	assert_int_equal(smf_value_parse_time("12.5", &sec, &ns), 0);
	assert_true(sec == 12);
	assert_int_equal(ns, 500000000);
	assert_int_equal(smf_value_parse_time("12", &sec, &ns), 0);
	assert_int_equal(ns, 0);
}

/*
 * Issue 18: no value holds a character XML 1.0 cannot carry (a C0 control but TAB, LF, CR;
 * U+FFFE, U+FFFF) or D-Bus does not (the noncharacters), whatever its type, so every stored
 * value exports and imports back; every other character a string type may hold is kept.
 */
static void test_control_characters(void **state)
{
	static const scf_type_t strings[] = {SCF_TYPE_ASTRING, SCF_TYPE_USTRING};
	static const char *const kept[] = {"\t", "\n", "\r", "\177", "\302\200", "\302\237",
	        "\357\277\275", "\357\267\217", "\357\267\260", "\364\217\277\275"};
	char buf[16], why[80];

	for (size_t t = 0; t < ELEMENTSOF(strings); t++) {
		for (int c = 1; c < 0x20; c++) {
			bool ok = c == '\t' || c == '\n' || c == '\r';

			snprintf(buf, sizeof(buf), "a%cb", c);
			CHECK_ROW((scf_value_normalize(strings[t], buf, NULL) == 0) == ok,
			        "%s with byte %d: %s\n", scf_type_to_string(strings[t]), c,
			        ok ? "refused" : "accepted");
			assert_int_equal(smf_value_forbidden_char(buf), ok ? 0 : (uint32_t)c);
		}
		for (size_t k = 0; k < ELEMENTSOF(kept); k++) {
			snprintf(buf, sizeof(buf), "a%sb", kept[k]);
			assert_int_equal(scf_value_normalize(strings[t], buf, NULL), 0);
		}
		assert_int_equal(scf_value_normalize(strings[t], "\357\277\276", NULL), BAD);
		assert_int_equal(scf_value_normalize(strings[t], "x\357\277\277", NULL), BAD);
		/* The other noncharacters: sd-bus refuses to send them. */
		assert_int_equal(scf_value_normalize(strings[t], "\357\267\220", NULL), BAD);
		assert_int_equal(scf_value_normalize(strings[t], "\357\267\257", NULL), BAD);
		assert_int_equal(scf_value_normalize(strings[t], "\360\237\277\276", NULL), BAD);
		assert_int_equal(scf_value_normalize(strings[t], "\364\217\277\277", NULL), BAD);
	}
	assert_int_equal(smf_value_forbidden_char("\357\277\276"), 0xfffe);
	assert_int_equal(smf_value_forbidden_char("x\357\277\277"), 0xffff);
	assert_int_equal(smf_value_forbidden_char("\303\251\364\217\277\277"), 0x10ffff);
	/* The other string types refuse them too (their own syntax would, but say the same). */
	assert_int_equal(scf_value_normalize(SCF_TYPE_URI, "http://x/\033", NULL), BAD);
	assert_int_equal(scf_value_normalize(SCF_TYPE_FMRI, "file:///a\007", NULL), BAD);
	/* The words a refusal uses. */
	assert_string_equal(smf_value_forbidden_why("a\033[0m", why, sizeof(why)),
	        "it holds U+001B, a control character no value may hold");
	assert_string_equal(smf_value_forbidden_why("\357\277\277", why, sizeof(why)),
	        "it holds U+FFFF, a noncharacter no value may hold");
	assert_null(smf_value_forbidden_why("tab\there", why, sizeof(why)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_type_names),
	        cmocka_unit_test(test_values),
	        cmocka_unit_test(test_limits),
	        cmocka_unit_test(test_bad_arguments),
	        cmocka_unit_test(test_parse_helpers),
	        cmocka_unit_test(test_control_characters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
