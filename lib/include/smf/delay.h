/*
 * delay.h: delay points, the race harness's way to hold a window open on purpose.
 *
 * SMF_DELAY="point=spec[,point=spec...]" names points of a daemon's event path and a delay for
 * each.  A spec is fixed, "Nus", "Nms" or "Ns", or random, "rand:A-B(us|ms|s)", uniform in
 * [A, B].  Random delays are a pure function of (seed, point, call index), so a run replays
 * with the same seed (SMF_DELAY_SEED) whatever the thread interleaving.
 */
#ifndef SMF_DELAY_H
#define SMF_DELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "macro.h"

typedef struct delay_table delay_table_t;

/*
 * Parses spec into a new table.  An entry that does not parse is reported on stderr (naming it)
 * and skipped; the others still apply.  Returns the number of entries skipped (>= 0), or
 * -ENOMEM.  *ret is a table even when it holds no entry.
 */
int smf_delay_parse(const char *spec, uint64_t seed, delay_table_t **ret);

/* The delay for the next pass through point, in microseconds; 0 when point has no spec. */
uint64_t smf_delay_usec(delay_table_t *t, const char *point);

size_t smf_delay_count(const delay_table_t *t);
bool smf_delay_has_random(const delay_table_t *t);
uint64_t smf_delay_seed(const delay_table_t *t);

delay_table_t *smf_delay_free(delay_table_t *t);
static inline void smf_delay_freep(delay_table_t **t)
{
	smf_delay_free(*t);
}
#define _cleanup_delay_free_ __attribute__((cleanup(smf_delay_freep)))

/*
 * The table of $SMF_DELAY with the seed of $SMF_DELAY_SEED (or one from the clock), for a daemon
 * at startup.  When a random spec is present the seed is printed once on stderr as
 * "<who>: SMF_DELAY seed N", so a reproduction can be replayed.  *ret is NULL when SMF_DELAY is
 * unset or has no valid entry, so callers test one pointer on their hot path.
 */
int smf_delay_from_env(const char *who, delay_table_t **ret);

/* Sleeps usec on CLOCK_MONOTONIC, resuming after signals so the delay is neither cut nor stretched. */
void smf_delay_sleep(uint64_t usec);

/*
 * The delay points of this process: the one hook both daemons call at their named points.
 *
 * smf_points_init() reads $SMF_DELAY once (smf_delay_from_env(), who names the program in the
 * seed message); it must run before the process starts a thread, so the table pointer never
 * changes while a thread may read it.  The table is never freed: a thread may still pass a
 * point while the process exits.  A failure (out of memory) is reported and the process runs
 * without delays: a harness knob must not stop a daemon.
 *
 * smf_point() sleeps for whatever the named point was given, or returns at once; when
 * SMF_DELAY is unset it is one predictable branch.
 */
void smf_points_init(const char *who);
void smf_point(const char *name);

/*
 * Every delay point, the one list of their names (docs/race.md describes each, with what it
 * widens): X(constant, name, where it sits).  In the order an instance's creation travels,
 * from a client's commit to startd's writes.
 */
#define SMF_POINTS(X)                                                                              \
	X(SMF_POINT_CONFIGD_COMMIT_AFTER, "configd.commit.after",                                  \
	        "configd/methods-*.c: after a write's SQLite commit, before its reply and its "    \
	        "notifications")                                                                   \
	X(SMF_POINT_CONFIGD_NOTIFY_BEFORE_SEND, "configd.notify.before_send",                      \
	        "configd/notify.c: before each change notification is queued on a connection")     \
	X(SMF_POINT_STARTD_REPO_NOTIFY_RECEIVED, "startd.repo.notify_received",                    \
	        "startd/repo.c: a notification received, before it goes to the graph")             \
	X(SMF_POINT_STARTD_GRAPH_BEFORE_INSERT, "startd.graph.before_insert",                      \
	        "startd/graph.c: before a new vertex is handed to the restarter")                  \
	X(SMF_POINT_STARTD_RESTARTER_BEFORE_ENQUEUE, "startd.restarter.before_enqueue",            \
	        "startd/restarter.c: the dispatcher, before an event goes on an instance's queue") \
	X(SMF_POINT_STARTD_WORKER_AFTER_DEQUEUE, "startd.worker.after_dequeue",                    \
	        "startd/restarter.c: an instance's worker, after it took an event off its queue")  \
	X(SMF_POINT_STARTD_RESTARTER_BEFORE_PG_WRITE, "startd.restarter.before_pg_write",          \
	        "startd/instance.c, startd/graph.c: before the first write of a new instance's "   \
	        "restarter pg (the worker's; the graph's for an instance without general)")        \
	X(SMF_POINT_STARTD_RESTARTER_BEFORE_STATE_WRITE, "startd.restarter.before_state_write",    \
	        "startd/instance.c: the worker, before each later state write of the restarter "   \
	        "pg")                                                                              \
	X(SMF_POINT_STARTD_METHOD_BEFORE_START, "startd.method.before_start",                      \
	        "startd/method.c: the worker, before a method runs (its process is spawned, or "   \
	        ":true/:kill is carried out)")

#define SMF_POINT_NAME_(c, name, where) static const char c[] _unused_ = name;
SMF_POINTS(SMF_POINT_NAME_)
#undef SMF_POINT_NAME_

#endif
