/*
 * backend-pg.c: reading, listing, adding and deleting property groups.
 *
 * A read names an entity, optionally a snapshot, and whether it is composed.  It looks at up to
 * two levels: level 0 is the entity itself (or the snapshot's copy of the instance), level 1 is
 * an instance's service (or the snapshot's copy of it), consulted only for a composed read.
 * Composition is per property, as illumos' composed property groups: a composed pg has the
 * instance's properties plus the service's properties the instance does not have, and the
 * type, flags and generation of the instance's pg when the instance has one.  Two pgs of the
 * same name but different types do not compose: the instance's is read alone.
 *
 * A read locates its pg (and, composed, the service's) with one lookup each, then takes the
 * properties from configd's cache, which answers only for the generation just located (cache.c),
 * and sends them as stored (backend-read.h).  backend_get_pg() decodes the same read.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "backend-internal.h"
#include "backend-view.h"
#include "cache.h"
#include "macro.h"
#include "strv.h"

void view_clear(view_t *v)
{
	entity_clear(&v->entity);
}

void pg_loc_clear(pg_loc_t *l)
{
	free(l->type);
	*l = (pg_loc_t){};
}

void backend_props_free(scf_property_t *props, size_t n)
{
	for (size_t i = 0; props && i < n; i++) {
		free(props[i].name);
		strv_free(props[i].values);
	}
	free(props);
}

void backend_pg_free(scf_pg_t *pg)
{
	if (!pg)
		return;
	backend_pgs_free(pg, 1);
}

void backend_pgs_free(scf_pg_t *pgs, size_t n)
{
	for (size_t i = 0; pgs && i < n; i++) {
		free(pgs[i].entity);
		free(pgs[i].name);
		free(pgs[i].type);
		backend_props_free(pgs[i].props, pgs[i].n_props);
	}
	free(pgs);
}

void backend_pg_infos_free(scf_pg_info_t *infos, size_t n)
{
	for (size_t i = 0; infos && i < n; i++) {
		free(infos[i].name);
		free(infos[i].type);
	}
	free(infos);
}

int backend_check_name(backend_t *b, const char *name, const char *what)
{
	int r = scf_name_validate(name ? name : "");

	if (r < 0)
		return backend_fail(b, r, "\"%s\" is not a valid %s name%s", strempty(name), what,
		        r == -SCF_ERROR_CONSTRAINT_VIOLATED ? " (too long)" : "");
	return 0;
}

static int fill_loc(backend_t *b, sqlite3_stmt *s, int first, int where, pg_loc_t *ret)
{
	ret->where = where;
	ret->id = sqlite3_column_int64(s, first);
	ret->type = strdup((const char *)sqlite3_column_text(s, first + 1));
	ret->flags = (uint32_t)sqlite3_column_int64(s, first + 2);
	ret->gen = (uint64_t)sqlite3_column_int64(s, first + 3);
	if (!ret->type)
		return backend_oom(b);
	return 1;
}

int backend_pg_find(backend_t *b, int64_t entity_id, const char *name, pg_loc_t *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_PG_LOOKUP, DB_MAIN);
	int r;

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, entity_id);
	sqlite3_bind_text(s, 2, name, -1, SQLITE_STATIC);
	r = backend_step_row(b, s, "looking up a property group");
	if (r <= 0)
		return r;
	return fill_loc(b, s, 1, sqlite3_column_int(s, 0) ? DB_NP : DB_MAIN, ret);
}

static int snap_pg_find(backend_t *b, int64_t snap, int level, const char *name, pg_loc_t *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_SNAP_PG_LOOKUP, DB_MAIN);
	int r;

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, snap);
	sqlite3_bind_int(s, 2, level);
	sqlite3_bind_text(s, 3, name, -1, SQLITE_STATIC);
	r = backend_step_row(b, s, "looking up a snapshot's property group");
	if (r <= 0)
		return r;
	return fill_loc(b, s, 0, DB_SNAPSHOT, ret);
}

int view_find(backend_t *b, const view_t *v, int level, const char *name, pg_loc_t *ret)
{
	if (v->snap)
		return snap_pg_find(b, v->snap, level, name, ret);
	return backend_pg_find(b, level ? v->entity.parent : v->entity.id, name, ret);
}

/* Resolves entity and snapshot into a view. */
int view_open(backend_t *b, const char *entity, const char *snapshot, view_t *v)
{
	int r = backend_entity_lookup(b, entity, &v->entity);

	if (r < 0 || !snapshot || !*snapshot)
		return r;
	if (v->entity.parent == 0)
		return backend_fail(
		        b, -SCF_ERROR_NOT_FOUND, "%s: a service has no snapshots", v->entity.fmri);
	v->snap_name = snapshot;
	r = backend_snapshot_find(b, v->entity.id, snapshot, &v->snap);
	if (r < 0)
		return r;
	if (r == 0)
		return backend_fail(b, -SCF_ERROR_NOT_FOUND, "%s: no snapshot \"%s\"",
		        v->entity.fmri, snapshot);
	return 0;
}

