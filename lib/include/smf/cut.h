/*
 * cut.h: input quoted into a message, cut to a readable length (lib/util/cut.c).
 *
 * A message that quotes what it refuses ("illegal value \"%s\"") would print all of a 5 MB
 * attribute.  Every message that may quote input passes through smf_cut_message() where it is
 * made: the manifest reader's diagnostics, svccfg's errors, svc.configd's refusals.
 */
#ifndef SMF_CUT_H
#define SMF_CUT_H

#include <stdarg.h>
#include <stddef.h>

/* The longest stretch of a message kept between two quoting characters. */
#define SMF_CUT_RUN_MAX 256u
/* The longest message kept whole. */
#define SMF_CUT_MESSAGE_MAX 4096u

/*
 * A copy of msg in which every stretch of more than SMF_CUT_RUN_MAX bytes between quoting
 * characters (" ' ` < > and line ends) keeps its first bytes (whole UTF-8 characters) followed by
 * "...(N bytes)", N the stretch's length; a message's own words never run that long without one.
 * What is still longer than SMF_CUT_MESSAGE_MAX (input full of quotes) is cut there, followed by
 * "...(N bytes in all)".  Control characters other than TAB and LF (the message's own layout)
 * are then written as escapes (escape.h), so the message never acts on a terminal.  NULL when
 * out of memory.
 */
char *smf_cut_message(const char *msg);

/* The message fmt makes, cut as smf_cut_message() cuts; NULL when out of memory. */
char *smf_cut_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

#endif
