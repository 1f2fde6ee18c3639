/* cli-quote.c: value quoting for svcprop and svccfg output. */
#include <stdlib.h>
#include <string.h>

#include "cli-quote.h"

/* The characters /bin/sh treats specially in an unquoted word. */
static const char shell_meta[] = ";&()|^<>\n \t\\\"'`";

char *cli_quote_for_shell(const char *s)
{
	size_t n = 0;
	char *out, *p;

	if (!*s)
		return strdup("\"\"");
	for (const char *c = s; *c; c++)
		n += strchr(shell_meta, *c) ? 2 : 1;
	out = malloc(n + 1);
	if (!out)
		return NULL;
	p = out;
	for (const char *c = s; *c; c++) {
		if (strchr(shell_meta, *c))
			*p++ = '\\';
		*p++ = *c;
	}
	*p = '\0';
	return out;
}

void cli_print_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const char *c = s; *c; c++) {
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		fputc(*c, f);
	}
	fputc('"', f);
}

bool cli_value_needs_quotes(const char *s)
{
	return strpbrk(s, " \t\n\"()") != NULL;
}

void cli_print_svccfg_value(FILE *f, const char *s, bool force)
{
	if (force || cli_value_needs_quotes(s))
		cli_print_quoted(f, s);
	else
		fputs(s, f);
}
