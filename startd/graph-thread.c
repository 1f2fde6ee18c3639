/*
 * graph-thread.c: the graph thread, owner of the dependency graph (graph.h).
 *
 * The graph learns about the repository from the repository thread (pg changed/deleted) and
 * about states from the instance workers (GE_STATE); it reads what it needs into the vertices
 * with its own handle and leaves every decision to graph.c, whose only output is events
 * (restarter events, and the milestone's override writes).  On first sight of an instance
 * (first_sight(): configd's InstanceAdded, a pg notification, or a scan), in illumos' order:
 * - an instance with a general pg of its own gets a vertex: the graph queues RE_INSERT and then
 *   RE_ENABLE or RE_DISABLE (general_ovr/enabled, else general/enabled); the restarter pg is
 *   written later, by the thread that handles the instance's INSERT (for a new instance, the
 *   bulk worker, in a batch): the window between the instance's creation and that write is
 *   the race this project studies.  RE_INSERT's arg says what first sight found (no restarter
 *   pg, a running snapshot), so that nothing is read twice;
 * - one without general (svccfg add, a libscf program) gets no vertex, but gets its
 *   uninitialized restarter pg here, at once, if it has none (illumos' configure_vertex writes
 *   it before it reads general), so that a creator waiting for the pg (svccfg add) has an end
 *   to its wait; it is inserted once its general pg is written.
 *
 * BURSTS.  The thread takes every event queued (up to GRAPH_BURST_MAX) at once and handles them
 * in order, except that an instance with no vertex that an event names is only noted (sight()):
 * at the end of the burst, or before an event that must see it (a scan, a reconnection, a
 * milestone change), every instance noted is read (graph_read_burst(), the one place that
 * reads new instances' pgs: two bulk reads for the whole burst), configured, admitted by the
 * milestone once and announced, each under the cause of the event that named it first.  The
 * burst's other events about those instances need no handling: they were queued before the
 * reads, which see what they announced.  And the graph is evaluated once, at the end of the
 * burst (graph_defer_begin()).  So an import of 10,000 instances costs one milestone update
 * and a few evaluations, not 10,000 of each, and no second read for the general notification
 * that follows InstanceAdded when it comes in the same burst (configd sends a batch's
 * InstanceAdded signals first: past a burst's worth of instances, it comes in a later one).
 *
 * A new vertex is configured (checked for a dependency cycle) and admitted by the milestone
 * before it is announced (RE_INSERT, then RE_ENABLE or RE_DISABLE); whenever its dependencies
 * are read again, both are done again (deps_changed()).  The milestone is read from startd's
 * own options_ovr/options pgs at start and when they change; the general_ovr writes it calls
 * for come back from graph.c as GRAPH_OVR_* events and are made here (write_override()).
 *
 * After every state report or configuration change the graph re-evaluates (graph_evaluate()).
 * Administrative actions (restarter_actions) are handed to the instance once each and deleted;
 * a refresh also re-reads the instance's dependencies and restarts the dependents whose
 * restart_on is refresh; a clear of an instance that completed a cycle first looks again.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "delay.h"
#include "graph.h"
#include "instance.h"
#include "log.h"
#include "macro.h"
#include "probes.h"
#include "retry.h"
#include "rpg.h"
#include "startd.h"
#include "strv.h"
#include "thread.h"
#include "timeutil.h"

/* Up to this many events are taken off the graph queue and handled as one burst. */
#define GRAPH_BURST_MAX 512
/* How long the graph waits, with vertices left unread (retry_stale()), before it reads again. */
#define STALE_RETRY_USEC (1 * USEC_PER_SEC)

/* SEEN_* (vertex_t.seen): what first_sight() found. */
enum {
	SEEN_NO_RPG = 0x1,     /* no restarter pg: RE_INSERT_FRESH */
	SEEN_RUNNING = 0x2,    /* a running snapshot: RE_INSERT_RUNNING */
	SEEN_NO_ACTIONS = 0x4, /* no restarter_actions pg: nothing to read at announce() */
};

/* An instance whose first sight is due in the burst being handled, and what caused it. */
typedef struct due {
	char *fmri;
	uint64_t cause;
} due_t;

/* The graph thread's state: the graph, and how it reads the repository and reaches the rest. */
typedef struct graph_thread {
	graph_t graph;
	startd_t *m;
	scf_handle_t *h;

	/* The burst being handled (graph_main()): first sights due, in order, and as a set. */
	due_t *due;
	size_t n_due, cap_due;
	hashmap_t *due_set;

	/*
	 * Vertices whose enabled state or dependencies the repository did not answer for
	 * (not_read()), as a set of FMRIs: read again at the end of a later burst once it answers
	 * (retry_stale()), or all at once by reconnect().  A configd that is slow past libscf's
	 * call timeout, not gone, looks the same as a lost connection and brings no GE_RECONNECT.
	 */
	hashmap_t *stale;
	/* A lost connection met by a read was logged (once, until the repository answers). */
	bool lost_logged;

	/*
	 * Instances without general whose uninitialized restarter pg the repository's store
	 * refused (write_initial(), retry.h), with the cause of their first sight (+ 1): written
	 * again once unwritten_due has passed, the first one, and the rest if the store took it;
	 * if it did not, the next try is due after the next delay of the backoff.  The graph never
	 * sleeps on a retry: it waits for events until the next one is due.
	 */
	hashmap_t *unwritten;
	unsigned unwritten_attempt;
	uint64_t unwritten_due;
} graph_thread_t;

static graph_thread_t graph;

/* pg/enabled, when pg has it as a boolean. */
static bool pg_enabled(const scf_pg_t *pg, bool *ret)
{
	const scf_property_t *p = scf_pg_property(pg, SCF_PROPERTY_ENABLED);

	return p && scf_property_get_boolean(p, ret) >= 0;
}

/*
 * pgname/enabled of fmri into *ret: 1 when read, 0 when the pg or the property is absent or not
 * a boolean (the caller's default stands), or the error when the repository did not answer.
 * Only "not there" may read as a default: a lost connection (instance_connection_lost()) says
 * nothing about the instance, and taking it for "disabled" would stop a running service.
 */
static int read_enabled_pg(
        scf_handle_t *h, const char *fmri, const char *pgname, unsigned fl, bool *ret)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	int r;

	r = scf_pg_get(h, fmri, pgname, NULL, fl, &pg);
	if (r == -SCF_ERROR_NOT_FOUND)
		return 0;
	if (r < 0)
		return r;
	return pg_enabled(pg, ret);
}

/*
 * general/enabled (composed; absent: disabled) and the override general_ovr/enabled
 * (temporary enable/disable, which wins) into v; with no_ovr the caller knows that the
 * instance has no general_ovr pg (just listed), and it is not read.  0, or the repository's
 * error with v left as it was: the caller reads again once the repository answers.
 */
