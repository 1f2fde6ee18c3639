/*
 * graph-eval.c: the graph's decisions, over vertex_t and depgroup_t (the model is in graph.h).
 *
 * No repository access and no thread of its own: graph.c reads the repository into these
 * structs and calls in from the graph thread; tests/unit/startd calls in directly.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph.h"
#include "restarter.h"
#include "libscf.h"
#include "log.h"
#include "macro.h"
#include "startd.h"
#include "strv.h"

int graph_init(graph_t *g, graph_emit_t emit, void *userdata)
{
	*g = (graph_t){.emit = emit, .emit_data = userdata, .owner = pthread_self()};
	g->vertices = hashmap_new();
	return g->vertices ? 0 : -ENOMEM;
}

static void vertex_free(vertex_t *v)
{
	if (!v)
		return;
	vertex_deps_clear(v);
	free(v->fmri);
	free(v);
}

void graph_done(graph_t *g)
{
	size_t st = 0;
	vertex_t *v;

	if (!g->vertices)
		return;
	graph_assert_owner(g);
	while ((v = hashmap_next(g->vertices, &st, NULL)))
		vertex_free(v);
	g->vertices = hashmap_free(g->vertices);
}

void graph_claim(graph_t *g)
{
	g->owner = pthread_self();
}

static void emit(graph_t *g, int event, const char *fmri)
{
	g->emit(g->emit_data, event, fmri);
}

size_t graph_service_len(const char *fmri)
{
	const char *c = strrchr(fmri, ':');

	return c && c - fmri > 3 ? (size_t)(c - fmri) : 0;
}

int depgroup_init(depgroup_t *d, const char *grouping, const char *restart_on)
{
	int k;

	*d = (depgroup_t){.grouping = DEPGRP_REQUIRE_ALL, .restart_on = RESTART_ON_RESTART};
	/* Unknown values keep the defaults: a typo must not make a dependency stricter. */
	if (grouping && (k = depgroup_from_string(grouping)) >= 0)
		d->grouping = (depgroup_type_t)k;
	if (restart_on && (k = restart_on_from_string(restart_on)) >= 0)
		d->restart_on = (restart_on_t)k;
	d->entities = strv_new_empty();
	return d->entities ? 0 : -ENOMEM;
}

int depgroup_add_entity(depgroup_t *d, const char *value)
{
	char *c = NULL;

	if (!strneq(value, "svc:", 4) || scf_fmri_canonicalize(value, &c) < 0)
		c = strdup(value);
	if (!c || strv_consume(&d->entities, c) < 0)
		return -ENOMEM;
	return 0;
}

void depgroup_done(depgroup_t *d)
{
	strv_free(d->entities);
	d->entities = NULL;
}

int vertex_dep_append(vertex_t *v, depgroup_t *d)
{
	if (GREEDY_REALLOC(v->deps, v->n_deps_allocated, v->n_deps + 1) < 0)
		return -ENOMEM;
	v->deps[v->n_deps++] = *d;
	*d = (depgroup_t){};
	return 0;
}

void vertex_deps_clear(vertex_t *v)
{
	for (size_t k = 0; k < v->n_deps; k++)
		depgroup_done(&v->deps[k]);
	free(v->deps);
	v->deps = NULL;
	v->n_deps = v->n_deps_allocated = 0;
}

vertex_t *graph_vertex_get(graph_t *g, const char *fmri)
{
	graph_assert_owner(g);
	return hashmap_get(g->vertices, fmri);
}

int graph_vertex_add(graph_t *g, const char *fmri, vertex_t **ret)
{
	vertex_t *v;

	graph_assert_owner(g);
	if (hashmap_get(g->vertices, fmri))
		return -EEXIST;
	v = calloc(1, sizeof(*v));
	if (!v || !(v->fmri = strdup(fmri)) || hashmap_put(g->vertices, fmri, v) < 0) {
		vertex_free(v);
		return -ENOMEM;
	}
	v->service_len = graph_service_len(fmri);
	v->state = RESTARTER_STATE_UNINIT;
	*ret = v;
	return 0;
}

void graph_vertex_remove(graph_t *g, vertex_t *v)
{
	graph_assert_owner(g);
	emit(g, RE_REMOVE, v->fmri);
	hashmap_remove(g->vertices, v->fmri);
	vertex_free(v);
	graph_evaluate(g);
}

void graph_send_enabled(graph_t *g, const vertex_t *v)
{
	graph_assert_owner(g);
	emit(g, v->enabled ? RE_ENABLE : RE_DISABLE, v->fmri);
}

static void target_add(target_t *t, const vertex_t *v)
{
	t->exists = true;
	t->up |= restarter_state_is_up(v->state);
	t->coming |= v->enabled &&
	        (v->state == RESTARTER_STATE_UNINIT || v->state == RESTARTER_STATE_OFFLINE);
}

