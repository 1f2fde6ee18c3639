/*
 * tracegen ROOT SCENARIO: writes a synthetic run's trace files under ROOT/var/svc/trace, as
 * four real processes (svccfg, svc.configd, svc.startd, svcadm) would, through the real
 * recorder (smf_trace_open(), smf_trace_str()).
 *
 * A scenario is a script of steps, each "process P emits event E about instance I with string
 * S and arguments a0, a1" (an argument PID_OF(Q) is process Q's pid: the parent knows them).
 * OTHER runs in a session of its own: a command of another script.  The parent forks one child per process and hands the steps out one at a time: it
 * writes the step's number down the child's pipe and waits for the child's acknowledgement
 * before the next step, so the events of different processes are recorded in the script's
 * order with no sleep.  A step may first spin on CLOCK_MONOTONIC for a given time (a window of
 * known minimum length), SIGKILL a child (its file must still be read whole) or make a child
 * intern strings until its string table is full (the strings lost must be reported).  The recorder
 * reads clock_gettime() for every event here (SMF_TRACE_TSC=0) so that the cross-process order
 * is exact.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "trace.h"

typedef enum proc { SVCCFG, CONFIGD, STARTD, SVCADM, SVCS, OTHER, N_PROCS } proc_t;

/* OTHER is a command of another script: its own session and process group (setsid()). */
static const char *const prog_names[N_PROCS] = {
        "svccfg", "svc.configd", "svc.startd", "svcadm", "svcs", "svccfg"};

#define A "svc:/site/a:default"
#define B "svc:/site/b:default"
#define PG(i, pg) i "/:properties/" pg

#define KILL 0xffff /* pseudo event: SIGKILL the step's process */
#define FILL 0xfffe /* pseudo event: the step's process records FILL_STRINGS distinct strings */

/* An argument that the parent replaces by the pid of process p before handing the step out. */
#define PID_OF(p) (0xf1d0000000000000ull | (uint64_t)(p))
#define IS_PID_OF(a) (((a) >> 48) == 0xf1d0u)

/* 100 strings of 1 KiB overflow the smallest string table (64 KiB) by half. */
#define FILL_STRINGS 100
#define FILL_LEN 1024
#define SMALL_FILE ((4u + 64u + 64u) << 10) /* header, minimal string table, one event page */

typedef struct step {
	proc_t proc;
	uint16_t event;
	const char *inst; /* the flow's FMRI, NULL for flow 0 */
	const char *str;
	unsigned spin_ms; /* spin this long before the step */
	uint64_t a0, a1;  /* the event's arguments (PID_OF(p) resolved by the parent) */
} step_t;

/* An event with arguments, after a spin of ms. */
#define X(ms, p, ev, inst, str, a0, a1)                                                            \
	{                                                                                          \
		p, SMF_TRACE_##ev, inst, str, ms, a0, a1                                           \
	}
#define S(p, ev, inst, str) X(0, p, ev, inst, str, 0, 0)

/* A command's start and exit (smf_trace_open_command()). */
#define START(p) X(0, p, PROC_START, NULL, "a command", 0, 0)
#define EXIT(p, status) X(0, p, PROC_EXIT, NULL, "exit " #status, status, 0)

/* configd: write request c by process who, then what it did to pgs, with their generations. */
#define WRITE(c, who, req) X(0, CONFIGD, CONFIGD_WRITE, NULL, req, c, PID_OF(who))
#define CREATED(c, i, pg, gen)                                                                     \
	X(0, CONFIGD, CONFIGD_PG_CREATED, i, PG(i, pg), c, gen),                                   \
	        X(0, CONFIGD, CONFIGD_COMMIT, i, PG(i, pg), c, gen)
#define CHANGED(c, i, pg, gen) X(0, CONFIGD, CONFIGD_COMMIT, i, PG(i, pg), c, gen)
#define NOTIFIED(c, i, pg, to) X(0, CONFIGD, CONFIGD_NOTIFY_SENT, i, PG(i, pg), c, PID_OF(to))

