/*
 * limits.c: what one local peer may cost svc.configd.
 *
 * THEORY
 *
 * The socket is 0666: any local user may connect, and some are hostile.  Three resources are
 * finite and each has its bound here, enforced where the cost arises (docs/security.md has the
 * numbers and the tests behind them):
 *
 * - Connection slots.  configd serves CONFIGD_MAX_CONNECTIONS at once.  A uid other than root
 *   and the root directory's owner (the "privileged" uids, who may write anyway) holds at most
 *   CONFIGD_MAX_CONNECTIONS_PER_UID of them, and all such uids together at most
 *   CONFIGD_MAX_CONNECTIONS - CONFIGD_RESERVED_CONNECTIONS, so the privileged uids always find
 *   a slot.  A connection over its share is closed as soon as it is accepted (accepting never
 *   pauses for it, so the listen backlog keeps moving and root's connect() gets through).
 * - Time before the first request.  A connection that has not had a request dispatched
 *   (handshake done and a call sent) within the login deadline (CONFIGD_LOGIN_TIMEOUT_USEC, or
 *   $SMF_CONFIGD_LOGIN_TIMEOUT_MS) is closed: an idle, unauthenticated connection holds a slot
 *   of its uid's share only that long.
 * - Memory for output nobody reads.  Replies and notifications wait in sd-bus's write queue
 *   when the peer does not read.  Each connection's account mirrors that queue, message by
 *   message (sd-bus's queue is first-in first-out, and its length is all sd-bus tells us): a
 *   message costs what it was measured to cost (message_cost(): sd-bus's message object and a
 *   body up to half again its payload) for its payload, which connection_send_reply() counts
 *   for replies that may be large, notify.c for signals, and CONFIGD_SMALL_REPLY_BYTES stands
 *   for in any other reply.  A
 *   connection whose queue would exceed CONFIGD_MAX_QUEUED_BYTES, or a non-privileged uid
 *   whose connections together would hold more than CONFIGD_MAX_HELD_BYTES_PER_UID (with its
 *   unfinished requests), is closed and logged; a single message on an empty account always passes (a pg may be read whole).  The
 *   kernel's socket buffer of an unprivileged peer's connection holds at most
 *   CONFIGD_SOCKET_SNDBUF (doubled by the kernel) more.  After a
 *   connection that held a lot goes, malloc_trim() gives the memory back to the system.
 *
 * - Memory for a request.  configd, not sd-bus, reads what a peer sends (inlet.c), and judges
 *   each message from its header before any of it goes on: limits_judge_request() refuses a
 *   message over CONFIGD_MAX_REQUEST_BYTES from a uid other than root and the owner (they only
 *   read: their requests are small), and charges the size it announces to its connection and
 *   uid until it has been served (limits_request_done()), since that is what sd-bus allocates
 *   for it as soon as it starts reading it.  A uid's unread output and unfinished requests
 *   together stay within CONFIGD_MAX_HELD_BYTES_PER_UID: a message that would go past it closes
 *   its connection.
 * - Time to finish a message.  A message that has begun must be whole within the message
 *   deadline (CONFIGD_MESSAGE_TIMEOUT_USEC, or $SMF_CONFIGD_MESSAGE_TIMEOUT_MS), as the first
 *   request within the login deadline: a peer cannot hold its charge by trickling.  server.c
 *   arms both; a connection whose output waits is not read, so its deadline waits with it.
 *
 * Invariants: a connection's output account equals the sum of its entries, which correspond one
 * to one, oldest first, to the messages in its sd-bus write queue as of the last
 * connection_account(); a uid's accounts (output, requests) are the sums of its connections';
 * all are 0 once the connection is freed.  Everything runs on configd's one thread.
 */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "configd.h"
#include "hashmap.h"
#include "log.h"
#include "macro.h"
#include "timeutil.h"

/* Allocations from this size on are mapped, and unmapped when freed (see limits_init()). */
#define MMAP_THRESHOLD (128 * 1024)
/* Connections that held at least this much give memory back to the system when they go. */
#define TRIM_AFTER_BYTES (1024u * 1024u)

static void uid_key(uid_t uid, char buf[static 16])
{
	snprintf(buf, 16, "%u", (unsigned)uid);
}

