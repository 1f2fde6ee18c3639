/*
 * protocol.pml: the import/enable protocol of minismf, as the code implements it, for SPIN.
 *
 * THE MODEL.  One instance I of a service S, one client script, and the daemons' threads that
 * take part in creating I and bringing it online:
 *
 *   Client      the script: a creating command (svccfg import, or svccfg add of I) and, once it
 *               returned, a consuming command (svcadm enable -s I, or svcs reading I's state).
 *   Configd     svc.configd's one thread: every repository call of every process is one request
 *               it serves whole (commit, then reply), then it queues that commit's notifications
 *               on each interested connection, in order, before it serves the next request.
 *   Repo        svc.startd's repository thread: notification in, graph event out.
 *   Graph       svc.startd's graph thread, in bursts: it takes the events queued, handles
 *               them in order (enabled changes, state reports), reads an instance it has no
 *               vertex for at the end of the burst (first sight: insertion, or the restarter
 *               pg of one without general), then decides to start.
 *   Dispatcher  svc.startd's restarter dispatcher: restarter queue to the instance's queue.
 *   Worker      whichever thread holds I's worker bit (the bulk worker, or I's own worker
 *               thread): INSERT (the first restarter pg write), ENABLE, DISABLE, START.
 *   Monitor     checks, once nothing can move any more, that no client saw I without its
 *               restarter pg after its command returned; in guided mode, that the trace was
 *               followed to its end.
 *
 * Every step a process prints ("@@ ...", read back from a trail by model/check.py) is
 * named in model/steps.tsv, which maps it to the source function it abstracts, to the delay
 * point (SMF_POINTS, lib/include/smf/delay.h) that stretches it, and to the trace event that
 * records it: the counter-example becomes an SMF_DELAY schedule through that table, and a
 * recorded trace becomes a sequence of labels (model/labels.py generates labels.pml from it).
 *
 * THE SWITCHES (spin -D...; tools/model.sh sets them; in the guided verifier of trace
 * conformance, GUIDED=1, they are read at run time instead, from $SMF_MODEL_SWITCHES,
 * "import_wait,add_wait,svcadm_wait,configd_eager,client,first_sight,svc_general,detail",
 * which svctrace conform sets from what the trace shows):
 *   FIX_IMPORT_WAIT     svccfg import waits for I's restarter pg (import-wait.c)
 *   FIX_ADD_WAIT        svccfg add of an instance waits the same way (issue 10's add-wait)
 *   FIX_SVCADM_WAIT     svcadm enable -s first waits for the restarter pg (svcadm wait.c
 *                       wait_for_restarter_pgs), then asks for the state as without it
 *   FIX_CONFIGD_EAGER   configd creates I's restarter pg (uninitialized) with I
 *   CLIENT              1 import+enable, 2 add+enable, 3 import+svcs, 4 add+svcs
 *   STARTD_FIRST_SIGHT  1 (default): configd announces instance creation to startd and the graph
 *                       writes the pg of an instance it will not insert (issue 10); 0: before
 *   SVC_GENERAL         1 (default): the import also creates S's own general pg (a manifest with
 *                       <single_instance/>, as every example's), whose notification makes the
 *                       graph re-read I's enabled value once I has a vertex
 *   DETAIL              0 (default, the verification); 1 (trace conformance): what a real run
 *                       adds that changes no answer the verification asks: svcadm -s also reads
 *                       after its 3 s re-check or a notification of another instance; its
 *                       drain() takes only what has arrived; a command that waits for other
 *                       instances too is handed I's notifications meanwhile; configd stops
 *                       notifying svcadm's connection some time after it exited; a service
 *                       that keeps a process gets a write of its pids while its start method
 *                       runs (same state).  Each is a read that asks the same question again,
 *                       a notification taken later or by nobody, or a write of a state already
 *                       written; and a client that may always re-check would turn a deadlock
 *                       into a livelock pan does not report.
 * Compile-time only: MANIFEST_ENABLED (0: general/enabled of the imported manifest, false as in
 * the examples), METHOD_MAY_FAIL (1: the start method may fail, then maintenance), MUTANT (0;
 * 1, 2: a deliberate bug, for the test) and the queue bounds.
 *
 * GUIDED=1: trace conformance.  The verifier reads the switches and a trace, as labels
 * ($SMF_MODEL_TRACE, comma-separated), from the environment (svctrace conform sets both).
 * Every step that leaves a trace event is taken only when the trace's next label is its own,
 * and then consumes it; steps that leave none (a configd read, a graph event taken) interleave
 * freely.  Monitor asserts "gpos != g_len" once every label was consumed, so pan reporting that
 * assertion means a run of the model records exactly the trace (a prefix of a run: the trace
 * may stop anywhere).  Properties do not apply there (pan -E, no property assertion, a full
 * queue only blocks): the question is only whether the model can do what the trace shows.
 *
 * PROPERTIES.  (1) Monitor: a consuming command never read I's restarter pg absent (svcadm
 * without FIX_SVCADM_WAIT reports "misconfigured"; svcs shows no state) - an assertion.
 * (2) svcadm enable -s ends with I online, or in maintenance when the method failed - an
 * assertion at its end.  (3) It ends at all, and nothing deadlocks: every process is blocked
 * only at an end label when nothing can move (pan's invalid end states).  Every run is finite
 * (every loop consumes a message of a bounded supply; tools/model.sh --cycles finds no cycle),
 * so (3) needs no liveness search.  Each send asserts that its queue has room: a bound too
 * small cannot hide an error, it is one.
 */

