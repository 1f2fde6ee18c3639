/*
 * hostile.c: a local peer that misbehaves on purpose, for the hardening tests and the soak.
 *
 * It speaks D-Bus by hand over the raw socket, so it can do what sd-bus would never do: attach
 * fds to a call whatever configd answered to NEGOTIATE_UNIX_FD, stop at any point of the
 * handshake, send calls and never read the replies, send garbage.  Every mode prints its result
 * as "key=value" lines on stdout for the scripts to check; waits have deadlines.  Two modes use
 * libscf as an ordinary writer, to set the scene (bigpg) and to make notifications (churn).
 *
 * usage: hostile MODE ARGS...   (the root is $SMF_ROOT)
 *   fds CONNS NFDS           CONNS connections, each asking for fd passing and sending a call
 *                            with NFDS fds attached (SCM_RIGHTS), then closing; "agreed=N" is
 *                            how many connections configd agreed to fd passing on
 *   hold N auth|request|none [SECONDS]
 *                            opens N connections: "auth" completes the handshake and sends no
 *                            request, "request" also has one call answered, "none" sends
 *                            nothing at all; prints "accepted= refused= pending=" (answered /
 *                            closed by configd / neither within 10 s; "none" skips this), then,
 *                            with SECONDS, waits until configd has closed every accepted one:
 *                            "closed=K seconds=S"
 *   unread N HOLD ListServices | GetPg FMRI PG
 *                            one connection, N calls whose replies it never reads, until
 *                            configd stops reading them (a send blocked 2 s) or closes it:
 *                            "sent= dropped=0|1"; then holds it HOLD seconds more
 *   subscribe TYPE SECONDS   registers for pg type TYPE and never reads: "dropped=0|1"
 *   garbage N                N connections sending malformed messages: "closed=K"
 *   bigreq MIB first|second [plain|version2|type0|type5]
 *                            a call of MIB MiB, as the connection's first message or after an
 *                            answered one, its header as sd-bus writes it or with a version or
 *                            message type configd does not know: "sent= dropped=0|1" (sent:
 *                            bytes configd took; dropped: closed, not answered or ignored)
 *   leave N BYTES            N connections, each with a call answered, then BYTES bytes of a
 *                            1 KiB call (8: mid-header; 100: mid-body), then the process exits
 *                            without closing them: "left=N"
 *   partial N SECONDS        N connections, each with a call answered, then all but the last
 *                            byte of a 1 MiB call; "held= closed=" (configd closed the
 *                            connection within 2 s of the send, or not); then holds them
 *   trickle N SECONDS MS     N connections, each with a call answered, then one byte of a 1 KiB
 *                            call per connection every MS ms for SECONDS: "ready=1" once they
 *                            are all connected, then "closed=K seconds=S" (how many configd
 *                            closed, and when the last went)
 *   bigpg FMRI PG MIB        makes FMRI's pg PG (type application) hold about MIB MiB
 *   churn FMRI N             N batches, each changing the 100 pgs "churnNN" (type churn) of FMRI
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "libscf.h"
#include "macro.h"
#include "paths.h"
#include "protocol.h"
#include "timeutil.h"
#include "unixsock.h"

#define DEADLINE_USEC (10u * 1000u * 1000u)

static const char *door;

static void die(const char *what)
{
	fprintf(stderr, "hostile: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* ---- a D-Bus message, marshalled by hand (little endian) ---------------------------------- */

typedef struct buf {
	uint8_t *p;
	size_t n, cap;
} buf_t;

static void put(buf_t *b, const void *d, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 64;
		b->p = realloc(b->p, b->cap);
		if (!b->p)
			die("realloc");
	}
	memcpy(b->p + b->n, d, n);
	b->n += n;
}

static void pad(buf_t *b, size_t align)
{
	static const uint8_t zero[8];

	if (b->n % align)
		put(b, zero, align - b->n % align);
}

static void put_u32(buf_t *b, uint32_t v)
{
	pad(b, 4);
	put(b, &v, 4);
}

