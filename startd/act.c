/*
 * act.c: an instance's events acted on.  The machine (fsm.h) decides; this file does.
 *
 * act_event() is an instance worker's whole handling of one event: it steps the instance's
 * machine, performs the actions in the order given (restarter pg commits through rpg.c,
 * methods through method.c, processes through proc.c, cgroup.c and survivors.c, states
 * reported to the graph), and when the last action answers a question (a method's end, the
 * pg a predecessor left, the service model), steps the machine again with the answer, until a
 * step asks nothing.  act_light() and act_batched() are the bulk worker's (bulk.c): a light
 * step's actions performed at once, its one commit added to the bulk worker's batch instead
 * of written; once the batch is committed, act_report() reports the states it settled.
 *
 * A commit announces a change of state (the log line, startd.state_change) before it is
 * written, and passes the delay point of its kind: startd.restarter.before_pg_write before the
 * pg's first write (the race window's end), startd.restarter.before_state_write before every
 * later one (the bulk worker passes each once per batch instead).
 */
#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "act.h"
#include "cgroup.h"
#include "delay.h"
#include "log.h"
#include "macro.h"
#include "method.h"
#include "probes.h"
#include "proc.h"
#include "retry.h"
#include "rpg.h"
#include "strv.h"
#include "survivors.h"
#include "timeutil.h"

/* What one event's steps share: what a previous startd left, and the method running. */
typedef struct run {
	instance_t *i;
	survivors_t *sv; /* RE_INSERT: taken from survivors.c */
	int ctx_r;       /* the start method's user, read once for sv (trusted()): 1 not yet */
	uid_t ctx_uid;
	method_call_t call;
} run_t;

static void run_done(run_t *run)
{
	survivors_free(run->sv);
	method_call_done(&run->call);
}

/* Whether startd must visit the instance at shutdown: it is up or owns processes. */
static void update_active(instance_t *i)
{
	__atomic_store_n(&i->active, restarter_state_is_up(i->fsm.state) || i->fsm.contract > 0,
	        __ATOMIC_RELEASE);
}

void act_report(instance_t *i, restarter_instance_state_t state, const char *aux)
{
	update_active(i);
	/* The auxiliary state rides along: restart_on needs to know why a dependency went down. */
	(void)event_queue_push(&i->m->graph_q, GE_STATE, i->fmri, aux, NULL, state, NULL);
}

/* A change of state, told before its commit. */
static void announce(const instance_t *i, const fsm_action_t *a)
{
	if (a->commit.state == a->commit.from)
		return;
	log_info("%s: %s -> %s (%s)", i->fmri, restarter_state_to_string(a->commit.from),
	        restarter_state_to_string(a->commit.state), strempty(a->commit.aux));
	probe_state_change(i->fmri, a->commit.from, a->commit.state);
}

static state_update_t update_of(const instance_t *i, const fsm_action_t *a)
{
	return (state_update_t){
	        .state = a->commit.state,
	        .next_state = a->commit.next_state,
	        .aux = a->commit.aux,
	        .start_pid = a->commit.start_pid,
	        .contract = a->commit.contract,
	        .logfile = i->logfile,
	};
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

static void commit(instance_t *i, const fsm_action_t *a)
{
	state_update_t u = update_of(i, a);

	announce(i, a);
	smf_point(a->commit.first ? SMF_POINT_STARTD_RESTARTER_BEFORE_PG_WRITE
	                          : SMF_POINT_STARTD_RESTARTER_BEFORE_STATE_WRITE);
	(void)write_retried(i, &u, a->commit.retry);
}

/*
 * Kills what is left of the contract pgid (and stops watching it); then whatever escaped the
 * group (setsid) but not the instance's cgroup leaf, if there is one.
 */
static void kill_contract(const instance_t *i, pid_t pgid, int sig)
{
	if (pgid > 0) {
		proc_contract_remove(pgid);
		if (proc_group_kill(pgid, sig, STOP_GRACE_USEC) < 0)
			log_warning(
			        "%s: processes of group %d survive SIGKILL", i->fmri, (int)pgid);
	}
	(void)cgroup_kill(i->fmri);
}

/* FSM_READ_RECORD: the restarter pg startd did not write in this run, if there is one. */
static void read_record(instance_t *i, const fsm_action_t *a, fsm_event_t *answer)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	const scf_property_t *p;
	const char *s = NULL;
	uint64_t v;

	*answer = (fsm_event_t){.type = FSM_RECORD};
	if (INSTANCE_RETRY(i, scf_pg_get(i->h, i->fmri, SCF_PG_RESTARTER, NULL, 0, &pg)) < 0)
		return;
	answer->record.found = true;
	answer->record.model = method_model(i);
	p = scf_pg_property(pg, SCF_PROPERTY_STATE);
	if (p)
		(void)scf_property_get_string(p, &s);
	answer->record.state = restarter_state_from_string(s);
	answer->record.contract = a->record.contract;
	if ((p = scf_pg_property(pg, SCF_PROPERTY_CONTRACT)) && scf_property_get_count(p, &v) >= 0)
		answer->record.contract = (pid_t)v;
	answer->record.start_pid = -1;
	if ((p = scf_pg_property(pg, SCF_PROPERTY_START_PID)) && scf_property_get_count(p, &v) >= 0)
		answer->record.start_pid = (pid_t)v;
	if ((p = scf_pg_property(pg, SCF_PROPERTY_LOGFILE)) &&
	        scf_property_get_string(p, &s) >= 0) {
		free(i->logfile);
		i->logfile = strdup(s);
	}
	answer->record.alive = proc_group_alive_live(answer->record.contract);
}