/* A deadline from the environment, in milliseconds (1 to an hour), or dflt. */
static uint64_t timeout_from_env(const char *name, uint64_t dflt)
{
	const char *e = getenv(name);
	char *end = NULL;
	unsigned long ms;

	if (!e || !*e)
		return dflt;
	ms = strtoul(e, &end, 10);
	if (*end || ms == 0 || ms > 3600u * 1000u) {
		log_warning("ignoring %s=%s (milliseconds, 1 to 3600000)", name, e);
		return dflt;
	}
	return (uint64_t)ms * 1000u;
}

int limits_init(configd_t *m)
{
	m->login_timeout_usec =
	        timeout_from_env("SMF_CONFIGD_LOGIN_TIMEOUT_MS", CONFIGD_LOGIN_TIMEOUT_USEC);
	m->message_timeout_usec =
	        timeout_from_env("SMF_CONFIGD_MESSAGE_TIMEOUT_MS", CONFIGD_MESSAGE_TIMEOUT_USEC);
	/*
	 * Big replies are allocated with mmap() and unmapped when freed, so a reply configd held
	 * for a peer that never read it leaves no high-water mark behind.  A fixed threshold also
	 * stops glibc from raising it after such a free (which would keep the next ones on the heap).
	 */
	(void)mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
	m->peers = hashmap_new();
	return m->peers ? 0 : -ENOMEM;
}

void limits_done(configd_t *m)
{
	size_t state = 0;
	peer_t *p;

	/* Every connection has released its peer by now: what is left is a bug's leftovers. */
	while (m->peers && (p = hashmap_next(m->peers, &state, NULL)))
		free(p);
	m->peers = hashmap_free(m->peers);
}

bool limits_privileged(const configd_t *m, uid_t uid)
{
	return uid == 0 || uid == m->owner_uid;
}

#define LOG_INTERVAL_USEC (10u * 1000u * 1000u)
static bool log_ratelimit(peer_t *p, unsigned *suppressed)
{
	uint64_t now = now_monotonic_usec();

	if (p->logged_at && now - p->logged_at < LOG_INTERVAL_USEC) {
		p->suppressed++;
		return false;
	}
	p->logged_at = now;
	*suppressed = p->suppressed;
	p->suppressed = 0;
	return true;
}

bool limits_log_ok(connection_t *c, unsigned *suppressed)
{
	*suppressed = 0;
	return !c->peer || log_ratelimit(c->peer, suppressed);
}

int limits_admit(connection_t *c)
{
	configd_t *m = c->configd;
	char key[16];
	peer_t *p;
	const char *why = NULL;

	uid_key(c->uid, key);
	p = hashmap_get(m->peers, key);
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p || hashmap_put(m->peers, key, p) < 0) {
			free(p);
			return -ENOMEM;
		}
		p->uid = c->uid;
		p->privileged = limits_privileged(m, c->uid);
	}
	if (!p->privileged && p->n_connections >= CONFIGD_MAX_CONNECTIONS_PER_UID)
		why = "its share of connections";
	else if (!p->privileged &&
	        m->n_unprivileged >= CONFIGD_MAX_CONNECTIONS - CONFIGD_RESERVED_CONNECTIONS)
		why = "the connections open to unprivileged users";
	if (why) {
		unsigned suppressed;

		if (log_ratelimit(p, &suppressed))
			log_warning("refusing a connection from uid %u (pid %d): it holds %s (%u); "
			            "%u lines about this uid suppressed since the last",
			        (unsigned)c->uid, (int)c->pid, why, p->n_connections, suppressed);
		if (p->n_connections == 0)
			free(hashmap_remove(m->peers, key));
		return -EUSERS;
	}
	p->n_connections++;
	if (!p->privileged)
		m->n_unprivileged++;
	c->peer = p;
	return 0;
}

