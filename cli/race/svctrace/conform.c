/*
 * conform.c: "svctrace conform": is each instance's recorded history one the model allows?
 *
 * THE MODEL.  model/protocol.pml models the creation of one instance and its first start: one
 * client script (a creating command, then a consuming one) and the threads of svc.configd and
 * svc.startd.  Every step of it that leaves a trace event has a label (model/steps.tsv); the
 * events it leaves out are listed with why (model/abstracted.tsv); model/labels.py makes both
 * this file's table (conform-table.h) and the model's labels.pml from those rows, so the
 * checker and the model read one table.  For each instance of the trace:
 *
 *   1. its creation (configd.instance_added: the commit, whose committer is the creating
 *      command), its consuming command (the first svcadm enable -s or svcs of the creator's
 *      script that acts on it: same session and process group), and the roles of svc.startd's
 *      threads, from what each recorded (repository: startd.notify_received; graph:
 *      first_sight, graph_insert; dispatcher: restarter_enqueue; worker: restarter_dequeue);
 *   2. the switches of the run, as the trace shows them: import or add, svcadm or svcs, did the
 *      creator wait (import.wait_begin, add.wait_begin), did svcadm wait for the pg
 *      (svcadm.wait_restarter_begin), did configd create the restarter pg with the instance
 *      (its pg_created in the creating commit), did the import write the service's general;
 *   3. its events (its flow, the configd.write of every commit that wrote it, its service's
 *      general pg, the flow-less events of its two commands), in the merged order, each looked
 *      up by role and pattern: a label; skipped (the model leaves it out); the end of what the
 *      model covers (startd's shutdown, a later administrative action: the instance is checked
 *      up to there); or unknown (the trace does not conform: no step records such an event);
 *   4. svctrace-model, the model's verifier compiled in guided mode, searches the model's
 *      runs for one that records exactly those labels (pan reports its assertion
 *      "gpos != g_len" violated: found).  When none does, a binary search over prefixes finds
 *      the first event the model does not allow, reported with its place in the trace.
 *
 * Identical label sequences under the same switches are searched once.  An instance created
 * before the trace, or by a process that left no trace file, is not checked (and counted).
 *
 * Exit status: 0 every checked instance conforms; 1 one does not; 2 usage, or no trace; 3 no
 * answer to trust (the verifier missing or failing, events lost, out of memory).
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hashmap.h"
#include "json.h"
#include "libscf.h"
#include "log.h"
#include "macro.h"
#include "svctrace.h"
#include "timeutil.h"
#include "trace.h"

enum { CONFORM_LABEL, CONFORM_STUTTER, CONFORM_END };
enum {
	CONFORM_VALUE_NONE,
	CONFORM_VALUE_FIXED,
	CONFORM_VALUE_FOUND,
	CONFORM_VALUE_OK,
	CONFORM_VALUE_STATUS
};

typedef struct conform_rule {
	const char *role;
	const char *pattern; /* ends in '*': any rest */
	int verdict;
	int label;
	int value_kind;
	int value;
	const char *text; /* the steps.tsv keys of a label, or why the event is left out */
} conform_rule_t;

#include "conform-table.h"

#define CONTEXT 8
#define PATTERN_MAX 256
#define VERIFIER_NAME "svctrace-model"

typedef enum role {
	ROLE_NONE,
	ROLE_CMD1,
	ROLE_CMD2,
	ROLE_GRAPH,
	ROLE_WORKER,
	ROLE_REPO,
	ROLE_DISPATCHER,
	ROLE_CONFIGD,
	ROLE_STARTD,
	ROLE_OTHER,
	_ROLE_MAX,
} role_t;

static const char *const role_names[_ROLE_MAX] = {
        [ROLE_NONE] = "none",
        [ROLE_CMD1] = "cmd1",
        [ROLE_CMD2] = "cmd2",
        [ROLE_GRAPH] = "graph",
        [ROLE_WORKER] = "worker",
        [ROLE_REPO] = "repo",
        [ROLE_DISPATCHER] = "dispatcher",
        [ROLE_CONFIGD] = "configd",
        [ROLE_STARTD] = "startd",
        [ROLE_OTHER] = "other",
};

/* A write request configd committed, and the events of that commit. */
typedef struct commit {
	size_t idx; /* its configd.write */
	uint64_t id;
	uint32_t pid; /* the committer */
} commit_t;

/* What one instance's check found. */
typedef enum outcome {
	OUTCOME_CONFORMS,
	OUTCOME_FAILS,   /* an event the model does not allow */
	OUTCOME_UNKNOWN, /* an event no step records */
	OUTCOME_SKIPPED, /* not checked: created before the trace, or the creator left no file */
	_OUTCOME_MAX,
} outcome_t;

typedef struct result {
	uint64_t flow;
	const char *fmri;
	outcome_t outcome;
	const char *why;        /* skipped, unknown or an end: in words */
	size_t bad_idx;         /* the event that does not conform, SIZE_MAX when none */
	size_t end_idx;         /* where the model's scope ended, SIZE_MAX when it did not */
	size_t n_events;        /* events judged (up to the end) */
	size_t n_labels;        /* of those, labels */
	size_t checked_labels;  /* labels the model allowed before bad_idx */
	const char *label_keys; /* the steps the bad event maps to (its rule's text) */
	int switches[MODEL_SW_COUNT];
	char why_buf[PATTERN_MAX + 64];
} result_t;

typedef struct ctx {
	const trace_t *t;
	role_t *thread_role; /* per thread */
	bool *proc_configd, *proc_startd;
	size_t *commit_of; /* per event: its commit (index in commits), SIZE_MAX when none */
	commit_t *commits;
	size_t n_commits, cap_commits;
	size_t *proc_events; /* flow-less events of commands, by (proc, index) */
	size_t n_proc_events, cap_proc_events;
	hashmap_t *cache; /* "switches;labels" -> outcome + 1 + 2 * first bad position */
	char verifier[PATH_MAX];
	char workdir[PATH_MAX];
	size_t runs; /* verifier runs */
	uint64_t verify_ns;
	bool steps; /* print each instance's steps as they are mapped */
} ctx_t;

