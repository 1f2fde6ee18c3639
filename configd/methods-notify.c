/*
 * methods-notify.c: notification interests and the restarter registration.
 *
 * The restarter is whichever connection registered last and is still open: at most one at a
 * time (a second is refused with Exists), forgotten by server.c when its connection closes, so
 * RestarterAttached is true exactly while svc.startd is connected.  With --native nothing can
 * register and the answer is always false: that is how svccfg learns it must not wait for a
 * restarter pg.
 */
#include "log.h"
#include "methods.h"

static int add_interest(sd_bus_message *m, connection_t *c, sd_bus_error *error,
        const smf_bus_method_t *method, bool by_type)
{
	const char *name;
	int r;

	r = sd_bus_message_read(m, method->in, &name);
	if (r < 0)
		return r;
	r = notify_add_interest(c, by_type, name, error);
	if (r < 0)
		return r;
	return sd_bus_reply_method_return(m, NULL);
}

int method_notify_add_pg_name(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return add_interest(m, userdata, error, &smf_method_notify_add_pg_name, false);
}

int method_notify_add_pg_type(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	return add_interest(m, userdata, error, &smf_method_notify_add_pg_type, true);
}

/* Instance creation is announced (InstanceAdded) only to the connections that call this. */
int method_notify_add_instances(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;

	c->notify_instances = true;
	return sd_bus_reply_method_return(m, NULL);
}

int method_notify_reset(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	notify_reset(userdata);
	return sd_bus_reply_method_return(m, NULL);
}

int method_register_restarter(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;
	configd_t *mgr = c->configd;
	int r;

	r = auth_check_write(c, error, smf_method_register_restarter.name, "");
	if (r < 0)
		return r;
	if (mgr->native)
		return sd_bus_error_set(error, SMF_BUS_ERROR_NOT_SUPPORTED,
		        "svc.configd runs with --native: no restarter may attach");
	if (mgr->restarter && mgr->restarter != c)
		return sd_bus_error_setf(error, SMF_BUS_ERROR_EXISTS,
		        "a restarter is already attached (pid %d)", (int)mgr->restarter->pid);
	if (!mgr->restarter)
		log_info("restarter attached (pid %d)", (int)c->pid);
	mgr->restarter = c;
	return sd_bus_reply_method_return(m, NULL);
}

int method_restarter_attached(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;

	return sd_bus_reply_method_return(
	        m, smf_method_restarter_attached.out, !c->configd->native && c->configd->restarter);
}
