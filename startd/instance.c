/*
 * instance.c: the restarter's state machine for one instance, run by its worker.
 *
 *   uninitialized --enable--> offline --start (graph: dependencies met)--> online
 *   any --disable--> (stop method, contract killed) --> disabled
 *   online --dependency lost--> offline;  online --contract empty--> offline (then restarted)
 *   start exits 95/96/99/100 or times out, or fails 3 times --> maintenance
 *   5 restarts within 600 s after the contract emptied --> maintenance (restarting too quickly)
 *
 * Each transition is committed to the restarter pg (state, next_state, auxiliary_state and
 * state_timestamp together); a transition that takes a method first commits next_state, runs
 * the method, then commits the new state.  Every settled state is reported to the graph, which
 * decides what to start next.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "instance.h"
#include "lock.h"
#include "log.h"
#include "macro.h"
#include "delay.h"
#include "method.h"
#include "probes.h"
#include "proc.h"
#include "retry.h"
#include "rpg.h"
#include "strv.h"
#include "survivors.h"
#include "timeutil.h"

#define START_FAILURE_LIMIT 3 /* illumos: a start method that fails 3 times -> maintenance */
#define RESTART_PERIOD_USEC (600 * USEC_PER_SEC)

instance_t *instance_new(startd_t *m, const char *fmri)
{
	instance_t *i = calloc(1, sizeof(*i));

	if (!i || !(i->fmri = strdup(fmri))) {
		free(i);
		return NULL;
	}
	i->m = m;
	i->state = RESTARTER_STATE_UNINIT;
	event_queue_init(&i->q);
	return i;
}

void instance_free(instance_t *i)
{
	if (!i)
		return;
	event_queue_done(&i->q);
	scf_handle_destroy(i->h);
	free(i->logfile);
	free(i->fmri);
	free(i);
}

/*
 * Idle handles.  A worker holds a repository handle only while it has events: when its queue
 * is empty it puts the handle here (instance_release()), and binds one from here, or a new one,
 * for its next event.  So a burst of instances that each run a method costs as many
 * connections as workers busy at once, not one per instance for as long as each lingers.  A
 * handle is used by one thread at a time, as ever: it passes from one to the next through the
 * pool's lock.  The epoch moves when configd restarts (instance_handles_flush()): a handle from
 * before is dead, and is destroyed instead of kept.
 */
