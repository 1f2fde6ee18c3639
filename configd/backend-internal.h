/*
 * backend-internal.h: what the backend-*.c files share (and the unit tests may look at).
 *
 * Statements are prepared once and cached in b->stmts[id][variant].  A statement that exists
 * for both databases is written with "$db" where the schema name goes; variant 0 is "main"
 * (persistent), 1 is "np" (the attached non-persistent database).  The PROPS_READ statement
 * has a third variant that reads a snapshot's copy.
 */
#ifndef CONFIGD_BACKEND_INTERNAL_H
#define CONFIGD_BACKEND_INTERNAL_H

#include <pthread.h>
#include <sqlite3.h>

#include "backend.h"
#include "hashmap.h"

typedef enum stmt_id_t {
	STMT_BEGIN,
	STMT_COMMIT,
	STMT_ROLLBACK,
	STMT_ENTITY_LOOKUP,
	STMT_ENTITY_INSERT,
	STMT_ENTITY_DELETE,
	STMT_LIST_SERVICES,
	STMT_LIST_INSTANCES_ALL,
	STMT_LIST_CHILDREN,
	STMT_PG_LOOKUP,
	STMT_PG_LIST,
	STMT_PG_INSERT,
	STMT_PG_DELETE,
	STMT_PG_SET_GEN,
	STMT_NP_DELETE_ENTITY,
	STMT_PROPS_READ,
	STMT_PROP_INSERT,
	STMT_PROP_UPDATE,
	STMT_PROP_DELETE,
	STMT_PROP_UPSERT,
	STMT_SNAP_LOOKUP,
	STMT_SNAP_LIST,
	STMT_SNAP_INSERT,
	STMT_SNAP_DELETE,
	STMT_SNAP_RENAME,
	STMT_SNAP_LINK,
	STMT_SNAP_LEVEL_FIND,
	STMT_SNAP_LEVEL_INSERT,
	STMT_SNAP_PGS_COPY,
	STMT_SNAP_PROPS_COPY,
	STMT_SNAP_PG_LOOKUP,
	STMT_SNAP_PG_LIST,
	STMT_PG_WIRE_SIZE,
	_STMT_MAX
} stmt_id_t;

enum { DB_MAIN = 0, DB_NP = 1, DB_SNAPSHOT = 2, _DB_VARIANTS = 3 };

/* The cache of pgs' properties read (cache.h), created at the first read. */
typedef struct pg_cache pg_cache_t;

struct backend {
	sqlite3 *db;
	char *np_path;
	char *np_boot_path; /* the marker: which boot the non-persistent database belongs to */
	bool np_kept;       /* opened as it was (this boot's), not made afresh */
	bool np_failed;     /* the last failure of opening concerned the non-persistent db */
	char *np_note;      /* how it was opened, a sentence for the log */
	char *errmsg;
	/*
	 * Nested backend_tx_begin()s: only the outermost touches SQLite.  Never below 0 (commit
	 * and rollback assert it is positive) and 0 again when a request is done (configd asserts
	 * it between requests, backend_tx_depth()).
	 */
	unsigned tx_depth;
	/* configd-eager: a new instance gets its restarter pg in the same transaction */
	bool eager_restarter;
	/* The one thread that may use the connection (SQLITE_OPEN_NOMUTEX): backend_open()'s. */
	pthread_t thread;
	sqlite3_stmt *stmts[_STMT_MAX][_DB_VARIANTS];
	pg_cache_t *cache;
	/* Entities found, by FMRI as named (backend-entity.c, "THE ENTITY MEMO"); NULL: none. */
	hashmap_t *entities;
	/*
	 * The outcome of the writes to each database (backend_store_status(), "THE STORE'S
	 * RECORD" in backend.c), and the databases the write under way changes: a bit per
	 * BACKEND_STORE_*, set as its statements are fetched, cleared when its outcome is known.
	 */
	char *main_path;
	struct store_record {
		uint64_t last_ok_usec, last_fail_usec, failures;
		const char *kind; /* SMF_STORE_FAIL_*, "" */
		char *error;      /* SQLite's message; NULL: none */
	} stores[_BACKEND_STORES];
	unsigned writing;
};

/* A service or instance row. */
typedef struct entity {
	int64_t id;
	int64_t parent; /* the service's id for an instance, 0 for a service */
	char *fmri;     /* canonical */
} entity_t;

/* Where a pg's rows are: which database (or a snapshot) and its id there. */
typedef struct pg_loc {
	int where; /* DB_MAIN, DB_NP, DB_SNAPSHOT */
	int64_t id;
	char *type;
	uint32_t flags;
	uint64_t gen;
} pg_loc_t;