static void put_str(buf_t *b, const char *s)
{
	put_u32(b, (uint32_t)strlen(s));
	put(b, s, strlen(s) + 1);
}

static void put_sig(buf_t *b, const char *s)
{
	uint8_t n = (uint8_t)strlen(s);

	put(b, &n, 1);
	put(b, s, strlen(s) + 1);
}

/* One header field: (code, variant) aligned to 8. */
static void field_str(buf_t *h, uint8_t code, const char *sig, const char *value)
{
	pad(h, 8);
	put(h, &code, 1);
	put_sig(h, sig);
	if (streq(sig, "g"))
		put_sig(h, value);
	else
		put_str(h, value);
}

static void field_u32(buf_t *h, uint8_t code, uint32_t value)
{
	pad(h, 8);
	put(h, &code, 1);
	put_sig(h, "u");
	put_u32(h, value);
}

/* A method call on configd's object; body (already marshalled from offset 0) of signature sig. */
static buf_t method_call(const char *interface, const char *member, const char *sig,
        const buf_t *body, uint32_t serial, uint32_t n_fds)
{
	buf_t m = {0}, f = {0};
	uint32_t flen;
	uint8_t head[4] = {'l', 1, 0, 1};

	field_str(&f, 1, "o",
	        streq(member, smf_method_hello.name) ? SMF_BUS_DRIVER_PATH : SMF_BUS_PATH);
	field_str(&f, 2, "s", interface);
	field_str(&f, 3, "s", member);
	if (sig && *sig)
		field_str(&f, 8, "g", sig);
	if (n_fds > 0)
		field_u32(&f, 9, n_fds);
	flen = (uint32_t)f.n;
	put(&m, head, 4);
	put_u32(&m, body ? (uint32_t)body->n : 0);
	put_u32(&m, serial);
	put_u32(&m, flen);
	put(&m, f.p, f.n); /* the fields start at offset 16: their alignment is kept */
	pad(&m, 8);
	if (body)
		put(&m, body->p, body->n);
	free(f.p);
	return m;
}

static buf_t call_list_services(uint32_t serial)
{
	return method_call(SMF_BUS_INTERFACE, smf_method_list_services.name,
	        smf_method_list_services.in, NULL, serial, 0);
}

static buf_t call_get_pg(const char *fmri, const char *pg, uint32_t serial)
{
	buf_t body = {0}, m;

	put_str(&body, fmri);
	put_str(&body, pg);
	put_str(&body, "");
	put_u32(&body, 0);
	m = method_call(
	        SMF_BUS_INTERFACE, smf_method_get_pg.name, smf_method_get_pg.in, &body, serial, 0);
	free(body.p);
	return m;
}

/* ---- the socket ---------------------------------------------------------------------------- */

static int connect_door(void)
{
	int fd = smf_unix_connect(door);

	if (fd < 0) {
		errno = -fd;
		die("connect");
	}
	return fd;
}

static int write_all(int fd, const void *p, size_t n)
{
	const uint8_t *q = p;

	while (n > 0) {
		ssize_t k = send(fd, q, n, MSG_NOSIGNAL);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -errno;
		q += k;
		n -= (size_t)k;
	}
	return 0;
}

static int send_auth(int fd, bool negotiate_fds)
{
	char line[128], hex[64] = "", uid[32];

	snprintf(uid, sizeof(uid), "%u", (unsigned)getuid());
	for (size_t i = 0; uid[i]; i++)
		snprintf(hex + 2 * i, sizeof(hex) - 2 * i, "%02x", (unsigned char)uid[i]);
	snprintf(line, sizeof(line), "%cAUTH EXTERNAL %s\r\n%s", 0, hex,
	        negotiate_fds ? "NEGOTIATE_UNIX_FD\r\n" : "");
	return write_all(fd, line, 1 + strlen(line + 1));
}

/*
 * Reads what configd answered to the handshake until deadline: 1 "OK" (and *agreed when it also
 * agreed to fd passing), 0 closed, -ETIMEDOUT nothing yet.
 */
