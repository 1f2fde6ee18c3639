/*
 * backend.c: opening the two databases, the statement cache, errors, transactions.
 *
 * THE STORAGE MODEL
 *
 * The persistent database ($root/etc/svc/repository.db, schema "main") holds the entities (one
 * table for services and instances, keyed by canonical FMRI, an instance pointing at its
 * service), the pgs without the NONPERSISTENT flag, their properties, and the snapshots.  The
 * non-persistent database ($root/etc/svc/volatile/svc_nonpersist.db, attached as "np") holds
 * only NONPERSISTENT pgs and their properties.
 *
 * THE NON-PERSISTENT DATABASE'S LIFETIME.  On illumos it lives in /etc/svc/volatile, a tmpfs:
 * it survives a restart of svc.configd and is lost when the system starts afresh.  Our volatile
 * directory is on disk, so "the system started afresh" is told by the kernel's boot id
 * (/proc/sys/kernel/random/boot_id): the database is made together with a marker next to it
 * (svc_nonpersist.boot_id) holding the boot id of the moment, and at every open it is kept only
 * if the marker holds the current boot id.  So a configd restart keeps the restarter and
 * general_ovr pgs (startd finds its services' state again), while a reboot, a new volatile
 * directory, a missing or different marker start with an empty one, as does a database that
 * cannot be used (wrong schema version, corrupt: it is volatile data, not worth refusing to
 * serve for).  A fresh database is written only after its marker is removed, and the marker
 * only once the database is ready, so a crash between the two leaves no marker: the next open
 * starts afresh again.  A kept database may hold pgs of entities that are gone (SQLite commits
 * the two databases one after the other, and a crash may fall between): they are deleted at
 * open, before anything could reuse an entity id.
 *
 * A property is one row: its name, its SMF type name and its values as one blob (each value in
 * canonical form followed by a NUL; values cannot contain NUL), so a pg is read with one lookup
 * and one range scan.  A pg's generation is a counter in its row; a commit that changes
 * something moves it by one.  A snapshot is a copy of the persistent pgs of an instance (level
 * 0) and of its service (level 1), so later edits or deletions never reach it; a level's copy
 * is shared by every snapshot taken while the entity did not change (backend-snapshot.c).
 *
 * Invariants:
 * - A pg name is unique per entity across both databases (every insert checks both first).
 * - np rows reference entities of main by id without a foreign key (SQLite has none across
 *   databases); deleting an entity deletes its np pgs explicitly in the same transaction.
 * - Everything stored has been validated and canonicalized (FMRIs, names, types, values), so
 *   reads never check anything.
 * - Every multi-statement write runs inside backend_tx_begin()/backend_tx_commit(); any failure
 *   rolls the whole transaction back before the error is returned.
 * - Only configd's single thread touches the connection (opened SQLITE_OPEN_NOMUTEX): the
 *   thread that opened it, asserted on every statement.
 * - Transactions nest by counting; the depth is never negative and is 0 whenever no backend
 *   call is running, which configd asserts between requests.
 *
 * THE STORE'S RECORD (backend_store_status()).  Which databases a write changes is known from
 * its statements: backend_stmt() marks, in b->writing, the database of every statement that is
 * not read-only (the main and snapshot variants are the persistent one, np the other), and
 * backend_step_row(), which every statement of a request goes through, records the outcome: a
 * statement SQLite could not store (backend_store_failure()) while a write is marked is a
 * refusal by every database marked; a COMMIT, or a write statement outside a transaction, that
 * completes is a write taken by them.  A write that ends otherwise (rolled back for what it
 * asked) records nothing, and the marks go with its transaction (rollback_now()).  So
 * the record costs a flag test per statement and nothing more.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend-internal.h"
#include "cache.h"
#include "cut.h"
#include "macro.h"
#include "paths.h"
#include "timeutil.h"

static const char *const stmt_sql[_STMT_MAX] = {
        [STMT_BEGIN] = "BEGIN IMMEDIATE",
        [STMT_COMMIT] = "COMMIT",
        [STMT_ROLLBACK] = "ROLLBACK",
        [STMT_ENTITY_LOOKUP] = "SELECT id, parent FROM main.entities WHERE fmri = ?1",
        [STMT_ENTITY_INSERT] = "INSERT INTO main.entities (fmri, parent) VALUES (?1, ?2)",
        [STMT_ENTITY_DELETE] = "DELETE FROM main.entities WHERE id = ?1",
        /* Entities list in the order of their creation, as illumos' backend lists them. */
        [STMT_LIST_SERVICES] = "SELECT fmri FROM main.entities WHERE parent IS NULL ORDER BY id",
        [STMT_LIST_INSTANCES_ALL] =
                "SELECT fmri FROM main.entities WHERE parent IS NOT NULL ORDER BY id",
        [STMT_LIST_CHILDREN] = "SELECT id, fmri FROM main.entities WHERE parent = ?1 ORDER BY id",
        [STMT_PG_LOOKUP] = "SELECT 0, id, type, flags, gen FROM main.pgs WHERE entity = ?1 AND "
                           "name = ?2 UNION ALL SELECT 1, id, type, flags, gen FROM np.pgs "
                           "WHERE entity = ?1 AND name = ?2",
        [STMT_PG_LIST] = "SELECT name, type, flags, gen FROM main.pgs WHERE entity = ?1 UNION ALL "
                         "SELECT name, type, flags, gen FROM np.pgs WHERE entity = ?1 ORDER BY 1",
        /* Generation 1, or one above the last pg of that name on that entity (pg_gens). */
        [STMT_PG_INSERT] = "INSERT INTO $db.pgs (entity, name, type, flags, gen) "
                           "VALUES (?1, ?2, ?3, ?4, COALESCE((SELECT g.gen + 1 FROM "
                           "main.pg_gens g JOIN main.entities e ON e.fmri = g.fmri "
                           "WHERE e.id = ?1 AND g.name = ?2), 1))",
        [STMT_PG_DELETE] = "DELETE FROM $db.pgs WHERE id = ?1",
        [STMT_PG_SET_GEN] = "UPDATE $db.pgs SET gen = ?2 WHERE id = ?1",
        [STMT_NP_DELETE_ENTITY] = "DELETE FROM np.pgs WHERE entity = ?1",
        [STMT_PROPS_READ] = "SELECT name, type, vals FROM $db.props WHERE pg = ?1 ORDER BY name",
        [STMT_PROP_INSERT] = "INSERT OR IGNORE INTO $db.props (pg, name, type, vals) "
                             "VALUES (?1, ?2, ?3, ?4)",
        [STMT_PROP_UPDATE] =
                "UPDATE $db.props SET type = ?3, vals = ?4 WHERE pg = ?1 AND name = ?2",
        [STMT_PROP_DELETE] = "DELETE FROM $db.props WHERE pg = ?1 AND name = ?2",
        [STMT_PROP_UPSERT] = "INSERT INTO $db.props (pg, name, type, vals) VALUES (?1, ?2, ?3, ?4) "
                             "ON CONFLICT (pg, name) DO UPDATE SET type = ?3, vals = ?4",
        [STMT_SNAP_LOOKUP] = "SELECT id FROM main.snapshots WHERE instance = ?1 AND name = ?2",
        [STMT_SNAP_LIST] = "SELECT name FROM main.snapshots WHERE instance = ?1 ORDER BY name",
        [STMT_SNAP_INSERT] = "INSERT INTO main.snapshots (instance, name) VALUES (?1, ?2)",
        [STMT_SNAP_DELETE] = "DELETE FROM main.snapshots WHERE id = ?1",
        [STMT_SNAP_RENAME] = "UPDATE main.snapshots SET name = ?2 WHERE id = ?1",
        [STMT_SNAP_LINK] = "INSERT INTO main.snap_links (snap, level, lvl) VALUES (?1, ?2, ?3)",
        /* A level still current: taken when the entity's change counter had today's value. */
        [STMT_SNAP_LEVEL_FIND] = "SELECT l.id FROM main.snap_levels l JOIN main.entities e "
                                 "ON e.id = l.entity AND e.cfg = l.cfg WHERE l.entity = ?1 "
                                 "LIMIT 1",
        [STMT_SNAP_LEVEL_INSERT] = "INSERT INTO main.snap_levels (entity, cfg) "
                                   "SELECT id, cfg FROM main.entities WHERE id = ?1",
        /* A level is copied by two statements, whatever its size. */
        [STMT_SNAP_PGS_COPY] = "INSERT INTO main.snap_pgs (lvl, name, type, flags, gen) "
                               "SELECT ?1, name, type, flags, gen FROM main.pgs "
                               "WHERE entity = ?2",
        [STMT_SNAP_PROPS_COPY] = "INSERT INTO main.snap_props (snap_pg, name, type, vals) "
                                 "SELECT sp.id, p.name, p.type, p.vals FROM main.snap_pgs sp "
                                 "JOIN main.pgs g ON g.entity = ?2 AND g.name = sp.name "
                                 "JOIN main.props p ON p.pg = g.id WHERE sp.lvl = ?1",
        [STMT_SNAP_PG_LOOKUP] = "SELECT sp.id, sp.type, sp.flags, sp.gen FROM main.snap_links k "
                                "JOIN main.snap_pgs sp ON sp.lvl = k.lvl "
                                "WHERE k.snap = ?1 AND k.level = ?2 AND sp.name = ?3",
        [STMT_SNAP_PG_LIST] = "SELECT sp.name, sp.type, sp.flags, sp.gen FROM main.snap_links k "
                              "JOIN main.snap_pgs sp ON sp.lvl = k.lvl "
                              "WHERE k.snap = ?1 AND k.level = ?2 ORDER BY sp.name",
        [STMT_PG_WIRE_SIZE] = "SELECT coalesce(sum(smf_wire_size(name, type, vals)), 0) "
                              "FROM $db.props WHERE pg = ?1",
};