static int read_enabled(scf_handle_t *h, vertex_t *v, bool no_ovr)
{
	bool noovr = false, ovr = false;
	int r, o = 0;

	r = read_enabled_pg(h, v->fmri, SCF_PG_GENERAL, SCF_READ_COMPOSED, &noovr);
	if (r < 0)
		return r;
	if (r == 0)
		noovr = false;
	if (!no_ovr)
		o = read_enabled_pg(h, v->fmri, SCF_PG_GENERAL_OVR, 0, &ovr);
	if (o < 0)
		return o;
	vertex_set_enabled(v, noovr, o > 0 ? ovr : -1);
	return 0;
}

/* A string property's value, NULL when absent or not a string. */
static const char *pg_string(const scf_pg_t *pg, const char *name)
{
	const scf_property_t *p = scf_pg_property(pg, name);
	const char *s = NULL;

	if (p)
		(void)scf_property_get_string(p, &s);
	return s;
}

static int depgroup_from_pg(const scf_pg_t *pg, depgroup_t *d)
{
	const scf_property_t *p;
	int r;

	r = depgroup_init(
	        d, pg_string(pg, SCF_PROPERTY_GROUPING), pg_string(pg, SCF_PROPERTY_RESTART_ON));
	if (r < 0)
		return r;
	p = scf_pg_property(pg, SCF_PROPERTY_ENTITIES);
	for (size_t k = 0; p && k < p->n_values; k++) {
		r = depgroup_add_entity(d, p->values[k]);
		if (r < 0)
			return r;
	}
	return 0;
}

static int read_dep_group(
        scf_handle_t *h, const char *fmri, const char *snap, const char *name, depgroup_t *d)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	int r;

	r = scf_pg_get(h, fmri, name, snap, SCF_READ_COMPOSED, &pg);
	if (r < 0)
		return r;
	return depgroup_from_pg(pg, d);
}

/*
 * Re-reads the dependency pgs, as illumos from the "running" snapshot (composed with the
 * service): an edit counts once the instance is refreshed.  An instance not yet refreshed
 * (no snapshot) has only its current view.  A group that cannot be read is left out.
 *
 * The groups are read into a list of their own and replace v's only once all are read: when
 * the repository stops answering halfway (instance_connection_lost()), v keeps the
 * dependencies it had and the error is returned.  An unreachable repository is not a service
 * without dependencies, which the graph would start at once; reconnect() reads them again.
 */
static int read_deps(graph_thread_t *gt, vertex_t *v)
{
	const char *snap = SCF_SNAPSHOT_RUNNING;
	scf_pg_info_t *infos = NULL;
	vertex_t fresh = {}; /* only its dependency list is used */
	size_t n = 0;
	int r;

	r = scf_pg_list(gt->h, v->fmri, snap, SCF_READ_COMPOSED, &infos, &n);
	if (r >= 0)
		v->seen |= SEEN_RUNNING;
	if (r == -SCF_ERROR_NOT_FOUND) {
		snap = NULL;
		r = scf_pg_list(gt->h, v->fmri, NULL, SCF_READ_COMPOSED, &infos, &n);
	}
	if (instance_connection_lost(r))
		return r;
	for (size_t k = 0; r >= 0 && k < n; k++) {
		depgroup_t d = {};
		int q;

		if (!streq(infos[k].type, SCF_GROUP_DEPENDENCY))
			continue;
		q = read_dep_group(gt->h, v->fmri, snap, infos[k].name, &d);
		if (instance_connection_lost(q))
			r = q;
		if (q < 0 || vertex_dep_append(&fresh, &d) < 0)
			depgroup_done(&d);
	}
	scf_pg_info_free(infos, n);
	if (instance_connection_lost(r)) {
		vertex_deps_clear(&fresh);
		return r;
	}
	vertex_deps_clear(v);
	v->deps = fresh.deps;
	v->n_deps = fresh.n_deps;
	v->n_deps_allocated = fresh.n_deps_allocated;
	return 0;
}

static void process_actions(graph_thread_t *gt, vertex_t *v);
static void not_read(
        graph_thread_t *gt, const vertex_t *v, const char *what, const char *kept, int r);

/* Whether a pg of that name is among infos (the instance's own pgs, as listed). */
static bool listed(const scf_pg_info_t *infos, size_t n, const char *name)
{
	for (size_t k = 0; k < n; k++)
		if (streq(infos[k].name, name))
			return true;
	return false;
}

/*
 * A new vertex's enabled state and dependencies, read one call at a time (no_ovr: the caller
 * knows that it has no general_ovr pg).  Unread (the connection broke since its pgs were
 * listed), the vertex keeps graph_vertex_add()'s "disabled": it was never started by this
 * startd, so that stops nothing, and the GE_RECONNECT that follows every lost connection reads
 * it again (reconnect()).  So it is when its dependencies could not be read: enabled without
 * them, it would start.
 */
static void prepare_reads(graph_thread_t *gt, vertex_t *v, bool no_ovr)
{
	int r = read_enabled(gt->h, v, no_ovr);

	if (r >= 0 && (r = read_deps(gt, v)) < 0)
		vertex_set_enabled(v, false, -1); /* its dependencies unknown: not started either */
	if (r < 0)
		not_read(gt, v, "enabled state and dependencies", "disabled", r);
}

/*
 * An instance with a general pg of its own and no vertex yet: a vertex, not announced yet.
 * has_rpg, has_actions: whether it has a restarter and a restarter_actions pg (SEEN_*).
 */
static vertex_t *vertex_new(graph_thread_t *gt, const char *fmri, bool has_rpg, bool has_actions)
{
	vertex_t *v;

	if (graph_vertex_add(&gt->graph, fmri, &v) < 0) {
		log_error("%s: out of memory, not inserted", fmri);
		return NULL;
	}
	if (!has_rpg)
		v->seen |= SEEN_NO_RPG;
	if (!has_actions)
		v->seen |= SEEN_NO_ACTIONS;
	return v;
}

/*
 * An instance with a general pg of its own and no vertex yet: a vertex, read, not announced.
 * own: its own pgs as first_sight() listed them, which says what need not be read.
 */
static vertex_t *prepare(graph_thread_t *gt, const char *fmri, const scf_pg_info_t *own, size_t n)
{
	vertex_t *v = vertex_new(gt, fmri, listed(own, n, SCF_PG_RESTARTER),
	        listed(own, n, SCF_PG_RESTARTER_ACTIONS));

	if (v)
		prepare_reads(gt, v, !listed(own, n, SCF_PG_GENERAL_OVR));
	return v;
}

/*
 * A prepared vertex, configured and admitted by the milestone: to the restarter.  Its
 * restarter_actions are read unless first_sight() found none (one created since is notified).
 */
