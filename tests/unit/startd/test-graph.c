/*
 * Unit tests of startd's dependency graph decisions (startd/graph.c), without a configd.
 *
 * Each test builds vertices and dependency groups by hand, as graph-thread.c would from the
 * repository, drives the graph with state reports, and checks the restarter events it emits:
 * which instances start, which stop, which restart on a dependency's refresh.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "graph.h"
#include "macro.h"
#include "probes.h"
#include "startd.h"
#include "queue.h"
#include "strv.h"

#define MAX_EMITTED 64

typedef struct emitted {
	int event;
	char fmri[256];
	uint64_t cause; /* the emitting thread's cause (queue.h) */
} emitted_t;

/* The graph under test and what it emitted since the last take(). */
typedef struct fixture {
	graph_t g;
	emitted_t ev[MAX_EMITTED];
	size_t n;
} fixture_t;

static void record(void *userdata, int event, const char *fmri)
{
	fixture_t *f = userdata;

	assert_true(f->n < MAX_EMITTED);
	f->ev[f->n].event = event;
	f->ev[f->n].cause = event_cause();
	snprintf(f->ev[f->n].fmri, sizeof(f->ev[f->n].fmri), "%s", fmri);
	f->n++;
}

static int setup(void **state)
{
	fixture_t *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	assert_int_equal(graph_init(&f->g, record, f), 0);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture_t *f = *state;

	graph_done(&f->g);
	free(f);
	return 0;
}

/* How many times event was emitted for fmri since the last take(); forgets what was emitted. */
static unsigned count(fixture_t *f, int event, const char *fmri)
{
	unsigned c = 0;

	for (size_t k = 0; k < f->n; k++)
		if (f->ev[k].event == event && streq(f->ev[k].fmri, fmri))
			c++;
	return c;
}

static void take(fixture_t *f)
{
	f->n = 0;
}

static vertex_t *add(fixture_t *f, const char *fmri, bool enabled, restarter_instance_state_t st)
{
	vertex_t *v = NULL;

	assert_int_equal(graph_vertex_add(&f->g, fmri, &v), 0);
	assert_non_null(v);
	vertex_set_enabled(v, enabled, -1);
	v->state = st;
	v->inserted = true; /* as if graph_announce() had run: decisions about it are emitted */
	return v;
}

/* One dependency group of v: grouping and restart_on as a pg spells them, then the entities. */
static depgroup_t *dep(vertex_t *v, const char *grouping, const char *restart_on, ...)
{
	depgroup_t d;
	const char *e;
	va_list ap;

	assert_int_equal(depgroup_init(&d, grouping, restart_on), 0);
	va_start(ap, restart_on);
	while ((e = va_arg(ap, const char *)))
		assert_int_equal(depgroup_add_entity(&d, e), 0);
	va_end(ap);
	assert_int_equal(vertex_dep_append(v, &d), 0);
	assert_null(d.entities);
	return &v->deps[v->n_deps - 1];
}

#define ON RESTARTER_STATE_ONLINE
#define OFF RESTARTER_STATE_OFFLINE

/* ---- dependency groups as read from a pg ---- */

static void test_depgroup_defaults(void **state)
{
	depgroup_t d;

	/* Absent: require_all, restart (as svccfg export assumes). */
	assert_int_equal(depgroup_init(&d, NULL, NULL), 0);
	assert_int_equal(d.grouping, DEPGRP_REQUIRE_ALL);
	assert_int_equal(d.restart_on, RESTART_ON_RESTART);
	assert_non_null(d.entities);
	assert_null(d.entities[0]);
	depgroup_done(&d);

	/* Unknown: the same defaults, never an error. */
	assert_int_equal(depgroup_init(&d, "require_some", "sometimes"), 0);
	assert_int_equal(d.grouping, DEPGRP_REQUIRE_ALL);
	assert_int_equal(d.restart_on, RESTART_ON_RESTART);
	depgroup_done(&d);

	assert_int_equal(depgroup_init(&d, "optional_all", "none"), 0);
	assert_int_equal(d.grouping, DEPGRP_OPTIONAL_ALL);
	assert_int_equal(d.restart_on, RESTART_ON_NONE);
	depgroup_done(&d);

	assert_int_equal(depgroup_init(&d, "exclude_all", "refresh"), 0);
	assert_int_equal(d.grouping, DEPGRP_EXCLUDE_ALL);
	assert_int_equal(d.restart_on, RESTART_ON_REFRESH);
	depgroup_done(&d);

	assert_int_equal(depgroup_init(&d, "require_any", "error"), 0);
	assert_int_equal(d.grouping, DEPGRP_REQUIRE_ANY);
	assert_int_equal(d.restart_on, RESTART_ON_ERROR);
	depgroup_done(&d);
}

static void test_depgroup_entities(void **state)
{
	depgroup_t d;

	assert_int_equal(depgroup_init(&d, NULL, NULL), 0);
	/* svc: FMRIs are canonicalized (the scope goes); anything else is kept as written. */
	assert_int_equal(depgroup_add_entity(&d, "svc://localhost/net/a:default"), 0);
	assert_int_equal(depgroup_add_entity(&d, "file://localhost/etc/passwd"), 0);
	assert_int_equal(depgroup_add_entity(&d, "svc:not a valid fmri::"), 0);
	assert_string_equal(d.entities[0], "svc:/net/a:default");
	assert_string_equal(d.entities[1], "file://localhost/etc/passwd");
	assert_string_equal(d.entities[2], "svc:not a valid fmri::");
	assert_null(d.entities[3]);
	depgroup_done(&d);
}

static void test_service_len(void **state)
{
	assert_int_equal(graph_service_len("svc:/net/a:default"), strlen("svc:/net/a"));
	assert_int_equal(graph_service_len("svc:/net/a"), 0);
	assert_int_equal(graph_service_len("svc:/a"), 0);
}

