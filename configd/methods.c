/*
 * methods.c: the vtables every connection gets.
 *
 * Every method is SD_BUS_VTABLE_UNPRIVILEGED: sd-bus would otherwise refuse all calls from a
 * uid other than its own with AccessDenied, and readers must be able to read.  The write check
 * is auth_check_write(), called by each write handler before it touches anything.
 *
 * The second vtable answers the bus driver's Hello on /org/freedesktop/DBus, so tools that
 * expect a bus (busctl --address=...) can talk to this peer-to-peer server.
 *
 * Both are protocol.h's tables expanded, so that configd serves exactly the names and
 * signatures libscf calls: a line added there without its handler here fails to compile.
 */
#include <stdio.h>

#include "methods.h"

static int property_get_version(sd_bus *bus, const char *path, const char *interface,
        const char *property, sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append(reply, smf_property_version.sig, SMF_PROTOCOL_VERSION);
}

static int property_get_minor_version(sd_bus *bus, const char *path, const char *interface,
        const char *property, sd_bus_message *reply, void *userdata, sd_bus_error *error)
{
	return sd_bus_message_append(
	        reply, smf_property_minor_version.sig, SMF_PROTOCOL_MINOR_VERSION);
}

static int method_hello(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	char name[32];

	snprintf(name, sizeof(name), ":1.%llu", (unsigned long long)c->id);
	return sd_bus_reply_method_return(m, smf_method_hello.out, name);
}

/* The handler of method id is method_<id>, the getter of property id property_get_<id>. */
#define METHOD(id, name, in, out)                                                                  \
	SD_BUS_METHOD(name, in, out, method_##id, SD_BUS_VTABLE_UNPRIVILEGED),
#define PROPERTY(id, name, sig)                                                                    \
	SD_BUS_PROPERTY(name, sig, property_get_##id, 0, SD_BUS_VTABLE_PROPERTY_CONST),
#define SIGNAL(id, name, sig) SD_BUS_SIGNAL(name, sig, 0),

/* clang-format off */
static const sd_bus_vtable repository_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SMF_BUS_PROPERTIES(PROPERTY)
        SMF_BUS_METHODS(METHOD)
        SMF_BUS_SIGNALS(SIGNAL)
        SD_BUS_VTABLE_END,
};

static const sd_bus_vtable driver_vtable[] = {
        SD_BUS_VTABLE_START(0),
        SMF_BUS_DRIVER_METHODS(METHOD)
        SD_BUS_VTABLE_END,
};
/* clang-format on */

int methods_add_to_bus(connection_t *c)
{
	int r;

	r = sd_bus_add_object_vtable(
	        c->bus, NULL, SMF_BUS_PATH, SMF_BUS_INTERFACE, repository_vtable, c);
	if (r < 0)
		return r;
	return sd_bus_add_object_vtable(
	        c->bus, NULL, SMF_BUS_DRIVER_PATH, SMF_BUS_DRIVER_INTERFACE, driver_vtable, c);
}
