/*
 * backend.h: the repository on SQLite, without D-Bus.
 *
 * Every function returns >= 0 on success or a negative scf_error_t (-SCF_ERROR_NOT_FOUND, ...)
 * on failure, with a sentence naming what was refused in backend_errmsg(); backend_commit()'s
 * "not latest" is an answer, not a failure: a positive BACKEND_NOT_LATEST, explained there
 * too.  Entities are named by FMRI (any form
 * scf_fmri_parse() accepts); everything returned carries canonical FMRIs.  A write either
 * applies whole or leaves the repository as it was.
 *
 * Results reuse the record types of libscf.h (scf_pg_t, scf_pg_info_t, scf_property_t) but are
 * freed by the backend_*_free() functions below, so configd does not depend on the client.
 */
#ifndef CONFIGD_BACKEND_H
#define CONFIGD_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libscf.h"
#include "protocol.h"

/*
 * What backend_commit() answers when it does not fail: an empty command list changed nothing,
 * the commands were applied (the pg has a new generation), or the generation named is not the
 * pg's current one (nothing changed).
 */
enum { BACKEND_UNCHANGED = 0, BACKEND_COMMITTED = 1, BACKEND_NOT_LATEST = 2 };

/*
 * Size bounds of a pg, counted as its properties take on the wire (GetPg's a(ssas), alignment
 * included; see backend_props_wire_size()).  D-Bus refuses an array over 64 MiB, and a composed
 * read adds the service's properties to the instance's, so a write may not make a pg larger
 * than BACKEND_MAX_PG_BYTES (CONSTRAINT_VIOLATED): two of them always fit in a reply.  A read
 * that would still exceed BACKEND_MAX_READ_BYTES (a pg stored before the write bound existed)
 * is refused with CONSTRAINT_VIOLATED rather than answered with a reply no client can read.
 */
#define BACKEND_MAX_PG_BYTES (16u * 1024u * 1024u)
#define BACKEND_MAX_READ_BYTES (64u * 1024u * 1024u - 64u * 1024u)

/* The current schema (PRAGMA user_version of the persistent database). */
#define BACKEND_SCHEMA_VERSION 3

typedef struct backend backend_t;

/*
 * Opens (creating it if needed) $root/etc/svc/repository.db and the non-persistent database
 * $root/etc/svc/volatile/svc_nonpersist.db: the one there if it belongs to this boot (its
 * marker holds this boot's id), else a fresh one (see backend.c).  The directories must exist.
 * On failure *errmsg (if given) gets a malloc'd sentence.
 */
int backend_open(const char *root, backend_t **ret, char **errmsg);
/* How the non-persistent database was opened (kept or made afresh, and why), for the log. */
const char *backend_np_note(const backend_t *b);
void backend_close(backend_t *b);
/* Open transactions (nested begins); 0 whenever no backend call runs. */
unsigned backend_tx_depth(const backend_t *b);
/* The sentence describing the last failure (valid until the next call). */
const char *backend_errmsg(const backend_t *b);

/*
 * The record of the writes to each database, for the clients that wait for another's writes
 * (svccfg import waits for svc.startd's restarter pgs, which live in the non-persistent one):
 * when their wait does not progress, they ask whether the store refuses writes, and say so
 * rather than wait in silence.  A write is every statement that changes a database, from the
 * first to the commit; its outcome is recorded for every database it changed: taken once it
 * commits, refused when SQLite fails to store it (a full filesystem, an I/O error, a read-only
 * or corrupt file: backend_store_failure()), and neither when it is refused for what it asks
 * (a missing pg, a stale generation), or by configd before SQLite sees it (out of memory).  A
 * write that changes both databases and fails is
 * recorded as refused by both: SQLite does not say which file it could not write.
 */
enum { BACKEND_STORE_PERSISTENT = 0, BACKEND_STORE_NONPERSISTENT = 1, _BACKEND_STORES = 2 };

typedef struct backend_store_status {
	const char *path;        /* the database file */
	uint64_t last_ok_usec;   /* CLOCK_REALTIME of the last write it took; 0: none yet */
	uint64_t last_fail_usec; /* of the last write it refused; 0: none yet */
	uint64_t failures;       /* writes it refused since the last it took: 0, it takes them */
	const char *kind;        /* the last refusal's SMF_STORE_FAIL_* (protocol.h), "" none */
	const char *error;       /* SQLite's message for it ("database or disk is full"), "" */
} backend_store_status_t;

/* The record of store (BACKEND_STORE_*); the strings live until the next backend call. */
void backend_store_status(const backend_t *b, int store, backend_store_status_t *ret);

/* Entities. */
int backend_list_services(backend_t *b, char ***ret);
/* service NULL or "": instances of every service. */
int backend_list_instances(backend_t *b, const char *service, char ***ret);
int backend_add_service(backend_t *b, const char *fmri);
int backend_add_instance(backend_t *b, const char *fmri);
/*
 * backend_add_instance() that also tells what it made: *ret_canon (if given) the instance's
 * canonical FMRI; *ret_rpg (if given) the restarter pg created with it (configd-eager, see
 * backend_set_eager_restarter()), NULL when none was.  Free with free(), backend_pg_free().
 */
