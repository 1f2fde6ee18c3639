/*
 * notify.c: change notifications.
 *
 * configd sends PgChanged/PgDeleted signals on our connection, in commit order, for the pg
 * names and types registered on it, and InstanceAdded once scf_notify_add_instances() asked;
 * each ends with the commit id of the write that caused it (protocol.h).  A signal can reach us
 * at any time, including while a method call of ours waits for its reply; sd-bus then keeps it
 * in its read queue and dispatches it on the next sd_bus_process().  Our match callback turns
 * each signal into a scf_notification_t at the tail of the handle's FIFO, so the order the
 * caller sees is the order on the wire, whichever call happened to pull the signal in.
 *
 * scf_notify_wait() serves the FIFO first, then lets sd-bus process (which may append), then
 * sleeps in sd_bus_wait() until the deadline.  The bus fd is what an event loop polls; since a
 * signal can be buffered inside sd-bus (or already in the FIFO) without the fd being readable,
 * callers drain with a zero timeout before polling again.
 */
#include "client-internal.h"
#include "fifo.h"
#include "trace.h"

struct notify_entry {
	notify_entry_t *next;
	scf_notification_t n;
};

void scf_notification_clear(scf_notification_t *n)
{
	if (!n)
		return;
	free(n->entity);
	free(n->pg);
	free(n->pgtype);
	*n = (scf_notification_t){};
}

static void notify_entry_free(notify_entry_t *e)
{
	scf_notification_clear(&e->n);
	free(e);
}

void client_notify_free_queue(scf_handle_t *h)
{
	notify_entry_t *e;

	while ((e = FIFO_POP(h->notify_head, h->notify_tail)))
		notify_entry_free(e);
}

/* The commit id that ends a signal (protocol.h), when the sender appended one; else 0. */
static int read_commit_id(sd_bus_message *m, uint64_t *ret)
{
	char type = 0;

	*ret = 0;
	if (sd_bus_message_peek_type(m, &type, NULL) <= 0 || type != SD_BUS_TYPE_UINT64)
		return 0;
	return sd_bus_message_read(m, "t", ret);
}

static int parse_signal(sd_bus_message *m, scf_notification_t *n)
{
	const char *entity, *pg, *type;
	uint64_t gen = 0;
	int r;

	if (sd_bus_message_is_signal(m, SMF_BUS_INTERFACE, smf_signal_pg_changed.name)) {
		n->kind = SCF_NOTIFY_PG_UPDATED;
		r = sd_bus_message_read(m, "ssst", &entity, &pg, &type, &gen);
	} else if (sd_bus_message_is_signal(m, SMF_BUS_INTERFACE, smf_signal_pg_deleted.name)) {
		n->kind = SCF_NOTIFY_PG_DELETED;
		r = sd_bus_message_read(m, "sss", &entity, &pg, &type);
	} else if (sd_bus_message_is_signal(m, SMF_BUS_INTERFACE, smf_signal_instance_added.name)) {
		n->kind = SCF_NOTIFY_INSTANCE_ADDED;
		r = sd_bus_message_read(m, "s", &entity);
		if (r >= 0)
			r = read_commit_id(m, &n->commit_id);
		if (r < 0)
			return r;
		n->entity = strdup(entity);
		return n->entity ? 1 : -ENOMEM;
	} else
		return 0;
	if (r >= 0)
		r = read_commit_id(m, &n->commit_id);
	if (r < 0)
		return r;
	n->generation = gen;
	n->entity = strdup(entity);
	n->pg = strdup(pg);
	n->pgtype = strdup(type);
	if (!n->entity || !n->pg || !n->pgtype)
		return -ENOMEM;
	return 1;
}

static int on_signal(sd_bus_message *m, void *userdata, sd_bus_error *ret_error)
{
	scf_handle_t *h = userdata;
	notify_entry_t *e;
	int r;

	e = calloc(1, sizeof(*e));
	if (!e) {
		h->notify_error = -SCF_ERROR_NO_MEMORY;
		return 0;
	}
	r = parse_signal(m, &e->n);
	if (r <= 0) {
		notify_entry_free(e);
		/* A malformed signal is dropped; losing one silently would break commit order. */
		if (r < 0)
			h->notify_error = r == -ENOMEM ? -SCF_ERROR_NO_MEMORY : -SCF_ERROR_INTERNAL;
		return 0;
	}
	FIFO_PUSH(h->notify_head, h->notify_tail, e);
	return 0;
}

