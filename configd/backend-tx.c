/*
 * backend-tx.c: committing a transaction to one pg.
 *
 * The rules (illumos' transaction semantics):
 * - every command is checked (op, name, type, each value, limits) before the database is
 *   touched, and values are stored in their canonical form;
 * - the generation named by the caller must be the pg's current one, else NOT_LATEST and
 *   nothing changes; a pg (or entity) that is gone answers DELETED;
 * - an empty command list changes nothing, not even the generation;
 * - commands apply in order: NEW on an existing property answers EXISTS, REPLACE or DELETE on
 *   a missing one NOT_FOUND; properties not named keep their rows, which is how they are
 *   "carried over" to the new generation;
 * - a pg may not grow past BACKEND_MAX_PG_BYTES (CONSTRAINT_VIOLATED), so every pg can be read
 *   back, composed with its service's, in one D-Bus reply;
 * - all of it, plus generation + 1, is one SQLite transaction; any failure rolls it back.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "backend-internal.h"
#include "macro.h"
#include "model.h"
#include "strv.h"

void backend_cmds_free(prepared_cmd_t *p, size_t n)
{
	for (size_t i = 0; p && i < n; i++)
		free(p[i].blob);
	free(p);
}

static int prepare_values(
        backend_t *b, const char *where, const backend_cmd_t *c, scf_type_t t, prepared_cmd_t *out)
{
	_cleanup_strv_free_ char **canon = NULL;
	char why[80];
	int r;

	if (c->n_values > SCF_LIMIT_MAX_VALUES)
		return backend_fail(b, -SCF_ERROR_CONSTRAINT_VIOLATED,
		        "%s/%s: %zu values are more than %d", where, c->prop, c->n_values,
		        SCF_LIMIT_MAX_VALUES);
	canon = calloc(c->n_values + 1, sizeof(char *));
	if (!canon)
		return backend_oom(b);
	for (size_t i = 0; i < c->n_values; i++) {
		const char *v = c->values[i] ? c->values[i] : "";

		r = scf_value_normalize(t, v, &canon[i]);
		if (r == -SCF_ERROR_CONSTRAINT_VIOLATED)
			return backend_fail(b, r, "%s/%s: a value of %zu bytes is longer than %d",
			        where, c->prop, strlen(v), SCF_LIMIT_MAX_VALUE_LENGTH);
		if (r < 0 && smf_value_forbidden_why(v, why, sizeof(why)))
			return backend_fail(b, r, "%s/%s: \"%s\" is not a valid %s: %s", where,
			        c->prop, v, scf_type_to_string(t), why);
		if (r < 0)
			return backend_fail(b, r, "%s/%s: \"%s\" is not a valid %s", where, c->prop,
			        v, scf_type_to_string(t));
		if (!canon[i]) /* the model may skip the copy when only checking */
			canon[i] = strdup(v);
		if (!canon[i])
			return backend_oom(b);
	}
	if (values_encode((const char *const *)canon, c->n_values, &out->blob, &out->len) < 0)
		return backend_oom(b);
	return 0;
}

static int prepare_one(backend_t *b, const char *where, const backend_cmd_t *c, uint32_t max_op,
        prepared_cmd_t *out)
{
	scf_type_t t;
	int r;

	assert(max_op < _SMF_CMD_MAX);
	if (c->op > max_op)
		return backend_fail(
		        b, -SCF_ERROR_INVALID_ARGUMENT, "%s: unknown command %u", where, c->op);
	out->op = (smf_cmd_op_t)c->op;
	out->prop = c->prop;
	r = scf_name_validate(c->prop ? c->prop : "");
	if (r < 0)
		return backend_fail(b, r, "%s: \"%s\" is not a valid property name%s", where,
		        strempty(c->prop),
		        r == -SCF_ERROR_CONSTRAINT_VIOLATED ? " (too long)" : "");
	if (c->op == SMF_CMD_DELETE || c->op == SMF_CMD_REMOVE)
		return 0;
	t = scf_string_to_type(c->type ? c->type : "");
	if (t == SCF_TYPE_INVALID)
		return backend_fail(b, -SCF_ERROR_INVALID_ARGUMENT,
		        "%s/%s: \"%s\" is not a value type", where, c->prop, strempty(c->type));
	out->type = scf_type_to_string(t);
	return prepare_values(b, where, c, t, out);
}

int backend_cmds_prepare(backend_t *b, const char *where, const backend_cmd_t *cmds, size_t n,
        uint32_t max_op, prepared_cmd_t **ret)
{
	prepared_cmd_t *p = calloc(n + 1, sizeof(*p));
	int r = 0;

	if (!p)
		return backend_oom(b);
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = prepare_one(b, where, &cmds[i], max_op, &p[i]);
	if (r < 0) {
		backend_cmds_free(p, n);
		return r;
	}
	*ret = p;
	return 0;
}

static int prepare_all(backend_t *b, const char *entity, const char *pg, const backend_cmd_t *cmds,
        size_t n, prepared_cmd_t **ret)
{
	_cleanup_free_ char *where = NULL;

	if (asprintf(&where, "%s/:properties/%s", strempty(entity), strempty(pg)) < 0)
		return backend_oom(b);
	return backend_cmds_prepare(b, where, cmds, n, SMF_CMD_COMMIT_MAX, ret);
}

