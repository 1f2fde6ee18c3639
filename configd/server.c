/*
 * server.c: the rendezvous socket and one sd_bus server object per client.
 *
 * Each accepted socket becomes an sd_bus in server mode (no bus daemon: the connection is the
 * bus) with the repository vtables added and a match on the Disconnected signal sd-bus
 * synthesizes when the peer goes away.
 *
 * The buses are driven by hand rather than with sd_bus_attach_event(): that installs a
 * "prepare" callback per bus, which sd-event runs for every bus on every loop iteration, so
 * each request would cost O(connections) (1.4 ms per call with 4000 idle clients).  Instead
 * each connection has an io source on its socket and a timer; after every round
 * connection_update() sets the socket's events (POLLIN when the inlet reads, POLLOUT when
 * sd-bus has output to write) and the timer from sd_bus_get_timeout().  A round serves at most
 * CONNECTION_BATCH messages; what is left stays in the socket, whose readiness brings us back
 * after the other clients had their turn.
 *
 * The Disconnected match does not free the connection itself (sd-bus is still dispatching on
 * it): it schedules a defer event that does, and until then the connection is "dying"
 * (defer_free set) and gets no more notifications.  Freeing drops the connection's interests
 * and, if it was the restarter, the registration.
 *
 * What a peer may cost is bounded by limits.c and inlet.c, called from here: a connection over
 * its uid's share is closed as soon as it is accepted; one that has no request dispatched
 * within the login deadline, or does not finish a message it began within the message deadline,
 * is closed by its deadline timer; configd reads the socket itself and gives sd-bus only judged
 * bytes (inlet.c: the size of each request, and no new request while output waits); after
 * every message, every signal and every large reply, the connection's output account is brought
 * in line with sd-bus's write queue, and a connection over its bound is dropped.  fd passing is
 * never negotiated (the protocol has no fds), and configd's reads take no ancillary data, so the
 * kernel discards any fd a peer sends.  The kernel's send buffer of an unprivileged peer is cut
 * to CONFIGD_SOCKET_SNDBUF.
 *
 * Connections in all are bounded (CONFIGD_MAX_CONNECTIONS): at the bound configd stops
 * accepting, with one log line, until one closes; new clients wait in the listen backlog
 * meanwhile.  Since unprivileged uids can never fill the slots reserved for root and the owner,
 * only those can reach this bound.  When accept() itself fails for want of fds or memory,
 * accepting pauses the same way but also resumes on a short timer, since no connection may be
 * open whose closing would resume it.
 */
#include <fcntl.h>
#include <poll.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "configd.h"
#include "log.h"
#include "macro.h"
#include "methods.h"
#include "timeutil.h"
#include "unixsock.h"

/* Messages handled per connection before the others get their turn. */
#define CONNECTION_BATCH 32u
/* After accept() ran out of fds or memory, try again this much later. */
#define ACCEPT_RETRY_USEC (100 * 1000u)

