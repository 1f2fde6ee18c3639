/*
 * test-read: configd's reads on the backend alone (SQLite, no D-Bus): the pg cache never serves
 * a stale pg, and the bulk reads (ReadPgs) answer what the single reads answer.
 *
 * The cache: a read after every kind of write that changes what a read sees (Commit, Batch,
 * DeletePg and a new pg of the same name, Delete of the entity and a new one of the same FMRI,
 * a composed read after its service's pg changed, snapshots taken again and refreshed), with
 * the cache's own counters showing that it was used; a bound that evicts (and still answers
 * right); a bulk read that does not flush what single reads keep.  The bulk reads: listed
 * entities (missing, malformed, duplicated, a service), patterns (all, a glob, its literal
 * prefix, continuing after an FMRI), queries by name and by type, composed, in a snapshot with
 * and without its fallback, a visitor that stops, and the checks of a request.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend-internal.h"
#include "backend-read.h"
#include "cache.h"
#include "macro.h"
#include "paths.h"
#include "backend-fixture.h"
#include "pg-values.h"
#include "strv.h"
#include "test-root.h"

typedef struct Fixture {
	char root[64];
	backend_t *b;
} Fixture;

#define SVC "svc:/b"
#define INST "svc:/b:i0"

static int setup(void **state)
{
	Fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	f->b = backend_fixture_open(f->root, sizeof(f->root), "test-read");
	assert_int_equal(backend_add_service(f->b, SVC), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	Fixture *f = *state;

	backend_fixture_close(f->b, f->root);
	free(f);
	return 0;
}

/* Sets prop (a count) of ent/pg to value, creating the pg (flags) if needed: one batch. */
static void set(backend_t *b, const char *ent, const char *pg, uint32_t flags, const char *prop,
        const char *value)
{
	const char *const vals[] = {value};
	backend_cmd_t c = {
	        .op = SMF_CMD_SET, .prop = prop, .type = "count", .values = vals, .n_values = 1};
	backend_step_t steps[] = {
	        {.op = SMF_STEP_PG_ENSURE,
	                .fmri = ent,
	                .pg = pg,
	                .type = "application",
	                .flags = flags},
	        {.op = SMF_STEP_PROPS, .fmri = ent, .pg = pg, .cmds = &c, .n_cmds = 1},
	};
	backend_pg_event_t *ev = NULL;
	size_t n = 0;

	if (backend_batch(b, steps, ELEMENTSOF(steps), &ev, &n) < 0)
		print_message("batch: %s\n", backend_errmsg(b));
	backend_pg_events_free(ev, n);
}

/* Commits prop := value on ent/pg (which exists) against its current generation. */
static void commit(
        backend_t *b, const char *ent, const char *pg, const char *prop, const char *value)
{
	_cleanup_backend_pg_ scf_pg_t *p = NULL;
	const char *const vals[] = {value};
	backend_cmd_t c = {.op = SMF_CMD_REPLACE,
	        .prop = prop,
	        .type = "count",
	        .values = vals,
	        .n_values = 1};

	assert_int_equal(backend_get_pg(b, ent, pg, NULL, false, &p), 0);
	assert_int_equal(backend_commit(b, ent, pg, p->generation, &c, 1, NULL), BACKEND_COMMITTED);
}

static uint64_t hits(backend_t *b)
{
	return pg_cache_stats(b).hits;
}

static void test_cache_commit_batch(void **state)
{
	Fixture *f = *state;
	uint64_t h, w;

	assert_int_equal(backend_add_instance(f->b, INST), 0);
	set(f->b, INST, "p", 0, "x", "1");
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "x"), "1");
	h = hits(f->b);
	w = pg_cache_stats(f->b).where_hits;
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "x"), "1");
	assert_int_equal(hits(f->b), h + 1); /* the second read came from the cache */
	assert_int_equal(pg_cache_stats(f->b).where_hits, w + 1); /* and was not looked up */

	commit(f->b, INST, "p", "x", "2"); /* its own read hits; the commit moves the generation */
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "x"), "2");
	set(f->b, INST, "p", 0, "x", "3"); /* a batch */
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "x"), "3");
	/* Non-persistent pgs live in the other database: same rule. */
	set(f->b, INST, "np", SCF_PG_FLAG_NONPERSISTENT, "x", "1");
	assert_string_equal(pg_values(f->b, INST, "np", NULL, false, "x"), "1");
	commit(f->b, INST, "np", "x", "2");
	assert_string_equal(pg_values(f->b, INST, "np", NULL, false, "x"), "2");
}