#define HANDLE_POOL_MAX 32
static struct {
	pthread_mutex_t lock;
	scf_handle_t *h[HANDLE_POOL_MAX];
	size_t n;
	unsigned epoch;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

void instance_release(instance_t *i)
{
	scf_handle_t *h = TAKE_PTR(i->h);

	lock_take(&pool.lock, LOCK_LEAF);
	if (h && i->h_epoch == pool.epoch && pool.n < HANDLE_POOL_MAX)
		pool.h[pool.n++] = TAKE_PTR(h);
	lock_drop(&pool.lock, LOCK_LEAF);
	scf_handle_destroy(h);
}

void instance_handles_flush(bool new_epoch)
{
	scf_handle_t *h[HANDLE_POOL_MAX];
	size_t n;

	lock_take(&pool.lock, LOCK_LEAF);
	n = pool.n;
	memcpy(h, pool.h, n * sizeof(*h));
	pool.n = 0;
	if (new_epoch)
		pool.epoch++;
	lock_drop(&pool.lock, LOCK_LEAF);
	for (size_t k = 0; k < n; k++)
		scf_handle_destroy(h[k]);
}

int instance_bind(instance_t *i)
{
	if (i->h)
		return 0;
	lock_take(&pool.lock, LOCK_LEAF);
	i->h_epoch = pool.epoch;
	if (pool.n > 0)
		i->h = pool.h[--pool.n];
	lock_drop(&pool.lock, LOCK_LEAF);
	if (i->h || scf_handle_create(i->m->root, &i->h) >= 0)
		return 0;
	log_warning("%s: the repository is unavailable; waiting for svc.configd", i->fmri);
	i->h = repo_wait_for_configd(i->m);
	if (!i->h) {
		log_error("%s: the repository did not come back", i->fmri);
		return -SCF_ERROR_NO_SERVER;
	}
	return 0;
}

bool instance_rebind(instance_t *i, int r, unsigned *tries)
{
	scf_handle_t *h;

	instance_assert_worker(i);
	if (!instance_connection_lost(r) || *tries >= INSTANCE_REBIND_TRIES)
		return false;
	(*tries)++;
	log_warning("%s: lost the repository connection; waiting for svc.configd", i->fmri);
	/* The dead handle stays until a live one replaces it: i->h is never NULL in a step. */
	h = repo_wait_for_configd(i->m);
	if (!h) {
		log_error("%s: the repository did not come back", i->fmri);
		return false;
	}
	scf_handle_destroy(i->h);
	i->h = h;
	log_info("%s: reconnected to the repository; retrying", i->fmri);
	return true;
}

/* Whether startd must visit this instance at shutdown: it is up or owns processes. */
static void update_active(instance_t *i)
{
	__atomic_store_n(
	        &i->active, restarter_state_is_up(i->state) || i->pgid > 0, __ATOMIC_RELEASE);
}

static void report(instance_t *i)
{
	update_active(i);
	/* The auxiliary state rides along: restart_on needs to know why a dependency went down. */
	(void)event_queue_push(&i->m->graph_q, GE_STATE, i->fmri, i->aux, NULL, i->state, NULL);
}

/*
 * rpg_write() of u; with retry, again (retry.h) while configd's store refuses it, until it
 * succeeds or startd stops: the instance's next step must not run on a state that was not
 * recorded.
 */
static int write_retried(instance_t *i, const state_update_t *u, bool retry)
{
	for (unsigned attempt = 0;; attempt++) {
		int r = INSTANCE_RETRY(i, rpg_write(i, u));

		if (r >= 0)
			retry_succeeded();
		if (!retry_store_failed(r))
			return r;
		retry_failed(i->fmri, r, scf_handle_errmsg(i->h));
		if (!retry || !retry_wait(i->m, attempt))
			return r;
	}
}

/*
 * Commits a state to the restarter pg.  first: the first write of a new instance's pg, which
 * handle_insert() delays at startd.restarter.before_pg_write; every later write passes
 * startd.restarter.before_state_write here.  retry: a write the store refuses is made again
 * until it is taken (write_retried()); without, it is given up (instance_note_pids(), whose
 * pids the state commit after the method records anyway).
 */
static int write_state(instance_t *i, restarter_instance_state_t state,
        restarter_instance_state_t next, const char *aux, bool pids, bool first, bool retry)
{
	state_update_t u = {
	        .state = state,
	        .next_state = next,
	        .aux = aux,
	        .start_pid = pids ? i->start_pid : -1,
	        .contract = pids ? i->pgid : -1,
	        .logfile = i->logfile,
	};
	int r;

	instance_assert_worker(i);
	if (state != i->state) {
		log_info("%s: %s -> %s (%s)", i->fmri, restarter_state_to_string(i->state),
		        restarter_state_to_string(state), strempty(aux));
		probe_state_change(i->fmri, i->state, state);
	}
	i->state = state;
	i->next_state = next;
	i->aux = aux;
	/* The bulk worker's batch: committed, its delay points passed, its reports made later. */
	if (i->batch) {
		r = rpg_batch_add(i->batch, i, &u, first, next == RESTARTER_STATE_NONE);
		if (r < 0)
			log_warning("%s: out of memory; restarter pg not written", i->fmri);
		return r;
	}
	if (!first)
		smf_point(SMF_POINT_STARTD_RESTARTER_BEFORE_STATE_WRITE);
	r = write_retried(i, &u, retry);
	if (next == RESTARTER_STATE_NONE)
		report(i);
	return r;
}

static int commit_full(instance_t *i, restarter_instance_state_t state,
        restarter_instance_state_t next, const char *aux, bool pids)
{
	return write_state(i, state, next, aux, pids, false, true);
}

static int commit(instance_t *i, restarter_instance_state_t state, restarter_instance_state_t next,
        const char *aux)
{
	return commit_full(i, state, next, aux, false);
}

void instance_note_pids(instance_t *i)
{
	/* Not retried: the method it records is running, and waits for no write. */
	(void)write_state(i, i->state, i->next_state, i->aux, true, false, false);
}

/*
 * Kills what is left of the instance's contract and forgets it; then whatever escaped the
 * group (setsid) but not the instance's cgroup leaf, if there is one.
 */
static void kill_contract(instance_t *i, int sig)
{
	if (i->pgid > 0) {
		proc_contract_remove(i->pgid);
		if (proc_group_kill(i->pgid, sig, STOP_GRACE_USEC) < 0)
			log_warning(
			        "%s: processes of group %d survive SIGKILL", i->fmri, (int)i->pgid);
		i->pgid = 0;
	}
	(void)cgroup_kill(i->fmri);
}

/*
 * A restarted startd finds the restarter pg its predecessor wrote.  Policy: an instance that
 * was up and whose contract (process group) still has processes is ADOPTED: it stays online
 * and its group is watched by polling.  Processes of any other instance (caught mid-start or
 * mid-stop) are killed, and the instance goes back to offline (then started again if enabled).
 * Either way no service runs twice.
 */
static void recover(instance_t *i, const scf_pg_t *pg)
{
	const scf_property_t *p;
	const char *s = NULL;
	uint64_t v;
	restarter_instance_state_t st;
	smodel_t model = i->model = method_model(i);

	p = scf_pg_property(pg, SCF_PROPERTY_STATE);
	if (p)
		(void)scf_property_get_string(p, &s);
	st = restarter_state_from_string(s);
	if ((p = scf_pg_property(pg, SCF_PROPERTY_CONTRACT)) && scf_property_get_count(p, &v) >= 0)
		i->pgid = (pid_t)v;
	if ((p = scf_pg_property(pg, SCF_PROPERTY_START_PID)) && scf_property_get_count(p, &v) >= 0)
		i->start_pid = (pid_t)v;
	if ((p = scf_pg_property(pg, SCF_PROPERTY_LOGFILE)) &&
	        scf_property_get_string(p, &s) >= 0) {
		free(i->logfile);
		i->logfile = strdup(s);
	}

	if (restarter_state_is_up(st) && model != SMODEL_TRANSIENT &&
	        proc_group_alive_live(i->pgid)) {
		log_info("%s: adopting running process group %d", i->fmri, (int)i->pgid);
		(void)proc_contract_add(i->pgid, i->fmri, true);
		i->state = st;
		report(i);
		return;
	}
	bool had_contract = i->pgid > 0;
	if (proc_group_alive_live(i->pgid)) {
		log_info("%s: stopping leftover process group %d (state was %s)", i->fmri,
		        (int)i->pgid, restarter_state_to_string(st));
		kill_contract(i, SIGTERM);
	}
	i->pgid = 0;
	i->state = st;
	/* Up without a contract (transient, or a start that left nothing, as EMI): stays up. */
	if (st == RESTARTER_STATE_MAINT || st == RESTARTER_STATE_DISABLED ||
	        st == RESTARTER_STATE_UNINIT ||
	        (restarter_state_is_up(st) && (model == SMODEL_TRANSIENT || !had_contract)))
		report(i);
	else
		(void)commit_full(
		        i, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_NONE, RESTARTER_AUX_NONE, true);
}

/*
 * Whether a group survivors.c found may be this instance's: one it cannot doubt (the cgroup
 * leaf, or a process with startd's own uid), or one running as the start method's user.  A
 * group found by a forged environment of another user is neither adopted nor stopped.
 */
static bool survivor_trusted(instance_t *i, const survivor_t *g, int *ctx_r, uid_t *ctx_uid)
{
	if (g->in_cgroup || g->uid == geteuid())
		return true;
	if (*ctx_r > 0)
		*ctx_r = method_uid(i, "start", ctx_uid);
	return *ctx_r == 0 && g->uid == *ctx_uid;
}

/*
 * What a previous startd left running for this instance (survivors.c), settled once its
 * restarter pg has been read.
 *
 * With a recorded state (recorded), recover() has adopted or stopped the recorded contract;
 * the other groups are stopped unless the instance stays up and a start method made them (a
 * daemon's child that called setsid(), which an adoption keeps as it always has).
 *
 * With no record (the pg lost with the volatile repository, or only the uninitialized pg of
 * a first sight), the survivors say what ran.  Policy, as illumos (which adopts contracts): a
 * contract or wait service whose start method made exactly one group that is not a session
 * of its own is ADOPTED as online with that group as its contract, and its setsid() children
 * stay with it; the enable or disable that follows the insert then applies as to any online
 * instance.  Everything else is STOPPED before the instance can be started again: a contract
 * service whose start method still runs (its group leader is the method's own process: caught
 * mid-start, as recover() treats it), a transient service's leftovers (it will run its start
 * method again), groups of stop or refresh methods, and two candidate groups, of which startd
 * could not tell the contract.  Either way exactly one copy runs.
 */
static void settle_survivors(instance_t *i, survivors_t *sv, bool recorded)
{
	const survivor_t *contract = NULL;
	size_t candidates = 0;
	int ctx_r = 1;
	uid_t ctx_uid = 0;
	bool keep_start = recorded && restarter_state_is_up(i->state);

	if (!recorded) {
		smodel_t model = i->model = method_model(i);

		for (size_t k = 0; k < sv->n; k++) {
			const survivor_t *g = &sv->groups[k];

			if (g->from_start && g->pgid != g->sid &&
			        survivor_trusted(i, g, &ctx_r, &ctx_uid)) {
				contract = g;
				candidates++;
			}
		}
		if (model != SMODEL_TRANSIENT && candidates == 1 &&
		        !(model == SMODEL_CONTRACT && contract->leader) &&
		        proc_group_alive_live(contract->pgid)) {
			log_info("%s: adopting process group %d found without a restarter pg",
			        i->fmri, (int)contract->pgid);
			i->pgid = i->start_pid = contract->pgid;
			(void)proc_contract_add(i->pgid, i->fmri, true);
			(void)commit_full(i, RESTARTER_STATE_ONLINE, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_NONE, true);
			keep_start = true;
		}
	}
	for (size_t k = 0; k < sv->n; k++) {
		const survivor_t *g = &sv->groups[k];

		if (g->pgid == i->pgid || (keep_start && g->from_start) ||
		        !survivor_trusted(i, g, &ctx_r, &ctx_uid))
			continue;
		survivors_stop(i->fmri, g);
	}
}

static void take_running_snapshot(instance_t *i)
{
	_cleanup_strv_free_ char **snaps = NULL;

	if (INSTANCE_RETRY(i, scf_snapshot_list(i->h, i->fmri, &snaps)) < 0)
		return;
	if (strv_contains(snaps, SCF_SNAPSHOT_RUNNING))
		return;
	/* Repeating a take that configd applied before the connection broke retakes the same. */
	if (INSTANCE_RETRY(i, scf_snapshot_take(i->h, i->fmri, SCF_SNAPSHOT_RUNNING)) < 0)
		log_warning("%s: cannot take the running snapshot: %s", i->fmri,
		        scf_handle_errmsg(i->h));
}

/* arg: RE_INSERT_* (startd.h), what the graph's first sight found. */
static void handle_insert(instance_t *i, int64_t arg)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	/* What a previous startd left running (taken once): settled once the pg is read. */
	_cleanup_(survivors_freep) survivors_t *sv = survivors_take(i->fmri);
	int r = -SCF_ERROR_NOT_FOUND;

