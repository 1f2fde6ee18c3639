/*
 * Unit tests of one instance's state machine (startd/fsm.c), without a configd, a process or
 * a clock: events in, the actions the machine returns checked as written, one line per step.
 *
 * The table covers every state an inserted instance can be in against every event the
 * restarter takes (fsm.h's table; illumos' restarter_process_events() and the contract
 * events of startd/restarter.c handle the same events but restore, resync and shutdown), and
 * insert against every state a predecessor may have recorded.  The scenarios after it answer
 * the machine's questions: a start method's end by exit class, the fault threshold, the
 * restart-rate limit, stops, the recovery of a predecessor's record and of its survivors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "fsm.h"
#include "log.h"
#include "macro.h"

#define U RESTARTER_STATE_UNINIT
#define OFF RESTARTER_STATE_OFFLINE
#define ON RESTARTER_STATE_ONLINE
#define DEG RESTARTER_STATE_DEGRADED
#define MNT RESTARTER_STATE_MAINT
#define DIS RESTARTER_STATE_DISABLED

#define CONTRACT 100 /* the contract of an instance that is up in the table */
#define MIN_USEC (60 * USEC_PER_SEC)

/* The last step's actions, one line: what the tests compare. */
static char line[2048];

static const char *st(restarter_instance_state_t s)
{
	return restarter_state_to_string(s);
}

static void append(const char *fmt, ...) _printf_(1, 2);
static void append(const char *fmt, ...)
{
	size_t n = strlen(line);
	va_list ap;

	if (n > 0)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "; ");
	va_start(ap, fmt);
	vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
}

static const char *sig(int s)
{
	return s == 9 ? "KILL" : s == 15 ? "TERM" : "?";
}

/* out as a line: "commit offline/none/enable_request; report offline". */
static const char *render(const fsm_out_t *o)
{
	line[0] = '\0';
	for (size_t k = 0; k < o->n; k++) {
		const fsm_action_t *a = &o->a[k];

		switch (a->type) {
		case FSM_COMMIT:
			append("commit %s/%s/%s%s%s%s", st(a->commit.state),
			        st(a->commit.next_state), a->commit.aux ? a->commit.aux : "-",
			        a->commit.contract >= 0 ? " +pids" : "",
			        a->commit.first ? " first" : "", a->commit.retry ? "" : " noretry");
			break;
		case FSM_REPORT:
			append("report %s", st(a->report.state));
			break;
		case FSM_LOG:
			append("log");
			break;
		case FSM_KILL:
			append("kill %d %s", (int)a->kill.pgid, sig(a->kill.sig));
			break;
		case FSM_WATCH:
			append("%s %d", a->watch.adopted ? "adopt" : "watch", (int)a->watch.pgid);
			break;
		case FSM_UNWATCH:
			append("unwatch %d", (int)a->pid);
			break;
		case FSM_READ_RECORD:
			append("read-record?");
			break;
		case FSM_FIND_SURVIVOR:
			append("find-survivor?");
			break;
		case FSM_STOP_SURVIVORS:
			append("stop-survivors keep=%d%s", (int)a->survivors.keep,
			        a->survivors.keep_start ? " start" : "");
			break;
		case FSM_READ_MODEL:
			append("read-model?");
			break;
		case FSM_RUN_METHOD:
			append("run %s%s?", a->method.name, a->method.cgroup ? " cgroup" : "");
			break;
		case FSM_WAIT_METHOD:
			append("wait?");
			break;
		case FSM_FORGET_METHOD:
			append("forget %d", (int)a->pid);
			break;
		case FSM_CHECK_CONTRACT:
			append("check %d", (int)a->pid);
			break;
		case FSM_SNAPSHOT:
			append("snapshot");
			break;
		}
	}
	return line;
}

/* The log text of the step's first log action. */
static const char *logged(const fsm_out_t *o)
{
	for (size_t k = 0; k < o->n; k++)
		if (o->a[k].type == FSM_LOG)
			return o->a[k].log.text;
	return "";
}

static fsm_out_t out;

static const char *step(fsm_t *m, const fsm_event_t *e)
{
	int n = fsm_step(m, e, &out);

	assert_int_equal(n, (int)out.n);
	return render(&out);
}

static const char *event(fsm_t *m, int type, int64_t arg)
{
	return step(m, &(fsm_event_t){.type = type, .arg = arg, .repository = true});
}

static const char *model(fsm_t *m, smodel_t model)
{
	return step(m, &(fsm_event_t){.type = FSM_MODEL, .model = model});
}

static const char *spawned(fsm_t *m, pid_t pid)
{
	return step(m, &(fsm_event_t){.type = FSM_SPAWNED, .spawned = pid});
}

static const char *ended(fsm_t *m, method_outcome_t outcome, int code)
{
	return step(m,
	        &(fsm_event_t){
	                .type = FSM_METHOD_END,
	                .end = {.outcome = outcome, .code = code},
	        });
}