static void test_cache_delete_recreate(void **state)
{
	Fixture *f = *state;

	assert_int_equal(backend_add_instance(f->b, INST), 0);
	set(f->b, INST, "p", 0, "x", "1");
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "x"), "1");
	assert_int_equal(backend_delete_pg(f->b, INST, "p", NULL), 0);
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "x"), "<no pg>");
	set(f->b, INST, "p", 0, "y", "1"); /* a new pg of that name: no x */
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "x"), "<none>");
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "y"), "1");

	/* The entity goes and comes back under the same FMRI. */
	assert_int_equal(backend_delete_entity(f->b, INST, NULL, NULL), 0);
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "y"), "<no pg>");
	assert_int_equal(backend_add_instance(f->b, INST), 0);
	set(f->b, INST, "p", 0, "y", "2");
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "y"), "2");
}

static void test_cache_composed(void **state)
{
	Fixture *f = *state;

	assert_int_equal(backend_add_instance(f->b, INST), 0);
	set(f->b, SVC, "c", 0, "y", "1");
	set(f->b, INST, "c", 0, "x", "1");
	assert_string_equal(pg_values(f->b, INST, "c", NULL, true, "y"), "1");
	assert_string_equal(pg_values(f->b, INST, "c", NULL, true, "y"), "1");
	/* Only the service's pg changes: the instance's generation does not move. */
	commit(f->b, SVC, "c", "y", "2");
	assert_string_equal(pg_values(f->b, INST, "c", NULL, true, "y"), "2");
	assert_string_equal(pg_values(f->b, INST, "c", NULL, true, "x"), "1");
	/* The instance's property hides the service's of the same name. */
	set(f->b, SVC, "c", 0, "x", "9");
	assert_string_equal(pg_values(f->b, INST, "c", NULL, true, "x"), "1");
	assert_int_equal(backend_delete_pg(f->b, INST, "c", NULL), 0);
	assert_string_equal(pg_values(f->b, INST, "c", NULL, true, "x"), "9");
}

static void test_cache_snapshots(void **state)
{
	Fixture *f = *state;

	assert_int_equal(backend_add_instance(f->b, INST), 0);
	set(f->b, INST, "p", 0, "x", "1");
	assert_int_equal(backend_refresh(f->b, INST), 0);
	assert_string_equal(pg_values(f->b, INST, "p", "running", false, "x"), "1");
	commit(f->b, INST, "p", "x", "2");
	assert_string_equal(pg_values(f->b, INST, "p", "running", false, "x"), "1");
	assert_string_equal(pg_values(f->b, INST, "p", NULL, false, "x"), "2");
	assert_int_equal(backend_refresh(f->b, INST), 0);
	assert_string_equal(pg_values(f->b, INST, "p", "running", false, "x"), "2");
	assert_string_equal(pg_values(f->b, INST, "p", "previous", false, "x"), "1");
	/* A snapshot taken again under the same name. */
	commit(f->b, INST, "p", "x", "3");
	assert_int_equal(backend_take_snapshot(f->b, INST, "running"), 0);
	assert_string_equal(pg_values(f->b, INST, "p", "running", false, "x"), "3");
	assert_string_equal(pg_values(f->b, INST, "p", "previous", false, "x"), "1");
}

/* A visitor that writes what it is told as lines: "E fmri status", "P query name x=..." */
typedef struct log {
	char buf[4096];
	int stop_at; /* entity number (from 1) before which to stop; 0: never */
	int n;
} log_t;

