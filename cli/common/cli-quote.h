/*
 * cli-quote.h: how values are written on the tools' output.
 *
 * Two conventions, both from illumos.  svcprop output is meant for the shell (`eval`, `set --`):
 * every Bourne-shell metacharacter is backslash-escaped and an empty value prints as "".
 * svccfg's listprop output is meant for humans and for svccfg's own lexer: a value that holds
 * blanks, quotes or parentheses (or any value of a multi-valued string property) is written
 * inside double quotes with '"' and '\' backslash-escaped.  Both write control characters as
 * escapes (escape.h: \t, \n, \r, \ooo), never raw: svccfg's lexer reads them back inside quotes.
 * Any other value shown on a terminal goes through cli_display().
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

/* Writes s inside double quotes, backslash-escaping '"' and '\', controls as escapes. */
void cli_print_quoted(FILE *f, const char *s);

/* A malloc'd copy of s for display, its control characters escaped; NULL for NULL or on OOM. */
char *cli_display(const char *s);

#endif