int backend_pg_new(
        backend_t *b, const char *entity, const char *name, const pg_loc_t *loc, scf_pg_t **ret)
{
	scf_pg_t *pg = calloc(1, sizeof(*pg));

	if (!pg)
		return backend_oom(b);
	pg->entity = strdup(entity);
	pg->name = strdup(name);
	pg->type = strdup(loc->type);
	pg->flags = loc->flags;
	pg->generation = loc->gen;
	if (!pg->entity || !pg->name || !pg->type) {
		backend_pg_free(pg);
		return backend_oom(b);
	}
	*ret = pg;
	return 0;
}

static int pg_not_found(backend_t *b, const view_t *v, const char *name)
{
	if (v->snap)
		return backend_fail(b, -SCF_ERROR_NOT_FOUND,
		        "%s: no property group \"%s\" in snapshot \"%s\"", v->entity.fmri, name,
		        v->snap_name);
	return backend_fail(
	        b, -SCF_ERROR_NOT_FOUND, "%s: no property group \"%s\"", v->entity.fmri, name);
}

void pg_read_clear(pg_read_t *r)
{
	free(r->type);
	if (r->rows)
		pgrows_unref(r->rows);
	if (r->under)
		pgrows_unref(r->under);
	*r = (pg_read_t){};
}

const pgprop_t *pg_read_next(const pg_read_t *r, pg_read_iter_t *it)
{
	const pgrows_t *a = r->rows, *u = r->under;
	size_t an = a ? a->n : 0, un = u ? u->n : 0;
	int c;

	if (it->i < an && it->j < un) {
		c = strcmp(a->props[it->i].name, u->props[it->j].name);
		if (c > 0)
			return &u->props[it->j++];
		if (c == 0)
			it->j++; /* the service's, hidden by the instance's */
		return &a->props[it->i++];
	}
	if (it->i < an)
		return &a->props[it->i++];
	if (it->j < un)
		return &u->props[it->j++];
	return NULL;
}

