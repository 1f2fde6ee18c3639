/*
 * graph.c: the graph thread, owner of the dependency graph.
 *
 * Vertices are instances the graph has seen with a "general" pg; nobody but this thread
 * touches them, so they need no lock.  The graph learns about the repository from the
 * repository thread (pg changed/deleted) and about states from the instance workers
 * (GE_STATE), and its only output is restarter events.  On first sight of an instance it
 * queues RE_INSERT and then RE_ENABLE or RE_DISABLE (general_ovr/enabled, else
 * general/enabled); the restarter pg is written later, by the instance's worker: the window
 * between the instance's creation and that write is the race this project studies.
 *
 * After every state report or configuration change the graph re-evaluates: an enabled
 * offline instance whose dependencies are satisfied gets RE_START; an online one whose
 * dependencies are no longer satisfied gets RE_STOP.  A pending flag per vertex keeps one
 * request in flight until the worker reports back.
 *
 * restart_on, as illumos: a dependency that goes down carries a reason, ranked none (disabled,
 * stopped for its own dependencies, taken to maintenance by the administrator) < error (a
 * fault: its processes died, its method failed) < restart (restarted on request); a refresh is
 * ranked above them all.  A dependent is stopped (and so started again once the dependency is
 * back) only when its group's restart_on is at least the reason's rank; below it the group is
 * "tolerated" while the dependent stays up, until it is satisfied again.  A refresh of a
 * dependency restarts the dependents whose restart_on is refresh.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "macro.h"
#include "delay.h"
#include "probes.h"
#include "startd.h"
#include "strv.h"
#include "timeutil.h"

typedef enum grouping {
	DEP_REQUIRE_ALL,
	DEP_REQUIRE_ANY,
	DEP_OPTIONAL_ALL,
	DEP_EXCLUDE_ALL,
} grouping_t;

/* restart_on values, and the rank of the reason a dependency went down. */
typedef enum restart_on {
	RESTART_ON_NONE = 0,
	RESTART_ON_ERROR,
	RESTART_ON_RESTART,
	RESTART_ON_REFRESH,
} restart_on_t;

typedef struct DepGroup {
	grouping_t grouping;
	restart_on_t restart_on;
	bool tolerated;  /* a member went down for a reason below restart_on: not a stop */
	char **entities; /* canonical FMRIs (or file: URIs) */
} DepGroup;

typedef struct Vertex {
	char *fmri;
	size_t service_len; /* fmri[0..service_len) is the service's FMRI */
	bool enabled;
	rstate_t state;
	bool start_pending, stop_pending;
	DepGroup *deps;
	size_t n_deps;
} Vertex;

typedef struct Graph {
	Manager *m;
	scf_handle_t *h;
	hashmap_t *vertices;
} Graph;

static Graph graph;

/* Length of the service part of a canonical instance FMRI, 0 for a service FMRI. */
static size_t service_len(const char *fmri)
{
	const char *c = strrchr(fmri, ':');

	return c && c - fmri > 3 ? (size_t)(c - fmri) : 0;
}

static void deps_free(Vertex *v)
{
	for (size_t k = 0; k < v->n_deps; k++)
		strv_free(v->deps[k].entities);
	free(v->deps);
	v->deps = NULL;
	v->n_deps = 0;
}

static void vertex_free(Vertex *v)
{
	if (!v)
		return;
	deps_free(v);
	free(v->fmri);
	free(v);
}

static bool read_enabled_pg(
        scf_handle_t *h, const char *fmri, const char *pgname, unsigned fl, bool *ret)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	const scf_property_t *p;

	if (scf_pg_get(h, fmri, pgname, NULL, fl, &pg) < 0)
		return false;
	p = scf_pg_property(pg, "enabled");
	return p && scf_property_get_boolean(p, ret) >= 0;
}

/* The override first (temporary enable/disable), then general/enabled; absent: disabled. */
static bool read_enabled(scf_handle_t *h, const char *fmri)
{
	bool e = false;

	if (read_enabled_pg(h, fmri, SCF_PG_GENERAL_OVR, 0, &e))
		return e;
	if (read_enabled_pg(h, fmri, SCF_PG_GENERAL, SCF_READ_COMPOSED, &e))
		return e;
	return false;
}

static grouping_t parse_grouping(const char *s)
{
	if (streq(s, "require_any"))
		return DEP_REQUIRE_ANY;
	if (streq(s, "optional_all"))
		return DEP_OPTIONAL_ALL;
	if (streq(s, "exclude_all"))
		return DEP_EXCLUDE_ALL;
	return DEP_REQUIRE_ALL;
}

