/*
 * methods-entity.c: services and instances over D-Bus.
 *
 * Every write gets its commit id (configd.write) right after its SQLite commit.  A new instance
 * is then traced (configd.instance_added) and announced (InstanceAdded, to the connections that
 * asked) after its commit, as a pg change is; with configd-eager the restarter pg created in
 * the same transaction follows as a created pg of the same commit (configd.pg_created,
 * configd.commit, PgChanged).  The delay point configd.commit.after comes after those events
 * and before the reply.
 */
#include "delay.h"
#include "methods.h"
#include "probes.h"
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

	r = sd_bus_message_read(m, smf_method_list_instances.in, &service);
	if (r < 0)
		return r;
	r = backend_list_instances(connection_backend(c), service, &l);
	if (r < 0)
		return configd_backend_error(c, error, r);
	return reply_strv(m, l);
}

/* A write that names one entity: its FMRI, once the writer is allowed. */
static int read_entity_write(sd_bus_message *m, connection_t *c, sd_bus_error *error,
        const smf_bus_method_t *method, const char **fmri)
{
	int r = sd_bus_message_read(m, method->in, fmri);

	if (r < 0)
		return r;
	return auth_check_write(c, error, method->name, *fmri);
}

int method_add_service(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	const char *fmri;
	int r;

	r = read_entity_write(m, c, error, &smf_method_add_service, &fmri);
	if (r < 0)
		return r;
	r = backend_add_service(connection_backend(c), fmri);
	if (r < 0)
		return configd_backend_error(c, error, r);
	probe_write(c, smf_method_add_service.name, fmri);
	smf_point(SMF_POINT_CONFIGD_COMMIT_AFTER);
	return sd_bus_reply_method_return(m, NULL);
}

int method_add_instance(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_free_ char *canon = NULL;
	_cleanup_backend_pg_ scf_pg_t *rpg = NULL;
	connection_t *c = userdata;
	const char *fmri;
	int r;

	r = read_entity_write(m, c, error, &smf_method_add_instance, &fmri);
	if (r < 0)
		return r;
	r = backend_create_instance(connection_backend(c), fmri, &canon, &rpg);
	if (r < 0)
		return configd_backend_error(c, error, r);
	probe_write(c, smf_method_add_instance.name, canon);
	probe_instance_added(canon);
	if (rpg) {
		probe_pg_created(rpg);
		probe_pg_committed(rpg);
	}
	smf_point(SMF_POINT_CONFIGD_COMMIT_AFTER);
	r = sd_bus_reply_method_return(m, NULL);
	notify_instance_added(c->configd, canon);
	if (rpg)
		notify_pg_changed(c->configd, rpg);
	return r;
}

int method_delete(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	configd_t *mgr = c->configd;
	scf_pg_t *deleted = NULL;
	const char *fmri;
	size_t n = 0;
	int r;

	r = read_entity_write(m, c, error, &smf_method_delete, &fmri);
	if (r < 0)
		return r;
	r = backend_delete_entity(connection_backend(c), fmri, &deleted, &n);
	if (r < 0)
		return configd_backend_error(c, error, r);
	probe_write(c, smf_method_delete.name, fmri);
	for (size_t i = 0; i < n; i++)
		probe_pg_deleted(&deleted[i]);
	smf_point(SMF_POINT_CONFIGD_COMMIT_AFTER);
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

	r = sd_bus_message_read(m, smf_method_exists.in, &fmri);
	if (r < 0)
		return r;
	r = backend_entity_exists(connection_backend(c), fmri);
	if (r < 0)
		return configd_backend_error(c, error, r);
	return sd_bus_reply_method_return(m, smf_method_exists.out, r > 0);
}