static void test_vertex_add(void **state)
{
	fixture_t *f = *state;
	vertex_t *v = add(f, "svc:/a:default", false, RESTARTER_STATE_UNINIT), *w = NULL;

	assert_ptr_equal(graph_vertex_get(&f->g, "svc:/a:default"), v);
	assert_null(graph_vertex_get(&f->g, "svc:/b:default"));
	assert_int_equal(graph_vertex_add(&f->g, "svc:/a:default", &w), -EEXIST);
	/* A new vertex is uninitialized and emits nothing until asked. */
	v = NULL;
	assert_int_equal(graph_vertex_add(&f->g, "svc:/c:default", &v), 0);
	assert_int_equal(v->state, RESTARTER_STATE_UNINIT);
	assert_false(v->enabled);
	assert_int_equal(v->n_deps, 0);
	assert_int_equal(f->n, 0);

	graph_send_enabled(&f->g, v);
	assert_int_equal(count(f, RE_DISABLE, "svc:/c:default"), 1);
	v->enabled = true;
	graph_send_enabled(&f->g, v);
	assert_int_equal(count(f, RE_ENABLE, "svc:/c:default"), 1);
	assert_int_equal(f->n, 2);
}

/* ---- the four groupings ---- */

static void test_require_all(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, ON);
	vertex_t *b = add(f, "svc:/b:default", true, OFF);
	vertex_t *c = add(f, "svc:/c:default", true, OFF);
	depgroup_t *d = dep(c, "require_all", NULL, "svc:/a:default", "svc:/b:default", NULL);

	assert_false(graph_group_satisfied(&f->g, d));
	b->state = RESTARTER_STATE_DEGRADED; /* degraded is up */
	assert_true(graph_group_satisfied(&f->g, d));
	a->state = RESTARTER_STATE_MAINT;
	assert_false(graph_group_satisfied(&f->g, d));
	a->state = ON;
	/* A dependency the graph does not know is not up. */
	d = dep(c, "require_all", NULL, "svc:/nowhere:default", NULL);
	assert_false(graph_group_satisfied(&f->g, d));
	assert_false(graph_deps_satisfied(&f->g, c));
	/* An empty group asks for nothing. */
	d = dep(b, "require_all", NULL, NULL);
	assert_true(graph_group_satisfied(&f->g, d));
}

static void test_require_any(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, OFF);
	vertex_t *b = add(f, "svc:/b:default", false, RESTARTER_STATE_DISABLED);
	vertex_t *c = add(f, "svc:/c:default", true, OFF);
	depgroup_t *d = dep(c, "require_any", NULL, "svc:/a:default", "svc:/b:default", NULL);

	assert_false(graph_group_satisfied(&f->g, d));
	b->state = ON;
	assert_true(graph_group_satisfied(&f->g, d));
	b->state = OFF;
	a->state = ON;
	assert_true(graph_group_satisfied(&f->g, d));
	/* None named: satisfied. */
	d = dep(c, "require_any", NULL, NULL);
	assert_true(graph_group_satisfied(&f->g, d));
}

static void test_optional_all(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, OFF);
	vertex_t *c = add(f, "svc:/c:default", true, OFF);
	depgroup_t *d = dep(c, "optional_all", NULL, "svc:/a:default", "svc:/absent:default", NULL);

	/* a is enabled and offline: it is coming, so it is waited for; absent is not. */
	assert_false(graph_group_satisfied(&f->g, d));
	a->state = RESTARTER_STATE_UNINIT;
	assert_false(graph_group_satisfied(&f->g, d));
	a->state = ON;
	assert_true(graph_group_satisfied(&f->g, d));
	/* Not coming: disabled, or in maintenance. */
	a->state = OFF;
	a->enabled = false;
	assert_true(graph_group_satisfied(&f->g, d));
	a->enabled = true;
	a->state = RESTARTER_STATE_MAINT;
	assert_true(graph_group_satisfied(&f->g, d));
}

static void test_exclude_all(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", false, RESTARTER_STATE_DISABLED);
	vertex_t *c = add(f, "svc:/c:default", true, OFF);
	depgroup_t *d = dep(c, "exclude_all", NULL, "svc:/a:default", "svc:/absent:default", NULL);

	assert_true(graph_group_satisfied(&f->g, d));
	a->state = ON;
	assert_false(graph_group_satisfied(&f->g, d));
	/* Coming counts as present: enabled and offline (or uninitialized). */
	a->enabled = true;
	a->state = OFF;
	assert_false(graph_group_satisfied(&f->g, d));
	a->state = RESTARTER_STATE_MAINT;
	assert_true(graph_group_satisfied(&f->g, d));
}

/* A service FMRI stands for all its instances. */
static void test_service_entity(void **state)
{
	fixture_t *f = *state;
	vertex_t *one = add(f, "svc:/net/a:one", true, OFF);
	vertex_t *two = add(f, "svc:/net/a:two", true, OFF);
	vertex_t *other = add(f, "svc:/net/ab:default", true, ON);
	vertex_t *c = add(f, "svc:/c:default", true, OFF);
	depgroup_t *req = dep(c, "require_all", NULL, "svc:/net/a", NULL);
	depgroup_t *ex = dep(c, "exclude_all", NULL, "svc:/net/a", NULL);

	/* svc:/net/ab is another service, not an instance of svc:/net/a. */
	assert_false(graph_group_satisfied(&f->g, req));
	two->state = ON;
	assert_true(graph_group_satisfied(&f->g, req));
	assert_false(graph_group_satisfied(&f->g, ex));
	two->state = OFF;
	two->enabled = one->enabled = false;
	assert_true(graph_group_satisfied(&f->g, ex));
	(void)other;
}

static void test_file_entity(void **state)
{
	fixture_t *f = *state;
	char path[] = "/tmp/test-graph.XXXXXX", uri[64], local[80], missing[80];
	vertex_t *c = add(f, "svc:/c:default", true, OFF);
	depgroup_t *d;
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	close(fd);
	snprintf(uri, sizeof(uri), "file://%s", path);
	snprintf(local, sizeof(local), "file://localhost%s", path);
	snprintf(missing, sizeof(missing), "file://%s.missing", path);
	d = dep(c, "require_all", NULL, uri, local, NULL);
	assert_true(graph_group_satisfied(&f->g, d));
	d = dep(c, "require_all", NULL, missing, NULL);
	assert_false(graph_group_satisfied(&f->g, d));
	d = dep(c, "exclude_all", NULL, missing, NULL);
	assert_true(graph_group_satisfied(&f->g, d));
	unlink(path);
	d = dep(c, "require_all", NULL, uri, NULL);
	assert_false(graph_group_satisfied(&f->g, d));
}

/* ---- what starts when ---- */

