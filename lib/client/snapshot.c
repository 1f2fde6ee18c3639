/*
 * snapshot.c: an instance's named snapshots.  configd does the copying; a snapshot is read
 * through scf_pg_get()/scf_pg_list() with its name.
 */
#include "client-internal.h"

static int instance_call(
        scf_handle_t *h, const char *member, const char *instance, const char *name)
{
	client_clear_error(h);
	if (!instance)
		return client_set_error(
		        h, -SCF_ERROR_INVALID_ARGUMENT, "%s: no instance given", member);
	if (name) {
		if (!*name)
			return client_set_error(
			        h, -SCF_ERROR_INVALID_ARGUMENT, "%s: empty snapshot name", member);
		return client_call(h, member, NULL, "ss", instance, name);
	}
	return client_call(h, member, NULL, "s", instance);
}

int scf_snapshot_list(scf_handle_t *h, const char *instance, char ***ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	client_clear_error(h);
	if (!instance || !ret)
		return client_set_error(
		        h, -SCF_ERROR_INVALID_ARGUMENT, "ListSnapshots: no instance given");
	r = client_call(h, "ListSnapshots", &reply, "s", instance);
	if (r < 0)
		return r;
	return client_read_strv(h, "ListSnapshots", reply, ret);
}

int scf_snapshot_take(scf_handle_t *h, const char *instance, const char *name)
{
	if (!name)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "no snapshot name given");
	return instance_call(h, "TakeSnapshot", instance, name);
}

int scf_snapshot_delete(scf_handle_t *h, const char *instance, const char *name)
{
	if (!name)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "no snapshot name given");
	return instance_call(h, "DeleteSnapshot", instance, name);
}

int scf_instance_refresh(scf_handle_t *h, const char *instance)
{
	return instance_call(h, "Refresh", instance, NULL);
}
