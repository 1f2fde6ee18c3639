/*
 * test-backend: the repository rules on the backend alone.
 *
 * Transactions (NEW/REPLACE/DELETE rules, stale generation, empty = no-op, all-or-nothing,
 * carry-over), entities, composed reads, snapshots, non-persistent pgs, the schema version,
 * a backend failure (disk full) that must leave the repository unchanged, and the record of
 * each database's writes that a full store leaves (StoreStatus).  The full disk is
 * SQLite's page limit, a failure inside SQLite before any write; test-server makes write() itself
 * fail under a running daemon.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
} Fixture;

#define INST "svc:/network/ssh:default"
#define SVC "svc:/network/ssh"

static int open_backend(Fixture *f)
{
	_cleanup_free_ char *msg = NULL;
	int r = backend_open(f->root, &f->b, &msg);

	if (r < 0)
		print_message("backend_open: %s\n", strna(msg));
	return r;
}

static int setup(void **state)
{
	Fixture *f = calloc(1, sizeof(*f));
	_cleanup_free_ char *vol = NULL;

	assert_non_null(f);
	assert_int_equal(test_root_make(f->root, sizeof(f->root), "test-backend"), 0);
	assert_int_equal(smf_path(f->root, SMF_REL_VOLATILE_DIR, &vol), 0);
	assert_int_equal(smf_mkdir_p(vol, 0755), 0);
	assert_int_equal(open_backend(f), 0);
	/* The common starting point: a service with one instance, a pg on each. */
	assert_int_equal(backend_add_service(f->b, SVC), 0);
	assert_int_equal(backend_add_instance(f->b, INST), 0);
	assert_int_equal(backend_add_pg(f->b, INST, "general", "framework", 0, NULL), 0);
	assert_int_equal(backend_add_pg(f->b, SVC, "general", "framework", 0, NULL), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	Fixture *f = *state;

	backend_close(f->b);
	test_root_remove(f->root);
	free(f);
	return 0;
}

/* Commits one command; values NULL-terminated. */
static int commit1(backend_t *b, const char *ent, const char *pg, uint64_t gen, uint32_t op,
        const char *prop, const char *type, const char *const *values)
{
	backend_cmd_t c = {.op = op,
	        .prop = prop,
	        .type = type,
	        .values = values,
	        .n_values = values ? strv_length((char *const *)values) : 0};

	return backend_commit(b, ent, pg, gen, &c, 1, NULL);
}

static uint64_t generation(backend_t *b, const char *ent, const char *pg)
{
	_cleanup_backend_pg_ scf_pg_t *p = NULL;

	assert_int_equal(backend_get_pg(b, ent, pg, NULL, false, &p), 0);
	return p->generation;
}

static void test_entities(void **state)
{
	Fixture *f = *state;
	_cleanup_strv_free_ char **l = NULL, **i = NULL;

	assert_int_equal(backend_add_service(f->b, "svc:/a/b"), 0);
	assert_int_equal(backend_add_service(f->b, "/a"), 0); /* taken literally */
	assert_int_equal(backend_add_service(f->b, "svc:/a/b"), -SCF_ERROR_EXISTS);
	assert_int_equal(backend_add_service(f->b, "svc:/a:x"), -SCF_ERROR_TYPE_MISMATCH);
	assert_int_equal(backend_add_instance(f->b, "svc:/a"), -SCF_ERROR_TYPE_MISMATCH);
	assert_int_equal(backend_add_instance(f->b, "svc:/nope:x"), -SCF_ERROR_NOT_FOUND);
	assert_non_null(strstr(backend_errmsg(f->b), "svc:/nope"));
	assert_int_equal(backend_add_service(f->b, "svc:/a b"), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(backend_add_instance(f->b, "svc://localhost/a:y"), 0);

	/* In the order of creation, as illumos' backend lists (the fixture made SVC first). */
	assert_int_equal(backend_list_services(f->b, &l), 0);
	assert_int_equal(strv_length(l), 3);
	assert_string_equal(l[0], SVC);
	assert_string_equal(l[1], "svc:/a/b");
	assert_string_equal(l[2], "svc:/a");
	assert_int_equal(backend_list_instances(f->b, "a", &i), 0);
	assert_int_equal(strv_length(i), 1);
	assert_string_equal(i[0], "svc:/a:y");
	assert_int_equal(backend_entity_exists(f->b, "a:y"), 1);
	assert_int_equal(backend_entity_exists(f->b, "a:z"), 0);
}

static void test_delete_entity(void **state)
{
	Fixture *f = *state;
	_cleanup_strv_free_ char **i = NULL;
	scf_pg_t *del = NULL;
	size_t n = 0;

	assert_int_equal(backend_add_pg(f->b, INST, "restarter", "framework", 1, NULL), 0);
	assert_int_equal(backend_take_snapshot(f->b, INST, "initial"), 0);
	assert_int_equal(backend_delete_entity(f->b, SVC, &del, &n), 0);
	/* Every pg that went is reported with its entity: the instance's two, the service's one. */
	assert_int_equal(n, 3);
	assert_string_equal(del[0].entity, INST);
	assert_string_equal(del[0].name, "general");
	assert_string_equal(del[1].name, "restarter");
	assert_string_equal(del[1].type, "framework");
	assert_string_equal(del[2].entity, SVC);
	backend_pgs_free(del, n);
	assert_int_equal(backend_entity_exists(f->b, INST), 0);
	assert_int_equal(backend_list_instances(f->b, NULL, &i), 0);
	assert_null(i[0]);
	/* A new entity of the same name starts empty. */
	assert_int_equal(backend_add_service(f->b, SVC), 0);
	assert_int_equal(backend_add_instance(f->b, INST), 0);
	assert_string_equal(pg_values(f->b, INST, "restarter", NULL, false, "x"), "<no pg>");
}

static void test_tx_rules(void **state)
{
	Fixture *f = *state;
	const char *const one[] = {"1", NULL}, *const yes[] = {"true", NULL};

	assert_int_equal(generation(f->b, INST, "general"), 1);
	assert_int_equal(
	        commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "enabled", "boolean", yes), 1);
	assert_int_equal(generation(f->b, INST, "general"), 2);
	/* NEW on an existing property. */
	assert_int_equal(commit1(f->b, INST, "general", 2, SMF_CMD_NEW, "enabled", "boolean", yes),
	        -SCF_ERROR_EXISTS);
	/* REPLACE and DELETE of a missing one. */
	assert_int_equal(commit1(f->b, INST, "general", 2, SMF_CMD_REPLACE, "nope", "count", one),
	        -SCF_ERROR_NOT_FOUND);
	assert_int_equal(commit1(f->b, INST, "general", 2, SMF_CMD_DELETE, "nope", NULL, NULL),
	        -SCF_ERROR_NOT_FOUND);
	/* A stale generation changes nothing. */
	assert_int_equal(commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "other", "count", one),
	        BACKEND_NOT_LATEST);
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "other"), "<none>");
	/* REPLACE may change the type; DELETE removes. */
	assert_int_equal(
	        commit1(f->b, INST, "general", 2, SMF_CMD_REPLACE, "enabled", "count", one), 1);
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "enabled"), "1");
	assert_int_equal(
	        commit1(f->b, INST, "general", 3, SMF_CMD_DELETE, "enabled", "x", NULL), 1);
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "enabled"), "<none>");
	assert_int_equal(generation(f->b, INST, "general"), 4);
	/* The failures above did not move the generation either. */
}