/* ---- what the trace says about processes and threads ------------------------------------- */

static bool is_command_event(uint16_t ev)
{
	return ev == SMF_TRACE_PROC_START || ev == SMF_TRACE_PROC_EXIT ||
	        ev == SMF_TRACE_SCF_NOTIFY_INTEREST ||
	        (ev >= SMF_TRACE_IMPORT_BEGIN && ev <= SMF_TRACE_ADD_WAIT_DONE) ||
	        ev == SMF_TRACE_SVCADM_WAIT_RESTARTER_BEGIN ||
	        ev == SMF_TRACE_SVCADM_WAIT_RESTARTER_DONE;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

/* The thread's role in svc.startd: what it recorded says which thread it is. */
static void classify_threads(ctx_t *c)
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
static int index_commits(ctx_t *c)
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

/* ---- one instance ----------------------------------------------------------------------- */

typedef struct inst {
	ctx_t *c;
	const tr_flow_t *flow;
	const char *fmri;
	size_t fmri_len;
	const char
	        *svc_general; /* pooled "svc:/S/:properties/general", NULL when not in the trace */
	size_t create;        /* the creating commit, SIZE_MAX when not in the trace */
	uint32_t cmd1, cmd2;  /* pids, 0 when none */
	const tr_proc_t *p1, *p2;
	size_t *ev; /* its events, in merged order */
	size_t n_ev, cap_ev;
	int sw[MODEL_SW_COUNT];
	/* announced startd writes (startd.write) not yet seen committed: pg name -> role */
	struct {
		const char *pg;
		role_t role;
	} announced[4];
} inst_t;

static int inst_add(inst_t *in, size_t idx)
{
	if (GREEDY_REALLOC(in->ev, in->cap_ev, in->n_ev + 1) < 0)
		return -ENOMEM;
	in->ev[in->n_ev++] = idx;
	return 0;
}

/* What a string names, seen from the instance: "instance", a pg of it, "svc-general", "?". */
static const char *object_of(const inst_t *in, const char *s, char *buf, size_t size)
{
	if (!s)
		return "?";
	if (streq(s, in->fmri))
		return "instance";
	if (in->svc_general && s == in->svc_general)
		return "svc-general";
	if (strneq(s, in->fmri, in->fmri_len) && strneq(s + in->fmri_len, "/:properties/", 13)) {
		snprintf(buf, size, "%s", s + in->fmri_len + 13);
		return buf;
	}
	return "?";
}

static bool is_daemon(const ctx_t *c, uint32_t proc)
{
	return c->proc_configd[proc] || c->proc_startd[proc];
}

/* "svcadm enable -s ..." (an -s among enable's options), or svcs: a consuming command. */
static bool consumes(const tr_proc_t *p)
{
	const char *a;
	bool enable = false;

	if (!p->command || !p->cmdline)
		return false;
	if (streq(p->prog, "svcs"))
		return true;
	if (!streq(p->prog, "svcadm"))
		return false;
	a = p->cmdline;
	while (*a) {
		size_t n = strcspn(a, " ");

		if (n == 6 && strneq(a, "enable", 6))
			enable = true;
		else if (enable && n > 1 && a[0] == '-' && memchr(a, 's', n))
			return true;
		else if (enable && a[0] != '-')
			return false; /* the operands: no -s */
		a += n;
		a += strspn(a, " ");
	}
	return false;
}

static bool same_script(const tr_proc_t *a, const tr_proc_t *b)
{
	return a->sid == b->sid && a->pgid == b->pgid;
}

/* Gathers the instance's events and its roles; false (with why) when it cannot be checked. */
static int gather(inst_t *in, const char **why)
{
	ctx_t *c = in->c;
	const trace_t *t = c->t;
	const tr_flow_t *f = in->flow;
	char buf[PATH_MAX];
	int r;

	*why = NULL;
	in->create = SIZE_MAX;
	/* Its own events; the creation among them. */
	for (size_t i = f->first; i <= f->last && i < t->n_events; i++) {
		const tr_event_t *e = &t->events[i];

		if (e->flow != f->flow)
			continue;
		if (e->event == SMF_TRACE_CONFIGD_INSTANCE_ADDED && in->create == SIZE_MAX &&
		        c->commit_of[i] != SIZE_MAX)
			in->create = c->commit_of[i];
		r = inst_add(in, i);
		if (r < 0)
			return r;
	}
	if (in->create == SIZE_MAX) {
		*why = "created before the trace began";
		return 0;
	}
	in->cmd1 = c->commits[in->create].pid;
	in->p1 = trace_find_proc(t, in->cmd1);
	if (!in->p1) {
		*why = "its creating command left no trace file";
		return 0;
	}
	/* The model's creating command is svccfg (import or add), which exits before the next
	 * command acts; a libscf program that creates, enables and waits in one process is not. */
	if (!in->p1->prog || !streq(in->p1->prog, "svccfg")) {
		*why = "created by a program other than svccfg (the model's clients are svccfg, "
		       "then "
		       "svcadm or svcs)";
		return 0;
	}
	snprintf(buf, sizeof(buf), "%.*s/:properties/general",
	        (int)(strrchr(in->fmri, ':') - in->fmri), in->fmri);
	in->svc_general = hashmap_key(t->pool, buf);
	/*
	 * The consuming command: the first of the creator's script to act on the instance: to
	 * read it or to commit a write of it (being notified of it is not acting on it: every
	 * svcadm -s of a script hears of every restarter pg).
	 */
	for (size_t k = 0; k < in->n_ev && !in->cmd2; k++) {
		const tr_event_t *e = &t->events[in->ev[k]];
		uint32_t pid = e->event == SMF_TRACE_CONFIGD_WRITE ? (uint32_t)e->arg1
		        : e->event == SMF_TRACE_SCF_READ           ? e->pid
		                                                   : 0;
		const tr_proc_t *p = pid ? trace_find_proc(t, pid) : NULL;

		if (p && pid != in->cmd1 && !is_daemon(c, (uint32_t)(p - t->procs)) &&
		        same_script(p, in->p1) && consumes(p)) {
			in->cmd2 = pid;
			in->p2 = p;
		}
	}
	/* The configd.write of every commit that wrote it (a batch's names no instance). */
	for (size_t k = 0, n = in->n_ev; k < n; k++) {
		size_t cm = c->commit_of[in->ev[k]];

		if (cm != SIZE_MAX && in->ev[k] != c->commits[cm].idx &&
		        (k == 0 || c->commit_of[in->ev[k - 1]] != cm)) {
			r = inst_add(in, c->commits[cm].idx);
			if (r < 0)
				return r;
		}
	}
	/* Its service's general pg, and its commands' flow-less events. */
	for (size_t i = c->commits[in->create].idx; in->svc_general && i < t->n_events; i++) {
		const tr_event_t *e = &t->events[i];

		if (e->flow == 0 && e->str == in->svc_general &&
		        (e->event == SMF_TRACE_CONFIGD_NOTIFY_SENT ||
		                e->event == SMF_TRACE_STARTD_NOTIFY_RECEIVED ||
		                e->event == SMF_TRACE_SCF_NOTIFY_RECEIVED)) {
			r = inst_add(in, i);
			if (r < 0)
				return r;
		}
	}
	for (size_t k = 0; k < c->n_proc_events; k++) {
		const tr_event_t *e = &t->events[c->proc_events[k]];

		if (e->pid == in->cmd1 || (in->cmd2 && e->pid == in->cmd2)) {
			r = inst_add(in, c->proc_events[k]);
			if (r < 0)
				return r;
		}
	}
	qsort(in->ev, in->n_ev, sizeof(*in->ev), cmp_size);
	/* duplicates: a configd.write added twice (two of its commits' events named us) */
	size_t n = 0;
	for (size_t k = 0; k < in->n_ev; k++)
		if (n == 0 || in->ev[n - 1] != in->ev[k])
			in->ev[n++] = in->ev[k];
	in->n_ev = n;
	return 0;
}

/* The switches of the run, as the trace shows them (protocol.pml's SW_* positions). */
static void read_switches(inst_t *in)
{
	ctx_t *c = in->c;
	const trace_t *t = c->t;
	const commit_t *cr = &c->commits[in->create];
	bool waits = false, svcadm_waits = false, eager = false, svc_general = false;
	bool by_import = t->events[cr->idx].str && streq(t->events[cr->idx].str, "Batch");
	bool svcs = in->p2 && streq(in->p2->prog, "svcs");

	for (size_t k = 0; k < in->n_ev; k++) {
		const tr_event_t *e = &t->events[in->ev[k]];

		if (e->pid == in->cmd1 &&
		        (e->event == SMF_TRACE_IMPORT_WAIT_BEGIN ||
		                e->event == SMF_TRACE_ADD_WAIT_BEGIN))
			waits = true;
		if (in->cmd2 && e->pid == in->cmd2 &&
		        e->event == SMF_TRACE_SVCADM_WAIT_RESTARTER_BEGIN)
			svcadm_waits = true;
		if (e->event == SMF_TRACE_CONFIGD_PG_CREATED &&
		        c->commit_of[in->ev[k]] == in->create && e->str &&
		        strneq(e->str, in->fmri, in->fmri_len) &&
		        streq(e->str + in->fmri_len, "/:properties/" SCF_PG_RESTARTER))
			eager = true;
	}
	/* The service's general pg in the creating commit (flow 0: not among our events). */
	for (size_t i = cr->idx + 1; in->svc_general && i < t->n_events; i++) {
		const tr_event_t *e = &t->events[i];

		if (e->proc == t->events[cr->idx].proc && e->event == SMF_TRACE_CONFIGD_WRITE)
			break;
		if (c->commit_of[i] == in->create && e->str == in->svc_general)
			svc_general = true;
	}
	in->sw[MODEL_SW_IMPORT_WAIT] = by_import && waits;
	in->sw[MODEL_SW_ADD_WAIT] = !by_import && waits;
	in->sw[MODEL_SW_SVCADM_WAIT] = svcadm_waits;
	in->sw[MODEL_SW_CONFIGD_EAGER] = eager;
	in->sw[MODEL_SW_CLIENT] = by_import ? (svcs ? MODEL_C_IMPORT_SVCS : MODEL_C_IMPORT_ENABLE)
	                                    : (svcs ? MODEL_C_ADD_SVCS : MODEL_C_ADD_ENABLE);
	in->sw[MODEL_SW_FIRST_SIGHT] = 1;
	in->sw[MODEL_SW_SVC_GENERAL] = svc_general;
	in->sw[MODEL_SW_DETAIL] = 1;
}

/* The role of whoever the event is about: the thread, the command, or the committer. */
static role_t role_of(inst_t *in, const tr_event_t *e)
{
	ctx_t *c = in->c;

	if (c->proc_configd[e->proc])
		return ROLE_CONFIGD;
	if (c->proc_startd[e->proc])
		return c->thread_role[e->thread];
	if (e->pid == in->cmd1)
		return ROLE_CMD1;
	if (in->cmd2 && e->pid == in->cmd2)
		return ROLE_CMD2;
	return ROLE_OTHER;
}

static role_t role_of_pid(inst_t *in, uint32_t pid)
{
	const tr_proc_t *p = trace_find_proc(in->c->t, pid);

	if (pid == in->cmd1)
		return ROLE_CMD1;
	if (in->cmd2 && pid == in->cmd2)
		return ROLE_CMD2;
	if (p && in->c->proc_startd[p - in->c->t->procs])
		return ROLE_STARTD;
	return ROLE_OTHER;
}

/* A configd.write: its committer's role and what the commit wrote of the instance. */
static role_t describe_write(inst_t *in, size_t k, char *pat, size_t size)
{
	ctx_t *c = in->c;
	const trace_t *t = c->t;
	const tr_event_t *w = &t->events[in->ev[k]];
	size_t cm = c->commit_of[in->ev[k]];
	role_t role = role_of_pid(in, (uint32_t)w->arg1);
	const char *first_pg = NULL;
	size_t len;
	char buf[PATTERN_MAX];

	len = (size_t)snprintf(pat, size, "configd.write:%s", strna(w->str));
	if (cm == in->create) {
		snprintf(pat + len, size - len, ":instance");
	} else {
		/* our events of this commit follow the write in our list */
		for (size_t j = k + 1; j < in->n_ev && len < size; j++) {
			const tr_event_t *e = &t->events[in->ev[j]];

			if (c->commit_of[in->ev[j]] != cm || e->event == SMF_TRACE_CONFIGD_WRITE)
				continue;
			if (e->event == SMF_TRACE_CONFIGD_INSTANCE_ADDED)
				continue;
			const char *o = object_of(in, e->str, buf, sizeof(buf));
			if (e->event == SMF_TRACE_CONFIGD_PG_CREATED) {
				len += (size_t)snprintf(pat + len, size - len, ":%s:created", o);
				j++; /* its configd.commit */
			} else
				len += (size_t)snprintf(pat + len, size - len, ":%s%s", o,
				        e->event == SMF_TRACE_CONFIGD_PG_DELETED ? ":deleted" : "");
			if (!first_pg)
				first_pg = e->str;
		}
	}
	/* startd announced it (startd.write of that pg): the announcing thread's role */
	if (role == ROLE_STARTD && first_pg)
		for (size_t a = 0; a < ELEMENTSOF(in->announced); a++)
			if (in->announced[a].pg == first_pg) {
				role = in->announced[a].role;
				in->announced[a].pg = NULL;
				break;
			}
	return role;
}

static void announce(inst_t *in, const tr_event_t *e, role_t role)
{
	size_t free_slot = SIZE_MAX;

	for (size_t a = 0; a < ELEMENTSOF(in->announced); a++) {
		if (in->announced[a].pg == e->str) {
			in->announced[a].role = role;
			return;
		}
		if (!in->announced[a].pg && free_slot == SIZE_MAX)
			free_slot = a;
	}
	if (free_slot != SIZE_MAX)
		in->announced[free_slot].pg = e->str, in->announced[free_slot].role = role;
}

/* The event's role and pattern (steps.tsv's words) and the value a label would carry. */
static role_t pattern_of(
        inst_t *in, size_t k, char *pat, size_t size, int *found, int *ok, int *status)
{
	const tr_event_t *e = &in->c->t->events[in->ev[k]];
	role_t role = role_of(in, e);
	char namebuf[24], buf[PATTERN_MAX];
	const char *o, *name = trace_event_name(e->event, namebuf);

	*found = *ok = *status = 0;
	switch (e->event) {
	case SMF_TRACE_CONFIGD_WRITE:
		return describe_write(in, k, pat, size);
	case SMF_TRACE_CONFIGD_NOTIFY_SENT:
		o = object_of(in, e->str, buf, sizeof(buf));
		snprintf(pat, size, "%s:%s>%s", name, o,
		        role_names[role_of_pid(in, (uint32_t)e->arg1)]);
		return role;
	case SMF_TRACE_SCF_READ: {
		unsigned how = SMF_TRACE_READ_HOW(e->arg0);

		o = object_of(in, e->str, buf, sizeof(buf));
		snprintf(pat, size, "%s:%s%s%s%s", name, o,
		        how & SMF_TRACE_READ_COMPOSED ? ":composed" : "",
		        how & SMF_TRACE_READ_SNAPSHOT ? ":snapshot" : "",
		        how & SMF_TRACE_READ_ERROR ? ":error" : "");
		*found = !(how & SMF_TRACE_READ_ERROR) && SMF_TRACE_READ_GENERATION(e->arg0) != 0;
		return role;
	}
	case SMF_TRACE_STARTD_WRITE:
		o = object_of(in, e->str, buf, sizeof(buf));
		snprintf(pat, size, "%s:%s", name, o);
		announce(in, e, role);
		return role;
	case SMF_TRACE_STARTD_NOTIFY_RECEIVED:
	case SMF_TRACE_SCF_NOTIFY_RECEIVED:
	case SMF_TRACE_CONFIGD_INSTANCE_ADDED:
	case SMF_TRACE_CONFIGD_PG_CREATED:
	case SMF_TRACE_CONFIGD_COMMIT:
	case SMF_TRACE_CONFIGD_PG_DELETED:
		snprintf(pat, size, "%s:%s", name, object_of(in, e->str, buf, sizeof(buf)));
		return role;
	case SMF_TRACE_STARTD_METHOD_EXIT: {
		const char *s = strempty(e->str), *sp = strchr(s, ' ');
		size_t n = sp ? (size_t)(sp - s) : strlen(s);

		snprintf(pat, size, "%s:%.*s", name, (int)n, s);
		*ok = sp && streq(sp + 1, "exit 0");
		return role;
	}
	case SMF_TRACE_STARTD_FIRST_SIGHT:
	case SMF_TRACE_STARTD_RESTARTER_ENQUEUE:
	case SMF_TRACE_STARTD_RESTARTER_DEQUEUE:
	case SMF_TRACE_STARTD_STATE_CHANGE:
	case SMF_TRACE_STARTD_METHOD_START:
	case SMF_TRACE_SCF_NOTIFY_INTEREST:
		snprintf(pat, size, "%s:%s", name, strempty(e->str));
		return role;
	case SMF_TRACE_PROC_EXIT:
		*status = e->arg0 > 15 ? 15 : (int)e->arg0;
		snprintf(pat, size, "%s", name);
		return role;
	default:
		snprintf(pat, size, "%s", name);
		return role;
	}
}

/* A pattern's weight: its characters that are not '*' (the more, the more specific). */
static size_t specificity(const char *p)
{
	size_t n = 0;

	for (; *p; p++)
		n += *p != '*';
	return n;
}

/*
 * The rule for (role, pattern): an exact row of that role, else the most specific row whose
 * pattern matches ('*' is any characters: fnmatch), that role's before role '*'.
 */
static const conform_rule_t *lookup(role_t role, const char *pat)
{
	const conform_rule_t *best = NULL;
	size_t best_w = 0;
	bool best_role = false;

	for (size_t k = 0; k < ELEMENTSOF(conform_rules); k++) {
		const conform_rule_t *r = &conform_rules[k];
		bool exact_role = streq(r->role, role_names[role]);
		size_t w;

		if (!exact_role && !streq(r->role, "*"))
			continue;
		if (exact_role && streq(r->pattern, pat))
			return r;
		if (fnmatch(r->pattern, pat, 0) != 0)
			continue;
		w = specificity(r->pattern);
		if (!best || w > best_w || (w == best_w && exact_role && !best_role))
			best = r, best_w = w, best_role = exact_role;
	}
	return best;
}

/* ---- the verifier ----------------------------------------------------------------------- */

static int find_verifier(ctx_t *c)
{
	const char *e = getenv("SVCTRACE_MODEL");
	char self[PATH_MAX];
	ssize_t n;

	if (e && *e) {
		snprintf(c->verifier, sizeof(c->verifier), "%s", e);
		return access(c->verifier, X_OK) == 0 ? 0 : -errno;
	}
	/* The build tree: next to svctrace; an installed one: its libexec directory. */
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		self[n] = '\0';
		snprintf(c->verifier, sizeof(c->verifier), "%.*s/" VERIFIER_NAME,
		        (int)(strrchr(self, '/') - self), self);
		if (access(c->verifier, X_OK) == 0)
			return 0;
	}
	snprintf(c->verifier, sizeof(c->verifier), "%s/" VERIFIER_NAME, SVCTRACE_MODEL_DIR);
	return access(c->verifier, X_OK) == 0 ? 0 : -ENOENT;
}