static const char snapshot_props_sql[] =
        "SELECT name, type, vals FROM main.snap_props WHERE snap_pg = ?1 ORDER BY name";
static const char snapshot_size_sql[] =
        "SELECT coalesce(sum(smf_wire_size(name, type, vals)), 0) FROM main.snap_props "
        "WHERE snap_pg = ?1";

/* Every message of the backend: what it quotes of a request is cut (cut.h). */
static void set_message(backend_t *b, const char *fmt, va_list ap)
{
	free(b->errmsg);
	b->errmsg = smf_cut_vformat(fmt, ap);
}

int backend_fail(backend_t *b, int err, const char *fmt, ...)
{
	va_list ap;

	assert(err < 0);
	va_start(ap, fmt);
	set_message(b, fmt, ap);
	va_end(ap);
	return err;
}

int backend_oom(backend_t *b)
{
	return backend_fail(b, -SCF_ERROR_NO_RESOURCES, "out of memory");
}

void backend_explain(backend_t *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_message(b, fmt, ap);
	va_end(ap);
}

void backend_clear_error(backend_t *b)
{
	free(b->errmsg);
	b->errmsg = NULL;
}

const char *backend_errmsg(const backend_t *b)
{
	return b->errmsg ? b->errmsg : "";
}

/* A SQLite result code as a negative scf_error_t. */
static int sqlite_to_scf(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_READONLY:
		return -SCF_ERROR_BACKEND_READONLY;
	case SQLITE_NOMEM:
		return -SCF_ERROR_NO_RESOURCES;
	default:
		/* SQLITE_FULL, SQLITE_IOERR, SQLITE_CORRUPT, SQLITE_BUSY, ...: the store failed. */
		return -SCF_ERROR_BACKEND_ACCESS;
	}
}

