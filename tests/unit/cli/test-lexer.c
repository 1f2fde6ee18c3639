/*
 * test-lexer.c: svccfg's command language tokens, and the CLI's value quoting.
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

#include "cli-quote.h"
#include "lexer.h"

/* Renders tokens as "W:text S:text = ( )" for compact expectations. */
static char *render(const tokens_t *t)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	for (size_t i = 0; i < t->n; i++) {
		const token_t *k = &t->v[i];

		fputs(i ? " " : "", f);
		if (k->type == TOKEN_WORD)
			fprintf(f, "W:%s", k->text);
		else if (k->type == TOKEN_STRING)
			fprintf(f, "S:%s", k->text);
		else
			fputs(k->text, f);
	}
	fclose(f);
	return buf;
}

static void expect_lex(const char *in, int ret, const char *out)
{
	tokens_t t = {0};
	char *s;

	assert_int_equal(lex_statement(in, &t), ret);
	s = render(&t);
	if (strcmp(s, out) != 0)
		fail_msg("lex(\"%s\"): got \"%s\", want \"%s\"", in, s, out);
	free(s);
	tokens_clear(&t);
}

static void test_lex_words_and_operators(void **state)
{
	expect_lex("setprop general/enabled = boolean: true\n", LEX_COMPLETE,
	        "W:setprop W:general/enabled = W:boolean: W:true");
	expect_lex("setprop a/b=count:5", LEX_COMPLETE, "W:setprop W:a/b = W:count:5");
	expect_lex("  \t\n", LEX_COMPLETE, "");
	expect_lex("listprop # a comment ( \" unbalanced\n", LEX_COMPLETE, "W:listprop");
	expect_lex("list a#b", LEX_COMPLETE, "W:list W:a#b");
}

static void test_lex_strings(void **state)
{
	expect_lex("setprop a/b = astring: \"hello world\"", LEX_COMPLETE,
	        "W:setprop W:a/b = W:astring: S:hello world");
	expect_lex("x \"a \\\"q\\\" \\\\ b\"", LEX_COMPLETE, "W:x S:a \"q\" \\ b");
	expect_lex("x \"\"", LEX_COMPLETE, "W:x S:");
	expect_lex("x \"(not=a list)\"", LEX_COMPLETE, "W:x S:(not=a list)");
	/* A string may run over several lines. */
	expect_lex("x \"line one\nline two\"", LEX_COMPLETE, "W:x S:line one\nline two");
	expect_lex("x \"open", LEX_INCOMPLETE, "W:x");
}

static void test_lex_lists(void **state)
{
	expect_lex("setprop a/b = astring: (\"x\" \"y z\")", LEX_COMPLETE,
	        "W:setprop W:a/b = W:astring: ( S:x S:y z )");
	expect_lex("setprop a/b = count: ( 1\n2 )\n", LEX_COMPLETE,
	        "W:setprop W:a/b = W:count: ( W:1 W:2 )");
	expect_lex(
	        "setprop a/b = count: ( 1\n", LEX_INCOMPLETE, "W:setprop W:a/b = W:count: ( W:1");
	expect_lex("x )", -EINVAL, "W:x");
}

static void expect_argv(const char *const *argv, int argc, int ret, const char *out)
{
	tokens_t t = {0};
	char *s;

	assert_int_equal(lex_argv((char *const *)argv, argc, &t), ret);
	if (ret == 0) {
		s = render(&t);
		if (strcmp(s, out) != 0)
			fail_msg("lex_argv: got \"%s\", want \"%s\"", s, out);
		free(s);
	}
	tokens_clear(&t);
}

static void test_lex_argv(void **state)
{
	/* The shell already removed the quotes: a blank inside means one value. */
	expect_argv((const char *[]){"setprop", "a/b", "=", "astring:", "hello world"}, 5, 0,
	        "W:setprop W:a/b = W:astring: S:hello world");
	expect_argv((const char *[]){"setprop", "a/b", "=", "astring:", ""}, 5, 0,
	        "W:setprop W:a/b = W:astring: S:");
	/* Written in svccfg syntax on purpose: lexed. */
	expect_argv((const char *[]){"setprop", "a/b", "=", "astring:", "(\"x y\" \"z\")"}, 5, 0,
	        "W:setprop W:a/b = W:astring: ( S:x y S:z )");
	expect_argv((const char *[]){"setprop", "a/b", "=", "(", "1", "2", ")"}, 7, 0,
	        "W:setprop W:a/b = ( W:1 W:2 )");
	expect_argv((const char *[]){"setprop", "a/b=count:", "3"}, 3, 0,
	        "W:setprop W:a/b = W:count: W:3");
	expect_argv((const char *[]){"x", "\"open"}, 2, -EINVAL, NULL);
	expect_argv((const char *[]){"x", "(", "1"}, 3, -EINVAL, NULL);
}

