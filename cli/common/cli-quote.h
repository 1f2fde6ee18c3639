/*
 * cli-quote.h: how values are written on the tools' output.
 *
 * Two conventions, both from illumos.  svcprop output is meant for the shell (`eval`, `set --`):
 * every Bourne-shell metacharacter is backslash-escaped and an empty value prints as "".
 * svccfg's listprop output is meant for humans and for svccfg's own lexer: a value that holds
 * blanks, quotes or parentheses (or any value of a multi-valued string property) is written
 * inside double quotes with '"' and '\' backslash-escaped.
 */
#ifndef CLI_QUOTE_H
#define CLI_QUOTE_H

#include <stdbool.h>
#include <stdio.h>

/* svcprop's quoting; returns a malloc'd string or NULL on OOM. */
char *cli_quote_for_shell(const char *s);

/* Whether listprop (and svcs -lv) writes the value in quotes: it holds blanks, '"' or '()'. */
bool cli_value_needs_quotes(const char *s);

/* Writes one listprop value (without a leading blank); quoted when force or when needed. */
void cli_print_svccfg_value(FILE *f, const char *s, bool force);

/* Writes s inside double quotes, backslash-escaping '"' and '\'. */
void cli_print_quoted(FILE *f, const char *s);

#endif