/* A libscf read by p of i's pg: gen 0 is absent. */
#define READ(p, i, pg, gen) X(0, p, SCF_READ, i, PG(i, pg), SMF_TRACE_READ_ARG0(gen, 0), 0)
#define INTEREST(p, name) X(0, p, SCF_NOTIFY_INTEREST, NULL, name, 0, 0)
#define RECEIVED(p, c, i, pg, gen) X(0, p, SCF_NOTIFY_RECEIVED, i, PG(i, pg), c, gen)

/*
 * The import of one instance up to startd's insert, the way the real programs emit it: the
 * import's batch (commit c) creates the general pg, startd hears of it and inserts the
 * instance, every step carrying c as its cause.
 */
#define IMPORT_START(i, c)                                                                         \
	WRITE(c, SVCCFG, "Batch"), CREATED(c, i, "general", 1), NOTIFIED(c, i, "general", STARTD), \
	        S(SVCCFG, IMPORT_INSTANCE_COMMITTED, i, i),                                        \
	        X(0, STARTD, STARTD_NOTIFY_RECEIVED, i, PG(i, "general"), c, 1),                   \
	        X(0, STARTD, STARTD_GRAPH_INSERT, i, i, c, 0),                                     \
	        X(0, STARTD, STARTD_RESTARTER_ENQUEUE, i, "insert", c, 0),                         \
	        X(0, STARTD, STARTD_RESTARTER_DEQUEUE, i, "insert", c, 0)

/*
 * startd writes i's restarter pg because of commit cause, at least ms after the previous step:
 * it announces the write, configd commits it (commit c), creating it or moving it to gen.
 */
#define RPG_ANNOUNCE(ms, i, c, cause)                                                              \
	X(ms, STARTD, STARTD_WRITE, i, PG(i, "restarter"), cause, 0), WRITE(c, STARTD, "Batch")
#define RPG_DONE(i, cause, states)                                                                 \
	X(0, STARTD, STARTD_RESTARTER_PG_WRITTEN, i, i, cause, 0),                                 \
	        X(0, STARTD, STARTD_STATE_CHANGE, i, states, cause, 0)
#define RPG_CREATE(ms, i, c, cause, states)                                                        \
	RPG_ANNOUNCE(ms, i, c, cause), CREATED(c, i, "restarter", 1), RPG_DONE(i, cause, states)
#define RPG_UPDATE(ms, i, c, cause, gen, states)                                                   \
	RPG_ANNOUNCE(ms, i, c, cause), CHANGED(c, i, "restarter", gen), RPG_DONE(i, cause, states)

/* The import wait: interest, the pg absent, its notification, read again (a wait). */
#define IMPORT_WAIT_OPEN(i)                                                                        \
	S(SVCCFG, IMPORT_WAIT_BEGIN, NULL, "1"), INTEREST(SVCCFG, "restarter"),                    \
	        READ(SVCCFG, i, "restarter", 0)
#define IMPORT_WAIT_CLOSE(i, c)                                                                    \
	RECEIVED(SVCCFG, c, i, "restarter", 1), READ(SVCCFG, i, "restarter", 1),                   \
	        S(SVCCFG, IMPORT_WAIT_DONE, NULL, "ok")

/* A whole import of i with the wait (commits c and c + 1): the pg exists before the return. */
#define IMPORT_WAITED(i, c)                                                                        \
	START(SVCCFG), S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"), IMPORT_START(i, c),            \
	        IMPORT_WAIT_OPEN(i), RPG_CREATE(0, i, (c) + 1, c, "uninitialized>disabled"),       \
	        IMPORT_WAIT_CLOSE(i, (c) + 1), S(SVCCFG, IMPORT_RETURN, NULL, "exit 0"),           \
	        EXIT(SVCCFG, 0)

#define RETURN_NOWAIT                                                                              \
	S(SVCCFG, IMPORT_WAIT_DONE, NULL, "skipped: SVCCFG_IMPORT_NOWAIT"),                        \
	        S(SVCCFG, IMPORT_RETURN, NULL, "exit 0"), EXIT(SVCCFG, 0)

