/*
 * error.c: the one table of error messages.
 *
 * minismf's error codes are negated errno values or negated scf_error_t values (docs/style.md,
 * "Errors"); the two spaces do not overlap, because scf_error_t starts at 1000.  The logger
 * (log.c) and libscf's scf_strerror() both name a code here, so a code passed up from any
 * floor prints the same words.  The scf_error_t enum is the public vocabulary of libscf.h; this
 * file needs only the header, nothing of the client library.
 *
 * An scf_error_t has two sets of words, side by side in one row, because illumos has two and
 * both are read by someone:
 * - the message, scf_strerror()'s: illumos libscf's words ("insufficient privileges for
 *   action"), what a libscf program, the daemons' logs and svccfg's import errors print;
 * - the phrase, smf_error_phrase()'s: the tools' lower-case words after illumos' commands
 *   ("permission denied", "repository server unavailable"), which scripts grep in svcs',
 *   svcadm's and svcprop's output.  Neither may change without checking who reads it.
 */
#include <string.h>

#include "error.h"
#include "libscf.h"

/* SCF_WORDS(X): X(code, message, phrase) for every scf_error_t. */
#define SCF_WORDS(X)                                                                               \
	X(SCF_ERROR_NONE, "no error", "no error")                                                  \
	X(SCF_ERROR_NOT_BOUND, "handle not bound", "repository handle not bound")                  \
	X(SCF_ERROR_NOT_FOUND, "entity not found", "entity not found")                             \
	X(SCF_ERROR_EXISTS, "object already exists", "entity already exists")                      \
	X(SCF_ERROR_INVALID_ARGUMENT, "invalid argument", "invalid argument")                      \
	X(SCF_ERROR_TYPE_MISMATCH, "type does not match value", "type does not match value")       \
	X(SCF_ERROR_CONSTRAINT_VIOLATED, "required constraint not met", "constraint violated")     \
	X(SCF_ERROR_PERMISSION_DENIED, "insufficient privileges for action", "permission denied")  \
	X(SCF_ERROR_NO_SERVER, "repository server unavailable", "repository server unavailable")   \
	X(SCF_ERROR_CONNECTION_BROKEN, "connection to repository broken",                          \
	        "repository connection broken")                                                    \
	X(SCF_ERROR_BACKEND_ACCESS, "backend refused access", "backend access denied")             \
	X(SCF_ERROR_BACKEND_READONLY, "backend is read-only", "backend is read-only")              \
	X(SCF_ERROR_NO_MEMORY, "no memory available", "out of memory")                             \
	X(SCF_ERROR_NO_RESOURCES, "server has insufficient resources",                             \
	        "repository is out of resources")                                                  \
	X(SCF_ERROR_DELETED, "object has been deleted", "object was deleted")                      \
	X(SCF_ERROR_AMBIGUOUS, "FMRI is ambiguous", "pattern matches more than one entity")        \
	X(SCF_ERROR_TIMEOUT, "timed out", "timed out")                                             \
	X(SCF_ERROR_VERSION_MISMATCH, "incompatible SCF version",                                  \
	        "repository protocol version mismatch")                                            \
	X(SCF_ERROR_NOT_SUPPORTED, "operation not supported", "operation not supported")           \
	X(SCF_ERROR_INTERNAL, "internal error", "internal error")

#define MESSAGE_CASE(code, message, phrase)                                                        \
	case code:                                                                                 \
		return message;
#define PHRASE_CASE(code, message, phrase)                                                         \
	case code:                                                                                 \
		return phrase;

/* No default in either: -Wswitch names an scf_error_t that has no row. */
static const char *scf_message(scf_error_t e)
{
	switch (e) {
		SCF_WORDS(MESSAGE_CASE)
	}
	return NULL;
}

static const char *scf_phrase(scf_error_t e)
{
	switch (e) {
		SCF_WORDS(PHRASE_CASE)
	}
	return NULL;
}

static const char *words(int err, const char *(*column)(scf_error_t))
{
	const char *m;

	if (err < 0)
		err = -err;
	if (err == 0)
		return column(SCF_ERROR_NONE);
	/* The two spaces do not overlap (libscf.h): below SCF_ERROR_NONE is an errno value. */
	if (err < SCF_ERROR_NONE)
		return strerror(err);
	m = column((scf_error_t)err);
	return m ? m : "unknown error";
}

const char *smf_strerror(int err)
{
	return words(err, scf_message);
}

const char *smf_error_phrase(int err)
{
	return words(err, scf_phrase);
}
