/*
 * backend-snapshot.c: named, frozen copies of an instance's configuration.
 *
 * A snapshot copies the persistent pgs of the instance (level 0) and of its service (level 1)
 * with their properties and generations.  Non-persistent pgs are left out, as illumos does:
 * they describe the running system (restarter state), not its configuration.  Taking a
 * snapshot under an existing name replaces it; Refresh moves "running" to "previous" and takes
 * "running" again, in one transaction, so a reader sees either the old pair or the new one.
 */
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

/*
 * Level `level` of snapshot snap_id := the persistent pgs of entity_id with their properties.
 * main.pgs holds exactly the persistent pgs (NONPERSISTENT ones live in np); a snapshot's pgs
 * are found again by (level, name), which is unique in a snapshot as (entity, name) is in
 * main.pgs, so the properties follow with one join.
 */
static int copy_level(backend_t *b, int64_t snap_id, int level, int64_t entity_id)
{
	static const struct {
		int stmt;
		const char *what;
	} steps[] = {
	        {STMT_SNAP_PGS_COPY, "copying property groups into a snapshot"},
	        {STMT_SNAP_PROPS_COPY, "copying properties into a snapshot"},
	};

	for (size_t i = 0; i < ELEMENTSOF(steps); i++) {
		_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, steps[i].stmt, DB_MAIN);
		int r;

		if (!s)
			return -SCF_ERROR_BACKEND_ACCESS;
		sqlite3_bind_int64(s, 1, snap_id);
		sqlite3_bind_int(s, 2, level);
		sqlite3_bind_int64(s, 3, entity_id);
		r = backend_step_done(b, s, steps[i].what);
		if (r < 0)
			return r;
	}
	return 0;
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
	r = copy_level(b, id, 0, e->id);
	if (r < 0)
		return r;
	return copy_level(b, id, 1, e->parent);
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