/* ---- switches (initial values; see above) ---- */
#ifndef FIX_IMPORT_WAIT
#define FIX_IMPORT_WAIT 0
#endif
#ifndef FIX_ADD_WAIT
#define FIX_ADD_WAIT 0
#endif
#ifndef FIX_SVCADM_WAIT
#define FIX_SVCADM_WAIT 0
#endif
#ifndef FIX_CONFIGD_EAGER
#define FIX_CONFIGD_EAGER 0
#endif
#ifndef STARTD_FIRST_SIGHT
#define STARTD_FIRST_SIGHT 1
#endif
#ifndef CLIENT
#define CLIENT 1
#endif
#ifndef SVC_GENERAL
#define SVC_GENERAL 1
#endif
#ifndef DETAIL
#define DETAIL 0
#endif
#ifndef MANIFEST_ENABLED
#define MANIFEST_ENABLED 0
#endif
#ifndef METHOD_MAY_FAIL
#define METHOD_MAY_FAIL 1
#endif
/*
 * MUTANT: deliberate bugs, so a test can show that properties (2) and (3) can fail at all:
 * 1 the worker records a successful start as maintenance (2 must fail), 2 the graph never
 * queues START (3 must fail: enable -s waits forever).  0, the default, is the code.
 */
#ifndef MUTANT
#define MUTANT 0
#endif

#ifndef GUIDED
#define GUIDED 0
#endif

/* The switches' positions in $SMF_MODEL_SWITCHES (svctrace conform reads them from here). */
#define SW_IMPORT_WAIT 0
#define SW_ADD_WAIT 1
#define SW_SVCADM_WAIT 2
#define SW_CONFIGD_EAGER 3
#define SW_CLIENT 4
#define SW_FIRST_SIGHT 5
#define SW_SVC_GENERAL 6
#define SW_DETAIL 7
#define SW_COUNT 8
/* The most labels a guided run follows. */
#define GMAX 4096

/*
 * sw_*: the switches as the code reads them.  In a verifier, constants (a guard on a constant
 * costs next to nothing); in the guided one, hidden globals its init sets from the environment
 * (not part of the state: they never change during a search).
 */
#if GUIDED
hidden byte sw_import_wait, sw_add_wait, sw_svcadm_wait, sw_configd_eager, sw_client;
hidden byte sw_first_sight, sw_svc_general, sw_detail;
hidden short g_trace[GMAX];
hidden short g_len;
#else
#define sw_configd_eager (FIX_CONFIGD_EAGER)
#define sw_first_sight (STARTD_FIRST_SIGHT)
#define sw_svc_general (SVC_GENERAL)
#define sw_detail (DETAIL)
#endif

#define C_IMPORT_ENABLE 1
#define C_ADD_ENABLE 2
#define C_IMPORT_SVCS 3
#define C_ADD_SVCS 4
/*
 * What the client does, from the switches: folded by the preprocessor in a verifier, so a
 * switch that changes nothing for a client (add-wait for an import) leaves the verifier the
 * same, and model/check.py searches it once.
 */
#if GUIDED
#define CREATES_BY_IMPORT (sw_client == C_IMPORT_ENABLE || sw_client == C_IMPORT_SVCS)
#define CONSUMES_BY_ENABLE (sw_client == C_IMPORT_ENABLE || sw_client == C_ADD_ENABLE)
#define CREATOR_WAITS (CREATES_BY_IMPORT -> sw_import_wait : sw_add_wait)
#define ENABLER_WAITS (CONSUMES_BY_ENABLE && sw_svcadm_wait)
#else
#if CLIENT == C_IMPORT_ENABLE || CLIENT == C_IMPORT_SVCS
#define CREATES_BY_IMPORT 1
#define CREATOR_WAITS (FIX_IMPORT_WAIT)
#else
#define CREATES_BY_IMPORT 0
#define CREATOR_WAITS (FIX_ADD_WAIT)
#endif
#if CLIENT == C_IMPORT_ENABLE || CLIENT == C_ADD_ENABLE
#define CONSUMES_BY_ENABLE 1
#define ENABLER_WAITS (FIX_SVCADM_WAIT)
#else
#define CONSUMES_BY_ENABLE 0
#define ENABLER_WAITS 0
#endif
#endif

/* ---- vocabulary (restarter.h's states; 0 also means "no restarter pg") ---- */
#define S_NONE 0
#define S_UNINIT 1
#define S_OFFLINE 2
#define S_ONLINE 3
#define S_DISABLED 4
#define S_MAINT 5

#define E_ABSENT 0 /* general/enabled */
#define E_FALSE 1
#define E_TRUE 2