static void test_start_when_satisfied(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, OFF);
	vertex_t *b = add(f, "svc:/b:default", true, OFF);
	vertex_t *off = add(f, "svc:/off:default", false, OFF);
	vertex_t *un = add(f, "svc:/un:default", true, RESTARTER_STATE_UNINIT);

	dep(b, "require_all", NULL, "svc:/a:default", NULL);
	graph_evaluate(&f->g);
	/* a has nothing to wait for; b waits for a; a disabled or uninitialized one never starts. */
	assert_int_equal(count(f, RE_START, "svc:/a:default"), 1);
	assert_int_equal(f->n, 1);
	assert_true(a->start_pending);
	assert_false(b->start_pending);

	/* One request in flight: evaluating again asks nothing more. */
	take(f);
	graph_evaluate(&f->g);
	assert_int_equal(f->n, 0);

	/* a comes online: b is started, a is not asked again. */
	graph_set_state(&f->g, a, ON, RESTARTER_AUX_NONE);
	assert_false(a->start_pending);
	assert_int_equal(count(f, RE_START, "svc:/b:default"), 1);
	assert_int_equal(f->n, 1);

	/* A start that did not take (b is offline again): asked once more. */
	take(f);
	graph_set_state(&f->g, b, OFF, RESTARTER_AUX_METHOD_FAILED);
	assert_int_equal(count(f, RE_START, "svc:/b:default"), 1);
	assert_int_equal(f->n, 1);
	(void)off;
	(void)un;
}

static void test_start_waits_for_exclusion(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, ON);
	vertex_t *b = add(f, "svc:/b:default", true, OFF);

	dep(b, "exclude_all", NULL, "svc:/a:default", NULL);
	graph_evaluate(&f->g);
	assert_int_equal(f->n, 0);
	a->enabled = false;
	graph_set_state(&f->g, a, RESTARTER_STATE_DISABLED, RESTARTER_AUX_DISABLE_REQUEST);
	assert_int_equal(count(f, RE_START, "svc:/b:default"), 1);
	assert_int_equal(f->n, 1);
}

/* ---- what stops ---- */

static void test_stop_on_lost_dependency(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, ON);
	vertex_t *b = add(f, "svc:/b:default", true, ON);
	vertex_t *c = add(f, "svc:/c:default", true, ON);

	dep(b, "require_all", "none", "svc:/a:default", NULL);
	dep(c, "optional_all", "none", "svc:/a:default", NULL);
	graph_evaluate(&f->g);
	assert_int_equal(f->n, 0);

	/* Disabled (a reason ranked none): b stops whatever its restart_on. */
	a->enabled = false;
	graph_set_state(&f->g, a, RESTARTER_STATE_DISABLED, RESTARTER_AUX_DISABLE_REQUEST);
	assert_int_equal(count(f, RE_STOP, "svc:/b:default"), 1);
	/* c's optional dependency is no longer coming: c stays. */
	assert_int_equal(count(f, RE_STOP, "svc:/c:default"), 0);
	assert_int_equal(f->n, 1);
	assert_true(b->stop_pending);

	/* One stop in flight. */
	take(f);
	graph_evaluate(&f->g);
	assert_int_equal(f->n, 0);

	/* b went offline: it waits for a, and starts once a is back. */
	graph_set_state(&f->g, b, OFF, RESTARTER_AUX_DEPENDENCY_ACTIVITY);
	assert_int_equal(f->n, 0);
	a->enabled = true;
	graph_set_state(&f->g, a, ON, RESTARTER_AUX_NONE);
	assert_int_equal(count(f, RE_START, "svc:/b:default"), 1);
	assert_int_equal(f->n, 1);
}

/* An instance that a running exclude_all group names comes up: the dependent stops. */
static void test_stop_on_excluded_up(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, OFF);
	vertex_t *b = add(f, "svc:/b:default", true, ON);

	dep(b, "exclude_all", "none", "svc:/a:default", NULL);
	a->start_pending = true; /* as if already asked */
	graph_set_state(&f->g, a, ON, RESTARTER_AUX_NONE);
	assert_int_equal(count(f, RE_STOP, "svc:/b:default"), 1);
	assert_int_equal(f->n, 1);
}

static void test_remove_stops_dependents(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, ON);
	vertex_t *b = add(f, "svc:/b:default", true, ON);

	dep(b, "require_all", "none", "svc:/a:default", NULL);
	graph_vertex_remove(&f->g, a);
	assert_null(graph_vertex_get(&f->g, "svc:/a:default"));
	assert_int_equal(count(f, RE_REMOVE, "svc:/a:default"), 1);
	assert_int_equal(count(f, RE_STOP, "svc:/b:default"), 1);
	assert_int_equal(f->n, 2);
	/* The REMOVE goes first: the instance is gone before anything is decided about it. */
	assert_int_equal(f->ev[0].event, RE_REMOVE);
	(void)b;
}

/* ---- restart_on against the reason a dependency went down ---- */

static const char *const restart_ons[] = {"none", "error", "restart", "refresh"};

/*
 * For each reason a dependency went down (its auxiliary state) and each restart_on of the
 * dependent's group: is the dependent stopped?  Written out, not computed, so that a change of
 * the ranking shows here.
 */
static const struct {
	const char *aux;
	bool stops[4]; /* none, error, restart, refresh */
} reasons[] = {
        {RESTARTER_AUX_DISABLE_REQUEST, {true, true, true, true}},
        {RESTARTER_AUX_ADMINISTRATIVE_REQUEST, {true, true, true, true}},
        {RESTARTER_AUX_DEPENDENCY_ACTIVITY, {true, true, true, true}},
        {NULL, {true, true, true, true}},
        {RESTARTER_AUX_CT_EV_EXIT, {false, true, true, true}},
        {RESTARTER_AUX_METHOD_FAILED, {false, true, true, true}},
        {RESTARTER_AUX_FAULT_THRESHOLD, {false, true, true, true}},
        {RESTARTER_AUX_RESTARTING_TOO_QUICKLY, {false, true, true, true}},
        {RESTARTER_AUX_RESTART_REQUEST, {false, false, true, true}},
};

