/*
 * backend-schema.c: the tables, and moving an older persistent database forward.
 *
 * The persistent schema's version is PRAGMA user_version.  migrations[v] takes a database from
 * version v to v + 1 and runs in the same transaction as the user_version bump, so an
 * interrupted upgrade leaves the old version intact.  A database newer than this program is
 * refused rather than guessed at.  The non-persistent database has a version of its own
 * (NP_SCHEMA_VERSION, its user_version): one kept from earlier in this boot (backend.c) must
 * have exactly that version, else backend_open() starts it afresh; a new one is created at it.
 * A kept one loses the pgs of entities that no longer exist.
 */
#include <stdio.h>

#include "backend-internal.h"
#include "macro.h"

/* Version 0 -> 1: the initial schema. */
static const char schema_v1[] =
        "CREATE TABLE main.entities ("
        "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  fmri TEXT NOT NULL UNIQUE,"
        "  parent INTEGER REFERENCES entities(id) ON DELETE CASCADE);"
        "CREATE INDEX main.entities_by_parent ON entities (parent, fmri);"
        "CREATE TABLE main.pgs ("
        "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  entity INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, flags INTEGER NOT NULL, gen INTEGER NOT NULL,"
        "  UNIQUE (entity, name));"
        "CREATE TABLE main.props ("
        "  pg INTEGER NOT NULL REFERENCES pgs(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, vals BLOB NOT NULL,"
        "  PRIMARY KEY (pg, name)) WITHOUT ROWID;"
        "CREATE TABLE main.snapshots ("
        "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  instance INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, UNIQUE (instance, name));"
        "CREATE TABLE main.snap_pgs ("
        "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  snap INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,"
        "  level INTEGER NOT NULL,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, flags INTEGER NOT NULL, gen INTEGER NOT NULL,"
        "  UNIQUE (snap, level, name));"
        "CREATE TABLE main.snap_props ("
        "  snap_pg INTEGER NOT NULL REFERENCES snap_pgs(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, vals BLOB NOT NULL,"
        "  PRIMARY KEY (snap_pg, name)) WITHOUT ROWID;";

/*
 * Version 1 -> 2: the last generation of every pg that was deleted, by entity FMRI and pg name.
 * A pg created again under the same name starts above it, so a transaction that read the old
 * pg can never commit into the new one (the generation check alone would let it through when
 * both happened to reach the same number).  Rows are written by the triggers below.
 */
static const char schema_v2[] = "CREATE TABLE main.pg_gens ("
                                "  fmri TEXT NOT NULL, name TEXT NOT NULL, gen INTEGER NOT NULL,"
                                "  PRIMARY KEY (fmri, name)) WITHOUT ROWID;";

/*
 * Version 2 -> 3: snapshot levels are shared (backend-snapshot.c).  A level (snap_levels) is a
 * copy of one entity's persistent pgs taken when the entity's change counter (entities.cfg,
 * moved by the triggers below on every change to its rows in main.pgs and main.props) had the
 * value it records; a snapshot links to its two levels (snap_links).  The snapshots taken
 * before this version keep their copies: each of their levels becomes a level of its own, with
 * cfg -1, which no entity's counter ever equals, so they are never shared.  The copies keep
 * their row ids (snap_props points at them), and the old tables go only once nothing refers
 * to them.
 */