static void test_tx_empty_is_noop(void **state)
{
	Fixture *f = *state;
	_cleanup_backend_pg_ scf_pg_t *p = NULL;

	assert_int_equal(backend_commit(f->b, INST, "general", 1, NULL, 0, &p), 0);
	assert_int_equal(p->generation, 1);
	assert_int_equal(generation(f->b, INST, "general"), 1);
	/* Still checked against the generation. */
	assert_int_equal(
	        backend_commit(f->b, INST, "general", 7, NULL, 0, NULL), BACKEND_NOT_LATEST);
}

static void test_tx_atomic_and_carry_over(void **state)
{
	Fixture *f = *state;
	const char *const a[] = {"a1", "a2", NULL}, *const b[] = {"b", NULL},
	                  *const c[] = {"7", NULL};
	backend_cmd_t first[] = {
	        {.op = SMF_CMD_NEW, .prop = "a", .type = "astring", .values = a, .n_values = 2},
	        {.op = SMF_CMD_NEW, .prop = "b", .type = "astring", .values = b, .n_values = 1},
	};
	backend_cmd_t bad[] = {
	        {.op = SMF_CMD_REPLACE, .prop = "a", .type = "astring", .values = b, .n_values = 1},
	        {.op = SMF_CMD_NEW, .prop = "c", .type = "count", .values = c, .n_values = 1},
	        {.op = SMF_CMD_NEW, .prop = "b", .type = "astring", .values = b, .n_values = 1},
	};
	backend_cmd_t good[] = {
	        {.op = SMF_CMD_NEW, .prop = "c", .type = "count", .values = c, .n_values = 1},
	};

	assert_int_equal(backend_commit(f->b, INST, "general", 1, first, 2, NULL), 1);
	/* The third command fails: the first two must not have happened. */
	assert_int_equal(backend_commit(f->b, INST, "general", 2, bad, 3, NULL), -SCF_ERROR_EXISTS);
	assert_non_null(strstr(backend_errmsg(f->b), "general/b"));
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "a"), "a1 a2");
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "c"), "<none>");
	assert_int_equal(generation(f->b, INST, "general"), 2);
	/* Properties not named are carried over, in order. */
	assert_int_equal(backend_commit(f->b, INST, "general", 2, good, 1, NULL), 1);
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "a"), "a1 a2");
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "b"), "b");
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "c"), "7");
}

static void test_tx_validation(void **state)
{
	Fixture *f = *state;
	const char *const padded[] = {"007", "0", NULL}, *const bad[] = {"-1", NULL};
	_cleanup_free_ const char **many = calloc(SCF_LIMIT_MAX_VALUES + 2, sizeof(char *));

	/* Values are stored canonical. */
	assert_int_equal(commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "n", "count", padded), 1);
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "n"), "7 0");
	assert_int_equal(commit1(f->b, INST, "general", 2, SMF_CMD_NEW, "m", "count", bad),
	        -SCF_ERROR_INVALID_ARGUMENT);
	assert_non_null(strstr(backend_errmsg(f->b), "\"-1\""));
	assert_int_equal(commit1(f->b, INST, "general", 2, SMF_CMD_NEW, "m", "bogus", bad),
	        -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(commit1(f->b, INST, "general", 2, 9, "m", "count", bad),
	        -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(
	        commit1(f->b, INST, "general", 2, SMF_CMD_NEW, "bad name", "count", padded),
	        -SCF_ERROR_INVALID_ARGUMENT);
	for (size_t i = 0; i <= SCF_LIMIT_MAX_VALUES; i++)
		many[i] = "1";
	assert_int_equal(commit1(f->b, INST, "general", 2, SMF_CMD_NEW, "m", "count", many),
	        -SCF_ERROR_CONSTRAINT_VIOLATED);
	many[SCF_LIMIT_MAX_VALUES] = NULL;
	assert_int_equal(commit1(f->b, INST, "general", 2, SMF_CMD_NEW, "m", "count", many), 1);
	assert_int_equal(generation(f->b, INST, "general"), 3);
}

static void test_tx_deleted(void **state)
{
	Fixture *f = *state;
	const char *const one[] = {"1", NULL};

	assert_int_equal(backend_delete_pg(f->b, INST, "general", NULL), 0);
	assert_int_equal(commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "x", "count", one),
	        -SCF_ERROR_DELETED);
	assert_int_equal(backend_delete_entity(f->b, INST, NULL, NULL), 0);
	assert_int_equal(commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "x", "count", one),
	        -SCF_ERROR_DELETED);
}

