/*
 * graph.h: the dependency graph, and the decisions startd takes on it.
 *
 * THEORY.  A vertex is an instance the graph has seen with a "general" pg: whether it is
 * enabled, the state its worker last reported, and its dependency groups as read from the
 * repository (graph-thread.c does the reading).  Everything graph.c decides is a function of
 * these structs and of the files that "file:" dependencies name, and is said by emitting
 * restarter events (RE_* of startd.h) through the graph's emit callback: the graph thread
 * hands them to the restarter, a unit test records them.
 *
 * - A group is satisfied as its grouping says: require_all, every entity up; require_any, one
 *   entity up (or none named); optional_all, every entity up or not coming (absent, disabled,
 *   or in maintenance); exclude_all, no entity up or coming.  An entity that names a service
 *   stands for all its instances; "up" is online or degraded, "coming" is enabled and
 *   uninitialized or offline.
 * - graph_evaluate(): an enabled offline vertex whose groups are all satisfied (and that does
 *   not complete a dependency cycle) gets RE_START;
 *   an up vertex with an unsatisfied group that is not tolerated gets RE_STOP.  A pending flag
 *   keeps one request per vertex in flight until its worker reports a state.
 * - restart_on, as illumos: a dependency that goes down carries a reason, ranked none
 *   (disabled, stopped for its own dependencies, taken to maintenance by the administrator) <
 *   error (a fault) < restart (restarted on request); a refresh ranks above them all.  A group
 *   whose restart_on is below the reason is "tolerated": its dependent stays up until the
 *   group is satisfied again.  A refresh of a dependency restarts (RE_RESTART) the up
 *   dependents whose group has restart_on=refresh.  exclude_all groups take no part in either.
 * - Dependency cycles, as illumos' graph_insert_dependency(): a vertex is "configured"
 *   (graph_configure()) once its dependencies are read, and from then on its groups are edges
 *   of the graph, except exclude_all groups, which take no part (an exclusion may point back).
 *   An entity naming a service is an edge to each of its instances.  A vertex whose edges would
 *   close a path back to itself "completes a dependency cycle": it gets RE_DEPENDENCY_CYCLE
 *   (maintenance, auxiliary state dependency_cycle) and its own edges are left out of the
 *   graph, so the other members of the cycle stay acyclic (they wait offline for it, and
 *   svcs -x names it).  Which member completes the cycle depends on the order the vertices
 *   were configured in, as on illumos.  A vertex whose dependencies are read again is checked
 *   again; one that no longer completes a cycle comes back with svcadm clear.  The search is
 *   iterative, over a visit mark per vertex: bounded by the vertices and edges, no recursion.
 * - Milestones, as illumos' dgraph_set_milestone(): the milestone's subgraph is the milestone
 *   instance and everything it depends on, transitively (exclude_all groups are not followed,
 *   and below an optional_all group an instance counts only if general/enabled says so); "all"
 *   is every vertex, "none" no vertex.  Inside, a vertex's temporary enable override is
 *   dropped; outside, it is disabled by one (general_ovr/enabled=false), so svcs shows it
 *   temporarily disabled.  Outside vertices are disabled leaves first: an enabled one is
 *   disabled once no up vertex outside the subgraph depends on it; a vertex outside that goes
 *   down then exposes the next leaves among its dependencies.  These repository writes leave
 *   the graph as GRAPH_OVR_* events beside the RE_* ones (graph-thread.c makes them), and the
 *   vertex already holds the value written, so the notification that follows changes nothing.
 *
 * INVARIANTS.  Only the thread that owns the graph (graph_init(), or graph_claim()) touches it:
 * every entry point asserts it, so the vertices need no lock.  A vertex's FMRI is its key in
 * the table, and it is linked in its service's list (services: service FMRI -> first
 * instance).  graph-thread.c sets v->enabled only through vertex_set_enabled(): the override if
 * set, else general/enabled.  A vertex gets restarter events only once graph_announce() has
 * sent its RE_INSERT (v->inserted); before, a decision about it only changes its fields.
 */
#ifndef STARTD_GRAPH_H
#define STARTD_GRAPH_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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
	bool enabled;       /* what the restarter was told: the override if any, else noovr */
	bool enabled_noovr; /* general/enabled alone (illumos' GV_ENBLD_NOOVR) */
	int enabled_ovr;    /* general_ovr/enabled: -1 absent, else 0 or 1 */
	restarter_instance_state_t state;
	bool start_pending, stop_pending;
	bool inserted;    /* RE_INSERT was emitted (graph_announce()) */
	bool configured;  /* its groups are edges (graph_configure()) */
	bool in_cycle;    /* it completes a dependency cycle: its groups are no edges */
	bool in_subgraph; /* inside the milestone (every vertex, for "all") */
	bool ms_known;    /* in_subgraph was decided (and acted on) at least once */
	depgroup_t *deps;
	size_t n_deps, n_deps_allocated;
	/* The cause (queue.h) of its last state report or enabled change, and when that was (the
	 * graph's own count of such changes: commit ids restart with configd): what a START or
	 * STOP evaluated at a burst's end descends from (graph_defer_end()). */
	uint64_t cause, cause_stamp;

	/* Owned by graph.c: the service's list, and one search's scratch state. */
	struct vertex *svc_next;
	struct vertex *parent; /* how a search reached it */
	bool via_service;      /* ... through a dependency on its service */
	unsigned mark;         /* == graph's search generation: visited by the current search */
	bool has_up_dependent; /* milestone: an up vertex outside the subgraph depends on it */
	bool was_in_subgraph;  /* milestone: in_subgraph before it was recomputed */

	unsigned seen; /* graph-thread.c's: what its first read found (SEEN_* there) */
} vertex_t;