/* svcadm enable -s's start: interest, its commit c of general, startd hears of it. */
#define ENABLE(i, c, gen)                                                                          \
	START(SVCADM), INTEREST(SVCADM, "restarter"), WRITE(c, SVCADM, "Commit"),                  \
	        CHANGED(c, i, "general", gen), NOTIFIED(c, i, "general", STARTD),                  \
	        X(0, STARTD, STARTD_NOTIFY_RECEIVED, i, PG(i, "general"), c, gen)

/* svcadm's read of the restarter pg (gen 0: absent), with its old events around it. */
#define SVCADM_READ(i, gen)                                                                        \
	S(SVCADM, SVCADM_READ_RESTARTER_PG, i, i), READ(SVCADM, i, "restarter", gen),              \
	        S(SVCADM, SVCADM_RESULT, i, (gen) ? "present" : "absent")

/* (1) the fix: the import waits until both restarter pgs exist; svcadm then finds A's. */
static const step_t scenario_ok[] = {
        START(SVCCFG),
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/ab.xml"),
        IMPORT_START(A, 1),
        IMPORT_START(B, 1),
        S(SVCCFG, IMPORT_REFRESH, A, A),
        S(SVCCFG, IMPORT_REFRESH, B, B),
        S(SVCCFG, IMPORT_WAIT_BEGIN, NULL, "2"),
        INTEREST(SVCCFG, "restarter"),
        READ(SVCCFG, A, "restarter", 0),
        READ(SVCCFG, B, "restarter", 0),
        RPG_CREATE(0, A, 2, 1, "uninitialized>disabled"),
        RPG_CREATE(0, B, 3, 1, "uninitialized>disabled"),
        RECEIVED(SVCCFG, 2, A, "restarter", 1),
        READ(SVCCFG, A, "restarter", 1),
        RECEIVED(SVCCFG, 3, B, "restarter", 1),
        READ(SVCCFG, B, "restarter", 1),
        S(SVCCFG, IMPORT_WAIT_DONE, NULL, "ok"),
        S(SVCCFG, IMPORT_RETURN, NULL, "exit 0"),
        EXIT(SVCCFG, 0),
        ENABLE(A, 4, 2),
        SVCADM_READ(A, 1),
        RPG_UPDATE(0, A, 5, 4, 2, "disabled>offline"),
        RECEIVED(SVCADM, 5, A, "restarter", 2),
        READ(SVCADM, A, "restarter", 2),
        S(STARTD, STARTD_METHOD_START, A, "start"),
        S(STARTD, STARTD_METHOD_EXIT, A, "start exit 0"),
        RPG_UPDATE(0, A, 6, 4, 3, "offline>online"),
        RECEIVED(SVCADM, 6, A, "restarter", 3),
        READ(SVCADM, A, "restarter", 3),
        EXIT(SVCADM, 0),
        {},
};

/* (2) no wait, no read: the import returns at least 5 ms before A's restarter pg. */
static const step_t scenario_latent[] = {
        START(SVCCFG),
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        IMPORT_START(A, 1),
        S(SVCCFG, IMPORT_REFRESH, A, A),
        RETURN_NOWAIT,
        RPG_CREATE(5, A, 2, 1, "uninitialized>disabled"),
        {},
};

/* (3) svcadm reads A at least 3 ms before its restarter pg, finds it absent and fails. */
static const step_t scenario_manifested[] = {
        START(SVCCFG),
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        IMPORT_START(A, 1),
        RETURN_NOWAIT,
        ENABLE(A, 2, 2),
        SVCADM_READ(A, 0),
        EXIT(SVCADM, 3),
        RPG_CREATE(3, A, 3, 1, "uninitialized>offline"),
        {},
};

/*
 * (4) svcadm reads A absent; startd announced the write of A's restarter pg for the import's
 * commit but never committed it (killed, or the trace stopped): the window stays open.
 */
static const step_t scenario_never[] = {
        START(SVCCFG),
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        IMPORT_START(A, 1),
        RETURN_NOWAIT,
        X(0, STARTD, STARTD_WRITE, A, PG(A, "restarter"), 1, 0),
        ENABLE(A, 2, 2),
        SVCADM_READ(A, 0),
        EXIT(SVCADM, 3),
        X(2, CONFIGD, CONFIGD_WRITE, NULL, "Batch", 3, 0),
        CHANGED(3, "svc:/site/x:default", "general", 1),
        {},
};

