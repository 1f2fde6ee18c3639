/*
 * backend-entity.c: services and instances.
 *
 * Entities are keyed by canonical FMRI and listed in the order of their creation (their id), as
 * illumos' backend lists them and svccfg list shows them.  Whatever form a caller used, it is parsed and formatted
 * again before it touches the database, so "network/ssh:default" and
 * "svc://localhost/network/ssh:default" are the same row.
 *
 * THE ENTITY MEMO.  Every request names its entity by FMRI, and finding it (parse, format, one
 * index lookup) took a sixth of an import's time, and as much of every read while writes keep
 * the pg cache's locations from being used.  An entity found is remembered under the FMRI as
 * named.  An entity's id, parent and FMRI never change while its row lives (no statement
 * updates them; entities.cfg is not remembered), so an entry stays right until a row of
 * main.entities is inserted or deleted (the update hook, backend.c, forgets every entry) or a
 * rollback undoes rows an entry may have come from (rollback_now() forgets them too).  Not
 * found is never remembered.  At most ENTITY_MEMO_MAX entries: all are forgotten past that.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend-internal.h"
#include "macro.h"
#include "model.h"
#include "restarter.h"
#include "strv.h"
#include "timeutil.h"

void entity_clear(entity_t *e)
{
	free(e->fmri);
	*e = (entity_t){};
}

#define ENTITY_MEMO_MAX 16384

typedef struct entity_memo {
	int64_t id, parent;
	char fmri[]; /* canonical */
} entity_memo_t;

void backend_entity_memo_forget(backend_t *b)
{
	size_t state = 0;
	void *m;

	if (!b->entities)
		return;
	while ((m = hashmap_next(b->entities, &state, NULL)))
		free(m);
	b->entities = hashmap_free(b->entities);
}

/* Remembers e, found under the FMRI named; a shortage of memory only forgets. */
static void memo_put(backend_t *b, const char *named, const entity_t *e)
{
	size_t len = strlen(e->fmri);
	entity_memo_t *m;

	if (b->entities && hashmap_size(b->entities) >= ENTITY_MEMO_MAX)
		backend_entity_memo_forget(b);
	if (!b->entities && !(b->entities = hashmap_new()))
		return;
	assert(!hashmap_get(b->entities, named));
	m = malloc(sizeof(*m) + len + 1);
	if (!m)
		return;
	m->id = e->id;
	m->parent = e->parent;
	memcpy(m->fmri, e->fmri, len + 1);
	if (hashmap_put(b->entities, named, m) < 0)
		free(m);
}

/* The remembered entity into *ret (and its FMRI into *ret_canon): 1, or < 0. */
static int memo_get(backend_t *b, const entity_memo_t *m, entity_t *ret, char **ret_canon)
{
	ret->id = m->id;
	ret->parent = m->parent;
	ret->fmri = strdup(m->fmri);
	if (!ret->fmri || (ret_canon && !(*ret_canon = strdup(m->fmri)))) {
		entity_clear(ret);
		return backend_oom(b);
	}
	return 1;
}

static void fmri_clearp(scf_fmri_t *f)
{
	scf_fmri_clear(f);
}

/* Parses an entity FMRI; *ret_canon gets the canonical form of the service or instance. */
static int entity_parse(backend_t *b, const char *fmri, scf_fmri_t *f, char **ret_canon)
{
	scf_fmri_t e;
	int r;

	if (!fmri || !*fmri)
		return backend_fail(b, -SCF_ERROR_INVALID_ARGUMENT, "an empty FMRI names nothing");
	if (strlen(fmri) > SCF_LIMIT_MAX_FMRI_LENGTH)
		return backend_fail(b, -SCF_ERROR_CONSTRAINT_VIOLATED,
		        "FMRI of %zu bytes is longer than %d", strlen(fmri),
		        SCF_LIMIT_MAX_FMRI_LENGTH);
	r = scf_fmri_parse(fmri, f);
	if (r < 0)
		return backend_fail(b, r, "\"%s\" is not a valid FMRI", fmri);
	if (f->pg || f->prop || !f->service)
		return backend_fail(b, -SCF_ERROR_INVALID_ARGUMENT,
		        "\"%s\" does not name a service or an instance", fmri);
	if (smf_fmri_canonical_form(fmri)) { /* every read's case: no need to format it again */
		*ret_canon = strdup(fmri);
		return *ret_canon ? 0 : backend_oom(b);
	}
	e = (scf_fmri_t){.service = f->service, .instance = f->instance};
	r = scf_fmri_format(&e, ret_canon);
	if (r < 0)
		return backend_fail(b, r, "cannot format \"%s\"", fmri);
	return 0;
}