	/* The graph saw no restarter pg, and nobody but this instance's INSERT writes one. */
	if (!(arg & RE_INSERT_FRESH))
		r = INSTANCE_RETRY(i, scf_pg_get(i->h, i->fmri, SCF_PG_RESTARTER, NULL, 0, &pg));
	if (r >= 0) {
		/*
		 * A pg startd did not write in this run: a predecessor's (recovered), or the
		 * uninitialized one of the graph's first sight or of configd-eager.  recover()
		 * takes "uninitialized" as a first sight: no contract to adopt or kill, the state
		 * stays uninitialized until the enable or disable that follows, and the next
		 * write is ours.
		 */
		recover(i, pg);
	} else {
		i->state = RESTARTER_STATE_UNINIT;
		/* In the bulk worker, passed once for the whole batch, before its commit. */
		if (!i->batch)
			smf_point(SMF_POINT_STARTD_RESTARTER_BEFORE_PG_WRITE);
		/* RACE WINDOW ENDS HERE (in the bulk worker: when its batch commits) */
		(void)write_state(i, RESTARTER_STATE_UNINIT, RESTARTER_STATE_NONE,
		        RESTARTER_AUX_INSERT_IN_GRAPH, false, true, true);
	}
	if (sv)
		settle_survivors(i, sv, r >= 0 && i->state != RESTARTER_STATE_UNINIT);
	if (i->state == RESTARTER_STATE_UNINIT)
		log_info("%s: inserted, uninitialized", i->fmri);
	if (!(arg & RE_INSERT_RUNNING))
		take_running_snapshot(i);
	i->inserted = true;
}