static const char *emptied(fsm_t *m, pid_t pgid, uint64_t now)
{
	return step(m, &(fsm_event_t){.type = RE_CONTRACT_EMPTY, .arg = pgid, .now = now});
}

/* An inserted instance in state s, as the table wants it: up ones have a contract. */
static fsm_t in_state(restarter_instance_state_t s)
{
	fsm_t m = {
	        .state = s,
	        .next_state = RESTARTER_STATE_NONE,
	        .aux = RESTARTER_AUX_NONE,
	        .inserted = true,
	};

	if (restarter_state_is_up(s))
		m.contract = m.start_pid = CONTRACT;
	return m;
}

/* ---- the table: every state against every event ---- */

typedef struct row {
	int event;
	restarter_instance_state_t state;
	const char *actions;
	restarter_instance_state_t after; /* the state once the step is done */
} row_t;

/* The stops and maintenance of an up instance run its stop method first. */
static const row_t table[] = {
        {RE_ENABLE, U, "commit offline/none/enable_request; report offline", OFF},
        {RE_ENABLE, OFF, "report offline", OFF},
        {RE_ENABLE, ON, "report online", ON},
        {RE_ENABLE, DEG, "report degraded", DEG},
        {RE_ENABLE, MNT, "report maintenance", MNT},
        {RE_ENABLE, DIS, "commit offline/none/enable_request; report offline", OFF},

        {RE_DISABLE, U, "kill 0 TERM; commit disabled/none/disable_request +pids; report disabled",
                DIS},
        {RE_DISABLE, OFF,
                "kill 0 TERM; commit disabled/none/disable_request +pids; report disabled", DIS},
        {RE_DISABLE, ON, "commit online/disabled/disable_request; run stop?", ON},
        {RE_DISABLE, DEG, "commit degraded/disabled/disable_request; run stop?", DEG},
        {RE_DISABLE, MNT,
                "kill 0 TERM; commit disabled/none/disable_request +pids; report disabled", DIS},
        {RE_DISABLE, DIS, "report disabled", DIS},

        {RE_START, U, "report uninitialized", U},
        {RE_START, OFF, "read-model?", OFF},
        {RE_START, ON, "report online", ON},
        {RE_START, DEG, "report degraded", DEG},
        {RE_START, MNT, "report maintenance", MNT},
        {RE_START, DIS, "report disabled", DIS},

        {RE_STOP, U, "report uninitialized", U},
        {RE_STOP, OFF, "report offline", OFF},
        {RE_STOP, ON, "commit online/offline/dependency_activity; run stop?", ON},
        {RE_STOP, DEG, "commit degraded/offline/dependency_activity; run stop?", DEG},
        {RE_STOP, MNT, "report maintenance", MNT},
        {RE_STOP, DIS, "report disabled", DIS},

        {RE_CONTRACT_EMPTY, U, "", U},
        {RE_CONTRACT_EMPTY, OFF, "", OFF},
        {RE_CONTRACT_EMPTY, ON,
                "unwatch 100; log; commit offline/none/ct_ev_exit +pids; report offline", OFF},
        {RE_CONTRACT_EMPTY, DEG,
                "unwatch 100; log; commit offline/none/ct_ev_exit +pids; report offline", OFF},
        {RE_CONTRACT_EMPTY, MNT, "", MNT},
        {RE_CONTRACT_EMPTY, DIS, "", DIS},

        {RE_REMOVE, U, "kill 0 TERM", U},
        {RE_REMOVE, OFF, "kill 0 TERM", U},
        {RE_REMOVE, ON, "kill 100 TERM", U},
        {RE_REMOVE, DEG, "kill 100 TERM", U},
        {RE_REMOVE, MNT, "kill 0 TERM", U},
        {RE_REMOVE, DIS, "kill 0 TERM", U},

        {RE_RESTART, U, "report uninitialized", U},
        {RE_RESTART, OFF, "report offline", OFF},
        {RE_RESTART, ON, "commit online/offline/restart_request; run stop?", ON},
        {RE_RESTART, DEG, "commit degraded/offline/restart_request; run stop?", DEG},
        {RE_RESTART, MNT, "report maintenance", MNT},
        {RE_RESTART, DIS, "report disabled", DIS},

        {RE_REFRESH, U, "", U},
        {RE_REFRESH, OFF, "", OFF},
        {RE_REFRESH, ON, "run refresh?", ON},
        {RE_REFRESH, DEG, "run refresh?", DEG},
        {RE_REFRESH, MNT, "", MNT},
        {RE_REFRESH, DIS, "", DIS},

        {RE_MAINT_ON, U,
                "kill 0 KILL; "
                "commit maintenance/none/administrative_request +pids; "
                "report maintenance",
                MNT},
        {RE_MAINT_ON, OFF,
                "kill 0 KILL; "
                "commit maintenance/none/administrative_request +pids; "
                "report maintenance",
                MNT},
        {RE_MAINT_ON, ON, "commit online/maintenance/administrative_request; run stop?", ON},
        {RE_MAINT_ON, DEG, "commit degraded/maintenance/administrative_request; run stop?", DEG},
        {RE_MAINT_ON, MNT, "report maintenance", MNT},
        {RE_MAINT_ON, DIS,
                "kill 0 KILL; "
                "commit maintenance/none/administrative_request +pids; "
                "report maintenance",
                MNT},

        {RE_MAINT_ON_IMMEDIATE, U,
                "kill 0 KILL; "
                "commit maintenance/none/administrative_request +pids; "
                "report maintenance",
                MNT},
        {RE_MAINT_ON_IMMEDIATE, OFF,
                "kill 0 KILL; "
                "commit maintenance/none/administrative_request +pids; "
                "report maintenance",
                MNT},
        {RE_MAINT_ON_IMMEDIATE, ON,
                "kill 100 KILL; "
                "commit maintenance/none/administrative_request +pids; "
                "report maintenance",
                MNT},
        {RE_MAINT_ON_IMMEDIATE, DEG,
                "kill 100 KILL; "
                "commit maintenance/none/administrative_request +pids; "
                "report maintenance",
                MNT},
        {RE_MAINT_ON_IMMEDIATE, MNT, "report maintenance", MNT},
        {RE_MAINT_ON_IMMEDIATE, DIS,
                "kill 0 KILL; "
                "commit maintenance/none/administrative_request +pids; "
                "report maintenance",
                MNT},

        {RE_DEPENDENCY_CYCLE, U,
                "kill 0 KILL; commit maintenance/none/dependency_cycle +pids; report maintenance",
                MNT},
        {RE_DEPENDENCY_CYCLE, OFF,
                "kill 0 KILL; commit maintenance/none/dependency_cycle +pids; report maintenance",
                MNT},
        {RE_DEPENDENCY_CYCLE, ON, "commit online/maintenance/dependency_cycle; run stop?", ON},
        {RE_DEPENDENCY_CYCLE, DEG, "commit degraded/maintenance/dependency_cycle; run stop?", DEG},
        {RE_DEPENDENCY_CYCLE, MNT, "report maintenance", MNT},
        {RE_DEPENDENCY_CYCLE, DIS,
                "kill 0 KILL; commit maintenance/none/dependency_cycle +pids; report maintenance",
                MNT},

        {RE_MAINT_OFF, U, "", U},
        {RE_MAINT_OFF, OFF, "", OFF},
        {RE_MAINT_OFF, ON, "", ON},
        {RE_MAINT_OFF, DEG, "", DEG},
        {RE_MAINT_OFF, MNT, "commit uninitialized/none/clear_request; report uninitialized", U},
        {RE_MAINT_OFF, DIS, "", DIS},

        {RE_DEGRADED, U, "", U},
        {RE_DEGRADED, OFF, "", OFF},
        {RE_DEGRADED, ON, "commit degraded/none/administrative_request; report degraded", DEG},
        {RE_DEGRADED, DEG, "", DEG},
        {RE_DEGRADED, MNT, "", MNT},
        {RE_DEGRADED, DIS, "", DIS},

        {RE_RESTORE, U, "", U},
        {RE_RESTORE, OFF, "", OFF},
        {RE_RESTORE, ON, "", ON},
        {RE_RESTORE, DEG, "commit online/none/administrative_request; report online", ON},
        {RE_RESTORE, MNT, "", MNT},
        {RE_RESTORE, DIS, "", DIS},

        {RE_RESYNC, U, "commit uninitialized/none/none +pids; report uninitialized", U},
        {RE_RESYNC, OFF, "commit offline/none/none +pids; report offline", OFF},
        {RE_RESYNC, ON, "commit online/none/none +pids; report online", ON},
        {RE_RESYNC, DEG, "commit degraded/none/none +pids; report degraded", DEG},
        {RE_RESYNC, MNT, "commit maintenance/none/none +pids; report maintenance", MNT},
        {RE_RESYNC, DIS, "commit disabled/none/none +pids; report disabled", DIS},

        {RE_SHUTDOWN, U, "kill 0 TERM", U},
        {RE_SHUTDOWN, OFF, "kill 0 TERM", OFF},
        {RE_SHUTDOWN, ON, "commit online/offline/none; run stop?", ON},
        {RE_SHUTDOWN, DEG, "commit degraded/offline/none; run stop?", DEG},
        {RE_SHUTDOWN, MNT, "kill 0 TERM", MNT},
        {RE_SHUTDOWN, DIS, "kill 0 TERM", DIS},
};

