/*
 * backend-bulk.c: ReadPgs, the pgs of many entities in one request.
 *
 * THE MODEL.  A bulk read is the single read (backend-pg.c) repeated over a set of entities,
 * inside one request: the entities listed (each as often as listed, in that order, each one
 * resolved as GetPg would resolve it, a missing or malformed one answered as such rather than
 * failing the request), or every instance whose canonical FMRI matches a glob, in FMRI order,
 * from after a given FMRI on (so that the caller can ask for the next page).  For each entity
 * every query is answered: a pg by name, or every pg of a type (listed as ListPgs lists them,
 * then each read as GetPg reads it), in the current view or a snapshot, composed or not.
 *
 * The instances of a pattern come from one statement over the entities' FMRI index, bounded
 * by the pattern's literal prefix (the part before its first special character: for
 * "svc:/network/" followed by a star, the rows from "svc:/network/" up to "svc:/network0"), so
 * a page costs what it answers, not the size of the repository.
 * Properties come from the cache (cache.c) when it has them; a bulk read adds to the cache
 * only where nothing must be evicted (PG_CACHE_IF_ROOM), so a scan does not flush it.
 *
 * INVARIANTS.  The request is checked whole before anything is read.  The visitor is called
 * entity by entity; it may stop before an entity (the page is full) and that entity is then
 * not answered at all, so a page never holds part of an entity.  Nothing is written.
 */
#include <assert.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend-view.h"
#include "macro.h"

/*
 * A pattern's scan: the instances from ?1 (exclusive) and ?2 (inclusive) up to ?3 (exclusive),
 * sorted, and for each query by name in the current view (up to JOINED_MAX of them) the
 * location of that pg in either database, and of the service's for a composed one, joined in
 * the same statement: one step per instance instead of a lookup statement per pg.
 */
#define JOINED_MAX 8
#define LOC_COLUMNS 4 /* id, type, flags, gen */

typedef struct scan {
	int col[SMF_BULK_MAX_QUERIES]; /* a joined query's first column; -1: not joined */
} scan_t;

static bool isempty(const char *s)
{
	return !s || !*s;
}

static int check_request(backend_t *b, const bulk_request_t *q)
{
	int r;

	if (q->n_queries > SMF_BULK_MAX_QUERIES)
		return backend_fail(b, -SCF_ERROR_CONSTRAINT_VIOLATED,
		        "%zu queries in one bulk read, more than %u", q->n_queries,
		        SMF_BULK_MAX_QUERIES);
	if (q->n_queries > 0 && !q->queries)
		return backend_fail(b, -SCF_ERROR_INVALID_ARGUMENT, "no queries given");
	for (size_t k = 0; k < q->n_queries; k++) {
		const bulk_query_t *x = &q->queries[k];
		const char *what = "property group";
		const char *name = x->name;

		if (x->flags & ~SMF_BULK_FLAGS_ALL)
			return backend_fail(b, -SCF_ERROR_INVALID_ARGUMENT,
			        "query %zu: unknown flags %#x", k + 1, x->flags);
		if (!isempty(x->name) && !isempty(x->type))
			return backend_fail(b, -SCF_ERROR_INVALID_ARGUMENT,
			        "query %zu: a property group name or a type, not both", k + 1);
		if (isempty(x->name)) {
			what = "property group type";
			name = x->type;
		}
		r = backend_check_name(b, name, what);
		if (r >= 0 && !isempty(x->snapshot))
			r = backend_check_name(b, x->snapshot, "snapshot");
		if (r < 0)
			return r;
	}
	if (q->pattern && strlen(q->pattern) > SCF_LIMIT_MAX_FMRI_LENGTH)
		return backend_fail(b, -SCF_ERROR_CONSTRAINT_VIOLATED,
		        "a pattern of %zu bytes is longer than %d", strlen(q->pattern),
		        SCF_LIMIT_MAX_FMRI_LENGTH);
	return 0;
}

/* The view a query reads in: 1 (*v set), 0 when the entity has no such view (no pgs). */
static int query_view(backend_t *b, const bulk_query_t *x, view_t *v)
{
	int r;

	v->snap = 0;
	v->snap_name = NULL;
	if (isempty(x->snapshot))
		return 1;
	if (v->entity.parent == 0) /* a service has no snapshots */
		return 0;
	r = backend_snapshot_find(b, v->entity.id, x->snapshot, &v->snap);
	if (r < 0)
		return r;
	if (r == 0)
		return (x->flags & SMF_BULK_SNAPSHOT_FALLBACK) ? 1 : 0;
	v->snap_name = x->snapshot;
	return 1;
}

static int answer_one(backend_t *b, view_t *v, const bulk_visitor_t *vis, unsigned k,
        const char *name, bool composed)
{
	_cleanup_(pg_read_clear) pg_read_t p = {};
	int r = view_read_pg(b, v, name, composed, PG_CACHE_IF_ROOM, &p);

	if (r <= 0)
		return r;
	return vis->pg(vis->userdata, k, name, &p);
}

