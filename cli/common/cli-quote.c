/*
 * cli-quote.c: value quoting for svcprop and svccfg output, and control characters as escapes
 * wherever a value is displayed (escape.h).
 */
#include <stdlib.h>
#include <string.h>

#include "cli-quote.h"
#include "escape.h"

/* The characters /bin/sh treats specially in an unquoted word (TAB and LF are escapes now). */
static const char shell_meta[] = ";&()|^<> \\\"'`";

char *cli_quote_for_shell(const char *s)
{
	size_t n = 0;
	char *out, *p;

	if (!*s)
		return strdup("\"\"");
	/* An escape takes at most four bytes per byte of input ("\ooo"). */
	for (const char *c = s; *c; c++)
		n += smf_control_len(c) ? 4 : strchr(shell_meta, *c) ? 2 : 1;
	out = malloc(n + 9);
	if (!out)
		return NULL;
	p = out;
	for (const char *c = s; *c;) {
		size_t len = smf_control_len(c);

		if (len) {
			p += smf_escape_control(c, len, p);
			c += len;
			continue;
		}
		if (strchr(shell_meta, *c))
			*p++ = '\\';
		*p++ = *c++;
	}
	*p = '\0';
	return out;
}

void cli_print_quoted(FILE *f, const char *s)
{
	fputc('"', f);
	for (const char *c = s; *c;) {
		size_t len = smf_control_len(c);
		char esc[16];

		if (len) {
			smf_escape_control(c, len, esc);
			fputs(esc, f);
			c += len;
			continue;
		}
		if (*c == '"' || *c == '\\')
			fputc('\\', f);
		fputc(*c++, f);
	}
	fputc('"', f);
}

bool cli_value_needs_quotes(const char *s)
{
	/* A control character is written as an escape, which only a quoted string reads back. */
	return strpbrk(s, " \t\n\"()") != NULL || smf_has_control(s, 0);
}

void cli_print_svccfg_value(FILE *f, const char *s, bool force)
{
	if (force || cli_value_needs_quotes(s))
		cli_print_quoted(f, s);
	else
		fputs(s, f);
}

char *cli_display(const char *s)
{
	return s ? smf_escape(s, 0) : NULL;
}