static void test_pgs(void **state)
{
	Fixture *f = *state;
	_cleanup_backend_pg_ scf_pg_t *p = NULL;
	scf_pg_info_t *l = NULL;
	size_t n = 0;

	assert_int_equal(
	        backend_add_pg(f->b, INST, "general", "other", 0, NULL), -SCF_ERROR_EXISTS);
	assert_int_equal(backend_add_pg(f->b, INST, "start", "method", 0, &p), 0);
	assert_string_equal(p->entity, INST);
	assert_int_equal(p->generation, 1);
	/* Names are unique across the two databases. */
	assert_int_equal(backend_add_pg(f->b, INST, "start", "method", 1, NULL), -SCF_ERROR_EXISTS);
	assert_int_equal(backend_add_pg(f->b, INST, "bad/name", "method", 0, NULL),
	        -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(backend_add_pg(f->b, SVC, "stop", "method", 0, NULL), 0);
	assert_int_equal(backend_list_pgs(f->b, INST, NULL, false, &l, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(l[0].name, "general");
	assert_string_equal(l[1].name, "start");
	backend_pg_infos_free(l, n);
	assert_int_equal(backend_list_pgs(f->b, INST, NULL, true, &l, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(l[2].name, "stop");
	backend_pg_infos_free(l, n);
	assert_int_equal(backend_get_pg(f->b, INST, "nope", NULL, true, &p), -SCF_ERROR_NOT_FOUND);
	assert_int_equal(backend_delete_pg(f->b, INST, "nope", NULL), -SCF_ERROR_NOT_FOUND);
}

static void test_composed(void **state)
{
	Fixture *f = *state;
	const char *const a[] = {"inst", NULL}, *const b[] = {"svc", NULL};

	assert_int_equal(commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "both", "astring", a), 1);
	assert_int_equal(commit1(f->b, SVC, "general", 1, SMF_CMD_NEW, "both", "astring", b), 1);
	assert_int_equal(
	        commit1(f->b, SVC, "general", 2, SMF_CMD_NEW, "svc_only", "astring", b), 1);
	assert_int_equal(backend_add_pg(f->b, SVC, "only_svc", "application", 0, NULL), 0);
	/* The instance's value wins; the service's other properties show through. */
	assert_string_equal(pg_values(f->b, INST, "general", NULL, true, "both"), "inst");
	assert_string_equal(pg_values(f->b, INST, "general", NULL, true, "svc_only"), "svc");
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "svc_only"), "<none>");
	assert_string_equal(pg_values(f->b, INST, "only_svc", NULL, true, "x"), "<none>");
	assert_string_equal(pg_values(f->b, INST, "only_svc", NULL, false, "x"), "<no pg>");
	/* Pgs of different types do not compose: the instance's hides the service's. */
	assert_int_equal(backend_add_pg(f->b, INST, "typed", "application", 0, NULL), 0);
	assert_int_equal(backend_add_pg(f->b, SVC, "typed", "framework", 0, NULL), 0);
	assert_int_equal(commit1(f->b, SVC, "typed", 1, SMF_CMD_NEW, "x", "astring", b), 1);
	assert_string_equal(pg_values(f->b, INST, "typed", NULL, true, "x"), "<none>");
	/* composed is ignored for a service. */
	assert_string_equal(pg_values(f->b, SVC, "general", NULL, true, "both"), "svc");
}

static void test_snapshots(void **state)
{
	Fixture *f = *state;
	const char *const v1[] = {"1", NULL}, *const v2[] = {"2", NULL};
	_cleanup_strv_free_ char **l = NULL;

	assert_int_equal(commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "v", "count", v1), 1);
	assert_int_equal(backend_add_pg(f->b, INST, "restarter", "framework", 1, NULL), 0);
	assert_int_equal(commit1(f->b, SVC, "general", 1, SMF_CMD_NEW, "s", "count", v1), 1);
	assert_int_equal(backend_refresh(f->b, INST), 0);
	assert_int_equal(commit1(f->b, INST, "general", 2, SMF_CMD_REPLACE, "v", "count", v2), 1);
	assert_int_equal(commit1(f->b, SVC, "general", 2, SMF_CMD_REPLACE, "s", "count", v2), 1);
	/* The snapshot keeps what was current at refresh, at both levels. */
	assert_string_equal(pg_values(f->b, INST, "general", "running", false, "v"), "1");
	assert_string_equal(pg_values(f->b, INST, "general", "running", true, "s"), "1");
	assert_string_equal(pg_values(f->b, INST, "general", NULL, true, "s"), "2");
	/* Non-persistent pgs are not captured. */
	assert_string_equal(pg_values(f->b, INST, "restarter", "running", true, "x"), "<no pg>");
	/* Refresh: previous := running, running := now. */
	assert_int_equal(backend_refresh(f->b, INST), 0);
	assert_string_equal(pg_values(f->b, INST, "general", "previous", false, "v"), "1");
	assert_string_equal(pg_values(f->b, INST, "general", "running", false, "v"), "2");
	assert_int_equal(backend_list_snapshots(f->b, INST, &l), 0);
	assert_int_equal(strv_length(l), 2);
	assert_string_equal(l[0], "previous");
	assert_string_equal(l[1], "running");
	/* Snapshots survive the deletion of the pg they copied. */
	assert_int_equal(backend_delete_pg(f->b, INST, "general", NULL), 0);
	assert_string_equal(pg_values(f->b, INST, "general", "running", false, "v"), "2");
	/* Named snapshots: take replaces, delete removes; services have none. */
	assert_int_equal(backend_take_snapshot(f->b, INST, "initial"), 0);
	assert_int_equal(backend_take_snapshot(f->b, INST, "initial"), 0);
	assert_string_equal(pg_values(f->b, INST, "general", "initial", false, "v"), "<no pg>");
	assert_int_equal(backend_delete_snapshot(f->b, INST, "initial"), 0);
	assert_int_equal(backend_delete_snapshot(f->b, INST, "initial"), -SCF_ERROR_NOT_FOUND);
	assert_int_equal(backend_take_snapshot(f->b, SVC, "initial"), -SCF_ERROR_TYPE_MISMATCH);
	assert_string_equal(pg_values(f->b, INST, "general", "nope", false, "v"), "<no pg>");
}

/*
 * A transaction that read a pg must not commit into another pg that took its place: delete and
 * re-create the pg (persistent, non-persistent, and through the entity's deletion), bring the
 * new one as far as the old one was, and the stale commit must still be refused.
 */
static void stale_commit_refused(
        Fixture *f, const char *ent, const char *pg, uint32_t flags, bool via_entity)
{
	const char *const one[] = {"1", NULL};
	uint64_t seen;

	assert_int_equal(
	        commit1(f->b, ent, pg, generation(f->b, ent, pg), SMF_CMD_NEW, "a", "count", one),
	        1);
	seen = generation(f->b, ent, pg); /* the stale reader's generation */
	if (via_entity) {
		assert_int_equal(backend_delete_entity(f->b, ent, NULL, NULL), 0);
		assert_int_equal(backend_add_instance(f->b, ent), 0);
	} else
		assert_int_equal(backend_delete_pg(f->b, ent, pg, NULL), 0);
	assert_int_equal(backend_add_pg(f->b, ent, pg, "framework", flags, NULL), 0);
	assert_true(generation(f->b, ent, pg) > seen);
	assert_int_equal(
	        commit1(f->b, ent, pg, seen, SMF_CMD_NEW, "b", "count", one), BACKEND_NOT_LATEST);
	assert_string_equal(pg_values(f->b, ent, pg, NULL, false, "b"), "<none>");
}

static void test_recreated_pg_new_generation(void **state)
{
	Fixture *f = *state;

	stale_commit_refused(f, INST, "general", 0, false);
	assert_int_equal(backend_add_pg(f->b, INST, "restarter", "framework",
	                         SCF_PG_FLAG_NONPERSISTENT, NULL),
	        0);
	stale_commit_refused(f, INST, "restarter", SCF_PG_FLAG_NONPERSISTENT, false);
	stale_commit_refused(f, INST, "general", 0, true);
	/* A name never used before still starts at 1. */
	assert_int_equal(backend_add_pg(f->b, INST, "fresh", "application", 0, NULL), 0);
	assert_int_equal(generation(f->b, INST, "fresh"), 1);
}

/* Closes and opens the backend again: a configd restart. */
static void reopen(Fixture *f)
{
	backend_close(f->b);
	f->b = NULL;
	assert_int_equal(open_backend(f), 0);
}

/* Writes text over a file below the root (the volatile database's marker, or the database). */
static void overwrite(Fixture *f, const char *rel, const char *text)
{
	_cleanup_free_ char *path = NULL;
	FILE *fp;

	assert_int_equal(smf_path(f->root, rel, &path), 0);
	fp = fopen(path, "we");
	assert_non_null(fp);
	assert_true(fputs(text, fp) >= 0);
	assert_int_equal(fclose(fp), 0);
}

/*
 * Non-persistent pgs live in np, and as long as the boot: a reopen in the same boot keeps them
 * (configd restarted), one whose marker names another boot or whose database cannot be used
 * starts afresh, and a kept database loses the pgs of entities that are gone.
 */
static void test_nonpersistent(void **state)
{
	Fixture *f = *state;
	const char *const v[] = {"online", NULL};

	assert_int_equal(backend_add_pg(f->b, INST, "restarter", "framework",
	                         SCF_PG_FLAG_NONPERSISTENT, NULL),
	        0);
	assert_int_equal(
	        commit1(f->b, INST, "restarter", 1, SMF_CMD_NEW, "state", "astring", v), 1);
	assert_int_equal(
	        count_rows(f->b, "SELECT count(*) FROM np.pgs WHERE name = 'restarter'"), 1);
	assert_int_equal(
	        count_rows(f->b, "SELECT count(*) FROM main.pgs WHERE name = 'restarter'"), 0);
	assert_int_equal(count_rows(f->b, "SELECT count(*) FROM np.props"), 1);
	assert_string_equal(pg_values(f->b, INST, "restarter", NULL, false, "state"), "online");
	assert_non_null(strstr(backend_np_note(f->b), "fresh"));

	/* A configd restart in the same boot: both kinds of pg stay. */
	reopen(f);
	assert_non_null(strstr(backend_np_note(f->b), "kept"));
	assert_string_equal(pg_values(f->b, INST, "restarter", NULL, false, "state"), "online");
	assert_int_equal(generation(f->b, INST, "restarter"), 2);
	assert_int_equal(generation(f->b, INST, "general"), 1);

	/* A pg left of an entity that is gone (a crash between the two commits) goes at open. */
	assert_int_equal(backend_add_instance(f->b, SVC ":other"), 0);
	assert_int_equal(backend_add_pg(f->b, SVC ":other", "restarter", "framework", 1, NULL), 0);
	assert_int_equal(
	        sqlite3_exec(f->b->db, "DELETE FROM main.entities WHERE fmri = '" SVC ":other'",
	                NULL, NULL, NULL),
	        SQLITE_OK);
	assert_int_equal(count_rows(f->b, "SELECT count(*) FROM np.pgs"), 2);
	reopen(f);
	assert_int_equal(count_rows(f->b, "SELECT count(*) FROM np.pgs"), 1);

	/* Another boot: the persistent pg stays, the non-persistent one is gone. */
	overwrite(f, SMF_REL_NONPERSIST_BOOT, "00000000-0000-0000-0000-000000000000\n");
	reopen(f);
	assert_non_null(strstr(backend_np_note(f->b), "another boot"));
	assert_string_equal(pg_values(f->b, INST, "restarter", NULL, false, "state"), "<no pg>");
	assert_int_equal(generation(f->b, INST, "general"), 1);
	assert_int_equal(backend_add_pg(f->b, INST, "restarter", "framework", 1, NULL), 0);

	/* This boot's, but not a database: afresh, saying why. */
	backend_close(f->b);
	f->b = NULL;
	overwrite(f, SMF_REL_NONPERSIST_DB, "not a database, not a database, not a database");
	assert_int_equal(open_backend(f), 0);
	assert_non_null(strstr(backend_np_note(f->b), "could not be used"));
	assert_string_equal(pg_values(f->b, INST, "restarter", NULL, false, "state"), "<no pg>");
	assert_int_equal(backend_add_pg(f->b, INST, "restarter", "framework", 1, NULL), 0);
}

/* A refusal quotes what it refuses, cut (cut.h): a 600-byte FMRI is not echoed whole. */
static void test_message_cut(void **state)
{
	Fixture *f = *state;
	char fmri[601] = "svc:/";

	memset(fmri + 5, '!', sizeof(fmri) - 6);
	assert_true(backend_add_service(f->b, fmri) < 0);
	assert_true(strlen(backend_errmsg(f->b)) < 400);
	assert_non_null(strstr(backend_errmsg(f->b), "!!!...(600 bytes)\" is not a valid FMRI"));
}

static void test_schema_version(void **state)
{
	Fixture *f = *state;

	assert_int_equal(count_rows(f->b, "PRAGMA main.user_version"), BACKEND_SCHEMA_VERSION);
	assert_int_equal(sqlite3_exec(f->b->db, "PRAGMA main.user_version = 99", NULL, NULL, NULL),
	        SQLITE_OK);
	backend_close(f->b);
	f->b = NULL;
	{
		_cleanup_free_ char *msg = NULL;

		assert_int_equal(backend_open(f->root, &f->b, &msg), -SCF_ERROR_BACKEND_ACCESS);
		assert_non_null(msg);
		assert_non_null(strstr(msg, "newer"));
	}
	assert_null(f->b);
}

/*
 * A repository as configd wrote it at schema version 2 (snapshot copies owned by their
 * snapshot): the service and instance of setup(), a pg on each with a property, and a
 * "running" snapshot holding both levels.  Written here, by hand, because no configd of this
 * version writes that schema any more.
 */
static const char repository_v2[] =
        "CREATE TABLE entities (id INTEGER PRIMARY KEY AUTOINCREMENT, fmri TEXT NOT NULL UNIQUE,"
        "  parent INTEGER REFERENCES entities(id) ON DELETE CASCADE);"
        "CREATE INDEX entities_by_parent ON entities (parent, fmri);"
        "CREATE TABLE pgs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  entity INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, flags INTEGER NOT NULL, gen INTEGER NOT NULL,"
        "  UNIQUE (entity, name));"
        "CREATE TABLE props (pg INTEGER NOT NULL REFERENCES pgs(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, type TEXT NOT NULL, vals BLOB NOT NULL,"
        "  PRIMARY KEY (pg, name)) WITHOUT ROWID;"
        "CREATE TABLE snapshots (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  instance INTEGER NOT NULL REFERENCES entities(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL, UNIQUE (instance, name));"
        "CREATE TABLE snap_pgs (id INTEGER PRIMARY KEY AUTOINCREMENT,"
        "  snap INTEGER NOT NULL REFERENCES snapshots(id) ON DELETE CASCADE,"
        "  level INTEGER NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL,"
        "  flags INTEGER NOT NULL, gen INTEGER NOT NULL, UNIQUE (snap, level, name));"
        "CREATE TABLE snap_props (snap_pg INTEGER NOT NULL REFERENCES snap_pgs(id)"
        "  ON DELETE CASCADE, name TEXT NOT NULL, type TEXT NOT NULL, vals BLOB NOT NULL,"
        "  PRIMARY KEY (snap_pg, name)) WITHOUT ROWID;"
        "CREATE TABLE pg_gens (fmri TEXT NOT NULL, name TEXT NOT NULL, gen INTEGER NOT NULL,"
        "  PRIMARY KEY (fmri, name)) WITHOUT ROWID;"
        "INSERT INTO entities VALUES (1, '" SVC "', NULL), (2, '" INST "', 1);"
        "INSERT INTO pgs VALUES (1, 1, 'general', 'framework', 0, 2),"
        "  (2, 2, 'general', 'framework', 0, 2);"
        "INSERT INTO props VALUES (1, 's', 'count', CAST('2' || char(0) AS BLOB)),"
        "  (2, 'v', 'count', CAST('2' || char(0) AS BLOB));"
        "INSERT INTO snapshots VALUES (7, 2, 'running');"
        "INSERT INTO snap_pgs VALUES (10, 7, 0, 'general', 'framework', 0, 1),"
        "  (11, 7, 1, 'general', 'framework', 0, 1);"
        "INSERT INTO snap_props VALUES (10, 'v', 'count', CAST('1' || char(0) AS BLOB)),"
        "  (11, 's', 'count', CAST('1' || char(0) AS BLOB));"
        "PRAGMA user_version = 2;";

/* Version 2 -> 3: the snapshots taken before keep what they hold, and can be replaced. */
static void test_schema_migration_v3(void **state)
{
	Fixture *f = *state;
	_cleanup_free_ char *path = NULL;
	sqlite3 *db = NULL;

	backend_close(f->b);
	f->b = NULL;
	assert_int_equal(smf_path(f->root, SMF_REL_REPOSITORY, &path), 0);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
	assert_int_equal(sqlite3_exec(db, repository_v2, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_close(db), SQLITE_OK);

	assert_int_equal(open_backend(f), 0);
	assert_int_equal(count_rows(f->b, "PRAGMA main.user_version"), 3);
	assert_string_equal(pg_values(f->b, INST, "general", "running", false, "v"), "1");
	assert_string_equal(pg_values(f->b, INST, "general", "running", true, "s"), "1");
	assert_string_equal(pg_values(f->b, INST, "general", NULL, true, "s"), "2");
	/* Refresh: the migrated copy becomes "previous"; the new "running" is today's. */
	assert_int_equal(backend_refresh(f->b, INST), 0);
	assert_string_equal(pg_values(f->b, INST, "general", "previous", false, "v"), "1");
	assert_string_equal(pg_values(f->b, INST, "general", "running", false, "v"), "2");
	assert_int_equal(backend_delete_snapshot(f->b, INST, "previous"), 0);
	assert_int_equal(count_rows(f->b, "SELECT count(*) FROM main.snap_levels"), 2);
	assert_int_equal(count_rows(f->b, "SELECT count(*) FROM main.snap_pgs"), 2);
	/* Ids go on above the migrated ones. */
	assert_int_equal(backend_take_snapshot(f->b, INST, "initial"), 0);
	assert_true(count_rows(f->b, "SELECT min(id) FROM main.snap_pgs") > 11);
}

static void test_backend_full(void **state)
{
	Fixture *f = *state;
	const char *const small[] = {"1", NULL};
	_cleanup_free_ char *big = malloc(SCF_LIMIT_MAX_VALUE_LENGTH + 1);
	const char *vals[65];
	long long pages;

	assert_int_equal(commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "keep", "count", small), 1);
	memset(big, 'x', SCF_LIMIT_MAX_VALUE_LENGTH);
	big[SCF_LIMIT_MAX_VALUE_LENGTH] = 0;
	for (size_t i = 0; i < 64; i++)
		vals[i] = big;
	vals[64] = NULL;
	/* Freeze the database at its current size: the next growth is SQLITE_FULL. */
	pages = count_rows(f->b, "PRAGMA main.page_count");
	assert_true(pages > 0);
	{
		char sql[64];

		snprintf(sql, sizeof(sql), "PRAGMA main.max_page_count = %lld", pages);
		assert_int_equal(sqlite3_exec(f->b->db, sql, NULL, NULL, NULL), SQLITE_OK);
	}
	assert_int_equal(commit1(f->b, INST, "general", 2, SMF_CMD_NEW, "big", "astring", vals),
	        -SCF_ERROR_BACKEND_ACCESS);
	assert_non_null(strstr(backend_errmsg(f->b), "repository database"));
	/* Rolled back: nothing lost, nothing half-written, and the store still works. */
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "keep"), "1");
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "big"), "<none>");
	assert_int_equal(generation(f->b, INST, "general"), 2);
	assert_int_equal(
	        commit1(f->b, INST, "general", 2, SMF_CMD_REPLACE, "keep", "count", small), 1);
}

