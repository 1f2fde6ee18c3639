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
/* A started message (its first byte read) must be whole this long after, as the first request. */
#define CONFIGD_MESSAGE_TIMEOUT_USEC (10u * 1000u * 1000u)
/*
 * What one uid other than root and the owner may make configd hold: replies and notifications it
 * has not read (as counted by connection_account()) plus the requests it has begun and not
 * finished (their announced sizes).  Per connection, only the output is bounded (the request
 * by CONFIGD_MAX_REQUEST_BYTES).  Past either the connection is closed rather than let configd
 * grow or a notification be skipped.
 */
#define CONFIGD_MAX_QUEUED_BYTES (16u * 1024u * 1024u)
#define CONFIGD_MAX_HELD_BYTES_PER_UID (16u * 1024u * 1024u)
/* What a queued message costs besides its body: sd-bus's message object and header. */
#define CONFIGD_MESSAGE_OVERHEAD_BYTES 1280u
/* The largest request a uid other than root and the owner may send (sd-bus allows 128 MiB). */
#define CONFIGD_MAX_REQUEST_BYTES (1024u * 1024u)
/* The largest anyone may send: sd-bus refuses a message of 128 MiB or more. */
#define CONFIGD_MAX_MESSAGE_BYTES (128u * 1024u * 1024u - 1u)
/* The smallest D-Bus message there is (a header and one header field); less is not D-Bus. */
#define CONFIGD_MIN_MESSAGE_BYTES 24u
/* What configd reads ahead of a peer at a boundary: a handshake line must fit (else: junk). */
#define CONFIGD_STAGE_BYTES 4096u
/* The handshake's lines before BEGIN: a client needs four. */
#define CONFIGD_MAX_HANDSHAKE_LINES 16u
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
	bool privileged; /* root or the root directory's owner */
	unsigned n_connections;
	uint64_t queued_bytes;  /* the sum of its connections' */
	uint64_t request_bytes; /* the sum of its connections' */
	uint64_t logged_at;     /* rate limit of the lines about it (limits_log_ok()) */
	unsigned suppressed;    /* lines not logged since the last one */
} peer_t;

/* Where a connection's inlet is in the byte stream its peer sends (inlet.c). */
typedef enum inlet_state {
	INLET_HANDSHAKE, /* SASL lines, relayed up to BEGIN */
	INLET_HEADER,    /* at a message boundary: the next header is read, then judged */
	INLET_BODY,      /* inside a judged message, relayed to its end */
} inlet_state_t;

typedef struct inlet {
	inlet_state_t state;
	int pump;         /* our end of the socketpair sd-bus reads from; -1 when none */
	uint8_t *stage;   /* bytes read from the peer, not yet relayed (CONFIGD_STAGE_BYTES) */
	size_t staged;    /* ... how many, from stage[0] */
	unsigned lines;   /* handshake lines relayed */
	bool begun;       /* BEGIN relayed: sd-bus is to finish the handshake */
	uint64_t size;    /* INLET_BODY: the message's announced size */
	uint64_t left;    /* ... and what of it is still to be relayed */
	uint64_t started; /* when the message's first byte was read (monotonic usec), or 0 */
} inlet_t;

struct connection {
	configd_t *configd;
	connection_t *prev, *next;
	uint64_t id;
	sd_bus *bus;
	int fd;                      /* the peer's socket: configd reads it, sd-bus writes it */
	inlet_t inlet;               /* everything the peer sends passes here first (inlet.c) */
	sd_event_source *io;         /* the socket: the inlet's POLLIN, sd-bus's POLLOUT */
	sd_event_source *timer;      /* sd_bus_get_timeout(): the handshake's, if any */
	sd_event_source *defer_free; /* set once the peer is gone: frees us outside sd-bus */
	uid_t uid;                   /* the peer's credentials, from SO_PEERCRED at accept */
	pid_t pid;
	peer_t *peer;              /* its uid's account (limits.c) */
	sd_event_source *deadline; /* the login, then a started message's deadline */
	bool logged_in;            /* a request was dispatched */
	bool dispatched;           /* sd-bus dispatched a message since this was cleared */
	uint64_t request_bytes;    /* the message being relayed, as charged (limits.c) */
	uint64_t queued_bytes;     /* what its write queue holds, as counted (limits.c) */
	uint64_t queued_high;      /* the most it ever held */
	uint64_t *costs;           /* one count per queued message, oldest first */
	size_t costs_head, n_costs, costs_allocated;
	char **notify_names; /* interests; NULL when none */
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
	uint64_t message_timeout_usec;
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
 * Judges a message of size bytes that c has begun to send, from its header: 0 when it may come
 * (its size is charged to c and its uid until limits_request_done()), or a negative errno when
 * it is too large or its uid holds too much (then c is logged and dropped).
 */
int limits_judge_request(connection_t *c, uint64_t size);
/* The message judged last has been served (or c goes): its charge is given back. */
void limits_request_done(connection_t *c);
/* Whether output for c waits in configd (sd-bus's write queue is not empty). */
bool connection_output_waits(connection_t *c);
/* sd_bus_message_send() for a reply that may be large: what it leaves queued is measured. */
int connection_send_reply(sd_bus_message *reply);
/* Sets the kernel send buffer of an unprivileged c's socket (CONFIGD_SOCKET_SNDBUF). */
void connection_set_sndbuf(connection_t *c);

/* inlet.c */
/* Makes c's pump: returns the fd sd-bus is to read from (configd keeps the other end). */
int inlet_open(connection_t *c);
/* Closes c's pump and frees what it staged. */
void inlet_close(connection_t *c);
/*
 * Reads what c's peer sent and relays what may go on to sd-bus, which dispatches it, until the
 * socket has nothing more, the gate is closed, or max_messages were served: 0, or -1 when c was
 * dropped (the peer is gone, or broke a limit: logged).
 */
int inlet_run(connection_t *c, unsigned max_messages);
/* Whether c's socket is to be polled for input now (not while the gate is closed). */
bool inlet_wants_input(connection_t *c);
/* When c's message under way must be whole (monotonic usec), or 0 for no deadline now. */
uint64_t inlet_deadline(connection_t *c);

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
