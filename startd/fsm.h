/*
 * fsm.h: one instance's state machine, as the restarter runs it.  Pure.
 *
 * THEORY.  fsm_step() is a function: the instance's state (fsm_t) and one event (fsm_event_t)
 * in; the new state and the actions to perform (fsm_out_t) out.  It does no I/O: no
 * repository, no process, no clock, no log.  What happens outside comes in as an event: a
 * restarter event (RE_* of startd.h: the graph's, the reaper's, svcadm's through the graph),
 * or the answer to the one action of a step that asks a question (a method's end and exit
 * code, the restarter pg a predecessor left, the service model).  act.c performs the actions
 * in order and, when the last one answers, steps the machine again with the answer, until a
 * step asks nothing; the bulk worker performs the light steps (fsm_out_t.light) of many
 * instances, their commits in one batch.  So what each event does in each state, the fault
 * threshold, the restart-rate limit and the exit classes are here alone, and unit tested
 * without a configd (tests/unit/startd/test-fsm.c).
 *
 * What each event does, by state (illumos: restarter_process_events() and the functions it
 * calls in startd/restarter.c, method_thread() in startd/method.c; "up" is online or degraded):
 *
 *   insert            no restarter pg (RE_INSERT_FRESH): commit uninitialized/none/
 *                     insert_in_graph, the pg's first write (where the race window ends);
 *                     else the pg a predecessor left is read: an up instance whose contract
 *                     lives on is adopted, a leftover contract is killed, and an instance
 *                     caught between states goes back to offline.  Then what a previous
 *                     startd left running (survivors.c) is adopted or stopped, and "running"
 *                     is taken if missing.
 *   enable            uninitialized, disabled: commit offline (enable_request); else report
 *   disable           disabled: report; else stop to disabled (disable_request)
 *   start             offline: read the service model, commit next_state online
 *                     (dependencies_satisfied) and run "start"; else report
 *   stop              up: stop to offline (dependency_activity); else report
 *   contract_empty    up, the contract it names, not transient: offline (ct_ev_exit), or
 *                     maintenance (restarting_too_quickly) for the 5th restart within 600 s;
 *                     else nothing
 *   restart           up: stop to offline (restart_request); else report
 *   refresh           up: run "refresh" (the state stays); else nothing
 *   maint_on          maintenance: report; up: stop to maintenance (administrative_request);
 *                     else kill the contract, commit maintenance
 *   maint_on_immediate  as maint_on, without the stop method
 *   dependency_cycle  as maint_on, auxiliary state dependency_cycle
 *   maint_off         maintenance: commit uninitialized (clear_request); else nothing
 *   degraded          online: commit degraded (administrative_request); else nothing
 *   restore           degraded: commit online (administrative_request); else nothing
 *   remove            kill the contract; uninitialized and not inserted (the pg is gone)
 *   resync            commit the state as it is, with the pids (configd restarted)
 *   shutdown          up, with a repository: stop to offline; else kill the contract
 *
 * Every event but insert and shutdown is dropped before the instance is inserted.  "Stop to
 * T (aux)": an up instance commits next_state T and runs "stop"; then (or at once, when it is
 * not up) its contract is killed (SIGTERM, then SIGKILL after a grace period) and T is
 * committed.  "Maintenance (aux)": the contract is killed at once (SIGKILL) and maintenance
 * committed.
 *
 * A start method's end, by class: exit 0 (or a wait-model start, which is not waited for)
 * commits online; exit 95, 96, 99, 100 (SMF_EXIT_ERR_FATAL, _CONFIG, _NOSMF, _PERM), a
 * timeout, a method_context that cannot be set up, or a method that cannot be spawned or read
 * go to maintenance (method_failed) at once; any other exit or a signal is retried, up to
 * FSM_START_ATTEMPTS starts, then maintenance (fault_threshold_reached).  A start cancelled by
 * shutdown leaves offline; one whose repository connection is gone leaves offline without a
 * fault.  A contract already empty when the start commits online gets its contract_empty at
 * once (the reaper sends none for it).
 *
 * Every commit writes state, next_state, auxiliary_state and state_timestamp together, and
 * every commit that settles a state (next_state none) is reported to the graph after it.
 *
 * INVARIANTS.  A step that asks (fsm_out_t.asks) ends with its question, and the next event is
 * its answer (fsm_t.await says which); a restarter event comes only when nothing is asked
 * (asserted).  The machine's state is the instance worker's (instance.h): only the thread
 * holding the worker bit steps it.
 */
