/*
 * graph.c: the graph's decisions, over vertex_t and depgroup_t (the model is in graph.h).
 *
 * No repository access and no thread of its own: graph-thread.c reads the repository into these
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
#include "queue.h"
#include "startd.h"
#include "strv.h"

int graph_init(graph_t *g, graph_emit_t emit, void *userdata)
{
	*g = (graph_t){.emit = emit, .emit_data = userdata, .owner = pthread_self()};
	g->vertices = hashmap_new();
	g->services = hashmap_new();
	if (!g->vertices || !g->services) {
		g->vertices = hashmap_free(g->vertices);
		g->services = hashmap_free(g->services);
		return -ENOMEM;
	}
	return 0;
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
	g->services = hashmap_free(g->services);
	free(g->milestone);
	g->milestone = NULL;
}

void graph_claim(graph_t *g)
{
	g->owner = pthread_self();
}

static void emit(graph_t *g, int event, const char *fmri)
{
	g->emit(g->emit_data, event, fmri);
}

static void milestone_shutdown(graph_t *g, vertex_t *from);

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

/* The service part of v's FMRI into buf (an FMRI is at most SCF_LIMIT_MAX_FMRI_LENGTH). */
typedef char service_buf_t[SCF_LIMIT_MAX_FMRI_LENGTH + 1];
static const char *service_of(const vertex_t *v, service_buf_t buf)
{
	size_t n =
	        v->service_len < sizeof(service_buf_t) ? v->service_len : sizeof(service_buf_t) - 1;

	memcpy(buf, v->fmri, n);
	buf[n] = '\0';
	return buf;
}

int graph_vertex_add(graph_t *g, const char *fmri, vertex_t **ret)
{
	service_buf_t svc;
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
	if (v->service_len > 0) {
		v->svc_next = hashmap_get(g->services, service_of(v, svc));
		if (hashmap_put(g->services, svc, v) < 0) {
			hashmap_remove(g->vertices, fmri);
			vertex_free(v);
			return -ENOMEM;
		}
	}
	v->state = RESTARTER_STATE_UNINIT;
	v->enabled_ovr = -1;
	/* Under "all" every vertex is inside, so graph_milestone_update() has nothing to walk. */
	v->in_subgraph = v->ms_known = !g->milestone;
	*ret = v;
	return 0;
}

/* Takes v out of its service's list (replacing a key allocates nothing). */
static void service_unlink(graph_t *g, vertex_t *v)
{
	service_buf_t svc;
	vertex_t *first, **pp;

	if (v->service_len == 0)
		return;
	first = hashmap_get(g->services, service_of(v, svc));
	for (pp = &first; *pp; pp = &(*pp)->svc_next)
		if (*pp == v) {
			*pp = v->svc_next;
			break;
		}
	if (first)
		(void)hashmap_put(g->services, svc, first);
	else
		hashmap_remove(g->services, svc);
}

void graph_vertex_remove(graph_t *g, vertex_t *v)
{
	graph_assert_owner(g);
	emit(g, RE_REMOVE, v->fmri);
	service_unlink(g, v);
	hashmap_remove(g->vertices, v->fmri);
	vertex_free(v);
	graph_milestone_update(g);
	graph_evaluate(g);
}

/*
 * v changed under the current cause.  The stamp orders changes across vertices; only the
 * graph's thread changes vertices (graph.h), so a plain counter does.
 */
static void vertex_changed(vertex_t *v)
{
	static uint64_t clock;

	v->cause = event_cause();
	v->cause_stamp = ++clock;
}

void vertex_set_enabled(vertex_t *v, bool noovr, int ovr)
{
	bool was = v->enabled;

	v->enabled_noovr = noovr;
	v->enabled_ovr = ovr < 0 ? -1 : ovr > 0;
	v->enabled = ovr < 0 ? noovr : ovr > 0;
	if (v->enabled != was)
		vertex_changed(v);
}

void graph_send_enabled(graph_t *g, const vertex_t *v)
{
	graph_assert_owner(g);
	emit(g, v->enabled ? RE_ENABLE : RE_DISABLE, v->fmri);
	/* Enabled, an instance that completes a cycle is in maintenance (disabled, disabled). */
	if (v->enabled && v->in_cycle)
		emit(g, RE_DEPENDENCY_CYCLE, v->fmri);
}