static void test_restart_on_matrix(void **state)
{
	for (size_t r = 0; r < ELEMENTSOF(reasons); r++)
		for (size_t k = 0; k < ELEMENTSOF(restart_ons); k++) {
			fixture_t f = {};
			vertex_t *a, *b;

			assert_int_equal(graph_init(&f.g, record, &f), 0);
			/* a is disabled, so that it is not started again. */
			a = add(&f, "svc:/a:default", false, ON);
			b = add(&f, "svc:/b:default", true, ON);
			dep(b, "require_all", restart_ons[k], "svc:/a:default", NULL);
			graph_set_state(&f.g, a, OFF, reasons[r].aux);
			if (count(&f, RE_STOP, "svc:/b:default") != (reasons[r].stops[k] ? 1u : 0u))
				fail_msg("a down for %s, b restart_on=%s: expected %s",
				        reasons[r].aux ? reasons[r].aux : "(none)", restart_ons[k],
				        reasons[r].stops[k] ? "a stop" : "no stop");
			assert_int_equal(f.n, reasons[r].stops[k] ? 1 : 0);
			assert_int_equal(b->deps[0].tolerated, !reasons[r].stops[k]);
			graph_done(&f.g);
		}
}

/*
 * A tolerated group keeps its dependent up while the dependency is away; once the dependency
 * is back the tolerance ends, so the next loss is judged afresh.
 */
static void test_tolerated_until_satisfied(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, ON);
	vertex_t *b = add(f, "svc:/b:default", true, ON);
	depgroup_t *d = dep(b, "require_all", "none", "svc:/a:default", NULL);

	graph_set_state(&f->g, a, OFF, RESTARTER_AUX_CT_EV_EXIT);
	assert_true(d->tolerated);
	/* a is asked to start again (it is enabled and offline); b is left alone. */
	assert_int_equal(count(f, RE_START, "svc:/a:default"), 1);
	assert_int_equal(count(f, RE_STOP, "svc:/b:default"), 0);

	/* Still away at a later evaluation: still tolerated. */
	take(f);
	graph_evaluate(&f->g);
	assert_int_equal(count(f, RE_STOP, "svc:/b:default"), 0);

	/* a is back: the group is satisfied, the tolerance ends. */
	graph_set_state(&f->g, a, ON, RESTARTER_AUX_NONE);
	assert_false(d->tolerated);

	/* Disabled now: b stops. */
	take(f);
	a->enabled = false;
	graph_set_state(&f->g, a, RESTARTER_STATE_DISABLED, RESTARTER_AUX_DISABLE_REQUEST);
	assert_int_equal(count(f, RE_STOP, "svc:/b:default"), 1);
}

/* A dependent that goes down itself loses its tolerance, and waits for the dependency. */
static void test_tolerance_ends_when_dependent_stops(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", false, ON);
	vertex_t *b = add(f, "svc:/b:default", true, ON);
	depgroup_t *d = dep(b, "require_all", "none", "svc:/a:default", NULL);

	graph_set_state(&f->g, a, RESTARTER_STATE_MAINT, RESTARTER_AUX_METHOD_FAILED);
	assert_true(d->tolerated);
	take(f);
	graph_set_state(&f->g, b, OFF, RESTARTER_AUX_RESTART_REQUEST);
	assert_false(d->tolerated);
	assert_int_equal(count(f, RE_START, "svc:/b:default"), 0);
}

/* The dependency named through its service is tolerated the same way. */
static void test_tolerance_through_service(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/net/a:default", true, ON);
	vertex_t *b = add(f, "svc:/b:default", true, ON);
	vertex_t *c = add(f, "svc:/c:default", true, ON);
	depgroup_t *db = dep(b, "require_all", "error", "svc:/net/a", NULL);
	depgroup_t *dc = dep(c, "require_all", "error", "svc:/net/a:default", NULL);

	graph_set_state(&f->g, a, OFF, RESTARTER_AUX_RESTART_REQUEST);
	assert_true(db->tolerated);
	assert_true(dc->tolerated);
	assert_int_equal(count(f, RE_STOP, "svc:/b:default"), 0);
	assert_int_equal(count(f, RE_STOP, "svc:/c:default"), 0);
}

/* exclude_all groups are never tolerated: a fault of what they exclude is not a reason. */
static void test_exclude_not_tolerated(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, ON);
	vertex_t *b = add(f, "svc:/b:default", true, ON);
	depgroup_t *d = dep(b, "exclude_all", "none", "svc:/a:default", NULL);

	b->stop_pending = true; /* already asked to stop for a being up */
	graph_set_state(&f->g, a, OFF, RESTARTER_AUX_CT_EV_EXIT);
	assert_false(d->tolerated);
}

/* ---- refresh ---- */

static void test_refresh_restarts_refresh_dependents(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/net/a:default", true, ON);
	vertex_t *r = add(f, "svc:/r:default", true, ON);
	vertex_t *s = add(f, "svc:/s:default", true, ON);
	vertex_t *x = add(f, "svc:/x:default", true, ON);
	vertex_t *down = add(f, "svc:/down:default", true, OFF);
	vertex_t *other = add(f, "svc:/other:default", true, ON);

	dep(r, "require_all", "refresh", "svc:/net/a:default", NULL);
	dep(s, "optional_all", "refresh", "svc:/net/a", NULL); /* through the service */
	dep(x, "exclude_all", "refresh", "svc:/net/a:default", NULL);
	dep(down, "require_all", "refresh", "svc:/net/a:default", NULL);
	dep(other, "require_all", "restart", "svc:/net/a:default", NULL);
	dep(a, "require_all", "refresh", "svc:/net/a:default", NULL); /* itself: ignored */
	graph_propagate_refresh(&f->g, a);
	assert_int_equal(count(f, RE_RESTART, "svc:/r:default"), 1);
	assert_int_equal(count(f, RE_RESTART, "svc:/s:default"), 1);
	assert_int_equal(f->n, 2);
}

/* Two groups naming the refreshed dependency: one restart. */
static void test_refresh_restarts_once(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, ON);
	vertex_t *r = add(f, "svc:/r:default", true, ON);

	dep(r, "require_all", "refresh", "svc:/a:default", NULL);
	dep(r, "require_any", "refresh", "svc:/a", NULL);
	graph_propagate_refresh(&f->g, a);
	assert_int_equal(count(f, RE_RESTART, "svc:/r:default"), 1);
	assert_int_equal(f->n, 1);
}

/* ---- the vertex's groups ---- */

static void test_deps_replace(void **state)
{
	fixture_t *f = *state;
	vertex_t *b = add(f, "svc:/b:default", true, OFF);

	for (int k = 0; k < 20; k++) /* past any first allocation */
		dep(b, "require_all", NULL, "svc:/a:default", NULL);
	assert_int_equal(b->n_deps, 20);
	assert_false(graph_deps_satisfied(&f->g, b));
	vertex_deps_clear(b);
	assert_int_equal(b->n_deps, 0);
	assert_null(b->deps);
	/* No group: b starts. */
	graph_evaluate(&f->g);
	assert_int_equal(count(f, RE_START, "svc:/b:default"), 1);
}