#ifndef STARTD_FSM_H
#define STARTD_FSM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "restarter.h"
#include "startd.h"
#include "timeutil.h"

/* Service models (startd/duration). */
typedef enum smodel {
	SMODEL_CONTRACT = 0, /* the default: runs while its contract has processes */
	SMODEL_TRANSIENT,    /* online once start exits 0; nothing is watched */
	SMODEL_WAIT,         /* the start method's child is the service */
} smodel_t;

/* illumos: a start method that fails this many times -> maintenance (fault_threshold). */
#define FSM_START_ATTEMPTS 3
/* illumos' critical_failure_count and critical_failure_period defaults. */
#define FSM_RESTART_HISTORY 5
#define FSM_RESTART_PERIOD_USEC (600 * USEC_PER_SEC)

/* How a method ended, as method.c saw it; the machine decides what that means. */
typedef enum method_outcome {
	METHOD_EXITED = 0,  /* code: its exit status (a wait-model start: 0, not waited for) */
	METHOD_SIGNALED,    /* code: -signal */
	METHOD_TIMEOUT,     /* killed past timeout_seconds (code: -SIGKILL) */
	METHOD_CANCELED,    /* a start killed because startd shuts down */
	METHOD_CONFIG,      /* its method_context cannot be set up */
	METHOD_NOT_RUN,     /* it could not be spawned */
	METHOD_UNDEFINED,   /* no such method, or no exec (code: -ENOENT) */
	METHOD_UNREADABLE,  /* the repository refused to read it (code: the error) */
	METHOD_UNREACHABLE, /* the repository connection is gone (code: the error) */
} method_outcome_t;

typedef struct method_end {
	method_outcome_t outcome;
	int code;
} method_end_t;

/* The questions a step may end with, and the answers' event types (beside the RE_*). */
enum {
	FSM_RECORD = 100, /* FSM_READ_RECORD's answer */
	FSM_SURVIVOR,     /* FSM_FIND_SURVIVOR's */
	FSM_MODEL,        /* FSM_READ_MODEL's */
	FSM_SPAWNED,      /* FSM_RUN_METHOD's, when the method runs as a process */
	FSM_METHOD_END,   /* FSM_RUN_METHOD's (it ended without one) or FSM_WAIT_METHOD's */
};

/* The methods the machine runs. */
typedef enum fsm_method {
	FSM_NO_METHOD = 0,
	FSM_METHOD_START,
	FSM_METHOD_STOP,
	FSM_METHOD_REFRESH,
} fsm_method_t;

/* What the machine knows of one instance. */
typedef struct fsm {
	restarter_instance_state_t state, next_state;
	const char *aux;  /* the auxiliary_state last committed (a static string), NULL: none */
	smodel_t model;   /* as read at the last start (or recovery) */
	bool inserted;    /* an insert was handled (and no remove since) */
	pid_t contract;   /* the process group that is the instance, 0: none */
	pid_t start_pid;  /* the start method's pid */
	unsigned attempt; /* the start being made: 1, 2, ... FSM_START_ATTEMPTS */
	uint64_t restarts[FSM_RESTART_HISTORY]; /* when the last restarts were (monotonic usec) */
	unsigned n_restarts;
	/* Between the steps of one event: */
	int await;             /* the answer asked for (FSM_RECORD...), 0: none */
	fsm_method_t method;   /* the method running */
	bool insert_running;   /* the insert being handled: "running" exists */
	bool insert_survivors; /* ... a previous startd left processes for it */
} fsm_t;

