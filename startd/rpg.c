/*
 * rpg.c: commits to an instance's restarter pg.
 *
 * startd is the only writer of the restarter pg, and within startd only the instance's worker
 * (asserted), so a batch (pg ensure + property sets, one SQLite transaction, one notification)
 * is enough: no read-modify-write, no generation to check.  It also means the pg is never seen half-written: it appears with its state.
 * One exception, before any worker exists for the instance: the graph's first sight of an
 * instance without a general pg writes the uninitialized pg (rpg_write_initial()); the
 * instance gets a worker only once the graph inserts it, later, on the same graph thread.
 * (With configd-eager, configd writes that first generation itself: docs/decisions.md.)
 * startd.restarter_pg_written is traced once configd has answered the commit; the instant the
 * pg came to exist is configd's own configd.commit, before that answer.
 */
#include <inttypes.h>
#include <stdio.h>

#include "instance.h"
#include "log.h"
#include "macro.h"
#include "probes.h"
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

static int write_batch(scf_handle_t *h, const char *fmri, const state_update_t *u)
{
	scf_batch_t *b = NULL;
	uint64_t now = now_realtime_usec();
	char ts[64];
	int r;

	snprintf(ts, sizeof(ts), "%" PRIu64 ".%06" PRIu64, now / USEC_PER_SEC, now % USEC_PER_SEC);
	r = scf_batch_new(h, &b);
	if (r < 0)
		return r;
	r = scf_batch_pg_ensure(
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
	if (r >= 0) {
		probe_write(fmri, SCF_PG_RESTARTER);
		r = scf_batch_commit(b);
	}
	if (r >= 0)
		probe_restarter_pg_written(fmri);
	scf_batch_free(b);
	return r;
}

int rpg_write(instance_t *i, const state_update_t *u)
{
	int r;

	instance_assert_worker(i);
	r = write_batch(i->h, i->fmri, u);
	/* A lost connection is the caller's to wait out (instance_rebind()), and to log. */
	if (r < 0 && !instance_connection_lost(r))
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

	/* An instance deleted since it was seen is no failure: there is nothing left to take up. */
	if (r < 0 && r != -SCF_ERROR_NOT_FOUND)
		log_warning("%s: cannot write the restarter pg: %s", fmri, scf_handle_errmsg(h));
	return r;
}