/* (5) svccfg is SIGKILLed right after its return: its file must still be read. */
static const step_t scenario_killed[] = {
        START(SVCCFG),
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        IMPORT_START(A, 1),
        S(SVCCFG, IMPORT_WAIT_DONE, NULL, "skipped: SVCCFG_IMPORT_NOWAIT"),
        S(SVCCFG, IMPORT_RETURN, NULL, "exit 0"),
        {SVCCFG, KILL, NULL, NULL, 0, 0, 0},
        RPG_CREATE(2, A, 2, 1, "uninitialized>disabled"),
        {},
};

/* An old instance imported again: its restarter pg was committed before tracing began. */
static const step_t scenario_reimport[] = {
        START(SVCCFG),
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        WRITE(1, SVCCFG, "Batch"),
        CHANGED(1, A, "general", 4),
        S(SVCCFG, IMPORT_INSTANCE_COMMITTED, A, A),
        RETURN_NOWAIT,
        START(SVCADM),
        SVCADM_READ(A, 7),
        EXIT(SVCADM, 0),
        {},
};

/*
 * An import of A while A runs: its restarter pg exists from before the trace, the import
 * returns at once, and startd's later state commit only updates the pg (no pg_created).
 */
static const step_t scenario_predates[] = {
        START(SVCCFG),
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        WRITE(1, SVCCFG, "Batch"),
        CHANGED(1, A, "general", 4),
        NOTIFIED(1, A, "general", STARTD),
        S(SVCCFG, IMPORT_INSTANCE_COMMITTED, A, A),
        S(SVCCFG, IMPORT_REFRESH, A, A),
        RETURN_NOWAIT,
        RPG_UPDATE(2, A, 2, 1, 9, "online>online"),
        {},
};

/*
 * A imported with the wait (its restarter pg created before the return), then deleted and
 * imported again without it: the pg is re-created at least 4 ms after the second return.  The
 * first creation must not hide that window.
 */
static const step_t scenario_recreated[] = {
        IMPORT_WAITED(A, 1),
        START(SVCCFG),
        WRITE(3, SVCCFG, "Delete"),
        X(0, CONFIGD, CONFIGD_PG_DELETED, A, PG(A, "general"), 3, 0),
        X(0, CONFIGD, CONFIGD_PG_DELETED, A, PG(A, "restarter"), 3, 0),
        EXIT(SVCCFG, 0),
        START(SVCCFG),
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        IMPORT_START(A, 4),
        RETURN_NOWAIT,
        RPG_CREATE(4, A, 5, 4, "uninitialized>disabled"),
        {},
};

/*
 * The run of (1) with a tiny svc.configd file whose string table then fills: the strings
 * configd could not intern after that are lost (their events carry none).
 */
static const step_t scenario_lostdata[] = {
        IMPORT_WAITED(A, 1),
        {CONFIGD, FILL, NULL, NULL, 0, 0, 0},
        {},
};

/*
 * A read of an older generation: A runs (its restarter pg at generation 5), svcadm restart
 * commits restarter_actions (commit 2), and svcs, the script's next command, reads the
 * restarter pg at generation 5 before startd's first write for the restart (generation 6):
 * it printed the state from before the restart.
 */
static const step_t scenario_older[] = {
        START(SVCADM),
        WRITE(1, SVCADM, "Commit"),
        CHANGED(1, A, "restarter_actions", 3),
        NOTIFIED(1, A, "restarter_actions", STARTD),
        X(0, STARTD, STARTD_NOTIFY_RECEIVED, A, PG(A, "restarter_actions"), 1, 3),
        EXIT(SVCADM, 0),
        START(SVCS),
        READ(SVCS, A, "restarter", 5),
        EXIT(SVCS, 0),
        X(0, STARTD, STARTD_RESTARTER_ENQUEUE, A, "restart", 1, 0),
        X(0, STARTD, STARTD_RESTARTER_DEQUEUE, A, "restart", 1, 0),
        RPG_UPDATE(3, A, 2, 1, 6, "online>online"),
        RPG_UPDATE(0, A, 3, 1, 7, "online>offline"),
        {},
};

