/*
 * error.c: the one table of error messages.
 *
 * minismf's error codes are negated errno values or negated scf_error_t values (docs/style.md,
 * "Errors"); the two spaces do not overlap, because scf_error_t starts at 1000.  The logger
 * (log.c) and libscf's scf_strerror() both name a code here, so a code passed up from any
 * floor prints the same words.  The scf_error_t enum is the public vocabulary of libscf.h; this
 * file needs only the header, nothing of the client library.
 */
#include <string.h>

#include "error.h"
#include "libscf.h"

/* No default: -Wswitch names an scf_error_t that has no message. */
static const char *scf_message(scf_error_t e)
{
	switch (e) {
	case SCF_ERROR_NONE:
		return "no error";
	case SCF_ERROR_NOT_BOUND:
		return "handle not bound";
	case SCF_ERROR_NOT_FOUND:
		return "entity not found";
	case SCF_ERROR_EXISTS:
		return "object already exists";
	case SCF_ERROR_INVALID_ARGUMENT:
		return "invalid argument";
	case SCF_ERROR_TYPE_MISMATCH:
		return "type does not match value";
	case SCF_ERROR_CONSTRAINT_VIOLATED:
		return "required constraint not met";
	case SCF_ERROR_PERMISSION_DENIED:
		return "insufficient privileges for action";
	case SCF_ERROR_NO_SERVER:
		return "repository server unavailable";
	case SCF_ERROR_CONNECTION_BROKEN:
		return "connection to repository broken";
	case SCF_ERROR_BACKEND_ACCESS:
		return "backend refused access";
	case SCF_ERROR_BACKEND_READONLY:
		return "backend is read-only";
	case SCF_ERROR_NO_MEMORY:
		return "no memory available";
	case SCF_ERROR_NO_RESOURCES:
		return "server has insufficient resources";
	case SCF_ERROR_DELETED:
		return "object has been deleted";
	case SCF_ERROR_AMBIGUOUS:
		return "FMRI is ambiguous";
	case SCF_ERROR_TIMEOUT:
		return "timed out";
	case SCF_ERROR_VERSION_MISMATCH:
		return "incompatible SCF version";
	case SCF_ERROR_NOT_SUPPORTED:
		return "operation not supported";
	case SCF_ERROR_INTERNAL:
		return "internal error";
	}
	return NULL;
}

const char *smf_strerror(int err)
{
	const char *m;

	if (err < 0)
		err = -err;
	if (err == 0)
		return scf_message(SCF_ERROR_NONE);
	/* The two spaces do not overlap (libscf.h): below SCF_ERROR_NONE is an errno value. */
	if (err < SCF_ERROR_NONE)
		return strerror(err);
	m = scf_message((scf_error_t)err);
	return m ? m : "unknown error";
}

