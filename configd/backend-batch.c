/*
 * backend-batch.c: many steps, one SQLite transaction.
 *
 * A batch is how a writer that owns what it writes (the importer) applies a whole manifest
 * all or nothing.  The model:
 *
 * - Every PROPS step's commands are checked and canonicalized before BEGIN, with the code
 *   Commit uses (backend_cmds_prepare), so a bad value fails without taking the write lock.
 * - Then each step runs, in order, inside one BEGIN IMMEDIATE ... COMMIT, through the same
 *   backend functions the single-step methods use; their own begin/commit nest inside ours
 *   (backend_tx_begin counts), so a step sees every earlier step, a snapshot or refresh
 *   included, and a failure anywhere rolls back everything.
 * - Steps carry no generation.  Instead every pg the batch touches has a record, found by its
 *   pg FMRI in a hashmap_t and kept in first-touch order in an array, which
 *   remembers the pg as it was before the batch (the "original") and whether the batch
 *   changed it (a command wrote or removed a row).  An original gets generation + 1 at its
 *   first change, not at every step, so a snapshot later in the batch already captures the
 *   new generation; a pg the batch creates stays at generation 1 however often it is written.
 * - At the end, still inside the transaction, each record is compared with what exists now:
 *   a changed or created pg gives one PgChanged, an original that is gone one PgDeleted (both,
 *   deleted first, when the batch deleted and re-created it), a pg created and deleted again
 *   nothing.  The caller sends them after the commit, in record order.
 * - A pg may not grow past BACKEND_MAX_PG_BYTES, but it is measured (a sum over all its rows)
 *   once per pg, not after every step that grows it: a batch of n steps that each add a property
 *   to one pg would otherwise cost O(n^2) (10,000 such steps took 3.8 s, 40,000 over a minute).
 *   A record a step grew waits in a list, and the list is measured before a step that copies
 *   pgs (a snapshot, a refresh: no copy may hold an oversized pg) and at the end, inside the
 *   transaction; an oversized pg fails the batch as the last step that grew it.
 * - An instance an INSTANCE_ENSURE step creates is remembered too, in creation order; those
 *   that still exist at the end are announced (InstanceAdded) before the pg signals.  With
 *   configd-eager (backend_set_eager_restarter()) its restarter pg is created with it and has
 *   a record like any pg the batch creates.
 *
 * Costs: a step is a few indexed statements on prepared (cached) statements; records are
 * found by hash, and a grown pg is measured once per measuring point, so a batch is linear in its
 * steps, in the pgs it deletes and in the rows of the pgs it grows.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "backend-internal.h"
#include "hashmap.h"
#include "macro.h"
#include "strv.h"

typedef struct pg_record {
	char *fmri; /* canonical entity */
	char *name;
	bool had_orig;   /* the pg existed when the batch first touched it */
	bool orig_gone;  /* ... and the batch deleted it */
	bool changed;    /* the original's properties were written */
	bool grown;      /* on the list of pgs to measure (records_t.grown) */
	size_t grown_by; /* the last step that grew it, from 0 */
	char *orig_type;
	uint32_t orig_flags;
	uint64_t orig_gen;
} pg_record_t;

typedef struct records {
	pg_record_t **recs; /* first-touch order */
	size_t n, cap;
	hashmap_t *index; /* pg FMRI ("<entity>/:properties/<name>") -> its record */
	char **added;     /* instances created, canonical, in creation order (NULL: none) */
	size_t n_added;
	pg_record_t **grown; /* grown since the last measuring point, each once */
	size_t n_grown, cap_grown;
} records_t;

static void record_free(pg_record_t *r)
{
	if (!r)
		return;
	free(r->fmri);
	free(r->name);
	free(r->orig_type);
	free(r);
}

static void records_clear(records_t *t)
{
	for (size_t i = 0; i < t->n; i++)
		record_free(t->recs[i]);
	free(t->recs);
	hashmap_free(t->index);
	strv_free(t->added);
	free(t->grown);
	*t = (records_t){};
}

/*
 * The record of fmri/name, created on first touch from cur: the pg as it is now (NULL when it
 * does not exist), which is the original since nothing in the batch touched it before.
 */