/*
 * An unrelated writer: svcadm reads A's restarter pg absent, and startd then creates it for no
 * commit of this script (its start-up scan: no cause).  No race.
 */
static const step_t scenario_unrelated[] = {
        START(SVCADM),
        SVCADM_READ(A, 0),
        EXIT(SVCADM, 3),
        X(0, STARTD, STARTD_GRAPH_INSERT, A, A, 0, 0),
        RPG_CREATE(2, A, 1, 0, "uninitialized>disabled"),
        {},
};

/*
 * The write is caused by another script's commit: OTHER (svccfg in its own session, still
 * running) imports A, svcadm of this script reads A's restarter pg absent before startd creates
 * it.  No race.
 */
static const step_t scenario_other[] = {
        START(OTHER),
        WRITE(1, OTHER, "Batch"),
        CREATED(1, A, "general", 1),
        NOTIFIED(1, A, "general", STARTD),
        X(0, STARTD, STARTD_NOTIFY_RECEIVED, A, PG(A, "general"), 1, 1),
        X(0, STARTD, STARTD_GRAPH_INSERT, A, A, 1, 0),
        START(SVCADM),
        SVCADM_READ(A, 0),
        EXIT(SVCADM, 3),
        RPG_CREATE(2, A, 2, 1, "uninitialized>disabled"),
        {},
};

/*
 * Read, wait, read: svcadm enable -s commits general (commit 2), reads the restarter pg at
 * generation 1, is notified of startd's write (generation 2, for its commit) and reads it
 * again: a wait, no race.  The import before it waited too.
 */
static const step_t scenario_wait[] = {
        IMPORT_WAITED(A, 1),
        ENABLE(A, 3, 2),
        SVCADM_READ(A, 1),
        RPG_UPDATE(2, A, 4, 3, 2, "disabled>offline"),
        RECEIVED(SVCADM, 4, A, "restarter", 2),
        READ(SVCADM, A, "restarter", 2),
        EXIT(SVCADM, 0),
        {},
};

/*
 * Caught up: svcs (a command of the script) reads A's restarter pg at generation 5 before the
 * write svcadm's restart causes, then, by itself (no notification), reads it again after the
 * write and exits 0: a latent race, not a manifested one.
 */
static const step_t scenario_caughtup[] = {
        START(SVCADM),
        WRITE(1, SVCADM, "Commit"),
        CHANGED(1, A, "restarter_actions", 3),
        EXIT(SVCADM, 0),
        START(SVCS),
        READ(SVCS, A, "restarter", 5),
        RPG_UPDATE(2, A, 2, 1, 6, "online>offline"),
        READ(SVCS, A, "restarter", 6),
        EXIT(SVCS, 0),
        {},
};

/*
 * Validated: svcadm restart commits restarter_actions (commit 1); the next svcadm reads it at
 * generation 3, before startd's clearing of the action (for commit 1), and commits it in a
 * transaction (Commit, commit 2) that configd accepted against that generation: its view was
 * checked, no race.
 */
static const step_t scenario_validated[] = {
        START(SVCADM),
        WRITE(1, SVCADM, "Commit"),
        CHANGED(1, A, "restarter_actions", 3),
        EXIT(SVCADM, 0),
        START(SVCS),
        READ(SVCS, A, "restarter_actions", 3),
        WRITE(2, SVCS, "Commit"),
        CHANGED(2, A, "restarter_actions", 4),
        EXIT(SVCS, 0),
        X(2, STARTD, STARTD_WRITE, A, PG(A, "restarter_actions"), 1, 0),
        WRITE(3, STARTD, "Commit"),
        CHANGED(3, A, "restarter_actions", 5),
        {},
};

/*
 * A waiter's re-check: svcadm enable -s registered for restarter pgs, read A's at generation 1,
 * and read it again (its periodic re-check) after startd's write, before the write's
 * notification reached it: a wait, no race.
 */
