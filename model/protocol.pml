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
 *   Graph       svc.startd's graph thread: first sight and insertion, enabled changes, state
 *               reports, the decision to start.
 *   Dispatcher  svc.startd's restarter dispatcher: restarter queue to the instance's queue.
 *   Worker      I's worker: INSERT (the first restarter pg write), ENABLE, DISABLE, START.
 *   Monitor     checks, once nothing can move any more, that no client saw I without its
 *               restarter pg after its command returned.
 *
 * Every step a process prints ("@@ ...", read back from a trail by model/check.py) is
 * named in model/steps.tsv, which maps it to the source function it abstracts and to the delay
 * point (SMF_POINTS, lib/include/smf/delay.h) that stretches it: the counter-example becomes an
 * SMF_DELAY schedule through that table.
 *
 * THE SWITCHES (spin -D...; tools/model.sh sets them):
 *   FIX_IMPORT_WAIT     svccfg import waits for I's restarter pg (import-wait.c)
 *   FIX_ADD_WAIT        svccfg add of an instance waits the same way (issue 10's add-wait)
 *   FIX_SVCADM_WAIT     svcadm enable -s waits for a missing restarter pg instead of failing
 *   FIX_CONFIGD_EAGER   configd creates I's restarter pg (uninitialized) with I
 *   STARTD_FIRST_SIGHT  1 (default): configd announces instance creation to startd and the graph
 *                       writes the pg of an instance it will not insert (issue 10's add-wait,
 *                       daemon side, on in every variant); 0: the code before issue 10
 *   CLIENT              1 import+enable, 2 add+enable, 3 import+svcs, 4 add+svcs
 *   MANIFEST_ENABLED    general/enabled in the imported manifest (default 0, as the examples)
 *   METHOD_MAY_FAIL     1 (default): the start method may fail (then maintenance)
 *   MUTANT              0 (default); 1, 2: a deliberate bug (below), for the test
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

/* ---- switches ---- */
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

#define C_IMPORT_ENABLE 1
#define C_ADD_ENABLE 2
#define C_IMPORT_SVCS 3
#define C_ADD_SVCS 4
#define CREATES_BY_IMPORT (CLIENT == C_IMPORT_ENABLE || CLIENT == C_IMPORT_SVCS)
#define CONSUMES_BY_ENABLE (CLIENT == C_IMPORT_ENABLE || CLIENT == C_ADD_ENABLE)

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
#define OP_ADD_GENERAL 6     /* AddPg general: 1 created, 0 existed */
#define OP_SET_ENABLED 7     /* Commit general/enabled=true */
#define OP_READ_GENERAL 8    /* GetPg general (the instance's own): 1 present */
#define OP_READ_ENABLED 9    /* general_ovr/enabled, else general/enabled composed: E_* */
#define OP_WRITE_RPG_FIRST 10 /* Batch: restarter pg created with state=arg */
#define OP_WRITE_RPG 11      /* Batch: restarter pg state=arg (later writes) */

#define W_CMD1 0   /* svccfg's connection */
#define W_CMD2 1   /* svcadm's or svcs' connection */
#define W_GRAPH 2  /* the graph thread's handle */
#define W_WORKER 3 /* I's worker's handle */

/* Notifications. */
#define N_GENERAL 1   /* PgChanged of I's general (type framework) */
#define N_ADDED 2     /* InstanceAdded of I (STARTD_FIRST_SIGHT) */
#define N_RESTARTER 3 /* PgChanged of I's restarter pg */

/* Graph events, restarter events (startd.h). */
#define GE_PG 1
#define GE_ADDED 2
#define GE_STATE 3
#define RE_INSERT 1
#define RE_ENABLE 2
#define RE_DISABLE 3
#define RE_START 4

/*
 * Queue bounds: the most messages each holds in any run of the model (docs/model.md,
 * "Bounds"); every send asserts nfull() first, so a bound one too small is an error.
 */
#ifndef NQ_STARTD
#define NQ_STARTD 3
#endif
#ifndef NQ_CMD
#define NQ_CMD 5
#endif
#ifndef GRAPH_Q
#define GRAPH_Q 4
#endif
#ifndef RESTARTER_Q
#define RESTARTER_Q 3
#endif

/* ---- the repository (configd's database), only I's part of it ---- */
bit inst;          /* I exists */
bit gen;           /* I has its own general pg */
byte gen_enabled;      /* general/enabled: E_* */
byte rpg;          /* restarter/state, S_NONE when the pg does not exist */
bit interest[2];   /* the clients' connections registered for pgs named restarter */
byte commits;      /* configd's commit ids (H10-trace's causality: notifications carry them) */

/* ---- what the properties read ---- */
bit returned;      /* the creating command returned */
bit seen_absent;   /* a consuming command acted on I's restarter pg being absent */
bit method_failed; /* the start method failed (nondeterministic) */

chan req = [0] of { byte, byte, byte };       /* op, who, arg: configd serves one at a time */
chan rep[4] = [1] of { byte };                /* each caller's reply */
chan nq_startd = [NQ_STARTD] of { byte, byte }; /* startd's repository connection: kind, cid */
chan nq_cmd[2] = [NQ_CMD] of { byte };        /* the clients' connections */
chan graph_q = [GRAPH_Q] of { byte, byte, byte }; /* type, arg, cid */
chan restarter_q = [RESTARTER_Q] of { byte, byte }; /* type, cid */
chan inst_q = [RESTARTER_Q] of { byte, byte };

/* A libscf call: one request, its reply (lib/client: every call is one D-Bus round trip). */
inline call(who, op, arg, res)
{
	req!op, who, arg;
	rep[who]?res
}

#define PENDING (n_added || n_general || n_cmd1 || n_cmd2)

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
 * point configd.notify.before_send); no other request is served in between.  startd's own
 * restarter pg notifications are left out: repo.c forward() drops them unread.
 */
