/*
 * methods-store.c: StoreStatus, the record of the writes each database took and refused
 * (backend.h, backend_store_status(); docs/protocol.md, "The store").
 *
 * A read, open to every peer as every read is: a client that waits for another's writes (svccfg
 * import for svc.startd's restarter pgs, svcadm -s for its states) asks it when its wait does
 * not progress, so that a store that refuses writes (a full filesystem) is named instead of
 * waited on in silence.  What it tells is where the databases are and SQLite's words for the
 * last failure, nothing a reader of the repository could not learn from its root.
 */
#include "macro.h"
#include "methods.h"

int method_store_status(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	static const char *const names[_BACKEND_STORES] = {
	        [BACKEND_STORE_PERSISTENT] = SMF_STORE_PERSISTENT,
	        [BACKEND_STORE_NONPERSISTENT] = SMF_STORE_NONPERSISTENT,
	};
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	connection_t *c = userdata;
	backend_t *b = connection_backend(c);
	int r;

	(void)error;
	r = sd_bus_message_new_method_return(m, &reply);
	if (r >= 0)
		r = sd_bus_message_open_container(reply, 'a', "(" SMF_BUS_STORE_RECORD ")");
	for (int k = 0; r >= 0 && k < _BACKEND_STORES; k++) {
		backend_store_status_t st;

		backend_store_status(b, k, &st);
		r = sd_bus_message_append(reply, "(" SMF_BUS_STORE_RECORD ")", names[k], st.path,
		        st.last_ok_usec, st.last_fail_usec, st.failures, st.kind, st.error);
	}
	if (r >= 0)
		r = sd_bus_message_close_container(reply);
	if (r < 0)
		return r;
	return sd_bus_message_send(reply);
}