void graph_announce(graph_t *g, vertex_t *v)
{
	graph_assert_owner(g);
	emit(g, RE_INSERT, v->fmri);
	v->inserted = true;
	graph_send_enabled(g, v);
}

vertex_t *graph_entity_first(graph_t *g, const char *entity, bool *one)
{
	*one = graph_service_len(entity) > 0;
	return hashmap_get(*one ? g->vertices : g->services, entity);
}

vertex_t *graph_entity_next(vertex_t *v, bool one)
{
	return one ? NULL : v->svc_next;
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
	vertex_t *v;
	bool one;

	graph_assert_owner(g);
	path = restarter_file_dep_path(entity);
	if (path) {
		t.exists = t.up = stat(path, &st) == 0;
		return t;
	}
	/* A service: satisfied through any of its instances. */
	for (v = graph_entity_first(g, entity, &one); v; v = graph_entity_next(v, one))
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

/*
 * The cause of the latest change among v and the vertices its groups name (by stamp): what
 * last changed in what v's START or STOP depends on, none (0) included.
 */
static uint64_t due_cause(graph_t *g, const vertex_t *v)
{
	const vertex_t *latest = v;
	bool one;

	for (size_t k = 0; k < v->n_deps; k++)
		STRV_FOREACH (e, v->deps[k].entities)
			for (const vertex_t *t = graph_entity_first(g, *e, &one); t;
			        t = graph_entity_next((vertex_t *)t, one))
				if (t->cause_stamp > latest->cause_stamp)
					latest = t;
	return latest->cause;
}

/*
 * A START or STOP descends from the event that made it due.  Evaluated at once, that is the
 * current event.  At a burst's end (graph_defer_end()) the current event is the burst's last,
 * whichever instance it named, so the cause of the latest change among the vertex and what it
 * depends on is used instead (due_cause()), none (0) included: a reaped process's report has
 * no cause.
 */
static void emit_due(graph_t *g, int event, const vertex_t *v, bool deferred)
{
	uint64_t cause = event_cause();

	if (deferred)
		event_cause_set(due_cause(g, v));
	emit(g, event, v->fmri);
	event_cause_set(cause);
}

static void evaluate(graph_t *g, bool deferred)
{
	size_t st = 0;
	vertex_t *v;

	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		if (v->enabled && v->state == RESTARTER_STATE_OFFLINE && !v->start_pending &&
		        !v->in_cycle && graph_deps_satisfied(g, v)) {
			v->start_pending = true;
			emit_due(g, RE_START, v, deferred);
		} else if (restarter_state_is_up(v->state) && !v->stop_pending && must_stop(g, v)) {
			v->stop_pending = true;
			emit_due(g, RE_STOP, v, deferred);
		}
	}
}

void graph_evaluate(graph_t *g)
{
	graph_assert_owner(g);
	if (g->deferred) {
		g->eval_due = true;
		return;
	}
	evaluate(g, false);
}

void graph_defer_begin(graph_t *g)
{
	graph_assert_owner(g);
	g->deferred = true;
}

void graph_defer_end(graph_t *g)
{
	graph_assert_owner(g);
	g->deferred = false;
	if (g->eval_due) {
		g->eval_due = false;
		evaluate(g, true);
	}
}

void graph_set_state(graph_t *g, vertex_t *v, restarter_instance_state_t state, const char *aux)
{
	restarter_instance_state_t old = v->state;

	graph_assert_owner(g);
	v->state = state;
	vertex_changed(v);
	v->start_pending = v->stop_pending = false;
	if (restarter_state_is_up(old) && !restarter_state_is_up(state))
		tolerate_down(g, v, restart_on_reason(aux));
	if (!restarter_state_is_up(state))
		for (size_t k = 0; k < v->n_deps; k++)
			v->deps[k].tolerated = false;
	if (restarter_state_is_up(old) && !restarter_state_is_up(state) && !v->in_subgraph)
		milestone_shutdown(g, v);
	graph_evaluate(g);
}

/* ---- dependency cycles ---- */

/* A vertex's groups are edges once it is configured, unless it completes a cycle itself. */
static bool has_edges(const vertex_t *v)
{
	return v->configured && !v->in_cycle;
}

