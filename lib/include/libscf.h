/*
 * libscf.h: the minismf service configuration library.
 *
 * THE MODEL
 *
 * The repository (served by svc.configd) holds services ("svc:/network/ssh"), their instances
 * ("svc:/network/ssh:default"), and on each of those property groups (pgs).  A pg has a name, a
 * type ("framework", "method", "dependency", "application", ...), flags and a generation; it
 * holds properties, each with one of the 14 SMF value types and an ordered list of values.
 * Instances also have snapshots ("initial", "last-import", "running", "previous"): frozen copies
 * of the instance's pgs and its service's pgs as they were when the snapshot was taken.
 *
 * Everything is addressed by FMRI string and pg name; there are no per-element handles.  A pg
 * is read whole (scf_pg_get) and changed only by a transaction: a set of property commands
 * (new, replace, delete) committed atomically against the generation that was read.  If the
 * pg changed in between, the commit answers 0 ("not latest"); the caller re-reads (scf_tx_reset)
 * and tries again, or lets scf_tx_run() do the loop.
 *
 * CONVENTIONS
 *
 * - Every function that can fail returns a negative scf_error_t (-SCF_ERROR_NOT_FOUND, ...) on
 *   failure and >= 0 on success.  scf_strerror() turns either sign into a message.  When the
 *   failure came from configd, scf_handle_errmsg() has configd's own sentence (which names the
 *   entity, the property or the value that was refused).
 * - Strings and arrays returned through out-parameters are malloc'd and owned by the caller;
 *   lists are NULL-terminated string vectors (free with scf_strv_free()).
 * - A handle is one connection to configd and is NOT thread-safe: a program with threads gives
 *   each thread its own handle (as on illumos).  Handles of one process are independent.
 * - An unbound handle or a configd that went away gives -SCF_ERROR_NO_SERVER /
 *   -SCF_ERROR_CONNECTION_BROKEN at once; no call blocks for long on a dead daemon.  A configd
 *   that is there but does not answer (stopped, stuck) gives -SCF_ERROR_TIMEOUT once the
 *   handle's timeout (25 s) has passed; the handle stays usable.
 */
#ifndef LIBSCF_H
#define LIBSCF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */

/*
 * The codes start at 1000 and keep illumos' numbers where illumos has the error, so a code is
 * never an errno value (those stay far below 1000): a function may pass up either kind, negated,
 * and the caller can still tell which it got.  The three that illumos lacks sit above its range.
 */
typedef enum scf_error {
	SCF_ERROR_NONE = 1000,
	SCF_ERROR_NOT_BOUND = 1001,     /* handle not bound to a repository */
	SCF_ERROR_NOT_FOUND = 1003,     /* no such service, instance, pg, property or snapshot */
	SCF_ERROR_TYPE_MISMATCH = 1004, /* typed read of a property of another type */
	SCF_ERROR_CONNECTION_BROKEN = 1006, /* configd went away during the call */
	SCF_ERROR_INVALID_ARGUMENT = 1007,  /* malformed FMRI, name, type name or value */
	SCF_ERROR_NO_MEMORY = 1008,
	SCF_ERROR_CONSTRAINT_VIOLATED = 1009, /* too long, too many, or otherwise out of limits */
	SCF_ERROR_EXISTS = 1010,              /* it already exists */
	SCF_ERROR_NO_SERVER = 1011,           /* repository unavailable (no configd at that root) */
	SCF_ERROR_NO_RESOURCES = 1012,        /* configd out of resources */
	SCF_ERROR_PERMISSION_DENIED = 1013,   /* the caller may read but not modify */
	SCF_ERROR_BACKEND_ACCESS = 1014,      /* configd's database failed (disk full, I/O error) */
	SCF_ERROR_VERSION_MISMATCH = 1017,    /* configd speaks another protocol version */
	SCF_ERROR_BACKEND_READONLY = 1018,    /* configd's database is read-only */
	SCF_ERROR_DELETED = 1019,             /* the pg or entity was deleted under a transaction */
	SCF_ERROR_INTERNAL = 1101,
	/* minismf's own */
	SCF_ERROR_AMBIGUOUS = 1200, /* an FMRI abbreviation matches more than one entity */
	SCF_ERROR_TIMEOUT = 1201,   /* a wait or a call reached its deadline (not notify_wait) */
	SCF_ERROR_NOT_SUPPORTED = 1202, /* e.g. registering a restarter with a --native configd */
} scf_error_t;

/*
 * A message for a code, negated or not: an scf_error_t's, or strerror()'s for an errno value
 * (below SCF_ERROR_NONE); 0 is "no error".  Never NULL.
 */
const char *scf_strerror(int err);

/* ------------------------------------------------------------------------------------------ */
/* Limits (as illumos' scf_limit()): lengths in bytes, excluding the terminating NUL.          */

#define SCF_LIMIT_MAX_NAME_LENGTH 119   /* a service component, instance, pg or property name */
#define SCF_LIMIT_MAX_VALUE_LENGTH 4095 /* one value in its string form */
#define SCF_LIMIT_MAX_FMRI_LENGTH 628
#define SCF_LIMIT_MAX_PG_TYPE_LENGTH 119
#define SCF_LIMIT_MAX_VALUES 4096 /* values in one property */

/* ------------------------------------------------------------------------------------------ */
/* Value types                                                                                 */