typedef struct fsm_event {
	int type;        /* an RE_* of startd.h, or an answer (FSM_RECORD...) */
	int64_t arg;     /* RE_INSERT: RE_INSERT_*; RE_CONTRACT_EMPTY: the process group */
	uint64_t now;    /* monotonic usec, when the event is handled (the restart-rate limit) */
	bool survivors;  /* RE_INSERT: a previous startd left processes for it (survivors.c) */
	bool repository; /* RE_SHUTDOWN: the worker has a repository connection */
	union {
		/* FSM_RECORD: the restarter pg found (or not), and what its contract is */
		struct {
			bool found;
			restarter_instance_state_t state; /* NONE when it has none */
			pid_t contract;  /* recorded, else the one asked about (a->record) */
			pid_t start_pid; /* -1: not recorded */
			bool alive;      /* the contract has a live (non-zombie) process */
			smodel_t model;
		} record;
		/* FSM_SURVIVOR: the trusted groups a start method made, not sessions of its own */
		struct {
			smodel_t model;
			size_t candidates;
			pid_t pgid;  /* the one candidate (candidates == 1) */
			bool leader; /* its leader, the method's own process, runs */
			bool alive;  /* it has a live process */
		} survivor;
		smodel_t model;   /* FSM_MODEL */
		pid_t spawned;    /* FSM_SPAWNED: the method's pid (and process group) */
		method_end_t end; /* FSM_METHOD_END */
	};
} fsm_event_t;

typedef enum fsm_action_type {
	FSM_COMMIT = 1,     /* write the restarter pg (commit) */
	FSM_REPORT,         /* the graph hears of the settled state (report) */
	FSM_LOG,            /* log.text, prefixed with the instance's FMRI */
	FSM_KILL,           /* kill.pgid (0: none) with kill.sig, then the cgroup leaf */
	FSM_WATCH,          /* pgid is the contract: the reaper tells when it empties */
	FSM_UNWATCH,        /* ... no longer */
	FSM_READ_RECORD,    /* read the restarter pg; answer FSM_RECORD */
	FSM_FIND_SURVIVOR,  /* which group a previous startd's start method left; FSM_SURVIVOR */
	FSM_STOP_SURVIVORS, /* stop the groups a previous startd left, but survivors.keep */
	FSM_READ_MODEL,     /* read startd/duration; answer FSM_MODEL */
	FSM_RUN_METHOD,     /* method; answer FSM_SPAWNED or FSM_METHOD_END */
	FSM_WAIT_METHOD,    /* wait for the method spawned; answer FSM_METHOD_END */
	FSM_FORGET_METHOD,  /* a wait-model start is not waited for: pid is nobody's to wait */
	FSM_CHECK_CONTRACT, /* pgid already empty?  Then the answer is RE_CONTRACT_EMPTY */
	FSM_SNAPSHOT,       /* take "running" if the instance has none */
} fsm_action_type_t;

#define FSM_LOG_MAX 112

typedef struct fsm_action {
	fsm_action_type_t type;
	union {
		struct {
			restarter_instance_state_t from, state, next_state;
			const char *aux;
			pid_t start_pid, contract; /* -1: not written */
			bool first; /* the pg's first write (startd.restarter.before_pg_write) */
			bool retry; /* made again while the store refuses it (retry.h) */
		} commit;
		struct {
			restarter_instance_state_t state;
			const char *aux;
		} report;
		struct {
			int level; /* LOG_LEVEL_* of log.h */
			char text[FSM_LOG_MAX];
		} log;
		struct {
			pid_t pgid;
			int sig; /* SIGKILL at once; another is followed by SIGKILL after a grace */
		} kill;
		struct {
			pid_t pgid;
			bool adopted; /* not startd's child: polled (proc.h) */
		} watch;
		struct {
			pid_t contract; /* FSM_READ_RECORD: the contract when none is recorded */
		} record;
		struct {
			pid_t keep;      /* the contract, kept */
			bool keep_start; /* the groups a start method made are kept too */
		} survivors;
		struct {
			const char *name; /* "start", "stop", "refresh" */
			pid_t contract;   /* the instance's contract (":kill" signals it) */
			bool cgroup;      /* the child enters the instance's cgroup leaf */
		} method;
		pid_t pid; /* FSM_FORGET_METHOD; FSM_CHECK_CONTRACT, FSM_UNWATCH: a process group */
	};
} fsm_action_t;

#define FSM_ACTIONS_MAX 12

typedef struct fsm_out {
	fsm_action_t a[FSM_ACTIONS_MAX];
	size_t n;
	/*
	 * The step needs neither a method, a read, a snapshot nor a wait for processes, and commits
	 * at most once: the bulk worker may take it, with its commit in a batch (bulk.c).
	 */
	bool light;
	/* The last action asks a question: its answer is the next event (fsm_t.await). */
	bool asks;
} fsm_out_t;

/* One step (see above).  Returns the number of actions in *out (>= 0). */
int fsm_step(fsm_t *m, const fsm_event_t *e, fsm_out_t *out);

#endif
