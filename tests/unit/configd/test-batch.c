/*
 * test-batch: backend_batch() alone (SQLite, no D-Bus).
 *
 * All or nothing (the whole database compared row by row before and after a failing batch),
 * one generation and one event per pg in first-touch order, ensure semantics, deletes of what
 * is missing, and snapshots/refresh inside a batch seeing the batch's earlier steps.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "backend-internal.h"
#include "macro.h"
#include "paths.h"
#include "pg-values.h"
#include "strv.h"
#include "test-root.h"

typedef struct Fixture {
	char root[64];
	backend_t *b;
	backend_pg_event_t *ev;
	size_t n_ev;
} Fixture;

#define INST "svc:/network/ssh:default"
#define SVC "svc:/network/ssh"
#define NEWSVC "svc:/site/new"
#define NEWINST "svc:/site/new:default"

#define S_SVC(f)                                                                                   \
	{                                                                                          \
		.op = SMF_STEP_SERVICE_ENSURE, .fmri = (f)                                         \
	}
#define S_INST(f)                                                                                  \
	{                                                                                          \
		.op = SMF_STEP_INSTANCE_ENSURE, .fmri = (f)                                        \
	}
#define S_PG(f, p, t, fl)                                                                          \
	{                                                                                          \
		.op = SMF_STEP_PG_ENSURE, .fmri = (f), .pg = (p), .type = (t), .flags = (fl)       \
	}
#define S_PROPS(f, p, c)                                                                           \
	{                                                                                          \
		.op = SMF_STEP_PROPS, .fmri = (f), .pg = (p), .cmds = (c), .n_cmds = ELEMENTSOF(c) \
	}
#define S_PGDEL(f, p)                                                                              \
	{                                                                                          \
		.op = SMF_STEP_PG_DELETE, .fmri = (f), .pg = (p)                                   \
	}
#define S_DEL(f)                                                                                   \
	{                                                                                          \
		.op = SMF_STEP_ENTITY_DELETE, .fmri = (f)                                          \
	}
#define S_SNAP(f, n)                                                                               \
	{                                                                                          \
		.op = SMF_STEP_SNAPSHOT_TAKE, .fmri = (f), .name = (n)                             \
	}
#define S_REFRESH(f)                                                                               \
	{                                                                                          \
		.op = SMF_STEP_REFRESH, .fmri = (f)                                                \
	}

static const char *const V1[] = {"1"}, *const V2[] = {"2"}, *const V007[] = {"007"};
static const char *const VYES[] = {"yes"};

static const backend_cmd_t SET_X1[] = {
        {.op = SMF_CMD_SET, .prop = "x", .type = "count", .values = V1, .n_values = 1}};
static const backend_cmd_t SET_X2[] = {
        {.op = SMF_CMD_SET, .prop = "x", .type = "count", .values = V2, .n_values = 1}};
static const backend_cmd_t SET_Y007[] = {
        {.op = SMF_CMD_SET, .prop = "y", .type = "count", .values = V007, .n_values = 1}};
static const backend_cmd_t SET_BAD[] = {
        {.op = SMF_CMD_SET, .prop = "enabled", .type = "boolean", .values = VYES, .n_values = 1}};
static const backend_cmd_t REMOVE_X[] = {{.op = SMF_CMD_REMOVE, .prop = "x"}};
static const backend_cmd_t NEW_X1[] = {
        {.op = SMF_CMD_NEW, .prop = "x", .type = "count", .values = V1, .n_values = 1}};

static int setup(void **state)
{
	Fixture *f = calloc(1, sizeof(*f));
	_cleanup_free_ char *vol = NULL, *msg = NULL;

	assert_non_null(f);
	assert_int_equal(test_root_make(f->root, sizeof(f->root), "test-batch"), 0);
	assert_int_equal(smf_path(f->root, SMF_REL_VOLATILE_DIR, &vol), 0);
	assert_int_equal(smf_mkdir_p(vol, 0755), 0);
	assert_int_equal(backend_open(f->root, &f->b, &msg), 0);
	assert_int_equal(backend_add_service(f->b, SVC), 0);
	assert_int_equal(backend_add_instance(f->b, INST), 0);
	assert_int_equal(backend_add_pg(f->b, INST, "general", "framework", 0, NULL), 0);
	assert_int_equal(backend_add_pg(f->b, SVC, "general", "framework", 0, NULL), 0);
	assert_int_equal(backend_add_pg(f->b, INST, "restarter", "framework",
	                         SCF_PG_FLAG_NONPERSISTENT, NULL),
	        0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	Fixture *f = *state;

	backend_pg_events_free(f->ev, f->n_ev);
	backend_close(f->b);
	test_root_remove(f->root);
	free(f);
	return 0;
}

static int run(Fixture *f, const backend_step_t *steps, size_t n)
{
	backend_pg_events_free(f->ev, f->n_ev);
	f->ev = NULL;
	f->n_ev = 0;
	return backend_batch(f->b, steps, n, &f->ev, &f->n_ev);
}

#define RUN(f, steps) run(f, steps, ELEMENTSOF(steps))

/* Appends every row of one table, in a stable order, to *out. */
static void dump_table(sqlite3 *db, const char *sql, char **out)
{
	sqlite3_stmt *s = NULL;

	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &s, NULL), SQLITE_OK);
	while (sqlite3_step(s) == SQLITE_ROW) {
		for (int i = 0; i < sqlite3_column_count(s); i++) {
			const unsigned char *t = sqlite3_column_text(s, i);
			size_t len = (size_t)sqlite3_column_bytes(s, i), old = strlen(*out);

			*out = realloc(*out, old + len + 2);
			assert_non_null(*out);
			memcpy(*out + old, t ? (const char *)t : "", len);
			(*out)[old + len] = i + 1 < sqlite3_column_count(s) ? '|' : '\n';
			(*out)[old + len + 1] = 0;
		}
	}
	sqlite3_finalize(s);
}

