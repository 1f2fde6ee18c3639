/*
 * handle.c: libscf handles, the client side of org.minismf.Repository1.
 *
 * BIG THEORY STATEMENT
 *
 * A handle is one private connection to the svc.configd that serves a root: a UNIX stream
 * socket at $ROOT/etc/svc/volatile/repository_door wrapped in a peer-to-peer sd-bus object (no
 * bus daemon, no Hello; configd is the only peer, so calls carry no destination).  Every libscf
 * operation is one or two synchronous method calls on it (docs/protocol.md); there are no
 * per-element handles and no client-side cache, so whatever a call returns is configd's view at
 * that moment, and the pg generation carried with every read is what makes read-modify-write
 * safe (tx.c).
 *
 * Invariants:
 * - No global mutable state.  Everything a call touches hangs off its handle: the bus, the last
 *   error message, the notification queue.  A handle is not thread-safe (sd-bus objects are
 *   not), so threads each own one, exactly as on illumos.
 * - Never hang on a dead daemon.  A missing socket or a refused connect is NO_SERVER at
 *   creation (PERMISSION_DENIED when the socket or a directory above it may not be reached);
 *   a configd that does not accept (its backlog is full) or does not answer the handshake is
 *   TIMEOUT once the handle's timeout has passed since connect() began (sd-bus alone would wait
 *   up to 90 s for the handshake); once created, a configd that goes away makes the pending call fail with
 *   CONNECTION_BROKEN (sd-bus sees EOF/ECONNRESET at once), and every later call too.  A live
 *   but stuck configd costs at most the per-call timeout.
 * - Every public entry point clears the handle's error first and sets it on failure, so
 *   scf_handle_errmsg() always describes the last call: configd's sentence when configd
 *   refused, the library's own for local refusals (bad name, bad value, ambiguity).
 * - Signals (PgChanged/PgDeleted) may arrive while a method call waits for its reply; sd-bus
 *   queues them and dispatches them on the next sd_bus_process(), where notify.c appends them
 *   to the handle's FIFO.  Arrival order is commit order (configd sends them in commit order on
 *   one stream), and the FIFO keeps it.
 */
#include <assert.h>
#include <errno.h>
#include <stdarg.h>

#include "bus-strv.h"
#include "client-internal.h"
#include "paths.h"
#include "strv.h"
#include "timeutil.h"
#include "trace.h"
#include "unixsock.h"

static int check_version(scf_handle_t *h)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	uint32_t version = 0;
	int r;

	r = sd_bus_get_property_trivial(h->bus, NULL, SMF_BUS_PATH, SMF_BUS_INTERFACE,
	        smf_property_version.name, &error, smf_property_version.sig[0], &version);
	if (r < 0) {
		r = client_error_from_bus(h, smf_property_version.name, r, &error);
		/* A peer that hangs up before answering is no repository at all. */
		return r == -SCF_ERROR_CONNECTION_BROKEN ? -SCF_ERROR_NO_SERVER : r;
	}
	if (version != SMF_PROTOCOL_VERSION)
		return client_set_error(h, -SCF_ERROR_VERSION_MISMATCH,
		        "svc.configd speaks protocol version %u, this libscf speaks %u", version,
		        SMF_PROTOCOL_VERSION);
	return 0;
}

/*
 * Runs the D-Bus handshake until deadline.  sd_bus_call() would also run it, but bounded only by
 * sd-bus's own authentication timeout (90 s), not by ours.
 */
static int wait_ready(scf_handle_t *h, uint64_t deadline)
{
	for (;;) {
		uint64_t left;
		int r = sd_bus_is_ready(h->bus);

		if (r > 0)
			return 0;
		if (r == 0)
			r = sd_bus_process(h->bus, NULL);
		if (r < 0)
			return r == -ENOMEM ? -SCF_ERROR_NO_MEMORY : -SCF_ERROR_NO_SERVER;
		if (r > 0)
			continue;
		left = deadline_left_usec(deadline);
		if (left == 0)
			return -SCF_ERROR_TIMEOUT;
		r = sd_bus_wait(h->bus, left);
		if (r < 0 && r != -EINTR)
			return -SCF_ERROR_NO_SERVER;
	}
}

static int connect_bus(scf_handle_t *h)
{
	_cleanup_free_ char *door = NULL;
	_cleanup_close_ int fd = -1;
	uint64_t deadline = deadline_after_usec(h->timeout_usec);
	int r;

	r = smf_path(h->root, SMF_REL_DOOR, &door);
	if (r < 0)
		return -SCF_ERROR_NO_MEMORY;
	/* configd at its connection bound leaves us in its backlog: wait no longer than a call. */
	fd = smf_unix_connect_timeout(door, h->timeout_usec);
	if (fd == -ETIMEDOUT)
		return -SCF_ERROR_TIMEOUT;
	/* A configd serves there, but this user may not reach it: say so, not "unavailable". */
	if (fd == -EACCES || fd == -EPERM)
		return -SCF_ERROR_PERMISSION_DENIED;
	if (fd < 0)
		return fd == -ENOMEM ? -SCF_ERROR_NO_MEMORY : -SCF_ERROR_NO_SERVER;
	r = sd_bus_new(&h->bus);
	if (r < 0)
		return client_errno_to_scf(r);
	/* sd-bus owns the fd from here on, also when a later step fails. */
	r = sd_bus_set_fd(h->bus, fd, fd);
	if (r < 0)
		return client_errno_to_scf(r);
	TAKE_FD(fd);
	r = sd_bus_set_method_call_timeout(h->bus, h->timeout_usec);
	if (r < 0)
		return client_errno_to_scf(r);
	r = sd_bus_start(h->bus);
	if (r < 0)
		return r == -ENOMEM ? -SCF_ERROR_NO_MEMORY : -SCF_ERROR_NO_SERVER;
	return wait_ready(h, deadline);
}