static void handle_enable(instance_t *i)
{
	if (i->state == RESTARTER_STATE_UNINIT || i->state == RESTARTER_STATE_DISABLED)
		(void)commit(i, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_NONE,
		        RESTARTER_AUX_ENABLE_REQUEST);
	else
		report(i);
}

/* Runs the stop method, kills the contract, settles in target. */
static void stop_instance(instance_t *i, restarter_instance_state_t target, const char *aux)
{
	method_result_t res = METHOD_OK;
	int code = 0, r;

	if (restarter_state_is_up(i->state)) {
		(void)commit(i, i->state, target, aux);
		r = method_run(i, "stop", false, &res, &code);
		if (r < 0 && r != -ENOENT)
			log_warning("%s: cannot read the stop method", i->fmri);
		else if (r >= 0 && res != METHOD_OK)
			log_warning("%s: stop method failed (%d)", i->fmri, code);
	}
	kill_contract(i, SIGTERM);
	(void)commit_full(i, target, RESTARTER_STATE_NONE, aux, true);
}

static void handle_disable(instance_t *i)
{
	if (i->state == RESTARTER_STATE_DISABLED) {
		report(i);
		return;
	}
	stop_instance(i, RESTARTER_STATE_DISABLED, RESTARTER_AUX_DISABLE_REQUEST);
}