static void announce(graph_thread_t *gt, vertex_t *v)
{
	smf_point(SMF_POINT_STARTD_GRAPH_BEFORE_INSERT);
	probe_graph_insert(v->fmri);
	graph_announce(&gt->graph, v);
	if (!(v->seen & SEEN_NO_ACTIONS))
		process_actions(gt, v);
}

/* One new vertex at once: configured (cycle check), milestone, announced (scan()'s fallback). */
static void insert(graph_thread_t *gt, vertex_t *v)
{
	if (!v)
		return;
	graph_configure(&gt->graph, v);
	graph_milestone_update(&gt->graph);
	announce(gt, v);
}

/*
 * The uninitialized restarter pg of an instance without general (rpg_write_initial()); one the
 * store refuses is noted in gt->unwritten, to be written again (retry_unwritten()).  false
 * when it was refused so.
 */
static bool write_initial(graph_thread_t *gt, const char *fmri)
{
	int r = rpg_write_initial(gt->h, fmri);

	if (r >= 0)
		retry_succeeded();
	if (!retry_store_failed(r))
		return true;
	retry_failed(fmri, r, scf_handle_errmsg(gt->h));
	if (hashmap_size(gt->unwritten) == 0) {
		gt->unwritten_attempt = 0;
		gt->unwritten_due = deadline_after_usec(retry_delay_usec(0));
	}
	if (!hashmap_get(gt->unwritten, fmri) &&
	        hashmap_put(gt->unwritten, fmri, (void *)(uintptr_t)(event_cause() + 1)) < 0)
		log_error("%s: out of memory; its restarter pg is not written again", fmri);
	return false;
}

/*
 * The writes the store refused, once their try is due (see gt->unwritten): an instance that
 * has a vertex by now is left to its INSERT, which writes the pg; the others are written
 * again, each under its first sight's cause, until one is refused again.
 */
static void retry_unwritten(graph_thread_t *gt)
{
	uint64_t cause = event_cause();
	unsigned attempt = gt->unwritten_attempt;
	const char *key;
	size_t st = 0;
	void *value;

	if (hashmap_size(gt->unwritten) == 0 || deadline_left_usec(gt->unwritten_due) > 0)
		return;
	while ((value = hashmap_next(gt->unwritten, &st, &key))) {
		_cleanup_free_ char *fmri = strdup(key);
		bool ok;

		if (!fmri)
			break;
		(void)hashmap_remove(gt->unwritten, fmri);
		st = 0;
		if (graph_vertex_get(&gt->graph, fmri))
			continue;
		event_cause_set((uint64_t)(uintptr_t)value - 1);
		/*
		 * write_initial() notes it again if refused (as a first failure, were it the only
		 * one left): the schedule goes on from this attempt, and the rest wait for it.
		 */
		ok = write_initial(gt, fmri);
		if (!ok) {
			gt->unwritten_attempt = attempt + 1;
			gt->unwritten_due = deadline_after_usec(retry_delay_usec(attempt + 1));
			break;
		}
	}
	event_cause_set(cause);
}

/*
 * First sight's decision, from whether the instance has a general pg and a restarter pg of its
 * own (see the top of this file): true when it gets a vertex, which the caller makes and reads.
 * Else the trace says why not, and the uninitialized restarter pg is written if it has none.
 * startd's own instance is never a vertex (illumos' dgraph_add_instance() skips it), but gets
 * its uninitialized pg like the others.
 */
static bool sight_decide(graph_thread_t *gt, const char *fmri, bool general, bool rpg)
{
	if (general && !streq(fmri, SCF_SERVICE_STARTD)) {
		probe_first_sight(fmri, "insert");
		return true;
	}
	/* A restarter pg written already: by startd (seen before), or by configd-eager. */
	probe_first_sight(fmri, rpg ? "present" : "write");
	if (!rpg) {
		smf_point(SMF_POINT_STARTD_RESTARTER_BEFORE_PG_WRITE);
		(void)write_initial(gt, fmri);
	}
	return false;
}

/*
 * First sight of an instance that has no vertex, one call at a time (scan()'s instances
 * without general, and graph_read_burst() when a bulk read is refused): the prepared vertex
 * of one with a general pg, else NULL.
 */
static vertex_t *first_sight(graph_thread_t *gt, const char *fmri)
{
	scf_pg_info_t *own = NULL;
	size_t n = 0;
	vertex_t *v = NULL;
	int r;

	if (graph_vertex_get(&gt->graph, fmri))
		return NULL;
	/*
	 * One list of the instance's own pgs says whether it has general, and whether a restarter
	 * pg, general_ovr and restarter_actions need reading at all (a new instance has none of
	 * them).  An instance gone meanwhile lists as not found, as each pg would read.
	 */
	r = scf_pg_list(gt->h, fmri, NULL, 0, &own, &n);
	if (r < 0 && r != -SCF_ERROR_NOT_FOUND)
		return NULL;
	if (sight_decide(
	            gt, fmri, listed(own, n, SCF_PG_GENERAL), listed(own, n, SCF_PG_RESTARTER)))
		v = prepare(gt, fmri, own, n);
	scf_pg_info_free(own, n);
	return v;
}

/*
 * The bulk reads of a burst (graph_read_burst()).  The first, of every instance due, reads its
 * own pgs that first sight's list looks for, by name: whether it has general and a restarter
 * pg decides (sight_decide()), whether restarter and restarter_actions (SEEN_*), and
 * general_ovr's value.  The second, of those that got a vertex, reads what prepare_reads()
 * reads: general composed, and the dependency pgs of the running snapshot (of the current view
 * when there is none: SCF_READ_SNAPSHOT_FALLBACK).  Whether that snapshot exists
 * (SEEN_RUNNING) is what general read from it says when found; when not, the snapshot may
 * still exist (taken before general was made), and read_deps() finds out with a call of its own.
 */
enum { OWN_GENERAL, OWN_RESTARTER, OWN_ACTIONS, OWN_GENERAL_OVR, _OWN_MAX };
static const scf_bulk_pg_t own_reads[_OWN_MAX] = {
        [OWN_GENERAL] = {.name = SCF_PG_GENERAL},
        [OWN_RESTARTER] = {.name = SCF_PG_RESTARTER},
        [OWN_ACTIONS] = {.name = SCF_PG_RESTARTER_ACTIONS},
        [OWN_GENERAL_OVR] = {.name = SCF_PG_GENERAL_OVR},
};
enum { NEW_GENERAL, NEW_RUNNING_GENERAL, NEW_DEPS, _NEW_MAX };
static const scf_bulk_pg_t new_reads[_NEW_MAX] = {
        [NEW_GENERAL] = {.name = SCF_PG_GENERAL, .read_flags = SCF_READ_COMPOSED},
        [NEW_RUNNING_GENERAL] = {.name = SCF_PG_GENERAL,
                .snapshot = SCF_SNAPSHOT_RUNNING,
                .read_flags = SCF_READ_COMPOSED},
        [NEW_DEPS] = {.type = SCF_GROUP_DEPENDENCY,
                .snapshot = SCF_SNAPSHOT_RUNNING,
                .read_flags = SCF_READ_COMPOSED | SCF_READ_SNAPSHOT_FALLBACK},
};