static const step_t scenario_recheck[] = {
        IMPORT_WAITED(A, 1),
        ENABLE(A, 3, 2),
        SVCADM_READ(A, 1),
        RPG_UPDATE(2, A, 4, 3, 2, "disabled>offline"),
        READ(SVCADM, A, "restarter", 2),
        EXIT(SVCADM, 0),
        {},
};

/*
 * svccfg add of A (commit 1, AddInstance): configd announces it (InstanceAdded, with the commit
 * id), and startd's graph, at first sight of an instance without general, writes its
 * uninitialized restarter pg at least ms later, for that cause (commit c).
 */
#define ADDED(c, i)                                                                                \
	WRITE(c, SVCCFG, "AddInstance"), X(0, CONFIGD, CONFIGD_INSTANCE_ADDED, i, i, c, 0),        \
	        X(0, CONFIGD, CONFIGD_NOTIFY_SENT, i, i, c, PID_OF(STARTD)),                       \
	        X(0, STARTD, STARTD_NOTIFY_RECEIVED, i, i, c, 0)
#define FIRST_SIGHT_WRITE(ms, i, c, cause)                                                         \
	X(0, STARTD, STARTD_FIRST_SIGHT, i, "write", cause, 0), RPG_ANNOUNCE(ms, i, c, cause),     \
	        CREATED(c, i, "restarter", 1),                                                     \
	        X(0, STARTD, STARTD_RESTARTER_PG_WRITTEN, i, i, cause, 0)

/* add-wait: svccfg add reads A's restarter pg absent, is notified of it, reads it: a wait. */
static const step_t scenario_addwait[] = {
        START(SVCCFG),
        ADDED(1, A),
        INTEREST(SVCCFG, "restarter"),
        S(SVCCFG, ADD_WAIT_BEGIN, NULL, "1"),
        READ(SVCCFG, A, "restarter", 0),
        FIRST_SIGHT_WRITE(2, A, 2, 1),
        RECEIVED(SVCCFG, 2, A, "restarter", 1),
        READ(SVCCFG, A, "restarter", 1),
        S(SVCCFG, ADD_WAIT_DONE, NULL, "ok"),
        EXIT(SVCCFG, 0),
        {},
};

/*
 * svcadm-wait: svccfg add without its wait returns before A's restarter pg exists (latent);
 * svcadm enable -s with SVCADM_WAIT_RESTARTER=1 reads it absent, waits for its notification
 * and reads it again: a wait, so the race stays latent.
 */
static const step_t scenario_svcadmwait[] = {
        START(SVCCFG),
        ADDED(1, A),
        S(SVCCFG, ADD_WAIT_DONE, NULL, "skipped: SVCCFG_ADD_NOWAIT"),
        EXIT(SVCCFG, 0),
        START(SVCADM),
        SVCADM_READ(A, 0),
        INTEREST(SVCADM, "restarter"),
        S(SVCADM, SVCADM_WAIT_RESTARTER_BEGIN, NULL, "1"),
        READ(SVCADM, A, "restarter", 0),
        FIRST_SIGHT_WRITE(3, A, 2, 1),
        RECEIVED(SVCADM, 2, A, "restarter", 1),
        READ(SVCADM, A, "restarter", 1),
        S(SVCADM, SVCADM_WAIT_RESTARTER_DONE, NULL, "ok"),
        EXIT(SVCADM, 0),
        {},
};

/*
 * configd-eager: the import's own batch (commit 1) creates A's restarter pg with its general;
 * the import wait reads it at generation 1 and returns; startd's later write (generation 2,
 * caused by commit 1) is progress past what the import created, not a window.  No race.
 */