typedef enum scf_type {
	SCF_TYPE_INVALID = 0,
	SCF_TYPE_BOOLEAN,
	SCF_TYPE_COUNT,
	SCF_TYPE_INTEGER,
	SCF_TYPE_TIME,
	SCF_TYPE_ASTRING,
	SCF_TYPE_OPAQUE,
	SCF_TYPE_USTRING,
	SCF_TYPE_URI,
	SCF_TYPE_FMRI,
	SCF_TYPE_HOST,
	SCF_TYPE_HOSTNAME,
	SCF_TYPE_NET_ADDR,
	SCF_TYPE_NET_ADDR_V4,
	SCF_TYPE_NET_ADDR_V6,
	_SCF_TYPE_MAX
} scf_type_t;

/* "boolean", "count", ..., "net_address_v6"; NULL for an invalid type. */
const char *scf_type_to_string(scf_type_t t);
/* The inverse; SCF_TYPE_INVALID for an unknown name. */
scf_type_t scf_string_to_type(const char *s);

/*
 * Checks that s is a valid value of type t, and returns its canonical string form in *ret
 * (malloc'd; may be NULL if the caller only wants the check).  Canonical forms: booleans
 * "true"/"false"; counts and integers in decimal without leading zeros or '+'; times as
 * "seconds[.nanoseconds]" with trailing zeros dropped; opaque as lowercase hex; other types as
 * given.  Returns 0, or -SCF_ERROR_INVALID_ARGUMENT (bad value) or
 * -SCF_ERROR_CONSTRAINT_VIOLATED (longer than SCF_LIMIT_MAX_VALUE_LENGTH).
 */
int scf_value_normalize(scf_type_t t, const char *s, char **ret);

/*
 * Checks a pg or property name: 1..SCF_LIMIT_MAX_NAME_LENGTH bytes, starting with a letter or
 * '_', then letters, digits, '_', '-', '.', and an optional "STOCK," prefix (e.g. "SUNW,foo").
 * Returns 0, -SCF_ERROR_INVALID_ARGUMENT or -SCF_ERROR_CONSTRAINT_VIOLATED (too long).
 */
int scf_name_validate(const char *name);

/* ------------------------------------------------------------------------------------------ */
/* FMRIs                                                                                       */

/*
 * A parsed "svc:[//scope]/service[:instance][/:properties/pg[/prop]]".  Fields not present are
 * NULL.  scope is NULL or "localhost" (the only scope).
 */
typedef struct scf_fmri {
	char *scope;
	char *service;  /* "network/ssh" (no leading slash) */
	char *instance; /* "default" */
	char *pg;
	char *prop;
} scf_fmri_t;

/*
 * Parses a full FMRI.  Also accepts the forms without "svc:" that illumos tools accept for a
 * full name: "/network/ssh:default" and "network/ssh:default" (taken literally, not as an
 * abbreviation).  Returns 0 or -SCF_ERROR_INVALID_ARGUMENT (-SCF_ERROR_CONSTRAINT_VIOLATED for
 * an over-long component).
 */
int scf_fmri_parse(const char *s, scf_fmri_t *ret);
/* Frees the fields (not the struct) and zeroes them. */
void scf_fmri_clear(scf_fmri_t *f);
/*
 * Formats canonically: "svc:/service[:instance][/:properties/pg[/prop]]" (scope omitted).  The
 * names are written as they are, not checked (scf_fmri_parse() of the result checks them).
 * Returns 0, -SCF_ERROR_INVALID_ARGUMENT (no service, or a property without a pg),
 * -SCF_ERROR_CONSTRAINT_VIOLATED (longer than SCF_LIMIT_MAX_FMRI_LENGTH) or
 * -SCF_ERROR_NO_MEMORY.  This and scf_fmri_format_entity() are the only writers of FMRIs: build
 * one with them, never by hand, so that every FMRI a program prints or sends has one form.
 */
int scf_fmri_format(const scf_fmri_t *f, char **ret);
/*
 * The FMRI of a service (instance NULL) or of one of its instances, from their names:
 * scf_fmri_format() of an scf_fmri_t with only those two, for callers that hold the names
 * (a manifest's) or want the entity an FMRI lies under (f->service, f->instance).  One that is
 * too long is returned all the same, so that whoever reads it refuses it naming it
 * (scf_fmri_parse(), and so every libscf call and configd, answer CONSTRAINT_VIOLATED).
 */
int scf_fmri_format_entity(const char *service, const char *instance, char **ret);
/* Parses and re-formats; the canonical form of any accepted input. */
int scf_fmri_canonicalize(const char *s, char **ret);

/*
 * Does the abbreviation pattern name the entity FMRI fmri (a canonical service or instance
 * FMRI)?  As illumos: a full FMRI matches itself (a service FMRI also its instances);
 * otherwise the pattern ("smtp:sendmail", "smtp", "sendmail", "svc:/network/smtp", or a glob
 * such as "network/s?tp") must start at a component boundary ("/" or ":") and end at the end
 * of the service path or of the instance; a pattern with glob characters is matched with
 * fnmatch() against the whole FMRI.  Returns true or false.
 */
bool scf_fmri_abbrev_match(const char *pattern, const char *fmri);

/* ------------------------------------------------------------------------------------------ */
/* Handles                                                                                     */

typedef struct scf_handle scf_handle_t;

/*
 * Connects to the configd serving root (NULL: $SMF_ROOT, then the per-user default; see
 * paths.h).  Returns 0 and a handle in *ret, or -SCF_ERROR_NO_SERVER when nothing serves that
 * root ("repository unavailable"), -SCF_ERROR_PERMISSION_DENIED when
 * this user may not connect to its socket (the socket or a directory above it denies access),
 * -SCF_ERROR_TIMEOUT when configd did not accept the
 * connection and answer its handshake within the default per-call timeout, 25 s from the start of
 * the call (configd is at its connection bound, or stuck),
 * -SCF_ERROR_VERSION_MISMATCH, -SCF_ERROR_NO_MEMORY.
 * With SMF_TRACE=1 in the environment, the first handle of a program that has not opened a
 * trace file itself opens one (as svcadm does): its reads, commits and exit status are then
 * in the trace that svctrace and svcrace read (docs/trace-format.md).
 */