int client_notify_attach(scf_handle_t *h)
{
	int r;

	/* Peer-to-peer: no bus driver, so the match is local and costs no round trip. */
	r = sd_bus_match_signal(
	        h->bus, &h->signal_slot, NULL, NULL, SMF_BUS_INTERFACE, NULL, on_signal, h);
	return r < 0 ? client_errno_to_scf(r) : 0;
}

static int notify_call(
        scf_handle_t *h, const smf_bus_method_t *method, const char *arg, bool by_type)
{
	int r;

	client_clear_error(h);
	if (!arg || !*arg)
		return client_set_error(
		        h, -SCF_ERROR_INVALID_ARGUMENT, "%s: empty name", method->name);
	r = client_call(h, method, NULL, arg);
	/* Traced once registered: from here on every matching change comes as a notification. */
	if (r >= 0)
		smf_trace_str_args(SMF_TRACE_SCF_NOTIFY_INTEREST, 0, arg, 0,
		        by_type ? SMF_TRACE_INTEREST_TYPE : SMF_TRACE_INTEREST_NAME);
	return r;
}

int scf_notify_add_pgname(scf_handle_t *h, const char *pgname)
{
	return notify_call(h, &smf_method_notify_add_pg_name, pgname, false);
}

int scf_notify_add_pgtype(scf_handle_t *h, const char *pgtype)
{
	return notify_call(h, &smf_method_notify_add_pg_type, pgtype, true);
}

int scf_notify_add_instances(scf_handle_t *h)
{
	int r;

	client_clear_error(h);
	r = client_call(h, &smf_method_notify_add_instances, NULL);
	if (r >= 0)
		smf_trace_str_args(SMF_TRACE_SCF_NOTIFY_INTEREST, 0, smf_signal_instance_added.name,
		        0, SMF_TRACE_INTEREST_INSTANCES);
	return r;
}

/* Dispatches whatever sd-bus has queued or can read without blocking. */
static int drain(scf_handle_t *h)
{
	int r;

	do
		r = sd_bus_process(h->bus, NULL);
	while (r > 0);
	if (r < 0)
		return client_error_from_bus(h, "notification", r, NULL);
	return 0;
}

int scf_notify_reset(scf_handle_t *h)
{
	int r;

	client_clear_error(h);
	r = client_call(h, &smf_method_notify_reset, NULL);
	if (r < 0)
		return r;
	/* Signals sent before the reset precede its reply on the wire: drop them too. */
	r = drain(h);
	client_notify_free_queue(h);
	h->notify_error = 0;
	return r;
}

/* scf.notify_received: the notification handed to the caller (what it may now act on). */
static void trace_received(const scf_notification_t *n)
{
	char *fmri = NULL;

	if (!smf_trace_enabled())
		return;
	/* InstanceAdded names no pg: its object is the instance. */
	if (!n->pg)
		fmri = strdup(n->entity);
	else if (asprintf(&fmri, "%s/:properties/%s", n->entity, n->pg) < 0)
		fmri = NULL;
	smf_trace_str_args(SMF_TRACE_SCF_NOTIFY_RECEIVED, smf_trace_instance_flow(n->entity), fmri,
	        n->commit_id, n->kind == SCF_NOTIFY_PG_UPDATED ? n->generation : 0);
	free(fmri);
}

static int pop(scf_handle_t *h, scf_notification_t *ret)
{
	notify_entry_t *e = FIFO_POP(h->notify_head, h->notify_tail);

	*ret = e->n;
	e->n = (scf_notification_t){};
	notify_entry_free(e);
	trace_received(ret);
	return 1;
}

int scf_notify_wait(scf_handle_t *h, uint64_t timeout_usec, scf_notification_t *ret)
{
	uint64_t deadline = deadline_after_usec(timeout_usec);
	uint64_t left;
	int r;

	client_clear_error(h);
	if (!ret)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "no notification to fill");
	*ret = (scf_notification_t){};
	for (;;) {
		if (h->notify_error < 0) {
			r = h->notify_error;
			h->notify_error = 0;
			return client_set_error(h, r, "a notification was lost");
		}
		if (h->notify_head)
			return pop(h, ret);
		r = sd_bus_process(h->bus, NULL);
		if (r < 0)
			return client_error_from_bus(h, "notification", r, NULL);
		if (r > 0)
			continue;
		left = deadline_left_usec(deadline);
		if (left == 0)
			return 0;
		r = sd_bus_wait(h->bus, left);
		if (r < 0 && r != -EINTR)
			return client_error_from_bus(h, "notification", r, NULL);
	}
}

int scf_notify_fd(scf_handle_t *h)
{
	int fd;

	client_clear_error(h);
	fd = sd_bus_get_fd(h->bus);
	if (fd < 0)
		return client_error_from_bus(h, "notification", fd, NULL);
	return fd;
}
