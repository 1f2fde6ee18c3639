/*
 * rpg.c: commits to an instance's restarter pg.
 *
 * startd is the only writer of the restarter pg, and within startd only the thread that holds
 * the instance's worker bit (asserted: its worker, or the bulk worker), so a batch (pg ensure
 * + property sets, one SQLite transaction, one notification) is enough: no read-modify-write,
 * no generation to check.  It also means the pg is never seen half-written: it appears with
 * its state.  The bulk worker puts the writes of many instances in one batch (rpg_batch_*):
 * one transaction, still one generation and one notification per pg, each pg announced
 * (startd.write) with its own cause, and one commit per cause, since svctrace gives a commit
 * one cause.  One exception, before the instance has a queue: the graph's first sight of an
 * instance without a general pg writes the uninitialized pg (rpg_write_initial()); the
 * instance gets a queue only once the graph inserts it, later, on the same graph thread.
 * (With configd-eager, configd writes that first generation itself: docs/decisions.md.)
 * startd.restarter_pg_written is traced once configd has answered the commit; the instant the
 * pg came to exist is configd's own configd.commit, before that answer.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "rpg.h"
#include "log.h"
#include "macro.h"
#include "probes.h"
#include "retry.h"
#include "timeutil.h"

static int set1(scf_batch_t *b, const char *fmri, const char *prop, scf_type_t t, const char *v)
{
	const char *vals[] = {v};

	return scf_batch_prop_set(b, fmri, SCF_PG_RESTARTER, prop, t, vals, 1);
}

static int set_pid(scf_batch_t *b, const char *fmri, const char *prop, pid_t pid)
{
	char buf[32];

	if (pid < 0)
		return 0;
	snprintf(buf, sizeof(buf), "%d", (int)pid);
	return set1(b, fmri, prop, SCF_TYPE_COUNT, buf);
}

static void timestamp(char *ts, size_t size)
{
	uint64_t now = now_realtime_usec();

	snprintf(ts, size, "%" PRIu64 ".%06" PRIu64, now / USEC_PER_SEC, now % USEC_PER_SEC);
}

/* The steps of one restarter pg write: the pg (made if missing), then its properties. */
static int add_steps(scf_batch_t *b, const char *fmri, const state_update_t *u, const char *ts)
{
	int r = scf_batch_pg_ensure(
	        b, fmri, SCF_PG_RESTARTER, SCF_GROUP_FRAMEWORK, SCF_PG_FLAG_NONPERSISTENT);

	if (r >= 0)
		r = set1(b, fmri, SCF_PROPERTY_STATE, SCF_TYPE_ASTRING,
		        restarter_state_to_string(u->state));
	if (r >= 0)
		r = set1(b, fmri, SCF_PROPERTY_NEXT_STATE, SCF_TYPE_ASTRING,
		        restarter_state_to_string(u->next_state));
	if (r >= 0)
		r = set1(b, fmri, SCF_PROPERTY_AUX_STATE, SCF_TYPE_ASTRING,
		        u->aux ? u->aux : RESTARTER_AUX_NONE);
	if (r >= 0)
		r = set1(b, fmri, SCF_PROPERTY_STATE_TIMESTAMP, SCF_TYPE_TIME, ts);
	if (r >= 0)
		r = set_pid(b, fmri, SCF_PROPERTY_START_PID, u->start_pid);
	if (r >= 0)
		r = set_pid(b, fmri, SCF_PROPERTY_CONTRACT, u->contract);
	if (r >= 0 && u->logfile)
		r = set1(b, fmri, SCF_PROPERTY_LOGFILE, SCF_TYPE_ASTRING, u->logfile);
	return r;
}

static int write_batch(scf_handle_t *h, const char *fmri, const state_update_t *u)
{
	_cleanup_(scf_batch_freep) scf_batch_t *b = NULL;
	char ts[64];
	int r;

	timestamp(ts, sizeof(ts));
	r = scf_batch_new(h, &b);
	if (r >= 0)
		r = add_steps(b, fmri, u, ts);
	if (r >= 0) {
		probe_write(fmri, SCF_PG_RESTARTER);
		r = scf_batch_commit(b);
	}
	if (r >= 0)
		probe_restarter_pg_written(fmri);
	return r;
}

int rpg_batch_add(rpg_batch_t *b, instance_t *i, const state_update_t *u, bool first, bool report)
{
	instance_assert_worker(i);
	if (GREEDY_REALLOC(b->items, b->cap, b->n + 1) < 0)
		return -ENOMEM;
	b->items[b->n++] = (rpg_item_t){.i = i, .u = *u, .cause = event_cause(), .report = report};
	if (first)
		b->first = true;
	else
		b->later = true;
	return 0;
}