static char *switches_text(const int sw[MODEL_SW_COUNT])
{
	char *s = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&s, &len);

	if (!f)
		return NULL;
	for (size_t k = 0; k < MODEL_SW_COUNT; k++)
		fprintf(f, "%s%d", k ? "," : "", sw[k]);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	return s;
}

/*
 * The verifier's search depth (-m).  A recorded step is about ten of the model's (the steps
 * nobody records between two that are), so DEPTH_PER_LABEL x n + DEPTH_BASE is ample; a
 * deeper search than needed costs time (its stack is set up for the whole depth: 5 of a run's
 * 25 ms at 250,000), and one that runs out is run again at DEPTH_MAX.
 */
#define DEPTH_PER_LABEL 32
#define DEPTH_BASE 1024
#define DEPTH_MAX 250000

/* verify_at()'s "the search was cut short": not an errno, which posix_spawn() may give. */
#define VERIFY_TOO_SHALLOW (-10000)

/*
 * Runs the verifier on the first n labels with search depth depth: 1 the model allows them,
 * 0 it does not, VERIFY_TOO_SHALLOW the depth was too small, other < 0 no answer (said why).
 */
static int verify_at(ctx_t *c, const char *switches, const int *labels, size_t n, size_t depth)
{
	_cleanup_free_ char *trace = NULL, *out = NULL, *env_switches = NULL, *env_trace = NULL;
	char m[32];
	char *argv[] = {(char *)VERIFIER_NAME, (char *)"-n", (char *)"-E", m, (char *)"-w16", NULL};
	size_t len = 0, used = 0, cap = 0;
	FILE *f = open_memstream(&trace, &len);
	posix_spawn_file_actions_t fa;
	int pfd[2], status, r;
	uint64_t t0 = now_monotonic_nsec();
	pid_t pid;

	if (!f)
		return -ENOMEM;
	snprintf(m, sizeof(m), "-m%zu", depth);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%s%d", k ? "," : "", labels[k]);
	if (fclose(f) != 0)
		return -ENOMEM;
	if (asprintf(&env_switches, "SMF_MODEL_SWITCHES=%s", switches) < 0 ||
	        asprintf(&env_trace, "SMF_MODEL_TRACE=%s", trace) < 0)
		return -ENOMEM;
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return log_error_errno(-errno, "pipe");
	/*
	 * posix_spawn, not fork: svctrace holds the whole trace, and copying its page tables for
	 * every run would cost more than the search.  The verifier writes its trail (the run it
	 * found) into its working directory.
	 */
	r = posix_spawn_file_actions_init(&fa);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	if (r == 0)
		r = posix_spawn_file_actions_addchdir_np(&fa, c->workdir);
	if (r == 0)
		r = posix_spawn(&pid, c->verifier, &fa, NULL, argv,
		        (char *[]){env_switches, env_trace, NULL});
	posix_spawn_file_actions_destroy(&fa);
	if (r != 0) {
		close(pfd[0]);
		close(pfd[1]);
		return log_error_errno(-r, "%s", c->verifier);
	}
	close(pfd[1]);
	for (;;) {
		ssize_t k;

		if (cap - used < 4096 && GREEDY_REALLOC(out, cap, used + 4096) < 0)
			break;
		k = read(pfd[0], out + used, cap - used - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		used += (size_t)k;
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	c->runs++;
	c->verify_ns += now_monotonic_nsec() - t0;
	if (!out)
		return -ENOMEM;
	out[used] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		log_error("%s failed (%s %d): %s", c->verifier,
		        WIFEXITED(status) ? "exit status" : "signal",
		        WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), out);
		return -EIO;
	}
	/* A run that followed the whole trace answers, even if another branch was cut short. */
	if (strstr(out, "assertion violated") && strstr(out, "gpos!=g_len"))
		return 1;
	if (strstr(out, "max search depth too small")) {
		if (depth >= DEPTH_MAX)
			log_error("%s: the search was cut short (depth): no answer", c->verifier);
		return VERIFY_TOO_SHALLOW;
	}
	if (strstr(out, "errors: 0"))
		return 0;
	log_error("%s: an answer svctrace does not know: %s", c->verifier, out);
	return -EIO;
}