/* ---- dependency cycles ---- */

static const char *event_name(int event)
{
	if (event == GRAPH_OVR_DELETE)
		return "ovr_delete";
	if (event == GRAPH_OVR_DISABLE)
		return "ovr_disable";
	return restarter_event_name(event);
}

/* The events of one fmri since the last take(), in order, as "event,event". */
static const char *events_of(fixture_t *f, const char *fmri)
{
	static char buf[512];
	size_t n = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < f->n; k++)
		if (streq(f->ev[k].fmri, fmri))
			n += snprintf(buf + n, sizeof(buf) - n, "%s%s", n ? "," : "",
			        event_name(f->ev[k].event));
	return buf;
}

/* "a -> b -> c" of a cycle path. */
static const char *joined(char **path)
{
	static char buf[512];
	size_t n = 0;

	buf[0] = '\0';
	STRV_FOREACH (e, path)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", e == path ? "" : " -> ", *e);
	return buf;
}

/* a -> b -> a: configured in that order, b completes the cycle; a does not. */
static void test_cycle_of_two(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, OFF);
	vertex_t *b = add(f, "svc:/b:default", true, OFF);
	char **path = NULL;

	dep(a, "require_all", NULL, "svc:/b:default", NULL);
	dep(b, "require_all", NULL, "svc:/a:default", NULL);
	assert_false(graph_configure(&f->g, a));
	assert_int_equal(f->n, 0);
	assert_int_equal(graph_find_cycle(&f->g, b, &path), 1);
	assert_string_equal(joined(path), "svc:/a:default -> svc:/b:default");
	strv_free(path);
	assert_true(graph_configure(&f->g, b));
	assert_true(b->in_cycle);
	assert_string_equal(events_of(f, "svc:/b:default"), "dependency_cycle");
	assert_int_equal(f->n, 1);

	/* Checked again, it stays in the cycle, without a second event. */
	take(f);
	assert_true(graph_configure(&f->g, b));
	assert_int_equal(f->n, 0);
	/* b's own edges are out of the graph: a, checked again, is not in a cycle. */
	assert_false(graph_configure(&f->g, a));
	assert_false(a->in_cycle);

	/* Neither starts: b is in the cycle, a waits for b. */
	graph_evaluate(&f->g);
	assert_int_equal(count(f, RE_START, "svc:/a:default"), 0);
	assert_int_equal(count(f, RE_START, "svc:/b:default"), 0);

	/* b's dependency gone: no longer a cycle; it is only marked (svcadm clear resumes it). */
	vertex_deps_clear(b);
	assert_false(graph_configure(&f->g, b));
	assert_false(b->in_cycle);
	assert_int_equal(f->n, 0);
	graph_evaluate(&f->g);
	assert_int_equal(count(f, RE_START, "svc:/b:default"), 1);
}

/* a -> b -> c -> a: the last configured completes it; the path runs from its dependency. */
static void test_cycle_of_three(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, OFF);
	vertex_t *b = add(f, "svc:/b:default", true, OFF);
	vertex_t *c = add(f, "svc:/c:default", true, OFF);
	char **path = NULL;

	dep(a, "require_all", NULL, "svc:/b:default", NULL);
	dep(b, "optional_all", NULL, "svc:/c:default", NULL); /* any grouping but exclude_all */
	dep(c, "require_any", NULL, "svc:/nowhere:default", "svc:/a:default", NULL);
	assert_false(graph_configure(&f->g, a));
	assert_false(graph_configure(&f->g, b));
	assert_int_equal(graph_find_cycle(&f->g, c, &path), 1);
	assert_string_equal(joined(path), "svc:/a:default -> svc:/b:default -> svc:/c:default");
	strv_free(path);
	assert_true(graph_configure(&f->g, c));
	assert_string_equal(events_of(f, "svc:/c:default"), "dependency_cycle");
	assert_int_equal(f->n, 1);
	assert_false(a->in_cycle || b->in_cycle);
}

/* A dependency on a service is an edge to each of its instances; the path names the service. */
static void test_cycle_through_service(void **state)
{
	fixture_t *f = *state;
	vertex_t *x = add(f, "svc:/x:default", true, OFF);
	vertex_t *y1 = add(f, "svc:/y:one", true, OFF);
	vertex_t *y2 = add(f, "svc:/y:two", true, OFF);
	char **path = NULL;

	dep(x, "require_all", NULL, "svc:/y", NULL);
	dep(y2, "require_all", NULL, "svc:/x:default", NULL);
	assert_false(graph_configure(&f->g, x));
	assert_false(graph_configure(&f->g, y1));
	assert_int_equal(graph_find_cycle(&f->g, y2, &path), 1);
	assert_string_equal(joined(path), "svc:/x:default -> svc:/y -> svc:/y:two");
	strv_free(path);
	assert_true(graph_configure(&f->g, y2));
	assert_false(y1->in_cycle);
}

/* A diamond (a needs b and c, both need d) is no cycle; nor is an exclusion pointing back. */
static void test_no_cycle(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, OFF);
	vertex_t *b = add(f, "svc:/b:default", true, OFF);
	vertex_t *c = add(f, "svc:/c:default", true, OFF);
	vertex_t *d = add(f, "svc:/d:default", true, OFF);

	dep(a, "require_all", NULL, "svc:/b:default", "svc:/c:default", NULL);
	dep(b, "require_all", NULL, "svc:/d:default", NULL);
	dep(c, "require_any", NULL, "svc:/d:default", NULL);
	dep(d, "exclude_all", NULL, "svc:/a:default", NULL);
	dep(d, "require_all", NULL, "file:///", NULL);
	/* In either order. */
	assert_false(graph_configure(&f->g, a));
	assert_false(graph_configure(&f->g, b));
	assert_false(graph_configure(&f->g, c));
	assert_false(graph_configure(&f->g, d));
	assert_false(graph_configure(&f->g, a));
	assert_int_equal(graph_find_cycle(&f->g, a, NULL), 0);
	assert_int_equal(f->n, 0);
}

