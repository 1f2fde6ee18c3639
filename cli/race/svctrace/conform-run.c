/*
 * conform-run.c: what "svctrace conform" learns from the whole run before it looks at any
 * instance: which thread of svc.startd is which (its repository thread, graph, dispatcher or a
 * worker: what each recorded says), and which events belong to which configd commit.
 */
#include <errno.h>
#include <stdlib.h>

#include "conform.h"
#include "macro.h"
#include "trace.h"

static bool is_command_event(uint16_t ev)
{
	return ev == SMF_TRACE_PROC_START || ev == SMF_TRACE_PROC_EXIT ||
	        ev == SMF_TRACE_SCF_NOTIFY_INTEREST ||
	        (ev >= SMF_TRACE_IMPORT_BEGIN && ev <= SMF_TRACE_ADD_WAIT_DONE) ||
	        ev == SMF_TRACE_SVCADM_WAIT_RESTARTER_BEGIN ||
	        ev == SMF_TRACE_SVCADM_WAIT_RESTARTER_DONE;
}

/* The thread's role in svc.startd: what it recorded says which thread it is. */
void conform_classify_threads(ctx_t *c)
{
	const trace_t *t = c->t;
	enum { B_REPO = 1, B_GRAPH = 2, B_DISPATCH = 4, B_WORKER = 8 };
	unsigned *bits = calloc(t->n_threads ? t->n_threads : 1, sizeof(*bits));

	for (size_t i = 0; bits && i < t->n_events; i++) {
		const tr_event_t *e = &t->events[i];

		if (!c->proc_startd[e->proc])
			continue;
		if (e->event == SMF_TRACE_STARTD_NOTIFY_RECEIVED)
			bits[e->thread] |= B_REPO;
		else if (e->event == SMF_TRACE_STARTD_FIRST_SIGHT ||
		        e->event == SMF_TRACE_STARTD_GRAPH_INSERT)
			bits[e->thread] |= B_GRAPH;
		else if (e->event == SMF_TRACE_STARTD_RESTARTER_DEQUEUE)
			bits[e->thread] |= B_WORKER;
		else if (e->event == SMF_TRACE_STARTD_RESTARTER_ENQUEUE && e->pid != e->tid)
			bits[e->thread] |= B_DISPATCH; /* the main thread enqueues only shutdowns */
	}
	for (size_t k = 0; k < t->n_threads; k++) {
		unsigned b = bits ? bits[k] : 0;

		c->thread_role[k] = !c->proc_startd[t->threads[k].proc] ? ROLE_NONE
		        : b == B_REPO                                   ? ROLE_REPO
		        : b == B_GRAPH                                  ? ROLE_GRAPH
		        : b == B_DISPATCH                               ? ROLE_DISPATCHER
		        : b == B_WORKER                                 ? ROLE_WORKER
		                                                        : ROLE_STARTD;
	}
	free(bits);
}

/* Commits: configd.write, then that configd's events of the same id are its. */
int conform_index_commits(ctx_t *c)
{
	const trace_t *t = c->t;
	_cleanup_free_ size_t *cur = calloc(t->n_procs ? t->n_procs : 1, sizeof(*cur));

	if (!cur)
		return -ENOMEM;
	for (size_t p = 0; p < t->n_procs; p++)
		cur[p] = SIZE_MAX;
	for (size_t i = 0; i < t->n_events; i++) {
		const tr_event_t *e = &t->events[i];

		c->commit_of[i] = SIZE_MAX;
		if (!c->proc_configd[e->proc]) {
			if (e->flow == 0 && is_command_event(e->event)) {
				if (GREEDY_REALLOC(c->proc_events, c->cap_proc_events,
				            c->n_proc_events + 1) < 0)
					return -ENOMEM;
				c->proc_events[c->n_proc_events++] = i;
			}
			continue;
		}
		switch (e->event) {
		case SMF_TRACE_CONFIGD_WRITE:
			if (GREEDY_REALLOC(c->commits, c->cap_commits, c->n_commits + 1) < 0)
				return -ENOMEM;
			c->commits[c->n_commits] =
			        (commit_t){.idx = i, .id = e->arg0, .pid = (uint32_t)e->arg1};
			cur[e->proc] = c->n_commits;
			c->commit_of[i] = c->n_commits++;
			break;
		case SMF_TRACE_CONFIGD_INSTANCE_ADDED:
		case SMF_TRACE_CONFIGD_PG_CREATED:
		case SMF_TRACE_CONFIGD_COMMIT:
		case SMF_TRACE_CONFIGD_PG_DELETED:
			if (cur[e->proc] != SIZE_MAX && c->commits[cur[e->proc]].id == e->arg0)
				c->commit_of[i] = cur[e->proc];
			break;
		}
	}
	return 0;
}
