/*
 * error.h: naming an error code (see lib/util/error.c).
 */
#ifndef SMF_ERROR_H
#define SMF_ERROR_H

/* A message for a negated (or not) errno or scf_error_t value; 0 is "no error".  Never NULL. */
const char *smf_strerror(int err);

#endif