/* An instance that needs itself completes a cycle of one. */
static void test_cycle_of_one(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, OFF);
	char **path = NULL;

	dep(a, "require_all", NULL, "svc:/a:default", NULL);
	assert_int_equal(graph_find_cycle(&f->g, a, &path), 1);
	assert_string_equal(joined(path), "svc:/a:default");
	strv_free(path);
	assert_true(graph_configure(&f->g, a));
}

/* Vertices not configured yet are no edges: which member completes a cycle is an order. */
static void test_cycle_order(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, OFF);
	vertex_t *b = add(f, "svc:/b:default", true, OFF);

	dep(a, "require_all", NULL, "svc:/b:default", NULL);
	dep(b, "require_all", NULL, "svc:/a:default", NULL);
	assert_false(graph_configure(&f->g, b));
	assert_true(graph_configure(&f->g, a));
	assert_false(b->in_cycle);
}

/*
 * A new vertex in a cycle: its first events say insert, enable, then maintenance; disabled, it
 * is only disabled; enabled again, it is back in maintenance.
 */
static void test_cycle_announce(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, OFF);
	vertex_t *b = NULL;

	assert_int_equal(graph_vertex_add(&f->g, "svc:/b:default", &b), 0);
	vertex_set_enabled(b, true, -1);
	dep(a, "require_all", NULL, "svc:/b:default", NULL);
	dep(b, "require_all", NULL, "svc:/a:default", NULL);
	assert_false(graph_configure(&f->g, a));
	assert_true(graph_configure(&f->g, b));
	assert_int_equal(f->n, 0); /* not inserted yet: nothing about it is emitted */
	graph_announce(&f->g, b);
	assert_string_equal(events_of(f, "svc:/b:default"), "insert,enable,dependency_cycle");
	take(f);
	vertex_set_enabled(b, true, 0);
	graph_send_enabled(&f->g, b);
	assert_string_equal(events_of(f, "svc:/b:default"), "disable");
	take(f);
	vertex_set_enabled(b, true, -1);
	graph_send_enabled(&f->g, b);
	assert_string_equal(events_of(f, "svc:/b:default"), "enable,dependency_cycle");
}

/* A cycle through 2000 instances is found (the search keeps its own queue, no recursion). */
static void test_cycle_long(void **state)
{
	fixture_t *f = *state;
	enum { N = 2000 };
	char fmri[64], next[64];
	vertex_t *v;

	for (int k = 0; k < N; k++) {
		snprintf(fmri, sizeof(fmri), "svc:/c%d:default", k);
		snprintf(next, sizeof(next), "svc:/c%d:default", (k + 1) % N);
		v = add(f, fmri, true, OFF);
		dep(v, "require_all", NULL, next, NULL);
		assert_int_equal(graph_configure(&f->g, v), k == N - 1);
	}
}

/* ---- milestones ---- */

#define MU SCF_MILESTONE_MULTI_USER

/*
 * base <- mu (the multi-user milestone) ; app -> base ; opt: mu optional_all on opt ;
 * ex: mu exclude_all ex.  Everything enabled and online.
 */
typedef struct ms_graph {
	vertex_t *mu, *base, *app, *opt, *ex;
} ms_graph_t;

static ms_graph_t ms_graph(fixture_t *f)
{
	ms_graph_t m = {
	        .mu = add(f, MU, true, ON),
	        .base = add(f, "svc:/base:default", true, ON),
	        .app = add(f, "svc:/app:default", true, ON),
	        .opt = add(f, "svc:/opt:default", true, ON),
	        .ex = add(f, "svc:/ex:default", true, ON),
	};

	dep(m.mu, "require_all", NULL, "svc:/base", NULL);
	dep(m.mu, "optional_all", NULL, "svc:/opt:default", NULL);
	dep(m.mu, "exclude_all", NULL, "svc:/ex:default", NULL);
	dep(m.app, "require_all", NULL, "svc:/base:default", NULL);
	graph_milestone_update(&f->g); /* "all": everything inside, nothing written */
	assert_int_equal(f->n, 0);
	return m;
}

static void test_milestone_subgraph(void **state)
{
	fixture_t *f = *state;
	ms_graph_t m = ms_graph(f);

	assert_string_equal(graph_milestone(&f->g), "all");
	assert_true(m.app->in_subgraph && m.ex->in_subgraph);
	assert_int_equal(graph_set_milestone(&f->g, "svc:/milestone/multi-user"), -EINVAL);
	assert_int_equal(graph_set_milestone(&f->g, "svc:/app:default"), -EINVAL);
	assert_int_equal(graph_set_milestone(&f->g, "bogus"), -EINVAL);
	assert_int_equal(graph_set_milestone(&f->g, SCF_MILESTONE_SINGLE_USER), -ENOENT);
	assert_int_equal(graph_set_milestone(&f->g, "all"), -EALREADY);
	assert_int_equal(f->n, 0);

	/* Any spelling of the milestone's FMRI. */
	assert_int_equal(
	        graph_set_milestone(&f->g, "svc://localhost/milestone/multi-user:default"), 0);
	assert_string_equal(graph_milestone(&f->g), MU);
	assert_int_equal(graph_set_milestone(&f->g, MU), -EALREADY);
	/* The milestone, what it requires (through the service), what it optionally has. */
	assert_true(m.mu->in_subgraph && m.base->in_subgraph && m.opt->in_subgraph);
	/* Not what depends on it, nor what it excludes. */
	assert_false(m.app->in_subgraph || m.ex->in_subgraph);
}

/* Below an optional_all group only what general/enabled enables is inside. */
static void test_milestone_optional_disabled(void **state)
{
	fixture_t *f = *state;
	ms_graph_t m = ms_graph(f);
	vertex_t *deep = add(f, "svc:/deep:default", false, RESTARTER_STATE_DISABLED);

	dep(m.opt, "require_all", NULL, "svc:/deep:default", NULL);
	vertex_set_enabled(m.opt, false, 1); /* enabled by a temporary override only */
	assert_int_equal(graph_set_milestone(&f->g, MU), 0);
	assert_false(m.opt->in_subgraph);
	assert_false(deep->in_subgraph);
	/* Enabled for good: inside, and what it requires below the optional group is not. */
	vertex_set_enabled(m.opt, true, -1);
	graph_milestone_update(&f->g);
	assert_true(m.opt->in_subgraph);
	assert_false(deep->in_subgraph);
}