int view_read_located(backend_t *b, const view_t *v, const char *name, pg_loc_t *own, pg_loc_t *svc,
        pg_cache_mode_t mode, pg_read_t *ret)
{
	_cleanup_(pg_read_clear) pg_read_t p = {};
	pg_loc_t *top;
	int r;

	if (!own && !svc)
		return 0;
	/* As illumos: pgs of different types do not compose; the instance's hides the other. */
	if (own && svc && !streq(own->type, svc->type))
		svc = NULL;
	top = own ? own : svc;
	r = pg_cache_rows(b, top, mode, v->entity.fmri, name, &p.rows);
	if (r >= 0 && own && svc)
		r = pg_cache_rows(b, svc, mode, v->entity.fmri, name, &p.under);
	if (r < 0)
		return r;
	p.wire = p.rows->wire + (p.under ? p.under->wire : 0);
	if (p.wire > BACKEND_MAX_READ_BYTES)
		return backend_fail(b, -SCF_ERROR_CONSTRAINT_VIOLATED,
		        "%s/:properties/%s: %llu bytes of properties, more than one reply can "
		        "carry (%u); delete properties or the property group",
		        v->entity.fmri, name, (unsigned long long)p.wire, BACKEND_MAX_READ_BYTES);
	p.type = strdup(top->type);
	if (!p.type)
		return backend_oom(b);
	p.flags = top->flags;
	p.gen = top->gen;
	*ret = p;
	p = (pg_read_t){};
	return 1;
}

int view_read_pg(backend_t *b, const view_t *v, const char *name, bool composed,
        pg_cache_mode_t mode, pg_read_t *ret)
{
	_cleanup_(pg_loc_clear) pg_loc_t own = {}, svc = {};
	int have_own, have_svc = 0;

	have_own = view_find(b, v, 0, name, &own);
	if (have_own < 0)
		return have_own;
	if (composed && v->entity.parent != 0) {
		have_svc = view_find(b, v, 1, name, &svc);
		if (have_svc < 0)
			return have_svc;
	}
	return view_read_located(
	        b, v, name, have_own ? &own : NULL, have_svc ? &svc : NULL, mode, ret);
}

/*
 * GetPg's read: the view of entity and snapshot, then the pg in it.  In the current view, from
 * where the same read found it last when nothing changed since (cache.c, "LOCATIONS").
 */
static int read_pg(backend_t *b, const char *entity, const char *pg, const char *snapshot,
        bool composed, view_t *v, pg_read_t *ret)
{
	_cleanup_(pg_loc_clear) pg_loc_t own = {}, svc = {};
	bool current = !snapshot || !*snapshot;
	const pg_where_t *w = current ? pg_cache_where(b, entity, pg, composed) : NULL;
	int r, have_own, have_svc = 0;

	if (w) {
		pg_loc_t o = w->own, s = w->svc;

		v->entity = (entity_t){.id = w->entity.id,
		        .parent = w->entity.parent,
		        .fmri = strdup(w->entity.fmri)};
		if (!v->entity.fmri)
			return backend_oom(b);
		r = view_read_located(b, v, pg, w->have_own ? &o : NULL, w->have_svc ? &s : NULL,
		        PG_CACHE_KEEP, ret);
		assert(r != 0);
		return r < 0 ? r : 0;
	}
	r = backend_check_name(b, pg, "property group");
	if (r >= 0)
		r = view_open(b, entity, snapshot, v);
	if (r < 0)
		return r;
	have_own = view_find(b, v, 0, pg, &own);
	if (have_own >= 0 && composed && v->entity.parent != 0)
		have_svc = view_find(b, v, 1, pg, &svc);
	if (have_own < 0 || have_svc < 0)
		return have_own < 0 ? have_own : have_svc;
	if (!have_own && !have_svc)
		return pg_not_found(b, v, pg);
	if (current)
		pg_cache_remember(b, entity, pg, composed, &v->entity, have_own ? &own : NULL,
		        have_svc ? &svc : NULL);
	r = view_read_located(
	        b, v, pg, have_own ? &own : NULL, have_svc ? &svc : NULL, PG_CACHE_KEEP, ret);
	return r < 0 ? r : 0;
}

int backend_read_pg(backend_t *b, const char *entity, const char *pg, const char *snapshot,
        bool composed, pg_read_t *ret)
{
	_cleanup_(view_clear) view_t v = {};

	return read_pg(b, entity, pg, snapshot, composed, &v, ret);
}