/* 1 and *ret filled when canon exists, 0 when not. */
static int lookup_canonical(backend_t *b, const char *canon, entity_t *ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_ENTITY_LOOKUP, DB_MAIN);
	int r;

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_text(s, 1, canon, -1, SQLITE_STATIC);
	r = backend_step_row(b, s, "looking up an entity");
	if (r <= 0)
		return r;
	ret->id = sqlite3_column_int64(s, 0);
	ret->parent = sqlite3_column_int64(s, 1);
	ret->fmri = strdup(canon);
	if (!ret->fmri)
		return backend_oom(b);
	return 1;
}

int backend_entity_resolve(backend_t *b, const char *fmri, entity_t *ret, char **ret_canon)
{
	_cleanup_(fmri_clearp) scf_fmri_t f = {};
	_cleanup_free_ char *canon = NULL;
	const entity_memo_t *m = b->entities && fmri ? hashmap_get(b->entities, fmri) : NULL;
	int r;

	if (m)
		return memo_get(b, m, ret, ret_canon);
	r = entity_parse(b, fmri, &f, &canon);
	if (r < 0)
		return r;
	r = lookup_canonical(b, canon, ret);
	if (r < 0)
		return r;
	if (r == 0)
		backend_fail(b, -SCF_ERROR_NOT_FOUND, "%s: no such %s", canon,
		        f.instance ? "instance" : "service");
	else
		memo_put(b, fmri, ret);
	if (ret_canon)
		*ret_canon = TAKE_PTR(canon);
	return r;
}

int backend_entity_lookup(backend_t *b, const char *fmri, entity_t *ret)
{
	int r = backend_entity_resolve(b, fmri, ret, NULL);

	return r == 0 ? -SCF_ERROR_NOT_FOUND : r < 0 ? r : 0;
}

static int list_fmris(backend_t *b, sqlite3_stmt *s, int column, char ***ret)
{
	_cleanup_strv_free_ char **l = strv_new_empty();
	size_t n = 0;
	int r;

	if (!l)
		return backend_oom(b);
	while ((r = backend_step_row(b, s, "listing entities")) > 0)
		if (strv_extend_counted(&l, &n, (const char *)sqlite3_column_text(s, column)) < 0)
			return backend_oom(b);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}

int backend_list_services(backend_t *b, char ***ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_LIST_SERVICES, DB_MAIN);

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	return list_fmris(b, s, 0, ret);
}

int backend_list_instances(backend_t *b, const char *service, char ***ret)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	_cleanup_(entity_clear) entity_t e = {};
	int r;

	if (!service || !*service) {
		s = backend_stmt(b, STMT_LIST_INSTANCES_ALL, DB_MAIN);
		return s ? list_fmris(b, s, 0, ret) : -SCF_ERROR_BACKEND_ACCESS;
	}
	r = backend_entity_lookup(b, service, &e);
	if (r < 0)
		return r;
	if (e.parent != 0)
		return backend_fail(
		        b, -SCF_ERROR_TYPE_MISMATCH, "%s is an instance, not a service", e.fmri);
	s = backend_stmt(b, STMT_LIST_CHILDREN, DB_MAIN);
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, e.id);
	return list_fmris(b, s, 1, ret);
}

static int insert_entity(backend_t *b, const char *canon, int64_t parent)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_ENTITY_INSERT, DB_MAIN);

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_text(s, 1, canon, -1, SQLITE_STATIC);
	if (parent)
		sqlite3_bind_int64(s, 2, parent);
	else
		sqlite3_bind_null(s, 2);
	return backend_step_done(b, s, "adding an entity");
}

/* Parses fmri for an add: checks the kind and that it does not exist yet. */
static int prepare_add(backend_t *b, const char *fmri, bool instance, scf_fmri_t *f, char **canon)
{
	_cleanup_(entity_clear) entity_t e = {};
	int r;

	r = entity_parse(b, fmri, f, canon);
	if (r < 0)
		return r;
	if (instance != !!f->instance)
		return backend_fail(b, -SCF_ERROR_TYPE_MISMATCH, "%s is %s", *canon,
		        instance ? "a service, not an instance" : "an instance, not a service");
	r = lookup_canonical(b, *canon, &e);
	if (r < 0)
		return r;
	if (r > 0)
		return backend_fail(b, -SCF_ERROR_EXISTS, "%s already exists", *canon);
	return 0;
}

int backend_add_service(backend_t *b, const char *fmri)
{
	_cleanup_(fmri_clearp) scf_fmri_t f = {};
	_cleanup_free_ char *canon = NULL;
	int r;

	r = prepare_add(b, fmri, false, &f, &canon);
	if (r < 0)
		return r;
	return insert_entity(b, canon, 0);
}

