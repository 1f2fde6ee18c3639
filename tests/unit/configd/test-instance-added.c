/*
 * test-instance-added: what configd's backend reports about new instances (issue 10), without
 * D-Bus.
 *
 * backend_create_instance() names the instance it made and, with configd-eager, the restarter
 * pg it made with it (state uninitialized, next_state none, auxiliary_state insert_in_graph, a
 * state_timestamp; non-persistent, generation 1, in the same transaction); a batch lists the
 * instances it created that still exist at its end (so configd announces each once, and never
 * one the batch also deleted), and with configd-eager reports their restarter pgs as created.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "backend-internal.h"
#include "macro.h"
#include "paths.h"
#include "strv.h"
#include "test-root.h"

typedef struct Fixture {
	char root[64];
	backend_t *b;
} Fixture;

#define SVC "svc:/site/x"
#define OLD "svc:/site/x:old"

static int setup(void **state)
{
	Fixture *f = calloc(1, sizeof(*f));
	_cleanup_free_ char *vol = NULL, *msg = NULL;

	assert_non_null(f);
	assert_int_equal(test_root_make(f->root, sizeof(f->root), "test-instance-added"), 0);
	assert_int_equal(smf_path(f->root, SMF_REL_VOLATILE_DIR, &vol), 0);
	assert_int_equal(smf_mkdir_p(vol, 0755), 0);
	assert_int_equal(backend_open(f->root, &f->b, &msg), 0);
	assert_int_equal(backend_add_service(f->b, SVC), 0);
	assert_int_equal(backend_add_instance(f->b, OLD), 0);
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

/* The single value of entity/restarter/prop. */
static char *rprop(Fixture *f, const char *entity, const char *prop)
{
	_cleanup_backend_pg_ scf_pg_t *pg = NULL;

	assert_int_equal(backend_get_pg(f->b, entity, SCF_PG_RESTARTER, NULL, false, &pg), 0);
	for (size_t i = 0; i < pg->n_props; i++)
		if (streq(pg->props[i].name, prop)) {
			assert_int_equal(pg->props[i].n_values, 1);
			return strdup(pg->props[i].values[0]);
		}
	fail_msg("%s: no restarter/%s", entity, prop);
	return NULL;
}

static void assert_initial_restarter(Fixture *f, const char *fmri)
{
	_cleanup_backend_pg_ scf_pg_t *pg = NULL;
	_cleanup_free_ char *state = rprop(f, fmri, SCF_PROPERTY_STATE);
	_cleanup_free_ char *next = rprop(f, fmri, SCF_PROPERTY_NEXT_STATE);
	_cleanup_free_ char *aux = rprop(f, fmri, SCF_PROPERTY_AUX_STATE);
	_cleanup_free_ char *ts = rprop(f, fmri, SCF_PROPERTY_STATE_TIMESTAMP);

	assert_int_equal(backend_get_pg(f->b, fmri, SCF_PG_RESTARTER, NULL, false, &pg), 0);
	assert_string_equal(pg->type, SCF_GROUP_FRAMEWORK);
	assert_int_equal(pg->flags, SCF_PG_FLAG_NONPERSISTENT);
	assert_int_equal(pg->generation, 1);
	assert_int_equal(pg->n_props, 4);
	assert_string_equal(state, "uninitialized");
	assert_string_equal(next, "none");
	assert_string_equal(aux, "insert_in_graph");
	assert_non_null(strchr(ts, '.'));
}

static void test_plain_instance_has_no_pg(void **state)
{
	Fixture *f = *state;
	_cleanup_free_ char *canon = NULL;
	_cleanup_backend_pg_ scf_pg_t *rpg = NULL, *pg = NULL;

	assert_int_equal(backend_create_instance(f->b, "site/x:a", &canon, &rpg), 0);
	assert_string_equal(canon, "svc:/site/x:a");
	assert_null(rpg);
	assert_int_equal(backend_get_pg(f->b, canon, SCF_PG_RESTARTER, NULL, false, &pg),
	        -SCF_ERROR_NOT_FOUND);
}

static void test_eager_instance_has_initial_pg(void **state)
{
	Fixture *f = *state;
	_cleanup_free_ char *canon = NULL;
	_cleanup_backend_pg_ scf_pg_t *rpg = NULL;

	backend_set_eager_restarter(f->b, true);
	assert_int_equal(backend_create_instance(f->b, "svc:/site/x:e", &canon, &rpg), 0);
	assert_non_null(rpg);
	assert_string_equal(rpg->entity, "svc:/site/x:e");
	assert_string_equal(rpg->name, SCF_PG_RESTARTER);
	assert_int_equal(rpg->generation, 1);
	assert_initial_restarter(f, canon);
	/* A failing creation leaves neither the instance nor a pg behind. */
	assert_int_equal(
	        backend_create_instance(f->b, "svc:/site/x:e", NULL, NULL), -SCF_ERROR_EXISTS);
	assert_int_equal(backend_create_instance(f->b, "svc:/site/none:e", NULL, NULL),
	        -SCF_ERROR_NOT_FOUND);
	assert_int_equal(backend_entity_exists(f->b, "svc:/site/none:e"), 0);
	assert_int_equal(backend_tx_depth(f->b), 0);
}