static int read_auth(int fd, bool negotiate_fds, bool *agreed, uint64_t deadline)
{
	char in[512];
	size_t n = 0;

	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		uint64_t left = deadline_left_usec(deadline);
		ssize_t k;
		int lines = 0;

		if (left == 0)
			return -ETIMEDOUT;
		if (poll(&p, 1, (int)(left / 1000) + 1) <= 0)
			continue;
		k = read(fd, in + n, sizeof(in) - 1 - n);
		if (k <= 0)
			return 0;
		n += (size_t)k;
		in[n] = 0;
		for (char *s = in; (s = strstr(s, "\r\n")); s += 2)
			lines++;
		if (!strneq(in, "OK ", 3))
			return 0;
		if (lines >= (negotiate_fds ? 2 : 1)) {
			if (agreed)
				*agreed = strstr(in, "AGREE_UNIX_FD") != NULL;
			return 1;
		}
		if (n >= sizeof(in) - 1)
			return 0;
	}
}

/* Reads one whole message (the reply to a call); 0, or < 0 when the connection ended. */
static int read_message(int fd)
{
	uint8_t head[16];
	size_t need = sizeof(head), got = 0;
	uint8_t *rest;
	uint32_t body, fields;

	while (got < need) {
		ssize_t k = read(fd, head + got, need - got);

		if (k <= 0)
			return -EPIPE;
		got += (size_t)k;
	}
	memcpy(&body, head + 4, 4);
	memcpy(&fields, head + 12, 4);
	need = ((fields + 7u) & ~7u) + body;
	rest = malloc(need ? need : 1);
	if (!rest)
		die("malloc");
	for (got = 0; got < need;) {
		ssize_t k = read(fd, rest + got, need - got);

		if (k <= 0) {
			free(rest);
			return -EPIPE;
		}
		got += (size_t)k;
	}
	free(rest);
	return 0;
}

/* Waits until configd has closed fd (without reading what it sent), or deadline: 1 closed. */
static int wait_closed(int fd, uint64_t deadline)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLRDHUP};
		uint64_t left = deadline_left_usec(deadline);

		if (left == 0)
			return 0;
		if (poll(&p, 1, (int)(left / 1000) + 1) > 0 && (p.revents & (POLLHUP | POLLRDHUP)))
			return 1;
	}
}

/*
 * What became of the call sent last, by deadline: 1 configd closed the connection (or reset it),
 * 0 it answered (or left the connection open without an answer).
 */
static int closed_or_answered(int fd, uint64_t deadline)
{
	struct pollfd p = {.fd = fd, .events = POLLIN | POLLRDHUP};
	uint8_t b;
	uint64_t left = deadline_left_usec(deadline);

	if (poll(&p, 1, left ? (int)(left / 1000) + 1 : 0) <= 0)
		return 0; /* nothing: neither closed nor answered */
	if (p.revents & (POLLHUP | POLLRDHUP | POLLERR))
		return 1;
	return recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
}