/*
 * Whether a group survivors.c found may be this instance's: one it cannot doubt (the cgroup
 * leaf, or a process with startd's own uid), or one running as the start method's user.  A
 * group found by a forged environment of another user is neither adopted nor stopped.
 */
static bool trusted(run_t *run, const survivor_t *g)
{
	if (g->in_cgroup || g->uid == geteuid())
		return true;
	if (run->ctx_r > 0)
		run->ctx_r = method_uid(run->i, "start", &run->ctx_uid);
	return run->ctx_r == 0 && g->uid == run->ctx_uid;
}

/* FSM_FIND_SURVIVOR: the groups a start method made that may be the contract. */
static void find_survivor(run_t *run, fsm_event_t *answer)
{
	const survivor_t *contract = NULL;

	*answer = (fsm_event_t){.type = FSM_SURVIVOR};
	answer->survivor.model = method_model(run->i);
	for (size_t k = 0; run->sv && k < run->sv->n; k++) {
		const survivor_t *g = &run->sv->groups[k];

		if (g->from_start && g->pgid != g->sid && trusted(run, g)) {
			contract = g;
			answer->survivor.candidates++;
		}
	}
	if (answer->survivor.candidates != 1)
		return;
	answer->survivor.pgid = contract->pgid;
	answer->survivor.leader = contract->leader;
	answer->survivor.alive = proc_group_alive_live(contract->pgid);
}

