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
#include "protocol.h"

/* More clients than this are turned away at accept() (each costs an fd and an sd_bus). */
#define CONFIGD_MAX_CONNECTIONS 4096u
/*
 * Signals queued for a connection that does not read them, beyond what its socket holds.  Past
 * this the connection is closed rather than let it grow without bound or skip a signal.
 */
#define CONFIGD_MAX_QUEUED_SIGNALS 65536u
/*
 * The same bound in bytes (each signal counted as NOTIFY_HEADER_BYTES plus its arguments), so
 * that long names cannot make 65536 signals cost 64 MiB: 16 MiB per connection.  Counted from
 * the last moment the connection's queue was seen empty, so it can only overestimate.
 */
#define CONFIGD_MAX_QUEUED_SIGNAL_BYTES (16u * 1024u * 1024u)
/* At exit, how long clients get to read the replies configd queued before it was stopped. */
#define CONFIGD_EXIT_FLUSH_USEC (2000u * 1000u)
/* Interests (names plus types) one connection may register. */
#define CONFIGD_MAX_INTERESTS 1024u

typedef struct configd configd_t;
typedef struct connection connection_t;

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
	uint64_t queued_signal_bytes; /* signals queued since the queue was last seen empty */
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
/*
 * The messages waiting in c's write queue, in *ret.  Seeing the queue empty restarts the count
 * of queued signal bytes (CONFIGD_MAX_QUEUED_SIGNAL_BYTES), so that count only overestimates.
 * < 0 when the bus is closed.
 */
int connection_queued(connection_t *c, uint64_t *ret);

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

/* notify.c */
int notify_add_interest(connection_t *c, bool by_type, const char *name, sd_bus_error *error);
void notify_reset(connection_t *c);
/* Sends PgChanged / PgDeleted for pg to every connection whose interests match. */
void notify_pg_changed(configd_t *m, const scf_pg_t *pg);
void notify_pg_deleted(configd_t *m, const scf_pg_t *pg);
/* Sends InstanceAdded for the instance fmri to every connection that asked for it. */
void notify_instance_added(configd_t *m, const char *fmri);

#endif