int scf_handle_create(const char *root, scf_handle_t **ret);
/* Closes the connection and frees the handle; NULL is fine. */
void scf_handle_destroy(scf_handle_t *h);
/* The root this handle is bound to (absolute path). */
const char *scf_handle_root(const scf_handle_t *h);
/*
 * The detailed message of the last failed call on this handle (configd's sentence, or the
 * library's), or "" if the last call succeeded.  Valid until the next call on the handle.
 */
const char *scf_handle_errmsg(const scf_handle_t *h);
/* Per-call timeout for requests to configd (default 25 s). */
void scf_handle_set_timeout(scf_handle_t *h, uint64_t usec);

/* Frees a NULL-terminated string vector returned by this library. */
void scf_strv_free(char **l);

/* ------------------------------------------------------------------------------------------ */
/* Services and instances                                                                      */

/* Creates a service or instance given by full FMRI.  -SCF_ERROR_EXISTS if it exists; adding an
 * instance of a missing service is -SCF_ERROR_NOT_FOUND. */
int scf_service_add(scf_handle_t *h, const char *service_fmri);
int scf_instance_add(scf_handle_t *h, const char *instance_fmri);
/* Deletes a service (with its instances) or an instance, with all their pgs and snapshots. */
int scf_entity_delete(scf_handle_t *h, const char *fmri);
/* 1 if the service/instance exists, 0 if not, < 0 on error. */
int scf_entity_exists(scf_handle_t *h, const char *fmri);

/* Canonical service FMRIs, in the order of their creation (as illumos' backend). */
int scf_service_list(scf_handle_t *h, char ***ret);
/* Canonical instance FMRIs of one service (NULL: of all services), in the order of creation. */
int scf_instance_list(scf_handle_t *h, const char *service_fmri, char ***ret);

/* Flags for scf_fmri_resolve(). */
#define SCF_RESOLVE_INSTANCES 0x1 /* match instances */
#define SCF_RESOLVE_SERVICES 0x2  /* match services */

/*
 * Expands an FMRI or abbreviation into the canonical FMRIs of every existing entity it matches
 * (sorted; possibly empty).  A full FMRI of an existing entity yields exactly itself.
 */
int scf_fmri_resolve(scf_handle_t *h, const char *pattern, unsigned flags, char ***ret);
/*
 * As scf_fmri_resolve(), but requires exactly one match: -SCF_ERROR_NOT_FOUND for none,
 * -SCF_ERROR_AMBIGUOUS for several (the errmsg then lists them).
 */
int scf_fmri_resolve_one(scf_handle_t *h, const char *pattern, unsigned flags, char **ret);

/* ------------------------------------------------------------------------------------------ */
/* Property groups and properties                                                              */

#define SCF_PG_FLAG_NONPERSISTENT 0x1 /* lives in the volatile repository; gone at restart */

/* Well-known pg names and types. */
#define SCF_PG_GENERAL "general"
#define SCF_PG_GENERAL_OVR "general_ovr"
#define SCF_PG_RESTARTER "restarter"
#define SCF_PG_RESTARTER_ACTIONS "restarter_actions"
#define SCF_PG_OPTIONS "options"
#define SCF_PG_OPTIONS_OVR "options_ovr"
#define SCF_PG_DEPENDENTS "dependents"       /* an entity's <dependent>s: name = target FMRI */
#define SCF_PG_MANIFESTFILES "manifestfiles" /* the manifests a service was imported from */
#define SCF_GROUP_FRAMEWORK "framework"
#define SCF_GROUP_METHOD "method"
#define SCF_GROUP_DEPENDENCY "dependency"
#define SCF_GROUP_APPLICATION "application"

/* Well-known property names (illumos' SCF_PROPERTY_*). */
#define SCF_PROPERTY_ENABLED "enabled"       /* general, general_ovr: boolean */
#define SCF_PROPERTY_COMMENT "comment"       /* general, general_ovr: svcadm disable -c (astring) */
#define SCF_PROPERTY_RESTARTER "restarter"   /* general: fmri of a delegated restarter */
#define SCF_PROPERTY_STATE "state"           /* restarter: the instance's state */
#define SCF_PROPERTY_NEXT_STATE "next_state" /* restarter: where it is going, or "none" */
#define SCF_PROPERTY_AUX_STATE "auxiliary_state" /* restarter: why it entered its state */
#define SCF_PROPERTY_STATE_TIMESTAMP "state_timestamp"
#define SCF_PROPERTY_START_PID "start_pid"
#define SCF_PROPERTY_CONTRACT "contract"
#define SCF_PROPERTY_LOGFILE "logfile"
#define SCF_PROPERTY_GROUPING "grouping"     /* dependency pgs */
#define SCF_PROPERTY_RESTART_ON "restart_on" /* dependency pgs */
#define SCF_PROPERTY_ENTITIES "entities"     /* dependency pgs */
#define SCF_PROPERTY_TYPE "type"             /* dependency pgs: "service", "path" */
#define SCF_PROPERTY_EXEC "exec"             /* method pgs */
#define SCF_PROPERTY_TIMEOUT "timeout_seconds"
#define SCF_PROPERTY_MILESTONE "milestone" /* options: the milestone startd works towards */
#define SCF_PROPERTY_EXTERNAL "external"   /* dependency pgs: written by a dependent elsewhere */
#define SCF_PROPERTY_ENTITY_STABILITY "entity_stability"

