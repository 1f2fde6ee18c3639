/*
 * svc.startd: the master restarter.
 *
 * BIG THEORY STATEMENT
 *
 * startd decides what runs.  It registers with svc.configd as the repository's restarter,
 * learns about instances from repository notifications, runs their methods and records what
 * happened in each instance's non-persistent "restarter" pg.  The threads are illumos':
 *
 *   repository thread (repo.c)   own handle, subscribed to the framework pgs the graph acts
 *        |                       on (by name), pg type dependency and instance creation; each
 *        |                       notification becomes a graph event, in commit order
 *        v
 *   graph thread                 owns the vertices (instances with a general pg) and their
 *   (graph-thread.c)             dependencies, read with its own handle; takes its queue in
 *        |                       bursts and reads a burst's new instances together, then queues
 *        |                       INSERT + ENABLE/DISABLE for each; what to start, stop or
 *        |                       restart as dependencies are met or lost is decided by the
 *        |                       graph (graph.c, graph.h), pure code over the vertices, unit
 *        |                       tested without configd, evaluated once per burst
 *        v
 *   restarter dispatcher         moves each event to its instance's own queue
 *   (dispatch.c)
 *        v
 *   one queue per instance       drained in order by whichever thread holds its worker bit:
 *   (instance.c)                 the bulk worker (bulk.c, one thread) for the events that need
 *                                no method and no read (a new instance's insert, enable,
 *                                disable), whose restarter pg writes it commits in batches, one
 *                                transaction for many instances; else the instance's own
 *                                worker (worker.c, started on demand, lingering 3 s); both
 *                                own the instance's state while they hold the bit
 *        |
 *        v
 *   the instance's machine       what each event does in each state (fsm.c: pure, events in,
 *   (fsm.c), acted on (act.c)    actions out, unit tested); act.c performs its actions in
 *                                order (methods: method.c, processes: proc.c, the restarter
 *                                pg: rpg.c) and feeds each answer back; every settled state
 *                                goes back to the graph
 *
 *   reaper thread (proc.c)       startd is a child subreaper; the reaper is the only caller
 *                                of wait*(), hands exit statuses to method waits and tells
 *                                the restarter when an instance's process group empties
 *   main thread                  start-up, then waits for SIGTERM/SIGINT and shuts down
 *
 * Before anything is spawned, the processes a previous startd of this root left running are
 * found (survivors.c: cgroup leaves, else the environment startd gives methods).  Then, before
 * the graph and the repository thread start, svc:/system/early-manifest-import:default (if it
 * exists and is enabled) is run to completion and marked online (emi.c).
 *
 * Invariants:
 * - A handle is used by one thread at a time (handles are not thread-safe): the repository
 *   thread, the graph and the bulk worker have their own; an instance worker binds one while
 *   it has events and puts it back in a pool when it is idle.  The main thread's handle carries
 *   the restarter registration for startd's whole life.
 * - Only the graph thread touches the graph (asserted at graph.h's entry points).
 * - An instance's events and methods run one at a time, in queue order, in the thread that
 *   holds its queue's worker bit (its worker, or the bulk worker, which hands the bit on to a
 *   worker when an event needs more), asserted where its machine is stepped, where its
 *   restarter pg is written and where its methods run (instance.h).
 * - The restarter pg of a new instance is written when its INSERT is handled (in a batch, by
 *   the bulk worker, for an instance the graph found without one: bulk_round() ->
 *   act_batched() -> the machine's first commit -> rpg_batch_add(), committed by
 *   rpg_batch_commit()), never synchronously with the instance's creation: between the two,
 *   the instance exists without a restarter pg (the race; see docs/restarter.md).
 * - An instance's processes are one process group (its "contract"); stopping it kills the
 *   group, grandchildren included, and, where cgroup v2 is writable, whatever is left in the
 *   instance's cgroup leaf (a process that called setsid()).  A restarted startd adopts the
 *   groups of instances that were online and kills any other leftover group; where the
 *   restarter pgs were lost too, it adopts or stops the groups it found itself, before any
 *   instance can start (the machine's insert, fsm.c; act.c finds and stops them).  So no
 *   service ever runs twice.
 * - A restarted configd keeps the restarter pgs (non-persistent, but the volatile database
 *   lives as long as the boot), not its connections: startd reconnects, registers and
 *   subscribes again, re-reads what the graph knows, and each worker rewrites its instance's
 *   pg from its own state (the same values, unless the volatile database was started afresh
 *   meanwhile); services are not touched (repo.c).  A worker that meets the broken connection in
 *   the middle of a step waits for configd the same way and repeats the step
 *   (instance_rebind()): a lost connection is never a failed method or a bad configuration.
 * - SIGTERM: stop listening, stop every service startd runs (stop method, then the group),
 *   exit 0.  A repository that does not come back in time: the same, exit 1.
 * - Tracing (SMF_TRACE=1) starts once the root is known, before any thread, and stops after
 *   every thread was joined; each step of an instance's path through the threads above is an
 *   event of its flow (probes.c), and the delay points (smf_point(), delay.h) sit on that
 *   path.  A method inherits neither the trace file (close-on-exec; the mapping ends at exec)
 *   nor any page of it, only SMF_TRACE itself, so a method that runs svccfg or svcadm (EMI)
 *   traces on its own.
 *
 * LOCK ORDERING.  The graph, an instance's state and the repository thread's take no lock:
 * they are each one thread's, and the threads talk through the queues.  The locks there are
 * are taken in this order, outermost first: a thread takes one only while every lock it holds
 * is above it (lock.h's ranks; lock_take() asserts it):
 *
 *   insts_lock (startd_t)              the instance table (dispatch.c)
 *     bulk.lock (bulk.c)               the instances handed to the bulk worker
 *       workers_lock (startd_t)        how many instance workers live
 *         tracked_lock (proc.c)        the processes tracked: children waited for, contracts
 *           an event queue's lock      one queue (queue.c); never two queues at once
 *             pool.lock (instance.c)   the idle repository handles
 *             table_lock (survivors.c) what a previous startd left running
 *             episode.lock (retry.c)   the store's refusals; these three are leaves: nothing
 *                                      is taken under them, nor one under another
 *
 * Where two are held at once: the dispatcher, holding the instance table (a configd restart
 * queues RE_RESYNC to every instance, shutdown RE_SHUTDOWN), queues an event (its queue's
 * lock), then hands the queue to the bulk worker (bulk.lock) or starts a worker
 * (workers_lock); the bulk worker, when it cannot grow its list, starts workers under
 * bulk.lock; the reaper queues RE_CONTRACT_EMPTY (the restarter queue's lock) under
 * tracked_lock.  Log lines and trace events may be written under any of them.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include <systemd/sd-daemon.h>

#include "cgroup.h"
#include "config.h"
#include "daemon.h"
#include "delay.h"
#include "log.h"
#include "macro.h"
#include "paths.h"
#include "proc.h"
#include "startd.h"
#include "survivors.h"
#include "trace.h"

static daemon_args_t args;

static const daemon_args_spec_t args_spec = {
        .program = "svc.startd",
        .description = "The master restarter of the SMF repository of DIR (default: $SMF_ROOT, "
                       "else the\nper-user root).",
};

/* Threads inherit the mask: these signals are only ever taken synchronously. */
static void block_signals(sigset_t *mask)
{
	sigemptyset(mask);
	sigaddset(mask, SIGTERM);
	sigaddset(mask, SIGINT);
	sigaddset(mask, SIGCHLD);
	pthread_sigmask(SIG_BLOCK, mask, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int register_restarter(startd_t *m)
{
	int r = scf_handle_create(m->root, &m->main_h);

	if (r < 0) {
		log_error("cannot reach the repository of %s: %s", m->root, scf_strerror(r));
		return -EIO;
	}
	r = scf_restarter_register(m->main_h);
	if (r == -SCF_ERROR_EXISTS)
		log_error("another restarter is already attached to %s", m->root);
	else if (r < 0)
		log_error("cannot register as the restarter: %s", scf_handle_errmsg(m->main_h));
	return r < 0 ? -EIO : 0;
}

static void startd_init(startd_t *m)
{
	pthread_condattr_t ca;

	*m = (startd_t){.repo_stop_fd = -1};
	event_queue_init(&m->graph_q);
	event_queue_init(&m->restarter_q);
	sem_init(&m->scanned, 0, 0);
	pthread_mutex_init(&m->insts_lock, NULL);
	pthread_mutex_init(&m->workers_lock, NULL);
	pthread_condattr_init(&ca);
	pthread_cond_init(&m->workers_cond, &ca);
	pthread_condattr_destroy(&ca);
}

static void startd_done(startd_t *m)
{
	scf_handle_destroy(m->main_h);
	closep(&m->repo_stop_fd);
	event_queue_done(&m->graph_q);
	event_queue_done(&m->restarter_q);
	sem_destroy(&m->scanned);
	pthread_mutex_destroy(&m->insts_lock);
	pthread_mutex_destroy(&m->workers_lock);
	pthread_cond_destroy(&m->workers_cond);
	free(m->root);
}

static void wait_for_stop(const sigset_t *mask)
{
	sigset_t set = *mask;
	siginfo_t si;

	sigdelset(&set, SIGCHLD);
	while (sigwaitinfo(&set, &si) < 0)
		;
	log_info("%s: shutting down", strsignal(si.si_signo));
}

static int run(startd_t *m, const sigset_t *mask)
{
	bool proc = false, restarter = false, graph_up = false, repo = false;
	int r;

	r = smf_root_resolve(args.root, &m->root);
	if (r < 0)
		return log_error_errno(r, "cannot determine the root directory");
	r = smf_trace_open_env(m->root, "svc.startd");
	if (r < 0)
		log_warning_errno(r, "cannot open a trace file under %s; not tracing", m->root);
	r = register_restarter(m);
	if (r >= 0)
		(void)cgroup_init(m->root); /* off where not writable */
	if (r >= 0 && (r = proc_start(m)) >= 0)
		proc = true;
	if (r >= 0)
		survivors_scan(m); /* before anything is spawned: all it finds is a predecessor's */
	if (r >= 0 && (r = dispatch_start(m)) >= 0)
		restarter = true;
	if (r >= 0)
		r = emi_run(m);
	if (r >= 0 && (r = graph_thread_start(m)) >= 0)
		graph_up = true;
	if (r >= 0 && (r = repo_thread_start(m)) >= 0)
		repo = true;
	if (r >= 0) {
		while (sem_wait(&m->scanned) < 0)
			;
		log_info("restarter of %s ready", m->root);
		(void)sd_notify(0, "READY=1");
		wait_for_stop(mask);
		(void)sd_notify(0, "STOPPING=1");
	}
	if (repo)
		repo_thread_stop(m);
	if (graph_up)
		graph_thread_stop(m);
	if (restarter)
		dispatch_stop(m);
	if (proc)
		proc_stop(m);
	survivors_done();
	cgroup_done();
	if (r < 0)
		return r;
	return repo_lost() ? -EIO : 0;
}

int main(int argc, char *argv[])
{
	startd_t m;
	sigset_t mask;
	int r;

	log_set_program("svc.startd");
	r = daemon_parse_args(&args_spec, argc, argv, &args);
	if (r <= 0)
		return r < 0 ? 2 : 0;
	/* Before block_signals() and any thread: the table is read without a lock. */
	smf_points_init("svc.startd");
	block_signals(&mask);
	startd_init(&m);
	r = run(&m, &mask);
	startd_done(&m);
	smf_trace_close(); /* every thread is gone */
	return r < 0 ? 1 : 0;
}