/* Requests to configd (op); the callers, one connection each (who). */
#define OP_IMPORT 1          /* Batch: S, I, general/enabled, snapshots, refresh */
#define OP_ADD_INSTANCE 2    /* AddInstance */
#define OP_NOTIFY_RPG 3      /* NotifyAddPgName restarter */
#define OP_NOTIFY_RESET 4    /* NotifyReset */
#define OP_READ_RPG 5        /* GetPg restarter: answers the state, S_NONE when absent */
#define OP_ADD_GENERAL 6     /* AddPg general: 1 created, 0 existed (EXISTS: nothing committed) */
#define OP_SET_ENABLED 7     /* Commit general/enabled=true */
#define OP_LIST_PGS 8        /* ListPgs of I (its own pgs): LISTED_GENERAL | LISTED_RPG */
#define OP_READ_ENABLED 9    /* general_ovr/enabled, else general/enabled composed: E_* */
#define OP_WRITE_RPG_FIRST 10 /* Batch: restarter pg created with state=arg */
#define OP_WRITE_RPG 11      /* Batch: restarter pg state=arg (later writes) */

/* What OP_LIST_PGS answers: which of I's own pgs exist. */
#define LISTED_GENERAL 1
#define LISTED_RPG 2

#define W_CMD1 0   /* svccfg's connection */
#define W_CMD2 1   /* svcadm's or svcs' connection */
#define W_GRAPH 2  /* the graph thread's handle */
#define W_WORKER 3 /* I's worker's handle */

/* Notifications. */
#define N_GENERAL 1    /* PgChanged of I's general (type framework) */
#define N_ADDED 2      /* InstanceAdded of I (STARTD_FIRST_SIGHT) */
#define N_RESTARTER 3  /* PgChanged of I's restarter pg */
#define N_SVCGENERAL 4 /* PgChanged of S's general (an import with SVC_GENERAL) */

/* Graph events, restarter events (startd.h). */
#define GE_PG 1
#define GE_ADDED 2
#define GE_STATE 3
#define GE_SVC 4
#define RE_INSERT 1
#define RE_ENABLE 2
#define RE_DISABLE 3
#define RE_START 4

/*
 * Queue bounds: the most messages each holds in any run of the model (docs/model.md,
 * "Bounds"); every send asserts nfull() first, so a bound one too small is an error.
 */
#ifndef NQ_STARTD
#define NQ_STARTD 4
#endif
#ifndef NQ_CMD
#define NQ_CMD 5
#endif
#ifndef GRAPH_Q
#define GRAPH_Q 5
#endif
#ifndef RESTARTER_Q
#define RESTARTER_Q 3
#endif

/*
 * The labels (model/labels.py writes labels.pml from model/steps.tsv): L_<step key> for each
 * step that leaves a trace event, LBL_SERVE(who, op) and LBL_ANSWER(who, op) for configd
 * calls recorded at the commit (configd.write) or at the answer (the caller's scf.* event),
 * 0 for a call recorded by neither.
 */
#include "labels.pml"

/* ---- guided mode ---- */
#if GUIDED
short gpos; /* labels of the trace consumed so far */
/* A step recorded as label l with value v may be taken now: the trace's next label is its. */
#define MATCH(l, v) (gpos < g_len && g_trace[gpos] == (l) * 16 + (v))
#define TAKE gpos++
/* A queue is full: the run cannot go on (a verifier asserts; see ROOM below). */
#define ROOM(q) skip
#else
#define MATCH(l, v) 1
#define TAKE skip
/* A queue has room: asserted, so a bound too small is an error, not a silent block. */
#define ROOM(q) assert(nfull(q))
#endif
/* As a statement: wait for the label, consume it (nothing in a verifier). */
#define OBS(l, v) MATCH(l, v) -> TAKE

/* ---- the repository (configd's database), only I's part of it ---- */
bit inst;          /* I exists */
bit gen;           /* I has its own general pg */
byte gen_enabled;      /* general/enabled: E_* */
byte rpg;          /* restarter/state, S_NONE when the pg does not exist */
bit interest[2];   /* the clients' connections registered for pgs named restarter */
byte commits;      /* configd's commit ids (H10-trace's causality: notifications carry them) */

/* ---- what the properties read ---- */
bit returned;      /* the creating command returned */
bit consumed;      /* the consuming command exited (its connection closes) */
bit seen_absent;   /* a consuming command acted on I's restarter pg being absent */
bit method_failed; /* the start method failed (nondeterministic) */

/* What the graph's first sight found, passed with RE_INSERT (startd.h RE_INSERT_FRESH): I had
 * no restarter pg, so its INSERT writes one without reading first. */
bit ins_fresh;

chan req = [0] of { byte, byte, byte };       /* op, who, arg: configd serves one at a time */
chan rep[4] = [1] of { byte };                /* each caller's reply */
chan nq_startd = [NQ_STARTD] of { byte, byte }; /* startd's repository connection: kind, cid */
chan nq_cmd[2] = [NQ_CMD] of { byte };        /* the clients' connections */
chan graph_q = [GRAPH_Q] of { byte, byte, byte }; /* type, arg, cid */
chan restarter_q = [RESTARTER_Q] of { byte, byte }; /* type, cid */
chan inst_q = [RESTARTER_Q] of { byte, byte };

/* What a read answer records: found or not (scf.read: a generation, or absent). */
#define FOUND(op, res) ((op) == OP_READ_RPG -> ((res) != S_NONE) : 0)

/*
 * A libscf call: one request, its reply (lib/client: every call is one D-Bus round trip).  A
 * read is recorded by the caller when the answer came (scf.read), so its label is taken with
 * the reply; a commit is recorded by configd (configd.write), in Configd.
 */
inline call(who, op, arg, res)
{
	req!op, who, arg;
#if GUIDED
	atomic {
		rep[who]?res;
		if
		:: LBL_ANSWER(who, op) -> OBS(LBL_ANSWER(who, op), FOUND(op, res))
		:: else
		fi
	}
#else
	rep[who]?res
#endif
}