static void test_table(void **state)
{
	(void)state;
	/* Every state of an inserted instance, against every event but insert (below). */
	assert_int_equal(ELEMENTSOF(table), 16 * 6);
	for (size_t k = 0; k < ELEMENTSOF(table); k++) {
		const row_t *r = &table[k];
		fsm_t m = in_state(r->state);
		const char *got = event(&m, r->event, r->event == RE_CONTRACT_EMPTY ? CONTRACT : 0);

		if (strcmp(got, r->actions) != 0 || m.state != r->after)
			fail_msg("event %d in %s: \"%s\", then %s; expected \"%s\", then %s",
			        r->event, st(r->state), got, st(m.state), r->actions, st(r->after));
	}
}

/* Before its insert an instance takes no event but shutdown. */
static void test_not_inserted(void **state)
{
	(void)state;
	for (int e = RE_ENABLE; e <= RE_DEPENDENCY_CYCLE; e++) {
		fsm_t m = {.state = U};

		if (e == RE_QUIT)
			continue;
		if (e == RE_SHUTDOWN)
			assert_string_equal(event(&m, e, 0), "kill 0 TERM");
		else
			assert_string_equal(event(&m, e, 0), "");
		assert_false(m.inserted);
	}
}

/* A removed instance is not inserted any more: its next events are dropped. */
static void test_removed(void **state)
{
	fsm_t m = in_state(ON);

	(void)state;
	assert_string_equal(event(&m, RE_REMOVE, 0), "kill 100 TERM");
	assert_false(m.inserted);
	assert_int_equal(m.contract, 0);
	assert_string_equal(event(&m, RE_ENABLE, 0), "");
	assert_string_equal(event(&m, RE_START, 0), "");
}