static void connection_free(connection_t *c)
{
	configd_t *m = c->configd;

	if (m->restarter == c) {
		m->restarter = NULL;
		log_info("restarter detached (pid %d)", (int)c->pid);
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		m->connections = c->next;
	if (c->next)
		c->next->prev = c->prev;
	m->n_connections--;
	if (m->refused_logged) { /* accepting was paused: a slot is free again */
		m->refused_logged = false;
		if (m->listen_source)
			sd_event_source_set_enabled(m->listen_source, SD_EVENT_ON);
	}
	notify_reset(c);
	sd_event_source_disable_unref(c->defer_free);
	sd_event_source_disable_unref(c->deadline);
	/* Off the epoll set before sd-bus closes the fd under it. */
	sd_event_source_disable_unref(c->io);
	sd_event_source_disable_unref(c->timer);
	if (c->bus) {
		sd_bus_close(c->bus);
		sd_bus_unref(c->bus);
	}
	inlet_close(c);
	/* Last: the bus and what it held are gone, so the memory can go back too. */
	limits_release(c);
	free(c);
}

static int on_defer_free(sd_event_source *s, void *userdata)
{
	connection_free(userdata);
	return 0;
}

void connection_drop(connection_t *c, const char *why)
{
	int r;

	if (c->defer_free)
		return;
	log_debug("connection %llu (pid %d): %s", (unsigned long long)c->id, (int)c->pid, why);
	/* Forget the restarter now: RestarterAttached must not say true for a dead one. */
	if (c->configd->restarter == c) {
		c->configd->restarter = NULL;
		log_info("restarter detached (pid %d)", (int)c->pid);
	}
	/* A closed peer stays readable (EOF): stop listening to it until it is freed. */
	sd_event_source_set_enabled(c->io, SD_EVENT_OFF);
	sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
	sd_event_source_set_enabled(c->deadline, SD_EVENT_OFF);
	r = sd_event_add_defer(c->configd->event, &c->defer_free, on_defer_free, c);
	if (r < 0)
		log_error_errno(r, "connection %llu: cannot schedule its release",
		        (unsigned long long)c->id);
}

static int on_disconnected(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	connection_drop(userdata, "disconnected");
	return 0;
}

/* The deadline that applies now: the login's until a request was served, then a message's. */
static void deadline_update(connection_t *c)
{
	uint64_t until;

	if (!c->logged_in)
		return; /* armed once, at accept */
	until = inlet_deadline(c);
	if (until) {
		(void)sd_event_source_set_time(c->deadline, until);
		(void)sd_event_source_set_enabled(c->deadline, SD_EVENT_ONESHOT);
	} else
		(void)sd_event_source_set_enabled(c->deadline, SD_EVENT_OFF);
}

void connection_update(connection_t *c)
{
	uint64_t until = UINT64_MAX;
	uint32_t events = 0;
	int bus_events;

	if (c->defer_free || !c->io)
		return;
	/* Also sees the queue that a send or a round of processing has just emptied. */
	if (!connection_account(c, 0))
		return;
	bus_events = sd_bus_get_events(c->bus);
	if (bus_events < 0) {
		connection_drop(c, "bus closed");
		return;
	}
	/* sd-bus's POLLIN is for its end of the pump, which the inlet fills: not polled. */
	if (bus_events & POLLOUT)
		events |= EPOLLOUT;
	if (inlet_wants_input(c))
		events |= EPOLLIN;
	(void)sd_event_source_set_io_events(c->io, events);
	if (sd_bus_get_timeout(c->bus, &until) > 0 && until != UINT64_MAX) {
		(void)sd_event_source_set_time(c->timer, until);
		(void)sd_event_source_set_enabled(c->timer, SD_EVENT_ONESHOT);
	} else
		(void)sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
	deadline_update(c);
}

/* Lets sd-bus write what waits and run its timers. */
static int bus_drive(connection_t *c)
{
	int r;

	while (!c->defer_free && (r = sd_bus_process(c->bus, NULL)) > 0)
		;
	if (c->defer_free)
		return -1;
	if (r < 0) {
		log_msg_errno(LOG_LEVEL_DEBUG, r, "connection %llu: bus failed",
		        (unsigned long long)c->id);
		connection_drop(c, "bus failure");
		return -1;
	}
	return 0;
}

static void connection_process(connection_t *c, uint32_t revents)
{
	assert(pthread_equal(c->configd->thread, pthread_self()));
	/* Output first: whether it all went decides whether the gate opens. */
	if ((revents & EPOLLOUT || connection_output_waits(c) || sd_bus_is_ready(c->bus) <= 0) &&
	        bus_drive(c) < 0)
		return;
	if (inlet_run(c, CONNECTION_BATCH) < 0)
		return;
	/* A request runs to completion: none leaves a transaction open for the next. */
	assert(!c->configd->backend || backend_tx_depth(c->configd->backend) == 0);
	/* The peer is gone (a socket the inlet did not read, as behind the gate): so is c. */
	if (revents & (EPOLLHUP | EPOLLERR)) {
		connection_drop(c, "hung up");
		return;
	}
	connection_update(c);
}

static int on_connection_io(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	connection_process(userdata, revents);
	return 0;
}

static int on_connection_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
	connection_process(userdata, 0);
	return 0;
}