/* A burst's reads (graph_read_burst()): the instances due, and the vertices made so far. */
typedef struct burst {
	graph_thread_t *gt;
	const due_t *due;
	size_t n_due;
	size_t next; /* the index (into due[], or added[] in the second read) answered next */
	vertex_t **added;
	uint64_t *causes;
	size_t n_added;
	/* Per vertex added: its general_ovr/enabled (-1: none), and whether it still needs the
	 * second read (made from the first, not by first_sight()). */
	int8_t *ovr;
	bool *unread;
} burst_t;

static void burst_add(burst_t *b, vertex_t *v, uint64_t cause, int ovr, bool unread)
{
	b->causes[b->n_added] = cause;
	b->ovr[b->n_added] = (int8_t)ovr;
	b->unread[b->n_added] = unread;
	b->added[b->n_added++] = v;
}

/* general_ovr/enabled as vertex_set_enabled() takes it: -1 when absent or not a boolean. */
static int ovr_of(const scf_pg_t *pg)
{
	bool o = false;

	return pg && pg_enabled(pg, &o) ? o : -1;
}

/*
 * v's enabled state (general/enabled from general, composed; absent: disabled; ovr the
 * override) and its dependencies (the pgs of e answering query deps), from a bulk read.
 */
static void vertex_from_read(
        vertex_t *v, const scf_bulk_entity_t *e, const scf_pg_t *general, int ovr, unsigned deps)
{
	bool noovr = false;

	if (!pg_enabled(general, &noovr))
		noovr = false;
	vertex_set_enabled(v, noovr, ovr);
	vertex_deps_clear(v);
	for (size_t k = 0; k < e->n_pgs; k++) {
		depgroup_t d = {};

		if (e->which[k] != deps)
			continue;
		if (depgroup_from_pg(&e->pgs[k], &d) < 0 || vertex_dep_append(v, &d) < 0)
			depgroup_done(&d);
	}
}

/* The first read's answer for due[b->next]: its first sight, under its cause. */
static int burst_sight(const scf_bulk_entity_t *e, void *userdata)
{
	burst_t *b = userdata;
	const due_t *d = &b->due[b->next++];
	vertex_t *v;

	assert(b->next <= b->n_due);
	event_cause_set(d->cause);
	if (graph_vertex_get(&b->gt->graph, d->fmri))
		return 0;
	/* Gone meanwhile: as its list would (not found: no pgs); not an instance: as its list. */
	if (e->error && e->error != -SCF_ERROR_NOT_FOUND)
		return 0;
	if (!sight_decide(b->gt, d->fmri, scf_bulk_entity_pg(e, OWN_GENERAL),
	            scf_bulk_entity_pg(e, OWN_RESTARTER)))
		return 0;
	v = vertex_new(b->gt, d->fmri, scf_bulk_entity_pg(e, OWN_RESTARTER),
	        scf_bulk_entity_pg(e, OWN_ACTIONS));
	if (v)
		burst_add(b, v, d->cause, ovr_of(scf_bulk_entity_pg(e, OWN_GENERAL_OVR)), true);
	return 0;
}

/* The next vertex from b->next on that needs the second read (b->n_added: none). */
static size_t next_unread(const burst_t *b, size_t from)
{
	while (from < b->n_added && !b->unread[from])
		from++;
	return from;
}

/* The second read's answer for the next unread vertex: its enabled state and dependencies. */
static int burst_prepare(const scf_bulk_entity_t *e, void *userdata)
{
	burst_t *b = userdata;
	size_t k = next_unread(b, b->next);
	vertex_t *v;
	int r;

	assert(k < b->n_added);
	b->next = k + 1;
	b->unread[k] = false;
	v = b->added[k];
	event_cause_set(b->causes[k]);
	vertex_from_read(v, e, scf_bulk_entity_pg(e, NEW_GENERAL), b->ovr[k], NEW_DEPS);
	if (scf_bulk_entity_pg(e, NEW_RUNNING_GENERAL)) {
		v->seen |= SEEN_RUNNING;
		return 0;
	}
	/* No general in a running snapshot: there may be none, or one without general. */
	r = read_deps(b->gt, v);
	if (r < 0) {
		vertex_set_enabled(v, false, -1); /* as prepare_reads() */
		not_read(b->gt, v, "enabled state and dependencies", "disabled", r);
	}
	return 0;
}

/*
 * The reads of a burst of new instances (due[0..n)): each one's first sight, in order, under
 * its own cause; the vertices made, in *added (n of them at most, in the same order), their
 * causes in causes[].  Two bulk reads for the whole burst (own_reads, new_reads above) rather
 * than about three calls per instance; only an instance with no general in its running
 * snapshot costs read_deps()'s calls.  A bulk read that fails (refused, connection lost, timed
 * out) leaves the instances it did not answer to the calls of one instance at a time
 * (first_sight(), prepare_reads()), which meet the error as they always have.  This is the one
 * place that reads new instances: scan() has its own bulk read and reaches first_sight() only
 * for instances without general.
 */
static size_t graph_read_burst(
        graph_thread_t *gt, const due_t *due, size_t n, vertex_t **added, uint64_t *causes)
{
	_cleanup_free_ const char **fmris = calloc(n + 1, sizeof(*fmris));
	_cleanup_free_ int8_t *ovr = calloc(n + 1, sizeof(*ovr));
	_cleanup_free_ bool *unread = calloc(n + 1, sizeof(*unread));
	burst_t b = {.gt = gt,
	        .due = due,
	        .n_due = n,
	        .added = added,
	        .causes = causes,
	        .ovr = ovr,
	        .unread = unread};
	size_t m = 0;
	int r;

	if (!fmris || !ovr || !unread) {
		log_error("out of memory: %zu new instances not inserted", n);
		return 0;
	}
	for (size_t j = 0; j < n; j++)
		fmris[j] = due[j].fmri;
	r = scf_bulk_read(gt->h,
	        &(scf_bulk_query_t){
	                .fmris = fmris, .n_fmris = n, .pgs = own_reads, .n_pgs = _OWN_MAX},
	        burst_sight, &b);
	for (size_t j = b.next; r < 0 && j < n; j++) {
		vertex_t *v;

		event_cause_set(due[j].cause);
		v = first_sight(gt, due[j].fmri);
		if (v)
			burst_add(&b, v, due[j].cause, -1, false);
	}

	for (size_t k = 0; k < b.n_added; k++)
		if (unread[k])
			fmris[m++] = added[k]->fmri;
	b.next = 0;
	r = m == 0 ? 0
	           : scf_bulk_read(gt->h,
	                     &(scf_bulk_query_t){.fmris = fmris,
	                             .n_fmris = m,
	                             .pgs = new_reads,
	                             .n_pgs = _NEW_MAX},
	                     burst_prepare, &b);
	for (size_t k = 0; r < 0 && k < b.n_added; k++) {
		if (!unread[k])
			continue;
		unread[k] = false;
		event_cause_set(causes[k]);
		prepare_reads(gt, added[k], false);
	}
	return b.n_added;
}

