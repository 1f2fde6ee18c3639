/* cli-error.c: libscf errors as illumos' words. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli-error.h"
#include "trace.h"

/* No default: -Wswitch names an scf_error_t that has no phrase. */
static const char *phrase(scf_error_t e)
{
	switch (e) {
	case SCF_ERROR_NONE:
		return "no error";
	case SCF_ERROR_NOT_BOUND:
		return "repository handle not bound";
	case SCF_ERROR_NOT_FOUND:
		return "entity not found";
	case SCF_ERROR_EXISTS:
		return "entity already exists";
	case SCF_ERROR_INVALID_ARGUMENT:
		return "invalid argument";
	case SCF_ERROR_TYPE_MISMATCH:
		return "type does not match value";
	case SCF_ERROR_CONSTRAINT_VIOLATED:
		return "constraint violated";
	case SCF_ERROR_PERMISSION_DENIED:
		return "permission denied";
	case SCF_ERROR_NO_SERVER:
		return "repository server unavailable";
	case SCF_ERROR_CONNECTION_BROKEN:
		return "repository connection broken";
	case SCF_ERROR_BACKEND_ACCESS:
		return "backend access denied";
	case SCF_ERROR_BACKEND_READONLY:
		return "backend is read-only";
	case SCF_ERROR_NO_MEMORY:
		return "out of memory";
	case SCF_ERROR_NO_RESOURCES:
		return "repository is out of resources";
	case SCF_ERROR_DELETED:
		return "object was deleted";
	case SCF_ERROR_AMBIGUOUS:
		return "pattern matches more than one entity";
	case SCF_ERROR_TIMEOUT:
		return "timed out";
	case SCF_ERROR_VERSION_MISMATCH:
		return "repository protocol version mismatch";
	case SCF_ERROR_NOT_SUPPORTED:
		return "operation not supported";
	case SCF_ERROR_INTERNAL:
		return "internal error";
	}
	return NULL;
}

const char *cli_scf_phrase(int r)
{
	const char *p = NULL;

	if (r < 0)
		r = -r;
	/* An errno value (below SCF_ERROR_NONE) has no illumos phrase: scf_strerror() names it. */
	if (r >= SCF_ERROR_NONE)
		p = phrase((scf_error_t)r);
	return p ? p : scf_strerror(r);
}

const char *cli_scf_reason(scf_handle_t *h, int r)
{
	const char *m = h ? scf_handle_errmsg(h) : NULL;

	/* A dead daemon has nothing better to say than the phrase scripts look for. */
	if ((cli_scf_is_fatal(r) && r != -SCF_ERROR_TIMEOUT) || !m || !*m)
		return cli_scf_phrase(r);
	return m;
}

int cli_scf_is_fatal(int r)
{
	return r == -SCF_ERROR_NO_SERVER || r == -SCF_ERROR_CONNECTION_BROKEN ||
	        r == -SCF_ERROR_NOT_BOUND || r == -SCF_ERROR_VERSION_MISMATCH ||
	        r == -SCF_ERROR_TIMEOUT;
}

int cli_connect(const char *root, scf_handle_t **ret)
{
	scf_handle_t *h = NULL;
	int r;

	r = smf_trace_open_command(root, program_invocation_short_name);
	if (r < 0 && r != -EBUSY)
		fprintf(stderr, "%s: cannot open a trace file (%s); not tracing.\n",
		        program_invocation_short_name, strerror(-r));
	r = scf_handle_create(root, &h);
	if (r < 0)
		return r;
	*ret = h;
	return 0;
}
