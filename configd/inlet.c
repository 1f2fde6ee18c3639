/*
 * inlet.c: every byte a peer sends passes here before sd-bus sees it.
 *
 * THEORY
 *
 * sd-bus reads a message whole before its owner sees any of it, sizing it from the header alone
 * (up to 128 MiB), and it keeps reading after a message it drops as malformed.  So configd does
 * not let sd-bus read a peer's socket at all.  Each connection's bus reads from one end of a
 * socketpair (the pump) and writes to the peer's socket directly; configd reads the peer's
 * socket itself and relays to the pump only what it has judged:
 *
 * - The handshake (SASL lines, INLET_HANDSHAKE) is relayed line by line up to BEGIN, so sd-bus
 *   never holds a byte of a message with it.  AUTH EXTERNAL is the only mechanism let through,
 *   and the uid it names, if any, must be the one the kernel gave at connect() (SO_PEERCRED):
 *   sd-bus cannot check it, since its end of the pump is configd's own.
 * - At a message boundary (INLET_HEADER) the next 16 bytes are a header, sized exactly as sd-bus
 *   sizes it (the endianness byte and the two lengths, whatever the rest says), and judged
 *   (limits_judge_request(): the size a uid may send, and what its unfinished requests may hold
 *   together) before any of the message goes on.  A header that is not D-Bus, or announces less
 *   than the smallest message, closes the connection.
 * - A judged message (INLET_BODY) is relayed to its last byte and no further, so configd, not
 *   sd-bus, always knows where the next message begins, whatever sd-bus makes of this one.
 *
 * So the end of the peer's stream is seen at once, at any byte (configd is the one reading), and
 * no byte waits unread for a poll: whatever arrives is read when it arrives.  A message that has
 * begun must end within the message deadline (server.c arms it from inlet.started).
 *
 * The gate: while output for the connection waits in sd-bus (its peer does not read), no new
 * message is begun: the socket is not polled for input, so the peer's requests wait in its own
 * socket, and configd holds one reply.  A message already begun is relayed to its end first.
 *
 * Read-ahead is bounded: at a boundary configd reads at most CONFIGD_STAGE_BYTES, kept in the
 * connection's stage (allocated while it holds bytes); a body beyond it is read in exact pieces
 * through one buffer shared by every connection (configd has one thread).
 *
 * Invariants: sd-bus has been given exactly the relayed bytes, and they end at a line end during
 * the handshake and at a message boundary in INLET_HEADER; c->request_bytes is the size of the
 * message in INLET_BODY and 0 otherwise; the stage is allocated only while it holds bytes.
 */
#include <endian.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "configd.h"
#include "log.h"
#include "macro.h"
#include "timeutil.h"

/* A D-Bus message header: endianness, type, flags, version, body length, serial, fields length. */
#define HEADER_BYTES 16u
/* The pieces a large body is relayed in. */
#define RELAY_BYTES (64u * 1024u)
/*
 * What the pump's kernel buffer takes at once (the kernel doubles it): a request of the
 * unprivileged maximum; for root and the owner, who may send up to 128 MiB, what sd-bus asks
 * for its own sockets.  sd-bus reallocates its buffer to the message's size at every read, so a
 * large message fed through a small pump would cost a copy of itself per pumpful where the
 * allocator moves (AddressSanitizer's always does).
 */
#define PUMP_SNDBUF ((int)CONFIGD_MAX_REQUEST_BYTES)
#define PUMP_SNDBUF_PRIVILEGED (8 * 1024 * 1024)

static uint8_t relay_buf[RELAY_BYTES];

int inlet_open(connection_t *c)
{
	int sv[2], size = PUMP_SNDBUF, big = PUMP_SNDBUF_PRIVILEGED;

	c->inlet = (inlet_t){.state = INLET_HANDSHAKE, .pump = -1};
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) < 0)
		return negative_errno();
	/* Past the system's wmem_max only with CAP_NET_ADMIN: else as far as it allows. */
	if (!c->peer || !c->peer->privileged ||
	        (setsockopt(sv[0], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof(big)) < 0 &&
	                setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &big, sizeof(big)) < 0))
		(void)setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
	c->inlet.pump = sv[0];
	return sv[1];
}