/* A new search: every vertex's mark is stale. */
static unsigned search_begin(graph_t *g)
{
	if (++g->search == 0) { /* wrapped: clear the marks once */
		size_t st = 0;
		vertex_t *v;

		while ((v = hashmap_next(g->vertices, &st, NULL)))
			v->mark = 0;
		g->search = 1;
	}
	return g->search;
}

/* A visit stack (or queue) of vertices, grown as needed. */
typedef struct vstack {
	vertex_t **v;
	size_t n, cap, head;
} vstack_t;

static int vstack_push(vstack_t *s, vertex_t *v)
{
	if (GREEDY_REALLOC(s->v, s->cap, s->n + 1) < 0)
		return -ENOMEM;
	s->v[s->n++] = v;
	return 0;
}

/*
 * Calls fn(g, v, group, target, via_service, userdata) for each edge of v: each instance its
 * groups name, except exclude_all groups (no edges); stops at fn's first negative return.
 */
typedef int (*edge_fn_t)(graph_t *g, vertex_t *v, const depgroup_t *d, vertex_t *t,
        bool via_service, void *userdata);
static int for_each_edge(graph_t *g, vertex_t *v, edge_fn_t fn, void *userdata)
{
	for (size_t k = 0; k < v->n_deps; k++) {
		if (v->deps[k].grouping == DEPGRP_EXCLUDE_ALL)
			continue;
		STRV_FOREACH (e, v->deps[k].entities) {
			bool one;

			for (vertex_t *t = graph_entity_first(g, *e, &one); t;
			        t = graph_entity_next(t, one)) {
				int r = fn(g, v, &v->deps[k], t, !one, userdata);

				if (r < 0)
					return r;
			}
		}
	}
	return 0;
}

static int push_edge(
        graph_t *g, vertex_t *v, const depgroup_t *d, vertex_t *t, bool via_service, void *userdata)
{
	(void)d;
	if (t->mark == g->search)
		return 0;
	t->mark = g->search;
	t->parent = v;
	t->via_service = via_service;
	return vstack_push(userdata, t);
}

/* Pushes the unvisited targets of v's edges, marking them. */
static int push_targets(graph_t *g, vstack_t *q, vertex_t *v)
{
	return for_each_edge(g, v, push_edge, q);
}

/* The path from v's dependency to v, as found by the search (services named on the way). */
static int cycle_path(vertex_t *v, char ***ret)
{
	_cleanup_strv_free_ char **l = NULL;
	service_buf_t svc;
	size_t n = 0;

	/* Parent pointers lead from v back to v's dependency: collect, then reverse. */
	for (vertex_t *p = v;; p = p->parent) {
		if (strv_extend_counted(&l, &n, p->fmri) < 0 ||
		        (p->via_service && strv_extend_counted(&l, &n, service_of(p, svc)) < 0))
			return -ENOMEM;
		if (p->parent == v)
			break;
	}
	for (size_t a = 0, b = n - 1; a < b; a++, b--) {
		char *t = l[a];

		l[a] = l[b];
		l[b] = t;
	}
	*ret = TAKE_PTR(l);
	return 0;
}

/* "a -> b -> c", NULL when out of memory. */
static char *path_string(char *const *path)
{
	size_t len = 1;
	char *s, *p;

	STRV_FOREACH (e, path)
		len += strlen(*e) + 4;
	p = s = malloc(len);
	if (!s)
		return NULL;
	*p = '\0';
	STRV_FOREACH (e, path)
		p += sprintf(p, "%s%s", e == path ? "" : " -> ", *e);
	return s;
}

int graph_find_cycle(graph_t *g, vertex_t *v, char ***path)
{
	vstack_t q = {};
	int r;

	graph_assert_owner(g);
	search_begin(g);
	/* v is not marked: reaching it is the cycle.  A breadth-first search: the shortest. */
	r = push_targets(g, &q, v);
	for (q.head = 0; r >= 0 && q.head < q.n; q.head++) {
		vertex_t *t = q.v[q.head];

		if (t == v) {
			r = path ? cycle_path(v, path) : 0;
			free(q.v);
			return r < 0 ? r : 1;
		}
		if (has_edges(t))
			r = push_targets(g, &q, t);
	}
	free(q.v);
	return r < 0 ? r : 0;
}

