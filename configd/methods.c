/*
 * methods.c: the vtables every connection gets.
 *
 * Every method is SD_BUS_VTABLE_UNPRIVILEGED: sd-bus would otherwise refuse all calls from a
 * uid other than its own with AccessDenied, and readers must be able to read.  The write check
 * is auth_check_write(), called by each write handler before it touches anything.
 *
 * The second vtable answers the bus driver's Hello on /org/freedesktop/DBus, so tools that
 * expect a bus (busctl --address=...) can talk to this peer-to-peer server.
 */
#include <stdio.h>

#include "methods.h"

#define M(name, in, out, handler) SD_BUS_METHOD(name, in, out, handler, SD_BUS_VTABLE_UNPRIVILEGED)

static int property_get_version(sd_bus *bus, const char *path, const char *interface,
        const char *property, sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append(reply, "u", SMF_PROTOCOL_VERSION);
}

static int property_get_minor_version(sd_bus *bus, const char *path, const char *interface,
        const char *property, sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append(reply, "u", SMF_PROTOCOL_MINOR_VERSION);
}

static const sd_bus_vtable repository_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SD_BUS_PROPERTY("Version", "u", property_get_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        SD_BUS_PROPERTY(
                "MinorVersion", "u", property_get_minor_version, 0, SD_BUS_VTABLE_PROPERTY_CONST),
        M("ListServices", "", "as", method_list_services),
        M("ListInstances", "s", "as", method_list_instances),
        M("AddService", "s", "", method_add_service),
        M("AddInstance", "s", "", method_add_instance),
        M("Delete", "s", "", method_delete),
        M("Exists", "s", "b", method_exists),
        M("ListPgs", "ssb", "a(ssut)", method_list_pgs),
        M("GetPg", "sssb", "suta(ssas)", method_get_pg),
        M(SMF_BUS_METHOD_READ_PG, SMF_BUS_READ_PG_IN, SMF_BUS_READ_PG_OUT, method_read_pg),
        M(SMF_BUS_METHOD_READ_PGS, SMF_BUS_READ_PGS_IN, SMF_BUS_READ_PGS_OUT, method_read_pgs),
        M("AddPg", "sssu", "t", method_add_pg),
        M("DeletePg", "ss", "", method_delete_pg),
        M("Commit", "ssta(" SMF_BUS_COMMAND ")", "t", method_commit),
        M("Batch", "a(" SMF_BUS_STEP ")", "u", method_batch),
        M("ListSnapshots", "s", "as", method_list_snapshots),
        M("TakeSnapshot", "ss", "", method_take_snapshot),
        M("DeleteSnapshot", "ss", "", method_delete_snapshot),
        M("Refresh", "s", "", method_refresh),
        M("NotifyAddPgName", "s", "", method_notify_add_pg_name),
        M("NotifyAddPgType", "s", "", method_notify_add_pg_type),
        M(SMF_BUS_METHOD_NOTIFY_ADD_INSTANCES, "", "", method_notify_add_instances),
        M("NotifyReset", "", "", method_notify_reset),
        M("RegisterRestarter", "", "", method_register_restarter),
        M("RestarterAttached", "", "b", method_restarter_attached),
        M(SMF_BUS_METHOD_STORE_STATUS, "", SMF_BUS_STORE_STATUS_OUT, method_store_status),
        SD_BUS_SIGNAL(SMF_BUS_SIGNAL_PG_CHANGED, SMF_BUS_SIGNAL_PG_CHANGED_SIG, 0),
        SD_BUS_SIGNAL(SMF_BUS_SIGNAL_PG_DELETED, SMF_BUS_SIGNAL_PG_DELETED_SIG, 0),
        SD_BUS_SIGNAL(SMF_BUS_SIGNAL_INSTANCE_ADDED, SMF_BUS_SIGNAL_INSTANCE_ADDED_SIG, 0),
        SD_BUS_VTABLE_END,
};

static int method_hello(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	char name[32];

	snprintf(name, sizeof(name), ":1.%llu", (unsigned long long)c->id);
	return sd_bus_reply_method_return(m, "s", name);
}

static const sd_bus_vtable driver_vtable[] = {
        SD_BUS_VTABLE_START(0),
        M("Hello", "", "s", method_hello),
        SD_BUS_VTABLE_END,
};

int methods_add_to_bus(connection_t *c)
{
	int r;

	r = sd_bus_add_object_vtable(
	        c->bus, NULL, SMF_BUS_PATH, SMF_BUS_INTERFACE, repository_vtable, c);
	if (r < 0)
		return r;
	return sd_bus_add_object_vtable(
	        c->bus, NULL, "/org/freedesktop/DBus", "org.freedesktop.DBus", driver_vtable, c);
}