int backend_sqlite_fail(backend_t *b, int rc, const char *what)
{
	return backend_fail(b, sqlite_to_scf(rc), "repository database: %s: %s", what,
	        b->db ? sqlite3_errmsg(b->db) : sqlite3_errstr(rc));
}

const char *backend_store_failure(int rc)
{
	if (rc == SQLITE_IOERR_NOMEM)
		return NULL; /* memory, not the file */
	switch (rc & 0xff) {
	case SQLITE_FULL:
		return SMF_STORE_FAIL_FULL;
	case SQLITE_IOERR:
		return SMF_STORE_FAIL_IO;
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return SMF_STORE_FAIL_READONLY;
	case SQLITE_CORRUPT:
	case SQLITE_NOTADB:
		return SMF_STORE_FAIL_CORRUPT;
	case SQLITE_CANTOPEN:
	case SQLITE_NOLFS:
	case SQLITE_PROTOCOL:
		return SMF_STORE_FAIL_OTHER;
	default:
		return NULL;
	}
}

/* The write marked in b->writing ended: taken (rc SQLITE_OK) or refused by the store (rc). */
static void store_outcome(backend_t *b, int rc)
{
	uint64_t now = now_realtime_usec();
	const char *kind = rc == SQLITE_OK ? NULL : backend_store_failure(rc);

	assert(rc == SQLITE_OK || kind);
	for (unsigned k = 0; k < _BACKEND_STORES; k++) {
		struct store_record *st = &b->stores[k];

		if (!(b->writing & (1u << k)))
			continue;
		if (rc == SQLITE_OK) {
			st->last_ok_usec = now;
			st->failures = 0;
			continue;
		}
		st->last_fail_usec = now;
		st->failures++;
		st->kind = kind;
		free(st->error);
		/* A shortage of memory here leaves the kind to say what happened. */
		st->error = strdup(sqlite3_errmsg(b->db));
	}
	b->writing = 0;
}

