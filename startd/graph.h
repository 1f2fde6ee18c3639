/*
 * graph.h: the dependency graph, and the decisions startd takes on it.
 *
 * THEORY.  A vertex is an instance the graph has seen with a "general" pg: whether it is
 * enabled, the state its worker last reported, and its dependency groups as read from the
 * repository (graph.c does the reading).  Everything graph-eval.c decides is a function of
 * these structs and of the files that "file:" dependencies name, and is said by emitting
 * restarter events (RE_* of startd.h) through the graph's emit callback: the graph thread
 * hands them to the restarter, a unit test records them.
 *
 * - A group is satisfied as its grouping says: require_all, every entity up; require_any, one
 *   entity up (or none named); optional_all, every entity up or not coming (absent, disabled,
 *   or in maintenance); exclude_all, no entity up or coming.  An entity that names a service
 *   stands for all its instances; "up" is online or degraded, "coming" is enabled and
 *   uninitialized or offline.
 * - graph_evaluate(): an enabled offline vertex whose groups are all satisfied gets RE_START;
 *   an up vertex with an unsatisfied group that is not tolerated gets RE_STOP.  A pending flag
 *   keeps one request per vertex in flight until its worker reports a state.
 * - restart_on, as illumos: a dependency that goes down carries a reason, ranked none
 *   (disabled, stopped for its own dependencies, taken to maintenance by the administrator) <
 *   error (a fault) < restart (restarted on request); a refresh ranks above them all.  A group
 *   whose restart_on is below the reason is "tolerated": its dependent stays up until the
 *   group is satisfied again.  A refresh of a dependency restarts (RE_RESTART) the up
 *   dependents whose group has restart_on=refresh.  exclude_all groups take no part in either.
 *
 * INVARIANTS.  Only the thread that owns the graph (graph_init(), or graph_claim()) touches it:
 * every entry point asserts it, so the vertices need no lock.  A vertex's FMRI is its key in
 * the table.  Dependency cycles are not detected yet; a cycle check would be one more pure
 * function here.
 */
#ifndef STARTD_GRAPH_H
#define STARTD_GRAPH_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "hashmap.h"
#include "restarter.h"

typedef struct depgroup {
	depgroup_type_t grouping;
	restart_on_t restart_on;
	bool tolerated;  /* a member went down for a reason below restart_on: not a stop */
	char **entities; /* canonical FMRIs (or file: URIs) */
} depgroup_t;

typedef struct vertex {
	char *fmri;
	size_t service_len; /* fmri[0..service_len) is the service's FMRI */
	bool enabled;
	restarter_instance_state_t state;
	bool start_pending, stop_pending;
	depgroup_t *deps;
	size_t n_deps, n_deps_allocated;
} vertex_t;

/* What the graph knows about a dependency's target (an instance, or a service's instances). */
typedef struct target {
	bool exists, up, coming; /* coming: enabled, and uninitialized or offline */
} target_t;

/* How a decision leaves the graph: event is an RE_* of startd.h, fmri the vertex's. */
typedef void (*graph_emit_t)(void *userdata, int event, const char *fmri);

typedef struct graph {
	hashmap_t *vertices; /* fmri -> vertex_t */
	graph_emit_t emit;
	void *emit_data;
	pthread_t owner;
} graph_t;

/* The calling thread owns the graph.  0 or -ENOMEM. */
int graph_init(graph_t *g, graph_emit_t emit, void *userdata);
/* Frees every vertex (by the owner). */
void graph_done(graph_t *g);
/* The calling thread becomes the owner (the graph thread, once it runs). */
void graph_claim(graph_t *g);
#define graph_assert_owner(g) assert(pthread_equal((g)->owner, pthread_self()))

/* Length of the service part of a canonical instance FMRI, 0 for a service FMRI. */
size_t graph_service_len(const char *fmri);

/*
 * A dependency group from a dependency pg's grouping and restart_on (NULL when absent).  What
 * is absent or unknown counts as require_all, and as restart (as svccfg export assumes).
 * 0 or -ENOMEM.
 */
int depgroup_init(depgroup_t *d, const char *grouping, const char *restart_on);
/* Adds one "entities" value, canonicalized when it is an svc: FMRI.  0 or -ENOMEM. */
int depgroup_add_entity(depgroup_t *d, const char *value);
void depgroup_done(depgroup_t *d);

/* The vertex of fmri, NULL if the graph has none. */
vertex_t *graph_vertex_get(graph_t *g, const char *fmri);
/*
 * A new vertex for the instance fmri: uninitialized, disabled, no dependencies, nothing
 * emitted.  -EEXIST if there is one, -ENOMEM.
 */
int graph_vertex_add(graph_t *g, const char *fmri, vertex_t **ret);
/* The instance is gone: RE_REMOVE, the vertex is freed, and the rest is evaluated again. */
void graph_vertex_remove(graph_t *g, vertex_t *v);
/* Moves *d (which is left empty) to the end of v's groups.  0 or -ENOMEM (*d kept). */
int vertex_dep_append(vertex_t *v, depgroup_t *d);
void vertex_deps_clear(vertex_t *v);

/* RE_ENABLE or RE_DISABLE, as v->enabled says. */
void graph_send_enabled(graph_t *g, const vertex_t *v);

target_t graph_target(graph_t *g, const char *entity);
bool graph_group_satisfied(graph_t *g, const depgroup_t *d);
bool graph_deps_satisfied(graph_t *g, const vertex_t *v);

/* Emits RE_START and RE_STOP as the vertices' states and groups call for (see above). */
void graph_evaluate(graph_t *g);
/*
 * v's worker settled in state (aux: the auxiliary_state it recorded, NULL for none): clears
 * v's pending requests, marks the groups that tolerate the way v went down, and evaluates.
 */
void graph_set_state(graph_t *g, vertex_t *v, restarter_instance_state_t state, const char *aux);
/* dep was refreshed: RE_RESTART to each up dependent whose group has restart_on=refresh. */
void graph_propagate_refresh(graph_t *g, const vertex_t *dep);

#endif