/* Snapshot names. */
#define SCF_SNAPSHOT_RUNNING "running"
#define SCF_SNAPSHOT_PREVIOUS "previous"
#define SCF_SNAPSHOT_INITIAL "initial"
#define SCF_SNAPSHOT_LAST_IMPORT "last-import"

typedef struct scf_property {
	char *name;
	scf_type_t type;
	char **values; /* canonical string forms, in order; NULL-terminated */
	size_t n_values;
} scf_property_t;

typedef struct scf_pg {
	char *entity; /* canonical FMRI of the service or instance it was read from */
	char *name;
	char *type;
	uint32_t flags;
	uint64_t generation;
	scf_property_t *props; /* sorted by name */
	size_t n_props;
} scf_pg_t;

/* Read options for scf_pg_get() and scf_pg_list(). */
#define SCF_READ_COMPOSED 0x1 /* for an instance, also its service's pgs it does not override */

/*
 * Reads one pg whole.  snapshot: NULL for the current (editing) view, else a snapshot name of
 * the instance.  With SCF_READ_COMPOSED an instance read falls back to the service's pg of the
 * same name.  -SCF_ERROR_NOT_FOUND if the entity, snapshot or pg does not exist.
 */
int scf_pg_get(scf_handle_t *h, const char *entity, const char *pg, const char *snapshot,
        unsigned read_flags, scf_pg_t **ret);
void scf_pg_free(scf_pg_t *pg);
/* The named property of a pg read, or NULL. */
const scf_property_t *scf_pg_property(const scf_pg_t *pg, const char *name);

/* Summary of one pg, as listed. */
typedef struct scf_pg_info {
	char *name;
	char *type;
	uint32_t flags;
	uint64_t generation;
} scf_pg_info_t;

/* Lists the pgs of an entity (in a snapshot, composed) sorted by name; *n gets the count. */
int scf_pg_list(scf_handle_t *h, const char *entity, const char *snapshot, unsigned read_flags,
        scf_pg_info_t **ret, size_t *n);
void scf_pg_info_free(scf_pg_info_t *infos, size_t n);

/* Creates a pg.  -SCF_ERROR_EXISTS if a pg of that name exists (whatever its type). */
int scf_pg_add(
        scf_handle_t *h, const char *entity, const char *pg, const char *type, uint32_t flags);
int scf_pg_delete(scf_handle_t *h, const char *entity, const char *pg);

/*
 * Typed reads of a single-valued property (as illumos' scf_property_get_value() followed by
 * scf_value_get_*): the property must have exactly one value.  -SCF_ERROR_TYPE_MISMATCH if the
 * type does not fit (a count is also read by get_integer, if it fits; checked first),
 * -SCF_ERROR_NOT_FOUND if it has no value, -SCF_ERROR_CONSTRAINT_VIOLATED if it has several
 * (then *ret is left alone: read p->values for a multi-valued property).
 */
int scf_property_get_boolean(const scf_property_t *p, bool *ret);
int scf_property_get_count(const scf_property_t *p, uint64_t *ret);
int scf_property_get_integer(const scf_property_t *p, int64_t *ret);
/* Any string-like type (astring, ustring, fmri, uri, host...): a pointer into p. */
int scf_property_get_string(const scf_property_t *p, const char **ret);

/*
 * Convenience: reads entity/pg/prop (current view, not composed) into a freshly allocated
 * property (free with scf_property_free()).
 */
int scf_property_read(scf_handle_t *h, const char *entity, const char *pg, const char *prop,
        scf_property_t **ret);
void scf_property_free(scf_property_t *p);

/* ------------------------------------------------------------------------------------------ */
/* Bulk reads: the pgs of many entities in a few round trips                                   */

/*
 * scf_bulk_read() answers, for a set of entities, a set of pg reads each, in one request to
 * configd per page of answers (ReadPgs, docs/protocol.md): `svcs -a` over 10,000 instances is
 * one or two round trips instead of 10,000.
 *
 * The entities are either the FMRIs listed (n_fmris > 0: services or instances, answered in that
 * order, each as often as listed; one that does not exist or is not an entity FMRI is answered
 * with an error instead of failing the read), or every instance whose canonical FMRI matches
 * pattern (fnmatch(3) without flags, so '*' also matches '/' and ':'; NULL or "": every
 * instance), in FMRI order.  For each entity, each entry of pgs is answered: the pg of that name,
 * or (name NULL) every pg of that type, sorted by name; from snapshot (NULL: the current view),
 * with read_flags SCF_READ_COMPOSED (as scf_pg_get()) and SCF_READ_SNAPSHOT_FALLBACK (an
 * instance without that snapshot is read in its current view, as svc.startd reads dependencies:
 * the "running" snapshot once it exists).  At most SCF_BULK_MAX_PGS entries.  No entries:
 * the entities alone (which of the listed ones exist; which instances match).
 *
 * configd answers in pages of at most page_bytes (0, or more than 4 MiB: 4 MiB) of records, each
 * holding whole entities and at least one; the library asks for the next page itself, so fn sees
 * every entity once.  A page is read atomically, the whole read is not: an instance created or
 * deleted between two pages may be missed or seen, as with a listing followed by reads.
 */
#define SCF_READ_SNAPSHOT_FALLBACK 0x2 /* bulk reads: no such snapshot: the current view */
#define SCF_BULK_MAX_PGS 16