void rpg_batch_clear(rpg_batch_t *b)
{
	free(b->items);
	*b = (rpg_batch_t){};
}

/*
 * The items of b from `from` on whose cause is b->items[from].cause (and not taken yet: taken[]
 * marks them), not written yet, in one scf_batch.  Refused: each on its own.  Each item written
 * is marked done, so a commit repeated after a failure writes only what is left.  0, a lost
 * connection, or a failure of the store (retry.h: every write would meet it; the caller waits
 * and commits again).
 */
static int commit_cause(scf_handle_t *h, rpg_batch_t *b, size_t from, bool *taken)
{
	_cleanup_(scf_batch_freep) scf_batch_t *sb = NULL;
	uint64_t cause = b->items[from].cause;
	size_t n = 0;
	char ts[64];
	int r;

	timestamp(ts, sizeof(ts));
	r = scf_batch_new(h, &sb);
	for (size_t k = from; k < b->n; k++)
		if (!taken[k] && b->items[k].cause == cause) {
			taken[k] = true;
			if (r < 0 || b->items[k].done)
				continue;
			instance_assert_worker(b->items[k].i);
			r = add_steps(sb, b->items[k].i->fmri, &b->items[k].u, ts);
			n++;
		}
	if (r < 0 || n == 0)
		return r < 0 ? r : 0;
	event_cause_set(cause);
	/* Each pg announced, right before the commit that writes them all. */
	for (size_t k = from; k < b->n; k++)
		if (b->items[k].cause == cause && !b->items[k].done)
			probe_write(b->items[k].i->fmri, SCF_PG_RESTARTER);
	r = scf_batch_commit(sb);
	if (r >= 0) {
		for (size_t k = from; k < b->n; k++)
			if (b->items[k].cause == cause && !b->items[k].done) {
				b->items[k].done = true;
				probe_restarter_pg_written(b->items[k].i->fmri);
			}
		return 0;
	}
	if (instance_connection_lost(r) || retry_store_failed(r))
		return r;
	log_warning("a batch of %zu restarter pg writes failed (%s); writing them one by one", n,
	        scf_handle_errmsg(h));
	for (size_t k = from; k < b->n; k++) {
		rpg_item_t *it = &b->items[k];

		if (it->cause != cause || it->done)
			continue;
		r = write_batch(h, it->i->fmri, &it->u);
		if (instance_connection_lost(r) || retry_store_failed(r))
			return r;
		/* Done either way: an instance deleted since has its RE_REMOVE on the way. */
		it->done = true;
		if (r < 0 && r != -SCF_ERROR_NOT_FOUND)
			log_warning("%s: cannot write the restarter pg: %s", it->i->fmri,
			        scf_handle_errmsg(h));
	}
	return 0;
}

int rpg_batch_commit(scf_handle_t *h, rpg_batch_t *b)
{
	_cleanup_free_ bool *taken = calloc(b->n + 1, sizeof(*taken));
	int r = 0;

	if (!taken)
		return -ENOMEM;
	/*
	 * One commit per cause: svctrace gives each commit one cause (the announcement of its
	 * first pg), so writes descending from different commits (two imports' instances in one
	 * round) go in commits of their own.  A burst from one import is one commit.
	 */
	for (size_t k = 0; r >= 0 && k < b->n; k++)
		if (!taken[k])
			r = commit_cause(h, b, k, taken);
	return r;
}

int rpg_write(instance_t *i, const state_update_t *u)
{
	int r;

	instance_assert_worker(i);
	r = write_batch(i->h, i->fmri, u);
	/*
	 * A lost connection is the caller's to wait out (instance_rebind()), and to log; a failed
	 * store is the caller's to retry (retry.h), which logs it once per episode.
	 */
	if (r < 0 && !instance_connection_lost(r) && !retry_store_failed(r))
		log_warning(
		        "%s: cannot write the restarter pg: %s", i->fmri, scf_handle_errmsg(i->h));
	return r;
}

int rpg_write_initial(scf_handle_t *h, const char *fmri)
{
	state_update_t u = {
	        .state = RESTARTER_STATE_UNINIT,
	        .next_state = RESTARTER_STATE_NONE,
	        .aux = RESTARTER_AUX_INSERT_IN_GRAPH,
	        .start_pid = -1,
	        .contract = -1,
	};
	int r = write_batch(h, fmri, &u);

	/*
	 * An instance deleted since it was seen is no failure: there is nothing left to take up.
	 * A failed store is the graph's to retry (retry.h), which logs it once per episode.
	 */
	if (r < 0 && r != -SCF_ERROR_NOT_FOUND && !retry_store_failed(r))
		log_warning("%s: cannot write the restarter pg: %s", fmri, scf_handle_errmsg(h));
	return r;
}