/* Absent: "restart", as svccfg export assumes. */
static restart_on_t parse_restart_on(const char *s)
{
	if (streq(s, "none"))
		return RESTART_ON_NONE;
	if (streq(s, "error"))
		return RESTART_ON_ERROR;
	if (streq(s, "refresh"))
		return RESTART_ON_REFRESH;
	return RESTART_ON_RESTART;
}

static int read_dep_group(
        scf_handle_t *h, const char *fmri, const char *snap, const char *name, DepGroup *d)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	const scf_property_t *p;
	const char *s = "require_all";
	int r;

	r = scf_pg_get(h, fmri, name, snap, SCF_READ_COMPOSED, &pg);
	if (r < 0)
		return r;
	p = scf_pg_property(pg, "grouping");
	if (p)
		(void)scf_property_get_string(p, &s);
	d->grouping = parse_grouping(s);
	s = "restart";
	p = scf_pg_property(pg, "restart_on");
	if (p)
		(void)scf_property_get_string(p, &s);
	d->restart_on = parse_restart_on(s);
	d->entities = strv_new_empty();
	if (!d->entities)
		return -ENOMEM;
	p = scf_pg_property(pg, "entities");
	for (size_t k = 0; p && k < p->n_values; k++) {
		char *c = NULL;

		if (!strneq(p->values[k], "svc:", 4) || scf_fmri_canonicalize(p->values[k], &c) < 0)
			c = strdup(p->values[k]);
		if (!c || strv_consume(&d->entities, c) < 0)
			return -ENOMEM;
	}
	return 0;
}

/*
 * Re-reads the dependency pgs, as illumos from the "running" snapshot (composed with the
 * service): an edit counts once the instance is refreshed.  An instance not yet refreshed
 * (no snapshot) has only its current view.
 */
static void read_deps(Graph *g, Vertex *v)
{
	const char *snap = SCF_SNAPSHOT_RUNNING;
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	int r;

	deps_free(v);
	r = scf_pg_list(g->h, v->fmri, snap, SCF_READ_COMPOSED, &infos, &n);
	if (r == -SCF_ERROR_NOT_FOUND) {
		snap = NULL;
		r = scf_pg_list(g->h, v->fmri, NULL, SCF_READ_COMPOSED, &infos, &n);
	}
	if (r < 0)
		return;
	v->deps = calloc(n ? n : 1, sizeof(DepGroup));
	for (size_t k = 0; v->deps && k < n; k++) {
		if (!streq(infos[k].type, SCF_GROUP_DEPENDENCY))
			continue;
		if (read_dep_group(g->h, v->fmri, snap, infos[k].name, &v->deps[v->n_deps]) < 0) {
			strv_free(v->deps[v->n_deps].entities);
			v->deps[v->n_deps].entities = NULL;
			continue;
		}
		v->n_deps++;
	}
	scf_pg_info_free(infos, n);
}

/* What the graph knows about a dependency's target (an instance, or a service's instances). */
typedef struct Target {
	bool exists, up, coming; /* coming: enabled, and uninitialized or offline */
} Target;

static void target_add(Target *t, const Vertex *v)
{
	t->exists = true;
	t->up |= rstate_is_up(v->state);
	t->coming |= v->enabled && (v->state == RSTATE_UNINIT || v->state == RSTATE_OFFLINE);
}

static Target target_of(Graph *g, const char *ent)
{
	Target t = {};
	struct stat st;

	if (strneq(ent, "file:", 5)) {
		const char *path = ent + 5;

		if (strneq(path, "//localhost", 11))
			path += 11;
		else if (strneq(path, "//", 2))
			path += 2;
		t.exists = t.up = stat(path, &st) == 0;
		return t;
	}
	if (service_len(ent) > 0) {
		Vertex *v = hashmap_get(g->vertices, ent);
		if (v)
			target_add(&t, v);
		return t;
	}
	/* A service: satisfied through any of its instances. */
	size_t n = strlen(ent), st_ = 0;
	Vertex *v;
	while ((v = hashmap_next(g->vertices, &st_, NULL)))
		if (v->service_len == n && strneq(v->fmri, ent, n))
			target_add(&t, v);
	return t;
}

static bool group_satisfied(Graph *g, const DepGroup *d)
{
	bool any = false;

	STRV_FOREACH (e, d->entities) {
		Target t = target_of(g, *e);

		switch (d->grouping) {
		case DEP_REQUIRE_ALL:
			if (!t.up)
				return false;
			break;
		case DEP_REQUIRE_ANY:
			any |= t.up;
			break;
		case DEP_OPTIONAL_ALL:
			if (!t.up && t.coming)
				return false;
			break;
		case DEP_EXCLUDE_ALL:
			if (t.up || t.coming)
				return false;
			break;
		}
	}
	return d->grouping != DEP_REQUIRE_ANY || any || !d->entities[0];
}

