/*
 * lexer.h: the svccfg command language, tokenized.
 *
 * As illumos' svccfg.l: words are runs of characters other than blanks, newlines, '"', '>',
 * '=', '(' and ')'; a double-quoted string may hold anything, with backslash escaping the next
 * character, except that \t, \n, \r and three octal digits (\033) stand for the control
 * characters the tools write that way (escape.h), so listprop's output reads back as it was
 * written; '=', '(' and ')' are tokens of their own; '#' at the start of a token begins a
 * comment that runs to the end of the line.  A statement ends at a newline that is neither
 * inside quotes nor inside a parenthesized value list, so "( a" NEWLINE "b )" is one statement.
 *
 * A quoted token is kept apart from a word (TOKEN_STRING, text without the quotes), because
 * setprop requires quotes on the members of a string value list, as illumos does.
 */
#ifndef SVCCFG_LEXER_H
#define SVCCFG_LEXER_H

#include <stddef.h>

typedef enum token_type {
	TOKEN_WORD,
	TOKEN_STRING, /* was double-quoted */
	TOKEN_EQUALS,
	TOKEN_LPAREN,
	TOKEN_RPAREN,
	TOKEN_REDIRECT, /* '>' (reserved for export/archive) */
} token_type_t;

typedef struct token {
	token_type_t type;
	char *text; /* the word or the unescaped string; "=", "(", ")" for the others */
} token_t;

typedef struct tokens {
	token_t *v;
	size_t n, allocated;
} tokens_t;

void tokens_clear(tokens_t *t);
int tokens_push(tokens_t *t, token_type_t type, const char *text, size_t len);

/* Outcomes of lex_statement(). */
enum {
	LEX_COMPLETE = 0,
	LEX_INCOMPLETE =
	        1, /* inside quotes or parentheses: the statement continues on a next line */
};

/*
 * Tokenizes the text s (one or more lines, of which the last need not end in a newline) into t,
 * which is cleared first.  Returns LEX_COMPLETE, LEX_INCOMPLETE, or -ENOMEM; -EINVAL for an
 * unbalanced ')'.
 */
int lex_statement(const char *s, tokens_t *t);

/*
 * Tokenizes command-line arguments (svccfg [-s FMRI] cmd args...).  The shell has already done
 * the quoting, so an argument holding blanks but no quotes or parentheses is one string token
 * and an empty argument is an empty string; any other argument is lexed as above, so that
 * '"a b"' and '( x y )' mean what they mean in a command file.  Returns 0, -EINVAL (an argument
 * that does not lex on its own, e.g. an open quote) or -ENOMEM.
 */
int lex_argv(char *const *argv, int argc, tokens_t *t);

static inline int token_is_text(const token_t *tok)
{
	return tok->type == TOKEN_WORD || tok->type == TOKEN_STRING;
}

#endif