void limits_release(connection_t *c)
{
	configd_t *m = c->configd;
	peer_t *p = c->peer;
	bool trim = c->queued_high >= TRIM_AFTER_BYTES;

	free(c->costs);
	c->costs = NULL;
	c->n_costs = c->costs_head = c->costs_allocated = 0;
	limits_request_done(c);
	if (p) {
		assert(p->queued_bytes >= c->queued_bytes && p->n_connections > 0);
		p->queued_bytes -= c->queued_bytes;
		p->n_connections--;
		if (!p->privileged)
			m->n_unprivileged--;
		if (p->n_connections == 0) {
			char key[16];

			assert(p->queued_bytes == 0 && p->request_bytes == 0);
			uid_key(p->uid, key);
			free(hashmap_remove(m->peers, key));
		}
		c->peer = NULL;
	}
	c->queued_bytes = 0;
	/* The bus and its queue are freed by now (connection_free() releases last). */
	if (trim)
		(void)malloc_trim(0);
}

/* ---- output ------------------------------------------------------------------------------- */

static void pop_cost(connection_t *c)
{
	uint64_t cost;

	assert(c->n_costs > 0);
	cost = c->costs[c->costs_head++];
	c->n_costs--;
	assert(c->queued_bytes >= cost);
	c->queued_bytes -= cost;
	if (c->peer) {
		assert(c->peer->queued_bytes >= cost);
		c->peer->queued_bytes -= cost;
	}
	if (c->n_costs == 0)
		c->costs_head = 0;
}

