/*
 * error.c: scf_error_t messages, and the per-handle "last error" that scf_handle_errmsg()
 * returns.
 *
 * configd's D-Bus error names map one to one onto scf errors (docs/protocol.md); its message
 * names what was refused and is kept verbatim, but for control characters, which every message
 * writes as escapes (escape.h).  Transport failures (sd-bus returning a negative errno without
 * a D-Bus error) mean the connection is gone, but for a call that reached the handle's timeout:
 * configd did not answer in time (it is stopped or stuck), which is TIMEOUT, and the connection
 * stays (a late reply is dropped by sd-bus).
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>

#include "client-internal.h"
#include "escape.h"

const char *scf_strerror(int err)
{
	return smf_strerror(err);
}

/* sd-bus' own refusals, which name no scf error of the protocol's. */
static const smf_bus_error_t sd_bus_errors[] = {
        /* E.g. a method not marked unprivileged called by another uid. */
        {SD_BUS_ERROR_ACCESS_DENIED, SCF_ERROR_PERMISSION_DENIED},
        {SD_BUS_ERROR_NO_MEMORY, SCF_ERROR_NO_RESOURCES},
        {SD_BUS_ERROR_INVALID_ARGS, SCF_ERROR_INVALID_ARGUMENT},
        {SD_BUS_ERROR_UNKNOWN_METHOD, SCF_ERROR_VERSION_MISMATCH},
        {SD_BUS_ERROR_UNKNOWN_INTERFACE, SCF_ERROR_VERSION_MISMATCH},
        {SD_BUS_ERROR_UNKNOWN_PROPERTY, SCF_ERROR_VERSION_MISMATCH},
        {SD_BUS_ERROR_DISCONNECTED, SCF_ERROR_CONNECTION_BROKEN},
        /* sd-bus's names for a call that reached its timeout. */
        {SD_BUS_ERROR_NO_REPLY, SCF_ERROR_TIMEOUT},
        {SD_BUS_ERROR_TIMEOUT, SCF_ERROR_TIMEOUT},
};

void client_clear_error(scf_handle_t *h)
{
	if (!h)
		return;
	free(h->errmsg);
	h->errmsg = NULL;
	h->last_error = SCF_ERROR_NONE;
}

int client_set_error(scf_handle_t *h, int err, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	/* What the public functions return: a negated scf_error_t, never an errno value. */
	assert(err == 0 || err <= -SCF_ERROR_NONE);
	if (!h)
		return err;
	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	/* Tools print these to terminals; configd cut its own already (a second cut would cut its notes). */
	if (msg && smf_has_control(msg, SMF_ESCAPE_KEEP_LAYOUT)) {
		char *e = smf_escape(msg, SMF_ESCAPE_KEEP_LAYOUT);

		free(msg);
		msg = e;
	}
	free(h->errmsg);
	/* Without memory for the sentence, scf_handle_errmsg() falls back on scf_strerror(). */
	h->errmsg = msg;
	h->last_error = err < 0 ? (scf_error_t)-err : SCF_ERROR_NONE;
	return err;
}

int client_errno_to_scf(int r)
{
	switch (r) {
	case -ENOMEM:
		return -SCF_ERROR_NO_MEMORY;
	case -ECONNRESET:
	case -ENOTCONN:
	case -EPIPE:
	case -ESHUTDOWN:
	case -ECONNABORTED:
	case -ECHILD: /* the connection was made by our parent before fork() */
		return -SCF_ERROR_CONNECTION_BROKEN;
	case -ENOENT:
	case -ECONNREFUSED:
		return -SCF_ERROR_NO_SERVER;
	case -EINVAL:
		return -SCF_ERROR_INVALID_ARGUMENT;
	case -ETIMEDOUT:
		return -SCF_ERROR_TIMEOUT;
	default:
		return -SCF_ERROR_INTERNAL;
	}
}

/* 0 when the name is not one we know (a transport error that sd-bus named after its errno). */
static int map_bus_name(const char *name)
{
	/* Callers that expect NotLatest (commit) look at the name before coming here. */
	scf_error_t e = smf_bus_error_from_name(name);

	if (e != 0)
		return -(int)e;
	for (size_t i = 0; i < ELEMENTSOF(sd_bus_errors); i++)
		if (streq(sd_bus_errors[i].name, name))
			return -(int)sd_bus_errors[i].error;
	/* A name a newer configd added: still configd's refusal, not a transport failure. */
	if (strneq(name, SMF_BUS_ERROR_PREFIX, strlen(SMF_BUS_ERROR_PREFIX)))
		return -SCF_ERROR_INTERNAL;
	return 0;
}

int client_error_from_bus(scf_handle_t *h, const char *member, int r, const sd_bus_error *e)
{
	int err = 0;

	if (sd_bus_error_is_set(e))
		err = map_bus_name(e->name);
	if (err == -SCF_ERROR_TIMEOUT || (err == 0 && r == -ETIMEDOUT))
		return client_set_error(h, -SCF_ERROR_TIMEOUT,
		        "%s: svc.configd did not answer within %.3g s (timed out)", member,
		        h ? (double)h->timeout_usec / (double)USEC_PER_SEC : 0.0);
	if (err != 0) {
		if (e->message && *e->message)
			return client_set_error(h, err, "%s", e->message);
		return client_set_error(h, err, "%s: %s", member, e->name);
	}
	err = client_errno_to_scf(r);
	if (err == -SCF_ERROR_CONNECTION_BROKEN || err == -SCF_ERROR_NO_SERVER)
		return client_set_error(h, -SCF_ERROR_CONNECTION_BROKEN,
		        "%s: connection to svc.configd lost: %s", member, strerror(-r));
	return client_set_error(h, err, "%s: %s", member, strerror(-r));
}

int client_bad_reply(scf_handle_t *h, const char *member, int r)
{
	if (r == -ENOMEM)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "%s: out of memory", member);
	return client_set_error(h, -SCF_ERROR_INTERNAL, "%s: malformed reply from svc.configd: %s",
	        member, strerror(-r));
}
