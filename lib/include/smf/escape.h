/*
 * escape.h: control characters written as backslash escapes, wherever text that came from a
 * value or a request reaches a terminal (lib/util/escape.c).
 *
 * A value may hold TAB, LF, CR, DEL and the C1 controls (U+0080..U+009F); one stored before
 * issue 18 may hold any C0 control (ESC, BEL, ...).  Written raw, they move the cursor, rewrite
 * the line, change colours or ring the bell of whoever reads the output.  Every tool writes such
 * characters as escapes instead (docs/values.md, "Control characters"):
 *
 *   TAB LF CR           \t \n \r
 *   any other control   \ooo, three octal digits per byte: ESC \033, DEL \177, U+009B \302\233
 *
 * svccfg's lexer reads the same escapes inside a quoted string, so listprop's output is input.
 */
#ifndef SMF_ESCAPE_H
#define SMF_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>

/* Keep TAB and LF as they are: a message's own layout (its indented lines). */
#define SMF_ESCAPE_KEEP_LAYOUT 0x1u
/* Also write '\' as "\\", so that the escapes can be read back (svcprop, listprop). */
#define SMF_ESCAPE_BACKSLASH 0x2u

/* The number of bytes of the control character s starts with (1, or 2 for a C1), else 0. */
size_t smf_control_len(const char *s);

/* Whether s holds a control character that smf_escape() would write as an escape. */
bool smf_has_control(const char *s, unsigned flags);

/*
 * Writes the escape of the control character of len bytes at s (smf_control_len()) into out,
 * which has room for 8 bytes plus the NUL; returns the escape's length.
 */
size_t smf_escape_control(const char *s, size_t len, char *out);

/* A malloc'd copy of s with its control characters (and with the flag, '\') escaped; NULL on OOM. */
char *smf_escape(const char *s, unsigned flags);

#endif