/*
 * The burst's new instances, read, configured (each checked for a cycle, in order), admitted
 * by the milestone (once for them all) and announced, each under its own cause: what insert()
 * did for one instance at a time before bursts.
 */
static void flush_due(graph_thread_t *gt)
{
	_cleanup_free_ vertex_t **added = NULL;
	_cleanup_free_ uint64_t *causes = NULL;
	uint64_t cause = event_cause();
	size_t n;

	if (gt->n_due == 0)
		return;
	added = calloc(gt->n_due, sizeof(*added));
	causes = calloc(gt->n_due, sizeof(*causes));
	if (!added || !causes) {
		log_error("out of memory: %zu new instances not inserted", gt->n_due);
		n = 0;
	} else
		n = graph_read_burst(gt, gt->due, gt->n_due, added, causes);
	for (size_t k = 0; k < n; k++)
		graph_configure(&gt->graph, added[k]);
	if (n > 0)
		graph_milestone_update(&gt->graph);
	for (size_t k = 0; k < n; k++) {
		event_cause_set(causes[k]);
		announce(gt, added[k]);
	}
	for (size_t k = 0; k < gt->n_due; k++)
		free(hashmap_remove(gt->due_set, gt->due[k].fmri) ? gt->due[k].fmri : NULL);
	gt->n_due = 0;
	event_cause_set(cause);
}

/* Whether fmri's first sight is due in this burst: its events so far are covered by it. */
static bool due(graph_thread_t *gt, const char *fmri)
{
	return fmri && hashmap_get(gt->due_set, fmri);
}

/*
 * An instance with no vertex was named by an event: its first sight is due, at the end of the
 * burst (flush_due()), with this event's cause; the reads come after every event of the burst
 * that names it, so those need no handling of their own.
 */
static void sight(graph_thread_t *gt, const char *fmri)
{
	char *f;

	if (graph_vertex_get(&gt->graph, fmri) || due(gt, fmri))
		return;
	f = strdup(fmri);
	if (!f || GREEDY_REALLOC(gt->due, gt->cap_due, gt->n_due + 1) < 0 ||
	        hashmap_put(gt->due_set, f, f) < 0) {
		free(f);
		log_error("%s: out of memory, not inserted", fmri);
		return;
	}
	gt->due[gt->n_due++] = (due_t){.fmri = f, .cause = event_cause()};
}

/*
 * What of v could not be read (r): v keeps what it had (kept), since a repository that does
 * not answer has not disabled anything nor removed a dependency, and, when the connection is
 * lost (or a call timed out), v is read again later (gt->stale).  A lost connection is logged
 * once, until the repository answers again.
 */
static void not_read(
        graph_thread_t *gt, const vertex_t *v, const char *what, const char *kept, int r)
{
	if (!instance_connection_lost(r))
		log_warning(
		        "%s: cannot read %s: %s; kept %s", v->fmri, what, scf_strerror(r), kept);
	else if (!gt->lost_logged)
		log_info("%s: %s not read (repository connection lost); kept %s until reconnected",
		        v->fmri, what, kept);
	gt->lost_logged = gt->lost_logged || instance_connection_lost(r);
	/* Read again later under the cause of the event that asked (+ 1: a value is never NULL);
	 * another error would only fail again. */
	if (instance_connection_lost(r) &&
	        hashmap_put(gt->stale, v->fmri, (void *)(uintptr_t)(event_cause() + 1)) < 0)
		log_error("%s: out of memory: not read again until its next event", v->fmri);
}

/* v's dependencies may have changed: read again, checked for a cycle, milestone recomputed. */
static void deps_changed(graph_thread_t *gt, vertex_t *v)
{
	int r = read_deps(gt, v);

	if (r < 0) {
		not_read(gt, v, "dependencies", "its dependencies", r);
		return;
	}
	graph_configure(&gt->graph, v);
	graph_milestone_update(&gt->graph);
}

/*
 * The milestone, as illumos' libscf_get_milestone(): options_ovr/milestone of startd's own
 * instance, else options/milestone, else "all"; a value that is not one string is logged and
 * read as "all".  NULL when the repository could not be read (the milestone stays).
 */
static char *read_milestone(scf_handle_t *h)
{
	static const char *const pgs[] = {SCF_PG_OPTIONS_OVR, SCF_PG_OPTIONS};

	for (size_t k = 0; k < ELEMENTSOF(pgs); k++) {
		_cleanup_(scf_property_freep) scf_property_t *p = NULL;
		const char *s;
		int r = scf_property_read(
		        h, SCF_SERVICE_STARTD, pgs[k], SCF_PROPERTY_MILESTONE, &p);

		if (r == -SCF_ERROR_NOT_FOUND)
			continue;
		if (r < 0) {
			log_warning("cannot read the milestone: %s", scf_strerror(r));
			return NULL;
		}
		if (scf_property_get_string(p, &s) < 0) {
			log_warning("%s/%s of %s is misconfigured; milestone \"%s\"", pgs[k],
			        SCF_PROPERTY_MILESTONE, SCF_SERVICE_STARTD,
			        RESTARTER_MILESTONE_ALL);
			break;
		}
		return strdup(s);
	}
	return strdup(RESTARTER_MILESTONE_ALL);
}

/*
 * Reads the milestone and sets it.  At start (boot) a milestone that cannot be set leaves
 * "all", as illumos' set_initial_milestone(); later it leaves the milestone as it was.  With
 * reapply, an unchanged milestone is applied again (configd restarted: its overrides are kept
 * within a boot, but are written again in case the volatile database was started afresh).
 */
static void milestone_changed(graph_thread_t *gt, bool boot, bool reapply)
{
	_cleanup_free_ char *ms = read_milestone(gt->h);
	int r;

	if (!ms)
		return;
	r = graph_set_milestone(&gt->graph, ms);
	if (r == -EALREADY && reapply)
		graph_milestone_apply(&gt->graph);
	else if (r == -EINVAL)
		log_warning("milestone \"%s\" is invalid; %s \"%s\"", ms,
		        boot ? "reverting to" : "keeping", graph_milestone(&gt->graph));
	else if (r == -ENOENT)
		log_warning("milestone %s is not in the repository; %s \"%s\"", ms,
		        boot ? "reverting to" : "keeping", graph_milestone(&gt->graph));
	else if (r < 0 && r != -EALREADY)
		log_error("cannot set milestone %s: %s", ms, strerror(-r));
	graph_evaluate(&gt->graph);
}