void inlet_close(connection_t *c)
{
	if (c->inlet.pump >= 0)
		close(c->inlet.pump);
	c->inlet.pump = -1;
	c->inlet.stage = mfree(c->inlet.stage);
	c->inlet.staged = 0;
}

bool inlet_wants_input(connection_t *c)
{
	switch (c->inlet.state) {
	case INLET_HANDSHAKE:
		return !c->inlet.begun;
	case INLET_HEADER:
		return !connection_output_waits(c);
	case INLET_BODY:
		return true;
	}
	assert(!"an inlet state");
	return false;
}

uint64_t inlet_deadline(connection_t *c)
{
	if (!c->inlet.started || !c->peer || c->peer->privileged)
		return 0;
	return c->inlet.started + c->configd->message_timeout_usec;
}

/* Logs (rate-limited per uid) why c is closed, and closes it; returns -1. */
static int refuse(connection_t *c, const char *why, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));
static int refuse(connection_t *c, const char *why, const char *fmt, ...)
{
	unsigned suppressed;

	if (limits_log_ok(c, &suppressed)) {
		char what[256];
		va_list ap;

		va_start(ap, fmt);
		(void)vsnprintf(what, sizeof(what), fmt, ap);
		va_end(ap);
		log_warning("connection %llu (pid %d, uid %u): %s; closing it (%u lines about this "
		            "uid suppressed since the last)",
		        (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid, what, suppressed);
	}
	connection_drop(c, why);
	return -1;
}

/* Reads at most n bytes of the peer's: > 0 read, 0 none yet, -1 the peer is gone (dropped). */
static ssize_t peer_read(connection_t *c, void *p, size_t n)
{
	ssize_t k;

	do
		k = recv(c->fd, p, n, MSG_DONTWAIT);
	while (k < 0 && errno == EINTR);
	if (k > 0)
		return k;
	if (k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	/* The end of the stream, at whatever byte: nothing more can come, the slot goes now. */
	connection_drop(c, k == 0 ? "the peer closed its end" : "the peer's socket failed");
	return -1;
}

/* Fills the stage from the peer: > 0 bytes read, 0 none yet, -1 dropped. */
static ssize_t stage_fill(connection_t *c)
{
	inlet_t *in = &c->inlet;
	ssize_t k;

	if (!in->stage) {
		in->stage = malloc(CONFIGD_STAGE_BYTES);
		if (!in->stage) {
			log_error("connection %llu: out of memory reading it; closing it",
			        (unsigned long long)c->id);
			connection_drop(c, "out of memory");
			return -1;
		}
	}
	assert(in->staged < CONFIGD_STAGE_BYTES);
	k = peer_read(c, in->stage + in->staged, CONFIGD_STAGE_BYTES - in->staged);
	if (k > 0) {
		if (in->state != INLET_HANDSHAKE && !in->started)
			in->started = now_monotonic_usec();
		in->staged += (size_t)k;
	}
	if (in->staged == 0)
		in->stage = mfree(in->stage);
	return k;
}

static void stage_consume(inlet_t *in, size_t n)
{
	assert(n <= in->staged);
	in->staged -= n;
	if (in->staged > 0)
		memmove(in->stage, in->stage + n, in->staged);
	else
		in->stage = mfree(in->stage);
}

/*
 * Gives sd-bus n more bytes: writes them into the pump, letting sd-bus read whenever the pump is
 * full (it reads whenever it has no message queued, and it has none: each is dispatched as soon
 * as it is whole).  < 0 when the bus failed.
 */
static int pump_feed(connection_t *c, const uint8_t *p, size_t n)
{
	while (n > 0) {
		ssize_t k = send(c->inlet.pump, p, n, MSG_DONTWAIT | MSG_NOSIGNAL);
		int r;

		if (k > 0) {
			p += k;
			n -= (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
			return negative_errno();
		r = sd_bus_process(c->bus, NULL);
		if (r < 0)
			return r;
		if (r == 0)
			return -EIO; /* a full pump that sd-bus will not read: cannot go on */
	}
	return 0;
}

/* Lets sd-bus take what was fed: until it has dispatched a message, or has nothing to do. */
static int bus_take(connection_t *c)
{
	int r = 0;

	while (!c->dispatched && !c->defer_free && (r = sd_bus_process(c->bus, NULL)) > 0)
		;
	return r < 0 ? r : 0;
}

static int bus_failed(connection_t *c, int r)
{
	if (!c->defer_free) {
		log_msg_errno(LOG_LEVEL_DEBUG, r, "connection %llu: bus failed",
		        (unsigned long long)c->id);
		connection_drop(c, "bus failure");
	}
	return -1;
}

/* ---- the handshake ------------------------------------------------------------------------ */

static bool line_is(const char *line, size_t n, const char *word)
{
	size_t w = strlen(word);

	return n >= w && memcmp(line, word, w) == 0 && (n == w || line[w] == ' ');
}

/* Whether hex (n characters) spells the decimal uid of c's peer; an empty token says nothing. */
static bool token_is_peer(connection_t *c, const char *hex, size_t n)
{
	char uid[32], want[32];
	size_t len = 0;

	if (n == 0)
		return true;
	if (n % 2 || n / 2 >= sizeof(uid))
		return false;
	for (size_t i = 0; i < n; i += 2) {
		unsigned v;
		char two[3] = {hex[i], hex[i + 1], 0};

		if (sscanf(two, "%2x", &v) != 1)
			return false;
		uid[len++] = (char)v;
	}
	uid[len] = 0;
	snprintf(want, sizeof(want), "%u", (unsigned)c->uid);
	return streq(uid, want);
}

/* Checks one handshake line (without its CR LF): 0 to relay it, -1 when c was closed for it. */
static int handshake_line(connection_t *c, const char *line, size_t n)
{
	const char *token = NULL;

	if (line_is(line, n, "AUTH") && n > 4) {
		if (!line_is(line, n, "AUTH EXTERNAL"))
			return refuse(c, "auth mechanism",
			        "a handshake by a mechanism other than EXTERNAL");
		token = line + strlen("AUTH EXTERNAL");
	} else if (line_is(line, n, "DATA"))
		token = line + strlen("DATA");
	if (token) {
		size_t left = n - (size_t)(token - line);

		if (left > 0) {
			token++;
			left--;
		}
		if (!token_is_peer(c, token, left))
			return refuse(c, "auth uid", "authenticates as another uid than its own");
	}
	if (line_is(line, n, "BEGIN") && n == 5)
		c->inlet.begun = true;
	return 0;
}

/* The length of the complete lines staged, through BEGIN at most; -1 when c was closed. */
static ssize_t handshake_lines(connection_t *c)
{
	inlet_t *in = &c->inlet;
	size_t start = in->lines == 0 ? 1 : 0, end = 0;

	if (in->lines == 0 && in->stage[0] != 0)
		return refuse(c, "not D-Bus", "not D-Bus (no NUL byte before the handshake)");
	for (size_t i = start; i + 1 < in->staged && !in->begun; i++) {
		if (in->stage[i] != '\r' || in->stage[i + 1] != '\n')
			continue;
		if (++in->lines > CONFIGD_MAX_HANDSHAKE_LINES)
			return refuse(c, "handshake", "a handshake of more than %u lines",
			        CONFIGD_MAX_HANDSHAKE_LINES);
		if (handshake_line(c, (const char *)in->stage + start, i - start) < 0)
			return -1;
		end = start = i + 2;
		i++;
	}
	return (ssize_t)end;
}

static int handshake_step(connection_t *c)
{
	inlet_t *in = &c->inlet;
	ssize_t n;
	int r;

	if (in->begun) {
		/* sd-bus leaves the handshake once its answers are written (POLLOUT brings them). */
		if (sd_bus_is_ready(c->bus) <= 0)
			return 0;
		in->state = INLET_HEADER;
		if (in->staged > 0)
			in->started = now_monotonic_usec();
		return 1;
	}
	n = in->staged > 0 ? handshake_lines(c) : 0;
	if (n < 0)
		return -1;
	if (n == 0) {
		if (in->staged == CONFIGD_STAGE_BYTES)
			return refuse(c, "handshake", "a handshake line of %u bytes or more",
			        CONFIGD_STAGE_BYTES);
		return stage_fill(c) > 0 ? 1 : c->defer_free ? -1 : 0;
	}
	r = pump_feed(c, in->stage, (size_t)n);
	stage_consume(in, (size_t)n);
	if (r >= 0)
		r = bus_take(c);
	if (r < 0)
		return bus_failed(c, r);
	/* BEGIN before an accepted AUTH is answered ERROR, and nothing else may follow it. */
	if (in->begun && sd_bus_is_ready(c->bus) <= 0 && !(sd_bus_get_events(c->bus) & POLLOUT))
		return refuse(c, "handshake", "BEGIN without a successful AUTH");
	return 1;
}

/* ---- messages ----------------------------------------------------------------------------- */

/* The size a D-Bus header announces, exactly as sd-bus reckons it; false if h is not one. */
static bool announced_size(const uint8_t h[HEADER_BYTES], uint64_t *ret)
{
	uint32_t body, fields;

	if (h[0] != 'l' && h[0] != 'B')
		return false;
	memcpy(&body, h + 4, sizeof(body));
	memcpy(&fields, h + 12, sizeof(fields));
	body = h[0] == 'l' ? le32toh(body) : be32toh(body);
	fields = h[0] == 'l' ? le32toh(fields) : be32toh(fields);
	*ret = HEADER_BYTES + (((uint64_t)fields + 7u) & ~(uint64_t)7u) + body;
	return true;
}

static int header_step(connection_t *c)
{
	inlet_t *in = &c->inlet;
	uint64_t size;

	if (in->staged < HEADER_BYTES) {
		ssize_t k = stage_fill(c);

		return k > 0 ? 1 : k < 0 ? -1 : 0;
	}
	if (!announced_size(in->stage, &size))
		return refuse(c, "not D-Bus",
		        "a message that is not D-Bus (endianness byte 0x%02x)", in->stage[0]);
	if (size < CONFIGD_MIN_MESSAGE_BYTES)
		return refuse(c, "malformed", "a message header announcing %llu bytes",
		        (unsigned long long)size);
	if (limits_judge_request(c, size) < 0)
		return -1;
	in->state = INLET_BODY;
	in->size = in->left = size;
	return 1;
}

static int message_done(connection_t *c)
{
	inlet_t *in = &c->inlet;
	int r = bus_take(c);

	if (r < 0)
		return bus_failed(c, r);
	limits_request_done(c);
	in->state = INLET_HEADER;
	in->size = 0;
	in->started = in->staged > 0 ? now_monotonic_usec() : 0;
	return 1;
}

static int body_step(connection_t *c)
{
	inlet_t *in = &c->inlet;
	const uint8_t *p;
	size_t n;
	int r;

	if (in->staged > 0) {
		p = in->stage;
		n = in->staged < in->left ? in->staged : (size_t)in->left;
	} else {
		ssize_t k =
		        peer_read(c, relay_buf, in->left < RELAY_BYTES ? in->left : RELAY_BYTES);

		if (k <= 0)
			return k < 0 ? -1 : 0;
		p = relay_buf;
		n = (size_t)k;
	}
	r = pump_feed(c, p, n);
	if (p != relay_buf)
		stage_consume(in, n);
	if (r < 0)
		return bus_failed(c, r);
	in->left -= n;
	return in->left == 0 ? message_done(c) : 1;
}

int inlet_run(connection_t *c, unsigned max_messages)
{
	unsigned messages = 0;

	c->dispatched = false;
	for (;;) {
		int r;

		if (c->defer_free)
			return -1;
		switch (c->inlet.state) {
		case INLET_HANDSHAKE:
			r = handshake_step(c);
			break;
		case INLET_HEADER:
			/* The gate, and each connection's turn: no new message now. */
			if (connection_output_waits(c) || messages >= max_messages)
				return 0;
			r = header_step(c);
			break;
		case INLET_BODY:
			r = body_step(c);
			if (r > 0 && c->inlet.state == INLET_HEADER) {
				messages++;
				c->dispatched = false;
				/* Its replies count against its output bound at once. */
				if (!connection_account(c, 0))
					return -1;
			}
			break;
		default:
			assert(!"an inlet state");
			return -1;
		}
		if (r <= 0)
			return r;
	}
}
