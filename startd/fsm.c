/*
 * fsm.c: one instance's state machine (the model and the table are in fsm.h).
 *
 * Each handler below is the row of fsm.h's table for one event.  The helpers that append an
 * action also keep the machine's state as the action leaves it (a commit sets the state, a
 * kill forgets the contract), so a handler reads top to bottom as what happens, in order.
 */
#include <assert.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>

#include "fsm.h"
#include "log.h" /* LOG_LEVEL_* only: the machine's messages are actions */
#include "macro.h"

/* Actions that need the instance's own worker: a method, a read, a snapshot, processes. */
static bool heavy(fsm_action_type_t t)
{
	return t != FSM_COMMIT && t != FSM_REPORT && t != FSM_LOG && t != FSM_KILL;
}

static fsm_action_t *add(fsm_out_t *o, fsm_action_type_t type)
{
	fsm_action_t *a;

	/* Nothing follows a question: its answer is the next step. */
	assert(!o->asks);
	assert(o->n < FSM_ACTIONS_MAX);
	a = &o->a[o->n++];
	*a = (fsm_action_t){.type = type};
	if (heavy(type))
		o->light = false;
	return a;
}

/* The last action asks a question, whose answer (type) is the next event. */
static fsm_action_t *ask(fsm_t *m, fsm_out_t *o, fsm_action_type_t type, int answer)
{
	fsm_action_t *a = add(o, type);

	o->asks = true;
	m->await = answer;
	return a;
}

static void note(fsm_out_t *o, int level, const char *fmt, ...) _printf_(3, 4);
static void note(fsm_out_t *o, int level, const char *fmt, ...)
{
	fsm_action_t *a = add(o, FSM_LOG);
	va_list ap;

	a->log.level = level;
	va_start(ap, fmt);
	vsnprintf(a->log.text, sizeof(a->log.text), fmt, ap);
	va_end(ap);
}

static void report(const fsm_t *m, fsm_out_t *o)
{
	fsm_action_t *a = add(o, FSM_REPORT);

	a->report.state = m->state;
	a->report.aux = m->aux;
}

enum {
	PIDS = 0x1,     /* the commit writes start_pid and contract */
	FIRST = 0x2,    /* the pg's first write */
	NO_RETRY = 0x4, /* given up if the store refuses it */
};

/* A settled state (next_state none) is reported once it is written. */
static void commit(fsm_t *m, fsm_out_t *o, restarter_instance_state_t state,
        restarter_instance_state_t next, const char *aux, unsigned flags)
{
	fsm_action_t *a;
	size_t commits = 0;

	for (size_t k = 0; k < o->n; k++)
		commits += o->a[k].type == FSM_COMMIT;
	/* A batch writes an instance's pg once per round. */
	if (commits > 0)
		o->light = false;
	a = add(o, FSM_COMMIT);
	a->commit.from = m->state;
	a->commit.state = m->state = state;
	a->commit.next_state = m->next_state = next;
	a->commit.aux = m->aux = aux;
	a->commit.start_pid = flags & PIDS ? m->start_pid : -1;
	a->commit.contract = flags & PIDS ? m->contract : -1;
	a->commit.first = flags & FIRST;
	a->commit.retry = !(flags & NO_RETRY);
	if (next == RESTARTER_STATE_NONE)
		report(m, o);
}

/*
 * Kills the contract (and whatever its cgroup leaf holds) and forgets it.  Light only where
 * nothing can be left to wait for: no contract, and an instance that never ran or went down
 * through a kill already (uninitialized, disabled).
 */
static void kill_contract(fsm_t *m, fsm_out_t *o, int sig)
{
	fsm_action_t *a = add(o, FSM_KILL);

	a->kill.pgid = m->contract;
	a->kill.sig = sig;
	if (m->contract > 0 ||
	        (m->state != RESTARTER_STATE_UNINIT && m->state != RESTARTER_STATE_DISABLED))
		o->light = false;
	m->contract = 0;
}