static const step_t scenario_eager[] = {
        START(SVCCFG),
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        WRITE(1, SVCCFG, "Batch"),
        CREATED(1, A, "general", 1),
        CREATED(1, A, "restarter", 1),
        NOTIFIED(1, A, "general", STARTD),
        S(SVCCFG, IMPORT_INSTANCE_COMMITTED, A, A),
        S(SVCCFG, IMPORT_WAIT_BEGIN, NULL, "1"),
        INTEREST(SVCCFG, "restarter"),
        READ(SVCCFG, A, "restarter", 1),
        S(SVCCFG, IMPORT_WAIT_DONE, NULL, "ok"),
        S(SVCCFG, IMPORT_RETURN, NULL, "exit 0"),
        EXIT(SVCCFG, 0),
        X(0, STARTD, STARTD_NOTIFY_RECEIVED, A, PG(A, "general"), 1, 1),
        X(0, STARTD, STARTD_GRAPH_INSERT, A, A, 1, 0),
        X(0, STARTD, STARTD_RESTARTER_ENQUEUE, A, "insert", 1, 0),
        X(0, STARTD, STARTD_RESTARTER_DEQUEUE, A, "insert", 1, 0),
        RPG_UPDATE(3, A, 2, 1, 2, "uninitialized>disabled"),
        {},
};

/* Only svcadm was traced: reads, but no write of configd to link them to. */
static const step_t scenario_noconfigd[] = {
        START(SVCADM),
        SVCADM_READ(A, 0),
        EXIT(SVCADM, 3),
        {},
};

typedef struct scenario {
	const char *name;
	const step_t *steps;
	uint64_t configd_size; /* its trace file's size, 0 for the default */
} scenario_t;

static const scenario_t scenarios[] = {
        {"ok", scenario_ok, 0},
        {"latent", scenario_latent, 0},
        {"manifested", scenario_manifested, 0},
        {"never", scenario_never, 0},
        {"killed", scenario_killed, 0},
        {"reimport", scenario_reimport, 0},
        {"predates", scenario_predates, 0},
        {"recreated", scenario_recreated, 0},
        {"lostdata", scenario_lostdata, SMALL_FILE},
        {"older", scenario_older, 0},
        {"unrelated", scenario_unrelated, 0},
        {"other", scenario_other, 0},
        {"wait", scenario_wait, 0},
        {"caughtup", scenario_caughtup, 0},
        {"validated", scenario_validated, 0},
        {"recheck", scenario_recheck, 0},
        {"noconfigd", scenario_noconfigd, 0},
        {"addwait", scenario_addwait, 0},
        {"svcadmwait", scenario_svcadmwait, 0},
        {"eager", scenario_eager, 0},
};

/* A step as handed to a child: its index and its arguments with the pids resolved. */
typedef struct order {
	uint32_t step;
	uint64_t a0, a1;
} order_t;

typedef struct child {
	pid_t pid;
	int to_child, from_child;
} child_t;

static void spin_ms(unsigned ms)
{
	struct timespec a, b;

	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec) < ms * 1000000ll);
}

/* Records FILL_STRINGS distinct long strings, as configd committing many pgs would. */
static void fill_strings(void)
{
	char s[FILL_LEN + 1];

	for (unsigned k = 0; k < FILL_STRINGS; k++) {
		int n = snprintf(s, sizeof(s), "svc:/site/fill/:properties/pg%u-", k);

		memset(s + n, 'x', sizeof(s) - 1 - (size_t)n);
		s[sizeof(s) - 1] = '\0';
		smf_trace_str(SMF_TRACE_CONFIGD_COMMIT, 0, s);
	}
}

static _noreturn_ void child_main(
        const char *root, proc_t p, uint64_t size, const step_t *steps, int in, int out)
{
	order_t o;
	int r;

	/* Another script: its own session and process group, recorded in its file's header. */
	if (p == OTHER && setsid() < 0)
		_exit(1);
	/* 4 MiB by default: room enough, and a test's files stay small. */
	r = smf_trace_open_sized(root, prog_names[p], size ? size : 4u << 20);
	if (r < 0) {
		fprintf(stderr, "tracegen: smf_trace_open(%s): %s\n", prog_names[p], strerror(-r));
		_exit(1);
	}
	while (read(in, &o, sizeof(o)) == sizeof(o)) {
		const step_t *s = &steps[o.step];

		if (s->event == FILL)
			fill_strings();
		else
			smf_trace_str_args(s->event, s->inst ? smf_trace_flow(s->inst) : 0, s->str,
			        o.a0, o.a1);
		if (write(out, "k", 1) != 1)
			_exit(1);
	}
	_exit(0); /* without smf_trace_close(): what was recorded is in the file already */
}