/*
 * The login deadline (no request served yet), then a started message's: what configd, busy
 * elsewhere, has not read yet is read first.  A connection whose output waits is not read, so
 * its message waits too, and gets its time again once the gate opens.
 */
static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
	connection_t *c = userdata;
	uint64_t until, now = now_monotonic_usec();
	unsigned suppressed;

	connection_process(c, 0);
	if (c->defer_free)
		return 0;
	if (c->logged_in) {
		until = inlet_deadline(c);
		if (until && connection_output_waits(c))
			c->inlet.started = now;
		if (!until || connection_output_waits(c) || now < until) {
			deadline_update(c);
			return 0;
		}
	}
	if (limits_log_ok(c, &suppressed))
		log_info("connection %llu (pid %d, uid %u): %s %llu ms%s; closing it (%u lines "
		         "about "
		         "this uid suppressed since the last)",
		        (unsigned long long)c->id, (int)c->pid, (unsigned)c->uid,
		        c->logged_in ? "a message it began is not whole after"
		                     : "no request within",
		        (unsigned long long)((c->logged_in ? c->configd->message_timeout_usec
		                                           : c->configd->login_timeout_usec) /
		                1000),
		        c->logged_in ? "" : " of connecting", suppressed);
	connection_drop(c, c->logged_in ? "message deadline" : "login deadline");
	return 0;
}

/* Every incoming message passes here before it is dispatched: the first one logs c in. */
static int on_incoming(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	connection_t *c = userdata;

	if (!c->logged_in) {
		c->logged_in = true;
		sd_event_source_set_enabled(c->deadline, SD_EVENT_OFF);
	}
	c->dispatched = true;
	return 0;
}

static int connection_add_sources(connection_t *c, int fd)
{
	sd_event *e = c->configd->event;
	int r;

	r = sd_event_add_time_relative(e, &c->deadline, CLOCK_MONOTONIC,
	        c->configd->login_timeout_usec, 10 * 1000, on_deadline, c);
	if (r < 0)
		return r;

	r = sd_event_add_io(e, &c->io, fd, EPOLLIN, on_connection_io, c);
	if (r < 0)
		return r;
	r = sd_event_add_time(e, &c->timer, CLOCK_MONOTONIC, 0, 1, on_connection_timer, c);
	if (r < 0)
		return r;
	(void)sd_event_source_set_enabled(c->timer, SD_EVENT_OFF);
	/*
	 * sd-event dispatches one ready source at a time, the most urgent first: the requests of
	 * root and the owner go before any other uid's, new connections before those too.
	 */
	if (c->peer && c->peer->privileged) {
		(void)sd_event_source_set_priority(c->io, CONFIGD_PRIORITY_PRIVILEGED);
		(void)sd_event_source_set_priority(c->timer, CONFIGD_PRIORITY_PRIVILEGED);
	}
	connection_update(c);
	return 0;
}

/* Sets up c's bus on its socket c->fd; once the bus owns it, c->bus is set and frees it. */
static int connection_setup_bus(connection_t *c)
{
	configd_t *m = c->configd;
	_cleanup_close_ int bus_in = -1;
	int r;

	bus_in = inlet_open(c);
	if (bus_in < 0)
		return bus_in;
	r = sd_bus_new(&c->bus);
	if (r < 0)
		return r;
	/* sd-bus reads the pump (the inlet fills it) and writes to the peer directly. */
	r = sd_bus_set_fd(c->bus, bus_in, c->fd);
	if (r < 0) {
		c->bus = sd_bus_unref(c->bus);
		return r;
	}
	TAKE_FD(bus_in);
	/*
	 * The pump's credentials are configd's own, so sd-bus cannot match the uid of AUTH EXTERNAL
	 * against them: it takes any, and the inlet checks it against the peer's (SO_PEERCRED,
	 * read once at accept), which is how configd knows a peer anyway.  No
	 * sd_bus_negotiate_creds(): nothing is attached to messages.  No fd passing: the protocol
	 * has no fds.
	 */
	r = sd_bus_set_anonymous(c->bus, true);
	if (r >= 0)
		r = sd_bus_negotiate_fds(c->bus, false);
	if (r >= 0)
		r = sd_bus_set_server(c->bus, 1, m->server_id);
	if (r >= 0)
		r = methods_add_to_bus(c);
	if (r >= 0)
		r = sd_bus_add_filter(c->bus, NULL, on_incoming, c);
	if (r >= 0)
		r = sd_bus_match_signal(c->bus, NULL, NULL, "/org/freedesktop/DBus/Local",
		        "org.freedesktop.DBus.Local", "Disconnected", on_disconnected, c);
	if (r >= 0)
		r = sd_bus_start(c->bus);
	if (r >= 0) {
		connection_set_sndbuf(c);
		r = connection_add_sources(c, c->fd);
	}
	return r;
}