void backend_store_status(const backend_t *b, int store, backend_store_status_t *ret)
{
	const struct store_record *st;

	assert(store >= 0 && store < _BACKEND_STORES);
	st = &b->stores[store];
	*ret = (backend_store_status_t){
	        .path = strempty(store == BACKEND_STORE_NONPERSISTENT ? b->np_path : b->main_path),
	        .last_ok_usec = st->last_ok_usec,
	        .last_fail_usec = st->last_fail_usec,
	        .failures = st->failures,
	        .kind = strempty(st->kind),
	        .error = strempty(st->error),
	};
}

/* Replaces every "$db" in a template by the schema name. */
static char *expand_sql(const char *tmpl, const char *schema)
{
	size_t n = strlen(tmpl), sl = strlen(schema);
	char *out = malloc(n * (sl + 1) + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = tmpl; *p;) {
		if (strneq(p, "$db", 3)) {
			memcpy(o, schema, sl);
			o += sl;
			p += 3;
		} else
			*o++ = *p++;
	}
	*o = 0;
	return out;
}

/*
 * A statement that changes a database marks it as written by the write under way; outside a
 * transaction the statement is that write on its own.
 */
static void mark_write(backend_t *b, sqlite3_stmt *s, int variant)
{
	if (sqlite3_stmt_readonly(s))
		return;
	if (b->tx_depth == 0)
		b->writing = 0;
	b->writing |=
	        1u << (variant == DB_NP ? BACKEND_STORE_NONPERSISTENT : BACKEND_STORE_PERSISTENT);
}

sqlite3_stmt *backend_stmt(backend_t *b, stmt_id_t id, int variant)
{
	static const char *const schemas[] = {"main", "np", "main"};
	_cleanup_free_ char *sql = NULL;
	sqlite3_stmt **slot = &b->stmts[id][variant];
	int rc;

	assert(pthread_equal(b->thread, pthread_self()));
	if (*slot) {
		sqlite3_reset(*slot);
		sqlite3_clear_bindings(*slot);
		mark_write(b, *slot, variant);
		return *slot;
	}
	if (id == STMT_PROPS_READ && variant == DB_SNAPSHOT)
		sql = strdup(snapshot_props_sql);
	else if (id == STMT_PG_WIRE_SIZE && variant == DB_SNAPSHOT)
		sql = strdup(snapshot_size_sql);
	else
		sql = expand_sql(stmt_sql[id], schemas[variant]);
	if (!sql) {
		backend_oom(b);
		return NULL;
	}
	rc = sqlite3_prepare_v3(b->db, sql, -1, SQLITE_PREPARE_PERSISTENT, slot, NULL);
	if (rc != SQLITE_OK) {
		backend_sqlite_fail(b, rc, "preparing a statement");
		*slot = NULL;
		return NULL;
	}
	mark_write(b, *slot, variant);
	return *slot;
}