void backend_set_eager_restarter(backend_t *b, bool on)
{
	b->eager_restarter = on;
}

/*
 * configd-eager: the restarter pg of the new instance canon, in its creating transaction, with
 * what svc.startd's first sight writes (state uninitialized, next_state none, auxiliary_state
 * insert_in_graph, state_timestamp now): non-persistent, at generation 1, as a pg a batch
 * creates and fills.  The pg, without properties, in *ret.
 */
static int add_initial_restarter(backend_t *b, const char *canon, scf_pg_t **ret)
{
	_cleanup_(entity_clear) entity_t e = {};
	_cleanup_(pg_loc_clear) pg_loc_t loc = {};
	_cleanup_free_ char *where = NULL;
	uint64_t now = now_realtime_usec();
	const char *state[] = {restarter_state_to_string(RESTARTER_STATE_UNINIT)};
	const char *next[] = {restarter_state_to_string(RESTARTER_STATE_NONE)};
	const char *aux[] = {RESTARTER_AUX_INSERT_IN_GRAPH};
	char ts[64];
	const char *stamp[] = {ts};
	const char *astring = scf_type_to_string(SCF_TYPE_ASTRING);
	const backend_cmd_t cmds[] = {
	        {SMF_CMD_SET, SCF_PROPERTY_STATE, astring, state, 1},
	        {SMF_CMD_SET, SCF_PROPERTY_NEXT_STATE, astring, next, 1},
	        {SMF_CMD_SET, SCF_PROPERTY_AUX_STATE, astring, aux, 1},
	        {SMF_CMD_SET, SCF_PROPERTY_STATE_TIMESTAMP, scf_type_to_string(SCF_TYPE_TIME),
	                stamp, 1},
	};
	prepared_cmd_t *p = NULL;
	int r;

	assert(b->tx_depth > 0);
	snprintf(ts, sizeof(ts), "%llu.%06llu", (unsigned long long)(now / USEC_PER_SEC),
	        (unsigned long long)(now % USEC_PER_SEC));
	if (asprintf(&where, "%s/:properties/%s", canon, SCF_PG_RESTARTER) < 0)
		return backend_oom(b);
	r = backend_cmds_prepare(b, where, cmds, ELEMENTSOF(cmds), SMF_CMD_SET, &p);
	if (r >= 0)
		r = backend_add_pg(b, canon, SCF_PG_RESTARTER, SCF_GROUP_FRAMEWORK,
		        SCF_PG_FLAG_NONPERSISTENT, NULL);
	if (r >= 0)
		r = backend_entity_lookup(b, canon, &e);
	if (r >= 0 && (r = backend_pg_find(b, e.id, SCF_PG_RESTARTER, &loc)) == 0)
		r = backend_fail(b, -SCF_ERROR_INTERNAL, "%s: the restarter pg vanished", canon);
	for (size_t i = 0; r >= 0 && i < ELEMENTSOF(cmds); i++)
		r = backend_cmd_apply(b, &loc, where, &p[i]);
	backend_cmds_free(p, ELEMENTSOF(cmds));
	if (r >= 0)
		r = backend_pg_new(b, canon, SCF_PG_RESTARTER, &loc, ret);
	return r < 0 ? r : 0;
}

int backend_create_instance(backend_t *b, const char *fmri, char **ret_canon, scf_pg_t **ret_rpg)
{
	_cleanup_(fmri_clearp) scf_fmri_t f = {};
	_cleanup_free_ char *canon = NULL, *svc = NULL;
	_cleanup_(entity_clear) entity_t parent = {};
	_cleanup_backend_pg_ scf_pg_t *rpg = NULL;
	scf_fmri_t sf;
	int r;

	r = prepare_add(b, fmri, true, &f, &canon);
	if (r < 0)
		return r;
	sf = (scf_fmri_t){.service = f.service};
	if (scf_fmri_format(&sf, &svc) < 0)
		return backend_oom(b);
	r = lookup_canonical(b, svc, &parent);
	if (r < 0)
		return r;
	if (r == 0)
		return backend_fail(b, -SCF_ERROR_NOT_FOUND, "%s: no such service", svc);
	if (!b->eager_restarter)
		r = insert_entity(b, canon, parent.id);
	else if ((r = backend_tx_begin(b)) >= 0) {
		r = insert_entity(b, canon, parent.id);
		if (r >= 0)
			r = add_initial_restarter(b, canon, &rpg);
		if (r >= 0)
			r = backend_tx_commit(b);
		else
			backend_tx_rollback(b);
	}
	if (r < 0)
		return r;
	if (ret_canon)
		*ret_canon = TAKE_PTR(canon);
	if (ret_rpg)
		*ret_rpg = TAKE_PTR(rpg);
	return 0;
}

