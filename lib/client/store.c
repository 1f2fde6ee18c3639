/*
 * store.c: the record configd keeps of the writes its databases took and refused
 * (scf_store_status(), libscf.h "The repository's store"), and what a restarter wait makes of
 * it (smf_restarter_store_check(), restarter-wait.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "client-internal.h"
#include "restarter-wait.h"

static const char *const store_names[] = {
        [SCF_STORE_PERSISTENT] = SMF_STORE_PERSISTENT,
        [SCF_STORE_NONPERSISTENT] = SMF_STORE_NONPERSISTENT,
};

static scf_store_failure_t failure_from_kind(const char *kind)
{
	static const struct {
		const char *kind;
		scf_store_failure_t failure;
	} kinds[] = {
	        {SMF_STORE_FAIL_FULL, SCF_STORE_FAILURE_FULL},
	        {SMF_STORE_FAIL_IO, SCF_STORE_FAILURE_IO},
	        {SMF_STORE_FAIL_READONLY, SCF_STORE_FAILURE_READONLY},
	        {SMF_STORE_FAIL_CORRUPT, SCF_STORE_FAILURE_CORRUPT},
	};

	if (!kind || !*kind)
		return SCF_STORE_FAILURE_NONE;
	for (size_t k = 0; k < ELEMENTSOF(kinds); k++)
		if (streq(kind, kinds[k].kind))
			return kinds[k].failure;
	/* A kind a newer configd added is still a failure. */
	return SCF_STORE_FAILURE_OTHER;
}

void scf_store_status_clear(scf_store_status_t *s)
{
	if (!s)
		return;
	free(s->path);
	free(s->error);
	*s = (scf_store_status_t){};
}

int scf_store_status(scf_handle_t *h, scf_store_t store, scf_store_status_t *ret)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *reply = NULL;
	bool found = false;
	int r;

	client_clear_error(h);
	*ret = (scf_store_status_t){};
	if ((unsigned)store >= ELEMENTSOF(store_names))
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "no store %d", (int)store);
	r = client_call(h, &smf_method_store_status, &reply);
	/* UnknownMethod: a configd older than the record. */
	if (r == -SCF_ERROR_VERSION_MISMATCH)
		return client_set_error(h, -SCF_ERROR_NOT_SUPPORTED,
		        "svc.configd keeps no record of its store's writes");
	if (r < 0)
		return r;
	r = sd_bus_message_enter_container(reply, 'a', "(" SMF_BUS_STORE_RECORD ")");
	while (r > 0 && !found) {
		const char *name, *path, *kind, *error;
		uint64_t ok, fail, failures;

		r = sd_bus_message_read(reply, "(" SMF_BUS_STORE_RECORD ")", &name, &path, &ok,
		        &fail, &failures, &kind, &error);
		if (r <= 0 || !streq(name, store_names[store]))
			continue;
		found = true;
		*ret = (scf_store_status_t){
		        .path = strdup(path),
		        .last_ok_usec = ok,
		        .last_fail_usec = fail,
		        .failures = failures,
		        .failure = failures > 0 ? failure_from_kind(kind) : SCF_STORE_FAILURE_NONE,
		        .error = strdup(failures > 0 ? error : ""),
		};
		if (!ret->path || !ret->error) {
			scf_store_status_clear(ret);
			return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
		}
	}
	if (r < 0)
		return client_bad_reply(h, smf_method_store_status.name, r);
	if (!found)
		return client_set_error(h, -SCF_ERROR_NOT_SUPPORTED,
		        "svc.configd keeps no record of its %s store", store_names[store]);
	return ret->failures > 0;
}

int smf_restarter_store_check(scf_handle_t *h, const char *fmri, size_t others)
{
	_cleanup_(scf_store_status_clear) scf_store_status_t st = {};
	char more[48] = "";
	int r = scf_store_status(h, SCF_STORE_NONPERSISTENT, &st);

	/* No record (an older configd): the caller waits as it always has. */
	if (r == -SCF_ERROR_NOT_SUPPORTED) {
		client_clear_error(h);
		return 0;
	}
	if (r <= 0)
		return r;
	if (others > 0)
		snprintf(more, sizeof(more), " (and %zu more)", others);
	r = client_set_error(h, -SCF_ERROR_BACKEND_ACCESS,
	        "svc.startd cannot write the \"%s\" property group of %s%s: the non-persistent "
	        "repository %s %s (%s)",
	        SCF_PG_RESTARTER, fmri, more, st.path,
	        st.failure == SCF_STORE_FAILURE_FULL ? "is full" : "cannot be written",
	        *st.error ? st.error : "the store failed");
	return r;
}