static void watch(fsm_out_t *o, pid_t pgid, bool adopted)
{
	fsm_action_t *a = add(o, FSM_WATCH);

	a->watch.pgid = pgid;
	a->watch.adopted = adopted;
}

static void unwatch(fsm_out_t *o, pid_t pgid)
{
	add(o, FSM_UNWATCH)->pid = pgid;
}

static void run_method(fsm_t *m, fsm_out_t *o, fsm_method_t method)
{
	static const char *const names[] = {
	        [FSM_METHOD_START] = "start",
	        [FSM_METHOD_STOP] = "stop",
	        [FSM_METHOD_REFRESH] = "refresh",
	};
	fsm_action_t *a = ask(m, o, FSM_RUN_METHOD, FSM_METHOD_END);

	m->method = method;
	a->method.name = names[method];
	a->method.contract = m->contract;
	/* What a stop or refresh method, or a transient start, leaves is killed with its group. */
	a->method.cgroup = method == FSM_METHOD_START && m->model != SMODEL_TRANSIENT;
}

/* The end of a stop to target (aux): the contract goes, target is committed. */
static void settle(fsm_t *m, fsm_out_t *o, restarter_instance_state_t target, const char *aux)
{
	kill_contract(m, o, SIGTERM);
	commit(m, o, target, RESTARTER_STATE_NONE, aux, PIDS);
}

/* Stops to target (aux): an up instance runs its stop method first (stop_ended()). */
static void stop(fsm_t *m, fsm_out_t *o, restarter_instance_state_t target, const char *aux)
{
	if (!restarter_state_is_up(m->state)) {
		settle(m, o, target, aux);
		return;
	}
	commit(m, o, m->state, target, aux, 0);
	run_method(m, o, FSM_METHOD_STOP);
}

static void to_maintenance(fsm_t *m, fsm_out_t *o, const char *aux)
{
	kill_contract(m, o, SIGKILL);
	commit(m, o, RESTARTER_STATE_MAINT, RESTARTER_STATE_NONE, aux, PIDS);
}

static void maint_on(fsm_t *m, fsm_out_t *o, bool immediate, const char *aux)
{
	if (m->state == RESTARTER_STATE_MAINT)
		report(m, o);
	else if (immediate || !restarter_state_is_up(m->state))
		to_maintenance(m, o, aux);
	else
		stop(m, o, RESTARTER_STATE_MAINT, aux);
}

/* ---- insert ---- */

/* The rest of an insert, once the state is known (recorded: a state was recovered). */
static void insert_end(fsm_t *m, fsm_out_t *o)
{
	m->insert_survivors = false;
	if (m->state == RESTARTER_STATE_UNINIT)
		note(o, LOG_LEVEL_INFO, "inserted, uninitialized");
	if (!m->insert_running)
		add(o, FSM_SNAPSHOT);
	m->inserted = true;
}

static void stop_survivors(fsm_t *m, fsm_out_t *o, bool keep_start)
{
	fsm_action_t *a = add(o, FSM_STOP_SURVIVORS);

	a->survivors.keep = m->contract;
	a->survivors.keep_start = keep_start;
}

static void insert_settled(fsm_t *m, fsm_out_t *o, bool recorded)
{
	/*
	 * What a previous startd left: with a recorded state the recovery has decided the
	 * contract, and the other groups go unless the instance stays up and a start method made
	 * them (a daemon's setsid() child); without one, they say what ran (FSM_SURVIVOR).
	 */
	if (m->insert_survivors && !recorded) {
		ask(m, o, FSM_FIND_SURVIVOR, FSM_SURVIVOR);
		return;
	}
	if (m->insert_survivors)
		stop_survivors(m, o, restarter_state_is_up(m->state));
	insert_end(m, o);
}

