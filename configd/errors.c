/*
 * errors.c: configd's failures as the D-Bus errors of docs/protocol.md.
 *
 * The names and the scf_error_t each stands for are protocol.h's table, which libscf maps back
 * from; a code without a name of its own (it should not reach a client) travels as
 * org.minismf.Error.Internal.
 */
#include <stdarg.h>
#include <stdio.h>

#include "configd.h"
#include "cut.h"
#include "macro.h"

int configd_errorf(sd_bus_error *error, const char *name, const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	va_start(ap, fmt);
	msg = smf_cut_vformat(fmt, ap);
	va_end(ap);
	if (!msg)
		return -ENOMEM;
	return sd_bus_error_set(error, name, msg);
}

int configd_reply_error(sd_bus_error *error, int err, const char *msg)
{
	return sd_bus_error_set(error, smf_bus_error_name(err),
	        msg && *msg ? msg : "the repository refused the request");
}

int configd_backend_error(connection_t *c, sd_bus_error *error, int err)
{
	return configd_reply_error(error, err, backend_errmsg(connection_backend(c)));
}