static const char schema_v3[] =
        "ALTER TABLE main.entities ADD COLUMN cfg INTEGER NOT NULL DEFAULT 0;"
        "CREATE TABLE main.snap_levels ("
        "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  entity INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,"
        "  cfg INTEGER NOT NULL);"
        "CREATE INDEX main.snap_levels_by_entity ON snap_levels (entity, cfg);"
        "CREATE TABLE main.snap_links ("
        "  snap INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,"
        "  level INTEGER NOT NULL,"
        "  lvl INTEGER NOT NULL REFERENCES snap_levels(id) ON DELETE CASCADE,"
        "  PRIMARY KEY (snap, level));"
        "CREATE INDEX main.snap_links_by_level ON snap_links (lvl);"
        "INSERT INTO main.snap_levels (id, entity, cfg)"
        "  SELECT s.id * 2, s.instance, -1 FROM main.snapshots s"
        "  UNION ALL SELECT s.id * 2 + 1, e.parent, -1 FROM main.snapshots s"
        "  JOIN main.entities e ON e.id = s.instance;"
        "INSERT INTO main.snap_links (snap, level, lvl)"
        "  SELECT id, 0, id * 2 FROM main.snapshots"
        "  UNION ALL SELECT id, 1, id * 2 + 1 FROM main.snapshots;"
        "CREATE TABLE main.snap_pgs_v3 ("
        "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  lvl INTEGER NOT NULL REFERENCES snap_levels(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, flags INTEGER NOT NULL, gen INTEGER NOT NULL,"
        "  UNIQUE (lvl, name));"
        "INSERT INTO main.snap_pgs_v3 (id, lvl, name, type, flags, gen)"
        "  SELECT id, snap * 2 + level, name, type, flags, gen FROM main.snap_pgs;"
        "CREATE TABLE main.snap_props_v3 ("
        "  snap_pg INTEGER NOT NULL REFERENCES snap_pgs_v3(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, vals BLOB NOT NULL,"
        "  PRIMARY KEY (snap_pg, name)) WITHOUT ROWID;"
        "INSERT INTO main.snap_props_v3 SELECT snap_pg, name, type, vals FROM main.snap_props;"
        "DROP TABLE main.snap_props;"
        "DROP TABLE main.snap_pgs;"
        "ALTER TABLE main.snap_pgs_v3 RENAME TO snap_pgs;"
        "ALTER TABLE main.snap_props_v3 RENAME TO snap_props;";

static const char *const migrations[BACKEND_SCHEMA_VERSION] = {
        [0] = schema_v1,
        [1] = schema_v2,
        [2] = schema_v3,
};

/*
 * The triggers that keep entities.cfg, the change counter that tells whether a snapshot level
 * taken earlier still holds what the entity holds (backend-snapshot.c): every insert, update
 * or delete of a row of main.pgs or main.props moves its entity's counter, in the same
 * transaction.  (A pg deleted by its entity's cascade updates no row: the entity is gone.)
 * And the one that deletes a snapshot level when its last link goes, whether the snapshot was
 * replaced, deleted, or went with its instance.
 */
#define CFG_TRIGGER(name, op, table, entity)                                                       \
	"CREATE TEMP TRIGGER cfg_" name " AFTER " op " ON main." table " BEGIN"                    \
	"  UPDATE entities SET cfg = cfg + 1 WHERE id = " entity "; END;"
#define PG_ENTITY(row) "(SELECT entity FROM main.pgs WHERE id = " row ".pg)"

/*
 * The triggers that keep main.pg_gens.  They are TEMP (per connection, recreated at every
 * open) because only a temp trigger may read one database and write another, and a pg of
 * either database must leave its mark.  A cascade from a deleted entity removes its pgs after
 * the entity row is gone, when the FMRI can no longer be looked up; so the entity's own
 * BEFORE DELETE trigger records its pgs, and the pg triggers cover single deletions.
 * (Non-persistent pgs are deleted explicitly before their entity, so its row is still there.)
 */
static const char triggers[] =
        "CREATE TEMP TRIGGER pg_gone AFTER DELETE ON main.pgs BEGIN"
        "  INSERT OR REPLACE INTO pg_gens SELECT fmri, OLD.name, OLD.gen"
        "    FROM main.entities WHERE id = OLD.entity; END;"
        "CREATE TEMP TRIGGER np_pg_gone AFTER DELETE ON np.pgs BEGIN"
        "  INSERT OR REPLACE INTO pg_gens SELECT fmri, OLD.name, OLD.gen"
        "    FROM main.entities WHERE id = OLD.entity; END;"
        "CREATE TEMP TRIGGER entity_gone BEFORE DELETE ON main.entities BEGIN"
        "  INSERT OR REPLACE INTO pg_gens SELECT OLD.fmri, name, gen"
        "    FROM main.pgs WHERE entity = OLD.id; END;"
        /* clang-format off */
        CFG_TRIGGER("pg_new", "INSERT", "pgs", "NEW.entity")
        CFG_TRIGGER("pg_set", "UPDATE", "pgs", "NEW.entity")
        CFG_TRIGGER("pg_del", "DELETE", "pgs", "OLD.entity")
        CFG_TRIGGER("prop_new", "INSERT", "props", PG_ENTITY("NEW"))
        CFG_TRIGGER("prop_set", "UPDATE", "props", PG_ENTITY("NEW"))
        CFG_TRIGGER("prop_del", "DELETE", "props", PG_ENTITY("OLD"))
        /* clang-format on */
        "CREATE TEMP TRIGGER snap_level_unused AFTER DELETE ON main.snap_links"
        "  WHEN NOT EXISTS (SELECT 1 FROM main.snap_links WHERE lvl = OLD.lvl) BEGIN"
        "  DELETE FROM snap_levels WHERE id = OLD.lvl; END;";