bool graph_configure(graph_t *g, vertex_t *v)
{
	_cleanup_strv_free_ char **path = NULL;
	_cleanup_free_ char *s = NULL;
	int r;

	graph_assert_owner(g);
	v->configured = true;
	r = graph_find_cycle(g, v, &path);
	if (r < 0) {
		log_error("%s: out of memory checking for a dependency cycle", v->fmri);
		return v->in_cycle;
	}
	if (r == 0) {
		if (v->in_cycle)
			log_info("%s: no longer completes a dependency cycle", v->fmri);
		v->in_cycle = false;
		return false;
	}
	if (v->in_cycle)
		return true;
	v->in_cycle = true;
	s = path_string(path);
	log_error("%s: completes a dependency cycle (%s), to maintenance", v->fmri, s ? s : "?");
	if (v->inserted)
		emit(g, RE_DEPENDENCY_CYCLE, v->fmri);
	return true;
}

/* ---- milestones ---- */

const char *graph_milestone(const graph_t *g)
{
	return g->milestone ? g->milestone : RESTARTER_MILESTONE_ALL;
}

typedef struct ms_visit {
	vertex_t *v;
	bool optional; /* reached below an optional_all group */
} ms_visit_t;

typedef struct ms_walk {
	ms_visit_t *stack;
	size_t n, cap;
	bool optional; /* the vertex being expanded was reached below an optional_all group */
} ms_walk_t;

static int subgraph_edge(
        graph_t *g, vertex_t *v, const depgroup_t *d, vertex_t *t, bool via_service, void *userdata)
{
	ms_walk_t *w = userdata;

	(void)g, (void)v, (void)via_service;
	if (t->in_subgraph)
		return 0;
	if (GREEDY_REALLOC(w->stack, w->cap, w->n + 1) < 0)
		return -ENOMEM;
	w->stack[w->n++] = (ms_visit_t){
	        .v = t,
	        .optional = w->optional || d->grouping == DEPGRP_OPTIONAL_ALL,
	};
	return 0;
}

/* v->in_subgraph for every vertex, as illumos' mark_subgraph(). */
static void compute_subgraph(graph_t *g)
{
	ms_walk_t w = {};
	size_t st = 0;
	bool all = !g->milestone;
	vertex_t *v;

	while ((v = hashmap_next(g->vertices, &st, NULL)))
		v->in_subgraph = all;
	if (all || streq(g->milestone, RESTARTER_MILESTONE_NONE))
		return;
	v = hashmap_get(g->vertices, g->milestone);
	if (!v || GREEDY_REALLOC(w.stack, w.cap, 1) < 0)
		goto out;
	w.stack[w.n++] = (ms_visit_t){.v = v};
	while (w.n > 0) {
		ms_visit_t x = w.stack[--w.n];

		/* Below an optional group, an instance disabled (without override) is left out. */
		if (x.v->in_subgraph || (x.optional && !x.v->enabled_noovr))
			continue;
		x.v->in_subgraph = true;
		w.optional = x.optional;
		if (for_each_edge(g, x.v, subgraph_edge, &w) < 0) {
			log_error("out of memory computing the milestone");
			break;
		}
	}
out:
	free(w.stack);
}

/* Inside the milestone: the temporary override goes, general/enabled rules again. */
static void ovr_drop(graph_t *g, vertex_t *v)
{
	bool was = v->enabled;

	if (v->enabled_ovr < 0)
		return;
	emit(g, GRAPH_OVR_DELETE, v->fmri);
	vertex_set_enabled(v, v->enabled_noovr, -1);
	if (v->inserted && v->enabled != was)
		graph_send_enabled(g, v);
}

/* Outside: disabled by an override (one disabled already is left alone). */
static void ovr_disable(graph_t *g, vertex_t *v)
{
	if (!v->enabled)
		return;
	emit(g, GRAPH_OVR_DISABLE, v->fmri);
	vertex_set_enabled(v, v->enabled_noovr, 0);
	if (v->inserted)
		graph_send_enabled(g, v);
}