int backend_create_instance(backend_t *b, const char *fmri, char **ret_canon, scf_pg_t **ret_rpg);
/*
 * configd-eager (svc.configd --eager): from now on every instance created (AddInstance, a
 * Batch step) gets, in the same transaction, the restarter pg svc.startd would write at its
 * first sight (state uninitialized, next_state none, auxiliary_state insert_in_graph,
 * state_timestamp), non-persistent.  Off by default: the restarter pg is startd's.
 */
void backend_set_eager_restarter(backend_t *b, bool on);
/* 1 exists, 0 does not. */
int backend_entity_exists(backend_t *b, const char *fmri);
/*
 * Deletes a service (with its instances) or an instance, with pgs and snapshots.  *ret_deleted
 * (if given) gets the pgs that went, with their entity, as an array of *ret_n infos.
 */
int backend_delete_entity(backend_t *b, const char *fmri, scf_pg_t **ret_deleted, size_t *ret_n);

/* Property groups.  snapshot NULL or "": the current view. */
int backend_list_pgs(backend_t *b, const char *entity, const char *snapshot, bool composed,
        scf_pg_info_t **ret, size_t *ret_n);
int backend_get_pg(backend_t *b, const char *entity, const char *pg, const char *snapshot,
        bool composed, scf_pg_t **ret);
/* *ret (if given) gets the new pg (entity canonical, no properties). */
int backend_add_pg(backend_t *b, const char *entity, const char *pg, const char *type,
        uint32_t flags, scf_pg_t **ret);
int backend_delete_pg(backend_t *b, const char *entity, const char *pg, scf_pg_t **ret);

/* Commands and steps carry the wire's op codes (protocol.h), checked by the backend. */
typedef struct backend_cmd {
	uint32_t op; /* an smf_cmd_op_t once checked: Commit takes up to DELETE */
	const char *prop;
	const char *type;          /* SMF type name; ignored by DELETE */
	const char *const *values; /* ignored by DELETE */
	size_t n_values;
} backend_cmd_t;

/*
 * Applies cmds in order to entity/pg if its generation is still generation.  Returns
 * BACKEND_COMMITTED and the pg after the commit in *ret (without properties) when something was
 * committed, BACKEND_UNCHANGED for an empty command list (nothing changes; *ret has the current
 * pg), BACKEND_NOT_LATEST (nothing changes, *ret is untouched, backend_errmsg() says which
 * generation is current), -SCF_ERROR_DELETED when the pg (or its entity) no longer exists, or
 * another error.
 */
int backend_commit(backend_t *b, const char *entity, const char *pg, uint64_t generation,
        const backend_cmd_t *cmds, size_t n_cmds, scf_pg_t **ret);

/*
 * Batches: many steps, one SQLite transaction (see backend-batch.c).  A step's fields beyond
 * op and fmri are read only by the ops that use them.
 */
typedef struct backend_step {
	uint32_t op; /* an smf_step_op_t once checked (InvalidArgument past _SMF_STEP_MAX) */
	const char *fmri;
	const char *pg;
	const char *name;
	const char *type;
	uint32_t flags;
	const backend_cmd_t *cmds;
	size_t n_cmds;
} backend_step_t;

/*
 * What a batch did to one pg, for notifications: PgChanged, or PgDeleted when deleted; created
 * when the pg did not exist before the batch (or the batch deleted and re-created it).
 */
typedef struct backend_pg_event {
	bool deleted;
	bool created;
	scf_pg_t pg; /* entity, name, type, flags, generation; no properties */
} backend_pg_event_t;

/*
 * Applies every step or none.  Returns the number of steps applied and, in *ret (*ret_n
 * entries, in the order the pgs were first touched), what to notify after the commit.  On
 * failure the message starts with "step N (what it names): " (N counts from 1).
 */
int backend_batch(backend_t *b, const backend_step_t *steps, size_t n, backend_pg_event_t **ret,
        size_t *ret_n);
/*
 * backend_batch() that also gives, in *ret_added (a strv, possibly empty, canonical, in
 * creation order), the instances the batch created that still exist at its end: configd
 * announces them (InstanceAdded) before the pg events.
 */
int backend_batch_added(backend_t *b, const backend_step_t *steps, size_t n,
        backend_pg_event_t **ret, size_t *ret_n, char ***ret_added);
void backend_pg_events_free(backend_pg_event_t *events, size_t n);

/* Snapshots of an instance. */
int backend_list_snapshots(backend_t *b, const char *instance, char ***ret);
int backend_take_snapshot(backend_t *b, const char *instance, const char *name);
int backend_delete_snapshot(backend_t *b, const char *instance, const char *name);
/* "previous" := "running" (when it exists), "running" := now; one transaction. */
int backend_refresh(backend_t *b, const char *instance);

void backend_pg_free(scf_pg_t *pg);
void backend_pgs_free(scf_pg_t *pgs, size_t n); /* an array of pgs (their contents) */
void backend_pg_infos_free(scf_pg_info_t *infos, size_t n);

static inline void backend_pg_freep(scf_pg_t **p)
{
	backend_pg_free(*p);
}
#define _cleanup_backend_pg_ __attribute__((cleanup(backend_pg_freep)))

#endif