static void test_backend_readonly(void **state)
{
	Fixture *f = *state;
	const char *const one[] = {"1", NULL};

	/* query_only makes every write fail as a read-only database does. */
	assert_int_equal(
	        sqlite3_exec(f->b->db, "PRAGMA query_only = 1", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "x", "count", one),
	        -SCF_ERROR_BACKEND_READONLY);
	assert_int_equal(backend_add_service(f->b, "svc:/ro"), -SCF_ERROR_BACKEND_READONLY);
	assert_int_equal(backend_refresh(f->b, INST), -SCF_ERROR_BACKEND_READONLY);
	assert_int_equal(generation(f->b, INST, "general"), 1);
	assert_int_equal(
	        sqlite3_exec(f->b->db, "PRAGMA query_only = 0", NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "x", "count", one), 1);
}

static backend_store_status_t store_of(backend_t *b, int store)
{
	backend_store_status_t st;

	backend_store_status(b, store, &st);
	return st;
}

static void set_max_pages(backend_t *b, const char *schema, long long pages)
{
	char sql[80];

	snprintf(sql, sizeof(sql), "PRAGMA %s.max_page_count = %lld", schema, pages);
	assert_int_equal(sqlite3_exec(b->db, sql, NULL, NULL, NULL), SQLITE_OK);
}