/* Every pg of the view whose type is type, by name. */
static int answer_type(backend_t *b, view_t *v, const bulk_visitor_t *vis, unsigned k,
        const char *type, bool composed)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	int r;

	r = view_list_pgs(b, v, composed, &infos, &n);
	for (size_t i = 0; r >= 0 && i < n; i++)
		if (streq(infos[i].type, type))
			r = answer_one(b, v, vis, k, infos[i].name, composed);
	backend_pg_infos_free(infos, n);
	return r;
}

/* The pg located in a scan's row from column col (main) or col + LOC_COLUMNS (np); 0 if none. */
static int row_loc(backend_t *b, sqlite3_stmt *s, int col, pg_loc_t *ret)
{
	int where = DB_MAIN;

	if (sqlite3_column_type(s, col) == SQLITE_NULL) {
		col += LOC_COLUMNS;
		where = DB_NP;
		if (sqlite3_column_type(s, col) == SQLITE_NULL)
			return 0;
	}
	*ret = (pg_loc_t){.where = where,
	        .id = sqlite3_column_int64(s, col),
	        .type = strdup((const char *)sqlite3_column_text(s, col + 1)),
	        .flags = (uint32_t)sqlite3_column_int64(s, col + 2),
	        .gen = (uint64_t)sqlite3_column_int64(s, col + 3)};
	return ret->type ? 1 : backend_oom(b);
}

/* A joined query, answered from the scan's row. */
static int answer_joined(backend_t *b, view_t *v, const bulk_visitor_t *vis, unsigned k,
        const bulk_query_t *x, sqlite3_stmt *row, int col)
{
	_cleanup_(pg_loc_clear) pg_loc_t own = {}, svc = {};
	_cleanup_(pg_read_clear) pg_read_t p = {};
	int have_own, have_svc = 0, r;

	have_own = row_loc(b, row, col, &own);
	if (have_own >= 0 && (x->flags & SMF_BULK_COMPOSED))
		have_svc = row_loc(b, row, col + 2 * LOC_COLUMNS, &svc);
	if (have_own < 0 || have_svc < 0)
		return have_own < 0 ? have_own : have_svc;
	r = view_read_located(b, v, x->name, have_own ? &own : NULL, have_svc ? &svc : NULL,
	        PG_CACHE_IF_ROOM, &p);
	if (r <= 0)
		return r;
	return vis->pg(vis->userdata, k, x->name, &p);
}

/* The entity of v, found: every query, then its end (row, sc: a pattern's scan, or NULL). */
static int answer_entity(backend_t *b, const bulk_request_t *q, view_t *v,
        const bulk_visitor_t *vis, sqlite3_stmt *row, const scan_t *sc)
{
	int r = 0;

	for (unsigned k = 0; r >= 0 && k < q->n_queries; k++) {
		const bulk_query_t *x = &q->queries[k];
		bool composed = x->flags & SMF_BULK_COMPOSED;

		if (sc && sc->col[k] >= 0) {
			r = answer_joined(b, v, vis, k, x, row, sc->col[k]);
			continue;
		}
		r = query_view(b, x, v);
		if (r <= 0)
			continue;
		if (!isempty(x->name))
			r = answer_one(b, v, vis, k, x->name, composed);
		else
			r = answer_type(b, v, vis, k, x->type, composed);
	}
	if (r < 0)
		return r;
	return vis->entity_end(vis->userdata);
}

static int read_listed(backend_t *b, const bulk_request_t *q, const bulk_visitor_t *vis)
{
	for (size_t i = 0; i < q->n_entities; i++) {
		_cleanup_(view_clear) view_t v = {};
		_cleanup_free_ char *canon = NULL;
		const char *fmri = q->entities[i] ? q->entities[i] : "";
		smf_bulk_status_t st;
		int r;

		r = backend_entity_resolve(b, fmri, &v.entity, &canon);
		if (r == -SCF_ERROR_INVALID_ARGUMENT || r == -SCF_ERROR_CONSTRAINT_VIOLATED) {
			backend_clear_error(b);
			st = SMF_BULK_INVALID;
		} else if (r < 0)
			return r;
		else if (r == 0) {
			backend_clear_error(b);
			st = SMF_BULK_NO_ENTITY;
			fmri = canon;
		} else {
			st = SMF_BULK_FOUND;
			fmri = v.entity.fmri;
		}
		r = vis->entity(vis->userdata, fmri, st);
		if (r != 0)
			return r < 0 ? r : 1;
		r = st == SMF_BULK_FOUND ? answer_entity(b, q, &v, vis, NULL, NULL)
		                         : vis->entity_end(vis->userdata);
		if (r < 0)
			return r;
	}
	return 0;
}