/* Sets the message and returns err, a negative scf_error_t. */
int backend_fail(backend_t *b, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* backend_fail() for a shortage of memory: -SCF_ERROR_NO_RESOURCES, "out of memory". */
int backend_oom(backend_t *b);
/* Sets the message for an answer that is not a failure (backend_commit()'s not-latest). */
void backend_explain(backend_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Maps a SQLite result code to a negative scf_error_t, sets the message, returns the code. */
int backend_sqlite_fail(backend_t *b, int rc, const char *what);
/*
 * The SMF_STORE_FAIL_* (protocol.h) a SQLite result code stands for: the file could not be
 * written or read (full, an I/O error, read-only, corrupt, ...); NULL for a code that is no
 * failure of the store (a constraint, a shortage of memory, success).
 */
const char *backend_store_failure(int rc);
void backend_clear_error(backend_t *b);

/*
 * The cached statement, reset and unbound; NULL (message set) if it cannot be prepared.  Every
 * statement passes here, so this is where the one-thread rule is asserted.
 */
sqlite3_stmt *backend_stmt(backend_t *b, stmt_id_t id, int variant);
/* Steps a statement expected to return no rows (or whose rows do not matter); 0 or error. */
int backend_step_done(backend_t *b, sqlite3_stmt *s, const char *what);
/* Steps once: 1 for a row, 0 for done, or error. */
int backend_step_row(backend_t *b, sqlite3_stmt *s, const char *what);

static inline void stmt_resetp(sqlite3_stmt **s)
{
	if (*s) {
		sqlite3_reset(*s);
		sqlite3_clear_bindings(*s);
	}
}
#define _cleanup_stmt_ __attribute__((cleanup(stmt_resetp)))

/*
 * Transactions: BEGIN IMMEDIATE / COMMIT (rolls back itself when COMMIT fails) / ROLLBACK.
 * They nest: inside an outer transaction (a batch) begin and commit only count, and an inner
 * rollback leaves the undoing to the outer one, which must then roll back too.
 */
int backend_tx_begin(backend_t *b);
int backend_tx_commit(backend_t *b);
void backend_tx_rollback(backend_t *b);

/* backend-schema.c: creates or migrates the persistent schema, creates the volatile one. */
/* Creates or upgrades the tables; b->np_kept says whether np already has its own. */
int backend_schema_setup(backend_t *b);

/* backend-entity.c */
int backend_entity_lookup(backend_t *b, const char *fmri, entity_t *ret);
/*
 * backend_entity_lookup() that tells absence from failure: 1 found (*ret), 0 no such entity
 * (message set), < 0 a malformed FMRI or another error.  *ret_canon (if given) gets the
 * canonical FMRI whenever it could be parsed (free()).
 */
int backend_entity_resolve(backend_t *b, const char *fmri, entity_t *ret, char **ret_canon);
void entity_clear(entity_t *e);
/* Forgets every entity remembered (an entity row came or went, or a rollback). */
void backend_entity_memo_forget(backend_t *b);

/* backend-values.c: a property's values as one blob, each value followed by a NUL. */
int values_encode(const char *const *values, size_t n, char **ret, size_t *ret_len);
int values_decode(const void *blob, size_t len, char ***ret, size_t *ret_n);

/*
 * The bytes one property (name, type, values blob of n_values) takes in GetPg's a(ssas): at
 * most 7 of alignment before the struct, each string its length, NUL, length word and up to 3
 * of padding, and the array's length word.  An upper bound, exact up to padding.
 */
uint64_t values_wire_size(size_t name_len, size_t type_len, const void *blob, size_t blob_len);
/* Registers smf_wire_size(name, type, vals) (values_wire_size() of a props row) with SQLite. */
int values_register_sql(backend_t *b);
/* Sums values_wire_size() over the properties of a located pg. */
int backend_pg_wire_size(backend_t *b, const pg_loc_t *loc, uint64_t *ret);
/*
 * Inside a write: CONSTRAINT_VIOLATED (message starting with where) when the located pg now
 * exceeds BACKEND_MAX_PG_BYTES.
 */
int backend_pg_check_size(backend_t *b, const pg_loc_t *loc, const char *where);

/* backend-pg.c */
void pg_loc_clear(pg_loc_t *l);
/* 0 when name is a valid name, else the message names it as a "what" name. */
int backend_check_name(backend_t *b, const char *name, const char *what);
/* A new scf_pg_t (no properties) for pg name of entity, located at loc. */
int backend_pg_new(
        backend_t *b, const char *entity, const char *name, const pg_loc_t *loc, scf_pg_t **ret);
/* Finds a pg of the current view; 1 found, 0 not, < 0 error. */
int backend_pg_find(backend_t *b, int64_t entity_id, const char *name, pg_loc_t *ret);
void backend_props_free(scf_property_t *props, size_t n);

/* backend-tx.c: commands checked and canonicalized, then applied, shared by Commit and Batch. */
typedef struct prepared_cmd {
	smf_cmd_op_t op; /* checked */
	const char *prop;
	const char *type; /* canonical type name (static) */
	char *blob;
	size_t len;
} prepared_cmd_t;

/* Checks every command (ops up to max_op); messages start with where ("fmri/:properties/pg"). */
int backend_cmds_prepare(backend_t *b, const char *where, const backend_cmd_t *cmds, size_t n,
        uint32_t max_op, prepared_cmd_t **ret);
void backend_cmds_free(prepared_cmd_t *p, size_t n);
/* Whether any command may add bytes to a pg (all but DELETE and REMOVE). */
bool cmds_may_grow(const prepared_cmd_t *p, size_t n);
/* Inside a transaction: applies one command to the located pg; 1 if a row changed, else 0. */
int backend_cmd_apply(
        backend_t *b, const pg_loc_t *loc, const char *where, const prepared_cmd_t *c);
int backend_pg_set_generation(backend_t *b, const pg_loc_t *loc, uint64_t gen);

/* backend-snapshot.c */
/* Finds the snapshot id; 1 found, 0 not, < 0 error. */
int backend_snapshot_find(backend_t *b, int64_t instance_id, const char *name, int64_t *ret);

#endif