typedef struct scf_bulk_pg {
	const char *name;     /* a pg name; NULL: every pg of type */
	const char *type;     /* with name NULL: the pg type (e.g. SCF_GROUP_DEPENDENCY) */
	const char *snapshot; /* NULL: the current view */
	unsigned read_flags;  /* SCF_READ_COMPOSED, SCF_READ_SNAPSHOT_FALLBACK */
} scf_bulk_pg_t;

typedef struct scf_bulk_query {
	const char *const *fmris; /* listed entities (n_fmris > 0) ... */
	size_t n_fmris;
	const char *pattern; /* ... else the instances matching this */
	const scf_bulk_pg_t *pgs;
	size_t n_pgs;
	size_t page_bytes; /* 0: configd's largest page */
} scf_bulk_query_t;

/*
 * One entity's answer, lent to fn: every pointer in it (the pgs, their properties and values
 * included) is valid only until fn returns; copy what must be kept.
 */
typedef struct scf_bulk_entity {
	const char *fmri; /* canonical; for -SCF_ERROR_INVALID_ARGUMENT, as listed */
	/*
	 * 0, or (listed entities) -SCF_ERROR_NOT_FOUND: no such service or instance,
	 * -SCF_ERROR_INVALID_ARGUMENT: not the FMRI of a service or an instance.
	 */
	int error;
	const scf_pg_t *pgs;   /* the pgs found, in the order of query->pgs */
	const unsigned *which; /* which[k]: the index in query->pgs that pgs[k] answers */
	size_t n_pgs;
} scf_bulk_entity_t;

/* Called for each entity; returns 0 to go on, or < 0 to end the read with that value. */
typedef int (*scf_bulk_fn)(const scf_bulk_entity_t *e, void *userdata);

/*
 * Reads q, calling fn(entity, userdata) for each entity in order.  Returns 0, fn's negative
 * value, or an error: -SCF_ERROR_INVALID_ARGUMENT (a bad name, type or snapshot name in pgs,
 * both or neither of name and type, an unknown flag), -SCF_ERROR_CONSTRAINT_VIOLATED (more than
 * SCF_BULK_MAX_PGS entries, a pattern longer than an FMRI), -SCF_ERROR_VERSION_MISMATCH (a
 * configd older than the bulk reads), or the errors of any call.
 */
int scf_bulk_read(scf_handle_t *h, const scf_bulk_query_t *q, scf_bulk_fn fn, void *userdata);
/* The first pg of e that answers entry which of the query's pgs, or NULL. */
const scf_pg_t *scf_bulk_entity_pg(const scf_bulk_entity_t *e, unsigned which);

/* ------------------------------------------------------------------------------------------ */
/* Transactions                                                                                */

typedef struct scf_tx scf_tx_t;

/*
 * Starts a transaction on entity/pg: reads the pg (which must exist) and remembers its
 * generation.  The read is available as scf_tx_pg() for read-modify-write.
 */
int scf_tx_begin(scf_handle_t *h, const char *entity, const char *pg, scf_tx_t **ret);
/* The pg as read at begin or at the last reset. */
const scf_pg_t *scf_tx_pg(const scf_tx_t *tx);

/*
 * Commands; each validates its name, type and values at once (-SCF_ERROR_INVALID_ARGUMENT with
 * the reason in errmsg) and is applied only by commit.  At commit: NEW fails with
 * -SCF_ERROR_EXISTS if the property exists; REPLACE (new type and values) and DELETE fail with
 * -SCF_ERROR_NOT_FOUND if it does not.  SET is NEW or REPLACE, chosen from the pg as read (the
 * generation check keeps that choice right).  Properties not named are carried over.
 */
int scf_tx_new(
        scf_tx_t *tx, const char *prop, scf_type_t type, const char *const *values, size_t n);
int scf_tx_replace(
        scf_tx_t *tx, const char *prop, scf_type_t type, const char *const *values, size_t n);
int scf_tx_set(
        scf_tx_t *tx, const char *prop, scf_type_t type, const char *const *values, size_t n);
int scf_tx_delete(scf_tx_t *tx, const char *prop);

/*
 * Commits atomically: 1 committed; 0 the pg changed since it was read ("not latest": nothing
 * was applied; scf_tx_reset() and build the commands again); < 0 error (nothing applied).
 * An empty transaction is checked like any other (pg deleted: -SCF_ERROR_DELETED; stale
 * generation: 0) and otherwise commits as a no-op: 1, the generation does not move, no
 * notification is sent.
 */
int scf_tx_commit(scf_tx_t *tx);
/* Drops the commands and re-reads the pg (new generation). */
int scf_tx_reset(scf_tx_t *tx);
/* The generation the pg has after a successful commit (or as read, before). */
uint64_t scf_tx_generation(const scf_tx_t *tx);
void scf_tx_free(scf_tx_t *tx);

/*
 * The retry loop: begin; fn(tx, userdata) adds commands (it may read scf_tx_pg()); commit;
 * on "not latest" reset and call fn again, at most max_tries times (0: 100).  fn returns < 0
 * to abort (that value is returned).  Returns 1 when committed, -SCF_ERROR_NO_RESOURCES when
 * every try was beaten by another writer, or another negative error.
 */
typedef int (*scf_tx_fn)(scf_tx_t *tx, void *userdata);
int scf_tx_run(scf_handle_t *h, const char *entity, const char *pg, scf_tx_fn fn, void *userdata,
        unsigned max_tries);

/* ------------------------------------------------------------------------------------------ */
/* Snapshots                                                                                   */