/* verify_at() at a depth for n labels, then at DEPTH_MAX if that was too small. */
static int verify(ctx_t *c, const char *switches, const int *labels, size_t n)
{
	size_t depth = DEPTH_PER_LABEL * n + DEPTH_BASE;
	int r = verify_at(c, switches, labels, n, depth < DEPTH_MAX ? depth : DEPTH_MAX);

	if (r == VERIFY_TOO_SHALLOW && depth < DEPTH_MAX)
		r = verify_at(c, switches, labels, n, DEPTH_MAX);
	return r == VERIFY_TOO_SHALLOW ? -E2BIG : r;
}

/*
 * Checks the labels: -1 the model allows them all, else the position of the first one it does
 * not allow (the labels before it it does); < 0 - 2 on error (said).  Cached by content.
 */
static ssize_t check_labels(ctx_t *c, const int sw[MODEL_SW_COUNT], const int *labels, size_t n)
{
	_cleanup_free_ char *switches = switches_text(sw), *key = NULL;
	size_t len = 0, lo = 0, hi = n;
	FILE *f;
	void *hit;
	int r;

	if (!switches)
		return -ENOMEM - 2;
	f = open_memstream(&key, &len);
	if (!f)
		return -ENOMEM - 2;
	fprintf(f, "%s;", switches);
	for (size_t k = 0; k < n; k++)
		fprintf(f, "%d,", labels[k]);
	if (fclose(f) != 0)
		return -ENOMEM - 2;
	hit = hashmap_get(c->cache, key);
	if (hit)
		return (ssize_t)(uintptr_t)hit - 2;
	r = verify(c, switches, labels, n);
	if (r < 0)
		return r - 2;
	ssize_t res = -1;
	if (r == 0) {
		/* lo: a prefix the model allows (the empty one does); hi: one it does not */
		while (hi - lo > 1) {
			size_t mid = lo + (hi - lo) / 2;
			int k = verify(c, switches, labels, mid);

			if (k < 0)
				return k - 2;
			if (k)
				lo = mid;
			else
				hi = mid;
		}
		res = (ssize_t)lo;
	}
	if (hashmap_put(c->cache, key, (void *)(uintptr_t)(res + 2)) < 0)
		return -ENOMEM - 2;
	return res;
}