static int start_child(
        const char *root, uint64_t size, const step_t *steps, child_t *children, proc_t p)
{
	child_t *c = &children[p];
	int down[2], up[2];

	if (pipe2(down, O_CLOEXEC) < 0 || pipe2(up, O_CLOEXEC) < 0)
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		/* Only the parent may hold a child's pipe ends, or that child never sees EOF. */
		for (int i = 0; i < (int)p; i++) {
			if (children[i].to_child >= 0)
				close(children[i].to_child);
			if (children[i].from_child >= 0)
				close(children[i].from_child);
		}
		close(down[1]);
		close(up[0]);
		child_main(root, p, size, steps, down[0], up[1]);
	}
	close(down[0]);
	close(up[1]);
	c->to_child = down[1];
	c->from_child = up[0];
	return 0;
}

/* An argument as the child records it: PID_OF(p) becomes p's pid. */
static uint64_t resolve(const child_t *children, uint64_t a)
{
	return IS_PID_OF(a) ? (uint64_t)children[a & 0xff].pid : a;
}

static int run_step(child_t *children, const step_t *steps, uint32_t i)
{
	child_t *c = &children[steps[i].proc];
	order_t o = {.step = i,
	        .a0 = resolve(children, steps[i].a0),
	        .a1 = resolve(children, steps[i].a1)};
	char ack;

	if (steps[i].spin_ms)
		spin_ms(steps[i].spin_ms);
	if (steps[i].event == KILL) {
		if (kill(c->pid, SIGKILL) < 0 || waitpid(c->pid, NULL, 0) < 0)
			return -errno;
		c->pid = 0;
		return 0;
	}
	if (write(c->to_child, &o, sizeof(o)) != sizeof(o) || read(c->from_child, &ack, 1) != 1)
		return -EPIPE;
	return 0;
}

static int run(const char *root, const step_t *steps, uint64_t configd_size)
{
	child_t children[N_PROCS] = {};
	bool used[N_PROCS] = {};
	int r = 0, status;

	for (uint32_t i = 0; steps[i].event != SMF_TRACE_NONE; i++)
		used[steps[i].proc] = true;
	for (int p = 0; p < N_PROCS; p++)
		children[p].to_child = children[p].from_child = -1;
	/* Only the processes the scenario has: no empty trace file. */
	for (int p = 0; p < N_PROCS && r >= 0; p++)
		if (used[p])
			r = start_child(
			        root, p == CONFIGD ? configd_size : 0, steps, children, (proc_t)p);
	for (uint32_t i = 0; r >= 0 && steps[i].event != SMF_TRACE_NONE; i++)
		r = run_step(children, steps, i);
	for (int p = 0; p < N_PROCS; p++) {
		if (children[p].to_child >= 0)
			close(children[p].to_child);
		if (children[p].from_child >= 0)
			close(children[p].from_child);
		if (children[p].pid > 0 &&
		        (waitpid(children[p].pid, &status, 0) < 0 || status != 0) && r >= 0)
			r = -ECHILD;
	}
	return r;
}

int main(int argc, char *argv[])
{
	int r;

	if (argc != 3) {
		fprintf(stderr, "usage: tracegen ROOT SCENARIO\n");
		return 2;
	}
	setenv("SMF_TRACE_TSC", "0", 1);
	for (size_t i = 0; i < ELEMENTSOF(scenarios); i++) {
		if (!streq(argv[2], scenarios[i].name))
			continue;
		r = run(argv[1], scenarios[i].steps, scenarios[i].configd_size);
		if (r < 0)
			fprintf(stderr, "tracegen: %s: %s\n", argv[2], strerror(-r));
		return r < 0 ? 1 : 0;
	}
	fprintf(stderr, "tracegen: unknown scenario %s\n", argv[2]);
	return 2;
}