/* ---- insert ---- */

static void test_insert_fresh(void **state)
{
	fsm_t m = {.state = U};

	(void)state;
	/* The race window ends with this commit: the pg's first write. */
	assert_string_equal(event(&m, RE_INSERT, RE_INSERT_FRESH | RE_INSERT_RUNNING),
	        "commit uninitialized/none/insert_in_graph first; report uninitialized; log");
	assert_string_equal(logged(&out), "inserted, uninitialized");
	assert_true(m.inserted);
	assert_true(out.light);
	/* Without a running snapshot, it is taken. */
	m = (fsm_t){.state = U};
	assert_string_equal(event(&m, RE_INSERT, RE_INSERT_FRESH),
	        "commit uninitialized/none/insert_in_graph first; "
	        "report uninitialized; log; snapshot");
	assert_false(out.light);
}

static const char *record(
        fsm_t *m, restarter_instance_state_t s, pid_t contract, bool alive, smodel_t model)
{
	return step(m,
	        &(fsm_event_t){
	                .type = FSM_RECORD,
	                .record = {.found = true,
	                        .state = s,
	                        .contract = contract,
	                        .start_pid = contract,
	                        .alive = alive,
	                        .model = model},
	        });
}

/* A restarter pg a predecessor left (the graph listed one): read, then every state it may hold. */
static void test_insert_recorded(void **state)
{
	static const struct {
		restarter_instance_state_t recorded;
		pid_t contract;
		bool alive;
		smodel_t model;
		const char *actions;
		restarter_instance_state_t after;
	} rows[] = {
	        /* Up with a live contract: adopted. */
	        {ON, 300, true, SMODEL_CONTRACT, "log; adopt 300; report online", ON},
	        {DEG, 300, true, SMODEL_WAIT, "log; adopt 300; report degraded", DEG},
	        /* Up, its contract gone: offline, to be started again. */
	        {ON, 300, false, SMODEL_CONTRACT, "commit offline/none/none +pids; report offline",
	                OFF},
	        /* Up without a contract (transient, EMI): stays up. */
	        {ON, 0, false, SMODEL_CONTRACT, "report online", ON},
	        {ON, 300, true, SMODEL_TRANSIENT, "log; kill 300 TERM; report online", ON},
	        /* Caught between states: its group killed, offline. */
	        {OFF, 300, true, SMODEL_CONTRACT,
	                "log; kill 300 TERM; commit offline/none/none +pids; report offline", OFF},
	        {OFF, 0, false, SMODEL_CONTRACT, "commit offline/none/none +pids; report offline",
	                OFF},
	        /* Kept as they are. */
	        {MNT, 0, false, SMODEL_CONTRACT, "report maintenance", MNT},
	        {DIS, 0, false, SMODEL_CONTRACT, "report disabled", DIS},
	        {U, 0, false, SMODEL_CONTRACT, "report uninitialized; log", U},
	        /* No state at all: offline. */
	        {RESTARTER_STATE_NONE, 0, false, SMODEL_CONTRACT,
	                "commit offline/none/none +pids; report offline", OFF},
	};

	(void)state;
	for (size_t k = 0; k < ELEMENTSOF(rows); k++) {
		fsm_t m = {.state = U};
		const char *got;

		assert_string_equal(event(&m, RE_INSERT, RE_INSERT_RUNNING), "read-record?");
		assert_false(out.light);
		got = record(&m, rows[k].recorded, rows[k].contract, rows[k].alive, rows[k].model);
		if (strcmp(got, rows[k].actions) != 0 || m.state != rows[k].after)
			fail_msg("recorded %s (contract %d%s): \"%s\", then %s",
			        st(rows[k].recorded), (int)rows[k].contract,
			        rows[k].alive ? ", alive" : "", got, st(m.state));
		assert_true(m.inserted);
		assert_int_equal(m.contract,
		        restarter_state_is_up(m.state) && rows[k].alive &&
		                        rows[k].model != SMODEL_TRANSIENT
		                ? rows[k].contract
		                : 0);
	}
}