/* No restarter pg (or none to trust): the uninitialized one, the pg's first write. */
static void first_write(fsm_t *m, fsm_out_t *o)
{
	m->state = RESTARTER_STATE_UNINIT;
	/* RACE WINDOW ENDS HERE (in the bulk worker: when its batch commits) */
	commit(m, o, RESTARTER_STATE_UNINIT, RESTARTER_STATE_NONE, RESTARTER_AUX_INSERT_IN_GRAPH,
	        FIRST);
	insert_settled(m, o, false);
}

static void on_insert(fsm_t *m, const fsm_event_t *e, fsm_out_t *o)
{
	m->insert_running = e->arg & RE_INSERT_RUNNING;
	m->insert_survivors = e->survivors;
	/* The graph saw no restarter pg, and nobody but this instance's insert writes one. */
	if (e->arg & RE_INSERT_FRESH)
		first_write(m, o);
	else
		ask(m, o, FSM_READ_RECORD, FSM_RECORD)->record.contract = m->contract;
}

/*
 * A restarter pg startd did not write in this run: a predecessor's, or the uninitialized one
 * of the graph's first sight or of configd-eager (no contract, the state stays uninitialized
 * until the enable or disable that follows).  Policy, as illumos adopts contracts: an up
 * instance whose contract still has a live process is adopted and stays up; a contract of any
 * other (caught mid-start or mid-stop) is killed and the instance goes back to offline, unless
 * it is maintenance, disabled, uninitialized, or up without a contract (transient, or a start
 * that left nothing, as EMI).  Either way no service runs twice.
 */
static void on_record(fsm_t *m, const fsm_event_t *e, fsm_out_t *o)
{
	restarter_instance_state_t st = e->record.state;
	bool had;

	if (!e->record.found) {
		first_write(m, o);
		return;
	}
	m->model = e->record.model;
	m->contract = e->record.contract;
	if (e->record.start_pid >= 0)
		m->start_pid = e->record.start_pid;
	if (restarter_state_is_up(st) && m->model != SMODEL_TRANSIENT && e->record.alive) {
		note(o, LOG_LEVEL_INFO, "adopting running process group %d", (int)m->contract);
		watch(o, m->contract, true);
		m->state = st;
		report(m, o);
		insert_settled(m, o, true);
		return;
	}
	had = m->contract > 0;
	if (e->record.alive) {
		note(o, LOG_LEVEL_INFO, "stopping leftover process group %d (state was %s)",
		        (int)m->contract, restarter_state_to_string(st));
		kill_contract(m, o, SIGTERM);
	}
	m->contract = 0;
	m->state = st;
	if (st == RESTARTER_STATE_MAINT || st == RESTARTER_STATE_DISABLED ||
	        st == RESTARTER_STATE_UNINIT ||
	        (restarter_state_is_up(st) && (m->model == SMODEL_TRANSIENT || !had)))
		report(m, o);
	else
		commit(m, o, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_NONE, RESTARTER_AUX_NONE,
		        PIDS);
	insert_settled(m, o, m->state != RESTARTER_STATE_UNINIT);
}

/*
 * No record, and a previous startd left processes (survivors.c).  Policy: a contract or wait
 * service whose start method made exactly one group that is not a session of its own (and,
 * for a contract service, whose start method has finished) is adopted as online with that
 * group; everything else is stopped before the instance can start again.  Exactly one copy
 * runs either way.
 */
static void on_survivor(fsm_t *m, const fsm_event_t *e, fsm_out_t *o)
{
	bool keep_start = false;

	m->model = e->survivor.model;
	if (m->model != SMODEL_TRANSIENT && e->survivor.candidates == 1 &&
	        !(m->model == SMODEL_CONTRACT && e->survivor.leader) && e->survivor.alive) {
		note(o, LOG_LEVEL_INFO, "adopting process group %d found without a restarter pg",
		        (int)e->survivor.pgid);
		m->contract = m->start_pid = e->survivor.pgid;
		watch(o, m->contract, true);
		commit(m, o, RESTARTER_STATE_ONLINE, RESTARTER_STATE_NONE, RESTARTER_AUX_NONE,
		        PIDS);
		keep_start = true;
	}
	stop_survivors(m, o, keep_start);
	insert_end(m, o);
}