target_t graph_target(graph_t *g, const char *entity)
{
	target_t t = {};
	const char *path;
	struct stat st;
	size_t n, it = 0;
	vertex_t *v;

	graph_assert_owner(g);
	path = restarter_file_dep_path(entity);
	if (path) {
		t.exists = t.up = stat(path, &st) == 0;
		return t;
	}
	if (graph_service_len(entity) > 0) {
		v = hashmap_get(g->vertices, entity);
		if (v)
			target_add(&t, v);
		return t;
	}
	/* A service: satisfied through any of its instances. */
	n = strlen(entity);
	while ((v = hashmap_next(g->vertices, &it, NULL)))
		if (v->service_len == n && strneq(v->fmri, entity, n))
			target_add(&t, v);
	return t;
}

bool graph_group_satisfied(graph_t *g, const depgroup_t *d)
{
	bool any = false;

	STRV_FOREACH (e, d->entities) {
		target_t t = graph_target(g, *e);

		switch (d->grouping) {
		case DEPGRP_REQUIRE_ALL:
			if (!t.up)
				return false;
			break;
		case DEPGRP_REQUIRE_ANY:
			any |= t.up;
			break;
		case DEPGRP_OPTIONAL_ALL:
			if (!t.up && t.coming)
				return false;
			break;
		case DEPGRP_EXCLUDE_ALL:
			if (t.up || t.coming)
				return false;
			break;
		default:
			assert(!"unknown grouping");
			return false;
		}
	}
	return d->grouping != DEPGRP_REQUIRE_ANY || any || !d->entities[0];
}

bool graph_deps_satisfied(graph_t *g, const vertex_t *v)
{
	for (size_t k = 0; k < v->n_deps; k++)
		if (!graph_group_satisfied(g, &v->deps[k]))
			return false;
	return true;
}

/* For an up vertex: must it stop?  Tolerated groups do not count until satisfied again. */
static bool must_stop(graph_t *g, vertex_t *v)
{
	bool stop = false;

	for (size_t k = 0; k < v->n_deps; k++) {
		depgroup_t *d = &v->deps[k];

		if (graph_group_satisfied(g, d))
			d->tolerated = false;
		else if (!d->tolerated)
			stop = true;
	}
	return stop;
}

/* Does the dependency group name the vertex (itself, or its service)? */
static bool group_names(const depgroup_t *d, const vertex_t *v)
{
	STRV_FOREACH (e, d->entities)
		if (streq(*e, v->fmri) ||
		        (strlen(*e) == v->service_len && strneq(*e, v->fmri, v->service_len)))
			return true;
	return false;
}

/* dep went down for reason: the up dependents whose restart_on is below it keep running. */
static void tolerate_down(graph_t *g, const vertex_t *dep, restart_on_t reason)
{
	size_t st = 0;
	vertex_t *v;

	if (reason == RESTART_ON_NONE)
		return;
	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		if (!restarter_state_is_up(v->state))
			continue;
		for (size_t k = 0; k < v->n_deps; k++) {
			depgroup_t *d = &v->deps[k];

			if (d->grouping != DEPGRP_EXCLUDE_ALL && d->restart_on < reason &&
			        group_names(d, dep))
				d->tolerated = true;
		}
	}
}

void graph_propagate_refresh(graph_t *g, const vertex_t *dep)
{
	size_t st = 0;
	vertex_t *v;

	graph_assert_owner(g);
	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		if (!restarter_state_is_up(v->state) || v == dep)
			continue;
		for (size_t k = 0; k < v->n_deps; k++)
			if (v->deps[k].grouping != DEPGRP_EXCLUDE_ALL &&
			        v->deps[k].restart_on == RESTART_ON_REFRESH &&
			        group_names(&v->deps[k], dep)) {
				log_info(
				        "%s: restarting for the refresh of %s", v->fmri, dep->fmri);
				emit(g, RE_RESTART, v->fmri);
				break;
			}
	}
}

void graph_evaluate(graph_t *g)
{
	size_t st = 0;
	vertex_t *v;

	graph_assert_owner(g);
	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		if (v->enabled && v->state == RESTARTER_STATE_OFFLINE && !v->start_pending &&
		        graph_deps_satisfied(g, v)) {
			v->start_pending = true;
			emit(g, RE_START, v->fmri);
		} else if (restarter_state_is_up(v->state) && !v->stop_pending && must_stop(g, v)) {
			v->stop_pending = true;
			emit(g, RE_STOP, v->fmri);
		}
	}
}

void graph_set_state(graph_t *g, vertex_t *v, restarter_instance_state_t state, const char *aux)
{
	restarter_instance_state_t old = v->state;

	graph_assert_owner(g);
	v->state = state;
	v->start_pending = v->stop_pending = false;
	if (restarter_state_is_up(old) && !restarter_state_is_up(state))
		tolerate_down(g, v, restart_on_reason(aux));
	if (!restarter_state_is_up(state))
		for (size_t k = 0; k < v->n_deps; k++)
			v->deps[k].tolerated = false;
	graph_evaluate(g);
}