int backend_get_pg(backend_t *b, const char *entity, const char *pg, const char *snapshot,
        bool composed, scf_pg_t **ret)
{
	_cleanup_(view_clear) view_t v = {};
	_cleanup_(pg_read_clear) pg_read_t p = {};
	_cleanup_backend_pg_ scf_pg_t *out = NULL;
	pg_loc_t loc;
	pg_read_iter_t it = {};
	const pgprop_t *q;
	size_t n = 0;
	int r;

	r = read_pg(b, entity, pg, snapshot, composed, &v, &p);
	if (r < 0)
		return r;
	loc = (pg_loc_t){.type = p.type, .flags = p.flags, .gen = p.gen};
	r = backend_pg_new(b, v.entity.fmri, pg, &loc, &out);
	if (r < 0)
		return r;
	out->props = calloc(p.rows->n + (p.under ? p.under->n : 0) + 1, sizeof(scf_property_t));
	if (!out->props)
		return backend_oom(b);
	while ((q = pg_read_next(&p, &it))) {
		scf_property_t *dst = &out->props[n++];

		out->n_props = n;
		dst->name = strdup(q->name);
		dst->type = scf_string_to_type(q->type);
		if (!dst->name ||
		        values_decode(q->vals, q->vals_len, &dst->values, &dst->n_values) < 0)
			return backend_oom(b);
	}
	*ret = TAKE_PTR(out);
	return 0;
}

static int list_level(backend_t *b, const view_t *v, int level, scf_pg_info_t **ret, size_t *ret_n)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	scf_pg_info_t *l = NULL;
	size_t n = 0, cap = 0;
	int r;

	if (v->snap) {
		s = backend_stmt(b, STMT_SNAP_PG_LIST, DB_MAIN);
		if (s) {
			sqlite3_bind_int64(s, 1, v->snap);
			sqlite3_bind_int(s, 2, level);
		}
	} else {
		s = backend_stmt(b, STMT_PG_LIST, DB_MAIN);
		if (s)
			sqlite3_bind_int64(s, 1, level ? v->entity.parent : v->entity.id);
	}
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	while ((r = backend_step_row(b, s, "listing property groups")) > 0) {
		if (GREEDY_REALLOC(l, cap, n + 1) < 0) {
			r = backend_oom(b);
			break;
		}
		l[n++] = (scf_pg_info_t){
		        .name = strdup((const char *)sqlite3_column_text(s, 0)),
		        .type = strdup((const char *)sqlite3_column_text(s, 1)),
		        .flags = (uint32_t)sqlite3_column_int64(s, 2),
		        .generation = (uint64_t)sqlite3_column_int64(s, 3),
		};
		if (!l[n - 1].name || !l[n - 1].type) {
			r = backend_oom(b);
			break;
		}
	}
	if (r < 0) {
		backend_pg_infos_free(l, n);
		return r;
	}
	*ret = l;
	*ret_n = n;
	return 0;
}

/* Merges two sorted lists; the first wins on equal names.  Consumes both. */
static int merge_infos(scf_pg_info_t *a, size_t an, scf_pg_info_t *s, size_t sn,
        scf_pg_info_t **ret, size_t *ret_n)
{
	scf_pg_info_t *out = calloc(an + sn + 1, sizeof(*out));
	size_t i = 0, j = 0, k = 0;

	if (!out) {
		backend_pg_infos_free(a, an);
		backend_pg_infos_free(s, sn);
		return -SCF_ERROR_NO_RESOURCES;
	}
	while (i < an || j < sn) {
		int c = i == an ? 1 : j == sn ? -1 : strcmp(a[i].name, s[j].name);

		if (c <= 0) {
			out[k++] = a[i++];
			if (c == 0) {
				free(s[j].name);
				free(s[j].type);
				j++;
			}
		} else
			out[k++] = s[j++];
	}
	free(a);
	free(s);
	*ret = out;
	*ret_n = k;
	return 0;
}