static int batch(Fixture *f, const backend_step_t *steps, size_t n, backend_pg_event_t **ev,
        size_t *n_ev, char ***added)
{
	return backend_batch_added(f->b, steps, n, ev, n_ev, added);
}

static void test_batch_lists_created_instances(void **state)
{
	Fixture *f = *state;
	const backend_step_t steps[] = {
	        {.op = SMF_STEP_SERVICE_ENSURE, .fmri = "svc:/site/y"},
	        {.op = SMF_STEP_INSTANCE_ENSURE, .fmri = "svc:/site/y:b"},
	        {.op = SMF_STEP_INSTANCE_ENSURE, .fmri = OLD},        /* exists: not new */
	        {.op = SMF_STEP_INSTANCE_ENSURE, .fmri = "site/y:a"}, /* any form: canonical */
	        {.op = SMF_STEP_INSTANCE_ENSURE, .fmri = "svc:/site/y:gone"},
	        {.op = SMF_STEP_ENTITY_DELETE, .fmri = "svc:/site/y:gone"}, /* never announced */
	        {.op = SMF_STEP_INSTANCE_ENSURE, .fmri = "svc:/site/y:b"},  /* once only */
	};
	backend_pg_event_t *ev = NULL;
	size_t n_ev = 0;
	_cleanup_strv_free_ char **added = NULL;

	assert_int_equal(
	        batch(f, steps, ELEMENTSOF(steps), &ev, &n_ev, &added), (int)ELEMENTSOF(steps));
	assert_int_equal(strv_length(added), 2);
	assert_string_equal(added[0], "svc:/site/y:b");
	assert_string_equal(added[1], "svc:/site/y:a");
	assert_int_equal(n_ev, 0); /* no pg: no pg event (not eager) */
	backend_pg_events_free(ev, n_ev);
}

static void test_batch_failure_announces_nothing(void **state)
{
	Fixture *f = *state;
	const backend_step_t steps[] = {
	        {.op = SMF_STEP_INSTANCE_ENSURE, .fmri = "svc:/site/x:c"},
	        {.op = SMF_STEP_INSTANCE_ENSURE, .fmri = "svc:/site/missing:c"},
	};
	backend_pg_event_t *ev = NULL;
	size_t n_ev = 0;
	char **added = NULL;

	assert_true(batch(f, steps, ELEMENTSOF(steps), &ev, &n_ev, &added) < 0);
	assert_null(added);
	assert_int_equal(backend_entity_exists(f->b, "svc:/site/x:c"), 0);
	/* An empty batch lists nothing, and says so with an empty list. */
	assert_int_equal(batch(f, steps, 0, &ev, &n_ev, &added), 0);
	assert_non_null(added);
	assert_int_equal(strv_length(added), 0);
	strv_free(added);
	backend_pg_events_free(ev, n_ev);
}

static void test_batch_eager_reports_the_pg(void **state)
{
	Fixture *f = *state;
	const backend_step_t steps[] = {
	        {.op = SMF_STEP_INSTANCE_ENSURE, .fmri = "svc:/site/x:d"},
	        {.op = SMF_STEP_PG_ENSURE,
	                .fmri = "svc:/site/x:d",
	                .pg = "general",
	                .type = "framework"},
	        {.op = SMF_STEP_INSTANCE_ENSURE, .fmri = OLD}, /* exists: no pg made for it */
	};
	backend_pg_event_t *ev = NULL;
	size_t n_ev = 0;
	_cleanup_strv_free_ char **added = NULL;
	_cleanup_backend_pg_ scf_pg_t *pg = NULL;

	backend_set_eager_restarter(f->b, true);
	assert_int_equal(batch(f, steps, ELEMENTSOF(steps), &ev, &n_ev, &added), 3);
	assert_int_equal(strv_length(added), 1);
	assert_string_equal(added[0], "svc:/site/x:d");
	/* The restarter pg first (it was made with the instance), then general; both created. */
	assert_int_equal(n_ev, 2);
	assert_string_equal(ev[0].pg.name, SCF_PG_RESTARTER);
	assert_true(ev[0].created && !ev[0].deleted);
	assert_int_equal(ev[0].pg.generation, 1);
	assert_int_equal(ev[0].pg.flags, SCF_PG_FLAG_NONPERSISTENT);
	assert_string_equal(ev[1].pg.name, "general");
	assert_true(ev[1].created);
	backend_pg_events_free(ev, n_ev);
	assert_initial_restarter(f, "svc:/site/x:d");
	assert_int_equal(backend_get_pg(f->b, OLD, SCF_PG_RESTARTER, NULL, false, &pg),
	        -SCF_ERROR_NOT_FOUND);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test_setup_teardown(test_plain_instance_has_no_pg, setup, teardown),
	        cmocka_unit_test_setup_teardown(
	                test_eager_instance_has_initial_pg, setup, teardown),
	        cmocka_unit_test_setup_teardown(
	                test_batch_lists_created_instances, setup, teardown),
	        cmocka_unit_test_setup_teardown(
	                test_batch_failure_announces_nothing, setup, teardown),
	        cmocka_unit_test_setup_teardown(test_batch_eager_reports_the_pg, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