/* ---- start ---- */

typedef enum exit_class {
	EXIT_OK,    /* online */
	EXIT_RETRY, /* started again, up to FSM_START_ATTEMPTS */
	EXIT_FATAL, /* maintenance at once */
} exit_class_t;

static exit_class_t exit_class(const method_end_t *end)
{
	switch (end->outcome) {
	case METHOD_EXITED:
		switch (end->code) {
		case 0:
			return EXIT_OK;
		case 95:  /* SMF_EXIT_ERR_FATAL */
		case 96:  /* SMF_EXIT_ERR_CONFIG */
		case 99:  /* SMF_EXIT_ERR_NOSMF */
		case 100: /* SMF_EXIT_ERR_PERM */
			return EXIT_FATAL;
		default:
			return EXIT_RETRY;
		}
	case METHOD_SIGNALED:
		return EXIT_RETRY;
	default: /* a timeout, a context that cannot be set up, a spawn that failed */
		return EXIT_FATAL;
	}
}

static void start_attempt(fsm_t *m, fsm_out_t *o)
{
	commit(m, o, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_ONLINE,
	        RESTARTER_AUX_DEPENDENCIES_SATISFIED, 0);
	run_method(m, o, FSM_METHOD_START);
}

static void start_ended(fsm_t *m, const method_end_t *end, fsm_out_t *o)
{
	exit_class_t cls;

	if (end->outcome == METHOD_UNREACHABLE) {
		/* configd did not come back: startd stops; the method is not at fault. */
		note(o, LOG_LEVEL_WARNING, "not started: the repository is unavailable");
		commit(m, o, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_NONE, RESTARTER_AUX_NONE, 0);
		return;
	}
	if (end->outcome == METHOD_UNDEFINED || end->outcome == METHOD_UNREADABLE) {
		note(o, LOG_LEVEL_ERROR, "no usable start method");
		to_maintenance(m, o, RESTARTER_AUX_METHOD_FAILED);
		return;
	}
	if (end->outcome == METHOD_CANCELED) {
		kill_contract(m, o, SIGKILL);
		commit(m, o, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_NONE, RESTARTER_AUX_NONE,
		        PIDS);
		return;
	}
	cls = exit_class(end);
	if (cls == EXIT_OK) {
		if (m->model == SMODEL_TRANSIENT)
			unwatch(o, m->contract);
		commit(m, o, RESTARTER_STATE_ONLINE, RESTARTER_STATE_NONE, RESTARTER_AUX_NONE,
		        PIDS);
		/* A contract that is already empty gets no event from the reaper. */
		if (m->model != SMODEL_TRANSIENT && m->contract > 0)
			add(o, FSM_CHECK_CONTRACT)->pid = m->contract;
		return;
	}
	if (end->outcome != METHOD_CONFIG)
		note(o, LOG_LEVEL_WARNING, "start method %s (%d), attempt %u",
		        end->outcome == METHOD_TIMEOUT ? "timed out" : "failed", end->code,
		        m->attempt);
	if (cls == EXIT_FATAL) {
		to_maintenance(m, o, RESTARTER_AUX_METHOD_FAILED);
		return;
	}
	kill_contract(m, o, SIGKILL);
	if (m->attempt >= FSM_START_ATTEMPTS) {
		to_maintenance(m, o, RESTARTER_AUX_FAULT_THRESHOLD);
		return;
	}
	m->attempt++;
	start_attempt(m, o);
}

/* The start method runs as pid: that is the contract, recorded at once (a startd killed
 * during the method leaves the group for its successor to find). */
static void start_spawned(fsm_t *m, pid_t pid, fsm_out_t *o)
{
	m->contract = m->start_pid = pid;
	watch(o, pid, false);
	/* Not retried: the method it records is running, and waits for no write. */
	commit(m, o, m->state, m->next_state, m->aux, PIDS | NO_RETRY);
	if (m->model != SMODEL_WAIT) {
		ask(m, o, FSM_WAIT_METHOD, FSM_METHOD_END);
		return;
	}
	/* The start method's child is the service: nothing to wait for. */
	add(o, FSM_FORGET_METHOD)->pid = pid;
	m->method = FSM_NO_METHOD;
	start_ended(m, &(method_end_t){.outcome = METHOD_EXITED}, o);
}

