/*
 * cut.c: input quoted into a message, cut to a readable length (cut.h).
 *
 * The message is copied stretch by stretch, a stretch ending at a quoting character; a long one
 * is cut where a UTF-8 character begins, so the result stays valid UTF-8 when the input was.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cut.h"
#include "escape.h"
#include "macro.h"

static bool is_quote(char ch)
{
	return ch && strchr("\"'`<>\n", ch);
}

/* The largest n <= max at which s[n] begins a UTF-8 character. */
static size_t char_boundary(const char *s, size_t max)
{
	while (max > 0 && ((unsigned char)s[max] & 0xC0) == 0x80)
		max--;
	return max;
}

/* Appends n bytes of s to out, which has room (smf_cut_message() sizes it). */
static void append(char *out, size_t *len, const char *s, size_t n)
{
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = 0;
}

char *smf_cut_message(const char *msg)
{
	size_t total = strlen(msg), len = 0, cap;
	char *out, note[64];

	/* Only a stretch that is cut grows, by its note; the final note may come on top. */
	cap = total + 1;
	for (const char *p = msg; *p;) {
		size_t n = strcspn(p, "\"'`<>\n");

		if (n > SMF_CUT_RUN_MAX)
			cap += sizeof(note);
		p += n;
		if (*p)
			p++;
	}
	out = malloc(cap + sizeof(note));
	if (!out)
		return NULL;
	out[0] = 0;
	for (const char *p = msg; *p;) {
		size_t n = strcspn(p, "\"'`<>\n");

		if (n > SMF_CUT_RUN_MAX) {
			append(out, &len, p, char_boundary(p, SMF_CUT_RUN_MAX));
			snprintf(note, sizeof(note), "...(%zu bytes)", n);
			append(out, &len, note, strlen(note));
		} else
			append(out, &len, p, n);
		p += n;
		if (is_quote(*p))
			append(out, &len, p++, 1);
	}
	if (len > SMF_CUT_MESSAGE_MAX) {
		len = char_boundary(out, SMF_CUT_MESSAGE_MAX);
		out[len] = 0;
		snprintf(note, sizeof(note), "...(%zu bytes in all)", total);
		append(out, &len, note, strlen(note));
	}
	/* Last, so that the lengths above are the input's: no control reaches a terminal raw. */
	if (smf_has_control(out, SMF_ESCAPE_KEEP_LAYOUT)) {
		char *e = smf_escape(out, SMF_ESCAPE_KEEP_LAYOUT);

		free(out);
		out = e;
	}
	return out;
}

char *smf_cut_vformat(const char *fmt, va_list ap)
{
	_cleanup_free_ char *msg = NULL;

	if (vasprintf(&msg, fmt, ap) < 0)
		return NULL;
	return smf_cut_message(msg);
}