/* Snapshot names of an instance, sorted. */
int scf_snapshot_list(scf_handle_t *h, const char *instance, char ***ret);
/* Takes (or retakes) a named snapshot of the instance's and its service's current pgs. */
int scf_snapshot_take(scf_handle_t *h, const char *instance, const char *name);
int scf_snapshot_delete(scf_handle_t *h, const char *instance, const char *name);
/* Refresh: "previous" := "running" (if any), then "running" := current. */
int scf_instance_refresh(scf_handle_t *h, const char *instance);

/* ------------------------------------------------------------------------------------------ */
/* Notifications                                                                               */

/*
 * Register interest in pgs by name or by type (any entity).  One set of interests per handle;
 * scf_notify_reset() drops them.  Notifications for changes committed after the registration
 * call returned are delivered in commit order.
 */
int scf_notify_add_pgname(scf_handle_t *h, const char *pgname);
int scf_notify_add_pgtype(scf_handle_t *h, const char *pgtype);
/*
 * Register interest in the creation of instances (any service): an SCF_NOTIFY_INSTANCE_ADDED
 * for each instance created after this call returned, by scf_instance_add() or a batch, in
 * commit order with the pg notifications.  Not in illumos (whose configd announces no
 * creation): svc.startd asks for it to take up an instance that has no pg yet.
 */
int scf_notify_add_instances(scf_handle_t *h);
int scf_notify_reset(scf_handle_t *h);

typedef enum scf_notify_kind {
	SCF_NOTIFY_PG_UPDATED = 1, /* pg created or committed: entity, pg, pgtype, generation */
	SCF_NOTIFY_PG_DELETED = 2, /* pg deleted (alone or with its entity): entity, pg, pgtype */
	SCF_NOTIFY_INSTANCE_ADDED = 3, /* instance created: entity only (pg, pgtype NULL) */
} scf_notify_kind_t;

typedef struct scf_notification {
	scf_notify_kind_t kind;
	char *entity; /* canonical FMRI */
	char *pg;     /* NULL for SCF_NOTIFY_INSTANCE_ADDED */
	char *pgtype;
	uint64_t generation;
	/*
	 * The commit id of the write that caused this notification: configd numbers every write
	 * 1, 2, 3... in its life (never 0; 0 here: a configd that does not send it).  A program
	 * that acts on a notification can name it as the cause of its own writes, as svc.startd
	 * does in its trace (docs/trace-format.md, "Causality").
	 */
	uint64_t commit_id;
} scf_notification_t;

/*
 * Waits for the next notification, at most timeout_usec (0: just poll; UINT64_MAX: forever).
 * Returns 1 with *ret filled (clear with scf_notification_clear()), 0 on timeout, < 0 on error
 * (-SCF_ERROR_CONNECTION_BROKEN when configd went away).
 */
int scf_notify_wait(scf_handle_t *h, uint64_t timeout_usec, scf_notification_t *ret);
void scf_notification_clear(scf_notification_t *n);
/*
 * An fd to poll (POLLIN) in an event loop.  Notifications can be buffered inside the library
 * after any call on the handle, so drain with scf_notify_wait(h, 0, ...) until it returns 0
 * before going back to poll.
 */
int scf_notify_fd(scf_handle_t *h);

/* ------------------------------------------------------------------------------------------ */
/* Restarter attachment                                                                        */

/*
 * Registers this handle's connection as the repository's restarter (svc.startd does this).
 * configd forgets it when the connection closes.  -SCF_ERROR_EXISTS if another connection is
 * registered; -SCF_ERROR_NOT_SUPPORTED if configd runs with --native.
 */
int scf_restarter_register(scf_handle_t *h);
/* 1 if a restarter is attached to the repository, 0 if not (always 0 with --native). */
int scf_restarter_attached(scf_handle_t *h);

/* ------------------------------------------------------------------------------------------ */
/* The repository's store (minismf's own)                                                      */

/*
 * configd keeps, for each of its two databases, a record of the writes it took and refused:
 * the persistent one ($ROOT/etc/svc/repository.db: services, instances, their pgs, snapshots)
 * and the non-persistent one ($ROOT/etc/svc/volatile/svc_nonpersist.db: the NONPERSISTENT
 * pgs, among them every "restarter" pg).  A write is refused by the store when SQLite cannot
 * store it (its filesystem is full, an I/O error, a read-only or corrupt file): the writer
 * gets SCF_ERROR_BACKEND_ACCESS (or _READONLY).  A program that waits for another's writes
 * (svccfg import waits for svc.startd's restarter pgs) asks here when its wait does not
 * progress: a store whose last write was refused is why, and worth naming instead of waiting
 * on in silence.  A write that changes both databases and is refused counts for both.
 */
typedef enum scf_store {
	SCF_STORE_PERSISTENT = 0,
	SCF_STORE_NONPERSISTENT = 1,
} scf_store_t;

/* What the last refused write met. */
typedef enum scf_store_failure {
	SCF_STORE_FAILURE_NONE = 0, /* none refused yet */
	SCF_STORE_FAILURE_FULL,     /* the filesystem (or the disk) is full */
	SCF_STORE_FAILURE_IO,       /* an I/O error */
	SCF_STORE_FAILURE_READONLY, /* the file cannot be written */
	SCF_STORE_FAILURE_CORRUPT,  /* the file is not a sound database */
	SCF_STORE_FAILURE_OTHER,    /* anything else SQLite could not store */
} scf_store_failure_t;