/*
 * To the multi-user milestone: app and ex (outside, up) are disabled by an override at once,
 * being leaves; going back to "all" drops the overrides and enables them again.
 */
static void test_milestone_stops_outside(void **state)
{
	fixture_t *f = *state;
	ms_graph_t m = ms_graph(f);

	vertex_set_enabled(m.base, true, 1); /* a temporary enable inside: its override goes */
	assert_int_equal(graph_set_milestone(&f->g, MU), 0);
	assert_string_equal(events_of(f, "svc:/app:default"), "ovr_disable,disable");
	assert_string_equal(events_of(f, "svc:/ex:default"), "ovr_disable,disable");
	assert_string_equal(events_of(f, "svc:/base:default"), "ovr_delete");
	assert_string_equal(events_of(f, MU), "");
	assert_false(m.app->enabled);
	assert_int_equal(m.app->enabled_ovr, 0);

	/* The override's notification finds what the graph holds: nothing more to do. */
	take(f);
	graph_milestone_update(&f->g);
	assert_int_equal(f->n, 0);
	/* Disabled, app never starts. */
	graph_set_state(&f->g, m.app, RESTARTER_STATE_DISABLED, RESTARTER_AUX_DISABLE_REQUEST);
	assert_int_equal(count(f, RE_START, "svc:/app:default"), 0);

	take(f);
	assert_int_equal(graph_set_milestone(&f->g, "all"), 0);
	assert_string_equal(events_of(f, "svc:/app:default"), "ovr_delete,enable");
	assert_string_equal(events_of(f, "svc:/ex:default"), "ovr_delete,enable");
	assert_true(m.app->enabled);
	assert_int_equal(m.app->enabled_ovr, -1);
}

/* "none" disables the leaves first: mu and app, then base once nothing up depends on it. */
static void test_milestone_none_leaves_first(void **state)
{
	fixture_t *f = *state;
	ms_graph_t m = ms_graph(f);

	assert_int_equal(graph_set_milestone(&f->g, "none"), 0);
	assert_string_equal(events_of(f, MU), "ovr_disable,disable");
	assert_string_equal(events_of(f, "svc:/app:default"), "ovr_disable,disable");
	/* opt and ex: mu depends on them, but not as a requirement that keeps them up */
	assert_string_equal(events_of(f, "svc:/base:default"), "");
	assert_true(m.base->enabled);

	/* app goes down: base is still needed by mu. */
	take(f);
	graph_set_state(&f->g, m.app, RESTARTER_STATE_DISABLED, RESTARTER_AUX_DISABLE_REQUEST);
	assert_string_equal(events_of(f, "svc:/base:default"), "");
	/* mu goes down: base is a leaf now. */
	graph_set_state(&f->g, m.mu, RESTARTER_STATE_DISABLED, RESTARTER_AUX_DISABLE_REQUEST);
	assert_string_equal(events_of(f, "svc:/base:default"), "ovr_disable,disable");
	(void)m.opt;
}

/*
 * While a milestone is set, a new vertex outside it is disabled before it is announced, one
 * inside is admitted (its override dropped); under "all" nothing is written.
 */
static void test_milestone_new_vertex(void **state)
{
	fixture_t *f = *state;
	ms_graph_t m = ms_graph(f);
	vertex_t *late = NULL, *dep2 = NULL;

	assert_int_equal(graph_set_milestone(&f->g, MU), 0);
	take(f);
	assert_int_equal(graph_vertex_add(&f->g, "svc:/late:default", &late), 0);
	vertex_set_enabled(late, true, -1);
	graph_milestone_update(&f->g);
	assert_string_equal(events_of(f, "svc:/late:default"), "ovr_disable");
	graph_announce(&f->g, late);
	assert_string_equal(events_of(f, "svc:/late:default"), "ovr_disable,insert,disable");

	/* base now also needs dep2, which is enabled temporarily: it comes inside. */
	take(f);
	assert_int_equal(graph_vertex_add(&f->g, "svc:/dep2:default", &dep2), 0);
	vertex_set_enabled(dep2, false, 1);
	dep(m.base, "require_all", NULL, "svc:/dep2:default", NULL);
	graph_milestone_update(&f->g);
	assert_true(dep2->in_subgraph);
	assert_string_equal(events_of(f, "svc:/dep2:default"), "ovr_delete");
	assert_false(dep2->enabled);

	/* base no longer needs it: it leaves, but disabled already, nothing is written. */
	take(f);
	vertex_deps_clear(m.base);
	graph_milestone_update(&f->g);
	assert_false(dep2->in_subgraph);
	assert_int_equal(f->n, 0);
}

/* ---- bursts (graph-thread.c handles the events of a burst with evaluation deferred) ---- */

static void test_deferred_evaluation(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, RESTARTER_STATE_UNINIT);
	vertex_t *b = add(f, "svc:/b:default", true, RESTARTER_STATE_UNINIT);
	vertex_t *c = add(f, "svc:/c:default", false, OFF);

	dep(b, "require_all", NULL, "svc:/a:default", NULL);
	/* A burst: a and b report offline, then b is disabled; nothing is asked meanwhile. */
	graph_defer_begin(&f->g);
	graph_set_state(&f->g, a, OFF, RESTARTER_AUX_ENABLE_REQUEST);
	graph_set_state(&f->g, b, OFF, RESTARTER_AUX_ENABLE_REQUEST);
	graph_set_state(&f->g, c, OFF, RESTARTER_AUX_NONE);
	assert_int_equal(f->n, 0);
	vertex_set_enabled(b, false, -1);
	/* One evaluation at the end, over the vertices as they are then: b's start is moot. */
	graph_defer_end(&f->g);
	assert_int_equal(count(f, RE_START, "svc:/a:default"), 1);
	assert_int_equal(f->n, 1);
	assert_false(b->start_pending);

	/* Nothing asked for during a burst: nothing evaluated at its end. */
	take(f);
	a->start_pending = false;
	graph_defer_begin(&f->g);
	graph_defer_end(&f->g);
	assert_int_equal(f->n, 0);
	/* Outside a burst, evaluations are immediate again. */
	graph_evaluate(&f->g);
	assert_int_equal(count(f, RE_START, "svc:/a:default"), 1);
}

/*
 * A START decided at a burst's end descends from the event that made it due (the vertex's
 * state report), not from the burst's last event, which named another instance; an immediate
 * one from the current event.
 */