int backend_cmd_apply(backend_t *b, const pg_loc_t *loc, const char *where, const prepared_cmd_t *c)
{
	static const stmt_id_t ids[_SMF_CMD_MAX] = {
	        [SMF_CMD_NEW] = STMT_PROP_INSERT,
	        [SMF_CMD_REPLACE] = STMT_PROP_UPDATE,
	        [SMF_CMD_DELETE] = STMT_PROP_DELETE,
	        [SMF_CMD_SET] = STMT_PROP_UPSERT,
	        [SMF_CMD_REMOVE] = STMT_PROP_DELETE,
	};
	_cleanup_stmt_ sqlite3_stmt *s = NULL;
	bool del = c->op == SMF_CMD_DELETE || c->op == SMF_CMD_REMOVE;
	int r;

	/* backend_cmds_prepare() checked the op code read off the wire. */
	assert(c->op < _SMF_CMD_MAX);
	s = backend_stmt(b, ids[c->op], loc->where);

	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, loc->id);
	sqlite3_bind_text(s, 2, c->prop, -1, SQLITE_STATIC);
	if (!del) {
		sqlite3_bind_text(s, 3, c->type, -1, SQLITE_STATIC);
		sqlite3_bind_blob(s, 4, c->blob, (int)c->len, SQLITE_STATIC);
	}
	r = backend_step_done(b, s, "writing a property");
	if (r < 0)
		return r;
	/* SET and REMOVE have no precondition (a REMOVE of nothing changes nothing). */
	if (c->op == SMF_CMD_SET || c->op == SMF_CMD_REMOVE)
		return sqlite3_changes(b->db) > 0;
	/* INSERT OR IGNORE, UPDATE and DELETE all touch no row exactly when the rule is broken. */
	if (sqlite3_changes(b->db) > 0)
		return 1;
	if (c->op == SMF_CMD_NEW)
		return backend_fail(b, -SCF_ERROR_EXISTS, "%s/%s already exists", where, c->prop);
	return backend_fail(b, -SCF_ERROR_NOT_FOUND, "%s/%s does not exist", where, c->prop);
}

int backend_pg_set_generation(backend_t *b, const pg_loc_t *loc, uint64_t gen)
{
	_cleanup_stmt_ sqlite3_stmt *s = NULL;

	/* A generation only grows: a reader holding the old one must see "not latest". */
	assert(gen > loc->gen);
	assert(b->tx_depth > 0);
	s = backend_stmt(b, STMT_PG_SET_GEN, loc->where);
	if (!s)
		return -SCF_ERROR_BACKEND_ACCESS;
	sqlite3_bind_int64(s, 1, loc->id);
	sqlite3_bind_int64(s, 2, (sqlite3_int64)gen);
	return backend_step_done(b, s, "updating the generation");
}

bool cmds_may_grow(const prepared_cmd_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i].op != SMF_CMD_DELETE && p[i].op != SMF_CMD_REMOVE)
			return true;
	return false;
}

static int apply_all(
        backend_t *b, const pg_loc_t *loc, const char *where, const prepared_cmd_t *p, size_t n)
{
	int r = backend_tx_begin(b);

	if (r < 0)
		return r;
	for (size_t i = 0; r >= 0 && i < n; i++)
		r = backend_cmd_apply(b, loc, where, &p[i]);
	if (r >= 0 && cmds_may_grow(p, n))
		r = backend_pg_check_size(b, loc, where);
	if (r >= 0)
		r = backend_pg_set_generation(b, loc, loc->gen + 1);
	if (r >= 0)
		return backend_tx_commit(b);
	backend_tx_rollback(b);
	return r;
}

/* Finds the pg a commit names; DELETED when it or its entity is gone. */
static int commit_target(
        backend_t *b, const char *entity, const char *pg, entity_t *e, pg_loc_t *loc)
{
	int r = backend_entity_lookup(b, entity, e);

	if (r == -SCF_ERROR_NOT_FOUND)
		return backend_fail(b, -SCF_ERROR_DELETED, "%s no longer exists", strempty(entity));
	if (r < 0)
		return r;
	r = backend_pg_find(b, e->id, pg, loc);
	if (r < 0)
		return r;
	if (r == 0)
		return backend_fail(b, -SCF_ERROR_DELETED,
		        "%s: property group \"%s\" no longer exists", e->fmri, pg);
	return 0;
}

int backend_commit(backend_t *b, const char *entity, const char *pg, uint64_t generation,
        const backend_cmd_t *cmds, size_t n_cmds, scf_pg_t **ret)
{
	_cleanup_(entity_clear) entity_t e = {};
	_cleanup_(pg_loc_clear) pg_loc_t loc = {};
	_cleanup_free_ char *where = NULL;
	prepared_cmd_t *p = NULL;
	int r;

	r = scf_name_validate(pg ? pg : "");
	if (r < 0)
		return backend_fail(
		        b, r, "\"%s\" is not a valid property group name", strempty(pg));
	r = prepare_all(b, entity, pg, cmds, n_cmds, &p);
	if (r < 0)
		return r;
	r = commit_target(b, entity, pg, &e, &loc);
	if (r >= 0 && loc.gen != generation) {
		backend_explain(b, "%s/:properties/%s: generation %llu is not the latest (%llu)",
		        e.fmri, pg, (unsigned long long)generation, (unsigned long long)loc.gen);
		backend_cmds_free(p, n_cmds);
		return BACKEND_NOT_LATEST;
	}
	if (r >= 0 && n_cmds > 0) {
		if (asprintf(&where, "%s/:properties/%s", e.fmri, pg) < 0)
			r = backend_oom(b);
		else
			r = apply_all(b, &loc, where, p, n_cmds);
		if (r >= 0)
			loc.gen++;
		assert(r < 0 || loc.gen == generation + 1);
	}
	backend_cmds_free(p, n_cmds);
	if (r < 0)
		return r;
	if (ret) {
		int k = backend_pg_new(b, e.fmri, pg, &loc, ret);
		if (k < 0)
			return k;
	}
	return n_cmds > 0 ? BACKEND_COMMITTED : BACKEND_UNCHANGED;
}