#define PENDING (n_added || n_svcgen || n_general || n_cmd1 || n_cmd2)

/* Configd, after a notification: back to the requests once none is left to send. */
inline sent()
{
	if
	:: !PENDING -> break
	:: else
	fi
}

/*
 * svc.configd (configd/server.c, methods*.c, notify.c).  The request is served whole, in one
 * step: commit and reply (methods-batch.c method_batch: commit, trace, reply, then notify).
 * Then one step per notification, in order (notify.c notify_all -> notify_send, each after the
 * point configd.notify.before_send): InstanceAdded first, then the pgs in the order the batch
 * first touched them (the service's before the instance's); no other request is served in
 * between.  startd's own restarter pg notifications are left out: repo.c forward() drops them
 * unread.
 */
proctype Configd()
{
	byte op, who, arg, res, cid;
	bit n_added, n_svcgen, n_general, n_cmd1, n_cmd2; /* notifications still to send */

end_idle:
	do
	:: atomic {
		req?op, who, arg ->
#if GUIDED
		/* a commit is taken when the trace's next event is its configd.write */
		if
		:: LBL_SERVE(who, op) && !(op == OP_ADD_GENERAL && gen) ->
			OBS(LBL_SERVE(who, op), 0)
		:: else
		fi;
#endif
		res = 0;
		cid = 0;
		if
		:: op == OP_IMPORT ->
			/* backend-batch.c: one transaction for the whole manifest */
			commits++;
			cid = commits;
			inst = 1;
			gen = 1;
#if GUIDED
			/* the trace does not record the manifest's value: either */
			if
			:: gen_enabled = E_TRUE
			:: gen_enabled = E_FALSE
			fi;
#else
			gen_enabled = (MANIFEST_ENABLED -> E_TRUE : E_FALSE);
#endif
			if
			:: sw_configd_eager ->
				rpg = S_UNINIT; /* nobody is interested yet: the client registers later */
			:: else
			fi;
			n_added = sw_first_sight;
			n_svcgen = sw_svc_general;
			n_general = 1
		:: op == OP_ADD_INSTANCE ->
			/* methods-entity.c add_entity */
			commits++;
			cid = commits;
			inst = 1;
			if
			:: sw_configd_eager -> rpg = S_UNINIT
			:: else
			fi;
			n_added = sw_first_sight
		:: op == OP_NOTIFY_RPG ->
			interest[who] = 1
		:: op == OP_NOTIFY_RESET ->
			interest[who] = 0
		:: op == OP_READ_RPG ->
			res = rpg
		:: op == OP_ADD_GENERAL ->
			/* methods-pg.c method_add_pg: the creation of an empty pg is notified */
			if
			:: gen ->
				res = 0
			:: else ->
				commits++;
				cid = commits;
				gen = 1;
				res = 1;
				n_general = 1
			fi
		:: op == OP_SET_ENABLED ->
			/* methods-pg.c method_commit */
			assert(gen);
			commits++;
			cid = commits;
			gen_enabled = E_TRUE;
			n_general = 1
		:: op == OP_LIST_PGS ->
			res = (gen -> LISTED_GENERAL : 0) + (rpg != S_NONE -> LISTED_RPG : 0)
		:: op == OP_READ_ENABLED ->
			res = gen_enabled
		:: op == OP_WRITE_RPG_FIRST || op == OP_WRITE_RPG ->
			commits++;
			cid = commits;
			rpg = arg;
			n_cmd1 = interest[W_CMD1];
			n_cmd2 = interest[W_CMD2]
		fi;
		printf("@@ call %d %d %d %d %d\n", who, op, arg, res, cid);
		rep[who]!res;
		if
		:: PENDING
		:: else -> goto end_idle /* nothing to notify: the next request */
		fi
	   };
	   /*
	    * This commit's notifications, one step each, in notify_all()'s order; no request is
	    * taken until they are out.  A full queue fails the assertion rather than block.
	    */
	   do
	   :: atomic {
		n_added && MATCH(L_SEND_STARTD_ADDED, 0) ->
		TAKE;
		n_added = 0;
		ROOM(nq_startd);
		printf("@@ send startd %d %d\n", N_ADDED, cid);
		nq_startd!N_ADDED, cid;
		sent()
	      }
	   :: atomic {
		!n_added && n_svcgen && MATCH(L_SEND_STARTD_SVC_GENERAL, 0) ->
		TAKE;
		n_svcgen = 0;
		ROOM(nq_startd);
		printf("@@ send startd %d %d\n", N_SVCGENERAL, cid);
		nq_startd!N_SVCGENERAL, cid;
		sent()
	      }
	   :: atomic {
		!n_added && !n_svcgen && n_general && MATCH(L_SEND_STARTD_GENERAL, 0) ->
		TAKE;
		n_general = 0;
		ROOM(nq_startd);
		printf("@@ send startd %d %d\n", N_GENERAL, cid);
		nq_startd!N_GENERAL, cid;
		sent()
	      }
	   :: atomic {
		!n_added && !n_svcgen && !n_general && n_cmd1 && MATCH(L_SEND_CMD1_RESTARTER, 0) ->
		TAKE;
		n_cmd1 = 0;
		ROOM(nq_cmd[W_CMD1]);
		printf("@@ send cmd1 %d %d\n", N_RESTARTER, cid);
		nq_cmd[W_CMD1]!N_RESTARTER;
		sent()
	      }
	   :: atomic {
		!n_added && !n_svcgen && !n_general && !n_cmd1 && n_cmd2 &&
		MATCH(L_SEND_CMD2_RESTARTER, 0) ->
		TAKE;
		n_cmd2 = 0;
		ROOM(nq_cmd[W_CMD2]);
		printf("@@ send cmd2 %d %d\n", N_RESTARTER, cid);
		nq_cmd[W_CMD2]!N_RESTARTER;
		sent()
	      }
	   od
	:: atomic {
		/*
		 * The consuming command exited holding its interest (svcadm -s never drops it):
		 * its connection closes, and configd stops notifying it when it next looks at the
		 * socket (server.c: a closed connection is freed; notify_all skips it), so at some
		 * point after the exit, not at once.
		 */
		sw_detail && consumed && interest[W_CMD2] ->
		interest[W_CMD2] = 0;
		printf("@@ step configd.closed 0 0\n")
	   }
	od
}