int view_list_pgs(backend_t *b, const view_t *v, bool composed, scf_pg_info_t **ret, size_t *ret_n)
{
	scf_pg_info_t *own = NULL, *svc = NULL;
	size_t on = 0, sn = 0;
	int r;

	r = list_level(b, v, 0, &own, &on);
	if (r < 0)
		return r;
	if (!composed || v->entity.parent == 0) {
		*ret = own;
		*ret_n = on;
		return 0;
	}
	r = list_level(b, v, 1, &svc, &sn);
	if (r < 0) {
		backend_pg_infos_free(own, on);
		return r;
	}
	r = merge_infos(own, on, svc, sn, ret, ret_n);
	if (r < 0)
		return backend_oom(b);
	return 0;
}

int backend_list_pgs(backend_t *b, const char *entity, const char *snapshot, bool composed,
        scf_pg_info_t **ret, size_t *ret_n)
{
	_cleanup_(view_clear) view_t v = {};
	int r;

	r = view_open(b, entity, snapshot, &v);
	if (r < 0)
		return r;
	return view_list_pgs(b, &v, composed, ret, ret_n);
}

int backend_add_pg(backend_t *b, const char *entity, const char *pg, const char *type,
        uint32_t flags, scf_pg_t **ret)
{
	_cleanup_(entity_clear) entity_t e = {};
	_cleanup_(pg_loc_clear) pg_loc_t loc = {};
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	int where = (flags & SCF_PG_FLAG_NONPERSISTENT) ? DB_NP : DB_MAIN, r;

	r = backend_check_name(b, pg, "property group");
	if (r >= 0)
		r = backend_check_name(b, type, "property group type");
	if (r >= 0)
		r = backend_entity_lookup(b, entity, &e);
	if (r < 0)
		return r;
	r = backend_pg_find(b, e.id, pg, &loc);
	if (r < 0)
		return r;
	if (r > 0)
		return backend_fail(b, -SCF_ERROR_EXISTS,
		        "%s: property group \"%s\" already exists", e.fmri, pg);
	s = backend_stmt(b, STMT_PG_INSERT, where);
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, e.id);
	sqlite3_bind_text(s, 2, pg, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, type, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, 4, flags);
	r = backend_step_done(b, s, "adding a property group");
	if (r < 0 || !ret)
		return r;
	/* Read it back: the generation is 1 only for a name this entity never had before. */
	r = backend_pg_find(b, e.id, pg, &loc);
	if (r == 0)
		r = backend_fail(
		        b, -SCF_ERROR_INTERNAL, "%s: property group \"%s\" vanished", e.fmri, pg);
	if (r < 0)
		return r;
	return backend_pg_new(b, e.fmri, pg, &loc, ret);
}

int backend_delete_pg(backend_t *b, const char *entity, const char *pg, scf_pg_t **ret)
{
	_cleanup_(entity_clear) entity_t e = {};
	_cleanup_(pg_loc_clear) pg_loc_t loc = {};
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	_cleanup_backend_pg_ scf_pg_t *p = NULL;
	int r;

	r = backend_check_name(b, pg, "property group");
	if (r >= 0)
		r = backend_entity_lookup(b, entity, &e);
	if (r < 0)
		return r;
	r = backend_pg_find(b, e.id, pg, &loc);
	if (r < 0)
		return r;
	if (r == 0)
		return backend_fail(
		        b, -SCF_ERROR_NOT_FOUND, "%s: no property group \"%s\"", e.fmri, pg);
	if (ret) {
		r = backend_pg_new(b, e.fmri, pg, &loc, &p);
		if (r < 0)
			return r;
	}
	/* One statement: the foreign key removes the properties in the same implicit transaction. */
	s = backend_stmt(b, STMT_PG_DELETE, loc.where);
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, loc.id);
	r = backend_step_done(b, s, "deleting a property group");
	if (r < 0)
		return r;
	if (ret)
		*ret = TAKE_PTR(p);
	return 0;
}