static int record_touch(backend_t *b, records_t *t, const char *fmri, const char *name,
        const pg_loc_t *cur, pg_record_t **ret)
{
	_cleanup_free_ char *key = NULL;
	pg_record_t *r;

	/* Canonical FMRIs cannot contain "/:properties/", so the key names one pg. */
	if (asprintf(&key, "%s/:properties/%s", fmri, name) < 0)
		return backend_oom(b);
	if (!t->index && !(t->index = hashmap_new()))
		return backend_oom(b);
	r = hashmap_get(t->index, key);
	if (r) {
		*ret = r;
		return 0;
	}
	if (GREEDY_REALLOC(t->recs, t->cap, t->n + 1) < 0 || !(r = calloc(1, sizeof(*r))))
		return backend_oom(b);
	*r = (pg_record_t){
	        .fmri = strdup(fmri),
	        .name = strdup(name),
	        .had_orig = cur != NULL,
	        .orig_type = cur ? strdup(cur->type) : NULL,
	        .orig_flags = cur ? cur->flags : 0,
	        .orig_gen = cur ? cur->gen : 0,
	};
	if (!r->fmri || !r->name || (cur && !r->orig_type) || hashmap_put(t->index, key, r) < 0) {
		record_free(r);
		return backend_oom(b);
	}
	t->recs[t->n++] = r;
	*ret = r;
	return 0;
}

/* Whether the pg that exists now under this record's name is the one the batch found. */
static bool record_is_orig(const pg_record_t *r)
{
	return r->had_orig && !r->orig_gone;
}

/* The pg that exists now was deleted. */
static void record_deleted(pg_record_t *r)
{
	if (record_is_orig(r))
		r->orig_gone = true;
}

typedef struct batch {
	backend_t *b;
	records_t *recs;
	const backend_step_t *step;
	size_t i; /* the step's index */
	const prepared_cmd_t *cmds;
} batch_t;

/* The step grew rec's pg: it will be measured at the next measuring point. */
static int record_grew(batch_t *x, pg_record_t *rec)
{
	records_t *t = x->recs;

	rec->grown_by = x->i;
	if (rec->grown)
		return 0;
	if (GREEDY_REALLOC(t->grown, t->cap_grown, t->n_grown + 1) < 0)
		return backend_oom(x->b);
	t->grown[t->n_grown++] = rec;
	rec->grown = true;
	return 0;
}

/*
 * Measures every pg grown since the last call (gone ones need nothing); on a pg over the bound,
 * the error, and *ret_step the step to blame.
 */
static int measure_grown(backend_t *b, records_t *t, size_t *ret_step)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < t->n_grown; i++) {
		pg_record_t *rec = t->grown[i];
		_cleanup_(entity_clear) entity_t e = {};
		_cleanup_(pg_loc_clear) pg_loc_t loc = {};
		_cleanup_free_ char *where = NULL;

		rec->grown = false;
		r = backend_entity_lookup(b, rec->fmri, &e);
		if (r == -SCF_ERROR_NOT_FOUND) {
			backend_clear_error(b);
			r = 0;
			continue;
		}
		if (r >= 0)
			r = backend_pg_find(b, e.id, rec->name, &loc);
		if (r > 0)
			r = asprintf(&where, "%s/:properties/%s", e.fmri, rec->name) < 0
			        ? backend_oom(b)
			        : backend_pg_check_size(b, &loc, where);
		if (r < 0)
			*ret_step = rec->grown_by;
	}
	t->n_grown = 0;
	return r;
}

static int lookup_kind(backend_t *b, const char *fmri, bool instance, entity_t *e)
{
	int r = backend_entity_lookup(b, fmri, e);

	if (r < 0)
		return r;
	if (instance != (e->parent != 0))
		return backend_fail(b, -SCF_ERROR_TYPE_MISMATCH, "%s is %s", e->fmri,
		        instance ? "a service, not an instance" : "an instance, not a service");
	return 0;
}

/* A new instance: remembered for InstanceAdded, its eager restarter pg recorded as created. */
static int instance_created(batch_t *x, const char *canon, const scf_pg_t *rpg)
{
	pg_record_t *rec;

	if (strv_extend_counted(&x->recs->added, &x->recs->n_added, canon) < 0)
		return backend_oom(x->b);
	return rpg ? record_touch(x->b, x->recs, canon, rpg->name, NULL, &rec) : 0;
}

static int step_entity_ensure(batch_t *x, bool instance)
{
	_cleanup_(entity_clear) entity_t e = {};
	_cleanup_free_ char *canon = NULL;
	_cleanup_backend_pg_ scf_pg_t *rpg = NULL;
	int r = lookup_kind(x->b, x->step->fmri, instance, &e);

	if (r != -SCF_ERROR_NOT_FOUND)
		return r;
	/* An instance's missing service is NOT_FOUND too; add_instance tells which. */
	backend_clear_error(x->b);
	if (!instance)
		return backend_add_service(x->b, x->step->fmri);
	r = backend_create_instance(x->b, x->step->fmri, &canon, &rpg);
	return r < 0 ? r : instance_created(x, canon, rpg);
}