int scf_handle_create(const char *root, scf_handle_t **ret)
{
	scf_handle_t *h;
	int r;

	if (!ret)
		return -SCF_ERROR_INVALID_ARGUMENT;
	h = calloc(1, sizeof(*h));
	if (!h)
		return -SCF_ERROR_NO_MEMORY;
	h->timeout_usec = SCF_DEFAULT_TIMEOUT_USEC;
	h->last_error = SCF_ERROR_NONE;
	r = smf_root_resolve(root, &h->root);
	if (r < 0)
		r = r == -ENOMEM ? -SCF_ERROR_NO_MEMORY : -SCF_ERROR_NO_SERVER;
	if (r >= 0) /* a libscf program under SMF_TRACE=1: traced; no trace is no error */
		(void)smf_trace_open_client(h->root, program_invocation_short_name);
	if (r >= 0)
		r = connect_bus(h);
	if (r >= 0)
		r = client_notify_attach(h);
	if (r >= 0)
		r = check_version(h);
	if (r < 0) {
		/* Not flushed: sd_bus_flush() waits for a handshake nobody answers (up to 90 s). */
		h->bus = sd_bus_close_unref(h->bus);
		scf_handle_destroy(h);
		return r;
	}
	client_clear_error(h);
	*ret = h;
	return 0;
}

void scf_handle_destroy(scf_handle_t *h)
{
	if (!h)
		return;
	h->signal_slot = sd_bus_slot_unref(h->signal_slot);
	/* Closing is what tells configd to forget our interests and a restarter registration. */
	h->bus = sd_bus_flush_close_unref(h->bus);
	client_notify_free_queue(h);
	free(h->errmsg);
	free(h->root);
	free(h);
}

const char *scf_handle_root(const scf_handle_t *h)
{
	return h ? h->root : NULL;
}

const char *scf_handle_errmsg(const scf_handle_t *h)
{
	if (!h)
		return "";
	if (h->errmsg)
		return h->errmsg;
	return h->last_error != SCF_ERROR_NONE ? scf_strerror(h->last_error) : "";
}

void scf_handle_set_timeout(scf_handle_t *h, uint64_t usec)
{
	if (!h)
		return;
	h->timeout_usec = usec;
	if (h->bus)
		(void)sd_bus_set_method_call_timeout(h->bus, usec);
}

void scf_strv_free(char **l)
{
	strv_free(l);
}

int client_new_call(scf_handle_t *h, const smf_bus_method_t *method, sd_bus_message **ret)
{
	int r;

	if (!h->bus)
		return client_set_error(h, -SCF_ERROR_NOT_BOUND, "handle not bound");
	r = sd_bus_message_new_method_call(
	        h->bus, ret, NULL, SMF_BUS_PATH, SMF_BUS_INTERFACE, method->name);
	if (r < 0)
		return client_error_from_bus(h, method->name, r, NULL);
	return 0;
}

int client_call_message(
        scf_handle_t *h, const smf_bus_method_t *method, sd_bus_message *m, sd_bus_message **reply)
{
	_cleanup_(sd_bus_error_free) sd_bus_error error = SD_BUS_ERROR_NULL;
	int r;

	/* configd would answer InvalidArgs: a library bug, which the tests should meet here. */
	assert(client_call_is(method, m));
	/* 0: the handle's timeout, set on the bus as its method-call default. */
	r = sd_bus_call(h->bus, m, 0, &error, reply);
	if (r < 0)
		return client_error_from_bus(h, method->name, r, &error);
	return 0;
}

int client_call(scf_handle_t *h, const smf_bus_method_t *method, sd_bus_message **reply, ...)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL;
	va_list ap;
	int r;

	r = client_new_call(h, method, &m);
	if (r < 0)
		return r;
	va_start(ap, reply);
	r = sd_bus_message_appendv(m, method->in, ap);
	va_end(ap);
	if (r < 0)
		return client_error_from_bus(h, method->name, r, NULL);
	return client_call_message(h, method, m, reply);
}

int client_read_reply(scf_handle_t *h, const smf_bus_method_t *method, sd_bus_message *reply, ...)
{
	va_list ap;
	int r;

	va_start(ap, reply);
	r = sd_bus_message_readv(reply, method->out, ap);
	va_end(ap);
	if (r < 0)
		return client_bad_reply(h, method->name, r);
	return 0;
}

int client_read_strv(
        scf_handle_t *h, const smf_bus_method_t *method, sd_bus_message *reply, char ***ret)
{
	int r;

	/* Linear in the list (bus-strv.h): a repository may hold 100,000 services. */
	r = smf_bus_read_strv(reply, SIZE_MAX, ret, NULL);
	if (r == -ENOMEM)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "%s: out of memory", method->name);
	if (r < 0)
		return client_bad_reply(h, method->name, r);
	return 0;
}