/* ---- the other events ---- */

/* Records a restart at now; true when it is the 5th within the period ("too quickly"). */
static bool restarting_too_quickly(fsm_t *m, uint64_t now)
{
	unsigned k = m->n_restarts % FSM_RESTART_HISTORY;
	bool too = m->n_restarts >= FSM_RESTART_HISTORY - 1 &&
	        now - m->restarts[(k + 1) % FSM_RESTART_HISTORY] < FSM_RESTART_PERIOD_USEC;

	m->restarts[k] = now;
	m->n_restarts++;
	return too;
}

static void on_contract_empty(fsm_t *m, const fsm_event_t *e, fsm_out_t *o)
{
	/* A transient service's leftovers may come and go: nothing of it is watched. */
	if ((pid_t)e->arg != m->contract || !restarter_state_is_up(m->state) ||
	        m->model == SMODEL_TRANSIENT)
		return;
	unwatch(o, m->contract);
	m->contract = 0;
	if (restarting_too_quickly(m, e->now)) {
		note(o, LOG_LEVEL_ERROR, "restarting too quickly, changing state to maintenance");
		to_maintenance(m, o, RESTARTER_AUX_RESTARTING_TOO_QUICKLY);
		return;
	}
	note(o, LOG_LEVEL_INFO, "all processes of the service exited; restarting");
	commit(m, o, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_NONE, RESTARTER_AUX_CT_EV_EXIT, PIDS);
}

static void method_ended(fsm_t *m, const method_end_t *end, fsm_out_t *o)
{
	fsm_method_t method = m->method;
	bool read = end->outcome != METHOD_UNDEFINED && end->outcome != METHOD_UNREADABLE &&
	        end->outcome != METHOD_UNREACHABLE;
	bool ok = end->outcome == METHOD_EXITED && end->code == 0;

	m->method = FSM_NO_METHOD;
	if (method == FSM_METHOD_START) {
		start_ended(m, end, o);
		return;
	}
	if (method == FSM_METHOD_STOP) {
		if (!read && end->outcome != METHOD_UNDEFINED)
			note(o, LOG_LEVEL_WARNING, "cannot read the stop method");
		else if (read && !ok)
			note(o, LOG_LEVEL_WARNING, "stop method failed (%d)", end->code);
		settle(m, o, m->next_state, m->aux);
		return;
	}
	if (read && !ok)
		note(o, LOG_LEVEL_WARNING, "refresh method failed (%d)", end->code);
}

/* An answer to the step before. */
static void on_answer(fsm_t *m, const fsm_event_t *e, fsm_out_t *o)
{
	/* FSM_SPAWNED answers the question a method's end answers. */
	assert(m->await == (e->type == FSM_SPAWNED ? FSM_METHOD_END : e->type));
	m->await = 0;
	switch (e->type) {
	case FSM_RECORD:
		on_record(m, e, o);
		break;
	case FSM_SURVIVOR:
		on_survivor(m, e, o);
		break;
	case FSM_MODEL:
		m->model = e->model;
		m->attempt = 1;
		start_attempt(m, o);
		break;
	case FSM_SPAWNED:
		if (m->method == FSM_METHOD_START)
			start_spawned(m, e->spawned, o);
		else
			ask(m, o, FSM_WAIT_METHOD, FSM_METHOD_END);
		break;
	case FSM_METHOD_END:
		method_ended(m, &e->end, o);
		break;
	default:
		assert(!"an answer nobody asked for");
	}
}