/* Finds the pg a step names; 1 found (*loc filled), 0 not. */
static int find_pg(batch_t *x, entity_t *e, pg_loc_t *loc)
{
	int r = backend_check_name(x->b, x->step->pg, "property group");

	if (r >= 0)
		r = backend_entity_lookup(x->b, x->step->fmri, e);
	if (r < 0)
		return r;
	return backend_pg_find(x->b, e->id, x->step->pg, loc);
}

static int step_pg_ensure(batch_t *x)
{
	const backend_step_t *s = x->step;
	_cleanup_(entity_clear) entity_t e = {};
	_cleanup_(pg_loc_clear) pg_loc_t loc = {};
	pg_record_t *rec;
	int r;

	r = backend_check_name(x->b, s->type, "property group type");
	if (r >= 0)
		r = find_pg(x, &e, &loc);
	if (r < 0)
		return r;
	if (r > 0 && (!streq(loc.type, s->type) || loc.flags != s->flags))
		return backend_fail(x->b, -SCF_ERROR_EXISTS,
		        "%s: property group \"%s\" already exists with type \"%s\" and flags %#x "
		        "(not \"%s\", %#x)",
		        e.fmri, s->pg, loc.type, loc.flags, s->type, s->flags);
	r = record_touch(x->b, x->recs, e.fmri, s->pg, r > 0 ? &loc : NULL, &rec);
	if (r < 0 || loc.type)
		return r;
	return backend_add_pg(x->b, e.fmri, s->pg, s->type, s->flags, NULL);
}

static int step_props(batch_t *x)
{
	const backend_step_t *s = x->step;
	_cleanup_(entity_clear) entity_t e = {};
	_cleanup_(pg_loc_clear) pg_loc_t loc = {};
	_cleanup_free_ char *where = NULL;
	bool changed = false;
	pg_record_t *rec;
	int r;

	r = find_pg(x, &e, &loc);
	if (r == 0)
		r = backend_fail(
		        x->b, -SCF_ERROR_NOT_FOUND, "%s: no property group \"%s\"", e.fmri, s->pg);
	if (r >= 0)
		r = record_touch(x->b, x->recs, e.fmri, s->pg, &loc, &rec);
	if (r < 0 || s->n_cmds == 0)
		return r;
	if (asprintf(&where, "%s/:properties/%s", e.fmri, s->pg) < 0)
		return backend_oom(x->b);
	for (size_t i = 0; r >= 0 && i < s->n_cmds; i++) {
		r = backend_cmd_apply(x->b, &loc, where, &x->cmds[i]);
		changed = changed || r > 0;
	}
	if (r >= 0 && changed && cmds_may_grow(x->cmds, s->n_cmds))
		r = record_grew(x, rec);
	if (r < 0 || !changed || !record_is_orig(rec) || rec->changed)
		return r < 0 ? r : 0;
	/* The original's one new generation, now, so later snapshots in the batch record it. */
	rec->changed = true;
	return backend_pg_set_generation(x->b, &loc, rec->orig_gen + 1);
}

static int step_pg_delete(batch_t *x)
{
	_cleanup_(entity_clear) entity_t e = {};
	_cleanup_(pg_loc_clear) pg_loc_t loc = {};
	pg_record_t *rec;
	int r;

	r = find_pg(x, &e, &loc);
	if (r == -SCF_ERROR_NOT_FOUND) { /* no entity, so no pg: nothing to delete */
		backend_clear_error(x->b);
		return 0;
	}
	if (r <= 0)
		return r;
	r = record_touch(x->b, x->recs, e.fmri, x->step->pg, &loc, &rec);
	if (r < 0)
		return r;
	record_deleted(rec);
	return backend_delete_pg(x->b, e.fmri, x->step->pg, NULL);
}

static int step_entity_delete(batch_t *x)
{
	scf_pg_t *pgs = NULL;
	size_t n = 0;
	int r;

	r = backend_delete_entity(x->b, x->step->fmri, &pgs, &n);
	if (r == -SCF_ERROR_NOT_FOUND) {
		backend_clear_error(x->b);
		return 0;
	}
	for (size_t i = 0; r >= 0 && i < n; i++) {
		pg_loc_t loc = {
		        .type = pgs[i].type, .flags = pgs[i].flags, .gen = pgs[i].generation};
		pg_record_t *rec;

		r = record_touch(x->b, x->recs, pgs[i].entity, pgs[i].name, &loc, &rec);
		if (r >= 0)
			record_deleted(rec);
	}
	backend_pgs_free(pgs, n);
	return r;
}