/*
 * The record of each database's writes (backend_store_status()): a write counts for the
 * database it changes, a refusal by SQLite's store (here the page limit, SQLITE_FULL, as a
 * full filesystem answers) is recorded with its kind and message until a write is taken
 * again, and a refusal for what the write asks is no failure of the store.
 */
static void test_store_record(void **state)
{
	Fixture *f = *state;
	const char *const online[] = {"online", NULL}, *const one[] = {"1", NULL};
	_cleanup_free_ char *big = malloc(SCF_LIMIT_MAX_VALUE_LENGTH + 1);
	const char *vals[65];
	backend_store_status_t m, np;

	assert_non_null(big);
	memset(big, 'x', SCF_LIMIT_MAX_VALUE_LENGTH);
	big[SCF_LIMIT_MAX_VALUE_LENGTH] = 0;
	for (size_t i = 0; i < 64; i++)
		vals[i] = big;
	vals[64] = NULL;

	/* setup() wrote the persistent database alone. */
	m = store_of(f->b, BACKEND_STORE_PERSISTENT);
	assert_non_null(strstr(m.path, "/etc/svc/repository.db"));
	assert_true(m.last_ok_usec > 0);
	assert_int_equal(m.last_fail_usec, 0);
	assert_int_equal(m.failures, 0);
	np = store_of(f->b, BACKEND_STORE_NONPERSISTENT);
	assert_non_null(strstr(np.path, "/etc/svc/volatile/svc_nonpersist.db"));
	assert_int_equal(np.last_ok_usec, 0);
	assert_int_equal(np.last_fail_usec, 0);
	assert_string_equal(np.kind, "");
	assert_string_equal(np.error, "");

	/* A NONPERSISTENT pg is the other database's write. */
	assert_int_equal(backend_add_pg(f->b, INST, "restarter", "framework",
	                         SCF_PG_FLAG_NONPERSISTENT, NULL),
	        0);
	assert_int_equal(
	        commit1(f->b, INST, "restarter", 1, SMF_CMD_NEW, "state", "astring", online), 1);
	np = store_of(f->b, BACKEND_STORE_NONPERSISTENT);
	assert_true(np.last_ok_usec > 0);
	assert_int_equal(np.failures, 0);

	/* Its store full: its writes are refused and recorded; the persistent ones go on. */
	set_max_pages(f->b, "np", count_rows(f->b, "PRAGMA np.page_count"));
	assert_int_equal(commit1(f->b, INST, "restarter", 2, SMF_CMD_NEW, "big", "astring", vals),
	        -SCF_ERROR_BACKEND_ACCESS);
	np = store_of(f->b, BACKEND_STORE_NONPERSISTENT);
	assert_int_equal(np.failures, 1);
	assert_string_equal(np.kind, SMF_STORE_FAIL_FULL);
	assert_string_equal(np.error, "database or disk is full");
	assert_true(np.last_fail_usec >= np.last_ok_usec);
	assert_int_equal(commit1(f->b, INST, "general", 1, SMF_CMD_NEW, "keep", "count", one), 1);
	m = store_of(f->b, BACKEND_STORE_PERSISTENT);
	assert_int_equal(m.failures, 0);
	assert_int_equal(m.last_fail_usec, 0);
	assert_int_equal(store_of(f->b, BACKEND_STORE_NONPERSISTENT).failures, 1);
	assert_int_equal(commit1(f->b, INST, "restarter", 2, SMF_CMD_NEW, "big", "astring", vals),
	        -SCF_ERROR_BACKEND_ACCESS);
	assert_int_equal(store_of(f->b, BACKEND_STORE_NONPERSISTENT).failures, 2);

	/* Refused for what they ask (a stale generation, a missing pg): the store is not at fault. */
	assert_int_equal(commit1(f->b, INST, "restarter", 1, SMF_CMD_NEW, "x", "astring", online),
	        BACKEND_NOT_LATEST);
	assert_int_equal(commit1(f->b, INST, "nopg", 1, SMF_CMD_NEW, "x", "astring", online),
	        -SCF_ERROR_DELETED);
	assert_int_equal(backend_add_pg(f->b, INST, "restarter", "framework",
	                         SCF_PG_FLAG_NONPERSISTENT, NULL),
	        -SCF_ERROR_EXISTS);
	assert_int_equal(store_of(f->b, BACKEND_STORE_NONPERSISTENT).failures, 2);

	/* Room again: the next write is taken, and the record says the store takes them. */
	set_max_pages(f->b, "np", 1 << 30);
	assert_int_equal(
	        commit1(f->b, INST, "restarter", 2, SMF_CMD_NEW, "big", "astring", vals), 1);
	np = store_of(f->b, BACKEND_STORE_NONPERSISTENT);
	assert_int_equal(np.failures, 0);
	assert_true(np.last_ok_usec >= np.last_fail_usec);
	assert_int_equal(store_of(f->b, BACKEND_STORE_PERSISTENT).failures, 0);
}

