/* cli-error.c: libscf errors as illumos' words. */
#include <stdint.h>

#include "cli-error.h"
#include "macro.h"

static const char *const phrases[_SCF_ERROR_MAX] = {
        [SCF_ERROR_NONE] = "no error",
        [SCF_ERROR_NOT_BOUND] = "repository handle not bound",
        [SCF_ERROR_NOT_FOUND] = "entity not found",
        [SCF_ERROR_EXISTS] = "entity already exists",
        [SCF_ERROR_INVALID_ARGUMENT] = "invalid argument",
        [SCF_ERROR_TYPE_MISMATCH] = "type does not match value",
        [SCF_ERROR_CONSTRAINT_VIOLATED] = "constraint violated",
        [SCF_ERROR_PERMISSION_DENIED] = "permission denied",
        [SCF_ERROR_NO_SERVER] = "repository server unavailable",
        [SCF_ERROR_CONNECTION_BROKEN] = "repository connection broken",
        [SCF_ERROR_BACKEND_ACCESS] = "backend access denied",
        [SCF_ERROR_BACKEND_READONLY] = "backend is read-only",
        [SCF_ERROR_NO_MEMORY] = "out of memory",
        [SCF_ERROR_NO_RESOURCES] = "repository is out of resources",
        [SCF_ERROR_DELETED] = "object was deleted",
        [SCF_ERROR_AMBIGUOUS] = "pattern matches more than one entity",
        [SCF_ERROR_TIMEOUT] = "timed out",
        [SCF_ERROR_VERSION_MISMATCH] = "repository protocol version mismatch",
        [SCF_ERROR_NOT_SUPPORTED] = "operation not supported",
        [SCF_ERROR_INTERNAL] = "internal error",
};

const char *cli_scf_phrase(int r)
{
	unsigned e = (unsigned)(r < 0 ? -r : r);

	if (e < ELEMENTSOF(phrases) && phrases[e])
		return phrases[e];
	return scf_strerror(r);
}

const char *cli_scf_reason(scf_handle_t *h, int r)
{
	const char *m = h ? scf_handle_errmsg(h) : NULL;

	/* A dead daemon has nothing better to say than the phrase scripts look for. */
	if (cli_scf_is_fatal(r) || !m || !*m)
		return cli_scf_phrase(r);
	return m;
}

int cli_scf_is_fatal(int r)
{
	return r == -SCF_ERROR_NO_SERVER || r == -SCF_ERROR_CONNECTION_BROKEN ||
	        r == -SCF_ERROR_NOT_BOUND || r == -SCF_ERROR_VERSION_MISMATCH;
}

int cli_connect(const char *root, scf_handle_t **ret)
{
	scf_handle_t *h = NULL;
	int r;

	r = scf_handle_create(root, &h);
	if (r < 0)
		return r;
	*ret = h;
	return 0;
}