static void to_maintenance(instance_t *i, const char *aux)
{
	kill_contract(i, SIGKILL);
	(void)commit_full(i, RESTARTER_STATE_MAINT, RESTARTER_STATE_NONE, aux, true);
}

static void handle_start(instance_t *i)
{
	smodel_t model;

	if (i->state != RESTARTER_STATE_OFFLINE) {
		report(i);
		return;
	}
	model = i->model = method_model(i);
	for (unsigned attempt = 1;; attempt++) {
		method_result_t res = METHOD_OK;
		int code = 0, r;

		(void)commit(i, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_ONLINE,
		        RESTARTER_AUX_DEPENDENCIES_SATISFIED);
		r = method_run(i, "start", model == SMODEL_WAIT, &res, &code);
		if (r < 0 && instance_connection_lost(r)) {
			/* configd did not come back: startd stops; the method is not at fault. */
			log_warning("%s: not started: the repository is unavailable", i->fmri);
			(void)commit(i, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_NONE);
			return;
		}
		if (r < 0) {
			log_error("%s: no usable start method", i->fmri);
			to_maintenance(i, RESTARTER_AUX_METHOD_FAILED);
			return;
		}
		if (res == METHOD_OK) {
			if (model == SMODEL_TRANSIENT)
				proc_contract_remove(i->pgid);
			(void)commit_full(i, RESTARTER_STATE_ONLINE, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_NONE, true);
			/* A contract that is already empty gets no event from the reaper. */
			if (model != SMODEL_TRANSIENT && i->pgid > 0 &&
			        !proc_group_alive(i->pgid)) {
				event_t e = {.type = RE_CONTRACT_EMPTY, .arg = i->pgid};
				instance_handle(i, &e);
			}
			return;
		}
		if (res == METHOD_CANCELED) {
			kill_contract(i, SIGKILL);
			(void)commit_full(i, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_NONE, true);
			return;
		}
		if (res != METHOD_CONFIG)
			log_warning("%s: start method %s (%d), attempt %u", i->fmri,
			        res == METHOD_TIMEOUT ? "timed out" : "failed", code, attempt);
		if (res == METHOD_FATAL || res == METHOD_CONFIG || res == METHOD_TIMEOUT) {
			to_maintenance(i, RESTARTER_AUX_METHOD_FAILED);
			return;
		}
		kill_contract(i, SIGKILL);
		if (attempt >= START_FAILURE_LIMIT) {
			to_maintenance(i, RESTARTER_AUX_FAULT_THRESHOLD);
			return;
		}
	}
}

