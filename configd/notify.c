/*
 * notify.c: change notifications.
 *
 * A connection registers interests (pg names, pg types).  After a change is committed to
 * SQLite, the handler calls notify_pg_changed()/notify_pg_deleted(), which queue one signal on
 * each connection with a matching interest.  Since everything runs on one thread and each
 * handler notifies right after its own commit, the signals of one connection are queued, and
 * therefore delivered, in commit order; a client that registered before a commit is always
 * told about it.  Every pg signal leaves through notify_send(), InstanceAdded (only to the
 * connections that asked for it) through notify_send_instance(): the two places where the
 * trace point (configd.notify_sent, once per connection) and the delay point
 * configd.notify.before_send sit.  Every signal carries the commit id of the write that caused
 * it (probes.h).  The delay comes after the commit, its trace events and its reply, so it
 * stretches exactly the time a subscriber (startd) waits to hear of a change that already
 * exists.
 *
 * A subscriber that does not read is not allowed to grow configd without bound: every signal
 * left in its write queue is counted against the one bound on its output (limits.c: replies and
 * signals together, CONFIGD_MAX_QUEUED_BYTES), and past it the connection is closed (skipping a
 * signal would break the promise above).
 */
#include <string.h>

#include "configd.h"
#include "log.h"
#include "delay.h"
#include "probes.h"
#include "strv.h"

int notify_add_interest(connection_t *c, bool by_type, const char *name, sd_bus_error *error)
{
	char ***l = by_type ? &c->notify_types : &c->notify_names;
	int r;

	r = scf_name_validate(name);
	if (r < 0)
		return configd_errorf(error, smf_bus_error_name(r),
		        "\"%s\" is not a valid property group %s", name, by_type ? "type" : "name");
	if (strv_contains(*l, name))
		return 0;
	if (strv_length(c->notify_names) + strv_length(c->notify_types) >= CONFIGD_MAX_INTERESTS)
		return sd_bus_error_setf(error, SMF_BUS_ERROR_NO_RESOURCES,
		        "a connection may register at most %u notification interests",
		        CONFIGD_MAX_INTERESTS);
	if (!*l) {
		*l = strv_new_empty();
		if (!*l)
			return -ENOMEM;
	}
	return strv_extend(l, name);
}

void notify_reset(connection_t *c)
{
	strv_free(c->notify_names);
	strv_free(c->notify_types);
	c->notify_names = c->notify_types = NULL;
	c->notify_instances = false;
}

static bool interested(const connection_t *c, const scf_pg_t *pg)
{
	return strv_contains(c->notify_names, pg->name) || strv_contains(c->notify_types, pg->type);
}

/*
 * What a signal costs in the write queue, at most: its header (path, interface, member,
 * signature, serial: under 160 bytes) and its strings with their length words, NULs, padding.
 */
#define NOTIFY_HEADER_BYTES 192u
static uint64_t signal_bytes(const scf_pg_t *pg)
{
	return NOTIFY_HEADER_BYTES + strlen(pg->entity) + strlen(pg->name) + strlen(pg->type) +
	        3 * 8 + 2 * 8;
}

/*
 * After sd_bus_send() of a signal of the given cost: counted if the socket did not take it
 * all (past the bound, c is dropped, logged); a send that failed ends the connection.
 */
static void signal_queued(connection_t *c, int r, uint64_t bytes, const char *what, const char *pg)
{
	if (r >= 0 && connection_account(c, bytes))
		connection_update(c); /* what the socket did not take needs EPOLLOUT */
	if (r < 0) {
		/*
		 * The peer does not read (its queue is full) or is gone.  Skipping this signal would
		 * break the promise that a subscriber sees every change in order, so the connection
		 * ends instead; the client sees it broken and starts over.
		 */
		log_warning_errno(r,
		        "connection %llu (pid %d): cannot queue a notification for %s%s%s; "
		        "closing it",
		        (unsigned long long)c->id, (int)c->pid, what, pg ? "/" : "", strempty(pg));
		connection_drop(c, "notification undeliverable");
	}
}

/* The single exit of every notification. */
static void notify_send(connection_t *c, const scf_pg_t *pg, bool deleted)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL;
	const smf_bus_signal_t *sig = deleted ? &smf_signal_pg_deleted : &smf_signal_pg_changed;
	uint64_t bytes = signal_bytes(pg);
	int r;

	smf_point(SMF_POINT_CONFIGD_NOTIFY_BEFORE_SEND);
	r = sd_bus_message_new_signal(c->bus, &msg, SMF_BUS_PATH, SMF_BUS_INTERFACE, sig->name);
	/* The commit id: the subscriber names it as the cause of what it does next. */
	if (r >= 0)
		r = deleted ? sd_bus_message_append(msg, sig->sig, pg->entity, pg->name, pg->type,
		                      probe_commit_id())
		            : sd_bus_message_append(msg, sig->sig, pg->entity, pg->name, pg->type,
		                      pg->generation, probe_commit_id());
	if (r >= 0) {
		/*
		 * Traced before the send: sd_bus_send() often writes to the socket at once, and
		 * the subscriber's notify_received must not precede our notify_sent in the trace.
		 */
		probe_notify_sent(c, pg);
		r = sd_bus_send(c->bus, msg, NULL);
	}
	signal_queued(c, r, bytes, pg->entity, pg->name);
}

static void notify_all(configd_t *m, const scf_pg_t *pg, bool deleted)
{
	for (connection_t *c = m->connections; c; c = c->next)
		if (!c->defer_free && interested(c, pg))
			notify_send(c, pg, deleted);
}

void notify_pg_changed(configd_t *m, const scf_pg_t *pg)
{
	notify_all(m, pg, false);
}

void notify_pg_deleted(configd_t *m, const scf_pg_t *pg)
{
	notify_all(m, pg, true);
}

/*
 * InstanceAdded, to the connections that asked (NotifyAddInstances): the same rules as a pg
 * signal (the delay point, the one bound on a connection's unread output, a connection dropped
 * rather than a signal skipped, configd.notify_sent traced before the send), with the instance
 * FMRI and the commit id of the write that created it.
 */
static void notify_send_instance(connection_t *c, const char *fmri)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *msg = NULL;
	uint64_t bytes = NOTIFY_HEADER_BYTES + strlen(fmri) + 8 + 8;
	int r;

	smf_point(SMF_POINT_CONFIGD_NOTIFY_BEFORE_SEND);
	r = sd_bus_message_new_signal(
	        c->bus, &msg, SMF_BUS_PATH, SMF_BUS_INTERFACE, smf_signal_instance_added.name);
	if (r >= 0)
		r = sd_bus_message_append(
		        msg, smf_signal_instance_added.sig, fmri, probe_commit_id());
	if (r >= 0) {
		probe_instance_notify_sent(c, fmri); /* before the send, as notify_send()'s */
		r = sd_bus_send(c->bus, msg, NULL);
	}
	signal_queued(c, r, bytes, fmri, NULL);
}

void notify_instance_added(configd_t *m, const char *fmri)
{
	for (connection_t *c = m->connections; c; c = c->next)
		if (!c->defer_free && c->notify_instances)
			notify_send_instance(c, fmri);
}