/* One instance, into res; < 0 when there is no answer (said). */
static int check_instance(ctx_t *c, const tr_flow_t *f, result_t *res)
{
	inst_t in = {.c = c, .flow = f, .fmri = f->fmri, .fmri_len = strlen(f->fmri)};
	_cleanup_free_ int *labels = NULL;
	_cleanup_free_ size_t *at = NULL; /* per label: its event (index in in.ev) */
	size_t n_labels = 0, cap_labels = 0, cap_at = 0, unknown = SIZE_MAX;
	const char *why;
	ssize_t bad;
	int r;

	*res = (result_t){
	        .flow = f->flow, .fmri = f->fmri, .bad_idx = SIZE_MAX, .end_idx = SIZE_MAX};
	r = gather(&in, &why);
	if (r < 0)
		goto out;
	if (why) {
		res->outcome = OUTCOME_SKIPPED;
		res->why = why;
		goto out;
	}
	read_switches(&in);
	memcpy(res->switches, in.sw, sizeof(in.sw));
	for (size_t k = 0; k < in.n_ev; k++) {
		char pat[PATTERN_MAX];
		int found, ok, status, v;
		role_t role = pattern_of(&in, k, pat, sizeof(pat), &found, &ok, &status);
		const conform_rule_t *rule = lookup(role, pat);

		res->n_events++;
		if (!rule) {
			unknown = k;
			snprintf(res->why_buf, sizeof(res->why_buf),
			        "no step of the model records it (role %s, %s)", role_names[role],
			        pat);
			break;
		}
		if (rule->verdict == CONFORM_STUTTER)
			continue;
		if (rule->verdict == CONFORM_END) {
			res->end_idx = in.ev[k];
			res->why = rule->text;
			res->n_events--;
			break;
		}
		v = rule->value_kind == CONFORM_VALUE_FIXED        ? rule->value
		        : rule->value_kind == CONFORM_VALUE_FOUND  ? found
		        : rule->value_kind == CONFORM_VALUE_OK     ? ok
		        : rule->value_kind == CONFORM_VALUE_STATUS ? status
		                                                   : 0;
		if (n_labels == (size_t)MODEL_GMAX) {
			log_error("%s: more than %d steps: longer than the model's verifier takes",
			        f->fmri, MODEL_GMAX);
			r = -E2BIG;
			goto out;
		}
		if (GREEDY_REALLOC(labels, cap_labels, n_labels + 1) < 0 ||
		        GREEDY_REALLOC(at, cap_at, n_labels + 1) < 0) {
			r = -ENOMEM;
			goto out;
		}
		at[n_labels] = k;
		labels[n_labels++] = rule->label * 16 + v;
		if (c->steps) {
			printf("%s step %zu: %s = %d (%s)\n     ", f->fmri, n_labels, rule->text,
			        rule->label * 16 + v, pat);
			dump_line(stdout, c->t, &c->t->events[in.ev[k]], NULL);
		}
	}
	res->n_labels = n_labels;
	bad = check_labels(c, in.sw, labels, n_labels);
	if (bad < -1) {
		r = (int)(bad + 2);
		goto out;
	}
	if (bad >= 0) {
		/* the first event the model does not allow, before any unknown one */
		res->outcome = OUTCOME_FAILS;
		res->bad_idx = in.ev[at[bad]];
		res->checked_labels = (size_t)bad;
		for (size_t k = 0; k < ELEMENTSOF(conform_rules); k++)
			if (conform_rules[k].verdict == CONFORM_LABEL &&
			        conform_rules[k].label == labels[bad] / 16)
				res->label_keys = conform_rules[k].text;
	} else if (unknown != SIZE_MAX) {
		res->outcome = OUTCOME_UNKNOWN;
		res->bad_idx = in.ev[unknown];
		res->checked_labels = n_labels;
		res->why = res->why_buf;
	} else {
		res->outcome = OUTCOME_CONFORMS;
		res->checked_labels = n_labels;
	}
	r = 0;
out:
	free(in.ev);
	return r;
}