/* Appends one entry; false (logged) when that puts c or its uid over a bound. */
static bool push_cost(connection_t *c, uint64_t cost)
{
	peer_t *p = c->peer;
	bool over_conn, over_uid;

	over_conn = c->queued_bytes > 0 && c->queued_bytes + cost > CONFIGD_MAX_QUEUED_BYTES;
	over_uid = p && !p->privileged && p->queued_bytes > 0 &&
	        p->queued_bytes + p->request_bytes + cost > CONFIGD_MAX_HELD_BYTES_PER_UID;
	/* Compact in place before growing: the live entries are the tail. */
	if (c->costs_head > 0 && c->costs_head + c->n_costs == c->costs_allocated) {
		memmove(c->costs, c->costs + c->costs_head, c->n_costs * sizeof(*c->costs));
		c->costs_head = 0;
	}
	if (GREEDY_REALLOC(c->costs, c->costs_allocated, c->costs_head + c->n_costs + 1) < 0) {
		log_error("connection %llu: out of memory counting its output; closing it",
		        (unsigned long long)c->id);
		return false;
	}
	c->costs[c->costs_head + c->n_costs++] = cost;
	c->queued_bytes += cost;
	if (p)
		p->queued_bytes += cost;
	if (c->queued_bytes > c->queued_high)
		c->queued_high = c->queued_bytes;
	if (over_conn || over_uid) {
		log_warning(
		        "connection %llu (pid %d, uid %u): %llu bytes of replies and notifications "
		        "unread (%s %u MiB%s); closing it",
		        (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid,
		        (unsigned long long)(over_conn ? c->queued_bytes : p->queued_bytes),
		        over_conn ? "a connection may hold" : "the connections of a uid may hold",
		        (over_conn ? CONFIGD_MAX_QUEUED_BYTES : CONFIGD_MAX_HELD_BYTES_PER_UID) >>
		                20,
		        over_conn ? "" : " with their unfinished requests");
		return false;
	}
	return true;
}

/*
 * What a queued message of this payload costs configd, measured with sd-bus 252: about 1.2 KiB
 * for the message itself, and a body that grew by reallocation may take half as much again as
 * its payload; one past the mmap threshold is mapped to its size, rounded to a page.
 */
static uint64_t message_cost(uint64_t payload)
{
	return CONFIGD_MESSAGE_OVERHEAD_BYTES +
	        (payload < MMAP_THRESHOLD ? payload + payload / 2 : payload + 4096);
}

bool connection_account(connection_t *c, uint64_t last_bytes)
{
	uint64_t queued = 0;
	bool ok = true;

	if (!c->bus || sd_bus_get_n_queued_write(c->bus, &queued) < 0)
		return true; /* closed: nothing is held any more (freed with the bus) */
	while (c->n_costs > queued)
		pop_cost(c);
	while (ok && c->n_costs < queued) {
		bool last = c->n_costs + 1 == queued;

		ok = push_cost(c,
		        message_cost(last && last_bytes ? last_bytes : CONFIGD_SMALL_REPLY_BYTES));
	}
	if (!ok)
		connection_drop(c, "too much output unread");
	return ok;
}

bool connection_output_waits(connection_t *c)
{
	uint64_t queued = 0;

	return c->bus && sd_bus_get_n_queued_write(c->bus, &queued) >= 0 && queued > 0;
}

/* The bytes m's body takes on the wire, near enough: every element counted with 8 of padding. */
static int body_bytes(sd_bus_message *m, uint64_t *n)
{
	for (;;) {
		const char *contents = NULL;
		char type = 0;
		int r = sd_bus_message_peek_type(m, &type, &contents);

		if (r <= 0)
			return r;
		*n += 8;
		if (strchr("arve", type)) {
			r = sd_bus_message_enter_container(m, type, contents);
			if (r >= 0)
				r = body_bytes(m, n);
			if (r >= 0)
				r = sd_bus_message_exit_container(m);
		} else if (strchr("sog", type)) {
			const char *s = NULL;

			r = sd_bus_message_read_basic(m, type, &s);
			if (r >= 0)
				*n += strlen(s) + 1;
		} else
			r = sd_bus_message_skip(m, (const char[]){type, 0});
		if (r < 0)
			return r;
	}
}

int connection_send_reply(sd_bus_message *reply)
{
	connection_t *c = sd_bus_get_current_userdata(sd_bus_message_get_bus(reply));
	uint64_t before = 0, after = 0, bytes = 0;
	int r;

	assert(c);
	(void)sd_bus_get_n_queued_write(c->bus, &before);
	r = sd_bus_message_send(reply);
	if (r < 0)
		return r;
	/* Only what the socket did not take is held: measure that alone. */
	if (sd_bus_get_n_queued_write(c->bus, &after) >= 0 && after > before &&
	        sd_bus_message_rewind(reply, true) >= 0 && body_bytes(reply, &bytes) < 0)
		bytes = 0;
	(void)connection_account(c, bytes);
	return r;
}

void connection_set_sndbuf(connection_t *c)
{
	int size = CONFIGD_SOCKET_SNDBUF;

	/*
	 * After sd_bus_start(), which asked for 8 MiB (doubled by the kernel): an unprivileged
	 * peer's share of kernel memory stays small.  Root's and the owner's connections keep it,
	 * so a large reply to them (a 32 MiB composed pg) goes out in few rounds.
	 */
	if (c->peer && !c->peer->privileged)
		(void)setsockopt(c->fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

/* ---- requests ----------------------------------------------------------------------------- */

int limits_judge_request(connection_t *c, uint64_t size)
{
	peer_t *p = c->peer;
	bool privileged = !p || p->privileged;
	uint64_t limit = privileged ? CONFIGD_MAX_MESSAGE_BYTES : CONFIGD_MAX_REQUEST_BYTES;
	unsigned suppressed;

	assert(c->request_bytes == 0);
	if (size > limit) {
		if (limits_log_ok(c, &suppressed))
			log_warning("connection %llu (pid %d, uid %u): a request of %llu bytes (at "
			            "most %llu from this uid); closing it (%u lines about this uid "
			            "suppressed since the last)",
			        (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid,
			        (unsigned long long)size, (unsigned long long)limit, suppressed);
		connection_drop(c, "request too large");
		return -EMSGSIZE;
	}
	if (!privileged &&
	        p->queued_bytes + p->request_bytes + size > CONFIGD_MAX_HELD_BYTES_PER_UID) {
		if (limits_log_ok(c, &suppressed))
			log_warning(
			        "connection %llu (pid %d, uid %u): a request of %llu bytes beside "
			        "%llu of unfinished requests and %llu of unread output (the "
			        "connections of a uid may hold %u MiB); closing it (%u lines about "
			        "this uid suppressed since the last)",
			        (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid,
			        (unsigned long long)size, (unsigned long long)p->request_bytes,
			        (unsigned long long)p->queued_bytes,
			        CONFIGD_MAX_HELD_BYTES_PER_UID >> 20, suppressed);
		connection_drop(c, "unfinished requests over the uid's bound");
		return -ENOBUFS;
	}
	c->request_bytes = size;
	if (p)
		p->request_bytes += size;
	return 0;
}

void limits_request_done(connection_t *c)
{
	if (c->peer) {
		assert(c->peer->request_bytes >= c->request_bytes);
		c->peer->request_bytes -= c->request_bytes;
	}
	c->request_bytes = 0;
}