static void finalizep(sqlite3_stmt **s)
{
	sqlite3_finalize(*s);
}

/* The scan's statement for q (its joins; sc->col filled), malloc'd; NULL when out of memory. */
static char *scan_sql(const bulk_request_t *q, scan_t *sc)
{
	static const char *const tables[] = {"main.pgs", "np.pgs"};
	_cleanup_free_ char *cols = NULL, *joins = NULL;
	size_t n_joined = 0, cols_len = 0, joins_len = 0;
	FILE *c = open_memstream(&cols, &cols_len), *j = open_memstream(&joins, &joins_len);
	int next_col = 3, r = 0;
	char *sql = NULL;

	for (size_t k = 0; c && j && k < q->n_queries; k++) {
		const bulk_query_t *x = &q->queries[k];
		int levels = (x->flags & SMF_BULK_COMPOSED) ? 2 : 1;

		sc->col[k] = -1;
		if (isempty(x->name) || !isempty(x->snapshot) || n_joined == JOINED_MAX)
			continue;
		sc->col[k] = next_col;
		n_joined++;
		/* Level 0 the instance's, 1 its service's; each in main, then in np. */
		for (int l = 0; l < levels; l++)
			for (int t = 0; t < 2; t++, next_col += LOC_COLUMNS) {
				fprintf(c,
				        ", p%zu%d%d.id, p%zu%d%d.type, p%zu%d%d.flags, "
				        "p%zu%d%d.gen",
				        k, l, t, k, l, t, k, l, t, k, l, t);
				fprintf(j,
				        " LEFT JOIN %s p%zu%d%d ON p%zu%d%d.entity = e.%s AND "
				        "p%zu%d%d.name = ?%zu",
				        tables[t], k, l, t, k, l, t, l ? "parent" : "id", k, l, t,
				        4 + k);
			}
	}
	if (!c || fclose(c) != 0)
		r = -1;
	if (!j || fclose(j) != 0)
		r = -1;
	if (r < 0 ||
	        asprintf(&sql,
	                "SELECT e.id, e.parent, e.fmri%s FROM main.entities e%s WHERE "
	                "e.parent IS NOT NULL AND e.fmri > ?1 AND e.fmri >= ?2 AND "
	                "e.fmri < ?3 ORDER BY e.fmri",
	                cols, joins) < 0)
		return NULL;
	return sql;
}

static int read_pattern(backend_t *b, const bulk_request_t *q, const bulk_visitor_t *vis)
{
	__attribute__((cleanup(finalizep))) sqlite3_stmt *s = NULL;
	const char *pattern = strempty(q->pattern);
	size_t plen = strcspn(pattern, "*?[\\");
	_cleanup_free_ char *upper = NULL, *sql = NULL;
	scan_t sc;
	int rc, r;

	/* The rows from the literal prefix to the prefix with its last byte one higher. */
	upper = plen ? strndup(pattern, plen) : strdup("\x7f");
	sql = scan_sql(q, &sc);
	if (!upper || !sql)
		return backend_oom(b);
	if (plen)
		upper[plen - 1]++;
	rc = sqlite3_prepare_v2(b->db, sql, -1, &s, NULL);
	if (rc != SQLITE_OK)
		return backend_sqlite_fail(b, rc, "preparing a bulk read");
	sqlite3_bind_text(s, 1, strempty(q->after), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, pattern, (int)plen, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, upper, -1, SQLITE_STATIC);
	for (size_t k = 0; k < q->n_queries; k++)
		if (sc.col[k] >= 0)
			sqlite3_bind_text(s, 4 + (int)k, q->queries[k].name, -1, SQLITE_STATIC);
	while ((r = backend_step_row(b, s, "listing instances")) > 0) {
		_cleanup_(view_clear) view_t v = {};
		const char *fmri = (const char *)sqlite3_column_text(s, 2);

		if (!fmri || (*pattern && fnmatch(pattern, fmri, 0) != 0))
			continue;
		v.entity.id = sqlite3_column_int64(s, 0);
		v.entity.parent = sqlite3_column_int64(s, 1);
		v.entity.fmri = strdup(fmri);
		if (!v.entity.fmri)
			return backend_oom(b);
		r = vis->entity(vis->userdata, v.entity.fmri, SMF_BULK_FOUND);
		if (r != 0)
			return r < 0 ? r : 1;
		r = answer_entity(b, q, &v, vis, s, &sc);
		if (r < 0)
			return r;
	}
	return r;
}

int backend_read_bulk(backend_t *b, const bulk_request_t *req, const bulk_visitor_t *v)
{
	int r;

	assert(pthread_equal(b->thread, pthread_self()));
	assert(v && v->entity && v->pg && v->entity_end);
	r = check_request(b, req);
	if (r < 0)
		return r;
	if (req->n_entities > 0)
		return read_listed(b, req, v);
	return read_pattern(b, req, v);
}