/* The non-persistent database: pgs (entity ids point into main) and their properties. */
#define NP_SCHEMA_VERSION 1
#define NP_SCHEMA_VERSION_SQL "1" /* the same, for the statement below */
static const char schema_np[] =
        "PRAGMA np.user_version = " NP_SCHEMA_VERSION_SQL ";"
        "CREATE TABLE np.pgs ("
        "  id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  entity INTEGER NOT NULL,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, flags INTEGER NOT NULL, gen INTEGER NOT NULL,"
        "  UNIQUE (entity, name));"
        "CREATE TABLE np.props ("
        "  pg INTEGER NOT NULL REFERENCES pgs(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, vals BLOB NOT NULL,"
        "  PRIMARY KEY (pg, name)) WITHOUT ROWID;";

static int exec(backend_t *b, const char *sql, const char *what)
{
	int rc = sqlite3_exec(b->db, sql, NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : backend_sqlite_fail(b, rc, what);
}

static int read_user_version(backend_t *b, int *ret)
{
	sqlite3_stmt *s = NULL;
	int rc;

	rc = sqlite3_prepare_v2(b->db, "PRAGMA main.user_version", -1, &s, NULL);
	if (rc == SQLITE_OK) {
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			*ret = sqlite3_column_int(s, 0);
			rc = SQLITE_OK;
		}
	}
	sqlite3_finalize(s);
	return rc == SQLITE_OK ? 0 : backend_sqlite_fail(b, rc, "reading the schema version");
}

/* A kept non-persistent database must be this program's; its orphans go. */
static int check_np(backend_t *b)
{
	sqlite3_stmt *s = NULL;
	int rc, version = -1;

	rc = sqlite3_prepare_v2(b->db, "PRAGMA np.user_version", -1, &s, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		version = sqlite3_column_int(s, 0);
		rc = SQLITE_OK;
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_OK)
		return backend_sqlite_fail(b, rc, "reading the non-persistent schema version");
	if (version != NP_SCHEMA_VERSION)
		return backend_fail(b, -SCF_ERROR_BACKEND_ACCESS,
		        "non-persistent schema version %d, not %d", version, NP_SCHEMA_VERSION);
	return exec(b, "DELETE FROM np.pgs WHERE entity NOT IN (SELECT id FROM main.entities);",
	        "dropping the non-persistent pgs of deleted entities");
}

static int migrate_one(backend_t *b, int from)
{
	char bump[64];
	int r;

	snprintf(bump, sizeof(bump), "PRAGMA main.user_version = %d;", from + 1);
	r = exec(b, "BEGIN IMMEDIATE", "migrating the schema");
	if (r < 0)
		return r;
	r = exec(b, migrations[from], "migrating the schema");
	if (r >= 0)
		r = exec(b, bump, "migrating the schema");
	if (r >= 0)
		r = exec(b, "COMMIT", "migrating the schema");
	if (r < 0)
		backend_tx_rollback(b);
	return r;
}

int backend_schema_setup(backend_t *b)
{
	int version = 0, r;

	r = read_user_version(b, &version);
	if (r < 0)
		return r;
	if (version > BACKEND_SCHEMA_VERSION)
		return backend_fail(b, -SCF_ERROR_BACKEND_ACCESS,
		        "repository schema version %d is newer than this svc.configd supports (%d)",
		        version, BACKEND_SCHEMA_VERSION);
	for (; version < BACKEND_SCHEMA_VERSION; version++) {
		r = migrate_one(b, version);
		if (r < 0)
			return r;
	}
	b->np_failed = true; /* what fails from here on concerns the non-persistent database */
	r = b->np_kept ? check_np(b) : exec(b, schema_np, "creating the non-persistent schema");
	if (r >= 0)
		r = exec(b, triggers, "creating the generation triggers");
	if (r >= 0)
		b->np_failed = false;
	return r;
}