typedef struct scf_store_status {
	char *path;              /* the database file */
	uint64_t last_ok_usec;   /* CLOCK_REALTIME microseconds of the last write it took; 0 none */
	uint64_t last_fail_usec; /* ... of the last write it refused; 0 none */
	uint64_t failures;       /* writes refused since the last it took (0: it takes them) */
	scf_store_failure_t failure; /* what the last refused write met */
	char *error;                 /* SQLite's words for it ("database or disk is full"), or "" */
} scf_store_status_t;

/*
 * The record of store into *ret (clear it with scf_store_status_clear()).  Returns 1 when the
 * store refuses writes (its last write was refused: failures > 0), 0 when it takes them (or
 * none was made yet), or < 0: -SCF_ERROR_NOT_SUPPORTED from a configd that keeps no record
 * (older than the record), -SCF_ERROR_INVALID_ARGUMENT for another store, the library's
 * errors.
 */
int scf_store_status(scf_handle_t *h, scf_store_t store, scf_store_status_t *ret);
void scf_store_status_clear(scf_store_status_t *s);

/* ------------------------------------------------------------------------------------------ */
/* Batches: many changes, one atomic repository transaction                                    */

/*
 * A batch is an ordered list of steps that configd applies in ONE SQLite transaction: all of
 * them or none (svccfg import uses one batch per manifest, so a failing manifest leaves the
 * repository as it was).  Steps are not generation-checked: a batch is for writers that own
 * what they write (the importer), not for read-modify-write (use a transaction for that).
 * Every pg a batch creates or changes gets exactly one new generation and one PgChanged
 * notification, sent after the commit in the order the pgs were first touched; every pg it
 * deletes gets one PgDeleted.  Each adder validates its arguments at once
 * (-SCF_ERROR_INVALID_ARGUMENT with the reason in errmsg).
 */
typedef struct scf_batch scf_batch_t;

int scf_batch_new(scf_handle_t *h, scf_batch_t **ret);
void scf_batch_free(scf_batch_t *b);
/* The number of adder calls that added a step so far (the numbering of commit's messages). */
size_t scf_batch_size(const scf_batch_t *b);

/* Create the service / instance unless it exists. */
int scf_batch_service_ensure(scf_batch_t *b, const char *service_fmri);
int scf_batch_instance_ensure(scf_batch_t *b, const char *instance_fmri);
/*
 * Create the pg unless it exists.  An existing pg of another type or flags is an error at
 * commit (-SCF_ERROR_EXISTS, naming it), as it is for scf_pg_add().
 */
int scf_batch_pg_ensure(
        scf_batch_t *b, const char *entity, const char *pg, const char *type, uint32_t flags);
/* Set a property's type and values, creating it if missing (the pg must exist by then). */
int scf_batch_prop_set(scf_batch_t *b, const char *entity, const char *pg, const char *prop,
        scf_type_t type, const char *const *values, size_t n);
/* Delete a property / pg / entity if it exists (missing is not an error). */
int scf_batch_prop_delete(scf_batch_t *b, const char *entity, const char *pg, const char *prop);
int scf_batch_pg_delete(scf_batch_t *b, const char *entity, const char *pg);
int scf_batch_entity_delete(scf_batch_t *b, const char *fmri);
/* Take a named snapshot / refresh ("previous" := "running", "running" := now) an instance,
 * as the repository is at that point of the batch. */
int scf_batch_snapshot_take(scf_batch_t *b, const char *instance, const char *name);
int scf_batch_refresh(scf_batch_t *b, const char *instance);

/*
 * Applies every step atomically.  Returns 1 when applied; < 0 when nothing was applied, with
 * errmsg naming the failing step ("step 12 (svc:/a:b/:properties/start): ...").  The batch
 * keeps its steps either way (commit again, or free it).
 */
int scf_batch_commit(scf_batch_t *b);

/* ------------------------------------------------------------------------------------------ */
/* Waiting for the restarter                                                                   */

/*
 * The restarter (svc.startd) writes an instance's "restarter" pg on its own time: the pg
 * appears some time after the instance was created, its state moves some time after an enable
 * or a disable.  A program that must not go on before that waits on notifications, never by
 * polling, in three steps:
 *
 *   1. scf_notify_add_pgname(h, SCF_PG_RESTARTER), before whatever it waits for can be
 *      committed (before its own writes, when it waits for their outcome);
 *   2. scf_restarter_wait(), which asks pred about every instance once, then again whenever a
 *      notification may have changed the answer, until pred holds for all or the deadline;
 *   3. scf_notify_reset(), if the handle goes on to other work.
 *
 * Step 1 before the first question is what leaves no gap: what the restarter wrote before the
 * registration is seen by that question, what it writes after comes as a notification.
 */

/*
 * pred's answer about one instance: 1 done (what the caller waits for happened, or the caller
 * gave up on this instance: either way it is not asked again), 0 not yet, < 0 an error that
 * ends the whole wait (scf_restarter_wait() returns it at once, h's errmsg as pred left it).
 * pred may read anything on h, and print; it must not touch h's notifications.
 */
typedef int (*scf_restarter_pred_t)(scf_handle_t *h, const char *fmri, void *userdata);

/*
 * Waits until pred(h, fmris[k], userdata) has answered 1 for every k < n (distinct canonical
 * instance FMRIs; the interest of step 1 registered), at most timeout_usec (UINT64_MAX: no
 * deadline).  The instances are asked in order, once each before any wait.
 *
 * recheck_usec says what pred reads.  0: only the instance's own restarter pg, so an instance
 * is asked again only when a notification says its restarter pg was written.  Otherwise pred
 * reads other instances too (dependencies) or what sends no notification (files): every
 * instance still waited for is asked again after each restarter notification (those already
 * queued count as one) and at least every recheck_usec.
 *
 * done (NULL, or n entries) tells which instances pred answered 1 for.  Returns how many were
 * still waited for when the deadline passed (0: none, all done), or a negative error: pred's,
 * scf_notify_wait()'s, -SCF_ERROR_INVALID_ARGUMENT (no pred, an FMRI given twice),
 * -SCF_ERROR_NO_MEMORY.
 */