static void expect_shell(const char *in, const char *out)
{
	char *q = cli_quote_for_shell(in);

	assert_non_null(q);
	assert_string_equal(q, out);
	free(q);
}

static void test_quote_for_shell(void **state)
{
	expect_shell("plain", "plain");
	expect_shell("", "\"\"");
	expect_shell("a b", "a\\ b");
	expect_shell("it's \"x\"; $y", "it\\'s\\ \\\"x\\\"\\;\\ $y");
	expect_shell("a\\b(c)|d&e<f>g`h`", "a\\\\b\\(c\\)\\|d\\&e\\<f\\>g\\`h\\`");
	/* Control characters are escapes, never raw (escape.h); TAB and LF as well. */
	expect_shell("tab\there", "tab\\there");
	expect_shell("l1\nl2\rx", "l1\\nl2\\rx");
	expect_shell("\033[31mred\a", "\\033[31mred\\007");
	expect_shell("del\177 csi\302\233", "del\\177\\ csi\\302\\233");
	/* Other UTF-8 is written as it is. */
	expect_shell("caf\303\251 \342\202\254", "caf\303\251\\ \342\202\254");
}

static void expect_svccfg_value(const char *in, int force, const char *out)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	assert_non_null(f);
	cli_print_svccfg_value(f, in, force);
	fclose(f);
	assert_string_equal(buf, out);
	free(buf);
}

static void test_svccfg_value(void **state)
{
	expect_svccfg_value("true", 0, "true");
	expect_svccfg_value("two words", 0, "\"two words\"");
	expect_svccfg_value("x", 1, "\"x\"");
	expect_svccfg_value("say \"hi\" \\o/", 0, "\"say \\\"hi\\\" \\\\o/\"");
	expect_svccfg_value("f(x)", 0, "\"f(x)\"");
	/* A control character forces quotes: only a quoted string reads its escape back. */
	expect_svccfg_value("a\033b", 0, "\"a\\033b\"");
	expect_svccfg_value("a\tb\\c", 0, "\"a\\tb\\\\c\"");
	expect_svccfg_value("\302\205", 0, "\"\\302\\205\"");
}

/* What listprop writes, the lexer reads back: every byte a value may hold, and the escapes. */
static void test_escapes_read_back(void **state)
{
	char all[256], *buf = NULL, *line = NULL;
	size_t sz = 0, k = 0;
	tokens_t t = {0};
	FILE *f;

	for (int c = 1; c < 128; c++)
		all[k++] = (char)c;
	/* C1 controls and a few other 2-, 3- and 4-byte characters. */
	strcpy(all + k, "\302\200\302\237\302\240\303\277\357\277\275\360\237\230\200");
	f = open_memstream(&buf, &sz);
	assert_non_null(f);
	cli_print_svccfg_value(f, all, 0);
	fclose(f);
	for (size_t i = 0; i < sz; i++)
		assert_true((unsigned char)buf[i] >= 0x20 && (unsigned char)buf[i] != 0x7f);
	assert_true(asprintf(&line, "x %s", buf) > 0);
	assert_int_equal(lex_statement(line, &t), LEX_COMPLETE);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.v[1].type, TOKEN_STRING);
	assert_string_equal(t.v[1].text, all);
	tokens_clear(&t);
	/* \000 is no NUL; other escapes of illumos' lexer still give the character itself. */
	expect_lex("x \"\\000 \\q \\\\ \\08\"", LEX_COMPLETE, "W:x S:000 q \\ 08");
	free(line);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_lex_words_and_operators),
	        cmocka_unit_test(test_lex_strings),
	        cmocka_unit_test(test_lex_lists),
	        cmocka_unit_test(test_lex_argv),
	        cmocka_unit_test(test_quote_for_shell),
	        cmocka_unit_test(test_svccfg_value),
	        cmocka_unit_test(test_escapes_read_back),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
