/* escape.c: control characters as backslash escapes (escape.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"

size_t smf_control_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	if ((*p > 0 && *p < 0x20) || *p == 0x7f)
		return 1;
	/* U+0080..U+009F, the C1 controls: a terminal may act on CSI (U+009B) as on ESC [. */
	if (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
		return 2;
	return 0;
}

static bool kept(const char *s, unsigned flags)
{
	return (flags & SMF_ESCAPE_KEEP_LAYOUT) && (*s == '\t' || *s == '\n');
}

bool smf_has_control(const char *s, unsigned flags)
{
	for (; *s; s++)
		if (smf_control_len(s) && !kept(s, flags))
			return true;
	return false;
}

size_t smf_escape_control(const char *s, size_t len, char *out)
{
	size_t n = 0;

	if (len == 1 && (*s == '\t' || *s == '\n' || *s == '\r')) {
		out[0] = '\\';
		out[1] = *s == '\t' ? 't' : *s == '\n' ? 'n' : 'r';
		out[2] = 0;
		return 2;
	}
	for (size_t i = 0; i < len; i++)
		n += (size_t)snprintf(out + n, 5, "\\%03o", (unsigned char)s[i]);
	return n;
}

char *smf_escape(const char *s, unsigned flags)
{
	size_t cap = 1;
	char *out, *o;

	/* At most four bytes of escape for each byte of input ("\ooo"), and "\\" for a '\'. */
	for (const char *p = s; *p; p++)
		cap += smf_control_len(p) || *p == '\\' ? 4 : 1;
	out = malloc(cap);
	if (!out)
		return NULL;
	o = out;
	for (const char *p = s; *p;) {
		size_t len = smf_control_len(p);

		if (len && !kept(p, flags)) {
			o += smf_escape_control(p, len, o);
			p += len;
			continue;
		}
		if (*p == '\\' && (flags & SMF_ESCAPE_BACKSLASH))
			*o++ = '\\';
		*o++ = *p++;
	}
	*o = 0;
	return out;
}