int backend_step_row(backend_t *b, sqlite3_stmt *s, const char *what)
{
	int rc = sqlite3_step(s);

	if (rc == SQLITE_ROW)
		return 1;
	if (rc == SQLITE_DONE) {
		/* The write is taken once it commits: at COMMIT, or as a statement of its own. */
		if (b->writing && b->tx_depth == 0 &&
		        (s == b->stmts[STMT_COMMIT][DB_MAIN] || !sqlite3_stmt_readonly(s)))
			store_outcome(b, SQLITE_OK);
		return 0;
	}
	if (b->writing && backend_store_failure(rc))
		store_outcome(b, rc);
	else if (b->tx_depth == 0)
		b->writing = 0; /* refused for what it asked; in a transaction, rollback_now()'s */
	return backend_sqlite_fail(b, rc, what);
}

int backend_step_done(backend_t *b, sqlite3_stmt *s, const char *what)
{
	int r;

	do
		r = backend_step_row(b, s, what);
	while (r > 0);
	return r;
}

static int exec_simple(backend_t *b, stmt_id_t id, const char *what)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, id, DB_MAIN);

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	return backend_step_done(b, s, what);
}

unsigned backend_tx_depth(const backend_t *b)
{
	return b->tx_depth;
}

int backend_tx_begin(backend_t *b)
{
	int r;

	if (b->tx_depth > 0) {
		b->tx_depth++;
		return 0;
	}
	b->writing = 0;
	r = exec_simple(b, STMT_BEGIN, "beginning a transaction");
	if (r >= 0)
		b->tx_depth = 1;
	return r;
}

/*
 * SQLite's update hook: a row of a rowid table changed.  The pg cache's locations are all
 * forgotten at the next read, and the entity memo now if an entity row came or went.
 */
static void on_row_change(
        void *userdata, int op, const char *db, const char *table, sqlite3_int64 row)
{
	backend_t *b = userdata;

	(void)db;
	(void)row;
	pg_cache_row_changed(b->cache);
	if (op != SQLITE_UPDATE && streq(table, "entities"))
		backend_entity_memo_forget(b);
}

static void rollback_now(backend_t *b)
{
	/* What the memo found inside the transaction may be undone with it. */
	backend_entity_memo_forget(b);
	b->tx_depth = 0;
	b->writing = 0;
	/* After some errors (SQLITE_FULL, SQLITE_IOERR) SQLite has already rolled back. */
	if (!sqlite3_get_autocommit(b->db)) {
		_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_ROLLBACK, DB_MAIN);

		if (s)
			(void)sqlite3_step(s);
	}
}

void backend_tx_rollback(backend_t *b)
{
	assert(b->tx_depth > 0);
	if (b->tx_depth > 1) {
		b->tx_depth--;
		return;
	}
	rollback_now(b);
}

int backend_tx_commit(backend_t *b)
{
	int r;

	assert(b->tx_depth > 0);
	if (b->tx_depth > 1) {
		b->tx_depth--;
		return 0;
	}
	b->tx_depth = 0;
	r = exec_simple(b, STMT_COMMIT, "committing");
	if (r < 0)
		rollback_now(b);
	return r;
}