/* The whole repository, both databases, as text. */
static char *dump(backend_t *b)
{
	static const char *const tables[] = {
	        "SELECT * FROM main.entities ORDER BY id",
	        "SELECT * FROM main.pgs ORDER BY id",
	        "SELECT * FROM main.props ORDER BY pg, name",
	        "SELECT * FROM main.snapshots ORDER BY id",
	        "SELECT * FROM main.snap_levels ORDER BY id",
	        "SELECT * FROM main.snap_links ORDER BY snap, level",
	        "SELECT * FROM main.snap_pgs ORDER BY id",
	        "SELECT * FROM main.snap_props ORDER BY snap_pg, name",
	        "SELECT * FROM np.pgs ORDER BY id",
	        "SELECT * FROM np.props ORDER BY pg, name",
	};
	char *out = strdup("");

	assert_non_null(out);
	for (size_t i = 0; i < ELEMENTSOF(tables); i++)
		dump_table(b->db, tables[i], &out);
	return out;
}

static uint64_t generation(backend_t *b, const char *ent, const char *pg, const char *snap)
{
	_cleanup_backend_pg_ scf_pg_t *p = NULL;

	assert_int_equal(backend_get_pg(b, ent, pg, snap, false, &p), 0);
	return p->generation;
}

static char *show(backend_t *b, const char *ent, const char *pg, const char *snap, const char *prop)
{
	return pg_values(b, ent, pg, snap, false, prop);
}

