/*
 * snapshot.c: an instance's named snapshots.  configd does the copying; a snapshot is read
 * through scf_pg_get()/scf_pg_list() with its name.
 */
#include "client-internal.h"

/* A write of (instance) or, with name, of (instance, name). */
static int instance_call(
        scf_handle_t *h, const smf_bus_method_t *method, const char *instance, const char *name)
{
	client_clear_error(h);
	if (!instance)
		return client_set_error(
		        h, -SCF_ERROR_INVALID_ARGUMENT, "%s: no instance given", method->name);
	if (name) {
		if (!*name)
			return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
			        "%s: empty snapshot name", method->name);
		return client_call(h, method, NULL, instance, name);
	}
	return client_call(h, method, NULL, instance);
}

int scf_snapshot_list(scf_handle_t *h, const char *instance, char ***ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	client_clear_error(h);
	if (!instance || !ret)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "%s: no instance given",
		        smf_method_list_snapshots.name);
	r = client_call(h, &smf_method_list_snapshots, &reply, instance);
	if (r < 0)
		return r;
	return client_read_strv(h, &smf_method_list_snapshots, reply, ret);
}

int scf_snapshot_take(scf_handle_t *h, const char *instance, const char *name)
{
	if (!name)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "no snapshot name given");
	return instance_call(h, &smf_method_take_snapshot, instance, name);
}

int scf_snapshot_delete(scf_handle_t *h, const char *instance, const char *name)
{
	if (!name)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "no snapshot name given");
	return instance_call(h, &smf_method_delete_snapshot, instance, name);
}

int scf_instance_refresh(scf_handle_t *h, const char *instance)
{
	return instance_call(h, &smf_method_refresh, instance, NULL);
}