/* Records a restart; true when it is the 5th within the period ("Restarting too quickly"). */
static bool restarting_too_quickly(instance_t *i)
{
	uint64_t now = now_monotonic_usec();
	unsigned k = i->n_restarts % INST_RESTART_HISTORY;
	bool too = i->n_restarts >= INST_RESTART_HISTORY - 1 &&
	        now - i->restarts[(k + 1) % INST_RESTART_HISTORY] < RESTART_PERIOD_USEC;

	i->restarts[k] = now;
	i->n_restarts++;
	return too;
}

static void handle_contract_empty(instance_t *i, pid_t pgid)
{
	/* A transient service's leftovers may come and go: nothing of it is watched. */
	if (pgid != i->pgid || !restarter_state_is_up(i->state) || i->model == SMODEL_TRANSIENT)
		return;
	proc_contract_remove(pgid);
	i->pgid = 0;
	if (restarting_too_quickly(i)) {
		log_error("%s: restarting too quickly, changing state to maintenance", i->fmri);
		to_maintenance(i, RESTARTER_AUX_RESTARTING_TOO_QUICKLY);
		return;
	}
	log_info("%s: all processes of the service exited; restarting", i->fmri);
	(void)commit_full(
	        i, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_NONE, RESTARTER_AUX_CT_EV_EXIT, true);
}

static void handle_maint_on(instance_t *i, bool immediate, const char *aux)
{
	if (i->state == RESTARTER_STATE_MAINT) {
		report(i);
		return;
	}
	if (immediate || !restarter_state_is_up(i->state))
		to_maintenance(i, aux);
	else
		stop_instance(i, RESTARTER_STATE_MAINT, aux);
}

static void handle_refresh(instance_t *i)
{
	method_result_t res = METHOD_OK;
	int code = 0, r;

	if (!restarter_state_is_up(i->state))
		return;
	r = method_run(i, "refresh", false, &res, &code);
	if (r >= 0 && res != METHOD_OK)
		log_warning("%s: refresh method failed (%d)", i->fmri, code);
}

