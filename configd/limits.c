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
 *   whose connections together would exceed CONFIGD_MAX_QUEUED_BYTES_PER_UID, is closed and
 *   logged; a single message on an empty account always passes (a pg may be read whole).  The
 *   kernel's socket buffer of an unprivileged peer's connection holds at most
 *   CONFIGD_SOCKET_SNDBUF (doubled by the kernel) more.  After a
 *   connection that held a lot goes, malloc_trim() gives the memory back to the system.
 *
 * - Memory for a request.  sd-bus reads a message whole, up to 128 MiB, before configd sees it.
 *   A uid other than root and the owner only reads (its writes are refused), so its requests
 *   are small: at each message boundary (when the handshake is over, and after each message)
 *   limits_check_request() peeks at the next header and closes a connection that announces
 *   more than CONFIGD_MAX_REQUEST_BYTES, before sd-bus reads any of it: until the header is
 *   judged the gate (below) keeps sd-bus from reading.  A header that has not all arrived is
 *   waited for (polled, without reading).  One case escapes: sd-bus reads the handshake in
 *   blocks, so a peer that sends its first request in the same breath as its BEGIN may have
 *   part of it read with the handshake; what the socket then holds is no header and is not
 *   judged.  That first request must still be whole within the login deadline.
 * - The gate.  sd-bus reads a connection's socket only when its read queue is empty, and it
 *   has no way to write without reading.  So while output for a connection waits in configd
 *   (backpressure: a peer that does not read its replies is not read either, and costs one
 *   reply), or while its next header is to be judged, a placeholder (a local signal) sits in
 *   that queue; the filter consumes it when it comes round and the gate may open, or puts it
 *   back.  One thing the gate cannot see is a whole message sd-bus read with the handshake (it
 *   came after configd's look at the handshake): its sender waits for an answer and sends
 *   nothing, so after CONFIGD_GATE_BREAKER_USEC of silence at a boundary sd-bus gets one look:
 *   a message it held is served, nothing read closes the gate again for the rest of that
 *   boundary, and the start of a request that came in that very instant (unjudged) closes the
 *   connection.
 *
 * Invariants: a connection's account equals the sum of its entries, which correspond one to
 * one, oldest first, to the messages in its sd-bus write queue as of the last
 * connection_account(); a uid's account is the sum of its connections'; both are 0 once the
 * connection is freed.  Everything runs on configd's one thread.
 */
#include <endian.h>
#include <malloc.h>
#include <poll.h>
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

int limits_init(configd_t *m)
{
	const char *e = getenv("SMF_CONFIGD_LOGIN_TIMEOUT_MS");

	m->login_timeout_usec = CONFIGD_LOGIN_TIMEOUT_USEC;
	if (e && *e) {
		char *end = NULL;
		unsigned long ms = strtoul(e, &end, 10);

		if (*end || ms == 0 || ms > 3600u * 1000u)
			log_warning("ignoring SMF_CONFIGD_LOGIN_TIMEOUT_MS=%s (milliseconds, 1 to "
			            "3600000)",
			        e);
		else
			m->login_timeout_usec = (uint64_t)ms * 1000u;
	}
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
	if (p) {
		assert(p->queued_bytes >= c->queued_bytes && p->n_connections > 0);
		p->queued_bytes -= c->queued_bytes;
		p->n_connections--;
		if (!p->privileged)
			m->n_unprivileged--;
		if (p->n_connections == 0) {
			char key[16];

			assert(p->queued_bytes == 0);
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
	        p->queued_bytes + cost > CONFIGD_MAX_QUEUED_BYTES_PER_UID;
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
		        "unread (%s %u MiB); closing it",
		        (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid,
		        (unsigned long long)(over_conn ? c->queued_bytes : p->queued_bytes),
		        over_conn ? "a connection may hold" : "the connections of a uid may hold",
		        (over_conn ? CONFIGD_MAX_QUEUED_BYTES : CONFIGD_MAX_QUEUED_BYTES_PER_UID) >>
		                20);
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

/* ---- the gate ----------------------------------------------------------------------------- */

static bool gate_wanted(connection_t *c)
{
	return connection_output_waits(c) || (c->peer && !c->peer->privileged && c->at_boundary);
}

int connection_gate(connection_t *c)
{
	int r;

	if (c->gated || c->defer_free || !c->bus || sd_bus_is_ready(c->bus) <= 0 || !gate_wanted(c))
		return 0;
	if (!c->gate_msg) {
		r = sd_bus_message_new_signal(
		        c->bus, &c->gate_msg, "/org/minismf/Gate", "org.minismf.Gate", "Closed");
		if (r >= 0)
			r = sd_bus_message_seal(c->gate_msg, UINT32_MAX, 0);
		if (r < 0) {
			c->gate_msg = sd_bus_message_unref(c->gate_msg);
			return r;
		}
	}
	r = sd_bus_enqueue_for_read(c->bus, c->gate_msg);
	if (r >= 0)
		c->gated = true;
	return r;
}

int connection_gate_pass(connection_t *c, sd_bus_message *msg)
{
	if (!c->gate_msg || msg != c->gate_msg)
		return 0;
	c->gate_passed = true;
	c->gated = false;
	c->gate_bounced = gate_wanted(c) && connection_gate(c) >= 0 && c->gated;
	return 1;
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
		(void)setsockopt(sd_bus_get_fd(c->bus), SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

void limits_gate_looked(connection_t *c, int r)
{
	unsigned suppressed;

	c->gate_breaking = false;
	if (c->dispatched)
		return; /* a message sd-bus held: the next boundary follows it */
	if (r == 0) {
		/* sd-bus held nothing: the gate closes again, for good at this boundary. */
		c->at_boundary = true;
		c->gate_looked = true;
		return;
	}
	/* sd-bus read the start of a request in that instant, unjudged: not allowed. */
	if (limits_log_ok(c, &suppressed))
		log_warning(
		        "connection %llu (pid %d, uid %u): a request that could not be judged "
		        "before it was read; closing it (%u lines about this uid suppressed since "
		        "the last)",
		        (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid, suppressed);
	connection_drop(c, "request not judged");
}

/* ---- requests ----------------------------------------------------------------------------- */

/* The size a D-Bus message header announces (fixed part, fields, body); false if h is none. */
static bool announced_size(const uint8_t h[16], uint64_t *ret)
{
	uint32_t body, fields;

	if ((h[0] != 'l' && h[0] != 'B') || h[1] < 1 || h[1] > 4 || h[3] != 1)
		return false;
	memcpy(&body, h + 4, sizeof(body));
	memcpy(&fields, h + 12, sizeof(fields));
	body = h[0] == 'l' ? le32toh(body) : be32toh(body);
	fields = h[0] == 'l' ? le32toh(fields) : be32toh(fields);
	*ret = 16u + (((uint64_t)fields + 7u) & ~(uint64_t)7u) + body;
	return true;
}

/* Where the first message begins in what the handshake has sent so far, or -1 before BEGIN. */
static ssize_t after_begin(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 7 <= n; i++)
		if ((i == 0 || p[i - 1] == '\n') && memcmp(p + i, "BEGIN\r\n", 7) == 0)
			return (ssize_t)(i + 7);
	return -1;
}

static int request_too_large(connection_t *c, uint64_t size)
{
	unsigned suppressed;

	if (limits_log_ok(c, &suppressed))
		log_warning("connection %llu (pid %d, uid %u): a request of %llu bytes (at most %u "
		            "from this uid); closing it (%u lines about this uid suppressed since "
		            "the last)",
		        (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid,
		        (unsigned long long)size, CONFIGD_MAX_REQUEST_BYTES, suppressed);
	connection_drop(c, "request too large");
	return -1;
}

int limits_check_request(connection_t *c)
{
	/* What sd-bus may read at once during the handshake (its limit is 8 KiB of lines). */
	static uint8_t buf[16384];
	int fd = sd_bus_get_fd(c->bus);
	bool ready = sd_bus_is_ready(c->bus) > 0;
	uint64_t size = 0;
	ssize_t n, off = 0;

	if (!c->peer || c->peer->privileged || (ready && !c->at_boundary))
		return 0;
	n = recv(fd, buf, ready ? 16 : sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && errno == EAGAIN) {
		uint64_t now;

		if (!ready || !c->gated || connection_output_waits(c))
			return 0;
		/*
		 * Nothing to judge yet: wait for it (POLLIN), the gate keeping sd-bus from reading.
		 * But sd-bus may hold a whole message it read with the handshake (a client that sent
		 * it in the same write as BEGIN), whose sender waits for the answer: after
		 * CONFIGD_GATE_BREAKER_USEC without a byte, sd-bus gets one look
		 * (limits_gate_looked()).
		 */
		if (c->gate_looked)
			return 1; /* sd-bus held nothing: nothing but the socket can bring more */
		now = now_monotonic_usec();
		if (!c->gate_idle_since)
			c->gate_idle_since = now;
		if (now - c->gate_idle_since < CONFIGD_GATE_BREAKER_USEC)
			return 1;
		c->gate_idle_since = 0;
		c->gate_breaking = true;
		c->at_boundary = false;
		return 0;
	}
	c->gate_idle_since = 0;
	if (n <= 0) {
		/* The end or an error, no request: nothing to judge; sd-bus is to read and see it. */
		c->at_boundary = false;
		return 0;
	}
	if (!ready) {
		off = after_begin(buf, (size_t)n);
		if (off < 0)
			return 0; /* the handshake goes on */
		/*
		 * sd-bus may read what follows BEGIN with it: judge every header there now, and
		 * count the messages, which sd-bus then serves from what it read (server.c opens
		 * the gate for them).  A header not all there yet is waited for.
		 */
		c->leftover = 0;
		while (n - off >= 16) {
			if (!announced_size(buf + off, &size))
				return 0; /* not D-Bus: sd-bus says so */
			if (size > CONFIGD_MAX_REQUEST_BYTES)
				return request_too_large(c, size);
			c->leftover++;
			if (size > (uint64_t)(n - off))
				return 0;
			off += (ssize_t)size;
		}
		if (off == n)
			return 0;
	}
	if (n - off < 16) {
		struct pollfd p = {.fd = fd, .events = POLLRDHUP};

		/* A header in pieces: wait for the rest, unless the peer is gone. */
		c->header_wait = poll(&p, 1, 0) <= 0 || !(p.revents & (POLLRDHUP | POLLHUP));
		return c->header_wait ? 1 : 0;
	}
	c->header_wait = false;
	c->at_boundary = false;
	/* Not a header: sd-bus read past a boundary during the handshake; no judgement then. */
	if (!announced_size(buf + off, &size) || size <= CONFIGD_MAX_REQUEST_BYTES)
		return 0;
	return request_too_large(c, size);
}
