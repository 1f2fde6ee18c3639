/* lexer.c: tokens of the svccfg command language (see lexer.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "lexer.h"
#include "macro.h"

void tokens_clear(tokens_t *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].text);
	free(t->v);
	*t = (tokens_t){0};
}

int tokens_push(tokens_t *t, token_type_t type, const char *text, size_t len)
{
	char *s;

	if (GREEDY_REALLOC(t->v, t->allocated, t->n + 1) < 0)
		return -ENOMEM;
	s = strndup(text, len);
	if (!s)
		return -ENOMEM;
	t->v[t->n++] = (token_t){.type = type, .text = s};
	return 0;
}

static int is_word_char(char c)
{
	return c && !strchr(" \t\r\n\">=()", c);
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/*
 * The character a backslash escape at p (just after the '\\') stands for, and how many bytes
 * of p it takes: the escapes the tools write (escape.h), \t \n \r and three octal digits, else
 * the next character itself, as illumos' lexer reads every other "\x".
 */
static char unescape(const char *p, size_t *len)
{
	*len = 1;
	if (*p == 't')
		return '\t';
	if (*p == 'n')
		return '\n';
	if (*p == 'r')
		return '\r';
	/* \000 would end the string: no value holds a NUL, so it is read as "000" is. */
	if (is_octal(p[0]) && is_octal(p[1]) && is_octal(p[2]) && p[0] <= '3' &&
	        !(p[0] == '0' && p[1] == '0' && p[2] == '0')) {
		*len = 3;
		return (char)((p[0] - '0') * 64 + (p[1] - '0') * 8 + (p[2] - '0'));
	}
	return *p;
}

/* Scans a quoted string starting after the opening quote; returns its end or NULL if open. */
static const char *scan_string(const char *p, char **ret)
{
	size_t n = strlen(p);
	char *out = malloc(n + 1), *o = out;

	if (!out)
		return NULL;
	while (*p && *p != '"') {
		size_t len = 1;

		if (*p == '\\' && p[1]) {
			*o++ = unescape(p + 1, &len);
			p += 1 + len;
			continue;
		}
		*o++ = *p++;
	}
	*o = '\0';
	if (*p != '"') {
		free(out);
		*ret = NULL;
		return NULL;
	}
	*ret = out;
	return p + 1;
}

static int push_string(tokens_t *t, char *s)
{
	int r = tokens_push(t, TOKEN_STRING, s, strlen(s));

	free(s);
	return r;
}

static int lex_one(const char **pp, tokens_t *t, int *depth)
{
	const char *p = *pp, *start;
	char *s = NULL;
	int r;

	switch (*p) {
	case '#':
		p += strcspn(p, "\n");
		break;
	case '"':
		p = scan_string(p + 1, &s);
		if (!p)
			return s ? -ENOMEM : LEX_INCOMPLETE;
		r = push_string(t, s);
		if (r < 0)
			return r;
		break;
	case '=':
	case '(':
	case ')':
	case '>': {
		static const token_type_t types[] = {['='] = TOKEN_EQUALS,
		        ['('] = TOKEN_LPAREN,
		        [')'] = TOKEN_RPAREN,
		        ['>'] = TOKEN_REDIRECT};

		*depth += *p == '(' ? 1 : *p == ')' ? -1 : 0;
		if (*depth < 0)
			return -EINVAL;
		r = tokens_push(t, types[(unsigned char)*p], p, 1);
		if (r < 0)
			return r;
		p++;
		break;
	}
	default:
		start = p;
		while (is_word_char(*p))
			p++;
		r = tokens_push(t, TOKEN_WORD, start, p - start);
		if (r < 0)
			return r;
	}
	*pp = p;
	return 0;
}

/* Appends the tokens of s; *depth carries the parenthesis nesting across calls. */
static int lex_append(const char *s, tokens_t *t, int *depth)
{
	int r;

	for (const char *p = s; *p;) {
		if (strchr(" \t\r\n", *p)) {
			p++;
			continue;
		}
		r = lex_one(&p, t, depth);
		if (r != 0)
			return r;
	}
	return LEX_COMPLETE;
}

int lex_statement(const char *s, tokens_t *t)
{
	int depth = 0, r;

	tokens_clear(t);
	r = lex_append(s, t, &depth);
	if (r == LEX_COMPLETE && depth > 0)
		return LEX_INCOMPLETE;
	return r;
}

static int needs_no_lexing(const char *a)
{
	/* The shell quoted it: a value with blanks, unless it is written in svccfg syntax. */
	return !*a || (strpbrk(a, " \t\n") && !strpbrk(a, "\"()"));
}

int lex_argv(char *const *argv, int argc, tokens_t *t)
{
	int depth = 0, r;

	tokens_clear(t);
	for (int i = 0; i < argc; i++) {
		if (needs_no_lexing(argv[i]))
			r = tokens_push(t, TOKEN_STRING, argv[i], strlen(argv[i]));
		else
			r = lex_append(argv[i], t, &depth);
		if (r == LEX_INCOMPLETE)
			r = -EINVAL;
		if (r < 0)
			return r;
	}
	return depth > 0 ? -EINVAL : 0;
}
