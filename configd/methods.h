/* methods.h: the handlers of org.minismf.Repository1 (userdata: the connection_t). */
#ifndef CONFIGD_METHODS_H
#define CONFIGD_METHODS_H

#include <systemd/sd-bus.h>

#include "configd.h"

/* methods-entity.c */
int method_list_services(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_list_instances(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_add_service(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_add_instance(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_delete(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_exists(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* methods-pg.c */
int method_list_pgs(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_get_pg(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_add_pg(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_delete_pg(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_commit(sd_bus_message *m, void *userdata, sd_bus_error *error);
/* ReadPg, ReadPgs: reads answered as records (docs/protocol.md, "Bulk reads"). */
int method_read_pg(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_read_pgs(sd_bus_message *m, void *userdata, sd_bus_error *error);

/*
 * A command list "a(ussas)" as read from a message: every string, values included, points into
 * the message; only the arrays are the list's.
 */
typedef struct command_list {
	backend_cmd_t *cmds;
	const char *over_prop; /* after -E2BIG: whose values passed SCF_LIMIT_MAX_VALUES */
	size_t n, cap_cmds;
} command_list_t;

void command_list_clear(command_list_t *l);
/*
 * Reads the commands at m's read position, in time linear in what it reads.  A command with
 * more than SCF_LIMIT_MAX_VALUES values stops the read at the value past the limit: -E2BIG, and
 * l->over_prop names the property (refuse_too_many_values() words the refusal).
 */
int read_commands(sd_bus_message *m, command_list_t *l);
/* The ConstraintViolated refusal of a command list that read_commands() stopped (-E2BIG). */
int refuse_too_many_values(
        sd_bus_error *error, const char *where, const char *pg, const command_list_t *l);

/* methods-batch.c */
int method_batch(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* methods-snapshot.c */
int method_list_snapshots(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_take_snapshot(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_delete_snapshot(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_refresh(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* methods-notify.c: notifications and the restarter registration */
int method_notify_add_pg_name(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_notify_add_pg_type(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_notify_add_instances(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_notify_reset(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_register_restarter(sd_bus_message *m, void *userdata, sd_bus_error *error);
int method_restarter_attached(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* methods-store.c: the record of the writes each database took and refused */
int method_store_status(sd_bus_message *m, void *userdata, sd_bus_error *error);

/* Replies with an "as". */
int reply_strv(sd_bus_message *m, char **l);

#endif