/* What SQLite's codes stand for: the store's failures, not a request's or memory's. */
static void test_store_failure_kinds(void **state)
{
	(void)state;
	assert_string_equal(backend_store_failure(SQLITE_FULL), SMF_STORE_FAIL_FULL);
	assert_string_equal(backend_store_failure(SQLITE_IOERR_WRITE), SMF_STORE_FAIL_IO);
	assert_string_equal(backend_store_failure(SQLITE_IOERR_FSYNC), SMF_STORE_FAIL_IO);
	assert_string_equal(backend_store_failure(SQLITE_READONLY), SMF_STORE_FAIL_READONLY);
	assert_string_equal(backend_store_failure(SQLITE_CORRUPT), SMF_STORE_FAIL_CORRUPT);
	assert_string_equal(backend_store_failure(SQLITE_NOTADB), SMF_STORE_FAIL_CORRUPT);
	assert_string_equal(backend_store_failure(SQLITE_CANTOPEN), SMF_STORE_FAIL_OTHER);
	assert_null(backend_store_failure(SQLITE_OK));
	assert_null(backend_store_failure(SQLITE_DONE));
	assert_null(backend_store_failure(SQLITE_CONSTRAINT_PRIMARYKEY));
	assert_null(backend_store_failure(SQLITE_NOMEM));
	assert_null(backend_store_failure(SQLITE_IOERR_NOMEM));
}