int scf_restarter_wait(scf_handle_t *h, const char *const *fmris, size_t n,
        scf_restarter_pred_t pred, void *userdata, uint64_t timeout_usec, uint64_t recheck_usec,
        bool *done);

/*
 * A pred for scf_restarter_wait(): 1 if the instance's restarter pg has a state (the restarter
 * has taken the instance up), 0 if not yet (no pg, no state, or no such instance), < 0 on an
 * error.  userdata is not used.
 */
int scf_restarter_has_state(scf_handle_t *h, const char *fmri, void *userdata);

/*
 * New instances: waiting until the restarter has taken them up.
 *
 * An instance created by scf_instance_add() or a batch exists at once, but its "restarter" pg
 * is written by the restarter, later; until then "svcadm enable -s" calls it misconfigured.
 * svccfg import and svccfg add wait here after creating instances, and a program that creates
 * instances and goes on to enable them should too (scf_instance_add() itself does not wait,
 * as illumos' does not).
 *
 * scf_instance_wait_restarter() waits until each of fmris[0..n) (distinct canonical instance
 * FMRIs) has a restarter pg with a state (scf_restarter_has_state()), on notifications: it
 * registers interest in pgs named "restarter" on h (step 1 above: before its first read, which
 * is enough since the pg, once written, stays) and leaves it registered, so call
 * scf_notify_reset() afterwards if h goes on to other work; it never drops interests the
 * caller registered.  When a pg is missing at its first read, it asks whether anyone will write
 * it, and does not wait, returning at once, when nobody would:
 *
 *   SCF_WAIT_RESTARTER_NO_RESTARTER  no restarter is attached (scf_restarter_attached() 0:
 *                                    configd runs --native, or svc.startd is not running);
 *   SCF_WAIT_RESTARTER_EMI_PENDING   SCF_INSTANCE_EMI (svc:/system/early-manifest-import:
 *                                    default) exists and is neither online nor disabled: the
 *                                    restarter is busy with early manifest import, which may be
 *                                    the caller, and takes nothing up until it ends.
 *
 * timeout_usec bounds the wait; 0 asks for the default: $SVCCFG_IMPORT_TIMEOUT seconds when
 * set (a positive decimal number; anything else is -SCF_ERROR_INVALID_ARGUMENT, nothing
 * waited), else SCF_WAIT_RESTARTER_DEFAULT_SEC.  An instance deleted meanwhile is not waited
 * for beyond the deadline, and not reported.
 *
 * Returns SCF_WAIT_RESTARTER_DONE (0) when every instance that still exists has its pg (at
 * the first read, whether a restarter is attached or not),
 * SCF_WAIT_RESTARTER_NO_RESTARTER or SCF_WAIT_RESTARTER_EMI_PENDING (nothing waited), or a
 * negative error: -SCF_ERROR_TIMEOUT when the deadline passed first (errmsg names the
 * instances still without a state), -SCF_ERROR_BACKEND_ACCESS when, the wait having made no
 * progress for a second, configd's non-persistent store (where restarter pgs live) refuses
 * writes (scf_store_status(); errmsg names an instance, the database's file and what failed,
 * e.g. that its filesystem is full), -SCF_ERROR_INVALID_ARGUMENT, or the library's errors.
 * done (NULL, or n entries) tells which instances got their state.  *ret_detail (if
 * ret_detail is not NULL; free() it) gets what a message needs, else NULL: the EMI's state
 * ("none" when it has none) for EMI_PENDING, and the instances still missing, joined by ", ",
 * for -SCF_ERROR_TIMEOUT.
 */
#define SCF_WAIT_RESTARTER_DEFAULT_SEC 60
#define SCF_WAIT_RESTARTER_TIMEOUT_ENV "SVCCFG_IMPORT_TIMEOUT"

typedef enum scf_wait_restarter_outcome {
	SCF_WAIT_RESTARTER_DONE = 0,
	SCF_WAIT_RESTARTER_NO_RESTARTER = 1,
	SCF_WAIT_RESTARTER_EMI_PENDING = 2,
} scf_wait_restarter_outcome_t;

int scf_instance_wait_restarter(scf_handle_t *h, const char *const *fmris, size_t n,
        uint64_t timeout_usec, bool *done, char **ret_detail);

/* ------------------------------------------------------------------------------------------ */
/* Cleanup helpers                                                                             */

/*
 * For __attribute__((cleanup)): each frees what *p points to (NULL is allowed), so a caller
 * writes "__attribute__((cleanup(scf_pg_freep))) scf_pg_t *pg = NULL;" and returns early
 * without leaking.
 */
static inline void scf_handle_destroyp(scf_handle_t **p)
{
	scf_handle_destroy(*p);
}
static inline void scf_strv_freep(char ***p)
{
	scf_strv_free(*p);
}
static inline void scf_pg_freep(scf_pg_t **p)
{
	scf_pg_free(*p);
}
static inline void scf_property_freep(scf_property_t **p)
{
	scf_property_free(*p);
}
static inline void scf_tx_freep(scf_tx_t **p)
{
	scf_tx_free(*p);
}
static inline void scf_batch_freep(scf_batch_t **p)
{
	scf_batch_free(*p);
}

#ifdef __cplusplus
}
#endif

#endif