static int exec_script(backend_t *b, const char *sql, const char *what)
{
	int rc = sqlite3_exec(b->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : backend_sqlite_fail(b, rc, what);
}

static int remove_np_files(const char *np_path)
{
	static const char *const suffixes[] = {"", "-wal", "-shm", "-journal"};

	for (size_t i = 0; i < ELEMENTSOF(suffixes); i++) {
		_cleanup_free_ char *p = NULL;

		if (asprintf(&p, "%s%s", np_path, suffixes[i]) < 0)
			return -ENOMEM;
		if (unlink(p) < 0 && errno != ENOENT)
			return negative_errno();
	}
	return 0;
}

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"
#define BOOT_ID_MAX 64

/* The first line of path into buf (at most BOOT_ID_MAX - 1 bytes), or "" when unreadable. */
static void read_line(const char *path, char buf[static BOOT_ID_MAX])
{
	FILE *f = fopen(path, "re");

	buf[0] = 0;
	if (!f)
		return;
	if (!fgets(buf, BOOT_ID_MAX, f))
		buf[0] = 0;
	buf[strcspn(buf, "\n")] = 0;
	fclose(f);
}

/* Records that the non-persistent database belongs to boot: written aside, then renamed. */
static int write_boot_marker(backend_t *b, const char *boot)
{
	_cleanup_free_ char *tmp = NULL;
	FILE *f;
	int r = 0;

	if (asprintf(&tmp, "%s.tmp", b->np_boot_path) < 0)
		return backend_oom(b);
	f = fopen(tmp, "we");
	if (!f || fprintf(f, "%s\n", boot) < 0)
		r = negative_errno();
	if (f && fclose(f) != 0 && r == 0)
		r = negative_errno();
	if (r == 0 && rename(tmp, b->np_boot_path) < 0)
		r = negative_errno();
	if (r < 0) {
		(void)unlink(tmp);
		return backend_fail(b, -SCF_ERROR_BACKEND_ACCESS, "cannot write %s: %s",
		        b->np_boot_path, strerror(-r));
	}
	return 0;
}

/*
 * Decides whether the non-persistent database on disk may be kept (b->np_kept): it exists and
 * its marker names this boot.  Otherwise the marker and then the files go.
 */
static int choose_np(backend_t *b, const char *boot, bool allow_keep)
{
	char marker[BOOT_ID_MAX];
	const char *why;
	int r;

	read_line(b->np_boot_path, marker);
	b->np_kept = allow_keep && boot[0] && streq(marker, boot) && access(b->np_path, F_OK) == 0;
	if (b->np_kept)
		why = NULL;
	else if (!allow_keep)
		why = "the previous one could not be used";
	else if (!boot[0])
		why = "no boot id to tell a restart from a reboot";
	else if (marker[0])
		why = "the previous one is from another boot";
	else
		why = "none of this boot";
	free(b->np_note);
	r = why ? asprintf(&b->np_note, "a fresh non-persistent repository (%s)", why)
	        : asprintf(&b->np_note, "kept the non-persistent repository of this boot");
	if (r < 0) {
		b->np_note = NULL;
		return backend_oom(b);
	}
	if (b->np_kept)
		return 0;
	if (unlink(b->np_boot_path) < 0 && errno != ENOENT)
		return backend_fail(b, -SCF_ERROR_BACKEND_ACCESS, "cannot remove %s: %s",
		        b->np_boot_path, strerror(errno));
	r = remove_np_files(b->np_path);
	if (r < 0)
		return backend_fail(b, -SCF_ERROR_BACKEND_ACCESS, "cannot remove %s: %s",
		        b->np_path, strerror(-r));
	return 0;
}

static int attach_np(backend_t *b)
{
	sqlite3_stmt *s = NULL;
	int rc;

	rc = sqlite3_prepare_v2(b->db, "ATTACH DATABASE ?1 AS np", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_bind_text(s, 1, b->np_path, -1, SQLITE_STATIC);
		rc = sqlite3_step(s);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_OK)
		return backend_sqlite_fail(b, rc, "attaching the non-persistent database");
	return 0;
}

static int open_databases(backend_t *b, const char *root, const char *boot, bool allow_keep)
{
	const char *path;
	int rc, r;

	if ((!b->main_path && smf_path(root, SMF_REL_REPOSITORY, &b->main_path) < 0) ||
	        (!b->np_path && smf_path(root, SMF_REL_NONPERSIST_DB, &b->np_path) < 0) ||
	        (!b->np_boot_path && smf_path(root, SMF_REL_NONPERSIST_BOOT, &b->np_boot_path) < 0))
		return backend_oom(b);
	path = b->main_path;
	r = choose_np(b, boot, allow_keep);
	if (r < 0)
		return r;
	rc = sqlite3_open_v2(path, &b->db,
	        SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
	if (rc != SQLITE_OK)
		return backend_fail(b, sqlite_to_scf(rc), "cannot open %s: %s", path,
		        b->db ? sqlite3_errmsg(b->db) : sqlite3_errstr(rc));
	sqlite3_extended_result_codes(b->db, 1);
	/* Before anything is read or remembered: every later change is seen. */
	sqlite3_update_hook(b->db, on_row_change, b);
	/*
	 * Exclusive locking: configd is the only user of its databases (its flock says so), so
	 * SQLite may keep its file locks and its WAL index in memory instead of taking fcntl()
	 * locks around every statement.  It must come before WAL is entered, and it applies to
	 * the attached database too.  WAL: a commit is one append.  synchronous=NORMAL keeps the
	 * database consistent across crashes and loses at most the last commits on a power
	 * failure; the volatile database needs no durability at all.
	 */
	r = exec_script(b,
	        "PRAGMA locking_mode = EXCLUSIVE; PRAGMA journal_mode = WAL; PRAGMA synchronous = "
	        "NORMAL; "
	        "PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;",
	        "setting up");
	if (r < 0)
		return r;
	r = values_register_sql(b);
	if (r < 0)
		return r;
	/* From here on a failure is the non-persistent database's (backend_open() may retry). */
	b->np_failed = true;
	r = attach_np(b);
	if (r >= 0)
		r = exec_script(b, "PRAGMA np.journal_mode = WAL; PRAGMA np.synchronous = OFF;",
		        "setting up the non-persistent database");
	if (r >= 0)
		b->np_failed = false;
	return r;
}

/* Closes the connection and forgets its statements, so that it can be opened again. */
static void close_db(backend_t *b)
{
	for (size_t i = 0; i < _STMT_MAX; i++)
		for (size_t v = 0; v < _DB_VARIANTS; v++) {
			sqlite3_finalize(b->stmts[i][v]);
			b->stmts[i][v] = NULL;
		}
	if (b->db)
		sqlite3_close_v2(b->db);
	b->db = NULL;
	backend_entity_memo_forget(b);
}

static int open_all(backend_t *b, const char *root, const char *boot, bool allow_keep)
{
	int r = open_databases(b, root, boot, allow_keep);

	if (r >= 0)
		r = backend_schema_setup(b);
	if (r >= 0 && !b->np_kept && boot[0])
		r = write_boot_marker(b, boot);
	return r;
}

int backend_open(const char *root, backend_t **ret, char **errmsg)
{
	backend_t *b = calloc(1, sizeof(*b));
	char boot[BOOT_ID_MAX];
	int r;

	if (!b)
		return -SCF_ERROR_NO_MEMORY;
	b->thread = pthread_self();
	read_line(BOOT_ID_PATH, boot);
	r = open_all(b, root, boot, true);
	if (r < 0 && b->np_kept && b->np_failed) {
		/* This boot's volatile database cannot be used: start it afresh, and say why. */
		_cleanup_free_ char *why = strdup(backend_errmsg(b));

		close_db(b);
		r = open_all(b, root, boot, false);
		free(b->np_note);
		b->np_note = NULL;
		if (r >= 0 &&
		        asprintf(&b->np_note,
		                "a fresh non-persistent repository: this boot's could not be "
		                "used (%s)",
		                strna(why)) < 0)
			b->np_note = NULL;
	}
	if (r < 0) {
		if (errmsg)
			*errmsg = b->errmsg ? strdup(b->errmsg) : NULL;
		backend_close(b);
		return r;
	}
	backend_clear_error(b);
	*ret = b;
	return 0;
}

const char *backend_np_note(const backend_t *b)
{
	return b->np_note ? b->np_note : "";
}

void backend_close(backend_t *b)
{
	if (!b)
		return;
	close_db(b);
	pg_cache_free(b->cache);
	for (size_t k = 0; k < _BACKEND_STORES; k++)
		free(b->stores[k].error);
	free(b->main_path);
	free(b->np_path);
	free(b->np_boot_path);
	free(b->np_note);
	free(b->errmsg);
	free(b);
}