static int mark_edge(
        graph_t *g, vertex_t *v, const depgroup_t *d, vertex_t *t, bool via_service, void *userdata)
{
	(void)g, (void)v, (void)d, (void)via_service, (void)userdata;
	t->has_up_dependent = true;
	return 0;
}

/* v->has_up_dependent: an up vertex outside the subgraph depends on v (exclusions aside). */
static void mark_up_dependents(graph_t *g)
{
	size_t st = 0;
	vertex_t *u;

	while ((u = hashmap_next(g->vertices, &st, NULL)))
		u->has_up_dependent = false;
	st = 0;
	while ((u = hashmap_next(g->vertices, &st, NULL)))
		if (!u->in_subgraph && restarter_state_is_up(u->state))
			(void)for_each_edge(g, u, mark_edge, NULL);
}

/*
 * Disables the leaves outside the milestone: every one (from NULL: the milestone changed), or
 * those among the dependencies of from, which went down (illumos'
 * vertex_subgraph_dependencies_shutdown()), walking on through those that are down.
 */
static void milestone_shutdown(graph_t *g, vertex_t *from)
{
	vstack_t q = {};
	size_t st = 0;
	vertex_t *v;

	if (!g->milestone)
		return;
	mark_up_dependents(g);
	if (!from) {
		while ((v = hashmap_next(g->vertices, &st, NULL)))
			if (!v->in_subgraph && !v->has_up_dependent)
				ovr_disable(g, v);
		return;
	}
	search_begin(g);
	from->mark = g->search;
	int r = push_targets(g, &q, from);
	for (q.head = 0; r >= 0 && q.head < q.n; q.head++) {
		v = q.v[q.head];
		if (v->in_subgraph)
			continue; /* and so is everything it depends on */
		if (!v->has_up_dependent)
			ovr_disable(g, v);
		if (!restarter_state_is_up(v->state))
			r = push_targets(g, &q, v);
	}
	if (r < 0)
		log_error("out of memory stopping what is outside the milestone");
	free(q.v);
}

int graph_set_milestone(graph_t *g, const char *milestone)
{
	static const char *const milestones[] = {RESTARTER_MILESTONE_FMRIS};
	_cleanup_free_ char *c = NULL;
	const char *want = NULL;
	char *dup = NULL;

	graph_assert_owner(g);
	if (streq(milestone, RESTARTER_MILESTONE_NONE))
		want = RESTARTER_MILESTONE_NONE;
	else if (!streq(milestone, RESTARTER_MILESTONE_ALL)) {
		if (scf_fmri_canonicalize(milestone, &c) < 0)
			return -EINVAL;
		for (size_t k = 0; k < ELEMENTSOF(milestones); k++)
			if (streq(c, milestones[k]))
				want = milestones[k];
		if (!want)
			return -EINVAL;
		if (!hashmap_get(g->vertices, want))
			return -ENOENT;
	}
	if (want ? g->milestone && streq(g->milestone, want) : !g->milestone)
		return -EALREADY;
	if (want && !(dup = strdup(want)))
		return -ENOMEM;
	free(g->milestone);
	g->milestone = dup;
	log_info("milestone %s", graph_milestone(g));
	graph_milestone_apply(g);
	return 0;
}

void graph_milestone_apply(graph_t *g)
{
	size_t st = 0;
	vertex_t *v;

	graph_assert_owner(g);
	compute_subgraph(g);
	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		v->ms_known = true;
		if (v->in_subgraph)
			ovr_drop(g, v);
	}
	milestone_shutdown(g, NULL);
}

void graph_milestone_update(graph_t *g)
{
	size_t st = 0;
	vertex_t *v;

	graph_assert_owner(g);
	/*
	 * Under "all" (illumos: no milestone) nothing is written, whatever comes and goes, and
	 * every vertex is marked inside already: graph_milestone_apply() marked those there were
	 * when "all" was set, graph_vertex_add() every one since.
	 */
	if (!g->milestone)
		return;
	while ((v = hashmap_next(g->vertices, &st, NULL)))
		v->was_in_subgraph = v->in_subgraph;
	compute_subgraph(g);
	st = 0;
	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		if (v->ms_known && v->was_in_subgraph == v->in_subgraph)
			continue;
		v->ms_known = true;
		if (v->in_subgraph)
			ovr_drop(g, v);
		else
			ovr_disable(g, v);
	}
}