/* ---- output ------------------------------------------------------------------------------ */

static const char *client_name(int client)
{
	switch (client) {
	case MODEL_C_IMPORT_ENABLE:
		return "import+enable";
	case MODEL_C_ADD_ENABLE:
		return "add+enable";
	case MODEL_C_IMPORT_SVCS:
		return "import+svcs";
	case MODEL_C_ADD_SVCS:
		return "add+svcs";
	}
	return "?";
}

/* "import+enable, import-wait, configd-eager" into buf. */
static const char *describe_switches(const int sw[MODEL_SW_COUNT], char *buf, size_t size)
{
	size_t len = (size_t)snprintf(buf, size, "%s", client_name(sw[MODEL_SW_CLIENT]));

	if (sw[MODEL_SW_IMPORT_WAIT])
		len += (size_t)snprintf(buf + len, size - len, ", import-wait");
	if (sw[MODEL_SW_ADD_WAIT] && len < size)
		len += (size_t)snprintf(buf + len, size - len, ", add-wait");
	if (sw[MODEL_SW_SVCADM_WAIT] && len < size)
		len += (size_t)snprintf(buf + len, size - len, ", svcadm-wait");
	if (sw[MODEL_SW_CONFIGD_EAGER] && len < size)
		len += (size_t)snprintf(buf + len, size - len, ", configd-eager");
	if (!sw[MODEL_SW_SVC_GENERAL] && len < size)
		snprintf(buf + len, size - len, ", no general of the service");
	return buf;
}