/* Connects, completes the handshake and has one call answered: the fd, or -1. */
static int connect_logged_in(void)
{
	int fd = connect_door();
	buf_t m = call_list_services(1);
	bool ok = send_auth(fd, false) >= 0 &&
	        read_auth(fd, false, NULL, deadline_after_usec(DEADLINE_USEC)) > 0 &&
	        write_all(fd, "BEGIN\r\n", 7) >= 0 && write_all(fd, m.p, m.n) >= 0 &&
	        read_message(fd) >= 0;

	free(m.p);
	if (!ok) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A ListServices call whose one string argument makes it size bytes long in all. */
static buf_t call_of_size(size_t size, uint32_t serial)
{
	buf_t body = {0},
	      m = method_call(
	              SMF_BUS_INTERFACE, smf_method_list_services.name, "s", NULL, serial, 0);
	size_t head = m.n + 4 + 1; /* the header, the string's length and its NUL */
	char *s = malloc(size > head ? size - head + 1 : 1);

	if (!s)
		die("malloc");
	memset(s, 'x', size > head ? size - head : 0);
	s[size > head ? size - head : 0] = 0;
	put_str(&body, s);
	free(s);
	free(m.p);
	m = method_call(SMF_BUS_INTERFACE, smf_method_list_services.name, "s", &body, serial, 0);
	free(body.p);
	return m;
}

/* ---- the modes ---------------------------------------------------------------------------- */

/* Sends m with nfds fds of /dev/null attached (SCM_RIGHTS); < 0 when configd hung up. */
static int send_with_fds(int fd, const buf_t *m, int nfds)
{
	union {
		struct cmsghdr h;
		uint8_t b[CMSG_SPACE(sizeof(int) * 253)];
	} control = {};
	struct iovec iov = {.iov_base = m->p, .iov_len = m->n};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control};
	struct cmsghdr *cm;
	int fds[253], r = 0;

	mh.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfds);
	cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfds);
	for (int j = 0; j < nfds; j++)
		if ((fds[j] = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0)
			die("open /dev/null");
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)nfds);
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0)
		r = -errno;
	for (int j = 0; j < nfds; j++)
		close(fds[j]);
	return r;
}

/*
 * Per connection: a call whose header does not announce the fds that come with it (sd-bus
 * drops such a message as malformed, and with fd passing agreed it used to keep the fds), a
 * well-formed call with fds, and a plain call; then the replies, or the end of the connection.
 */
static int mode_fds(int conns, int nfds)
{
	int agreed = 0;

	if (nfds > 253)
		nfds = 253;
	for (int i = 0; i < conns; i++) {
		_cleanup_close_ int fd = connect_door();
		buf_t bad = method_call(SMF_BUS_INTERFACE, smf_method_list_services.name,
		        smf_method_list_services.in, NULL, 1, 0);
		buf_t good = method_call(SMF_BUS_INTERFACE, smf_method_list_services.name,
		        smf_method_list_services.in, NULL, 2, (uint32_t)nfds);
		buf_t plain = call_list_services(3);
		bool ok = false;

		if (send_auth(fd, true) >= 0 &&
		        read_auth(fd, true, &ok, deadline_after_usec(DEADLINE_USEC)) > 0 &&
		        write_all(fd, "BEGIN\r\n", 7) >= 0) {
			agreed += ok;
			/*
			 * Whatever configd agreed to, the fds go with the calls, once the handshake is
			 * over (a first call answered; fds that come with the handshake are refused
			 * anyway); each is followed by a plain call whose reply says that configd has
			 * read it.
			 */
			if (write_all(fd, plain.p, plain.n) >= 0 && read_message(fd) >= 0 &&
			        send_with_fds(fd, &bad, nfds) >= 0 &&
			        write_all(fd, plain.p, plain.n) >= 0 && read_message(fd) >= 0 &&
			        send_with_fds(fd, &good, nfds) >= 0 &&
			        write_all(fd, plain.p, plain.n) >= 0 && read_message(fd) >= 0)
				(void)read_message(fd);
		}
		free(bad.p);
		free(good.p);
		free(plain.p);
	}
	printf("agreed=%d\n", agreed);
	return 0;
}

