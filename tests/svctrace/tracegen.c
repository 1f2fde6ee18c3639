/*
 * tracegen ROOT SCENARIO: writes a synthetic run's trace files under ROOT/var/svc/trace, as
 * four real processes (svccfg, svc.configd, svc.startd, svcadm) would, through the real
 * recorder (smf_trace_open(), smf_trace_str()).
 *
 * A scenario is a script of steps, each "process P emits event E about instance I with string
 * S".  The parent forks one child per process and hands the steps out one at a time: it
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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "trace.h"

typedef enum proc { SVCCFG, CONFIGD, STARTD, SVCADM, N_PROCS } proc_t;

static const char *const prog_names[N_PROCS] = {"svccfg", "svc.configd", "svc.startd", "svcadm"};

#define A "svc:/site/a:default"
#define B "svc:/site/b:default"
#define PG(i, pg) i "/:properties/" pg

#define KILL 0xffff /* pseudo event: SIGKILL the step's process */
#define FILL 0xfffe /* pseudo event: the step's process records FILL_STRINGS distinct strings */

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
} step_t;

#define S(p, ev, inst, str)                                                                        \
	{                                                                                          \
		p, SMF_TRACE_##ev, inst, str, 0                                                    \
	}
#define SPIN(ms, p, ev, inst, str)                                                                 \
	{                                                                                          \
		p, SMF_TRACE_##ev, inst, str, ms                                                   \
	}

/*
 * The import of one instance up to startd's insert, the way the real programs emit it: the
 * import creates the general pg (configd.pg_created just before its commit).
 */
#define IMPORT_START(i)                                                                            \
	S(SVCCFG, IMPORT_INSTANCE_COMMITTED, i, i),                                                \
	        S(CONFIGD, CONFIGD_PG_CREATED, i, PG(i, "general")),                               \
	        S(CONFIGD, CONFIGD_COMMIT, i, PG(i, "general")),                                   \
	        S(CONFIGD, CONFIGD_NOTIFY_SENT, i, PG(i, "general")),                              \
	        S(STARTD, STARTD_NOTIFY_RECEIVED, i, PG(i, "general")),                            \
	        S(STARTD, STARTD_GRAPH_INSERT, i, i),                                              \
	        S(STARTD, STARTD_RESTARTER_ENQUEUE, i, "insert"),                                  \
	        S(STARTD, STARTD_RESTARTER_DEQUEUE, i, "insert")

/* startd creates the restarter pg: configd records the creation, then the commit. */
#define PG_WRITE(i, ms)                                                                            \
	SPIN(ms, CONFIGD, CONFIGD_PG_CREATED, i, PG(i, "restarter")),                              \
	        S(CONFIGD, CONFIGD_COMMIT, i, PG(i, "restarter")),                                 \
	        S(STARTD, STARTD_RESTARTER_PG_WRITTEN, i, i),                                      \
	        S(STARTD, STARTD_STATE_CHANGE, i, "uninitialized>offline")

/* A whole import of i with the wait: its restarter pg is created before the return. */
#define IMPORT_WAITED(i)                                                                           \
	S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"), IMPORT_START(i),                              \
	        S(SVCCFG, IMPORT_WAIT_BEGIN, NULL, "1"), PG_WRITE(i, 0),                           \
	        S(SVCCFG, IMPORT_WAIT_DONE, NULL, "ok"), S(SVCCFG, IMPORT_RETURN, NULL, "exit 0")

#define RETURN_NOWAIT                                                                              \
	S(SVCCFG, IMPORT_WAIT_DONE, NULL, "skipped: SVCCFG_IMPORT_NOWAIT"),                        \
	        S(SVCCFG, IMPORT_RETURN, NULL, "exit 0")

/* (1) the fix: the import waits until both restarter pgs exist; svcadm then finds A's. */
static const step_t scenario_ok[] = {
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/ab.xml"),
        IMPORT_START(A),
        IMPORT_START(B),
        S(SVCCFG, IMPORT_REFRESH, A, A),
        S(SVCCFG, IMPORT_REFRESH, B, B),
        S(SVCCFG, IMPORT_WAIT_BEGIN, NULL, "2"),
        PG_WRITE(A, 0),
        PG_WRITE(B, 0),
        S(SVCCFG, IMPORT_WAIT_DONE, NULL, "ok"),
        S(SVCCFG, IMPORT_RETURN, NULL, "exit 0"),
        S(SVCADM, SVCADM_READ_RESTARTER_PG, A, A),
        S(SVCADM, SVCADM_RESULT, A, "present"),
        S(STARTD, STARTD_METHOD_START, A, "start"),
        S(STARTD, STARTD_METHOD_EXIT, A, "start exit 0"),
        S(STARTD, STARTD_STATE_CHANGE, A, "offline>online"),
        {},
};

/* (2) no wait, no svcadm: the import returns at least 5 ms before A's restarter pg. */
static const step_t scenario_latent[] = {
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        IMPORT_START(A),
        S(SVCCFG, IMPORT_REFRESH, A, A),
        RETURN_NOWAIT,
        PG_WRITE(A, 5),
        {},
};