static int connection_new(configd_t *m, int fd)
{
	struct ucred cred = {};
	socklen_t len = sizeof(cred);
	connection_t *c;
	int r;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		r = negative_errno();
		close(fd);
		return r;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return -ENOMEM;
	}
	*c = (connection_t){.configd = m,
	        .id = ++m->next_connection_id,
	        .uid = cred.uid,
	        .pid = cred.pid,
	        .fd = fd,
	        .inlet = {.pump = -1},
	        .next = m->connections};
	r = limits_admit(c);
	if (r < 0) {
		close(fd);
		free(c);
		return r;
	}
	if (m->connections)
		m->connections->prev = c;
	m->connections = c;
	m->n_connections++;
	r = connection_setup_bus(c);
	if (r < 0) {
		if (!c->bus)
			close(fd); /* otherwise the bus owns it */
		connection_free(c);
		return r;
	}
	log_debug("connection %llu from pid %d uid %u", (unsigned long long)c->id, (int)c->pid,
	        (unsigned)c->uid);
	return 0;
}

static void pause_accepting(configd_t *m, const char *why)
{
	if (!m->refused_logged)
		log_warning(
		        "not accepting clients for now: %s (%u connected)", why, m->n_connections);
	m->refused_logged = true;
	sd_event_source_set_enabled(m->listen_source, SD_EVENT_OFF);
}

/*
 * Out of fds or memory, the pause cannot wait for a connection to close: there may be none.  So
 * accepting also resumes after ACCEPT_RETRY_USEC; if the shortage persists, accept fails again
 * and pauses again, so a shortage costs one failed accept4() per interval, not a busy loop.
 */
static void pause_accepting_for_resources(configd_t *m, const char *why)
{
	pause_accepting(m, why);
	if (sd_event_source_set_time_relative(m->accept_retry, ACCEPT_RETRY_USEC) < 0 ||
	        sd_event_source_set_enabled(m->accept_retry, SD_EVENT_ONESHOT) < 0)
		log_warning("cannot arm the accept retry timer; accepting resumes when a client "
		            "leaves");
}

static int on_accept_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
	configd_t *m = userdata;

	if (m->n_connections < CONFIGD_MAX_CONNECTIONS)
		sd_event_source_set_enabled(m->listen_source, SD_EVENT_ON);
	return 0;
}

static int on_accept(sd_event_source *s, int fd, uint32_t revents, void *userdata)
{
	configd_t *m = userdata;

	/* A bounded batch keeps one burst of clients from starving the others. */
	for (int i = 0; i < 64; i++) {
		int cfd, r;

		if (m->n_connections >= CONFIGD_MAX_CONNECTIONS) {
			pause_accepting(m, "too many connections");
			return 0;
		}
		cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (cfd < 0) {
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			        errno == ENOMEM)
				pause_accepting_for_resources(m, strerror(errno));
			else if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_warning("accept: %s", strerror(errno));
			return 0;
		}
		r = connection_new(m, cfd);
		if (r < 0 && r != -EUSERS) /* over its uid's share: logged already */
			log_warning_errno(r, "cannot set up a client connection");
	}
	return 0;
}