static void test_deferred_cause(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, RESTARTER_STATE_UNINIT);
	vertex_t *b = add(f, "svc:/b:default", false, RESTARTER_STATE_UNINIT);

	graph_defer_begin(&f->g);
	event_cause_set(5);
	graph_set_state(&f->g, a, OFF, RESTARTER_AUX_ENABLE_REQUEST);
	event_cause_set(9);
	graph_set_state(&f->g, b, OFF, RESTARTER_AUX_NONE);
	graph_defer_end(&f->g);
	assert_int_equal(f->n, 1);
	assert_int_equal(f->ev[0].event, RE_START);
	assert_int_equal(f->ev[0].cause, 5);
	assert_int_equal(event_cause(), 9); /* the thread's own cause is left as it was */

	/* b enabled by commit 12, immediately evaluated: START under the current cause. */
	take(f);
	event_cause_set(12);
	vertex_set_enabled(b, true, -1);
	assert_int_equal(b->cause, 12);
	graph_evaluate(&f->g);
	assert_int_equal(count(f, RE_START, "svc:/b:default"), 1);
	assert_int_equal(f->ev[0].cause, 12);
	event_cause_set(0);
}

/*
 * At a burst's end: a dependent started because its dependency came up carries the
 * dependency's (later) cause; a report with no cause (a reaped process) starts under none,
 * not under the burst's last event.
 */
static void test_deferred_cause_deps(void **state)
{
	fixture_t *f = *state;
	vertex_t *a = add(f, "svc:/a:default", true, RESTARTER_STATE_UNINIT);
	vertex_t *b = add(f, "svc:/b:default", true, RESTARTER_STATE_UNINIT);
	vertex_t *c = add(f, "svc:/c:default", true, RESTARTER_STATE_UNINIT);
	vertex_t *x = add(f, "svc:/x:default", false, RESTARTER_STATE_UNINIT);

	dep(b, "require_all", NULL, "svc:/a:default", NULL);
	event_cause_set(3);
	graph_set_state(&f->g, b, OFF, RESTARTER_AUX_ENABLE_REQUEST); /* waits for a */
	assert_int_equal(f->n, 0);

	graph_defer_begin(&f->g);
	event_cause_set(0);
	graph_set_state(&f->g, c, OFF, RESTARTER_AUX_METHOD_FAILED); /* no cause */
	event_cause_set(8);
	graph_set_state(&f->g, a, ON, RESTARTER_AUX_NONE); /* a comes up */
	event_cause_set(11);
	graph_set_state(&f->g, x, OFF, RESTARTER_AUX_NONE); /* another instance */
	graph_defer_end(&f->g);
	assert_int_equal(count(f, RE_START, "svc:/b:default"), 1);
	assert_int_equal(count(f, RE_START, "svc:/c:default"), 1);
	for (size_t k = 0; k < f->n; k++)
		if (streq(f->ev[k].fmri, "svc:/b:default"))
			assert_int_equal(f->ev[k].cause, 8);
		else if (streq(f->ev[k].fmri, "svc:/c:default"))
			assert_int_equal(f->ev[k].cause, 0);

	/*
	 * The latest change, not the largest id: configd's ids start again after it restarts, so
	 * d's report under commit 2, after a's under 8, is what d's START descends from.
	 */
	vertex_t *d = add(f, "svc:/d:default", true, RESTARTER_STATE_UNINIT);

	dep(d, "require_all", NULL, "svc:/a:default", NULL);
	take(f);
	graph_defer_begin(&f->g);
	event_cause_set(2);
	graph_set_state(&f->g, d, OFF, RESTARTER_AUX_ENABLE_REQUEST);
	graph_defer_end(&f->g);
	assert_int_equal(count(f, RE_START, "svc:/d:default"), 1);
	assert_int_equal(f->ev[0].cause, 2);
	event_cause_set(0);
}

/* Under "all", a new vertex is inside at once, and the update has nothing to do. */
static void test_milestone_all_new_vertex(void **state)
{
	fixture_t *f = *state;
	vertex_t *v = NULL;

	assert_int_equal(graph_vertex_add(&f->g, "svc:/n:default", &v), 0);
	assert_true(v->in_subgraph);
	assert_true(v->ms_known);
	graph_milestone_update(&f->g);
	assert_int_equal(f->n, 0);
	/* Leaving "all" for "none" and coming back marks every vertex inside again. */
	vertex_set_enabled(v, true, -1);
	assert_int_equal(graph_set_milestone(&f->g, RESTARTER_MILESTONE_NONE), 0);
	assert_false(v->in_subgraph);
	assert_int_equal(graph_set_milestone(&f->g, RESTARTER_MILESTONE_ALL), 0);
	assert_true(v->in_subgraph);
	/* Under "none", a new vertex is outside until the update decides. */
	assert_int_equal(graph_set_milestone(&f->g, RESTARTER_MILESTONE_NONE), 0);
	assert_int_equal(graph_vertex_add(&f->g, "svc:/m:default", &v), 0);
	assert_false(v->ms_known);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_depgroup_defaults),
	        cmocka_unit_test(test_depgroup_entities),
	        cmocka_unit_test(test_service_len),
	        cmocka_unit_test_setup_teardown(test_vertex_add, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_require_all, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_require_any, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_optional_all, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_exclude_all, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_service_entity, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_file_entity, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_start_when_satisfied, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_start_waits_for_exclusion, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_stop_on_lost_dependency, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_stop_on_excluded_up, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_remove_stops_dependents, setup, teardown),
	        cmocka_unit_test(test_restart_on_matrix),
	        cmocka_unit_test_setup_teardown(test_tolerated_until_satisfied, setup, teardown),
	        cmocka_unit_test_setup_teardown(
	                test_tolerance_ends_when_dependent_stops, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_tolerance_through_service, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_exclude_not_tolerated, setup, teardown),
	        cmocka_unit_test_setup_teardown(
	                test_refresh_restarts_refresh_dependents, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_refresh_restarts_once, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_deps_replace, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cycle_of_two, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cycle_of_three, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cycle_through_service, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_no_cycle, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cycle_of_one, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cycle_order, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cycle_announce, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_cycle_long, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_milestone_subgraph, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_milestone_optional_disabled, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_milestone_stops_outside, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_milestone_none_leaves_first, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_milestone_new_vertex, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_deferred_evaluation, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_deferred_cause, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_deferred_cause_deps, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_milestone_all_new_vertex, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