/* The graph listed a pg that is gone by the time it is read: written afresh. */
static void test_insert_record_missing(void **state)
{
	fsm_t m = {.state = U};

	(void)state;
	assert_string_equal(event(&m, RE_INSERT, RE_INSERT_RUNNING), "read-record?");
	assert_string_equal(step(&m, &(fsm_event_t){.type = FSM_RECORD}),
	        "commit uninitialized/none/insert_in_graph first; report uninitialized; log");
}

static const char *survivor(fsm_t *m, size_t candidates, bool leader, bool alive, smodel_t md)
{
	return step(m,
	        &(fsm_event_t){
	                .type = FSM_SURVIVOR,
	                .survivor = {.model = md,
	                        .candidates = candidates,
	                        .pgid = candidates == 1 ? 400 : 0,
	                        .leader = leader,
	                        .alive = alive},
	        });
}

/* No record, and a previous startd left processes: adopted when one group can be the contract. */
static void test_insert_survivors(void **state)
{
	fsm_t m = {.state = U};
	fsm_event_t ins = {
	        .type = RE_INSERT, .arg = RE_INSERT_FRESH | RE_INSERT_RUNNING, .survivors = true};

	(void)state;
	assert_string_equal(step(&m, &ins),
	        "commit uninitialized/none/insert_in_graph first; "
	        "report uninitialized; find-survivor?");
	assert_false(out.light);
	assert_string_equal(survivor(&m, 1, false, true, SMODEL_CONTRACT),
	        "log; adopt 400; commit online/none/none +pids; report online; "
	        "stop-survivors keep=400 start");
	assert_int_equal(m.state, ON);
	assert_int_equal(m.contract, 400);
	assert_true(m.inserted);

	/* Two candidates: startd cannot tell the contract; all of them stop. */
	m = (fsm_t){.state = U};
	(void)step(&m, &ins);
	assert_string_equal(
	        survivor(&m, 2, false, true, SMODEL_CONTRACT), "stop-survivors keep=0; log");
	assert_int_equal(m.state, U);

	/* A contract service's start method still runs (caught mid-start), a transient one's
	 * leftovers, a group gone meanwhile: stopped. */
	m = (fsm_t){.state = U};
	(void)step(&m, &ins);
	assert_string_equal(
	        survivor(&m, 1, true, true, SMODEL_CONTRACT), "stop-survivors keep=0; log");
	m = (fsm_t){.state = U};
	(void)step(&m, &ins);
	assert_string_equal(
	        survivor(&m, 1, false, true, SMODEL_TRANSIENT), "stop-survivors keep=0; log");
	m = (fsm_t){.state = U};
	(void)step(&m, &ins);
	assert_string_equal(
	        survivor(&m, 1, false, false, SMODEL_CONTRACT), "stop-survivors keep=0; log");
	/* A wait service's start method is its service: adopted while its leader runs. */
	m = (fsm_t){.state = U};
	(void)step(&m, &ins);
	assert_string_equal(survivor(&m, 1, true, true, SMODEL_WAIT),
	        "log; adopt 400; commit online/none/none +pids; report online; "
	        "stop-survivors keep=400 start");

	/* With a record, the recovery decided: the others go, a start's kept when it stays up. */
	m = (fsm_t){.state = U};
	ins.arg = RE_INSERT_RUNNING;
	assert_string_equal(step(&m, &ins), "read-record?");
	assert_string_equal(record(&m, ON, 300, true, SMODEL_CONTRACT),
	        "log; adopt 300; report online; stop-survivors keep=300 start");
	m = (fsm_t){.state = U};
	(void)step(&m, &ins);
	assert_string_equal(record(&m, MNT, 0, false, SMODEL_CONTRACT),
	        "report maintenance; stop-survivors keep=0");
}

/* ---- start: a method's end by exit class ---- */