static bool deps_satisfied(Graph *g, const Vertex *v)
{
	for (size_t k = 0; k < v->n_deps; k++)
		if (!group_satisfied(g, &v->deps[k]))
			return false;
	return true;
}

/* For an up vertex: must it stop?  Tolerated groups do not count until satisfied again. */
static bool must_stop(Graph *g, Vertex *v)
{
	bool stop = false;

	for (size_t k = 0; k < v->n_deps; k++) {
		DepGroup *d = &v->deps[k];

		if (group_satisfied(g, d))
			d->tolerated = false;
		else if (!d->tolerated)
			stop = true;
	}
	return stop;
}

/* Does the dependency group name the vertex (itself, or its service)? */
static bool group_names(const DepGroup *d, const Vertex *v)
{
	STRV_FOREACH (e, d->entities)
		if (streq(*e, v->fmri) ||
		        (strlen(*e) == v->service_len && strneq(*e, v->fmri, v->service_len)))
			return true;
	return false;
}

/* The rank of the reason an instance went down, from the auxiliary_state it recorded. */
static restart_on_t down_reason(const char *aux)
{
	static const char *const faults[] = {
	        "ct_ev_exit",
	        "method_failed",
	        "fault_threshold_reached",
	        "restarting_too_quickly",
	};

	if (!aux)
		return RESTART_ON_NONE;
	if (streq(aux, "restart_request"))
		return RESTART_ON_RESTART;
	for (size_t k = 0; k < ELEMENTSOF(faults); k++)
		if (streq(aux, faults[k]))
			return RESTART_ON_ERROR;
	return RESTART_ON_NONE;
}

/* dep went down for reason: the up dependents whose restart_on is below it keep running. */
static void tolerate_down(Graph *g, const Vertex *dep, restart_on_t reason)
{
	size_t st = 0;
	Vertex *v;

	if (reason == RESTART_ON_NONE)
		return;
	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		if (!rstate_is_up(v->state))
			continue;
		for (size_t k = 0; k < v->n_deps; k++) {
			DepGroup *d = &v->deps[k];

			if (d->grouping != DEP_EXCLUDE_ALL && d->restart_on < reason &&
			        group_names(d, dep))
				d->tolerated = true;
		}
	}
}

/* dep was refreshed: dependents with restart_on=refresh are restarted. */
static void propagate_refresh(Graph *g, const Vertex *dep)
{
	size_t st = 0;
	Vertex *v;

	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		if (!rstate_is_up(v->state) || v == dep)
			continue;
		for (size_t k = 0; k < v->n_deps; k++)
			if (v->deps[k].grouping != DEP_EXCLUDE_ALL &&
			        v->deps[k].restart_on == RESTART_ON_REFRESH &&
			        group_names(&v->deps[k], dep)) {
				log_info(
				        "%s: restarting for the refresh of %s", v->fmri, dep->fmri);
				(void)restarter_enqueue(g->m, RE_RESTART, v->fmri, 0);
				break;
			}
	}
}

static void evaluate(Graph *g)
{
	size_t st = 0;
	Vertex *v;

	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		if (v->enabled && v->state == RSTATE_OFFLINE && !v->start_pending &&
		        deps_satisfied(g, v)) {
			v->start_pending = true;
			(void)restarter_enqueue(g->m, RE_START, v->fmri, 0);
		} else if (rstate_is_up(v->state) && !v->stop_pending && must_stop(g, v)) {
			v->stop_pending = true;
			(void)restarter_enqueue(g->m, RE_STOP, v->fmri, 0);
		}
	}
}

static void send_enabled(Graph *g, Vertex *v)
{
	(void)restarter_enqueue(g->m, v->enabled ? RE_ENABLE : RE_DISABLE, v->fmri, 0);
}

static void process_actions(Graph *g, Vertex *v);

/* First sight of an instance: insert it if it has a general pg of its own. */
static void maybe_insert(Graph *g, const char *fmri)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	Vertex *v;

	if (hashmap_get(g->vertices, fmri))
		return;
	if (scf_pg_get(g->h, fmri, SCF_PG_GENERAL, NULL, 0, &pg) < 0)
		return;
	v = calloc(1, sizeof(*v));
	if (!v || !(v->fmri = strdup(fmri)) || hashmap_put(g->vertices, fmri, v) < 0) {
		log_error("%s: out of memory, not inserted", fmri);
		vertex_free(v);
		return;
	}
	v->service_len = service_len(fmri);
	v->state = RSTATE_UNINIT;
	v->enabled = read_enabled(g->h, fmri);
	read_deps(g, v);
	smf_point(SMF_POINT_STARTD_GRAPH_BEFORE_INSERT);
	probe_graph_insert(fmri);
	(void)restarter_enqueue(g->m, RE_INSERT, fmri, 0);
	send_enabled(g, v);
	process_actions(g, v);
}