int server_start(configd_t *m)
{
	int r;

	m->thread = pthread_self();
	r = limits_init(m);
	if (r < 0)
		return log_error_errno(r, "out of memory");
	r = sd_id128_randomize(&m->server_id);
	if (r < 0)
		return log_error_errno(r, "cannot make a server id");
	m->listen_fd = smf_unix_listen(m->door_path, 0666, SOMAXCONN);
	if (m->listen_fd < 0)
		return log_error_errno(m->listen_fd, "cannot listen on %s", m->door_path);
	r = sd_event_add_io(m->event, &m->listen_source, m->listen_fd, EPOLLIN, on_accept, m);
	if (r < 0)
		return log_error_errno(r, "cannot watch %s", m->door_path);
	(void)sd_event_source_set_priority(m->listen_source, CONFIGD_PRIORITY_ACCEPT);
	/* Made now, disarmed: when it is needed there may be no fd left for sd-event's timerfd. */
	r = sd_event_add_time_relative(
	        m->event, &m->accept_retry, CLOCK_MONOTONIC, 0, 1000, on_accept_retry, m);
	if (r >= 0)
		r = sd_event_source_set_enabled(m->accept_retry, SD_EVENT_OFF);
	if (r < 0)
		return log_error_errno(r, "cannot make the accept retry timer");
	return 0;
}

/* During the final flush: requests that arrive now are not served (we are going away). */
static int on_message_at_exit(sd_bus_message *msg, void *userdata, sd_bus_error *error)
{
	return 1;
}

/* Arms the connections that still have output to write; returns how many. */
static size_t flush_prepare(configd_t *m, struct pollfd *p, connection_t **conns)
{
	size_t n = 0;

	for (connection_t *c = m->connections; c; c = c->next) {
		uint64_t queued = 0;
		int events;

		if (c->defer_free || sd_bus_get_n_queued_write(c->bus, &queued) < 0 || queued == 0)
			continue;
		events = sd_bus_get_events(c->bus);
		if (events < 0)
			continue;
		/* Only output is flushed: the pump is not read any more. */
		p[n] = (struct pollfd){.fd = c->fd, .events = (short)(events & POLLOUT)};
		conns[n++] = c;
	}
	return n;
}

/*
 * Replies (and notifications) already queued when we were told to stop are sent, if their
 * clients read them within CONFIGD_EXIT_FLUSH_USEC: a client whose call was served must not see
 * the connection drop instead of its reply.  sd_bus_flush() would wait for ever on a client that
 * does not read, so this polls every connection with one deadline.
 */
static void server_flush(configd_t *m)
{
	uint64_t deadline = deadline_after_usec(CONFIGD_EXIT_FLUSH_USEC);
	_cleanup_free_ struct pollfd *p = NULL;
	_cleanup_free_ connection_t **conns = NULL;
	size_t n;

	if (m->n_connections == 0)
		return;
	p = calloc(m->n_connections, sizeof(*p));
	conns = calloc(m->n_connections, sizeof(*conns));
	if (!p || !conns)
		return;
	for (connection_t *c = m->connections; c; c = c->next)
		if (!c->defer_free)
			(void)sd_bus_add_filter(c->bus, NULL, on_message_at_exit, NULL);
	while ((n = flush_prepare(m, p, conns)) > 0) {
		uint64_t left = deadline_left_usec(deadline);

		if (left == 0) {
			log_warning("%zu clients did not read their last replies", n);
			return;
		}
		if (poll(p, n, (int)((left + 999) / 1000)) < 0 && errno != EINTR)
			return;
		for (size_t i = 0; i < n; i++)
			if (p[i].revents)
				(void)sd_bus_process(conns[i]->bus, NULL);
	}
}

void server_stop(configd_t *m)
{
	m->listen_source = sd_event_source_disable_unref(m->listen_source);
	m->accept_retry = sd_event_source_disable_unref(m->accept_retry);
	if (m->listen_fd >= 0) {
		close(m->listen_fd);
		m->listen_fd = -1;
		if (unlink(m->door_path) < 0 && errno != ENOENT)
			log_warning("cannot remove %s: %s", m->door_path, strerror(errno));
	}
	server_flush(m);
	while (m->connections)
		connection_free(m->connections);
	limits_done(m);
}
