/*
 * configd.h: the daemon's state, shared by the server, the method handlers and notify.c.
 *
 * One configd_t per process; one connection_t per accepted client.  Everything runs on the one
 * sd-event thread, so none of this is locked: the thread that started serving is recorded
 * (configd_t.thread) and every request asserts it runs there, with no backend transaction
 * left open by the one before (connection_backend()).
 */
#ifndef CONFIGD_CONFIGD_H
#define CONFIGD_CONFIGD_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <systemd/sd-bus.h>
#include <systemd/sd-event.h>
#include <systemd/sd-id128.h>

#include "backend.h"
#include "hashmap.h"
#include "protocol.h"

/*
 * What one peer may cost configd (limits.c has the model, docs/security.md the reasons).
 * Connections: all of them; those no uid but root and the root directory's owner may take; and
 * each other uid's share.
 */
#define CONFIGD_MAX_CONNECTIONS 4096u
#define CONFIGD_RESERVED_CONNECTIONS 256u
#define CONFIGD_MAX_CONNECTIONS_PER_UID 256u
/*
 * sd-event priorities (lower goes first): the connections of root and the owner, then accepting
 * new ones, then every other uid's connections (SD_EVENT_PRIORITY_NORMAL, 0).
 */
#define CONFIGD_PRIORITY_PRIVILEGED (-20)
#define CONFIGD_PRIORITY_ACCEPT (-10)
/* A connection with no request dispatched this long after it was accepted is closed. */
#define CONFIGD_LOGIN_TIMEOUT_USEC (10u * 1000u * 1000u)
/*
 * Output waiting for a peer that does not read it (replies and notifications, as counted by
 * connection_account()): per connection, and per uid other than root and the owner.  Past it the
 * connection is closed rather than let configd grow or a notification be skipped.
 */
#define CONFIGD_MAX_QUEUED_BYTES (16u * 1024u * 1024u)
#define CONFIGD_MAX_QUEUED_BYTES_PER_UID (16u * 1024u * 1024u)
/* What a queued message costs besides its body: sd-bus's message object and header. */
#define CONFIGD_MESSAGE_OVERHEAD_BYTES 1280u
/* The largest request a uid other than root and the owner may send (sd-bus allows 128 MiB). */
#define CONFIGD_MAX_REQUEST_BYTES (1024u * 1024u)
/* How long a header gate waits in silence before sd-bus gets one look behind it (limits.c). */
#define CONFIGD_GATE_BREAKER_USEC (50u * 1000u)
/* How often a connection whose next header has not all arrived is looked at again. */
#define CONFIGD_HEADER_POLL_USEC (20u * 1000u)
/* The payload counted for a reply that is not measured (connection_send_reply() measures). */
#define CONFIGD_SMALL_REPLY_BYTES 4096u
/* The kernel's send buffer of an unprivileged peer's connection (sd-bus asks for 8 MiB). */
#define CONFIGD_SOCKET_SNDBUF (256 * 1024)
/* At exit, how long clients get to read the replies configd queued before it was stopped. */
#define CONFIGD_EXIT_FLUSH_USEC (2000u * 1000u)
/* Interests (names plus types) one connection may register. */
#define CONFIGD_MAX_INTERESTS 1024u

typedef struct configd configd_t;
typedef struct connection connection_t;

/* One uid with connections open (limits.c). */
typedef struct peer {
	uid_t uid;
	bool privileged;            /* root or the root directory's owner */
	unsigned n_connections;
	uint64_t queued_bytes;      /* the sum of its connections' */
	uint64_t logged_at;         /* rate limit of the lines about it (limits_log_ok()) */
	unsigned suppressed;        /* lines not logged since the last one */
} peer_t;

struct connection {
	configd_t *configd;
	connection_t *prev, *next;
	uint64_t id;
	sd_bus *bus;
	sd_event_source *io;         /* the socket; events follow sd_bus_get_events() */
	sd_event_source *timer;      /* sd_bus_get_timeout(): auth timeout or queued work */
	sd_event_source *defer_free; /* set once the peer is gone: frees us outside sd-bus */
	uid_t uid;                   /* the peer's credentials, from SO_PEERCRED at accept */
	pid_t pid;
	peer_t *peer;                 /* its uid's account (limits.c) */
	sd_event_source *login_timer; /* closes it unless a request came first */
	bool logged_in;               /* a request was dispatched */
	bool at_boundary;             /* the socket's next bytes begin a message */
	bool header_wait;             /* ... and they are fewer than a header: polled */
	bool gated;                   /* the gate's placeholder is in sd-bus's read queue */
	bool gate_bounced;            /* ... and was put back by the last dispatch */
	bool gate_passed;             /* the last sd_bus_process() dispatched the placeholder */
	bool gate_breaking;           /* sd-bus gets one look behind the gate (limits.c) */
	bool gate_looked;             /* ... and had nothing, at this boundary */
	bool dispatched;              /* the last sd_bus_process() dispatched a message */
	uint64_t gate_idle_since;     /* the gate waits for a header since (monotonic usec) */
	unsigned leftover;            /* judged messages sd-bus may hold from the handshake */
	sd_bus_message *gate_msg;     /* the placeholder (limits.c), made when first needed */
	uint64_t queued_bytes;        /* what its write queue holds, as counted (limits.c) */
	uint64_t queued_high;         /* the most it ever held */
	uint64_t *costs;              /* one count per queued message, oldest first */
	size_t costs_head, n_costs, costs_allocated;
	char **notify_names;          /* interests; NULL when none */
	char **notify_types;
	bool notify_instances; /* NotifyAddInstances: wants InstanceAdded */
};

