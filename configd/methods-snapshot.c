/*
 * methods-snapshot.c: snapshots and refresh over D-Bus.  They change no pg: no signal, but
 * each is a write and gets its commit id (configd.write).
 */
#include "delay.h"
#include "methods.h"
#include "probes.h"
#include "strv.h"

int method_list_snapshots(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	_cleanup_strv_free_ char **l = NULL;
	const char *instance;
	int r;

	r = sd_bus_message_read(m, smf_method_list_snapshots.in, &instance);
	if (r < 0)
		return r;
	r = backend_list_snapshots(connection_backend(c), instance, &l);
	if (r < 0)
		return configd_backend_error(c, error, r);
	return reply_strv(m, l);
}

/* TakeSnapshot and DeleteSnapshot: (instance, name), a write, nothing in the reply. */
static int snapshot_write(sd_bus_message *m, connection_t *c, sd_bus_error *error,
        const smf_bus_method_t *method, int (*op)(backend_t *, const char *, const char *))
{
	const char *instance, *name;
	int r;

	r = sd_bus_message_read(m, method->in, &instance, &name);
	if (r < 0)
		return r;
	r = auth_check_write(c, error, method->name, instance);
	if (r < 0)
		return r;
	r = op(connection_backend(c), instance, name);
	if (r < 0)
		return configd_backend_error(c, error, r);
	probe_write(c, method->name, instance);
	smf_point(SMF_POINT_CONFIGD_COMMIT_AFTER);
	return sd_bus_reply_method_return(m, NULL);
}

int method_take_snapshot(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return snapshot_write(m, userdata, error, &smf_method_take_snapshot, backend_take_snapshot);
}

int method_delete_snapshot(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return snapshot_write(
	        m, userdata, error, &smf_method_delete_snapshot, backend_delete_snapshot);
}

int method_refresh(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	const char *instance;
	int r;

	r = sd_bus_message_read(m, smf_method_refresh.in, &instance);
	if (r < 0)
		return r;
	r = auth_check_write(c, error, smf_method_refresh.name, instance);
	if (r < 0)
		return r;
	r = backend_refresh(connection_backend(c), instance);
	if (r < 0)
		return configd_backend_error(c, error, r);
	probe_write(c, smf_method_refresh.name, instance);
	smf_point(SMF_POINT_CONFIGD_COMMIT_AFTER);
	return sd_bus_reply_method_return(m, NULL);
}