/* restarter_actions properties (integer timestamps written by svcadm), in processing order. */
static const struct {
	const char *name;
	int event;
} actions[] = {
        {RESTARTER_ACTION_MAINT_OFF, RE_MAINT_OFF},
        {RESTARTER_ACTION_MAINT_ON, RE_MAINT_ON},
        {RESTARTER_ACTION_MAINT_ON_TEMPORARY, RE_MAINT_ON},
        {RESTARTER_ACTION_MAINT_ON_IMMEDIATE, RE_MAINT_ON_IMMEDIATE},
        {RESTARTER_ACTION_MAINT_ON_IMMTEMP, RE_MAINT_ON_IMMEDIATE}, /* svcadm mark -It */
        {RESTARTER_ACTION_DEGRADED, RE_DEGRADED},
        {RESTARTER_ACTION_DEGRADE_IMMEDIATE, RE_DEGRADED}, /* svcadm mark -I degraded */
        {RESTARTER_ACTION_RESTORE, RE_RESTORE},
        {RESTARTER_ACTION_REFRESH, RE_REFRESH},
        {RESTARTER_ACTION_RESTART, RE_RESTART},
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
static void process_actions(graph_thread_t *gt, vertex_t *v)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	bool any = false;

	if (scf_pg_get(gt->h, v->fmri, SCF_PG_RESTARTER_ACTIONS, NULL, 0, &pg) < 0)
		return;
	for (size_t k = 0; k < ELEMENTSOF(actions); k++) {
		const scf_property_t *p = scf_pg_property(pg, actions[k].name);

		if (!p || p->n_values == 0)
			continue;
		any = true;
		log_info("%s: %s requested", v->fmri, actions[k].name);
		if (actions[k].event == RE_REFRESH) {
			deps_changed(gt, v);
			graph_propagate_refresh(&gt->graph, v);
		}
		/* A cycle is looked for again; while there is one, the instance stays. */
		if (actions[k].event == RE_MAINT_OFF && v->in_cycle) {
			deps_changed(gt, v);
			if (v->in_cycle) {
				log_warning("%s: still completes a dependency cycle; stays in "
				            "maintenance",
				        v->fmri);
				continue;
			}
		}
		(void)restarter_enqueue(gt->m, actions[k].event, v->fmri, 0);
		/* Out of maintenance the instance starts over, as on first sight. */
		if (actions[k].event == RE_MAINT_OFF)
			graph_send_enabled(&gt->graph, v);
	}
	if (any)
		probe_write(v->fmri, SCF_PG_RESTARTER_ACTIONS);
	if (any && scf_tx_run(gt->h, v->fmri, SCF_PG_RESTARTER_ACTIONS, unset_actions, pg, 0) < 0)
		log_warning("%s: cannot clear restarter_actions: %s", v->fmri,
		        scf_handle_errmsg(gt->h));
	if (any)
		graph_evaluate(&gt->graph);
}

static void refresh_enabled(graph_thread_t *gt, vertex_t *v)
{
	bool was = v->enabled, was_noovr = v->enabled_noovr;
	int r;

	r = read_enabled(gt->h, v, false);
	if (r < 0) {
		not_read(gt, v, "enabled state", v->enabled ? "enabled" : "disabled", r);
		return;
	}
	if (v->enabled != was) {
		/* Being enabled is a start: the dependencies it starts on are read now, from the
		 * running snapshot as it is by then. */
		if (v->enabled)
			deps_changed(gt, v);
		graph_send_enabled(&gt->graph, v);
	} else if (v->enabled_noovr != was_noovr) /* below an optional_all group, it counts */
		graph_milestone_update(&gt->graph);
}

/* A pg of a service changed: its instances compose it. */
static void service_pg_changed(
        graph_thread_t *gt, const char *svc, const char *pg, const char *type)
{
	size_t n = strlen(svc), st = 0;
	vertex_t *v;

	while ((v = hashmap_next(gt->graph.vertices, &st, NULL))) {
		if (v->service_len != n || !strneq(v->fmri, svc, n))
			continue;
		if (streq(pg, SCF_PG_GENERAL))
			refresh_enabled(gt, v);
		else if (type && streq(type, SCF_GROUP_DEPENDENCY))
			deps_changed(gt, v);
	}
	graph_evaluate(&gt->graph);
}

static void pg_event(graph_thread_t *gt, const event_t *e)
{
	bool deleted = e->type == GE_PG_DELETED;
	vertex_t *v;

	if (!e->fmri || !e->pg)
		return;
	/* Milestones: startd's own options (illumos' process_pg_event()). */
	if (streq(e->fmri, SCF_SERVICE_STARTD) &&
	        (streq(e->pg, SCF_PG_OPTIONS) || streq(e->pg, SCF_PG_OPTIONS_OVR))) {
		/* Instances the burst named so far are inserted under the milestone as it was. */
		flush_due(gt);
		milestone_changed(gt, false, false);
		return;
	}
	if (graph_service_len(e->fmri) == 0) {
		service_pg_changed(gt, e->fmri, e->pg, e->pgtype);
		return;
	}
	if (due(gt, e->fmri))
		return;
	v = graph_vertex_get(&gt->graph, e->fmri);
	if (!v) {
		if (!deleted)
			sight(gt, e->fmri);
		return;
	}
	if (deleted && scf_entity_exists(gt->h, e->fmri) == 0) {
		graph_vertex_remove(&gt->graph, v);
		return;
	}
	if (streq(e->pg, SCF_PG_GENERAL) || streq(e->pg, SCF_PG_GENERAL_OVR))
		refresh_enabled(gt, v);
	else if (streq(e->pg, SCF_PG_RESTARTER_ACTIONS) && !deleted)
		process_actions(gt, v);
	else if (e->pgtype && streq(e->pgtype, SCF_GROUP_DEPENDENCY)) {
		deps_changed(gt, v);
		graph_evaluate(&gt->graph);
	}
}

/*
 * The scan's reads, in one bulk read of every instance rather than five or more requests per
 * instance: its own general (whether it gets a vertex), general composed and general_ovr (as
 * read_enabled()), and its dependency pgs as read_deps() reads them.
 */
enum { SCAN_OWN_GENERAL, SCAN_GENERAL, SCAN_GENERAL_OVR, SCAN_DEPS, _SCAN_MAX };
static const scf_bulk_pg_t scan_reads[_SCAN_MAX] = {
        [SCAN_OWN_GENERAL] = {.name = SCF_PG_GENERAL},
        [SCAN_GENERAL] = {.name = SCF_PG_GENERAL, .read_flags = SCF_READ_COMPOSED},
        [SCAN_GENERAL_OVR] = {.name = SCF_PG_GENERAL_OVR},
        [SCAN_DEPS] = {.type = SCF_GROUP_DEPENDENCY,
                .snapshot = SCF_SNAPSHOT_RUNNING,
                .read_flags = SCF_READ_COMPOSED | SCF_READ_SNAPSHOT_FALLBACK},
};