/* n values of 4095 bytes each (freed with free(); they share one string). */
static const char **big_values(size_t n)
{
	const char **v = calloc(n + 1, sizeof(char *));
	char *one = malloc(4096);

	assert_non_null(v);
	assert_non_null(one);
	memset(one, 'v', 4095);
	one[4095] = 0;
	for (size_t i = 0; i < n; i++)
		v[i] = one;
	return v;
}

static void big_values_free(const char **v)
{
	free((char *)v[0]);
	free(v);
}

/*
 * A pg may not grow past BACKEND_MAX_PG_BYTES, by Commit or by a batch step: two properties of
 * 2100 values of 4095 bytes (8.6 MB each) make 17.2 MB.  The refusal names the pg and changes
 * nothing.
 */
static void test_pg_size_limit(void **state)
{
	Fixture *f = *state;
	const char **v = big_values(2100);
	backend_cmd_t c = {
	        .op = SMF_CMD_NEW, .prop = "a", .type = "astring", .values = v, .n_values = 2100};
	backend_step_t st = {
	        .op = SMF_STEP_PROPS, .fmri = INST, .pg = "general", .cmds = &c, .n_cmds = 1};
	backend_pg_event_t *ev = NULL;
	size_t n_ev = 0;
	uint64_t gen = generation(f->b, INST, "general");

	assert_int_equal(backend_commit(f->b, INST, "general", gen, &c, 1, NULL), 1);
	c.prop = "b";
	assert_int_equal(backend_commit(f->b, INST, "general", gen + 1, &c, 1, NULL),
	        -SCF_ERROR_CONSTRAINT_VIOLATED);
	assert_non_null(strstr(backend_errmsg(f->b), INST "/:properties/general"));
	assert_non_null(strstr(backend_errmsg(f->b), "16777216"));
	assert_int_equal(generation(f->b, INST, "general"), gen + 1);
	assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "b"), "<none>");
	/* A batch step, the same. */
	c.op = SMF_CMD_SET;
	assert_int_equal(backend_batch(f->b, &st, 1, &ev, &n_ev), -SCF_ERROR_CONSTRAINT_VIOLATED);
	assert_non_null(strstr(backend_errmsg(f->b), "step 1 (" INST "/:properties/general)"));
	assert_int_equal(generation(f->b, INST, "general"), gen + 1);
	/*
	 * A batch measures a pg once, where it must (issue 18): two steps that each stay under the
	 * bound but together pass it are refused as the second; one that passes it and a later
	 * step that shrinks it back are accepted, unless a snapshot is taken in between.
	 */
	{
		backend_cmd_t grow = c, shrink = {.op = SMF_CMD_REMOVE, .prop = "b"};
		backend_step_t two[3] = {
		        {.op = SMF_STEP_PROPS,
		                .fmri = INST,
		                .pg = "general",
		                .cmds = &shrink,
		                .n_cmds = 1},
		        {.op = SMF_STEP_PROPS,
		                .fmri = INST,
		                .pg = "general",
		                .cmds = &grow,
		                .n_cmds = 1},
		        {.op = SMF_STEP_PROPS,
		                .fmri = INST,
		                .pg = "general",
		                .cmds = &shrink,
		                .n_cmds = 1},
		};
		backend_step_t snap = {.op = SMF_STEP_SNAPSHOT_TAKE, .fmri = INST, .name = "s"};
		backend_step_t with_snap[3] = {two[1], snap, two[2]};
		_cleanup_strv_free_ char **snaps = NULL;

		/* a (8.6 MB) is there; b makes 17.2 MB: refused as step 2, which grew it. */
		assert_int_equal(
		        backend_batch(f->b, two, 2, &ev, &n_ev), -SCF_ERROR_CONSTRAINT_VIOLATED);
		assert_non_null(
		        strstr(backend_errmsg(f->b), "step 2 (" INST "/:properties/general)"));
		assert_int_equal(backend_batch(f->b, two + 1, 2, &ev, &n_ev), 2);
		backend_pg_events_free(ev, n_ev);
		assert_string_equal(pg_values(f->b, INST, "general", NULL, false, "b"), "<none>");
		assert_int_equal(backend_batch(f->b, with_snap, 3, &ev, &n_ev),
		        -SCF_ERROR_CONSTRAINT_VIOLATED);
		assert_non_null(
		        strstr(backend_errmsg(f->b), "step 1 (" INST "/:properties/general)"));
		assert_int_equal(backend_list_snapshots(f->b, INST, &snaps), 0);
		assert_null(snaps[0]);
		gen = generation(f->b, INST, "general") - 1;
	}
	/* Shrinking is always allowed, and so is growing another pg. */
	c.op = SMF_CMD_DELETE;
	c.prop = "a";
	assert_int_equal(backend_commit(f->b, INST, "general", gen + 1, &c, 1, NULL), 1);
	c = (backend_cmd_t){
	        .op = SMF_CMD_NEW, .prop = "b", .type = "astring", .values = v, .n_values = 2100};
	assert_int_equal(backend_commit(f->b, SVC, "general", 1, &c, 1, NULL), 1);
	big_values_free(v);
}

