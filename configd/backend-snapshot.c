/*
 * backend-snapshot.c: named, frozen copies of an instance's configuration.
 *
 * A snapshot copies the persistent pgs of the instance (level 0) and of its service (level 1)
 * with their properties and generations; a level's copy is shared with the snapshots taken
 * while its entity did not change (take_level()), as illumos shares snaplevels.  A level goes
 * with its last link (a trigger, backend-schema.c).  Non-persistent pgs are left out, as
 * illumos does: they describe the running system (restarter state), not its configuration.
 * Taking a snapshot under an existing name replaces it; Refresh moves "running" to "previous" and takes
 * "running" again, in one transaction, so a reader sees either the old pair or the new one.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "backend-internal.h"
#include "macro.h"
#include "strv.h"

int backend_snapshot_find(backend_t *b, int64_t instance_id, const char *name, int64_t *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_SNAP_LOOKUP, DB_MAIN);
	int r;

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, instance_id);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	r = backend_step_row(b, s, "looking up a snapshot");
	if (r > 0)
		*ret = sqlite3_column_int64(s, 0);
	return r;
}

/* Runs a cached statement binding ?1 and ?2 (no rows expected). */
static int run2(backend_t *b, int stmt, int64_t a1, int64_t a2, const char *what)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, stmt, DB_MAIN);

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, a1);
	sqlite3_bind_int64(s, 2, a2);
	return backend_step_done(b, s, what);
}

/* A level of entity_id taken at its current change counter, into *ret; 1 found, 0 none. */
static int level_find(backend_t *b, int64_t entity_id, int64_t *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_SNAP_LEVEL_FIND, DB_MAIN);
	int r;

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, entity_id);
	r = backend_step_row(b, s, "looking up a snapshot level");
	if (r > 0)
		*ret = sqlite3_column_int64(s, 0);
	return r;
}

/*
 * A new level: the persistent pgs of entity_id with their properties (main.pgs holds exactly
 * those: NONPERSISTENT ones live in np), stamped with the entity's change counter.  A level's
 * pgs are found again by name, which is unique in a level as it is in the entity.
 */
static int level_copy(backend_t *b, int64_t entity_id, int64_t *ret)
{
	int64_t lvl;
	int r;

	r = run2(b, STMT_SNAP_LEVEL_INSERT, entity_id, 0, "creating a snapshot level");
	if (r < 0)
		return r;
	lvl = sqlite3_last_insert_rowid(b->db);
	r = run2(b, STMT_SNAP_PGS_COPY, lvl, entity_id, "copying property groups into a snapshot");
	if (r >= 0)
		r = run2(b, STMT_SNAP_PROPS_COPY, lvl, entity_id,
		        "copying properties into a snapshot");
	if (r < 0)
		return r;
	*ret = lvl;
	return 0;
}

/*
 * Level `level` of snapshot snap_id := what entity_id holds now.  The triggers move an
 * entity's change counter with every change to its persistent rows (backend-schema.c), and a
 * level's rows never change once copied: a level stamped with the counter's current value holds
 * exactly what the entity holds, and is linked instead of copied again.  An import takes three
 * snapshots of each instance ("initial", "last-import", "running") and the service level of
 * all of them is one: a copy per service and one per instance, not six per instance.
 */
static int take_level(backend_t *b, int64_t snap_id, int level, int64_t entity_id)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int64_t lvl = 0;
	int r;

	r = level_find(b, entity_id, &lvl);
	if (r == 0)
		r = level_copy(b, entity_id, &lvl);
	if (r < 0)
		return r;
	assert(lvl > 0);
	s = backend_stmt(b, STMT_SNAP_LINK, DB_MAIN);
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, snap_id);
	sqlite3_bind_int(s, 2, level);
	sqlite3_bind_int64(s, 3, lvl);
	return backend_step_done(b, s, "linking a snapshot level");
}

/* Looks up an instance for a snapshot operation. */
static int lookup_instance(backend_t *b, const char *fmri, entity_t *e)
{
	int r = backend_entity_lookup(b, fmri, e);

	if (r < 0)
		return r;
	if (e->parent == 0)
		return backend_fail(b, -SCF_ERROR_TYPE_MISMATCH,
		        "%s is a service; only instances have snapshots", e->fmri);
	return 0;
}