/*
 * startd/repo.c repo_main -> drain -> forward: a notification read (startd.notify_received is
 * traced), the point startd.repo.notify_received, then a graph event.  One step when verifying:
 * a notification read and not yet forwarded is, to every other process, one not yet read.  In
 * the guided verifier two, as the trace records them: the event comes before the point, the
 * graph event after it.
 */
inline forward()
{
	printf("@@ step repo.forward %d %d\n", kind, cid);
	ROOM(graph_q);
	if
	:: kind == N_ADDED -> graph_q!GE_ADDED, 0, cid
	:: kind == N_SVCGENERAL -> graph_q!GE_SVC, 0, cid
	:: else -> graph_q!GE_PG, 0, cid
	fi
}

proctype Repo()
{
	byte kind, cid;

end_idle:
	do
	:: atomic {
		nq_startd?kind, cid ->
		OBS(L_STEP_REPO_FORWARD, kind);
#if GUIDED
	   };
	   atomic {
#endif
		forward()
	   }
	od
}

/*
 * graph.c graph_evaluate, when the burst asked for it (a state report, a pg of S):
 * graph_defer_end.  Then nothing of the burst is kept: its locals are cleared.
 */
inline evaluate()
{
	if
	:: eval_due && v_enabled && v_state == S_OFFLINE && !start_pending && MUTANT != 2 ->
		start_pending = 1;
		printf("@@ step graph.start %d %d\n", 0, cid);
		ROOM(restarter_q);
		restarter_q!RE_START, cid
	:: else
	fi;
	eval_due = 0;
	type = 0;
	arg = 0;
	cid = 0;
	r = 0
}

/* The next event of a burst, taken and handled as far as it reads nothing. */
inline take_one()
{
	graph_q?type, arg, cid;
	printf("@@ step graph.take %d %d %d\n", type, arg, cid);
	if
	:: type == GE_STATE ->
		/* state_event -> graph_set_state; evaluated at the burst's end */
		assert(vtx);
		v_state = arg;
		start_pending = 0;
		eval_due = 1
	:: (type == GE_ADDED || type == GE_PG) && !vtx ->
		/* sight(): I's first sight is due at the burst's end, under the cause of the
		 * event that named it first; pg_event of an instance due: nothing more */
		if
		:: !due ->
			due = 1;
			due_cid = cid
		:: else
		fi
	:: type == GE_SVC && vtx ->
		eval_due = 1 /* service_pg_changed: refresh_enabled of I's vertex, evaluate */
	:: else
		/* GE_SVC with no vertex of S: an evaluation of nothing; GE_ADDED of a vertex:
		 * seen already; GE_PG of a vertex: refresh_enabled */
	fi
}

/*
 * startd/graph-thread.c graph_main: one burst at a time.  The graph takes every event queued (up to
 * GRAPH_BURST_MAX: here any prefix of the queue, as other instances' events may fill the
 * rest), handles them in order, reads the instances it has no vertex for at the burst's end
 * (flush_due: first sight), then evaluates once (graph_defer_end).
 *
 * Before I has a vertex no event of a burst reads anything (each only notes I's first sight),
 * so the burst is taken in one step, then the first sight reads.  Once I has a vertex, the
 * model takes one event per burst: the events of a real burst are handled in the same order,
 * with the same reads, and only the evaluation (START) comes earlier, right after the state
 * report, instead of after the reads of the burst's later events.  Nothing the graph decides
 * differs: I's enabled value only ever turns true in these scripts, and I is offline only
 * after its ENABLE, so no later event of the burst changes it; the trace sees the START only
 * through the dispatcher, which may queue it at any time after.  That superset costs nothing;
 * counting the events of a burst (2.4 times the states) bought nothing.
 *
 * The graph thread's local vertex of I: graph.h vertex_t.
 */