int fsm_step(fsm_t *m, const fsm_event_t *e, fsm_out_t *o)
{
	*o = (fsm_out_t){.light = true};
	if (e->type >= FSM_RECORD) {
		on_answer(m, e, o);
		return (int)o->n;
	}
	/* A restarter event comes only once every question of the one before is answered. */
	assert(m->await == 0 && !m->method);
	if (e->type != RE_INSERT && e->type != RE_SHUTDOWN && !m->inserted)
		return 0;
	switch (e->type) {
	case RE_INSERT:
		on_insert(m, e, o);
		break;
	case RE_ENABLE:
		if (m->state == RESTARTER_STATE_UNINIT || m->state == RESTARTER_STATE_DISABLED)
			commit(m, o, RESTARTER_STATE_OFFLINE, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_ENABLE_REQUEST, 0);
		else
			report(m, o);
		break;
	case RE_DISABLE:
		if (m->state == RESTARTER_STATE_DISABLED)
			report(m, o);
		else
			stop(m, o, RESTARTER_STATE_DISABLED, RESTARTER_AUX_DISABLE_REQUEST);
		break;
	case RE_START:
		if (m->state == RESTARTER_STATE_OFFLINE)
			ask(m, o, FSM_READ_MODEL, FSM_MODEL);
		else
			report(m, o);
		break;
	case RE_STOP:
		if (restarter_state_is_up(m->state))
			stop(m, o, RESTARTER_STATE_OFFLINE, RESTARTER_AUX_DEPENDENCY_ACTIVITY);
		else
			report(m, o);
		break;
	case RE_CONTRACT_EMPTY:
		on_contract_empty(m, e, o);
		break;
	case RE_REMOVE:
		/* The entity and its restarter pg are gone: only the processes remain to stop. */
		kill_contract(m, o, SIGTERM);
		m->inserted = false;
		m->state = RESTARTER_STATE_UNINIT;
		break;
	case RE_RESYNC:
		/*
		 * configd restarted: the pg is kept within a boot, but a volatile database started
		 * afresh has lost it; written from our state either way.  Processes are untouched.
		 */
		commit(m, o, m->state, m->next_state, m->aux, PIDS);
		break;
	case RE_SHUTDOWN:
		if (e->repository && m->inserted && restarter_state_is_up(m->state))
			stop(m, o, RESTARTER_STATE_OFFLINE, RESTARTER_AUX_NONE);
		else
			kill_contract(m, o, SIGTERM);
		break;
	case RE_RESTART:
		if (restarter_state_is_up(m->state))
			stop(m, o, RESTARTER_STATE_OFFLINE, RESTARTER_AUX_RESTART_REQUEST);
		else
			report(m, o);
		break;
	case RE_REFRESH:
		if (restarter_state_is_up(m->state))
			run_method(m, o, FSM_METHOD_REFRESH);
		break;
	case RE_MAINT_ON:
	case RE_MAINT_ON_IMMEDIATE:
		maint_on(m, o, e->type == RE_MAINT_ON_IMMEDIATE,
		        RESTARTER_AUX_ADMINISTRATIVE_REQUEST);
		break;
	case RE_DEPENDENCY_CYCLE: /* as illumos' maintain_instance(): stopped first if up */
		maint_on(m, o, false, RESTARTER_AUX_DEPENDENCY_CYCLE);
		break;
	case RE_MAINT_OFF:
		if (m->state == RESTARTER_STATE_MAINT)
			commit(m, o, RESTARTER_STATE_UNINIT, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_CLEAR_REQUEST, 0);
		break;
	case RE_DEGRADED:
		if (m->state == RESTARTER_STATE_ONLINE)
			commit(m, o, RESTARTER_STATE_DEGRADED, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_ADMINISTRATIVE_REQUEST, 0);
		break;
	case RE_RESTORE:
		if (m->state == RESTARTER_STATE_DEGRADED)
			commit(m, o, RESTARTER_STATE_ONLINE, RESTARTER_STATE_NONE,
			        RESTARTER_AUX_ADMINISTRATIVE_REQUEST, 0);
		break;
	default:
		break;
	}
	return (int)o->n;
}