static void logf_(log_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void logf_(log_t *l, const char *fmt, ...)
{
	size_t len = strlen(l->buf);
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(l->buf + len, sizeof(l->buf) - len, fmt, ap);
	va_end(ap);
}

static int log_entity(void *ud, const char *fmri, smf_bulk_status_t s)
{
	log_t *l = ud;

	if (l->stop_at && ++l->n == l->stop_at)
		return 1;
	logf_(l, "E %s %d\n", fmri, (int)s);
	return 0;
}

static int log_pg(void *ud, unsigned k, const char *name, const pg_read_t *p)
{
	log_t *l = ud;
	pg_read_iter_t it = {};
	const pgprop_t *q;

	logf_(l, "P %u %s %s", k, name, p->type);
	while ((q = pg_read_next(p, &it)))
		logf_(l, " %s=%s", q->name, q->vals);
	logf_(l, "\n");
	return 0;
}

static int log_end(void *ud)
{
	return 0;
}

static int bulk(Fixture *f, log_t *l, const char *const *ents, size_t n, const char *pattern,
        const char *after, const bulk_query_t *q, size_t nq)
{
	bulk_request_t req = {.entities = ents,
	        .n_entities = n,
	        .pattern = pattern,
	        .after = after,
	        .queries = q,
	        .n_queries = nq};
	bulk_visitor_t vis = {log_entity, log_pg, log_end, l};

	l->buf[0] = 0;
	l->n = 0;
	return backend_read_bulk(f->b, &req, &vis);
}

static void test_cache_bound(void **state)
{
	Fixture *f = *state;
	char inst[32], v[16];
	bulk_query_t q = {.name = "p"};
	pg_cache_stats_t st;
	log_t l = {};
	uint64_t h;

	for (int i = 0; i < 40; i++) {
		snprintf(inst, sizeof(inst), SVC ":i%d", i);
		assert_int_equal(backend_add_instance(f->b, inst), 0);
		snprintf(v, sizeof(v), "%d", i);
		set(f->b, inst, "p", 0, "x", v);
	}
	/* A bound of 4 KiB: the least recently used go, and every answer stays right. */
	pg_cache_set_max(f->b, 4096);
	for (int round = 0; round < 2; round++)
		for (int i = 0; i < 40; i++) {
			snprintf(inst, sizeof(inst), SVC ":i%d", i);
			snprintf(v, sizeof(v), "%d", i);
			assert_string_equal(pg_values(f->b, inst, "p", NULL, false, "x"), v);
			st = pg_cache_stats(f->b);
			assert_true(st.bytes <= 4096);
		}
	st = pg_cache_stats(f->b);
	assert_true(st.entries > 0 && st.entries < 40);

	/* A bulk read of all 40 uses what is kept but does not evict it. */
	pg_cache_set_max(f->b, 0);
	for (int i = 0; i < 4; i++) {
		snprintf(inst, sizeof(inst), SVC ":i%d", i);
		(void)pg_values(f->b, inst, "p", NULL, false, "x");
	}
	pg_cache_set_max(f->b, pg_cache_stats(f->b).bytes); /* full */
	assert_int_equal(bulk(f, &l, NULL, 0, NULL, NULL, &q, 1), 0);
	assert_non_null(strstr(l.buf, "E svc:/b:i39 0\nP 0 p application x=39\n"));
	h = hits(f->b);
	for (int i = 0; i < 4; i++) {
		snprintf(inst, sizeof(inst), SVC ":i%d", i);
		(void)pg_values(f->b, inst, "p", NULL, false, "x");
	}
	assert_int_equal(hits(f->b), h + 4);
}

/* svc:/b with i0 .. i3; i1 has no pg "p"; the service has "p" and two dependency pgs. */
static void populate(Fixture *f)
{
	char inst[32], v[8];

	for (int i = 0; i < 4; i++) {
		snprintf(inst, sizeof(inst), SVC ":i%d", i);
		assert_int_equal(backend_add_instance(f->b, inst), 0);
		snprintf(v, sizeof(v), "%d", i);
		if (i != 1)
			set(f->b, inst, "p", 0, "x", v);
	}
	set(f->b, SVC, "p", 0, "s", "9");
	assert_int_equal(backend_add_pg(f->b, SVC, "dep_a", "dependency", 0, NULL), 0);
	assert_int_equal(backend_add_pg(f->b, SVC ":i2", "dep_b", "dependency", 0, NULL), 0);
	assert_int_equal(backend_add_service(f->b, "svc:/c"), 0);
	assert_int_equal(backend_add_instance(f->b, "svc:/c:i3"), 0);
}

static void test_bulk_listed(void **state)
{
	Fixture *f = *state;
	const char *const ents[] = {
	        SVC ":i2", "svc://localhost/nope:x", "bad fmri", SVC ":i2", SVC};
	bulk_query_t q[] = {{.name = "p"}, {.name = "nopg"}};
	log_t l = {};

	populate(f);
	assert_int_equal(bulk(f, &l, ents, ELEMENTSOF(ents), NULL, NULL, q, 2), 0);
	assert_string_equal(l.buf,
	        "E svc:/b:i2 0\n"
	        "P 0 p application x=2\n"
	        "E svc:/nope:x 1\n"
	        "E bad fmri 2\n"
	        "E svc:/b:i2 0\n"
	        "P 0 p application x=2\n"
	        "E svc:/b 0\n"
	        "P 0 p application s=9\n");
	/* No queries: which entities exist. */
	assert_int_equal(bulk(f, &l, ents, 2, NULL, NULL, NULL, 0), 0);
	assert_string_equal(l.buf, "E svc:/b:i2 0\nE svc:/nope:x 1\n");
}

static void test_bulk_pattern(void **state)
{
	Fixture *f = *state;
	bulk_query_t q = {.name = "p"};
	log_t l = {};

	populate(f);
	assert_int_equal(bulk(f, &l, NULL, 0, "", NULL, &q, 1), 0);
	assert_string_equal(l.buf,
	        "E svc:/b:i0 0\nP 0 p application x=0\n"
	        "E svc:/b:i1 0\n"
	        "E svc:/b:i2 0\nP 0 p application x=2\n"
	        "E svc:/b:i3 0\nP 0 p application x=3\n"
	        "E svc:/c:i3 0\n");
	assert_int_equal(bulk(f, &l, NULL, 0, "svc:/b:i[12]", NULL, NULL, 0), 0);
	assert_string_equal(l.buf, "E svc:/b:i1 0\nE svc:/b:i2 0\n");
	/* No literal prefix: every instance is looked at. */
	assert_int_equal(bulk(f, &l, NULL, 0, "*:i3", NULL, NULL, 0), 0);
	assert_string_equal(l.buf, "E svc:/b:i3 0\nE svc:/c:i3 0\n");
	/* Without a special character, a pattern is one FMRI. */
	assert_int_equal(bulk(f, &l, NULL, 0, "svc:/b:i1", NULL, NULL, 0), 0);
	assert_string_equal(l.buf, "E svc:/b:i1 0\n");
	/* The next page: after an FMRI (which need not exist). */
	assert_int_equal(bulk(f, &l, NULL, 0, "svc:/b:*", "svc:/b:i1", NULL, 0), 0);
	assert_string_equal(l.buf, "E svc:/b:i2 0\nE svc:/b:i3 0\n");
	assert_int_equal(bulk(f, &l, NULL, 0, "", "svc:/b:i2x", NULL, 0), 0);
	assert_string_equal(l.buf, "E svc:/b:i3 0\nE svc:/c:i3 0\n");
	/* A visitor that stops before the third entity: two answered, more to come. */
	l.stop_at = 3;
	assert_int_equal(bulk(f, &l, NULL, 0, "", NULL, NULL, 0), 1);
	assert_string_equal(l.buf, "E svc:/b:i0 0\nE svc:/b:i1 0\n");
	l.stop_at = 6;
	assert_int_equal(bulk(f, &l, NULL, 0, "", NULL, NULL, 0), 0);
}

static void test_bulk_queries(void **state)
{
	Fixture *f = *state;
	const char *const ents[] = {SVC ":i1", SVC ":i2", SVC};
	bulk_query_t q[] = {
	        {.name = "p", .flags = SMF_BULK_COMPOSED},
	        {.type = "dependency", .flags = SMF_BULK_COMPOSED},
	        {.type = "dependency"},
	};
	char listed[sizeof(((log_t *)0)->buf)];
	log_t l = {};

	populate(f);
	assert_int_equal(bulk(f, &l, ents, ELEMENTSOF(ents), NULL, NULL, q, ELEMENTSOF(q)), 0);
	assert_string_equal(l.buf,
	        "E svc:/b:i1 0\n"
	        "P 0 p application s=9\n"
	        "P 1 dep_a dependency\n"
	        "E svc:/b:i2 0\n"
	        "P 0 p application s=9 x=2\n"
	        "P 1 dep_a dependency\n"
	        "P 1 dep_b dependency\n"
	        "P 2 dep_b dependency\n"
	        "E svc:/b 0\n"
	        "P 0 p application s=9\n"
	        "P 1 dep_a dependency\n"
	        "P 2 dep_a dependency\n");
	/* A pattern's scan answers queries by name from its own joins: the same answers. */
	*strstr(l.buf, "E svc:/b 0") = 0;
	strcpy(listed, l.buf);
	assert_int_equal(bulk(f, &l, NULL, 0, "svc:/b:i[12]", NULL, q, ELEMENTSOF(q)), 0);
	assert_string_equal(l.buf, listed);
	/* The instance's pg and the service's of another type do not compose. */
	assert_int_equal(
	        backend_add_pg(f->b, SVC ":i1", "p", "other", SCF_PG_FLAG_NONPERSISTENT, NULL), 0);
	assert_int_equal(bulk(f, &l, NULL, 0, "svc:/b:i1", NULL, q, 1), 0);
	assert_string_equal(l.buf, "E svc:/b:i1 0\nP 0 p other\n");
}

static void test_bulk_snapshots(void **state)
{
	Fixture *f = *state;
	const char *const ents[] = {SVC ":i0", SVC ":i2", SVC};
	bulk_query_t q[] = {
	        {.name = "p", .snapshot = "running"},
	        {.name = "p", .snapshot = "running", .flags = SMF_BULK_SNAPSHOT_FALLBACK},
	};
	log_t l = {};

	populate(f);
	assert_int_equal(backend_refresh(f->b, SVC ":i0"), 0);
	commit(f->b, SVC ":i0", "p", "x", "5");
	assert_int_equal(bulk(f, &l, ents, ELEMENTSOF(ents), NULL, NULL, q, ELEMENTSOF(q)), 0);
	assert_string_equal(l.buf,
	        "E svc:/b:i0 0\n"
	        "P 0 p application x=0\n"
	        "P 1 p application x=0\n"
	        "E svc:/b:i2 0\n"
	        "P 1 p application x=2\n" /* no snapshot: its current view */
	        "E svc:/b 0\n");          /* a service has no snapshots */
}

static void test_bulk_checks(void **state)
{
	Fixture *f = *state;
	bulk_query_t many[SMF_BULK_MAX_QUERIES + 1] = {};
	bulk_query_t both = {.name = "p", .type = "t"}, neither = {};
	bulk_query_t flags = {.name = "p", .flags = 0x4}, badname = {.name = "a b"};
	bulk_query_t badsnap = {.name = "p", .snapshot = "x y"};
	char pattern[SCF_LIMIT_MAX_FMRI_LENGTH + 2];
	log_t l = {};

	for (size_t k = 0; k < ELEMENTSOF(many); k++)
		many[k].name = "p";
	assert_int_equal(bulk(f, &l, NULL, 0, NULL, NULL, many, ELEMENTSOF(many)),
	        -SCF_ERROR_CONSTRAINT_VIOLATED);
	assert_int_equal(bulk(f, &l, NULL, 0, NULL, NULL, many, SMF_BULK_MAX_QUERIES), 0);
	assert_int_equal(bulk(f, &l, NULL, 0, NULL, NULL, &both, 1), -SCF_ERROR_INVALID_ARGUMENT);
	assert_non_null(strstr(backend_errmsg(f->b), "query 1"));
	assert_int_equal(
	        bulk(f, &l, NULL, 0, NULL, NULL, &neither, 1), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(bulk(f, &l, NULL, 0, NULL, NULL, &flags, 1), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(
	        bulk(f, &l, NULL, 0, NULL, NULL, &badname, 1), -SCF_ERROR_INVALID_ARGUMENT);
	assert_int_equal(
	        bulk(f, &l, NULL, 0, NULL, NULL, &badsnap, 1), -SCF_ERROR_INVALID_ARGUMENT);
	memset(pattern, 'a', sizeof(pattern) - 1);
	pattern[sizeof(pattern) - 1] = 0;
	assert_int_equal(
	        bulk(f, &l, NULL, 0, pattern, NULL, NULL, 0), -SCF_ERROR_CONSTRAINT_VIOLATED);
	assert_string_equal(l.buf, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_cache_commit_batch, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cache_delete_recreate, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cache_composed, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cache_snapshots, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cache_bound, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_bulk_listed, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_bulk_pattern, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_bulk_queries, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_bulk_snapshots, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_bulk_checks, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