/* What the graph knows about a dependency's target (an instance, or a service's instances). */
typedef struct target {
	bool exists, up, coming; /* coming: enabled, and uninitialized or offline */
} target_t;

/*
 * How a decision leaves the graph: event is an RE_* of startd.h (for the restarter) or a
 * GRAPH_OVR_* below (a repository write graph-thread.c makes), fmri the vertex's.
 */
typedef void (*graph_emit_t)(void *userdata, int event, const char *fmri);
enum {
	GRAPH_OVR_DELETE = 100, /* delete general_ovr/enabled (and its comment) */
	GRAPH_OVR_DISABLE,      /* general_ovr/enabled = false */
};

typedef struct graph {
	hashmap_t *vertices; /* fmri -> vertex_t */
	hashmap_t *services; /* service fmri -> its first vertex_t (svc_next links the rest) */
	graph_emit_t emit;
	void *emit_data;
	pthread_t owner;
	char *milestone; /* NULL: "all"; else "none" or the milestone's FMRI */
	unsigned search; /* the current search's generation (vertex_t.mark) */
	bool deferred;   /* graph_defer_begin(): evaluations wait for graph_defer_end() */
	bool eval_due;   /* ... and one was asked for meanwhile */
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

/* Sets general/enabled (noovr) and general_ovr/enabled (ovr, -1 absent) and v->enabled. */
void vertex_set_enabled(vertex_t *v, bool noovr, int ovr);

/*
 * RE_ENABLE or RE_DISABLE, as v->enabled says; enabled, an instance that completes a cycle
 * gets RE_DEPENDENCY_CYCLE after it (a disable takes it out of maintenance, as svcadm disable
 * does; enabled again, it is back in maintenance).
 */
void graph_send_enabled(graph_t *g, const vertex_t *v);
/* The first events of a vertex: RE_INSERT, then graph_send_enabled().  From here on decisions
 * about v are emitted. */
void graph_announce(graph_t *g, vertex_t *v);

/*
 * The vertices of a service's instances, or the vertex of an instance (*one).  Iterate with
 * for (v = graph_entity_first(g, e, &one); v; v = graph_entity_next(v, one)).
 */
vertex_t *graph_entity_first(graph_t *g, const char *entity, bool *one);
vertex_t *graph_entity_next(vertex_t *v, bool one);

/*
 * Does v's configuration complete a dependency cycle?  1 with *path (if path is not NULL) the
 * FMRIs from v's dependency back to v (services through which an edge passes included), 0
 * if not, -ENOMEM.  Only configured vertices not in a cycle count; v's own groups are not
 * followed (reaching v is the cycle).
 */
int graph_find_cycle(graph_t *g, vertex_t *v, char ***path);
/*
 * v's dependencies were (re)read: v is configured, and checked for a cycle.  A vertex that
 * now completes one is logged with the cycle and gets RE_DEPENDENCY_CYCLE (once inserted);
 * one that no longer does is only marked (svcadm clear brings it back).  Returns v->in_cycle.
 */
bool graph_configure(graph_t *g, vertex_t *v);

/*
 * The milestone: "all", "none", or one of the major milestones' FMRIs (any spelling that
 * canonicalizes to one).  Recomputes the subgraph, drops the enable override of every vertex
 * inside it and disables the leaves outside (see above).  0, or -EALREADY (the milestone
 * already), -EINVAL (not a milestone), -ENOENT (no vertex for it): then nothing changes.
 */
int graph_set_milestone(graph_t *g, const char *milestone);
/* Applies the milestone as set again, as graph_set_milestone() applies a new one. */
void graph_milestone_apply(graph_t *g);
/* The milestone as set ("all", "none" or an FMRI). */
const char *graph_milestone(const graph_t *g);
/*
 * A vertex was added, or dependencies or general/enabled changed: recomputes the subgraph;
 * a vertex new to it is admitted (override dropped) or disabled, as is one that moved in or
 * out.  Under "all" nothing is written.
 */
void graph_milestone_update(graph_t *g);

target_t graph_target(graph_t *g, const char *entity);
bool graph_group_satisfied(graph_t *g, const depgroup_t *d);
bool graph_deps_satisfied(graph_t *g, const vertex_t *v);

/* Emits RE_START and RE_STOP as the vertices' states and groups call for (see above). */
void graph_evaluate(graph_t *g);
/*
 * A burst of events (graph-thread.c): between graph_defer_begin() and graph_defer_end(),
 * graph_evaluate() only notes that an evaluation is due, and graph_defer_end() runs it once.
 * An evaluation depends only on the vertices as they are when it runs, so the one at the end
 * decides what the last of those it replaces would have, and a request that a later event of
 * the burst made moot (a start of an instance the burst disables) is never sent: evaluating
 * later is an order the events could have arrived in anyway.  One walk of every vertex per
 * burst instead of one per event.
 */
void graph_defer_begin(graph_t *g);
void graph_defer_end(graph_t *g);
/*
 * v's worker settled in state (aux: the auxiliary_state it recorded, NULL for none): clears
 * v's pending requests, marks the groups that tolerate the way v went down, and evaluates.
 */
void graph_set_state(graph_t *g, vertex_t *v, restarter_instance_state_t state, const char *aux);
/* dep was refreshed: RE_RESTART to each up dependent whose group has restart_on=refresh. */
void graph_propagate_refresh(graph_t *g, const vertex_t *dep);

#endif