proctype Graph()
{
	byte type, arg, cid, r, l, nb, due_cid;
	bit vtx, v_enabled, start_pending, due, eval_due;
	byte v_state;

end_idle:
	do
	:: atomic {
		!vtx && nempty(graph_q) ->
		nb = 1;
		do
		:: nb < len(graph_q) -> nb++
		:: break
		od;
		do
		:: nb > 0 ->
			take_one();
			nb--
		:: else -> break
		od;
		type = 0;
		arg = 0;
		cid = 0;
		if
		:: due -> printf("@@ step graph.sight 0 %d\n", due_cid)
		:: else -> goto end_idle
		fi
	   };
		/*
		 * flush_due -> graph_read_burst: one read of I's own pgs (the burst's first bulk
		 * read, or first_sight()'s list).  With a general pg: its reads (the second bulk
		 * read, or prepare(): general composed; general_ovr and restarter_actions absent;
		 * the running snapshot's dependency pgs: none), then
		 * announce(): the point startd.graph.before_insert, RE_INSERT with what the list
		 * found (RE_INSERT_FRESH: no restarter pg), RE_ENABLE or RE_DISABLE.  Without general
		 * (STARTD_FIRST_SIGHT): the restarter pg, uninitialized, if it has none, written
		 * here (its point: steps.tsv, call.graph.write_rpg_first).  The evaluation then
		 * finds I uninitialized: nothing to start.
		 */
		call(W_GRAPH, OP_LIST_PGS, 0, l);
		if
		:: l & LISTED_GENERAL ->
			call(W_GRAPH, OP_READ_ENABLED, 0, r);
			atomic {
				OBS(L_STEP_GRAPH_INSERT, 0);
				vtx = 1;
				v_enabled = (r == E_TRUE);
				ins_fresh = !(l & LISTED_RPG);
				printf("@@ step graph.insert %d %d\n", v_enabled, due_cid);
				ROOM(restarter_q);
				restarter_q!RE_INSERT, due_cid;
				ROOM(restarter_q);
				restarter_q!(v_enabled -> RE_ENABLE : RE_DISABLE), due_cid;
				due = 0;
				due_cid = 0;
				l = 0;
				r = 0
			}
		:: atomic {
			!(l & LISTED_GENERAL) && !(l & LISTED_RPG) && sw_first_sight ->
			l = 0
		   };
			call(W_GRAPH, OP_WRITE_RPG_FIRST, S_UNINIT, r);
			atomic {
				due = 0;
				due_cid = 0;
				r = 0
			}
		:: atomic {
			else ->
			/* a restarter pg already (configd-eager's, or the graph's own at an
			 * earlier sight); before issue 10, no general: nothing */
			due = 0;
			due_cid = 0;
			l = 0
		   }
		fi
	:: atomic {
		vtx && nempty(graph_q) ->
		take_one();
		if
		:: type == GE_PG || type == GE_SVC
		:: else ->
			evaluate();
			goto end_idle
		fi
	   };
		/*
		 * graph-thread.c refresh_enabled (pg_event of I's general; service_pg_changed of S's, for
		 * I's vertex): read_enabled() reads general composed, then general_ovr (none in
		 * these scripts); a change goes to the restarter (graph_send_enabled; being enabled
		 * first re-reads the dependencies, deps_changed: a list, none).
		 */
		call(W_GRAPH, OP_READ_ENABLED, 0, r);
		atomic {
			if
			:: (r == E_TRUE) != v_enabled ->
				v_enabled = (r == E_TRUE);
				printf("@@ step graph.enabled %d %d\n", v_enabled, cid);
				ROOM(restarter_q);
				restarter_q!(v_enabled -> RE_ENABLE : RE_DISABLE), cid
			:: else
			fi;
			evaluate()
		}
	od
}

/*
 * startd/dispatch.c dispatch_main -> dispatch -> inst_enqueue: the point
 * startd.restarter.before_enqueue, then the instance's queue.  The worker is one process
 * waiting on that queue: worker.c starts it on demand and lets it retire after 3 s idle,
 * which changes when events are taken, never their order or who takes them.
 */
proctype Dispatcher()
{
	byte type, cid;

end_idle:
	do
	:: atomic {
		restarter_q?type, cid ->
		OBS(L_STEP_DISPATCH, type);
		printf("@@ step dispatch %d %d\n", type, cid);
		ROOM(inst_q);
		inst_q!type, cid
	   }
	od
}

/* fsm.c commit with next_state none: the state goes to the graph (a report action). */
inline report()
{
	ROOM(graph_q);
	graph_q!GE_STATE, st, cid
}