int backend_add_instance(backend_t *b, const char *fmri)
{
	return backend_create_instance(b, fmri, NULL, NULL);
}

int backend_entity_exists(backend_t *b, const char *fmri)
{
	_cleanup_(entity_clear) entity_t e = {};
	int r = backend_entity_lookup(b, fmri, &e);

	if (r == -SCF_ERROR_NOT_FOUND) {
		backend_clear_error(b);
		return 0;
	}
	return r < 0 ? r : 1;
}

/* Appends the pgs of one entity (both databases) to the deletion list (*n of *cap used). */
static int collect_pgs(
        backend_t *b, int64_t id, const char *fmri, scf_pg_t **pgs, size_t *n, size_t *cap)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_PG_LIST, DB_MAIN);
	int r;

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, id);
	while ((r = backend_step_row(b, s, "listing property groups")) > 0) {
		scf_pg_t *p;

		if (GREEDY_REALLOC(*pgs, *cap, *n + 1) < 0)
			return backend_oom(b);
		p = &(*pgs)[(*n)++];
		*p = (scf_pg_t){
		        .entity = strdup(fmri),
		        .name = strdup((const char *)sqlite3_column_text(s, 0)),
		        .type = strdup((const char *)sqlite3_column_text(s, 1)),
		        .flags = (uint32_t)sqlite3_column_int64(s, 2),
		        .generation = (uint64_t)sqlite3_column_int64(s, 3),
		};
		if (!p->entity || !p->name || !p->type)
			return backend_oom(b);
	}
	return r;
}

/* Lists the instances of a service as (id, fmri) pairs into empty *ids and *fmris. */
static int list_children(backend_t *b, int64_t id, int64_t **ids, char ***fmris, size_t *n)
{
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_LIST_CHILDREN, DB_MAIN);
	size_t cap = 0;
	int r;

	assert(!*ids && *n == 0);
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, id);
	while ((r = backend_step_row(b, s, "listing instances")) > 0) {
		size_t k = *n;

		if (GREEDY_REALLOC(*ids, cap, *n + 1) < 0)
			return backend_oom(b);
		if (strv_extend_counted(fmris, &k, (const char *)sqlite3_column_text(s, 1)) < 0)
			return backend_oom(b);
		(*ids)[(*n)++] = sqlite3_column_int64(s, 0);
	}
	return r;
}

static int delete_rows(backend_t *b, const int64_t *ids, size_t n, int64_t self)
{
	for (size_t i = 0; i <= n; i++) {
		_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_NP_DELETE_ENTITY, DB_NP);
		int r;

		if (!s)
			return -SCF_ERROR_BACKEND_ACCESS;
		sqlite3_bind_int64(s, 1, i < n ? ids[i] : self);
		r = backend_step_done(b, s, "deleting non-persistent property groups");
		if (r < 0)
			return r;
	}
	/* The foreign keys cascade to instances, pgs, properties and snapshots. */
	_cleanup_stmt_ sqlite3_stmt *s = backend_stmt(b, STMT_ENTITY_DELETE, DB_MAIN);
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, self);
	return backend_step_done(b, s, "deleting an entity");
}

int backend_delete_entity(backend_t *b, const char *fmri, scf_pg_t **ret_deleted, size_t *ret_n)
{
	_cleanup_(entity_clear) entity_t e = {};
	_cleanup_strv_free_ char **fmris = strv_new_empty();
	_cleanup_free_ int64_t *ids = NULL;
	scf_pg_t *pgs = NULL;
	size_t n_children = 0, n_pgs = 0, cap_pgs = 0;
	int r;

	if (!fmris)
		return backend_oom(b);
	r = backend_entity_lookup(b, fmri, &e);
	if (r < 0)
		return r;
	r = backend_tx_begin(b);
	if (r < 0)
		return r;
	if (e.parent == 0)
		r = list_children(b, e.id, &ids, &fmris, &n_children);
	for (size_t i = 0; r >= 0 && i < n_children; i++)
		r = collect_pgs(b, ids[i], fmris[i], &pgs, &n_pgs, &cap_pgs);
	if (r >= 0)
		r = collect_pgs(b, e.id, e.fmri, &pgs, &n_pgs, &cap_pgs);
	if (r >= 0)
		r = delete_rows(b, ids, n_children, e.id);
	if (r >= 0)
		r = backend_tx_commit(b);
	else
		backend_tx_rollback(b);
	if (r < 0 || !ret_deleted) {
		backend_pgs_free(pgs, n_pgs);
		return r;
	}
	*ret_deleted = pgs;
	*ret_n = n_pgs;
	return 0;
}