typedef struct scan_state {
	graph_thread_t *gt;
	vertex_t **added;
	size_t n, cap;
} scan_state_t;

/* prepare() from the bulk read's answer. */
static vertex_t *prepare_read(graph_thread_t *gt, const scf_bulk_entity_t *e)
{
	vertex_t *v;

	probe_first_sight(e->fmri, "insert");
	if (graph_vertex_add(&gt->graph, e->fmri, &v) < 0) {
		log_error("%s: out of memory, not inserted", e->fmri);
		return NULL;
	}
	vertex_from_read(v, e, scf_bulk_entity_pg(e, SCAN_GENERAL),
	        ovr_of(scf_bulk_entity_pg(e, SCAN_GENERAL_OVR)), SCAN_DEPS);
	return v;
}

/* One instance of the scan: first_sight(), its reads taken from e where it has them. */
static int scan_one(const scf_bulk_entity_t *e, void *userdata)
{
	scan_state_t *st = userdata;
	vertex_t *v;

	if (e->error || graph_vertex_get(&st->gt->graph, e->fmri))
		return 0;
	/* No general of its own (or startd itself): first sight's own path, restarter pg and all. */
	if (!scf_bulk_entity_pg(e, SCAN_OWN_GENERAL) || streq(e->fmri, SCF_SERVICE_STARTD))
		v = first_sight(st->gt, e->fmri);
	else
		v = prepare_read(st->gt, e);
	if (!v)
		return 0;
	if (GREEDY_REALLOC(st->added, st->cap, st->n + 1) < 0)
		insert(st->gt, v); /* out of memory: this one at once */
	else
		st->added[st->n++] = v;
	return 0;
}

/*
 * Every instance, in the repository's order.  The new vertices are read first, then
 * configured in that order (which of a cycle's members completes it depends on it), then, at
 * start, the milestone is set over all of them at once, as illumos sets it before it
 * populates its graph at boot, and only then are they announced: an instance outside the
 * milestone is disabled before the restarter hears of it.
 */
static void scan(graph_thread_t *gt, bool first)
{
	scan_state_t st = {.gt = gt};
	_cleanup_free_ vertex_t **added = NULL;
	size_t n;
	int r;

	r = scf_bulk_read(
	        gt->h, &(scf_bulk_query_t){.pgs = scan_reads, .n_pgs = _SCAN_MAX}, scan_one, &st);
	if (r < 0)
		log_error("cannot list instances: %s", scf_handle_errmsg(gt->h));
	added = st.added;
	n = st.n;
	for (size_t k = 0; k < n; k++)
		graph_configure(&gt->graph, added[k]);
	if (first)
		milestone_changed(gt, true, false);
	graph_milestone_update(&gt->graph);
	for (size_t k = 0; k < n; k++)
		announce(gt, added[k]);
	if (first)
		sem_post(&gt->m->scanned);
}

/*
 * The graph's repository handle.  SVC_STARTD_GRAPH_TIMEOUT_MS, when set, replaces libscf's
 * 25 s call timeout on it: a test's way to make a stalled configd (SIGSTOP) look like one that
 * does not answer, without waiting 25 s (test-graph-lost.sh).
 */
static int graph_handle_create(const char *root, scf_handle_t **ret)
{
	const char *e = getenv("SVC_STARTD_GRAPH_TIMEOUT_MS");
	char *end = NULL;
	unsigned long ms = e && *e ? strtoul(e, &end, 10) : 0;
	int r = scf_handle_create(root, ret);

	if (r >= 0 && ms > 0 && end && !*end)
		scf_handle_set_timeout(*ret, ms * USEC_PER_MSEC);
	return r;
}

/* Empties gt->stale (a new set: emptying one entry at a time restarts its walk each time). */
static void stale_clear(graph_thread_t *gt)
{
	hashmap_t *h = hashmap_new();

	if (!h) {
		log_error("out of memory: the unread instances stay marked");
		return;
	}
	hashmap_free(gt->stale);
	gt->stale = h;
}

/*
 * The vertices the repository did not answer for are read again: the first one, and the rest
 * only if it answered (a configd that stalls would cost a call timeout per vertex).  Each
 * under the cause of the event that had asked for the read.  Called at the start of a burst
 * (the graph woke: something happened since) and when the graph has waited STALE_RETRY_USEC
 * with nothing to do, so that a stall that ends with no further event is still caught up.
 */
static void retry_stale(graph_thread_t *gt)
{
	uint64_t cause = event_cause();
	const char *key;
	size_t st = 0;
	void *value;

	while ((value = hashmap_next(gt->stale, &st, &key))) {
		_cleanup_free_ char *fmri = strdup(key);
		vertex_t *v;
		bool was;

		if (!fmri)
			break;
		(void)hashmap_remove(gt->stale, fmri);
		st = 0;
		v = graph_vertex_get(&gt->graph, fmri);
		if (!v)
			continue;
		event_cause_set((uint64_t)(uintptr_t)value - 1);
		was = v->enabled;
		refresh_enabled(gt, v);
		if (!hashmap_get(gt->stale, fmri) && !(v->enabled && !was))
			deps_changed(gt, v); /* (being enabled read them already) */
		if (hashmap_get(gt->stale, fmri))
			break; /* still no answer: the rest wait */
		gt->lost_logged = false;
	}
	graph_evaluate(&gt->graph);
	event_cause_set(cause);
}

/*
 * configd restarted (repo.c has re-registered and re-subscribed): the old handle is dead.
 * Whatever changed while it was away is read again, and instances created meanwhile are
 * found by a new scan (the subscription is already back, so nothing falls in between).
 */
static void reconnect(graph_thread_t *gt)
{
	scf_handle_t *h = NULL;
	size_t st = 0;
	vertex_t *v;

	if (graph_handle_create(gt->m->root, &h) < 0) {
		log_error("graph: cannot reach the restarted repository");
		return;
	}
	scf_handle_destroy(gt->h);
	gt->h = h;
	gt->lost_logged = false;
	stale_clear(gt); /* every vertex is read again below */
	while ((v = hashmap_next(gt->graph.vertices, &st, NULL))) {
		refresh_enabled(gt, v);
		deps_changed(gt, v);
		process_actions(gt, v);
	}
	scan(gt, false);
	/*
	 * The milestone (options_ovr is kept within a boot) and the overrides startd wrote are read
	 * and applied again: a volatile database started afresh meanwhile has lost them.
	 */
	milestone_changed(gt, false, true);
}

static void state_event(graph_thread_t *gt, const event_t *e)
{
	vertex_t *v = graph_vertex_get(&gt->graph, e->fmri);

	if (v)
		graph_set_state(&gt->graph, v, (restarter_instance_state_t)e->arg, e->pg);
}