static int apply_step(batch_t *x)
{
	/* prepare_steps() refused an op code out of range before anything ran. */
	assert(x->step->op < _SMF_STEP_MAX);
	switch ((smf_step_op_t)x->step->op) {
	case SMF_STEP_SERVICE_ENSURE:
		return step_entity_ensure(x, false);
	case SMF_STEP_INSTANCE_ENSURE:
		return step_entity_ensure(x, true);
	case SMF_STEP_PG_ENSURE:
		return step_pg_ensure(x);
	case SMF_STEP_PROPS:
		return step_props(x);
	case SMF_STEP_PG_DELETE:
		return step_pg_delete(x);
	case SMF_STEP_ENTITY_DELETE:
		return step_entity_delete(x);
	case SMF_STEP_SNAPSHOT_TAKE:
		return backend_take_snapshot(x->b, x->step->fmri, x->step->name);
	case SMF_STEP_REFRESH:
		return backend_refresh(x->b, x->step->fmri);
	case _SMF_STEP_MAX:
		break;
	}
	return backend_fail(x->b, -SCF_ERROR_INVALID_ARGUMENT, "unknown step %u", x->step->op);
}

/* Prefixes the message with the step: "step 3 (svc:/a:b/:properties/pg): ...". */
static int step_fail(backend_t *b, int r, size_t i, const backend_step_t *s)
{
	_cleanup_free_ char *msg = strdup(backend_errmsg(b));
	bool pg = s->op == SMF_STEP_PG_ENSURE || s->op == SMF_STEP_PROPS ||
	        s->op == SMF_STEP_PG_DELETE;

	if (pg)
		return backend_fail(b, r, "step %zu (%s/:properties/%s): %s", i + 1,
		        strempty(s->fmri), strempty(s->pg), strna(msg));
	if (s->op == SMF_STEP_SNAPSHOT_TAKE)
		return backend_fail(b, r, "step %zu (%s snapshot %s): %s", i + 1, strempty(s->fmri),
		        strempty(s->name), strna(msg));
	return backend_fail(b, r, "step %zu (%s): %s", i + 1, strempty(s->fmri), strna(msg));
}

void backend_pg_events_free(backend_pg_event_t *events, size_t n)
{
	for (size_t i = 0; events && i < n; i++) {
		free(events[i].pg.entity);
		free(events[i].pg.name);
		free(events[i].pg.type);
	}
	free(events);
}

typedef struct events {
	backend_pg_event_t *ev;
	size_t n, cap;
} events_t;

static int event_add(backend_t *b, events_t *e, bool deleted, bool created, const pg_record_t *r,
        const char *type, uint32_t flags, uint64_t gen)
{
	backend_pg_event_t *v;

	if (GREEDY_REALLOC(e->ev, e->cap, e->n + 1) < 0)
		return backend_oom(b);
	v = &e->ev[e->n];
	*v = (backend_pg_event_t){
	        .deleted = deleted,
	        .created = created,
	        .pg = {.entity = strdup(r->fmri),
	                .name = strdup(r->name),
	                .type = strdup(type),
	                .flags = flags,
	                .generation = gen},
	};
	e->n++;
	if (!v->pg.entity || !v->pg.name || !v->pg.type)
		return backend_oom(b);
	return 0;
}

/* Inside the transaction: compares each record with what exists now. */
static int collect_events(backend_t *b, const records_t *t, events_t *out)
{
	int r = 0;

	for (size_t i = 0; r >= 0 && i < t->n; i++) {
		const pg_record_t *rec = t->recs[i];
		_cleanup_(entity_clear) entity_t e = {};
		_cleanup_(pg_loc_clear) pg_loc_t cur = {};
		int exists;

		exists = backend_entity_lookup(b, rec->fmri, &e);
		if (exists == -SCF_ERROR_NOT_FOUND) {
			backend_clear_error(b);
			exists = 0;
		} else if (exists >= 0)
			exists = backend_pg_find(b, e.id, rec->name, &cur);
		if (exists < 0)
			return exists;
		if (exists && record_is_orig(rec)) {
			/* One new generation per changed original, never a step back. */
			assert(!rec->changed || cur.gen == rec->orig_gen + 1);
			if (rec->changed)
				r = event_add(
				        b, out, false, false, rec, cur.type, cur.flags, cur.gen);
			continue;
		}
		if (rec->had_orig)
			r = event_add(b, out, true, false, rec, rec->orig_type, rec->orig_flags,
			        rec->orig_gen);
		/* Not the original: the batch created it (again). */
		if (r >= 0 && exists)
			r = event_add(b, out, false, true, rec, cur.type, cur.flags, cur.gen);
	}
	return r;
}