/* An offline instance asked to start, its start method running as pid 200. */
static fsm_t starting(smodel_t md)
{
	fsm_t m = in_state(OFF);

	assert_string_equal(event(&m, RE_START, 0), "read-model?");
	assert_string_equal(model(&m, md),
	        md == SMODEL_TRANSIENT
	                ? "commit offline/online/dependencies_satisfied; run start?"
	                : "commit offline/online/dependencies_satisfied; run start cgroup?");
	assert_string_equal(spawned(&m, 200),
	        md == SMODEL_WAIT ? "watch 200; "
	                            "commit offline/online/dependencies_satisfied +pids noretry; "
	                            "forget 200; commit online/none/none +pids; report online; "
	                            "check 200"
	                          : "watch 200; "
	                            "commit offline/online/dependencies_satisfied +pids noretry; "
	                            "wait?");
	assert_int_equal(m.contract, 200);
	return m;
}

static void test_start_ok(void **state)
{
	fsm_t m = starting(SMODEL_CONTRACT);

	(void)state;
	/* A contract already empty gets no event from the reaper: the executor looks. */
	assert_string_equal(ended(&m, METHOD_EXITED, 0),
	        "commit online/none/none +pids; report online; check 200");
	assert_int_equal(m.state, ON);
	assert_int_equal(m.contract, 200);
	/* ... and if it is, the event it would have sent restarts the service. */
	assert_string_equal(emptied(&m, 200, 0),
	        "unwatch 200; log; commit offline/none/ct_ev_exit +pids; report offline");
}

static void test_start_transient(void **state)
{
	fsm_t m = starting(SMODEL_TRANSIENT);

	(void)state;
	assert_string_equal(ended(&m, METHOD_EXITED, 0),
	        "unwatch 200; commit online/none/none +pids; report online");
	/* Nothing of it is watched: its leftovers may come and go. */
	assert_string_equal(emptied(&m, 200, 0), "");
	assert_int_equal(m.state, ON);
}

static void test_start_wait_model(void **state)
{
	fsm_t m = starting(SMODEL_WAIT);

	(void)state;
	/* Online at once, not waited for. */
	assert_int_equal(m.state, ON);
	assert_int_equal(m.await, 0);
}

/* The exit classes: 95 fatal, 96 config, 99 nosmf, 100 perm, to maintenance at once. */
static void test_exit_fatal(void **state)
{
	static const int fatal[] = {95, 96, 99, 100};

	(void)state;
	for (size_t k = 0; k < ELEMENTSOF(fatal); k++) {
		fsm_t m = starting(SMODEL_CONTRACT);

		assert_string_equal(ended(&m, METHOD_EXITED, fatal[k]),
		        "log; kill 200 KILL; "
		        "commit maintenance/none/method_failed +pids; report maintenance");
		assert_int_equal(m.state, MNT);
		assert_int_equal(m.contract, 0);
	}
}

/* Any other exit, and a signal, is retried: the start is made again. */
static void test_exit_retried(void **state)
{
	static const int codes[] = {1, 2, 94, 97, 98, 101, 126, 127, 255};

	(void)state;
	for (size_t k = 0; k < ELEMENTSOF(codes); k++) {
		fsm_t m = starting(SMODEL_CONTRACT);

		assert_string_equal(ended(&m, METHOD_EXITED, codes[k]),
		        "log; kill 200 KILL; "
		        "commit offline/online/dependencies_satisfied; run start cgroup?");
		assert_int_equal(m.attempt, 2);
	}
	fsm_t m = starting(SMODEL_CONTRACT);
	assert_string_equal(ended(&m, METHOD_SIGNALED, -11),
	        "log; kill 200 KILL; "
	        "commit offline/online/dependencies_satisfied; run start cgroup?");
	assert_string_equal(logged(&out), "start method failed (-11), attempt 1");
}

/* What is not an exit: a timeout and a context go to maintenance, shutdown and a lost
 * repository leave it offline without a fault. */