/* startd/worker.c worker_main -> act.c act_event (fsm.c decides), one event at a time. */
proctype Worker()
{
	byte type, cid, r;
	byte st = S_UNINIT; /* instance_t.state */
	bit inserted;

end_idle:
	do
	:: atomic {
		inst_q?type, cid ->
		OBS(L_STEP_WORKER_TAKE, type);
		printf("@@ step worker.take %d %d\n", type, cid)
	   };
		/* the point startd.worker.after_dequeue */
		if
		:: type != RE_INSERT && !inserted ->
			skip /* fsm_step: not inserted yet */
		:: type == RE_INSERT ->
			/*
			 * fsm.c on_insert: the graph saw no restarter pg (RE_INSERT_FRESH):
			 * nobody but this INSERT writes one, nothing to read; else it is read.  A
			 * fresh insert of an instance with its running snapshot (an import's) is
			 * the bulk worker's, which writes it in its round's batch; either way one
			 * commit of I's pg, after the point startd.restarter.before_pg_write.
			 */
			if
			:: atomic {
				ins_fresh ->
				ins_fresh = 0;
				r = S_NONE
			   }
			:: else ->
				call(W_WORKER, OP_READ_RPG, 0, r)
			fi;
			if
			:: r != S_NONE ->
				/* recover(): an uninitialized pg (configd-eager, first sight) */
				st = r;
				report()
			:: else ->
				/* the point startd.restarter.before_pg_write; RACE WINDOW ENDS */
				st = S_UNINIT;
				call(W_WORKER, OP_WRITE_RPG_FIRST, S_UNINIT, r);
				report()
			fi;
			/* take_running_snapshot: a write that notifies nobody (svccfg add's instance
			 * has none yet; an import took it) */
			inserted = 1
		:: type == RE_ENABLE && inserted ->
			/* handle_enable */
			if
			:: st == S_UNINIT || st == S_DISABLED ->
				st = S_OFFLINE;
				call(W_WORKER, OP_WRITE_RPG, S_OFFLINE, r)
			:: else
			fi;
			report()
		:: type == RE_DISABLE && inserted ->
			/* handle_disable -> stop_instance: never up here, so no stop method */
			assert(st != S_ONLINE);
			if
			:: st != S_DISABLED ->
				st = S_DISABLED;
				call(W_WORKER, OP_WRITE_RPG, S_DISABLED, r)
			:: else
			fi;
			report()
		:: type == RE_START && inserted ->
			/* handle_start: next_state=online, the method, the state */
			if
			:: st == S_OFFLINE ->
				call(W_WORKER, OP_WRITE_RPG, S_OFFLINE, r);
				/* the point startd.method.before_start; method.c method_run; (DETAIL) a
				 * process that stays: instance_note_pids() writes its pids */
				if
				:: sw_detail -> call(W_WORKER, OP_WRITE_RPG, S_OFFLINE, r)
				:: skip
				fi;
				if
				:: atomic {
					OBS(L_STEP_WORKER_METHOD, 1);
					st = (MUTANT == 1 -> S_MAINT : S_ONLINE);
					printf("@@ step worker.method 1 %d\n", cid)
				   }
#if METHOD_MAY_FAIL
				:: atomic {
					/* exit 95, or 3 failed attempts: maintenance */
					OBS(L_STEP_WORKER_METHOD, 0);
					st = S_MAINT;
					method_failed = 1;
					printf("@@ step worker.method 0 %d\n", cid)
				   }
#endif
				fi;
				call(W_WORKER, OP_WRITE_RPG, st, r)
			:: else
			fi;
			report()
		fi
	od
}

/* A notification of I's restarter pg handed to the client (scf.notify_received). */
inline notified(who)
{
	atomic {
		nq_cmd[who]?n;
		OBS((who == W_CMD1 -> L_RECV_CMD1_RESTARTER : L_RECV_CMD2_RESTARTER), 0);
		printf("@@ recv %d 0 0\n", who)
	}
}

/*
 * libscf's smf_instance_wait_restarter() (lib/client/wait.c): the wait of svccfg import
 * (import-wait.c), of svccfg add with add-wait, and of svcadm -s with svcadm-wait: register
 * for restarter pgs, THEN read (ask_all: one bulk read of every instance waited for, I's
 * restarter pg among them), then re-read on each notification of I's restarter pg until it
 * has a state (re-check interval 0: only a notification naming I makes it read again; the
 * notifications queued behind it are taken first, and one read answers them all).
 * svccfg drops the interest afterwards (scf_notify_reset); svcadm keeps it for its own wait.
 * The skips (no restarter attached, EMI pending) do not apply: startd runs, and no EMI.  No
 * deadline: a wait that never ends is reported as an invalid end state.
 */
inline wait_restarter(who, reset)
{
	call(who, OP_NOTIFY_RPG, 0, r);
	call(who, OP_READ_RPG, 0, r);
	do
	:: r != S_NONE ->
		break
	:: else ->
		/* ask_named: this notification and those queued behind it (drained: all that
		 * arrived; DETAIL: what has arrived may be less than configd sent), then one read */
		notified(who);
		do
		:: notified(who)
		:: empty(nq_cmd[who]) -> break
		:: sw_detail -> break
		od;
		call(who, OP_READ_RPG, 0, r)
	od;
	/* (DETAIL) a command that waits for other instances too is handed I's notifications
	 * meanwhile, and reads nothing for them (ask_named: I is done) */
	do
	:: sw_detail -> notified(who)
	:: break
	od;
	if
	:: reset -> call(who, OP_NOTIFY_RESET, 0, r)
	:: else
	fi
}