/* (3) svcadm reads A at least 3 ms before its restarter pg and finds it absent. */
static const step_t scenario_manifested[] = {
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        IMPORT_START(A),
        RETURN_NOWAIT,
        S(SVCADM, SVCADM_READ_RESTARTER_PG, A, A),
        S(SVCADM, SVCADM_RESULT, A, "absent"),
        PG_WRITE(A, 3),
        {},
};

/* (4) startd never writes A's restarter pg: the window stays open. */
static const step_t scenario_never[] = {
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        IMPORT_START(A),
        RETURN_NOWAIT,
        SPIN(2, CONFIGD, CONFIGD_COMMIT, NULL, "svc:/site/x/:properties/general"),
        {},
};

/* (5) svccfg is SIGKILLed right after its return: its file must still be read. */
static const step_t scenario_killed[] = {
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        IMPORT_START(A),
        RETURN_NOWAIT,
        {SVCCFG, KILL, NULL, NULL, 0},
        PG_WRITE(A, 2),
        {},
};

/* An old instance imported again: its restarter pg was committed before tracing began. */
static const step_t scenario_reimport[] = {
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        S(SVCCFG, IMPORT_INSTANCE_COMMITTED, A, A),
        S(CONFIGD, CONFIGD_COMMIT, A, PG(A, "general")),
        RETURN_NOWAIT,
        S(SVCADM, SVCADM_READ_RESTARTER_PG, A, A),
        S(SVCADM, SVCADM_RESULT, A, "present"),
        {},
};

/*
 * An import of A while A runs: its restarter pg exists from before the trace, the import
 * returns at once, and startd's later state commit only updates the pg (no pg_created).
 */
static const step_t scenario_predates[] = {
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        S(SVCCFG, IMPORT_INSTANCE_COMMITTED, A, A),
        S(CONFIGD, CONFIGD_COMMIT, A, PG(A, "general")),
        S(CONFIGD, CONFIGD_NOTIFY_SENT, A, PG(A, "general")),
        S(SVCCFG, IMPORT_REFRESH, A, A),
        RETURN_NOWAIT,
        SPIN(2, CONFIGD, CONFIGD_COMMIT, A, PG(A, "restarter")),
        S(STARTD, STARTD_RESTARTER_PG_WRITTEN, A, A),
        S(STARTD, STARTD_STATE_CHANGE, A, "online>online"),
        {},
};

/*
 * A imported with the wait (its restarter pg created before the return), then deleted (not
 * traced) and imported again without it: the pg is re-created at least 4 ms after the second
 * return.  The first creation must not hide that window.
 */
static const step_t scenario_recreated[] = {
        IMPORT_WAITED(A),
        S(SVCCFG, IMPORT_BEGIN, NULL, "/tmp/a.xml"),
        IMPORT_START(A),
        RETURN_NOWAIT,
        PG_WRITE(A, 4),
        {},
};

/*
 * The run of (1) with a tiny svc.configd file whose string table then fills: the strings
 * configd could not intern after that are lost (their events carry none).
 */
static const step_t scenario_lostdata[] = {
        IMPORT_WAITED(A),
        {CONFIGD, FILL, NULL, NULL, 0},
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
};

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
	uint32_t i;
	/* 4 MiB by default: room enough, and a test's files stay small. */
	int r = smf_trace_open_sized(root, prog_names[p], size ? size : 4u << 20);

	if (r < 0) {
		fprintf(stderr, "tracegen: smf_trace_open(%s): %s\n", prog_names[p], strerror(-r));
		_exit(1);
	}
	while (read(in, &i, sizeof(i)) == sizeof(i)) {
		const step_t *s = &steps[i];

		if (s->event == FILL)
			fill_strings();
		else
			smf_trace_str(s->event, s->inst ? smf_trace_flow(s->inst) : 0, s->str);
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
			close(children[i].to_child);
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

static int run_step(child_t *children, const step_t *steps, uint32_t i)
{
	child_t *c = &children[steps[i].proc];
	char ack;

	if (steps[i].spin_ms)
		spin_ms(steps[i].spin_ms);
	if (steps[i].event == KILL) {
		if (kill(c->pid, SIGKILL) < 0 || waitpid(c->pid, NULL, 0) < 0)
			return -errno;
		c->pid = 0;
		return 0;
	}
	if (write(c->to_child, &i, sizeof(i)) != sizeof(i) || read(c->from_child, &ack, 1) != 1)
		return -EPIPE;
	return 0;
}

static int run(const char *root, const step_t *steps, uint64_t configd_size)
{
	child_t children[N_PROCS] = {};
	int r = 0, status;

	for (int p = 0; p < N_PROCS && r >= 0; p++)
		r = start_child(root, p == CONFIGD ? configd_size : 0, steps, children, (proc_t)p);
	for (uint32_t i = 0; r >= 0 && steps[i].event != SMF_TRACE_NONE; i++)
		r = run_step(children, steps, i);
	for (int p = 0; p < N_PROCS; p++) {
		close(children[p].to_child);
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