proctype Configd()
{
	byte op, who, arg, res, cid;
	bit n_added, n_general, n_cmd1, n_cmd2; /* notifications still to send */

end_idle:
	do
	:: atomic {
		req?op, who, arg ->
		res = 0;
		cid = 0;
		if
		:: op == OP_IMPORT ->
			/* backend-batch.c: one transaction for the whole manifest */
			commits++;
			cid = commits;
			inst = 1;
			gen = 1;
			gen_enabled = (MANIFEST_ENABLED -> E_TRUE : E_FALSE);
#if FIX_CONFIGD_EAGER
			rpg = S_UNINIT;
			n_cmd1 = interest[W_CMD1];
			n_cmd2 = interest[W_CMD2];
#endif
			n_added = STARTD_FIRST_SIGHT;
			n_general = 1
		:: op == OP_ADD_INSTANCE ->
			/* methods-entity.c add_entity */
			commits++;
			cid = commits;
			inst = 1;
#if FIX_CONFIGD_EAGER
			rpg = S_UNINIT;
			n_cmd1 = interest[W_CMD1];
			n_cmd2 = interest[W_CMD2];
#endif
			n_added = STARTD_FIRST_SIGHT
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
		:: op == OP_READ_GENERAL ->
			res = gen
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
		n_added ->
		n_added = 0;
		assert(nfull(nq_startd));
		printf("@@ send startd %d %d\n", N_ADDED, cid);
		nq_startd!N_ADDED, cid;
		sent()
	      }
	   :: atomic {
		!n_added && n_general ->
		n_general = 0;
		assert(nfull(nq_startd));
		printf("@@ send startd %d %d\n", N_GENERAL, cid);
		nq_startd!N_GENERAL, cid;
		sent()
	      }
	   :: atomic {
		!n_added && !n_general && n_cmd1 ->
		n_cmd1 = 0;
		assert(nfull(nq_cmd[W_CMD1]));
		printf("@@ send cmd1 %d %d\n", N_RESTARTER, cid);
		nq_cmd[W_CMD1]!N_RESTARTER;
		sent()
	      }
	   :: atomic {
		!n_added && !n_general && !n_cmd1 && n_cmd2 ->
		n_cmd2 = 0;
		assert(nfull(nq_cmd[W_CMD2]));
		printf("@@ send cmd2 %d %d\n", N_RESTARTER, cid);
		nq_cmd[W_CMD2]!N_RESTARTER;
		sent()
	      }
	   od
	od
}

/*
 * startd/repo.c repo_main -> drain -> forward: a notification read, the point
 * startd.repo.notify_received, then a graph event.
 */
proctype Repo()
{
	byte kind, cid;

end_idle:
	do
	:: atomic {
		nq_startd?kind, cid ->
		printf("@@ step repo.forward %d %d\n", kind, cid);
		assert(nfull(graph_q));
		graph_q!(kind == N_ADDED -> GE_ADDED : GE_PG), 0, cid
	   }
	od
}