static void assert_event(
        const Fixture *f, size_t i, bool deleted, const char *ent, const char *pg, uint64_t gen)
{
	assert_true(i < f->n_ev);
	assert_int_equal(f->ev[i].deleted, deleted);
	assert_string_equal(f->ev[i].pg.entity, ent);
	assert_string_equal(f->ev[i].pg.name, pg);
	if (!deleted)
		assert_int_equal(f->ev[i].pg.generation, gen);
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static void test_all_or_nothing(void **state)
{
	Fixture *f = *state;
	_cleanup_free_ char *before = NULL, *after = NULL, *after2 = NULL;
	/* Every kind of step first, then a step that fails while applying. */
	const backend_step_t runtime_fail[] = {
	        S_SVC(NEWSVC), S_INST(NEWINST), S_PG(NEWINST, "start", "method", 0),
	        S_PROPS(NEWINST, "start", SET_X1), S_PROPS(INST, "general", SET_X1),
	        S_PG(INST, "restarter", "framework", SCF_PG_FLAG_NONPERSISTENT),
	        S_PROPS(INST, "restarter", SET_X1), S_SNAP(INST, "initial"), S_REFRESH(NEWINST),
	        S_PGDEL(SVC, "general"), S_DEL("svc:/network/ssh:other"),
	        S_PROPS(INST, "general", NEW_X1), /* step 12: x exists by now */
	};
	const backend_step_t value_fail[] = {
	        S_SVC(NEWSVC),
	        S_DEL(INST),
	        S_PROPS(SVC, "general", SET_BAD),
	};

	assert_int_equal(backend_add_instance(f->b, "svc:/network/ssh:other"), 0);
	before = dump(f->b);

	assert_int_equal(RUN(f, runtime_fail), -SCF_ERROR_EXISTS);
	assert_true(has_prefix(backend_errmsg(f->b), "step 12 (" INST "/:properties/general): "));
	assert_non_null(strstr(backend_errmsg(f->b), "already exists"));
	after = dump(f->b);
	assert_string_equal(before, after);
	assert_int_equal(backend_entity_exists(f->b, NEWSVC), 0);
	assert_int_equal(backend_entity_exists(f->b, "svc:/network/ssh:other"), 1);
	assert_string_equal(show(f->b, INST, "restarter", NULL, "x"), "<none>");

	assert_int_equal(RUN(f, value_fail), -SCF_ERROR_INVALID_ARGUMENT);
	assert_true(has_prefix(backend_errmsg(f->b), "step 3 (" SVC "/:properties/general): "));
	assert_non_null(strstr(backend_errmsg(f->b), "\"yes\" is not a valid boolean"));
	after2 = dump(f->b);
	assert_string_equal(before, after2);

	/* The backend still works normally afterwards (no transaction left open). */
	assert_int_equal(backend_add_service(f->b, NEWSVC), 0);
	assert_int_equal(backend_entity_exists(f->b, NEWSVC), 1);
}

static void test_one_generation_per_pg(void **state)
{
	Fixture *f = *state;
	const backend_step_t steps[] = {
	        S_PROPS(INST, "general", SET_X1),
	        S_SVC(NEWSVC),
	        S_PG(NEWSVC, "config", "application", 0),
	        S_PROPS(NEWSVC, "config", SET_X1),
	        S_PROPS(INST, "general", SET_Y007),
	        S_PROPS(NEWSVC, "config", SET_X2),
	        S_PROPS(INST, "general", SET_X2),
	        S_PROPS(INST, "general", REMOVE_X),
	        S_PROPS(INST, "restarter", SET_X1),
	};

	assert_int_equal(generation(f->b, INST, "general", NULL), 1);
	assert_int_equal(RUN(f, steps), (int)ELEMENTSOF(steps));
	/* An existing pg: one new generation; a created one stays at 1. */
	assert_int_equal(generation(f->b, INST, "general", NULL), 2);
	assert_int_equal(generation(f->b, NEWSVC, "config", NULL), 1);
	assert_int_equal(generation(f->b, INST, "restarter", NULL), 2);
	assert_string_equal(show(f->b, INST, "general", NULL, "x"), "<none>");
	assert_string_equal(show(f->b, INST, "general", NULL, "y"), "7");
	assert_string_equal(show(f->b, NEWSVC, "config", NULL, "x"), "2");
	/* One event per pg, in first-touch order. */
	assert_int_equal(f->n_ev, 3);
	assert_event(f, 0, false, INST, "general", 2);
	assert_event(f, 1, false, NEWSVC, "config", 1);
	assert_event(f, 2, false, INST, "restarter", 2);
	assert_int_equal(f->ev[2].pg.flags, SCF_PG_FLAG_NONPERSISTENT);

	/* A second batch: again one step more. */
	assert_int_equal(RUN(f, steps), (int)ELEMENTSOF(steps));
	assert_int_equal(generation(f->b, INST, "general", NULL), 3);
	assert_int_equal(generation(f->b, NEWSVC, "config", NULL), 2);
	assert_event(f, 1, false, NEWSVC, "config", 2);

	/* An empty batch and an empty command list change nothing. */
	assert_int_equal(run(f, NULL, 0), 0);
	assert_int_equal(f->n_ev, 0);
	{
		const backend_step_t empty[] = {
		        {.op = SMF_STEP_PROPS, .fmri = INST, .pg = "general"},
		        S_PG(INST, "general", "framework", 0),
		};
		assert_int_equal(RUN(f, empty), 2);
		assert_int_equal(f->n_ev, 0);
		assert_int_equal(generation(f->b, INST, "general", NULL), 3);
	}
}

static void test_ensure(void **state)
{
	Fixture *f = *state;
	const backend_step_t again[] = {
	        S_SVC(SVC), S_INST(INST), S_PG(INST, "general", "framework", 0),
	        S_SVC("network/ssh"), /* any accepted form */
	};
	const backend_step_t svc_is_inst[] = {S_SVC(INST)};
	const backend_step_t inst_is_svc[] = {S_INST(SVC)};
	const backend_step_t no_service[] = {S_INST("svc:/nope:default")};
	const backend_step_t other_type[] = {S_PG(INST, "general", "application", 0)};
	const backend_step_t other_flags[] = {
	        S_PG(INST, "general", "framework", SCF_PG_FLAG_NONPERSISTENT)};
	const backend_step_t bad_name[] = {S_PG(INST, "bad name", "framework", 0)};
	const backend_step_t no_pg[] = {S_PROPS(INST, "nope", SET_X1)};
	const backend_step_t unknown[] = {{.op = 99, .fmri = INST}};
	const backend_cmd_t bad_op[] = {{.op = 5, .prop = "x"}};
	const backend_step_t bad_cmd[] = {S_PROPS(INST, "general", bad_op)};

	assert_int_equal(RUN(f, again), 4);
	assert_int_equal(f->n_ev, 0);
	assert_int_equal(generation(f->b, INST, "general", NULL), 1);

	assert_int_equal(RUN(f, svc_is_inst), -SCF_ERROR_TYPE_MISMATCH);
	assert_int_equal(RUN(f, inst_is_svc), -SCF_ERROR_TYPE_MISMATCH);
	assert_int_equal(RUN(f, no_service), -SCF_ERROR_NOT_FOUND);
	assert_non_null(strstr(backend_errmsg(f->b), "svc:/nope"));
	assert_int_equal(RUN(f, other_type), -SCF_ERROR_EXISTS);
	assert_true(has_prefix(backend_errmsg(f->b), "step 1 (" INST "/:properties/general): "));
	assert_non_null(strstr(backend_errmsg(f->b), "\"framework\""));
	assert_int_equal(RUN(f, other_flags), -SCF_ERROR_EXISTS);
	assert_int_equal(RUN(f, bad_name), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(RUN(f, no_pg), -SCF_ERROR_NOT_FOUND);
	assert_int_equal(RUN(f, unknown), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(RUN(f, bad_cmd), -SCF_ERROR_INVALID_ARGUMENT);
	/* Commit itself still refuses the batch-only ops. */
	assert_int_equal(backend_commit(f->b, INST, "general", 1, SET_X1, 1, NULL),
	        -SCF_ERROR_INVALID_ARGUMENT);
}

static void test_snapshot_and_refresh_see_earlier_steps(void **state)
{
	Fixture *f = *state;
	_cleanup_strv_free_ char **snaps = NULL;
	const backend_step_t steps[] = {
	        S_PROPS(INST, "general", SET_X1),
	        S_SNAP(INST, "initial"),
	        S_PROPS(INST, "general", SET_X2),
	        S_REFRESH(INST),
	        S_SVC(NEWSVC),
	        S_INST(NEWINST),
	        S_PG(NEWINST, "start", "method", 0),
	        S_PROPS(NEWINST, "start", SET_X1),
	        S_SNAP(NEWINST, "last-import"),
	        S_REFRESH(NEWINST),
	};

	assert_int_equal(RUN(f, steps), (int)ELEMENTSOF(steps));
	assert_string_equal(show(f->b, INST, "general", "initial", "x"), "1");
	assert_string_equal(show(f->b, INST, "general", "running", "x"), "2");
	/* The pg's one new generation was already there when the snapshots were taken. */
	assert_int_equal(generation(f->b, INST, "general", "initial"), 2);
	assert_int_equal(generation(f->b, INST, "general", "running"), 2);
	assert_int_equal(generation(f->b, INST, "general", NULL), 2);
	assert_string_equal(show(f->b, NEWINST, "start", "running", "x"), "1");
	assert_string_equal(show(f->b, NEWINST, "start", "last-import", "x"), "1");
	assert_int_equal(backend_list_snapshots(f->b, NEWINST, &snaps), 0);
	assert_int_equal(strv_length(snaps), 2);
	/* Snapshots change no pg: two events, for the pgs written. */
	assert_int_equal(f->n_ev, 2);
	assert_event(f, 0, false, INST, "general", 2);
	assert_event(f, 1, false, NEWINST, "start", 1);
}

#define LEVELS_OF(fmri)                                                                            \
	"SELECT count(*) FROM main.snap_levels l JOIN main.entities e ON e.id = l.entity "         \
	"WHERE e.fmri = '" fmri "'"

/*
 * Snapshot levels are shared while their entity does not change (backend-snapshot.c), and only
 * then: a batch moves a pg's generation once, so the generation alone could not tell the two
 * levels of INST below apart; the entity's change counter does.
 */
static void test_snapshot_levels_shared(void **state)
{
	Fixture *f = *state;
	const backend_step_t steps[] = {
	        S_PROPS(INST, "general", SET_X1),
	        S_SNAP(INST, "initial"),
	        S_SNAP(INST, "last-import"),
	        S_PROPS(INST, "general", SET_X2),
	        S_SNAP(INST, "a"),
	        S_PROPS(INST, "restarter", SET_X1), /* non-persistent: in no snapshot */
	        S_REFRESH(INST),
	};
	const backend_step_t second[] = {
	        S_PROPS(SVC, "general", SET_Y007),
	        S_SNAP(INST, "b"),
	};

	assert_int_equal(RUN(f, steps), (int)ELEMENTSOF(steps));
	assert_string_equal(show(f->b, INST, "general", "initial", "x"), "1");
	assert_string_equal(show(f->b, INST, "general", "last-import", "x"), "1");
	assert_string_equal(show(f->b, INST, "general", "a", "x"), "2");
	assert_string_equal(show(f->b, INST, "general", "running", "x"), "2");
	/* initial = last-import, a = running; one service level for all four. */
	assert_int_equal(count_rows(f->b, LEVELS_OF(INST)), 2);
	assert_int_equal(count_rows(f->b, LEVELS_OF(SVC)), 1);
	assert_int_equal(count_rows(f->b, "SELECT count(*) FROM main.snap_links"), 8);

	/* A change of the service makes the next snapshot copy its level again. */
	assert_int_equal(RUN(f, second), (int)ELEMENTSOF(second));
	assert_int_equal(count_rows(f->b, LEVELS_OF(SVC)), 2);
	assert_int_equal(count_rows(f->b, LEVELS_OF(INST)), 2);
	assert_string_equal(pg_values(f->b, INST, "general", "b", true, "y"), "7");
	assert_string_equal(pg_values(f->b, INST, "general", "running", true, "y"), "<none>");

	/* A level goes with its last link; the instance's deletion takes every one. */
	assert_int_equal(backend_delete_snapshot(f->b, INST, "b"), 0);
	assert_int_equal(count_rows(f->b, LEVELS_OF(SVC)), 1);
	assert_int_equal(backend_delete_snapshot(f->b, INST, "initial"), 0);
	assert_int_equal(count_rows(f->b, LEVELS_OF(INST)), 2); /* last-import still links it */
	assert_int_equal(backend_delete_entity(f->b, INST, NULL, NULL), 0);
	assert_int_equal(count_rows(f->b, "SELECT count(*) FROM main.snap_levels"), 0);
	assert_int_equal(count_rows(f->b, "SELECT count(*) FROM main.snap_pgs"), 0);
	assert_int_equal(count_rows(f->b, "SELECT count(*) FROM main.snap_props"), 0);
}

/* The id backend_entity_lookup() finds for fmri, or its error. */
static int64_t entity_id(backend_t *b, const char *fmri)
{
	_cleanup_(entity_clear) entity_t e = {};
	int r = backend_entity_lookup(b, fmri, &e);

	return r < 0 ? r : e.id;
}

/*
 * The entity memo (backend-entity.c) never answers for a row that is gone: an entity found
 * inside a batch that rolls back, or deleted and created again under the same FMRI, however
 * it was named.
 */
static void test_entity_memo_forgets(void **state)
{
	Fixture *f = *state;
	const backend_step_t fails[] = {
	        S_SVC(NEWSVC),
	        S_INST(NEWINST),
	        S_PG(NEWINST, "start", "method", 0), /* finds NEWINST: remembered */
	        S_PG("svc:/nope:x", "start", "method", 0),
	};
	int64_t before;

	assert_true(RUN(f, fails) < 0);
	assert_int_equal(entity_id(f->b, NEWINST), -SCF_ERROR_NOT_FOUND);
	assert_int_equal(entity_id(f->b, NEWSVC), -SCF_ERROR_NOT_FOUND);

	before = entity_id(f->b, INST);
	assert_true(before > 0);
	assert_int_equal(entity_id(f->b, "network/ssh:default"), before);
	assert_int_equal(backend_delete_entity(f->b, INST, NULL, NULL), 0);
	assert_int_equal(entity_id(f->b, "network/ssh:default"), -SCF_ERROR_NOT_FOUND);
	assert_int_equal(backend_add_instance(f->b, INST), 0);
	assert_true(entity_id(f->b, INST) > before);
	assert_int_equal(entity_id(f->b, "network/ssh:default"), entity_id(f->b, INST));
}

static void test_deletes(void **state)
{
	Fixture *f = *state;
	const backend_step_t missing[] = {
	        S_PGDEL(INST, "nope"),
	        S_PGDEL("svc:/nope:x", "general"),
	        S_PROPS(INST, "general", REMOVE_X),
	        S_DEL("svc:/nope"),
	        S_DEL("svc:/network/ssh:nope"),
	};
	const backend_step_t fails_late[] = {
	        S_PROPS(INST, "general", SET_X1),
	        S_PG(NEWSVC, "x", "x", 0), /* entity missing: fails, so nothing of this runs */
	};
	const backend_step_t steps[] = {
	        S_PROPS(INST, "general", SET_X1),
	        S_PGDEL(INST, "general"),
	        S_PG(INST, "general", "framework", 0),
	        S_PG(SVC, "tmp", "application", 0),
	        S_PGDEL(SVC, "tmp"),
	        S_PGDEL(SVC, "general"),
	};
	const backend_step_t del_entity[] = {
	        S_PG(SVC, "config", "application", 0),
	        S_DEL(SVC),
	};

	assert_int_equal(RUN(f, missing), (int)ELEMENTSOF(missing));
	assert_int_equal(f->n_ev, 0);
	assert_int_equal(generation(f->b, INST, "general", NULL), 1);
	assert_int_equal(RUN(f, fails_late), -SCF_ERROR_NOT_FOUND);
	assert_int_equal(generation(f->b, INST, "general", NULL), 1);

	assert_int_equal(RUN(f, steps), (int)ELEMENTSOF(steps));
	/*
	 * Deleted and re-created: the old one's PgDeleted, then the new one's PgChanged.  The
	 * old one died at generation 2 (SET_X1 moved it), so the new one starts at 3, never at
	 * a number a stale reader of the old one could hold.
	 */
	assert_int_equal(f->n_ev, 3);
	assert_event(f, 0, true, INST, "general", 0);
	assert_event(f, 1, false, INST, "general", 3);
	/* Created and deleted within the batch: nothing.  Deleted: PgDeleted. */
	assert_event(f, 2, true, SVC, "general", 0);
	assert_string_equal(show(f->b, INST, "general", NULL, "x"), "<none>");
	assert_int_equal(generation(f->b, INST, "general", NULL), 3);

	/* An entity's deletion reports every pg it had, the non-persistent one too. */
	assert_int_equal(RUN(f, del_entity), 2);
	assert_int_equal(backend_entity_exists(f->b, SVC), 0);
	/* Both deleted; config was created by the batch: not reported. */
	assert_int_equal(f->n_ev, 2);
	assert_event(f, 0, true, INST, "general", 0);
	assert_event(f, 1, true, INST, "restarter", 0);
}

/* More pgs than the first record table holds: every one found again, events in order. */
static void test_many_pgs(void **state)
{
	Fixture *f = *state;
	enum { N = 300 };
	static char names[N][16];
	backend_step_t steps[2 * N + 1];
	size_t n = 0;

	steps[n++] = (backend_step_t)S_SVC(NEWSVC);
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "pg%03d", (i * 7) % N);
		steps[n++] = (backend_step_t)S_PG(NEWSVC, names[i], "application", 0);
	}
	for (int i = N - 1; i >= 0; i--)
		steps[n++] = (backend_step_t)S_PROPS(NEWSVC, names[i], SET_X1);
	assert_int_equal(run(f, steps, n), (int)n);
	assert_int_equal(f->n_ev, N);
	for (int i = 0; i < N; i++)
		assert_event(f, (size_t)i, false, NEWSVC, names[i], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_all_or_nothing, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_one_generation_per_pg, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_ensure, setup, teardown),
	        cmocka_unit_test_setup_teardown(
	                test_snapshot_and_refresh_see_earlier_steps, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_snapshot_levels_shared, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_entity_memo_forgets, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_deletes, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_many_pgs, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