/* The administrative actions of restarter_actions; false if e is not one. */
static bool handle_action(instance_t *i, const event_t *e)
{
	switch (e->type) {
	case RE_RESTART:
		if (restarter_state_is_up(i->state))
			stop_instance(i, RESTARTER_STATE_OFFLINE, RESTARTER_AUX_RESTART_REQUEST);
		else
			report(i);
		return true;
	case RE_REFRESH:
		handle_refresh(i);
		return true;
	case RE_MAINT_ON:
	case RE_MAINT_ON_IMMEDIATE:
		handle_maint_on(
		        i, e->type == RE_MAINT_ON_IMMEDIATE, RESTARTER_AUX_ADMINISTRATIVE_REQUEST);
		return true;
	case RE_DEPENDENCY_CYCLE: /* as illumos' maintain_instance(): stopped first if up */
		handle_maint_on(i, false, RESTARTER_AUX_DEPENDENCY_CYCLE);
		return true;
	case RE_MAINT_OFF:
		if (i->state == RESTARTER_STATE_MAINT)
			(void)commit(i, RESTARTER_STATE_UNINIT, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_CLEAR_REQUEST);
		return true;
	case RE_DEGRADED:
		if (i->state == RESTARTER_STATE_ONLINE)
			(void)commit(i, RESTARTER_STATE_DEGRADED, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_ADMINISTRATIVE_REQUEST);
		return true;
	case RE_RESTORE:
		if (i->state == RESTARTER_STATE_DEGRADED)
			(void)commit(i, RESTARTER_STATE_ONLINE, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_ADMINISTRATIVE_REQUEST);
		return true;
	default:
		return false;
	}
}

void instance_handle(instance_t *i, const event_t *e)
{
	instance_assert_worker(i);
	if (e->type != RE_INSERT && e->type != RE_SHUTDOWN && !i->inserted)
		return;
	if (handle_action(i, e))
		return;
	switch (e->type) {
	case RE_INSERT:
		handle_insert(i, e->arg);
		break;
	case RE_ENABLE:
		handle_enable(i);
		break;
	case RE_DISABLE:
		handle_disable(i);
		break;
	case RE_START:
		handle_start(i);
		break;
	case RE_STOP:
		if (restarter_state_is_up(i->state))
			stop_instance(
			        i, RESTARTER_STATE_OFFLINE, RESTARTER_AUX_DEPENDENCY_ACTIVITY);
		else
			report(i);
		break;
	case RE_CONTRACT_EMPTY:
		handle_contract_empty(i, (pid_t)e->arg);
		break;
	case RE_REMOVE:
		/* The entity and its restarter pg are gone: only the processes remain to stop. */
		kill_contract(i, SIGTERM);
		i->inserted = false;
		i->state = RESTARTER_STATE_UNINIT;
		update_active(i);
		break;
	case RE_RESYNC:
		/*
		 * configd restarted: the pg is kept within a boot, but a volatile database started
		 * afresh has lost it; written from our state either way.  Processes are untouched.
		 */
		(void)commit_full(i, i->state, i->next_state, i->aux, true);
		break;
	case RE_SHUTDOWN:
		if (i->h && i->inserted && restarter_state_is_up(i->state))
			stop_instance(i, RESTARTER_STATE_OFFLINE, RESTARTER_AUX_NONE);
		else
			kill_contract(i, SIGTERM);
		break;
	default:
		break;
	}
}

bool instance_bulk_accepts(instance_t *i, int type, int64_t arg)
{
	instance_assert_worker(i);
	switch (type) {
	case RE_INSERT:
		/* No read, no snapshot to take, no survivor to settle: one write. */
		return !i->inserted && (arg & RE_INSERT_FRESH) && (arg & RE_INSERT_RUNNING) &&
		        !survivors_pending(i->fmri);
	case RE_ENABLE:
		/* A commit of offline, or a report (or nothing, before the insert). */
		return true;
	case RE_DISABLE:
		/* No stop method, no contract: a report, or one commit. */
		return !i->inserted ||
		        ((i->state == RESTARTER_STATE_UNINIT ||
		                 i->state == RESTARTER_STATE_DISABLED) &&
		                i->pgid <= 0);
	default:
		return false;
	}
}

void instance_handle_bulk(instance_t *i, const event_t *e, rpg_batch_t *b)
{
	assert(instance_bulk_accepts(i, e->type, e->arg));
	i->batch = b;
	instance_handle(i, e);
	i->batch = NULL;
}

void instance_bulk_report(rpg_batch_t *b)
{
	for (size_t k = 0; k < b->n; k++) {
		if (!b->items[k].report)
			continue;
		event_cause_set(b->items[k].cause);
		report(b->items[k].i);
	}
}