static void test_start_not_an_exit(void **state)
{
	fsm_t m = starting(SMODEL_CONTRACT);

	(void)state;
	assert_string_equal(ended(&m, METHOD_TIMEOUT, -9),
	        "log; kill 200 KILL; "
	        "commit maintenance/none/method_failed +pids; report maintenance");
	assert_string_equal(logged(&out), "start method timed out (-9), attempt 1");
	m = starting(SMODEL_CONTRACT);
	assert_string_equal(ended(&m, METHOD_CONFIG, 0),
	        "kill 200 KILL; commit maintenance/none/method_failed +pids; report maintenance");
	m = starting(SMODEL_CONTRACT);
	assert_string_equal(ended(&m, METHOD_NOT_RUN, 0),
	        "log; kill 200 KILL; "
	        "commit maintenance/none/method_failed +pids; report maintenance");
	m = starting(SMODEL_CONTRACT);
	assert_string_equal(ended(&m, METHOD_CANCELED, -9),
	        "kill 200 KILL; commit offline/none/none +pids; report offline");

	/* Methods that never ran (FSM_METHOD_END answers the run at once). */
	m = in_state(OFF);
	(void)event(&m, RE_START, 0);
	(void)model(&m, SMODEL_CONTRACT);
	assert_string_equal(ended(&m, METHOD_UNDEFINED, -2),
	        "log; kill 0 KILL; commit maintenance/none/method_failed +pids; "
	        "report maintenance");
	assert_string_equal(logged(&out), "no usable start method");
	m = in_state(OFF);
	(void)event(&m, RE_START, 0);
	(void)model(&m, SMODEL_CONTRACT);
	assert_string_equal(ended(&m, METHOD_UNREADABLE, -1001),
	        "log; kill 0 KILL; commit maintenance/none/method_failed +pids; "
	        "report maintenance");
	m = in_state(OFF);
	(void)event(&m, RE_START, 0);
	(void)model(&m, SMODEL_CONTRACT);
	assert_string_equal(ended(&m, METHOD_UNREACHABLE, -1004),
	        "log; commit offline/none/none; report offline");
	assert_string_equal(logged(&out), "not started: the repository is unavailable");
}

/* The fault threshold: a start that fails 3 times goes to maintenance. */
static void test_fault_threshold(void **state)
{
	fsm_t m = starting(SMODEL_CONTRACT);

	(void)state;
	assert_string_equal(ended(&m, METHOD_EXITED, 1),
	        "log; kill 200 KILL; "
	        "commit offline/online/dependencies_satisfied; run start cgroup?");
	(void)spawned(&m, 201);
	assert_string_equal(ended(&m, METHOD_EXITED, 1),
	        "log; kill 201 KILL; "
	        "commit offline/online/dependencies_satisfied; run start cgroup?");
	(void)spawned(&m, 202);
	assert_string_equal(ended(&m, METHOD_EXITED, 1),
	        "log; kill 202 KILL; kill 0 KILL; "
	        "commit maintenance/none/fault_threshold_reached +pids; "
	        "report maintenance");
	assert_string_equal(logged(&out), "start method failed (1), attempt 3");
	assert_int_equal(m.state, MNT);

	/* Two failures, then success: online; the next start counts from 1 again. */
	m = starting(SMODEL_CONTRACT);
	(void)ended(&m, METHOD_EXITED, 1);
	(void)spawned(&m, 201);
	(void)ended(&m, METHOD_EXITED, 1);
	(void)spawned(&m, 202);
	assert_string_equal(ended(&m, METHOD_EXITED, 0),
	        "commit online/none/none +pids; report online; check 202");
	m.state = OFF;
	m.contract = 0;
	(void)event(&m, RE_START, 0);
	(void)model(&m, SMODEL_CONTRACT);
	assert_int_equal(m.attempt, 1);
}

/* The restart-rate limit: the 5th restart within 600 s goes to maintenance. */
static void test_restart_rate(void **state)
{
	fsm_t m = in_state(ON);
	uint64_t t = 1000 * MIN_USEC;

	(void)state;
	for (int k = 0; k < 4; k++) {
		assert_string_equal(emptied(&m, m.contract, t + (uint64_t)k * MIN_USEC),
		        "unwatch 100; log; commit offline/none/ct_ev_exit +pids; report offline");
		assert_int_equal(m.state, OFF);
		m.state = ON; /* started again */
		m.contract = CONTRACT;
	}
	assert_string_equal(emptied(&m, m.contract, t + 4 * MIN_USEC),
	        "unwatch 100; log; kill 0 KILL; "
	        "commit maintenance/none/restarting_too_quickly +pids; "
	        "report maintenance");
	assert_string_equal(logged(&out), "restarting too quickly, changing state to maintenance");

	/* Five restarts, the first of them 600 s before the fifth: not too quickly. */
	m = in_state(ON);
	for (int k = 0; k < 5; k++) {
		assert_string_equal(emptied(&m, m.contract, t + (uint64_t)k * 150 * USEC_PER_SEC),
		        "unwatch 100; log; commit offline/none/ct_ev_exit +pids; report offline");
		m.state = ON;
		m.contract = CONTRACT;
	}
	/* ... but the sixth, within 600 s of the second: too quickly. */
	assert_string_equal(emptied(&m, m.contract, t + 5 * 150 * USEC_PER_SEC - 1),
	        "unwatch 100; log; kill 0 KILL; "
	        "commit maintenance/none/restarting_too_quickly +pids; "
	        "report maintenance");

	/* A contract event of another group is not this instance's. */
	m = in_state(ON);
	assert_string_equal(emptied(&m, 999, t), "");
}

/* ---- stops ---- */