/*
 * A pg stored before the bound existed, too large for any reply (10 million empty values take
 * 80 MB on the wire): GetPg refuses it by name instead of building a reply nobody can read.
 * A composed read of the instance's small pg with that service pg is refused too.
 */
static void test_pg_unreadable(void **state)
{
	Fixture *f = *state;
	_cleanup_backend_pg_ scf_pg_t *p = NULL;
	const char *sql = "INSERT INTO main.props (pg, name, type, vals) SELECT id, 'huge', "
	                  "'astring', zeroblob(10000000) FROM main.pgs WHERE name = 'general' AND "
	                  "entity = (SELECT id FROM main.entities WHERE fmri = '" SVC "')";

	assert_int_equal(sqlite3_exec(f->b->db, sql, NULL, NULL, NULL), SQLITE_OK);
	assert_int_equal(backend_get_pg(f->b, SVC, "general", NULL, false, &p),
	        -SCF_ERROR_CONSTRAINT_VIOLATED);
	assert_non_null(strstr(backend_errmsg(f->b), SVC "/:properties/general"));
	assert_int_equal(backend_get_pg(f->b, INST, "general", NULL, true, &p),
	        -SCF_ERROR_CONSTRAINT_VIOLATED);
	/* Not composed, the instance's own pg reads fine. */
	assert_int_equal(backend_get_pg(f->b, INST, "general", NULL, false, &p), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_entities, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_delete_entity, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_tx_rules, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_tx_empty_is_noop, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_tx_atomic_and_carry_over, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_tx_validation, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_tx_deleted, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_pgs, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_composed, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_snapshots, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_nonpersistent, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_message_cut, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_schema_version, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_schema_migration_v3, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_recreated_pg_new_generation, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_backend_full, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_backend_readonly, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_pg_size_limit, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_pg_unreadable, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_store_record, setup, teardown),
	        cmocka_unit_test(test_store_failure_kinds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