/* restarter_actions properties (integer timestamps written by svcadm), in processing order. */
static const struct {
	const char *name;
	int event;
} actions[] = {
        {"maint_off", RE_MAINT_OFF},
        {"maint_on", RE_MAINT_ON},
        {"maint_on_temporary", RE_MAINT_ON},
        {"maint_on_immediate", RE_MAINT_ON_IMMEDIATE},
        {"maint_on_immtemp", RE_MAINT_ON_IMMEDIATE}, /* svcadm mark -It maintenance */
        {"degraded", RE_DEGRADED},
        {"degrade_immediate", RE_DEGRADED}, /* svcadm mark -I degraded */
        {"restore", RE_RESTORE},
        {"refresh", RE_REFRESH},
        {"restart", RE_RESTART},
};

static bool same_values(const scf_property_t *a, const scf_property_t *b)
{
	if (!a || !b || a->n_values != b->n_values)
		return false;
	for (size_t k = 0; k < a->n_values; k++)
		if (!streq(a->values[k], b->values[k]))
			return false;
	return true;
}

/* Deletes the actions handled, unless svcadm wrote a newer timestamp meanwhile. */
static int unset_actions(scf_tx_t *tx, void *userdata)
{
	const scf_pg_t *seen = userdata, *now = scf_tx_pg(tx);

	for (size_t k = 0; k < ELEMENTSOF(actions); k++) {
		const scf_property_t *p = scf_pg_property(now, actions[k].name);

		if (p && same_values(p, scf_pg_property(seen, actions[k].name))) {
			int r = scf_tx_delete(tx, actions[k].name);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

/*
 * Administrative actions, as illumos: each property of restarter_actions present is one
 * request; it is handed to the instance and deleted, so that it is acted on once.
 */
static void process_actions(Graph *g, Vertex *v)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	bool any = false;

	if (scf_pg_get(g->h, v->fmri, SCF_PG_RESTARTER_ACTIONS, NULL, 0, &pg) < 0)
		return;
	for (size_t k = 0; k < ELEMENTSOF(actions); k++) {
		const scf_property_t *p = scf_pg_property(pg, actions[k].name);

		if (!p || p->n_values == 0)
			continue;
		any = true;
		log_info("%s: %s requested", v->fmri, actions[k].name);
		if (actions[k].event == RE_REFRESH) {
			read_deps(g, v);
			propagate_refresh(g, v);
		}
		(void)restarter_enqueue(g->m, actions[k].event, v->fmri, 0);
		/* Out of maintenance the instance starts over, as on first sight. */
		if (actions[k].event == RE_MAINT_OFF)
			send_enabled(g, v);
	}
	if (any && scf_tx_run(g->h, v->fmri, SCF_PG_RESTARTER_ACTIONS, unset_actions, pg, 0) < 0)
		log_warning(
		        "%s: cannot clear restarter_actions: %s", v->fmri, scf_handle_errmsg(g->h));
	if (any)
		evaluate(g);
}

static void refresh_enabled(Graph *g, Vertex *v)
{
	bool e = read_enabled(g->h, v->fmri);

	if (e == v->enabled)
		return;
	v->enabled = e;
	/* Being enabled is a start: what was refreshed by then counts (svccfg refresh is silent). */
	if (e)
		read_deps(g, v);
	send_enabled(g, v);
}

static void remove_vertex(Graph *g, Vertex *v)
{
	(void)restarter_enqueue(g->m, RE_REMOVE, v->fmri, 0);
	hashmap_remove(g->vertices, v->fmri);
	vertex_free(v);
	evaluate(g);
}

/* A pg of a service changed: its instances compose it. */
static void service_pg_changed(Graph *g, const char *svc, const char *pg, const char *type)
{
	size_t n = strlen(svc), st = 0;
	Vertex *v;

	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		if (v->service_len != n || !strneq(v->fmri, svc, n))
			continue;
		if (streq(pg, SCF_PG_GENERAL))
			refresh_enabled(g, v);
		else if (type && streq(type, SCF_GROUP_DEPENDENCY))
			read_deps(g, v);
	}
	evaluate(g);
}

static void pg_event(Graph *g, const Event *e)
{
	bool deleted = e->type == GE_PG_DELETED;
	Vertex *v;

	if (!e->fmri || !e->pg)
		return;
	if (service_len(e->fmri) == 0) {
		service_pg_changed(g, e->fmri, e->pg, e->pgtype);
		return;
	}
	v = hashmap_get(g->vertices, e->fmri);
	if (!v) {
		if (!deleted)
			maybe_insert(g, e->fmri);
		return;
	}
	if (deleted && scf_entity_exists(g->h, e->fmri) == 0) {
		remove_vertex(g, v);
		return;
	}
	if (streq(e->pg, SCF_PG_GENERAL) || streq(e->pg, SCF_PG_GENERAL_OVR))
		refresh_enabled(g, v);
	else if (streq(e->pg, SCF_PG_RESTARTER_ACTIONS) && !deleted)
		process_actions(g, v);
	else if (e->pgtype && streq(e->pgtype, SCF_GROUP_DEPENDENCY)) {
		read_deps(g, v);
		evaluate(g);
	}
}

static void scan(Graph *g, bool first)
{
	_cleanup_strv_free_ char **l = NULL;
	int r;

	r = scf_instance_list(g->h, NULL, &l);
	if (r < 0)
		log_error("cannot list instances: %s", scf_handle_errmsg(g->h));
	STRV_FOREACH (f, l)
		maybe_insert(g, *f);
	if (first)
		sem_post(&g->m->scanned);
}

/*
 * configd restarted (repo.c has re-registered and re-subscribed): the old handle is dead.
 * Whatever changed while it was away is read again, and instances created meanwhile are
 * found by a new scan (the subscription is already back, so nothing falls in between).
 */
static void reconnect(Graph *g)
{
	scf_handle_t *h = NULL;
	size_t st = 0;
	Vertex *v;

	if (scf_handle_create(g->m->root, &h) < 0) {
		log_error("graph: cannot reach the restarted repository");
		return;
	}
	scf_handle_destroy(g->h);
	g->h = h;
	while ((v = hashmap_next(g->vertices, &st, NULL))) {
		refresh_enabled(g, v);
		read_deps(g, v);
		process_actions(g, v);
	}
	scan(g, false);
	evaluate(g);
}

static void state_event(Graph *g, const Event *e)
{
	Vertex *v = hashmap_get(g->vertices, e->fmri);

	rstate_t old;

	if (!v)
		return;
	old = v->state;
	v->state = (rstate_t)e->arg;
	v->start_pending = v->stop_pending = false;
	if (rstate_is_up(old) && !rstate_is_up(v->state))
		tolerate_down(g, v, down_reason(e->pg));
	if (!rstate_is_up(v->state))
		for (size_t k = 0; k < v->n_deps; k++)
			v->deps[k].tolerated = false;
	evaluate(g);
}

static void *graph_main(void *userdata)
{
	Graph *g = userdata;

	for (;;) {
		Event *e = event_queue_pop(&g->m->graph_q, USEC_INFINITY);
		int type = e->type;

		switch (type) {
		case GE_SCAN:
			scan(g, true);
			break;
		case GE_RECONNECT:
			reconnect(g);
			break;
		case GE_PG_CHANGED:
		case GE_PG_DELETED:
			pg_event(g, e);
			break;
		case GE_STATE:
			state_event(g, e);
			break;
		default:
			break;
		}
		event_free(e);
		if (type == GE_QUIT)
			return NULL;
	}
}

int graph_thread_start(Manager *m)
{
	int r;

	graph.m = m;
	graph.vertices = hashmap_new();
	if (!graph.vertices)
		return log_error_errno(-ENOMEM, "out of memory");
	r = scf_handle_create(m->root, &graph.h);
	if (r < 0) {
		log_error("graph: cannot reach the repository: %s", scf_strerror(r));
		return -EIO;
	}
	r = -pthread_create(&m->graph_thread, NULL, graph_main, &graph);
	if (r < 0)
		return log_error_errno(r, "cannot start the graph thread");
	return 0;
}

void graph_thread_stop(Manager *m)
{
	size_t st = 0;
	Vertex *v;

	(void)event_queue_push(&m->graph_q, GE_QUIT, NULL, NULL, NULL, 0, NULL);
	pthread_join(m->graph_thread, NULL);
	while ((v = hashmap_next(graph.vertices, &st, NULL)))
		vertex_free(v);
	hashmap_free(graph.vertices);
	graph.vertices = NULL;
	scf_handle_destroy(graph.h);
	graph.h = NULL;
}