proctype Client()
{
	byte r, n;

	/* ---- the creating command ---- */
	if
	:: CREATES_BY_IMPORT ->
		/* cli/svccfg/import.c import_one -> build_and_commit: one batch (refresh included) */
		call(W_CMD1, OP_IMPORT, 0, r)
	:: else ->
		/* cli/svccfg/entities.c cmd_add -> scf_instance_add */
		call(W_CMD1, OP_ADD_INSTANCE, 0, r)
	fi;
	/* import-wait, add-wait */
	if
	:: CREATOR_WAITS -> wait_restarter(W_CMD1, 1)
	:: else
	fi;
	atomic {
		OBS(L_STEP_CLIENT_RETURNED, 0);
		returned = 1;
		printf("@@ step client.returned 0 0\n")
	};

	/* ---- the consuming command ---- */
	if
	:: CONSUMES_BY_ENABLE ->
		/* cli/svcadm/commands.c enable_disable: the interest before any write */
		call(W_CMD2, OP_NOTIFY_RPG, 0, r);
		/* actions.c action_set_enabled: pg_get_or_add(general) is one AddPg (EXISTS when
		 * the pg is there), then the transaction (its read of general changes nothing);
		 * the general_ovr/enabled deletion finds no general_ovr and changes nothing */
		call(W_CMD2, OP_ADD_GENERAL, 0, r);
		call(W_CMD2, OP_SET_ENABLED, 0, r);
		/* wait.c wait_for_states: with svcadm-wait, wait_for_restarter_pgs() first */
		if
		:: ENABLER_WAITS -> wait_restarter(W_CMD2, 0)
		:: else
		fi;
		/* scf_restarter_wait (ask, then wait on a notification or the 3 s re-check, drain,
		 * ask) -> reached -> state.c state_read */
		call(W_CMD2, OP_READ_RPG, 0, r);
		do
		:: r == S_NONE ->
			/* "is misconfigured (lacks "restarter" property group)", exit 3 */
			atomic {
				OBS(L_STEP_CLIENT_ABSENT, 3);
				seen_absent = 1;
				consumed = 1;
				printf("@@ step client.absent 0 0\n")
			};
			goto done
		:: r == S_ONLINE ->
			break
		:: r == S_MAINT ->
			break /* "is in maintenance state", exit 3 */
		:: r != S_NONE && r != S_ONLINE && r != S_MAINT ->
			/* scf_notify_wait: a notification, or (DETAIL) the re-check interval or a
			 * notification of another instance; then drain() takes what has arrived, which
			 * may be less than configd has sent */
			if
			:: notified(W_CMD2)
			:: sw_detail -> skip
			fi;
			do
			:: notified(W_CMD2)
			:: empty(nq_cmd[W_CMD2]) -> break
			:: sw_detail -> break
			od;
			call(W_CMD2, OP_READ_RPG, 0, r)
		od;
		/* property (2): online unless the method failed */
#if !GUIDED
		assert(r == S_ONLINE || (r == S_MAINT && method_failed));
#endif
		atomic {
			OBS(L_STEP_CLIENT_DONE, (r == S_ONLINE -> 0 : 3));
			consumed = 1;
			printf("@@ step client.done %d 0\n", r)
		}
	:: else ->
		/* cli/svcs/load.c load_restarter: one read */
		call(W_CMD2, OP_READ_RPG, 0, r);
		if
		:: r == S_NONE ->
			atomic {
				OBS(L_STEP_CLIENT_ABSENT, 0);
				seen_absent = 1;
				consumed = 1;
				printf("@@ step client.absent 0 0\n")
			}
		:: else ->
			atomic {
				OBS(L_STEP_CLIENT_DONE, 0);
				consumed = 1;
				printf("@@ step client.done %d 0\n", r)
			}
		fi
	fi;
done:
	skip
}

/*
 * Property (1), checked once nothing can move: the trail then shows the whole run.  Guided:
 * the assertion that fails exactly when every label of the trace was consumed.
 */
proctype Monitor()
{
#if GUIDED
	atomic { gpos == g_len -> assert(gpos != g_len) }
#else
	timeout ->
	assert(!seen_absent)
#endif
}

init
{
#if GUIDED
	/*
	 * The switches and the trace, from the environment.  A malformed variable stops the
	 * verifier: a check that read half its input must not answer.
	 */
	c_code {
		const char *s = getenv("SMF_MODEL_SWITCHES");
		char *e;
		long v[SW_COUNT];
		int k;

		for (k = 0; s && *s && k < SW_COUNT; k++) {
			v[k] = strtol(s, &e, 10);
			if (e == s || (*e && *e != ',')) break;
			s = *e ? e + 1 : e;
		}
		if (k != SW_COUNT || (s && *s)) {
			fprintf(stderr, "pan: SMF_MODEL_SWITCHES: not %d numbers\n", SW_COUNT);
			exit(2);
		}
		sw_import_wait = v[SW_IMPORT_WAIT];
		sw_add_wait = v[SW_ADD_WAIT];
		sw_svcadm_wait = v[SW_SVCADM_WAIT];
		sw_configd_eager = v[SW_CONFIGD_EAGER];
		sw_client = v[SW_CLIENT];
		sw_first_sight = v[SW_FIRST_SIGHT];
		sw_svc_general = v[SW_SVC_GENERAL];
		sw_detail = v[SW_DETAIL];
		s = getenv("SMF_MODEL_TRACE");
		if (!s) {
			fprintf(stderr, "pan: SMF_MODEL_TRACE: not set\n");
			exit(2);
		}
		for (g_len = 0; *s; g_len++) {
			if (g_len == GMAX) {
				fprintf(stderr, "pan: SMF_MODEL_TRACE: more than %d labels\n", GMAX);
				exit(2);
			}
			g_trace[g_len] = (short)strtol(s, &e, 10);
			if (e == s || (*e && *e != ',')) {
				fprintf(stderr, "pan: SMF_MODEL_TRACE: not a list of numbers\n");
				exit(2);
			}
			s = *e ? e + 1 : e;
		}
	};
#endif
	atomic {
		run Configd();
		run Repo();
		run Graph();
		run Dispatcher();
		run Worker();
		run Client();
		run Monitor()
	}
}
