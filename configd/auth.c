/*
 * auth.c: who may change the repository.
 *
 * The socket is world-connectable (0666) so that every local user can read; writes are for
 * uid 0 and the owner of the root directory (the user who runs a private sandbox).  The uid is
 * the peer's SO_PEERCRED, taken by the kernel at connect() time, so a client cannot claim
 * another.  sd-bus's own check (which refuses any other uid outright) is disabled by marking
 * every method SD_BUS_VTABLE_UNPRIVILEGED; this is the check that replaces it.
 */
#include "configd.h"
#include "macro.h"

bool auth_may_write(const connection_t *c)
{
	return c->uid == 0 || c->uid == c->configd->owner_uid;
}

int auth_check_write(connection_t *c, sd_bus_error *error, const char *method, const char *what)
{
	if (auth_may_write(c))
		return 0;
	return configd_errorf(error, SMF_BUS_ERROR_PERMISSION_DENIED,
	        "permission denied: uid %u may read but not modify the repository (%s%s%s)",
	        (unsigned)c->uid, method, what ? " " : "", strempty(what));
}
