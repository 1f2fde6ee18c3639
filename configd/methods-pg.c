/* methods-pg.c: property groups and transactions over D-Bus. */
#include <stdlib.h>

#include "macro.h"
#include "methods.h"
#include "probes.h"
#include "strv.h"

int method_list_pgs(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	connection_t *c = userdata;
	scf_pg_info_t *l = NULL;
	const char *entity, *snapshot;
	int composed, r;
	size_t n = 0;

	r = sd_bus_message_read(m, "ssb", &entity, &snapshot, &composed);
	if (r < 0)
		return r;
	r = backend_list_pgs(connection_backend(c), entity, snapshot, composed, &l, &n);
	if (r < 0)
		return configd_backend_error(c, error, r);
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(ssut)");
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = sd_bus_message_append(
		        reply, "(ssut)", l[i].name, l[i].type, l[i].flags, l[i].generation);
	backend_pg_infos_free(l, n);
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r >= 0)
		r = connection_send_reply(reply); /* counted: it may be large */
	return r;
}

static int append_props(sd_bus_message *reply, const scf_pg_t *pg)
{
	int r = sd_bus_message_open_container(reply, 'a', "(ssas)");

	for (size_t i = 0; r >= 0 && i < pg->n_props; i++) {
		const scf_property_t *p = &pg->props[i];

		r = sd_bus_message_open_container(reply, 'r', "ssas");
		if (r >= 0)
			r = sd_bus_message_append(
			        reply, "ss", p->name, strempty(scf_type_to_string(p->type)));
		if (r >= 0)
			r = sd_bus_message_append_strv(reply, p->values);
		if (r >= 0)
			r = sd_bus_message_close_container(reply);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	return r;
}

int method_get_pg(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	_cleanup_backend_pg_ scf_pg_t *pg = NULL;
	connection_t *c = userdata;
	const char *entity, *name, *snapshot;
	int composed, r;

	r = sd_bus_message_read(m, "sssb", &entity, &name, &snapshot, &composed);
	if (r < 0)
		return r;
	r = backend_get_pg(connection_backend(c), entity, name, snapshot, composed, &pg);
	if (r < 0)
		return configd_backend_error(c, error, r);
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_append(reply, "sut", pg->type, pg->flags, pg->generation);
	if (r >= 0)
		r = append_props(reply, pg);
	if (r >= 0)
		r = connection_send_reply(reply); /* counted: it may be large */
	return r;
}

int method_add_pg(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_backend_pg_ scf_pg_t *pg = NULL;
	connection_t *c = userdata;
	const char *entity, *name, *type;
	uint32_t flags;
	int r;

	r = sd_bus_message_read(m, "sssu", &entity, &name, &type, &flags);
	if (r < 0)
		return r;
	r = auth_check_write(c, error, "AddPg", entity);
	if (r < 0)
		return r;
	r = backend_add_pg(connection_backend(c), entity, name, type, flags, &pg);
	if (r < 0)
		return configd_backend_error(c, error, r);
	probe_pg_created(pg);
	probe_pg_committed(pg);
	r = sd_bus_reply_method_return(m, "t", pg->generation);
	notify_pg_changed(c->configd, pg);
	return r;
}

int method_delete_pg(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_backend_pg_ scf_pg_t *pg = NULL;
	connection_t *c = userdata;
	const char *entity, *name;
	int r;

	r = sd_bus_message_read(m, "ss", &entity, &name);
	if (r < 0)
		return r;
	r = auth_check_write(c, error, "DeletePg", entity);
	if (r < 0)
		return r;
	r = backend_delete_pg(connection_backend(c), entity, name, &pg);
	if (r < 0)
		return configd_backend_error(c, error, r);
	r = sd_bus_reply_method_return(m, NULL);
	notify_pg_deleted(c->configd, pg);
	return r;
}

void command_list_clear(command_list_t *l)
{
	for (size_t i = 0; i < l->n; i++)
		strv_free(l->values[i]);
	free(l->values);
	free(l->cmds);
	*l = (command_list_t){};
}

/* Reads one "(" SMF_BUS_COMMAND ")"; 0 at the end of the array. */
static int read_command(sd_bus_message *m, command_list_t *l)
{
	const char *prop, *type;
	char **values = NULL;
	uint32_t op;
	int r;

	r = sd_bus_message_enter_container(m, 'r', SMF_BUS_COMMAND);
	if (r <= 0)
		return r;
	r = sd_bus_message_read(m, "uss", &op, &prop, &type);
	if (r >= 0)
		r = sd_bus_message_read_strv(m, &values);
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	if (r >= 0)
		r = GREEDY_REALLOC(l->cmds, l->cap_cmds, l->n + 1);
	if (r >= 0)
		r = GREEDY_REALLOC(l->values, l->cap_values, l->n + 1);
	if (r < 0) {
		strv_free(values);
		return r;
	}
	l->values[l->n] = values;
	l->cmds[l->n++] = (backend_cmd_t){.op = op,
	        .prop = prop,
	        .type = type,
	        .values = (const char *const *)values,
	        .n_values = strv_length(values)};
	return 1;
}

int read_commands(sd_bus_message *m, command_list_t *l)
{
	int r = sd_bus_message_enter_container(m, 'a', "(" SMF_BUS_COMMAND ")");

	while (r >= 0 && (r = read_command(m, l)) > 0)
		;
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	return r;
}

int method_commit(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(command_list_clear) command_list_t l = {};
	_cleanup_backend_pg_ scf_pg_t *pg = NULL;
	connection_t *c = userdata;
	const char *entity, *name;
	uint64_t gen;
	int r, committed;

	r = sd_bus_message_read(m, "sst", &entity, &name, &gen);
	if (r < 0)
		return r;
	r = auth_check_write(c, error, "Commit", entity);
	if (r < 0)
		return r;
	r = read_commands(m, &l);
	if (r < 0)
		return r;
	committed = backend_commit(connection_backend(c), entity, name, gen, l.cmds, l.n, &pg);
	if (committed < 0)
		return configd_backend_error(c, error, committed);
	if (committed == BACKEND_NOT_LATEST)
		return sd_bus_error_set(
		        error, SMF_BUS_ERROR_NOT_LATEST, backend_errmsg(connection_backend(c)));
	/*
	 * Traced first (the instant the pg is there for everyone), then the reply, then the
	 * watchers (even if the writer is gone): all after the commit.
	 */
	if (committed == BACKEND_COMMITTED)
		probe_pg_committed(pg);
	r = sd_bus_reply_method_return(m, "t", pg->generation);
	if (committed == BACKEND_COMMITTED)
		notify_pg_changed(c->configd, pg);
	return r;
}
