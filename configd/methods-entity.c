/* methods-entity.c: services and instances over D-Bus. */
#include "methods.h"
#include "strv.h"

int reply_strv(sd_bus_message *m, char **l)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int r;

	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_append_strv(reply, l);
	if (r >= 0)
		r = connection_send_reply(reply); /* counted: it may be large */
	return r;
}

int method_list_services(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	_cleanup_strv_free_ char **l = NULL;
	int r;

	r = backend_list_services(connection_backend(c), &l);
	if (r < 0)
		return configd_backend_error(c, error, r);
	return reply_strv(m, l);
}

int method_list_instances(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	_cleanup_strv_free_ char **l = NULL;
	const char *service;
	int r;

	r = sd_bus_message_read(m, "s", &service);
	if (r < 0)
		return r;
	r = backend_list_instances(connection_backend(c), service, &l);
	if (r < 0)
		return configd_backend_error(c, error, r);
	return reply_strv(m, l);
}

static int add_entity(sd_bus_message *m, connection_t *c, sd_bus_error *error, bool instance)
{
	const char *fmri;
	int r;

	r = sd_bus_message_read(m, "s", &fmri);
	if (r < 0)
		return r;
	r = auth_check_write(c, error, instance ? "AddInstance" : "AddService", fmri);
	if (r < 0)
		return r;
	r = instance ? backend_add_instance(connection_backend(c), fmri)
	             : backend_add_service(connection_backend(c), fmri);
	if (r < 0)
		return configd_backend_error(c, error, r);
	return sd_bus_reply_method_return(m, NULL);
}

int method_add_service(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return add_entity(m, userdata, error, false);
}

int method_add_instance(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return add_entity(m, userdata, error, true);
}

int method_delete(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	configd_t *mgr = c->configd;
	scf_pg_t *deleted = NULL;
	const char *fmri;
	size_t n = 0;
	int r;

	r = sd_bus_message_read(m, "s", &fmri);
	if (r < 0)
		return r;
	r = auth_check_write(c, error, "Delete", fmri);
	if (r < 0)
		return r;
	r = backend_delete_entity(connection_backend(c), fmri, &deleted, &n);
	if (r < 0)
		return configd_backend_error(c, error, r);
	/* Reply first: the deleting client learns of success no later than any watcher. */
	r = sd_bus_reply_method_return(m, NULL);
	for (size_t i = 0; i < n; i++)
		notify_pg_deleted(mgr, &deleted[i]);
	backend_pgs_free(deleted, n);
	return r;
}

int method_exists(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	const char *fmri;
	int r;

	r = sd_bus_message_read(m, "s", &fmri);
	if (r < 0)
		return r;
	r = backend_entity_exists(connection_backend(c), fmri);
	if (r < 0)
		return configd_backend_error(c, error, r);
	return sd_bus_reply_method_return(m, "b", r > 0);
}