static void print_place(const trace_t *t, const tr_event_t *e, const char *fmri)
{
	char rel[32], name[24];

	printf("  at: file %s, pid %" PRIu32 ", tid %" PRIu32 ", %s ms: %s %s (instance %s)\n",
	        t->files[e->file].name, e->pid, e->tid, format_rel_ms(t, e->ns, rel),
	        trace_event_name(e->event, name), strna(e->str), fmri);
}

static void print_failure(const ctx_t *c, const result_t *r)
{
	const trace_t *t = c->t;
	const tr_event_t *e = &t->events[r->bad_idx];
	char sw[160];

	printf("%s: does not conform (%s)\n", r->fmri,
	        describe_switches(r->switches, sw, sizeof(sw)));
	print_place(t, e, r->fmri);
	if (r->outcome == OUTCOME_UNKNOWN)
		printf("  why: %s\n", strna(r->why));
	else
		printf("  why: the model allows the %zu steps before it, not this one (%s)\n",
		        r->checked_labels, strna(r->label_keys));
	printf("  events:\n");
	for (size_t i = r->bad_idx >= CONTEXT ? r->bad_idx - CONTEXT : 0;
	        i <= r->bad_idx + 2 && i < t->n_events; i++) {
		const tr_event_t *x = &t->events[i];

		if (x->flow != r->flow && i != r->bad_idx)
			continue;
		dump_line(stdout, t, x, i == r->bad_idx ? "  => " : "     ");
	}
	printf("\n");
}

static void print_ok(const ctx_t *c, const result_t *r)
{
	char sw[160], name[24];

	if (r->outcome == OUTCOME_SKIPPED) {
		printf("%s: not checked: %s\n", r->fmri, r->why);
		return;
	}
	printf("%s: conforms (%s): %zu events, %zu steps of the model", r->fmri,
	        describe_switches(r->switches, sw, sizeof(sw)), r->n_events, r->n_labels);
	if (r->end_idx != SIZE_MAX)
		printf("; not checked from %s on: %s",
		        trace_event_name(c->t->events[r->end_idx].event, name), r->why);
	printf("\n");
}

static void json_result(json_t *j, const ctx_t *c, const result_t *r)
{
	static const char *const names[_OUTCOME_MAX] = {
	        [OUTCOME_CONFORMS] = "conforms",
	        [OUTCOME_FAILS] = "does not conform",
	        [OUTCOME_UNKNOWN] = "unknown event",
	        [OUTCOME_SKIPPED] = "not checked",
	};
	const trace_t *t = c->t;
	char sw[160], name[24];

	json_begin_object(j);
	json_kv_string(j, "fmri", r->fmri);
	json_kv_string(j, "outcome", names[r->outcome]);
	json_kv_string(j, "model",
	        r->outcome == OUTCOME_SKIPPED ? NULL
	                                      : describe_switches(r->switches, sw, sizeof(sw)));
	json_kv_uint(j, "events", r->n_events);
	json_kv_uint(j, "steps", r->n_labels);
	json_kv_string(
	        j, "why", r->outcome == OUTCOME_CONFORMS && r->end_idx == SIZE_MAX ? NULL : r->why);
	json_key(j, "end_event");
	if (r->end_idx == SIZE_MAX)
		json_null(j);
	else
		json_string(j, trace_event_name(t->events[r->end_idx].event, name));
	json_key(j, "at");
	if (r->bad_idx == SIZE_MAX)
		json_null(j);
	else {
		const tr_event_t *e = &t->events[r->bad_idx];

		json_begin_object(j);
		json_kv_string(j, "file", t->files[e->file].name);
		json_kv_uint(j, "pid", e->pid);
		json_kv_uint(j, "tid", e->tid);
		json_kv_uint(j, "ns", e->ns - t->t0);
		json_kv_string(j, "event", trace_event_name(e->event, name));
		json_kv_string(j, "string", e->str);
		json_kv_uint(j, "allowed_steps", r->checked_labels);
		json_kv_string(j, "steps", r->label_keys);
		json_end_object(j);
	}
	json_end_object(j);
}

/* ---- the command ------------------------------------------------------------------------- */

static void ctx_done(ctx_t *c)
{
	free(c->thread_role);
	free(c->proc_configd);
	free(c->proc_startd);
	free(c->commit_of);
	free(c->commits);
	free(c->proc_events);
	hashmap_free(c->cache);
	if (c->workdir[0]) {
		/* the verifier's trails */
		char p[PATH_MAX + 32];

		snprintf(p, sizeof(p), "%s/protocol.pml.trail", c->workdir);
		(void)unlink(p);
		(void)rmdir(c->workdir);
	}
}