/* The graph thread's local vertex of I (graph.h vertex_t). */
proctype Graph()
{
	byte type, arg, cid, r;
	bit vtx, v_enabled, start_pending;
	byte v_state;

end_idle:
	do
	:: atomic {
		graph_q?type, arg, cid ->
		printf("@@ step graph.take %d %d %d\n", type, arg, cid)
	   };
		if
		:: type == GE_STATE ->
			/* graph.c state_event -> graph-eval.c graph_set_state -> graph_evaluate */
			atomic {
				assert(vtx);
				v_state = arg;
				start_pending = 0;
				if
				:: v_enabled && v_state == S_OFFLINE && !start_pending && MUTANT != 2 ->
					start_pending = 1;
					printf("@@ step graph.start %d %d\n", 0, cid);
					assert(nfull(restarter_q));
					restarter_q!RE_START, cid
				:: else
				fi
			}
		:: type == GE_PG && vtx ->
			/* graph.c pg_event -> refresh_enabled */
			call(W_GRAPH, OP_READ_ENABLED, 0, r);
			atomic {
				if
				:: (r == E_TRUE) != v_enabled ->
					v_enabled = (r == E_TRUE);
					printf("@@ step graph.enabled %d %d\n", v_enabled, cid);
					assert(nfull(restarter_q));
					restarter_q!(v_enabled -> RE_ENABLE : RE_DISABLE), cid
				:: else
				fi
			}
		:: (type == GE_PG || type == GE_ADDED) && !vtx ->
			/*
			 * graph.c pg_event -> maybe_insert: first sight of I.  With
			 * STARTD_FIRST_SIGHT, GE_ADDED (issue 10's first_sight(), r-issue10 §3.B):
			 * an instance with a general of its own is inserted as today (its worker
			 * writes the pg); one without gets its pg written here, by the graph.
			 */
			call(W_GRAPH, OP_READ_GENERAL, 0, r);
			if
			:: r ->
				call(W_GRAPH, OP_READ_ENABLED, 0, r);
				/* read_deps: no dependencies; the point startd.graph.before_insert */
				atomic {
					vtx = 1;
					v_enabled = (r == E_TRUE);
					printf("@@ step graph.insert %d %d\n", v_enabled, cid);
					assert(nfull(restarter_q));
					restarter_q!RE_INSERT, cid;
					assert(nfull(restarter_q));
					restarter_q!(v_enabled -> RE_ENABLE : RE_DISABLE), cid
				}
				/* process_actions: no restarter_actions in these scripts */
			:: !r ->
#if STARTD_FIRST_SIGHT
				/* first_sight(): no vertex; the pg, uninitialized, if missing (its
				 * delay point: steps.tsv, call.graph.write_rpg_first) */
				call(W_GRAPH, OP_READ_RPG, 0, r);
				if
				:: r == S_NONE ->
					call(W_GRAPH, OP_WRITE_RPG_FIRST, S_UNINIT, r)
				:: else
				fi
#else
				skip /* maybe_insert: no general of its own, not inserted */
#endif
			fi
		:: type == GE_ADDED && vtx ->
			skip /* seen already */
		fi
	od
}

/*
 * startd/restarter.c dispatch_main -> dispatch -> inst_enqueue: the point
 * startd.restarter.before_enqueue, then the instance's queue.  The worker is one process
 * waiting on that queue: restarter.c starts it on demand and lets it retire after 3 s idle,
 * which changes when events are taken, never their order or who takes them.
 */
proctype Dispatcher()
{
	byte type, cid;

end_idle:
	do
	:: atomic {
		restarter_q?type, cid ->
		printf("@@ step dispatch %d %d\n", type, cid);
		assert(nfull(inst_q));
		inst_q!type, cid
	   }
	od
}

/* instance.c commit_full with next_state none: the state goes to the graph (report). */
inline report()
{
	assert(nfull(graph_q));
	graph_q!GE_STATE, st, cid
}