static int mode_hold(int n, const char *how, int seconds)
{
	bool auth = !streq(how, "none"), request = streq(how, "request");
	_cleanup_free_ int *fds = calloc((size_t)n, sizeof(int)),
	                   *state = calloc((size_t)n, sizeof(int));
	int accepted = 0, refused = 0, pending = 0, closed = 0;
	uint64_t deadline, start;

	if (!fds || !state)
		die("calloc");
	/* Connect them all first: with a configd that stopped accepting, a handshake would hang. */
	for (int i = 0; i < n; i++) {
		fds[i] = connect_door();
		if (auth && send_auth(fds[i], false) < 0)
			state[i] = -1;
	}
	deadline = deadline_after_usec(DEADLINE_USEC);
	for (int i = 0; auth && i < n; i++) {
		int r = state[i] < 0 ? 0 : read_auth(fds[i], false, NULL, deadline);

		if (r > 0 && write_all(fds[i], "BEGIN\r\n", 7) < 0)
			r = 0;
		if (r > 0 && request) {
			buf_t m = call_list_services(1);

			r = write_all(fds[i], m.p, m.n) < 0 || read_message(fds[i]) < 0 ? 0 : 1;
			free(m.p);
		}
		state[i] = r > 0 ? 1 : r == 0 ? -1 : 0;
		accepted += r > 0;
		refused += r == 0;
		pending += r < 0;
	}
	if (auth)
		printf("accepted=%d refused=%d pending=%d\n", accepted, refused, pending);
	else
		accepted = n;
	fflush(stdout);
	if (seconds <= 0)
		return 0;
	start = now_monotonic_usec();
	deadline = deadline_after_usec((uint64_t)seconds * 1000000u);
	for (int i = 0; i < n; i++)
		if (state[i] >= 0 || !auth)
			closed += wait_closed(fds[i], deadline);
	printf("closed=%d seconds=%.1f\n", closed, (double)(now_monotonic_usec() - start) / 1e6);
	return 0;
}

/*
 * n calls whose replies are never read, until they are all sent, a send cannot go on for
 * STALL_USEC (configd stopped reading them), or configd closes the connection ("dropped").
 * With hold > 0 the connection then stays open that many seconds, still unread.
 */