static int ctx_init(ctx_t *c, const trace_t *t)
{
	const char *tmp = getenv("TMPDIR");

	*c = (ctx_t){.t = t};
	c->thread_role = calloc(t->n_threads ? t->n_threads : 1, sizeof(*c->thread_role));
	c->proc_configd = calloc(t->n_procs ? t->n_procs : 1, sizeof(bool));
	c->proc_startd = calloc(t->n_procs ? t->n_procs : 1, sizeof(bool));
	c->commit_of = calloc(t->n_events ? t->n_events : 1, sizeof(size_t));
	c->cache = hashmap_new();
	if (!c->thread_role || !c->proc_configd || !c->proc_startd || !c->commit_of || !c->cache)
		return -ENOMEM;
	for (size_t p = 0; p < t->n_procs; p++) {
		c->proc_configd[p] = streq(t->procs[p].prog, "svc.configd");
		c->proc_startd[p] = streq(t->procs[p].prog, "svc.startd");
	}
	classify_threads(c);
	snprintf(c->workdir, sizeof(c->workdir), "%s/svctrace-conform.XXXXXX",
	        tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(c->workdir)) {
		int r = -errno;

		c->workdir[0] = '\0';
		return log_error_errno(r, "a working directory for the verifier");
	}
	return index_commits(c);
}

int cmd_conform(int argc, char *argv[])
{
	static const struct option opts[] = {
	        {"json", no_argument, NULL, 'j'},
	        {"quiet", no_argument, NULL, 'q'},
	        {"verbose", no_argument, NULL, 'v'},
	        {"steps", no_argument, NULL, 's'},
	        {},
	};
	bool json = false, quiet = false, verbose = false, steps = false;
	size_t counts[_OUTCOME_MAX] = {}, ended = 0, n_results = 0;
	_cleanup_free_ result_t *results = NULL;
	ctx_t c = {};
	trace_t t;
	int opt, r;

	while ((opt = getopt_long(argc, argv, "jqvs", opts, NULL)) >= 0)
		switch (opt) {
		case 's':
			steps = true;
			break;
		case 'j':
			json = true;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			verbose = true;
			break;
		default:
			return usage_error("conform");
		}
	r = load_to_judge(argc, argv, "conform", &t);
	if (r != 0)
		return r;
	if (t.drops > 0 || t.str_drops > 0) {
		log_error("%" PRIu64 " events and %" PRIu64
		          " strings were lost (trace files full): "
		          "a history with holes cannot be judged",
		        t.drops, t.str_drops);
		trace_done(&t);
		return EXIT_INTERNAL;
	}
	r = ctx_init(&c, &t);
	if (r >= 0) {
		r = find_verifier(&c);
		if (r < 0)
			log_error("the model's verifier %s is not there (svctrace-model is built "
			          "with "
			          "svctrace when spin is installed: make deps, then meson setup "
			          "--reconfigure)",
			        c.verifier);
	}
	c.steps = steps;
	results = calloc(t.n_flows ? t.n_flows : 1, sizeof(*results));
	if (!results)
		r = -ENOMEM;
	for (size_t k = 0; r >= 0 && k < t.n_flows; k++) {
		if (!t.flows[k].fmri || !strchr(t.flows[k].fmri + 5, ':'))
			continue; /* a flow that names no instance */
		r = check_instance(&c, &t.flows[k], &results[n_results]);
		if (r < 0)
			break;
		counts[results[n_results].outcome]++;
		ended += results[n_results].end_idx != SIZE_MAX;
		n_results++;
	}
	if (r < 0) {
		if (r == -ENOMEM)
			log_error("out of memory");
		ctx_done(&c);
		trace_done(&t);
		return EXIT_INTERNAL;
	}
	size_t bad = counts[OUTCOME_FAILS] + counts[OUTCOME_UNKNOWN];
	if (json && !quiet) {
		json_t j;

		json_init(&j, stdout);
		json_begin_object(&j);
		json_key(&j, "instances");
		json_begin_array(&j);
		for (size_t k = 0; k < n_results; k++)
			json_result(&j, &c, &results[k]);
		json_end_array(&j);
		json_key(&j, "summary");
		json_begin_object(&j);
		json_kv_uint(&j, "instances", n_results);
		json_kv_uint(&j, "checked", n_results - counts[OUTCOME_SKIPPED]);
		json_kv_uint(&j, "conform", counts[OUTCOME_CONFORMS]);
		json_kv_uint(&j, "nonconforming", bad);
		json_kv_uint(&j, "not_checked", counts[OUTCOME_SKIPPED]);
		json_kv_uint(&j, "left_scope", ended);
		json_kv_uint(&j, "verifier_runs", c.runs);
		json_key(&j, "verify_us");
		json_us(&j, c.verify_ns);
		json_end_object(&j);
		json_end_object(&j);
		fputc('\n', stdout);
	} else if (!quiet) {
		for (size_t k = 0; k < n_results; k++)
			if (results[k].outcome == OUTCOME_FAILS ||
			        results[k].outcome == OUTCOME_UNKNOWN)
				print_failure(&c, &results[k]);
			else if (verbose)
				print_ok(&c, &results[k]);
		printf("svctrace: %zu instances, %zu conform, %zu do not, %zu not checked "
		       "(%zu checked up to where the model ends); %zu verifier runs, %.3f s\n",
		        n_results, counts[OUTCOME_CONFORMS], bad, counts[OUTCOME_SKIPPED], ended,
		        c.runs, (double)c.verify_ns / 1e9);
	}
	r = bad > 0 ? EXIT_FINDINGS : 0;
	if (fflush(stdout) != 0 || ferror(stdout)) {
		log_error_errno(-EIO, "writing the report to standard output");
		r = EXIT_INTERNAL;
	}
	ctx_done(&c);
	trace_done(&t);
	return r;
}