struct configd {
	sd_event *event;
	backend_t *backend;
	char *root;
	char *door_path;
	uid_t owner_uid; /* owner of the root directory: may write, as root may */
	bool native;
	/* --eager / SVC_CONFIGD_EAGER=1: a new instance gets its restarter pg (backend.h) */
	bool eager;
	int listen_fd;
	sd_event_source *listen_source;
	sd_event_source *accept_retry; /* resumes accepting after a shortage of fds or memory */
	sd_id128_t server_id;
	connection_t *connections;
	unsigned n_connections;
	uint64_t next_connection_id;
	bool refused_logged;     /* the "too many connections" line is logged once per episode */
	hashmap_t *peers;        /* uid (decimal) -> peer_t, while it has connections */
	unsigned n_unprivileged; /* connections of uids other than root and the owner */
	uint64_t login_timeout_usec;
	connection_t *restarter; /* the connection registered as restarter, or NULL */
	pthread_t thread;        /* the one that serves (server_start()'s) */
};

/*
 * The backend, for a request handler of c: asserts the one-thread rule and that no transaction
 * is open, since requests run one after the other and each leaves the backend as it found it.
 */
static inline backend_t *connection_backend(connection_t *c)
{
	assert(pthread_equal(c->configd->thread, pthread_self()));
	assert(backend_tx_depth(c->configd->backend) == 0);
	return c->configd->backend;
}

/* server.c */
int server_start(configd_t *m);
void server_stop(configd_t *m);
/*
 * Ends a connection soon (from the event loop, outside any sd-bus dispatch on it); from now on
 * it gets no notifications and is no longer the restarter.
 */
void connection_drop(connection_t *c, const char *why);
/* Re-arms the connection's fd events and timer; call after queueing a message on it. */
void connection_update(connection_t *c);

/* limits.c */
int limits_init(configd_t *m);
void limits_done(configd_t *m);
bool limits_privileged(const configd_t *m, uid_t uid);
/*
 * Whether a line about c's uid may be logged now (one per 10 s per uid, so that a flood does
 * not flood the log); *suppressed is how many were not since the last one (then reset).
 */
bool limits_log_ok(connection_t *c, unsigned *suppressed);
/* Takes a slot for c's uid (0), or -EUSERS (logged) when its uid is over its share. */
int limits_admit(connection_t *c);
/* Gives back c's slot and its output account. */
void limits_release(connection_t *c);
/*
 * Brings c's output account in line with its sd-bus write queue after anything that may have
 * queued or written messages on it; a message queued since counts last_bytes of payload if it
 * is the newest and last_bytes is not 0 (else CONFIGD_SMALL_REPLY_BYTES).  Returns false when c
 * went over a bound: then it is logged and dropped.
 */
bool connection_account(connection_t *c, uint64_t last_bytes);
/*
 * Before sd-bus reads on from c: 0 to go ahead, 1 to wait (a header in pieces; c->header_wait
 * is set), -1 when c announced a request over CONFIGD_MAX_REQUEST_BYTES (then it is dropped).
 */
int limits_check_request(connection_t *c);
/* Whether output for c waits in configd (sd-bus's write queue is not empty). */
bool connection_output_waits(connection_t *c);
/*
 * The gate: closes it (puts the placeholder in sd-bus's read queue) when output for c waits or
 * c's next header is to be judged; call after anything that may change either.
 */
int connection_gate(connection_t *c);
/* For the filter: msg is c's placeholder (consumed, or put back while the gate stays closed). */
int connection_gate_pass(connection_t *c, sd_bus_message *msg);
/* After sd-bus's one look behind the gate (sd_bus_process() returned r): closes or drops c. */
void limits_gate_looked(connection_t *c, int r);
/* sd_bus_message_send() for a reply that may be large: what it leaves queued is measured. */
int connection_send_reply(sd_bus_message *reply);
/* Sets the kernel send buffer of an unprivileged c's socket (CONFIGD_SOCKET_SNDBUF). */
void connection_set_sndbuf(connection_t *c);

/* methods.c: the vtables added to every connection. */
int methods_add_to_bus(connection_t *c);

/* auth.c */
bool auth_may_write(const connection_t *c);
/* 0 when c may write, else sets PermissionDenied naming what and returns < 0. */
int auth_check_write(connection_t *c, sd_bus_error *error, const char *method, const char *what);

/* errors.c */
/* Fills error from a negative backend/scf error and a sentence; returns a negative errno. */
int configd_reply_error(sd_bus_error *error, int err, const char *msg);
/* The same with the backend's last message. */
int configd_backend_error(connection_t *c, sd_bus_error *error, int err);
/* sd_bus_error_setf() with the input it quotes cut (smf_cut_message()). */
int configd_errorf(sd_bus_error *error, const char *name, const char *fmt, ...)
        __attribute__((format(printf, 3, 4)));

/* notify.c */
int notify_add_interest(connection_t *c, bool by_type, const char *name, sd_bus_error *error);
void notify_reset(connection_t *c);
/* Sends PgChanged / PgDeleted for pg to every connection whose interests match. */
void notify_pg_changed(configd_t *m, const scf_pg_t *pg);
void notify_pg_deleted(configd_t *m, const scf_pg_t *pg);
/* Sends InstanceAdded for the instance fmri to every connection that asked for it. */
void notify_instance_added(configd_t *m, const char *fmri);

#endif