static void test_stop_method_end(void **state)
{
	fsm_t m = in_state(ON);

	(void)state;
	assert_string_equal(
	        event(&m, RE_DISABLE, 0), "commit online/disabled/disable_request; run stop?");
	assert_string_equal(spawned(&m, 500), "wait?");
	assert_string_equal(ended(&m, METHOD_EXITED, 0),
	        "kill 100 TERM; commit disabled/none/disable_request +pids; report disabled");
	assert_int_equal(m.state, DIS);
	assert_int_equal(m.contract, 0);

	/* A stop method that fails: logged, and the instance stops all the same. */
	m = in_state(DEG);
	(void)event(&m, RE_RESTART, 0);
	(void)spawned(&m, 500);
	assert_string_equal(ended(&m, METHOD_EXITED, 3),
	        "log; kill 100 TERM; commit offline/none/restart_request +pids; report offline");
	assert_string_equal(logged(&out), "stop method failed (3)");
	/* None defined: no word of it. */
	m = in_state(ON);
	(void)event(&m, RE_MAINT_ON, 0);
	assert_string_equal(ended(&m, METHOD_UNDEFINED, -2),
	        "kill 100 TERM; "
	        "commit maintenance/none/administrative_request +pids; "
	        "report maintenance");
	m = in_state(ON);
	(void)event(&m, RE_STOP, 0);
	assert_string_equal(ended(&m, METHOD_UNREACHABLE, -1004),
	        "log; kill 100 TERM; "
	        "commit offline/none/dependency_activity +pids; report offline");
	assert_string_equal(logged(&out), "cannot read the stop method");
}

static void test_refresh_method_end(void **state)
{
	fsm_t m = in_state(ON);

	(void)state;
	assert_string_equal(event(&m, RE_REFRESH, 0), "run refresh?");
	assert_string_equal(ended(&m, METHOD_EXITED, 0), "");
	assert_int_equal(m.state, ON);
	(void)event(&m, RE_REFRESH, 0);
	assert_string_equal(ended(&m, METHOD_EXITED, 1), "log");
	assert_string_equal(logged(&out), "refresh method failed (1)");
	(void)event(&m, RE_REFRESH, 0);
	assert_string_equal(ended(&m, METHOD_UNDEFINED, -2), "");
}

/* A shutdown without a repository (configd gone) still stops the processes. */
static void test_shutdown_without_repository(void **state)
{
	fsm_t m = in_state(ON);

	(void)state;
	assert_string_equal(step(&m, &(fsm_event_t){.type = RE_SHUTDOWN}), "kill 100 TERM");
}

/* What the bulk worker may take: no method, no read, no wait for processes, one commit. */
static void test_light(void **state)
{
	static const struct {
		restarter_instance_state_t s;
		int event;
		bool light;
	} rows[] = {
	        {U, RE_ENABLE, true},
	        {DIS, RE_ENABLE, true},
	        {ON, RE_ENABLE, true},
	        {U, RE_DISABLE, true}, /* never ran: its leaf is empty */
	        {DIS, RE_DISABLE, true},
	        {OFF, RE_DISABLE, false}, /* it may have run: its leaf is killed and waited for */
	        {MNT, RE_DISABLE, false},
	        {ON, RE_DISABLE, false},
	        {OFF, RE_START, false},
	        {ON, RE_STOP, false},
	        {ON, RE_REFRESH, false},
	};

	(void)state;
	for (size_t k = 0; k < ELEMENTSOF(rows); k++) {
		fsm_t m = in_state(rows[k].s);

		(void)event(&m, rows[k].event, 0);
		if (out.light != rows[k].light)
			fail_msg("event %d in %s: light %d", rows[k].event, st(rows[k].s),
			        out.light);
	}
	/* An instance of the table with a contract is never light to disable. */
	fsm_t m = in_state(U);
	m.contract = 7;
	(void)event(&m, RE_DISABLE, 0);
	assert_false(out.light);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_table),
	        cmocka_unit_test(test_not_inserted),
	        cmocka_unit_test(test_removed),
	        cmocka_unit_test(test_insert_fresh),
	        cmocka_unit_test(test_insert_recorded),
	        cmocka_unit_test(test_insert_record_missing),
	        cmocka_unit_test(test_insert_survivors),
	        cmocka_unit_test(test_start_ok),
	        cmocka_unit_test(test_start_transient),
	        cmocka_unit_test(test_start_wait_model),
	        cmocka_unit_test(test_exit_fatal),
	        cmocka_unit_test(test_exit_retried),
	        cmocka_unit_test(test_start_not_an_exit),
	        cmocka_unit_test(test_fault_threshold),
	        cmocka_unit_test(test_restart_rate),
	        cmocka_unit_test(test_stop_method_end),
	        cmocka_unit_test(test_refresh_method_end),
	        cmocka_unit_test(test_shutdown_without_repository),
	        cmocka_unit_test(test_light),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