/* One event of a burst, under its own cause (queue.h: it was taken off the queue with it). */
static void handle(graph_thread_t *gt, const event_t *e)
{
	event_cause_set(e->cause);
	switch (e->type) {
	case GE_SCAN:
		flush_due(gt);
		scan(gt, true);
		break;
	case GE_RECONNECT:
		flush_due(gt);
		reconnect(gt);
		break;
	case GE_PG_CHANGED:
	case GE_PG_DELETED:
		pg_event(gt, e);
		break;
	case GE_INSTANCE_ADDED:
		if (e->fmri)
			sight(gt, e->fmri);
		break;
	case GE_STATE:
		state_event(gt, e);
		break;
	default:
		break;
	}
}

/*
 * The graph thread takes every event queued (up to GRAPH_BURST_MAX) as one burst: the events
 * are handled in order, except that new instances are read and inserted together at its end
 * (or before an event that must see them: a scan, a reconnection, a milestone change), and
 * that the graph is evaluated once, at its end (graph_defer_begin()).  A burst of one event is
 * handled as events always were.
 */
static void *graph_main(void *userdata)
{
	graph_thread_t *gt = userdata;
	event_t *burst[GRAPH_BURST_MAX];

	/* From here on only this thread touches the graph (graph.h). */
	graph_claim(&gt->graph);
	for (;;) {
		bool stale = hashmap_size(gt->stale) > 0, quit = false;
		uint64_t wait = stale ? STALE_RETRY_USEC : USEC_INFINITY;
		size_t n = 0;

		if (hashmap_size(gt->unwritten) > 0 && deadline_left_usec(gt->unwritten_due) < wait)
			wait = deadline_left_usec(gt->unwritten_due);
		burst[0] = event_queue_pop(&gt->m->graph_q, wait);
		if (burst[0])
			n++;
		while (n > 0 && n < GRAPH_BURST_MAX && burst[n - 1]->type != GE_QUIT &&
		        (burst[n] = event_queue_pop(&gt->m->graph_q, 0)))
			n++;
		for (size_t k = 0; k < n; k++)
			quit = quit || burst[k]->type == GE_QUIT;
		graph_defer_begin(&gt->graph);
		if (stale && !quit)
			retry_stale(gt);
		if (!quit)
			retry_unwritten(gt);
		for (size_t k = 0; k < n; k++) {
			handle(gt, burst[k]);
			event_free(burst[k]);
		}
		flush_due(gt);
		graph_defer_end(&gt->graph);
		if (quit)
			return NULL;
	}
}

/* GRAPH_OVR_DISABLE: general_ovr/enabled=false; GRAPH_OVR_DELETE: it and its comment go. */
static int tx_override(scf_tx_t *tx, void *userdata)
{
	static const char *const no = "false";
	static const char *const props[] = {SCF_PROPERTY_ENABLED, SCF_PROPERTY_COMMENT};
	int r = 0;

	if (*(const int *)userdata == GRAPH_OVR_DISABLE)
		return scf_tx_set(tx, SCF_PROPERTY_ENABLED, SCF_TYPE_BOOLEAN, &no, 1);
	for (size_t k = 0; r >= 0 && k < ELEMENTSOF(props); k++)
		if (scf_pg_property(scf_tx_pg(tx), props[k]))
			r = scf_tx_delete(tx, props[k]);
	return r;
}

/* The milestone's override writes (the restarter has had its RE_DISABLE already). */
static void write_override(graph_thread_t *gt, int event, const char *fmri)
{
	int r = 0;

	probe_write(fmri, SCF_PG_GENERAL_OVR);
	if (event == GRAPH_OVR_DISABLE) {
		r = scf_pg_add(gt->h, fmri, SCF_PG_GENERAL_OVR, SCF_GROUP_FRAMEWORK,
		        SCF_PG_FLAG_NONPERSISTENT);
		if (r == -SCF_ERROR_EXISTS)
			r = 0;
	}
	if (r >= 0)
		r = scf_tx_run(gt->h, fmri, SCF_PG_GENERAL_OVR, tx_override, &event, 0);
	if (r < 0 && !(r == -SCF_ERROR_NOT_FOUND && event == GRAPH_OVR_DELETE))
		log_warning("%s: cannot %s %s/%s: %s", fmri,
		        event == GRAPH_OVR_DISABLE ? "set" : "delete", SCF_PG_GENERAL_OVR,
		        SCF_PROPERTY_ENABLED, scf_handle_errmsg(gt->h));
}

/* The graph's decisions go to the restarter dispatcher, its override writes to configd. */
static void emit_to_restarter(void *userdata, int event, const char *fmri)
{
	graph_thread_t *gt = userdata;

	vertex_t *v;
	int64_t arg = 0;

	if (event == GRAPH_OVR_DELETE || event == GRAPH_OVR_DISABLE) {
		write_override(gt, event, fmri);
		return;
	}
	/* What first sight found tells the worker what it need not read or take (startd.h). */
	if (event == RE_INSERT && (v = graph_vertex_get(&gt->graph, fmri)))
		arg = (v->seen & SEEN_NO_RPG ? RE_INSERT_FRESH : 0) |
		        (v->seen & SEEN_RUNNING ? RE_INSERT_RUNNING : 0);
	(void)restarter_enqueue(gt->m, event, fmri, arg);
}

int graph_thread_start(startd_t *m)
{
	int r;

	graph.m = m;
	graph.due_set = hashmap_new();
	graph.stale = hashmap_new();
	graph.unwritten = hashmap_new();
	if (!graph.due_set || !graph.stale || !graph.unwritten ||
	        graph_init(&graph.graph, emit_to_restarter, &graph) < 0)
		return log_error_errno(-ENOMEM, "out of memory");
	r = graph_handle_create(m->root, &graph.h);
	if (r < 0) {
		log_error("graph: cannot reach the repository: %s", scf_strerror(r));
		return -EIO;
	}
	r = thread_start(&m->graph_thread, "startd-graph", graph_main, &graph);
	if (r < 0)
		return log_error_errno(r, "cannot start the graph thread");
	return 0;
}

void graph_thread_stop(startd_t *m)
{
	(void)event_queue_push(&m->graph_q, GE_QUIT, NULL, NULL, NULL, 0, NULL);
	pthread_join(m->graph_thread, NULL);
	/* The graph thread is gone: the graph is this thread's to free. */
	graph_claim(&graph.graph);
	graph_done(&graph.graph);
	scf_handle_destroy(graph.h);
	graph.h = NULL;
	graph.due_set = hashmap_free(graph.due_set);
	graph.unwritten = hashmap_free(graph.unwritten);
	free(graph.due);
	graph.due = NULL;
	graph.cap_due = 0;
}
