/*
 * restarter-attach.c: a restarter's attachment to configd, and the "is a restarter attached?"
 * question.  The registration lives exactly as long as the handle's connection: configd drops
 * it when the connection closes, so there is no unregister call and a crashed restarter cannot
 * leave a stale registration behind.
 */
#include "client-internal.h"

int scf_restarter_register(scf_handle_t *h)
{
	client_clear_error(h);
	return client_call(h, &smf_method_register_restarter, NULL);
}

int scf_restarter_attached(scf_handle_t *h)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	int b, r;

	client_clear_error(h);
	r = client_call(h, &smf_method_restarter_attached, &reply);
	if (r >= 0)
		r = client_read_reply(h, &smf_method_restarter_attached, reply, &b);
	return r < 0 ? r : !!b;
}
