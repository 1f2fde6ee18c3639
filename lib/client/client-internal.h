/*
 * client-internal.h: what the files of libscf's client side share.
 *
 * A handle is one peer-to-peer sd-bus connection to svc.configd plus the per-handle state that
 * illumos keeps per handle: the last error message and the queue of notifications that arrived
 * but were not yet handed out.  Nothing here is global, so threads that each own a handle never
 * touch each other's state.
 */
#ifndef SMF_CLIENT_INTERNAL_H
#define SMF_CLIENT_INTERNAL_H

#include <systemd/sd-bus.h>

#include "error.h"
#include "libscf.h"
#include "macro.h"
#include "protocol.h"
#include "timeutil.h"

#define SCF_DEFAULT_TIMEOUT_USEC (25 * USEC_PER_SEC)

typedef struct notify_entry notify_entry_t;

struct scf_handle {
	sd_bus *bus;
	sd_bus_slot *signal_slot;
	char *root;
	char *errmsg;           /* NULL: scf_strerror(last_error), or "" */
	scf_error_t last_error; /* of the last failed call; SCF_ERROR_NONE after a success */
	uint64_t timeout_usec;
	/* Notifications in arrival order (fifo.h); the signal callback pushes, scf_notify_wait pops. */
	notify_entry_t *notify_head, *notify_tail;
	/* A notification we could not queue (out of memory): reported by the next wait. */
	int notify_error;
	/* configd answered UnknownMethod to ReadPg (protocol 1.0): scf_pg_get() uses GetPg. */
	bool no_read_pg;
};

/* Errors: every public entry point clears, every failure path sets (error.c). */
void client_clear_error(scf_handle_t *h);
/*
 * Records a library message for the negative scf error err and returns err; err 0 records a
 * message for a call that did not fail (Commit's "not latest").
 */
int client_set_error(scf_handle_t *h, int err, const char *fmt, ...) _printf_(3, 4);
/* Maps a negative errno of a local operation (ENOMEM, ...) to a negative scf error. */
int client_errno_to_scf(int r);
/* Maps a failed sd_bus_call() to a negative scf error and records the message. */
int client_error_from_bus(scf_handle_t *h, const char *member, int r, const sd_bus_error *e);
/* A reply that does not have the signature protocol.md promises. */
int client_bad_reply(scf_handle_t *h, const char *member, int r);

/*
 * Calls (handle.c), each of a method of protocol.h's table (smf_method_<id>): the method names
 * the call, and its signatures are the only ones the call's arguments are appended by and its
 * reply read by.  A message built in parts (containers, basic appends) must end up with the
 * method's signature: client_call_message() asserts it.
 */
int client_new_call(scf_handle_t *h, const smf_bus_method_t *method, sd_bus_message **ret);
int client_call_message(
        scf_handle_t *h, const smf_bus_method_t *method, sd_bus_message *m, sd_bus_message **reply);
/* A call whose arguments, of the method's signature, follow reply. */
int client_call(scf_handle_t *h, const smf_bus_method_t *method, sd_bus_message **reply, ...);
/* Whether m, built for method, carries the arguments protocol.h gives it. */
static inline bool client_call_is(const smf_bus_method_t *method, sd_bus_message *m)
{
	return streq(sd_bus_message_get_signature(m, true), method->in);
}
/* Reads the whole reply, of the method's signature, into the pointers that follow. */
int client_read_reply(scf_handle_t *h, const smf_bus_method_t *method, sd_bus_message *reply, ...);
/* Reads the "as" a method answers into a strv that is never NULL. */
int client_read_strv(
        scf_handle_t *h, const smf_bus_method_t *method, sd_bus_message *reply, char ***ret);

/* Notifications (notify.c). */
int client_notify_attach(scf_handle_t *h);
void client_notify_free_queue(scf_handle_t *h);

/*
 * scf.read (pg.c): a read of entity/pg answered r (0, or a negative error) at generation, whose
 * request left at sent_ns; scf_pg_get() and scf_bulk_read() record every read through it.
 */
void client_trace_read(const char *entity, const char *pg, const char *snapshot,
        unsigned read_flags, int r, uint64_t generation, uint64_t sent_ns);

/*
 * Records (bulk.c): ReadPg's and ReadPgs' answers, fields that are NUL-terminated strings
 * (docs/protocol.md).  Each reader returns -EBADMSG for what is not there or not well formed,
 * never reading past the end.
 */
typedef struct client_cursor {
	const char *p, *end;
} client_cursor_t;
const char *client_field(client_cursor_t *c); /* NULL at the end or before a field with no NUL */
int client_number(client_cursor_t *c, uint64_t *ret); /* a decimal field */
/* A count of things, each taking at least min_bytes of what is left. */
int client_count(client_cursor_t *c, size_t min_bytes, size_t *ret);

/* Properties (pg.c), shared with tx.c. */
void client_property_done(scf_property_t *p);
int client_property_copy(const scf_property_t *src, scf_property_t *dst);

/*
 * Checks n values of type for entity/pg/prop (count, each value, its length) and returns their
 * canonical forms in *ret; the error message names the property and the bad value (tx.c).
 */
int client_normalize_values(scf_handle_t *h, const char *entity, const char *pg, const char *prop,
        scf_type_t type, const char *const *values, size_t n, char ***ret);
/*
 * Appends one command (SMF_BUS_COMMAND) to m, for Commit (tx.c) and for a Batch PROPS step
 * (batch.c); DELETE and REMOVE send no type and no values (tx.c).
 */
int client_append_command(
        sd_bus_message *m, smf_cmd_op_t op, const char *prop, scf_type_t type, char **values);

#endif