/* Checks every PROPS step's commands before anything is written. */
static int prepare_steps(backend_t *b, const backend_step_t *steps, size_t n, prepared_cmd_t **cmds)
{
	for (size_t i = 0; i < n; i++) {
		const backend_step_t *s = &steps[i];
		_cleanup_free_ char *where = NULL;
		int r;

		if (s->op >= _SMF_STEP_MAX) {
			r = backend_fail(b, -SCF_ERROR_INVALID_ARGUMENT, "unknown step %u", s->op);
			return step_fail(b, r, i, s);
		}
		if (s->op != SMF_STEP_PROPS)
			continue;
		if (asprintf(&where, "%s/:properties/%s", strempty(s->fmri), strempty(s->pg)) < 0)
			return backend_oom(b);
		r = backend_cmds_prepare(b, where, s->cmds, s->n_cmds, _SMF_CMD_MAX - 1, &cmds[i]);
		if (r < 0)
			return step_fail(b, r, i, s);
	}
	return 0;
}

static int run_steps(backend_t *b, records_t *t, const backend_step_t *steps, size_t n,
        prepared_cmd_t *const *cmds, events_t *out)
{
	batch_t x = {.b = b, .recs = t};
	size_t bad = 0;
	int r;

	for (size_t i = 0; i < n; i++) {
		bool copies =
		        steps[i].op == SMF_STEP_SNAPSHOT_TAKE || steps[i].op == SMF_STEP_REFRESH;

		/* A snapshot must not capture a pg over the bound, even one a later step shrinks. */
		if (copies && (r = measure_grown(b, t, &bad)) < 0)
			return step_fail(b, r, bad, &steps[bad]);
		x.step = &steps[i];
		x.i = i;
		x.cmds = cmds[i];
		r = apply_step(&x);
		if (r < 0)
			return step_fail(b, r, i, &steps[i]);
	}
	r = measure_grown(b, t, &bad);
	if (r < 0)
		return step_fail(b, r, bad, &steps[bad]);
	return collect_events(b, t, out);
}

/* The instances created that exist at the end, in creation order, into *ret (strv). */
static int collect_added(backend_t *b, const records_t *t, char ***ret)
{
	_cleanup_strv_free_ char **l = strv_new_empty();
	_cleanup_(hashmap_freep) hashmap_t *seen = hashmap_new();
	size_t n = 0;

	if (!l || !seen)
		return backend_oom(b);
	for (size_t i = 0; i < t->n_added; i++) {
		int r;

		/* A set, not a scan of l: an import of 10,000 instances adds 10,000. */
		if (hashmap_get(seen, t->added[i]))
			continue;
		r = backend_entity_exists(b, t->added[i]);
		if (r < 0)
			return r;
		if (r > 0 &&
		        (hashmap_put(seen, t->added[i], (void *)1) < 0 ||
		                strv_extend_counted(&l, &n, t->added[i]) < 0))
			return backend_oom(b);
	}
	*ret = TAKE_PTR(l);
	return 0;
}

int backend_batch(backend_t *b, const backend_step_t *steps, size_t n, backend_pg_event_t **ret,
        size_t *ret_n)
{
	return backend_batch_added(b, steps, n, ret, ret_n, NULL);
}

int backend_batch_added(backend_t *b, const backend_step_t *steps, size_t n,
        backend_pg_event_t **ret, size_t *ret_n, char ***ret_added)
{
	_cleanup_(records_clear) records_t t = {};
	_cleanup_strv_free_ char **added = NULL;
	events_t out = {};
	prepared_cmd_t **cmds = calloc(n + 1, sizeof(*cmds));
	int r;

	if (!cmds)
		return backend_oom(b);
	r = prepare_steps(b, steps, n, cmds);
	if (r >= 0 && n > 0) {
		r = backend_tx_begin(b);
		if (r >= 0) {
			r = run_steps(b, &t, steps, n, cmds, &out);
			if (r >= 0 && ret_added)
				r = collect_added(b, &t, &added);
			if (r >= 0)
				r = backend_tx_commit(b);
			else
				backend_tx_rollback(b);
		}
	}
	for (size_t i = 0; i < n; i++)
		backend_cmds_free(cmds[i], steps[i].n_cmds);
	free(cmds);
	if (r < 0) {
		backend_pg_events_free(out.ev, out.n);
		return r;
	}
	if (ret_added && !added && !(added = strv_new_empty())) {
		backend_pg_events_free(out.ev, out.n);
		return backend_oom(b);
	}
	*ret = out.ev;
	*ret_n = out.n;
	if (ret_added)
		*ret_added = TAKE_PTR(added);
	return (int)n;
}
