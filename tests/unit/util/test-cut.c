/*
 * test-cut.c: smf_cut_message(), the one cut of input quoted into a message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cut.h"
#include "escape.h"
#include "macro.h"

/* A message quoting n bytes of c, as "illegal value \"...\" for count property \"a/b\"". */
static char *quoting(size_t n, char c)
{
	char *v = malloc(n + 1), *m = NULL;

	assert_non_null(v);
	memset(v, c, n);
	v[n] = 0;
	assert_true(asprintf(&m, "illegal value \"%s\" for count property \"a/b\"", v) > 0);
	free(v);
	return m;
}

/* Short input and a message's own words pass whole. */
static void test_short(void **state)
{
	_cleanup_free_ char *m = quoting(SMF_CUT_RUN_MAX, 'x');
	_cleanup_free_ char *c = smf_cut_message(m);

	assert_string_equal(c, m);
}

/* 5 MB of an attribute: its first bytes, the ellipsis and the length, and the rest as it was. */
static void test_long(void **state)
{
	_cleanup_free_ char *m = quoting(5u << 20, 'x');
	_cleanup_free_ char *c = smf_cut_message(m);
	char want[64];

	assert_true(strlen(c) < SMF_CUT_RUN_MAX + 100);
	snprintf(want, sizeof(want), "...(%u bytes)\" for count property \"a/b\"", 5u << 20);
	assert_non_null(strstr(c, want));
	assert_true(strneq(c, "illegal value \"xxxx", 19));
}

/* A multibyte character is never split. */
static void test_utf8(void **state)
{
	/* 2-byte characters from an odd offset: byte SMF_CUT_RUN_MAX falls inside one. */
	_cleanup_free_ char *v = malloc(2 * SMF_CUT_RUN_MAX + 2);
	_cleanup_free_ char *c = NULL;
	size_t n = 0;

	assert_non_null(v);
	v[n++] = 'a';
	for (unsigned i = 0; i < SMF_CUT_RUN_MAX; i++) {
		v[n++] = (char)0xc3;
		v[n++] = (char)0xa9; /* é */
	}
	v[n] = 0;
	c = smf_cut_message(v);
	assert_non_null(strstr(c, "...("));
	/* What precedes the ellipsis is whole characters: 'a' then pairs. */
	assert_int_equal((strstr(c, "...(") - c) % 2, 1);
}

/* Input made of quotes has no long stretch: the whole message is cut instead. */
static void test_many_quotes(void **state)
{
	size_t n = 1u << 20;
	_cleanup_free_ char *v = malloc(n + 1);
	_cleanup_free_ char *c = NULL;

	assert_non_null(v);
	for (size_t i = 0; i < n; i++)
		v[i] = i % 2 ? '"' : 'a';
	v[n] = 0;
	c = smf_cut_message(v);
	assert_true(strlen(c) <= SMF_CUT_MESSAGE_MAX + 64);
	assert_non_null(strstr(c, "...(1048576 bytes in all)"));
}

/*
 * Issue 18: a message never carries a raw control character: every one but TAB and LF (the
 * message's own layout) becomes an escape, C1 controls included; other UTF-8 stays.
 */
static void test_controls_escaped(void **state)
{
	_cleanup_free_ char *c =
	        smf_cut_message("bad \"\033[2J\a\r\177\302\233caf\303\251\"\n\tnext line");
	_cleanup_free_ char *e = smf_escape("a\tb\nc\\d\001", SMF_ESCAPE_BACKSLASH);

	assert_string_equal(c, "bad \"\\033[2J\\007\\r\\177\\302\\233caf\303\251\"\n\tnext line");
	assert_string_equal(e, "a\\tb\\nc\\\\d\\001");
	assert_false(smf_has_control("caf\303\251 \342\202\254", 0));
	assert_true(smf_has_control("\302\237", 0));
	assert_false(smf_has_control("a\tb\n", SMF_ESCAPE_KEEP_LAYOUT));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_short),
	        cmocka_unit_test(test_long),
	        cmocka_unit_test(test_utf8),
	        cmocka_unit_test(test_many_quotes),
	        cmocka_unit_test(test_controls_escaped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
