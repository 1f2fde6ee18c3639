/*
 * errors.c: scf_error_t <-> the org.minismf.Error.* names of docs/protocol.md.
 *
 * The table is the contract libscf maps back from; a code without a name of its own (it should
 * not reach a client) travels as org.minismf.Error.Internal.
 */
#include "configd.h"
#include "macro.h"

static const char *const error_names[] = {
        [SCF_ERROR_NOT_FOUND] = "org.minismf.Error.NotFound",
        [SCF_ERROR_EXISTS] = "org.minismf.Error.Exists",
        [SCF_ERROR_DELETED] = "org.minismf.Error.Deleted",
        [SCF_ERROR_PERMISSION_DENIED] = "org.minismf.Error.PermissionDenied",
        [SCF_ERROR_INVALID_ARGUMENT] = "org.minismf.Error.InvalidArgument",
        [SCF_ERROR_TYPE_MISMATCH] = "org.minismf.Error.TypeMismatch",
        [SCF_ERROR_CONSTRAINT_VIOLATED] = "org.minismf.Error.ConstraintViolated",
        [SCF_ERROR_BACKEND_ACCESS] = "org.minismf.Error.Backend",
        [SCF_ERROR_BACKEND_READONLY] = "org.minismf.Error.ReadOnly",
        [SCF_ERROR_NO_MEMORY] = "org.minismf.Error.NoResources",
        [SCF_ERROR_NO_RESOURCES] = "org.minismf.Error.NoResources",
        [SCF_ERROR_NOT_SUPPORTED] = "org.minismf.Error.NotSupported",
};

const char *configd_error_name(int err)
{
	if (err < 0)
		err = -err;
	if (err == BACKEND_NOT_LATEST)
		return "org.minismf.Error.NotLatest";
	if (err > 0 && (size_t)err < ELEMENTSOF(error_names) && error_names[err])
		return error_names[err];
	return "org.minismf.Error.Internal";
}

int configd_reply_error(sd_bus_error *error, int err, const char *msg)
{
	return sd_bus_error_set(error, configd_error_name(err),
	        msg && *msg ? msg : "the repository refused the request");
}

int configd_backend_error(Connection *c, sd_bus_error *error, int err)
{
	return configd_reply_error(error, err, backend_errmsg(c->manager->backend));
}
