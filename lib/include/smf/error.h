/*
 * error.h: naming an error code (see lib/util/error.c, the one table of their words).
 */
#ifndef SMF_ERROR_H
#define SMF_ERROR_H

/*
 * A message for a negated (or not) errno or scf_error_t value; 0 is "no error".  Never NULL.
 * scf_strerror() is this: illumos libscf's words.
 */
const char *smf_strerror(int err);

/*
 * The same code in the words the command-line tools print ("permission denied", "entity not
 * found"): illumos' commands' phrases, which scripts grep, so they stay as they are.  An errno
 * value reads as smf_strerror()'s.  Never NULL.
 */
const char *smf_error_phrase(int err);

#endif