#define STALL_USEC (2u * 1000u * 1000u)
static int mode_unread(long n, int hold, const char *method, const char *fmri, const char *pg)
{
	_cleanup_close_ int fd = connect_door();
	struct timeval tv = {.tv_sec = STALL_USEC / 1000000u};
	long sent = 0;
	int r = 0, dropped;

	if (send_auth(fd, false) < 0 ||
	        read_auth(fd, false, NULL, deadline_after_usec(DEADLINE_USEC)) <= 0 ||
	        write_all(fd, "BEGIN\r\n", 7) < 0) {
		fprintf(stderr, "hostile: handshake failed\n");
		return 1;
	}
	if (setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		die("SO_SNDTIMEO");
	for (; r >= 0 && sent < n; sent++) {
		buf_t m = streq(method, smf_method_get_pg.name)
		        ? call_get_pg(fmri, pg, (uint32_t)sent + 1)
		        : call_list_services((uint32_t)sent + 1);

		r = write_all(fd, m.p, m.n);
		free(m.p);
	}
	if (r < 0)
		sent--;
	/*
	 * A peer that holds its connection is expected to keep it: 2 s says so.  One that does not
	 * is usually expected to be closed, and a loaded configd may take seconds to build the
	 * reply that closes it: it is given 10 s (and reports as soon as it is closed).
	 */
	dropped = r == -EPIPE || r == -ECONNRESET ||
	        wait_closed(fd,
	                deadline_after_usec(r < 0  ? 1000000u
	                                : hold > 0 ? 2000000u
	                                           : 10000000u));
	printf("sent=%ld dropped=%d\n", sent, dropped);
	fflush(stdout);
	if (hold > 0 && !dropped)
		(void)wait_closed(fd, deadline_after_usec((uint64_t)hold * 1000000u));
	return 0;
}

static int mode_subscribe(const char *type, int seconds)
{
	_cleanup_close_ int fd = connect_door();
	buf_t body = {0}, m;
	int r;

	if (send_auth(fd, false) < 0 ||
	        read_auth(fd, false, NULL, deadline_after_usec(DEADLINE_USEC)) <= 0 ||
	        write_all(fd, "BEGIN\r\n", 7) < 0)
		return 1;
	put_str(&body, type);
	m = method_call(SMF_BUS_INTERFACE, smf_method_notify_add_pg_type.name,
	        smf_method_notify_add_pg_type.in, &body, 1, 0);
	free(body.p);
	r = write_all(fd, m.p, m.n) < 0 || read_message(fd) < 0;
	free(m.p);
	if (r)
		return 1;
	printf("subscribed=1\n");
	fflush(stdout);
	printf("dropped=%d\n", wait_closed(fd, deadline_after_usec((uint64_t)seconds * 1000000u)));
	return 0;
}

static int mode_garbage(int n)
{
	int closed = 0;

	for (int i = 0; i < n; i++) {
		_cleanup_close_ int fd = connect_door();
		buf_t m = call_list_services(1);
		uint8_t junk[256];

		switch (i % 4) {
		case 0: /* no handshake at all, straight to a message */
			(void)write_all(fd, m.p, m.n);
			break;
		case 1: /* a bad endianness byte */
			(void)send_auth(fd, false);
			(void)write_all(fd, "BEGIN\r\n", 7);
			m.p[0] = 'X';
			(void)write_all(fd, m.p, m.n);
			break;
		case 2: /* a header announcing a huge body */
			(void)send_auth(fd, false);
			(void)write_all(fd, "BEGIN\r\n", 7);
			memcpy(m.p + 4, &(uint32_t){0x7ffffff0u}, 4);
			(void)write_all(fd, m.p, m.n);
			break;
		default: /* noise */
			for (size_t j = 0; j < sizeof(junk); j++)
				junk[j] = (uint8_t)(j * 37u + (unsigned)i);
			(void)send_auth(fd, false);
			(void)write_all(fd, "BEGIN\r\n", 7);
			(void)write_all(fd, junk, sizeof(junk));
		}
		free(m.p);
		closed += wait_closed(fd, deadline_after_usec(DEADLINE_USEC));
	}
	printf("closed=%d\n", closed);
	return 0;
}

static int mode_bigreq(int mib, bool first, const char *how)
{
	_cleanup_close_ int fd = connect_door();
	size_t n = (size_t)mib * 1024u * 1024u, sent = 0;
	buf_t body = {0}, m = {0};
	char *s = malloc(n + 1);

	if (!s)
		die("malloc");
	memset(s, 'x', n);
	s[n] = 0;
	put_str(&body, s);
	free(s);
	m = method_call(SMF_BUS_INTERFACE, smf_method_list_services.name, "s", &body, 2, 0);
	free(body.p);
	/* The lengths stay: sd-bus sizes a message from them and the endianness byte alone. */
	if (streq(how, "version2"))
		m.p[3] = 2;
	else if (streq(how, "type0"))
		m.p[1] = 0;
	else if (streq(how, "type5"))
		m.p[1] = 5;
	if (send_auth(fd, false) < 0 ||
	        read_auth(fd, false, NULL, deadline_after_usec(DEADLINE_USEC)) <= 0 ||
	        write_all(fd, "BEGIN\r\n", 7) < 0) {
		free(m.p);
		return 1;
	}
	if (!first) {
		buf_t plain = call_list_services(1);
		bool failed = write_all(fd, plain.p, plain.n) < 0 || read_message(fd) < 0;

		free(plain.p);
		if (failed) {
			free(m.p);
			return 1;
		}
	} else
		/* As an sd-bus client does: not in the same breath as BEGIN (see limits.c). */
		(void)poll(NULL, 0, 100);
	/* In slices, as a slow sender would: configd must not wait for all of it to judge. */
	while (sent < m.n) {
		size_t k = m.n - sent < 65536 ? m.n - sent : 65536;

		if (write_all(fd, m.p + sent, k) < 0)
			break;
		sent += k;
	}
	free(m.p);
	/*
	 * An answer (an error: ListServices takes no argument), the end of the connection, or
	 * nothing (a message sd-bus dropped as malformed): closed or not within 10 s.
	 */
	printf("sent=%zu dropped=%d\n", sent,
	        closed_or_answered(fd, deadline_after_usec(DEADLINE_USEC)));
	return 0;
}

static int mode_leave(int n, size_t bytes)
{
	buf_t m = call_of_size(1024, 2);
	int left = 0;

	if (bytes > m.n)
		bytes = m.n;
	for (int i = 0; i < n; i++) {
		int fd = connect_logged_in();

		/* Kept open: the process's exit closes them all at once. */
		if (fd >= 0 && write_all(fd, m.p, bytes) >= 0)
			left++;
	}
	free(m.p);
	printf("left=%d\n", left);
	fflush(stdout);
	return 0;
}

static int mode_partial(int n, int seconds)
{
	buf_t m = call_of_size(1024u * 1024u, 2);
	_cleanup_free_ int *fds = calloc((size_t)n, sizeof(int));
	int held = 0, closed = 0;

	if (!fds)
		die("calloc");
	uint64_t deadline;

	for (int i = 0; i < n; i++) {
		fds[i] = connect_logged_in();
		if (fds[i] >= 0 && write_all(fds[i], m.p, m.n - 1) < 0) {
			close(fds[i]);
			fds[i] = -1;
		}
	}
	/* What configd closes, it closes as the header comes: 2 s is plenty. */
	deadline = deadline_after_usec(2000000u);
	for (int i = 0; i < n; i++) {
		if (fds[i] < 0 || closed_or_answered(fds[i], deadline))
			closed++;
		else
			held++;
	}
	free(m.p);
	printf("held=%d closed=%d\n", held, closed);
	fflush(stdout);
	(void)poll(NULL, 0, seconds * 1000);
	return 0;
}

static int mode_trickle(int n, int seconds, int interval_ms)
{
	buf_t m = call_of_size(1024, 2);
	_cleanup_free_ int *fds = calloc((size_t)n, sizeof(int));
	uint64_t start, end, last = 0;
	int closed = 0;

	if (!fds)
		die("calloc");
	for (int i = 0; i < n; i++)
		fds[i] = connect_logged_in();
	printf("ready=1\n");
	fflush(stdout);
	start = now_monotonic_usec();
	end = deadline_after_usec((uint64_t)seconds * 1000000u);
	for (size_t at = 0; at < m.n && deadline_left_usec(end) > 0; at++) {
		for (int i = 0; i < n; i++) {
			if (fds[i] < 0)
				continue;
			if (write_all(fds[i], m.p + at, 1) < 0 ||
			        closed_or_answered(fds[i], now_monotonic_usec())) {
				close(fds[i]);
				fds[i] = -1;
				closed++;
				last = now_monotonic_usec();
			}
		}
		(void)poll(NULL, 0, interval_ms);
	}
	free(m.p);
	printf("closed=%d seconds=%.1f\n", closed, last ? (double)(last - start) / 1e6 : 0.0);
	return 0;
}

/* ---- libscf, as a writer ----------------------------------------------------------------- */

static int mode_bigpg(const char *fmri, const char *pg, int mib)
{
	_cleanup_(scf_handle_destroyp) scf_handle_t *h = NULL;
	_cleanup_(scf_batch_freep) scf_batch_t *b = NULL;
	/* 3,900 values of 4,000 bytes: 15.6 MB, under the 16 MiB a pg may hold. */
	size_t per = 4000, nvals = 3900, n = (size_t)mib * 1024u * 1024u / per;
	_cleanup_free_ char *v = malloc(per);
	_cleanup_free_ const char **vals = calloc(nvals, sizeof(*vals));
	int r;

	if (!v || !vals)
		die("malloc");
	memset(v, 'x', per - 1);
	v[per - 1] = 0;
	for (size_t i = 0; i < nvals; i++)
		vals[i] = v;
	if (n > nvals)
		n = nvals;
	r = scf_handle_create(NULL, &h);
	if (r >= 0)
		r = scf_batch_new(h, &b);
	if (r >= 0)
		r = scf_batch_pg_ensure(b, fmri, pg, "application", 0);
	if (r >= 0)
		r = scf_batch_prop_set(b, fmri, pg, "big", SCF_TYPE_ASTRING, vals, n);
	if (r >= 0)
		r = scf_batch_commit(b);
	if (r < 0) {
		fprintf(stderr, "hostile: bigpg: %s\n",
		        h ? scf_handle_errmsg(h) : scf_strerror(-r));
		return 1;
	}
	printf("bytes=%zu\n", n * per);
	return 0;
}

static int mode_churn(const char *fmri, int batches)
{
	_cleanup_(scf_handle_destroyp) scf_handle_t *h = NULL;
	int r = scf_handle_create(NULL, &h);

	for (int i = 0; r >= 0 && i < batches; i++) {
		_cleanup_(scf_batch_freep) scf_batch_t *b = NULL;
		char val[32];
		const char *vals[] = {val};

		snprintf(val, sizeof(val), "%d", i);
		r = scf_batch_new(h, &b);
		for (int j = 0; r >= 0 && j < 100; j++) {
			char pg[32];

			snprintf(pg, sizeof(pg), "churn%02d", j);
			r = scf_batch_pg_ensure(b, fmri, pg, "churn", 0);
			if (r >= 0)
				r = scf_batch_prop_set(b, fmri, pg, "n", SCF_TYPE_COUNT, vals, 1);
		}
		if (r >= 0)
			r = scf_batch_commit(b);
	}
	if (r < 0) {
		fprintf(stderr, "hostile: churn: %s\n",
		        h ? scf_handle_errmsg(h) : scf_strerror(-r));
		return 1;
	}
	printf("batches=%d\n", batches);
	return 0;
}

int main(int argc, char *argv[])
{
	_cleanup_free_ char *root = NULL, *path = NULL;
	const char *mode = argc > 1 ? argv[1] : "";
	struct rlimit rl;

	signal(SIGPIPE, SIG_IGN);
	/* hold opens thousands of sockets. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (smf_root_resolve(NULL, &root) < 0 || smf_path(root, SMF_REL_DOOR, &path) < 0)
		die("root");
	door = path;
	if (streq(mode, "fds") && argc == 4)
		return mode_fds(atoi(argv[2]), atoi(argv[3]));
	if (streq(mode, "hold") && (argc == 4 || argc == 5))
		return mode_hold(atoi(argv[2]), argv[3], argc == 5 ? atoi(argv[4]) : 0);
	if (streq(mode, "unread") && argc == 5 && streq(argv[4], smf_method_list_services.name))
		return mode_unread(atol(argv[2]), atoi(argv[3]), argv[4], NULL, NULL);
	if (streq(mode, "unread") && argc == 7 && streq(argv[4], smf_method_get_pg.name))
		return mode_unread(atol(argv[2]), atoi(argv[3]), argv[4], argv[5], argv[6]);
	if (streq(mode, "subscribe") && argc == 4)
		return mode_subscribe(argv[2], atoi(argv[3]));
	if (streq(mode, "bigreq") && (argc == 4 || argc == 5))
		return mode_bigreq(
		        atoi(argv[2]), streq(argv[3], "first"), argc == 5 ? argv[4] : "");
	if (streq(mode, "leave") && argc == 4)
		return mode_leave(atoi(argv[2]), (size_t)atol(argv[3]));
	if (streq(mode, "partial") && argc == 4)
		return mode_partial(atoi(argv[2]), atoi(argv[3]));
	if (streq(mode, "trickle") && argc == 5)
		return mode_trickle(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (streq(mode, "garbage") && argc == 3)
		return mode_garbage(atoi(argv[2]));
	if (streq(mode, "bigpg") && argc == 5)
		return mode_bigpg(argv[2], argv[3], atoi(argv[4]));
	if (streq(mode, "churn") && argc == 4)
		return mode_churn(argv[2], atoi(argv[3]));
	fprintf(stderr,
	        "usage: hostile "
	        "fds|hold|unread|subscribe|garbage|bigreq|leave|partial|trickle|bigpg|"
	        "churn ARGS... "
	        "(see hostile.c)\n");
	return 2;
}