static int check_snapshot_name(backend_t *b, const char *name)
{
	int r = scf_name_validate(name ? name : "");

	if (r < 0)
		return backend_fail(b, r, "\"%s\" is not a valid snapshot name", strempty(name));
	return 0;
}

static int delete_by_id(backend_t *b, int64_t id)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_SNAP_DELETE, DB_MAIN);

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, id);
	return backend_step_done(b, s, "deleting a snapshot");
}

/* Inside a transaction: (re)creates snapshot name of instance e from the current pgs. */
static int take(backend_t *b, const entity_t *e, const char *name)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int64_t old = 0, id;
	int r;

	r = backend_snapshot_find(b, e->id, name, &old);
	if (r > 0)
		r = delete_by_id(b, old);
	if (r < 0)
		return r;
	s = backend_stmt(b, STMT_SNAP_INSERT, DB_MAIN);
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, e->id);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	r = backend_step_done(b, s, "creating a snapshot");
	if (r < 0)
		return r;
	id = sqlite3_last_insert_rowid(b->db);
	r = take_level(b, id, 0, e->id);
	if (r < 0)
		return r;
	return take_level(b, id, 1, e->parent);
}

static int finish(backend_t *b, int r)
{
	if (r < 0) {
		backend_tx_rollback(b);
		return r;
	}
	return backend_tx_commit(b);
}

int backend_take_snapshot(backend_t *b, const char *instance, const char *name)
{
	_cleanup_(entity_clear) entity_t e = {};
	int r;

	r = check_snapshot_name(b, name);
	if (r >= 0)
		r = lookup_instance(b, instance, &e);
	if (r >= 0)
		r = backend_tx_begin(b);
	if (r < 0)
		return r;
	return finish(b, take(b, &e, name));
}

int backend_delete_snapshot(backend_t *b, const char *instance, const char *name)
{
	_cleanup_(entity_clear) entity_t e = {};
	int64_t id = 0;
	int r;

	r = check_snapshot_name(b, name);
	if (r >= 0)
		r = lookup_instance(b, instance, &e);
	if (r >= 0)
		r = backend_snapshot_find(b, e.id, name, &id);
	if (r < 0)
		return r;
	if (r == 0)
		return backend_fail(
		        b, -SCF_ERROR_NOT_FOUND, "%s: no snapshot \"%s\"", e.fmri, name);
	return delete_by_id(b, id);
}

/* Inside a transaction: "previous" := "running", when there is a "running". */
static int rotate(backend_t *b, const entity_t *e)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int64_t running = 0, previous = 0;
	int r;

	r = backend_snapshot_find(b, e->id, SCF_SNAPSHOT_RUNNING, &running);
	if (r <= 0)
		return r;
	r = backend_snapshot_find(b, e->id, SCF_SNAPSHOT_PREVIOUS, &previous);
	if (r > 0)
		r = delete_by_id(b, previous);
	if (r < 0)
		return r;
	s = backend_stmt(b, STMT_SNAP_RENAME, DB_MAIN);
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, running);
	sqlite3_bind_text(s, 2, SCF_SNAPSHOT_PREVIOUS, -1, SQLITE_STATIC);
	return backend_step_done(b, s, "renaming a snapshot");
}

int backend_refresh(backend_t *b, const char *instance)
{
	_cleanup_(entity_clear) entity_t e = {};
	int r;

	r = lookup_instance(b, instance, &e);
	if (r >= 0)
		r = backend_tx_begin(b);
	if (r < 0)
		return r;
	r = rotate(b, &e);
	if (r >= 0)
		r = take(b, &e, SCF_SNAPSHOT_RUNNING);
	return finish(b, r);
}

int backend_list_snapshots(backend_t *b, const char *instance, char ***ret)
{
	_cleanup_(entity_clear) entity_t e = {};
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	_cleanup_strv_free_ char **l = NULL;
	size_t n = 0;
	int r;

	r = lookup_instance(b, instance, &e);
	if (r < 0)
		return r;
	l = strv_new_empty();
	if (!l)
		return backend_oom(b);
	s = backend_stmt(b, STMT_SNAP_LIST, DB_MAIN);
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, e.id);
	while ((r = backend_step_row(b, s, "listing snapshots")) > 0)
		if (strv_extend_counted(&l, &n, (const char *)sqlite3_column_text(s, 0)) < 0)
			return backend_oom(b);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}