/* startd/restarter.c worker_main -> instance.c instance_handle, one event at a time. */
proctype Worker()
{
	byte type, cid, r;
	byte st = S_UNINIT; /* instance_t.state */
	bit inserted;

end_idle:
	do
	:: atomic {
		inst_q?type, cid ->
		printf("@@ step worker.take %d %d\n", type, cid)
	   };
		/* the point startd.worker.after_dequeue */
		if
		:: type != RE_INSERT && !inserted ->
			skip /* instance_handle: not inserted yet */
		:: type == RE_INSERT ->
			/* instance.c handle_insert */
			call(W_WORKER, OP_READ_RPG, 0, r);
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
			/* take_running_snapshot: no pg, no notification */
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
				/* the point startd.method.before_start; method.c method_run */
				if
				:: atomic {
					st = (MUTANT == 1 -> S_MAINT : S_ONLINE);
					printf("@@ step worker.method 1 %d\n", cid)
				   }
#if METHOD_MAY_FAIL
				:: atomic {
					/* exit 95, or 3 failed attempts: maintenance */
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

/*
 * The wait of svccfg import (cli/svccfg/import-wait.c import_wait) and of svccfg add with
 * add-wait (libscf's scf_instance_wait_restarter(), same model): register for restarter pgs,
 * THEN read, then re-read on each notification until the pg has a state; drop the interest.
 * The skips (no restarter attached, EMI pending) do not apply: startd runs, and no EMI.
 * No deadline: a wait that never ends is reported as an invalid end state.
 */
inline wait_restarter()
{
	call(W_CMD1, OP_NOTIFY_RPG, 0, r);
	call(W_CMD1, OP_READ_RPG, 0, r);
	do
	:: r != S_NONE ->
		break
	:: else ->
		nq_cmd[W_CMD1]?n;
		call(W_CMD1, OP_READ_RPG, 0, r)
	od;
	call(W_CMD1, OP_NOTIFY_RESET, 0, r)
}

proctype Client()
{
	byte r, n;

	/* ---- the creating command ---- */
#if CREATES_BY_IMPORT
	/* cli/svccfg/import.c import_one -> build_and_commit: one batch (refresh included) */
	call(W_CMD1, OP_IMPORT, 0, r);
#if FIX_IMPORT_WAIT
	wait_restarter();
#endif
#else
	/* cli/svccfg/entities.c cmd_add -> scf_instance_add */
	call(W_CMD1, OP_ADD_INSTANCE, 0, r);
#if FIX_ADD_WAIT
	wait_restarter();
#endif
#endif
	atomic { returned = 1; printf("@@ step client.returned 0 0\n") };

	/* ---- the consuming command ---- */
#if CONSUMES_BY_ENABLE
	/* cli/svcadm/commands.c enable_disable: the interest before any write */
	call(W_CMD2, OP_NOTIFY_RPG, 0, r);
	/* actions.c action_set_enabled: pg_get_or_add(general), then the transaction; the
	 * general_ovr/enabled deletion finds no general_ovr and changes nothing */
	call(W_CMD2, OP_ADD_GENERAL, 0, r);
	call(W_CMD2, OP_SET_ENABLED, 0, r);
	/* wait.c wait_for_states -> scf_restarter_wait (drain, then ask) -> reached -> state.c
	 * state_read.  The 3 s re-check is left out: it asks the same question, and every
	 * change of the answer (I's restarter pg) is notified to this connection. */
	call(W_CMD2, OP_READ_RPG, 0, r);
	do
	:: r == S_NONE ->
#if FIX_SVCADM_WAIT
		nq_cmd[W_CMD2]?n; /* issue 10's svcadm-wait: wait for the pg */
		do
		:: nq_cmd[W_CMD2]?n
		:: empty(nq_cmd[W_CMD2]) -> break
		od;
		call(W_CMD2, OP_READ_RPG, 0, r)
#else
		/* "is misconfigured (lacks "restarter" property group)", exit 3 */
		atomic { seen_absent = 1; printf("@@ step client.absent 0 0\n") };
		goto done
#endif
	:: r == S_ONLINE ->
		break
	:: r == S_MAINT ->
		break /* "is in maintenance state", exit 1 */
	:: r != S_NONE && r != S_ONLINE && r != S_MAINT ->
		nq_cmd[W_CMD2]?n;
		do
		:: nq_cmd[W_CMD2]?n
		:: empty(nq_cmd[W_CMD2]) -> break
		od;
		call(W_CMD2, OP_READ_RPG, 0, r)
	od;
	/* property (2): online unless the method failed */
	assert(r == S_ONLINE || (r == S_MAINT && method_failed));
	printf("@@ step client.done %d 0\n", r);
done:
	skip
#else
	/* cli/svcs/load.c load_restarter: one read */
	call(W_CMD2, OP_READ_RPG, 0, r);
	if
	:: r == S_NONE ->
		atomic { seen_absent = 1; printf("@@ step client.absent 0 0\n") }
	:: else ->
		printf("@@ step client.done %d 0\n", r)
	fi
#endif
}

/* Property (1), checked once nothing can move: the trail then shows the whole run. */
proctype Monitor()
{
	timeout ->
	assert(!seen_absent)
}

init
{
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