static void stop_survivors(run_t *run, const fsm_action_t *a)
{
	for (size_t k = 0; run->sv && k < run->sv->n; k++) {
		const survivor_t *g = &run->sv->groups[k];

		if (g->pgid == a->survivors.keep || (a->survivors.keep_start && g->from_start) ||
		        !trusted(run, g))
			continue;
		survivors_stop(run->i->fmri, g);
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

/* FSM_RUN_METHOD: the method spawned (FSM_SPAWNED), or its end when it ran no process. */
static void run_method(run_t *run, const fsm_action_t *a, fsm_event_t *answer)
{
	method_call_done(&run->call);
	run->call = (method_call_t){
	        .name = a->method.name,
	        .contract = a->method.contract,
	        .cgroup = a->method.cgroup,
	        .log_fd = -1,
	};
	*answer = (fsm_event_t){.type = FSM_METHOD_END};
	if (method_spawn(run->i, &run->call, &answer->end) > 0)
		*answer = (fsm_event_t){.type = FSM_SPAWNED, .spawned = run->call.pid};
}

static fsm_event_t event_of(const instance_t *i, int type, int64_t arg)
{
	return (fsm_event_t){
	        .type = type,
	        .arg = arg,
	        .now = now_monotonic_usec(),
	        .repository = i->h != NULL,
	};
}

/* Performs out's actions in order; true when the last answers, with *next its answer. */
static bool perform(run_t *run, const fsm_out_t *out, fsm_event_t *next)
{
	instance_t *i = run->i;

	for (size_t k = 0; k < out->n; k++) {
		const fsm_action_t *a = &out->a[k];
		bool answered = true;

		switch (a->type) {
		case FSM_COMMIT:
			commit(i, a);
			answered = false;
			break;
		case FSM_REPORT:
			act_report(i, a->report.state, a->report.aux);
			answered = false;
			break;
		case FSM_LOG:
			log_msg(a->log.level, "%s: %s", i->fmri, a->log.text);
			answered = false;
			break;
		case FSM_KILL:
			kill_contract(i, a->kill.pgid, a->kill.sig);
			answered = false;
			break;
		case FSM_WATCH:
			(void)proc_contract_add(a->watch.pgid, i->fmri, a->watch.adopted);
			answered = false;
			break;
		case FSM_UNWATCH:
			proc_contract_remove(a->pid);
			answered = false;
			break;
		case FSM_READ_RECORD:
			read_record(i, a, next);
			break;
		case FSM_FIND_SURVIVOR:
			find_survivor(run, next);
			break;
		case FSM_STOP_SURVIVORS:
			stop_survivors(run, a);
			answered = false;
			break;
		case FSM_READ_MODEL:
			*next = (fsm_event_t){.type = FSM_MODEL, .model = method_model(i)};
			break;
		case FSM_RUN_METHOD:
			run_method(run, a, next);
			break;
		case FSM_WAIT_METHOD:
			*next = (fsm_event_t){.type = FSM_METHOD_END};
			method_wait(i, &run->call, &next->end);
			break;
		case FSM_FORGET_METHOD:
			proc_forget(a->pid);
			method_call_done(&run->call);
			answered = false;
			break;
		case FSM_CHECK_CONTRACT:
			/* Emptied before it was watched: the event the reaper did not send. */
			answered = !proc_group_alive(a->pid);
			if (answered)
				*next = event_of(i, RE_CONTRACT_EMPTY, a->pid);
			break;
		case FSM_SNAPSHOT:
			take_running_snapshot(i);
			answered = false;
			break;
		}
		if (answered) {
			assert(k + 1 == out->n);
			return true;
		}
	}
	return false;
}

void act_event(instance_t *i, const event_t *e)
{
	_cleanup_(run_done) run_t run = {.i = i, .ctx_r = 1, .call = {.log_fd = -1}};
	fsm_event_t ev = event_of(i, e->type, e->arg);
	fsm_out_t out;

	instance_assert_worker(i);
	if (e->type == RE_INSERT) {
		/* What a previous startd left running (taken once): settled once the pg is read. */
		run.sv = survivors_take(i->fmri);
		ev.survivors = run.sv != NULL;
	}
	do
		(void)fsm_step(&i->fsm, &ev, &out);
	while (perform(&run, &out, &ev));
	update_active(i);
}

/* The bulk worker's events: survivors are left where they are, to the instance's worker. */
static fsm_event_t light_event(const instance_t *i, int type, int64_t arg)
{
	fsm_event_t ev = event_of(i, type, arg);

	if (type == RE_INSERT)
		ev.survivors = survivors_pending(i->fmri);
	return ev;
}

bool act_light(instance_t *i, int type, int64_t arg)
{
	fsm_t scratch = i->fsm;
	fsm_event_t ev = light_event(i, type, arg);
	fsm_out_t out;

	instance_assert_worker(i);
	(void)fsm_step(&scratch, &ev, &out);
	return out.light;
}

void act_batched(instance_t *i, const event_t *e, rpg_batch_t *b)
{
	fsm_event_t ev = light_event(i, e->type, e->arg);
	fsm_out_t out;

	instance_assert_worker(i);
	(void)fsm_step(&i->fsm, &ev, &out);
	assert(out.light && !out.asks);
	for (size_t k = 0; k < out.n; k++) {
		const fsm_action_t *a = &out.a[k];
		state_update_t u;
		bool reported;

		switch (a->type) {
		case FSM_COMMIT:
			/* The report that follows a commit is made once the batch is written. */
			u = update_of(i, a);
			reported = k + 1 < out.n && out.a[k + 1].type == FSM_REPORT;
			announce(i, a);
			if (rpg_batch_add(b, i, &u, a->commit.first, reported) < 0)
				log_warning("%s: out of memory; restarter pg not written", i->fmri);
			k += reported;
			break;
		case FSM_REPORT:
			act_report(i, a->report.state, a->report.aux);
			break;
		case FSM_LOG:
			log_msg(a->log.level, "%s: %s", i->fmri, a->log.text);
			break;
		case FSM_KILL:
			kill_contract(i, a->kill.pgid, a->kill.sig);
			break;
		default:
			assert(!"an action a light step does not have");
		}
	}
	update_active(i);
}
