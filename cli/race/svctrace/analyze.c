/*
 * analyze.c: the race oracle, reader-before-async-writer races in a merged trace.
 *
 * THE MODEL.  A command (a process that recorded proc.start) reads objects (pgs: every libscf
 * read is one scf.read, with the generation it got or its absence) and commits writes (configd
 * numbers each one: configd.write, with the committer's pid).  Some writes are made by another
 * process *because of* an earlier commit: svc.startd hears of a commit through a notification
 * that carries its id, and the id follows its work to its own write, which it announces right
 * before (startd.write, cause = that id).  So every write has at most one cause, a commit, and
 * a chain of causes back to a command's commit.  A reader-before-async-writer race is then:
 *
 *   a read R, by process P, of object O, that returned absent or generation g, and a write W
 *   of O by another process, where W is the FIRST write of O that descends (through the chain
 *   of causes) from a commit C made before R was sent, by P itself or by another command of
 *   P's script, and R did not see W: W created O after R was sent (R absent), or W's
 *   generation is above g.
 *
 * "The first": once C's consequences have reached O, a reader has seen C's effect, and later
 * writes that descend from C too (startd's next state) are progress it can wait on, not a
 * window.  C's own commit counts among them: when C itself wrote O (configd-eager creates the
 * restarter pg in the instance's own transaction; svcadm writes restarter_actions, which
 * startd then clears), a reader that saw C's O has seen C's effect.  "Of P's script": two commands belong to one script when they share session and
 * process group (a shell script's commands do: without job control every command of it runs
 * in the script's process group; an interactive shell gives each command line its own group).
 * Daemons are never commands.
 *
 * Not races:
 *   wait       P received a notification about O after R (scf.notify_received) and read O
 *              again after that: it waited for the object, as svcadm -s and the import wait do;
 *              or P read O again after R while it had registered for O's notifications (its
 *              pg name): a waiter whose periodic re-check came before the notification;
 *   validated  P later committed O in a generation-checked transaction (a Commit request): the
 *              commit would have been refused had O moved, so P acted on no stale view.
 *
 * The verdict of a read race:
 *   manifested  P failed (exit status not 0, or no proc.exit: killed), or it never read O again
 *               after W: what it printed or decided came from the stale view;
 *   latent      P read O again after W (not as a wait: it caught up by itself) and exited 0.
 *
 * Returns.  A command also depends on what it leaves behind: when P returns (import.return,
 * the end of svccfg's import command, or proc.exit) while an object that a commit of P's will
 * cause to be CREATED does not exist yet, whatever the script runs next may find it absent.
 * That is a latent race (window: the return to the creation), unless a read finds it absent
 * in the window, which makes it manifested.  Only creations count at a return: an object that
 * exists has a state a later command can read and wait on; a missing one makes it fail
 * ("misconfigured").  This is today's import check, one case of the rule: an import that
 * returned before startd created the instance's restarter pg is latent; svcadm reading it
 * absent is manifested.
 *
 * Open windows.  A read that found O absent, while another process had announced a write of O
 * (startd.write) for a commit of P's script made before the read, and that write never came by
 * the end of the trace (the writer was killed, or the trace stopped), is manifested with an
 * open window.
 *
 * One finding per racing write W (or per open read): manifested when a read manifested it,
 * else latent; a manifested finding keeps the latent return that opened the same window.
 *
 * Time.  A read is recorded when its answer came, with the time its request left (arg1);
 * configd answered in between.  "R did not see W" is decided by generations where R saw one
 * (configd commits them in order) and, for an absent read, by W coming after the request left.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "svctrace.h"
#include "trace.h"

#define MAX_CHAIN 64 /* longer cause chains are cut: a guard, real ones are 1 to 3 long */

typedef enum write_kind { W_CREATED, W_CHANGED, W_DELETED } write_kind_t;

/* A write request that configd committed (configd.write). */
typedef struct commit {
	uint64_t id;
	uint32_t configd_pid; /* the configd that numbered it: ids restart with configd */
	uint32_t pid;         /* the committer (SO_PEERCRED) */
	const char *request;
	size_t idx; /* its configd.write event */
	uint64_t ns;
	size_t cause;    /* index of the commit it descends from, SIZE_MAX when none */
	size_t announce; /* the event that named the cause (startd.write), SIZE_MAX when none */
} commit_t;

/* What one commit did to one pg. */
typedef struct pgwrite {
	const char *object; /* pooled pg FMRI */
	uint64_t flow;
	size_t commit; /* index in commits */
	size_t idx;    /* the event that dates it: pg_created for a creation */
	uint64_t ns;
	uint64_t gen; /* 0 for a deletion */
	write_kind_t kind;
} pgwrite_t;

/* The first write of an object that descends from a commit. */
typedef struct effect {
	size_t commit; /* the ancestor */
	size_t write;  /* index in writes */
} effect_t;

/* A libscf read. */
typedef struct read {
	size_t idx;
	uint32_t pid;
	const char *object;
	uint64_t flow;
	uint64_t sent_ns, ns; /* request left, answer recorded */
	uint64_t gen;         /* 0: absent */
} read_t;

/* A notification handed to a process (scf.notify_received), or a startd.write announcement. */
typedef struct objev {
	uint32_t pid;
	const char *object;
	uint64_t ns;
	size_t idx;
} objev_t;

typedef struct oracle {
	const trace_t *t;
	commit_t *commits;
	size_t n_commits, cap_commits;
	size_t *by_id;     /* commit indexes sorted by (id, ns) */
	pgwrite_t *writes; /* sorted by (object, ns) once built */
	size_t n_writes, cap_writes;
	effect_t *effects; /* sorted by (object of the write, ancestor's ns) */
	size_t n_effects, cap_effects;
	read_t *reads; /* sorted by (pid, object, ns) */
	size_t n_reads, cap_reads;
	objev_t *notes; /* notifications received, sorted by (pid, object, ns) */
	size_t n_notes, cap_notes;
	objev_t *announces; /* startd.write, sorted by (pid, object, ns) */
	size_t n_announces, cap_announces;
	objev_t *interests; /* scf.notify_interest by pg name (object: the name), in time order */
	size_t n_interests, cap_interests;
	size_t *eff_by_pid; /* effects by (committer of the ancestor, its time) */
	size_t *race_of;    /* per write: its race (index in the race set), SIZE_MAX if none */
	size_t n_waits;
} oracle_t;

/* What the oracle found about one racing write (or one open read), before it becomes a finding. */
typedef struct race {
	const char *object;
	uint64_t flow;
	size_t write;     /* index in writes, SIZE_MAX: open */
	size_t ret_idx;   /* the earliest return before the write, SIZE_MAX when none */
	size_t ret_cause; /* the commit of that return's command the write descends from */
	size_t read;      /* the racing read (index in reads), SIZE_MAX when none */
	size_t read_cause;
	bool manifested;
} race_t;

typedef struct race_set {
	race_t *v;
	size_t n, cap;
} race_set_t;

static int cmp_ptr(const void *a, const void *b)
{
	return a < b ? -1 : a > b;
}

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a < b ? -1 : a > b;
}

/* ---- commits and writes ------------------------------------------------------------------ */

/* The commit configd pid is answering, by walking its events in order. */
typedef struct configd_run {
	uint32_t pid;
	size_t commit; /* SIZE_MAX before its first configd.write */
} configd_run_t;

static size_t *current_commit(configd_run_t **runs, size_t *n, size_t *cap, uint32_t pid)
{
	for (size_t i = 0; i < *n; i++)
		if ((*runs)[i].pid == pid)
			return &(*runs)[i].commit;
	if (GREEDY_REALLOC(*runs, *cap, *n + 1) < 0)
		return NULL;
	(*runs)[*n] = (configd_run_t){.pid = pid, .commit = SIZE_MAX};
	return &(*runs)[(*n)++].commit;
}

static int add_write(oracle_t *o, const tr_event_t *e, size_t idx, size_t commit, write_kind_t k)
{
	pgwrite_t *last = o->n_writes ? &o->writes[o->n_writes - 1] : NULL;

	/* configd.pg_created comes right before its configd.commit: one creation. */
	if (k == W_CHANGED && last && last->kind == W_CREATED && last->commit == commit &&
	        last->object == e->str)
		return 0;
	if (GREEDY_REALLOC(o->writes, o->cap_writes, o->n_writes + 1) < 0)
		return -ENOMEM;
	o->writes[o->n_writes++] = (pgwrite_t){
	        .object = e->str,
	        .flow = e->flow,
	        .commit = commit,
	        .idx = idx,
	        .ns = e->ns,
	        .gen = k == W_DELETED ? 0 : e->arg1,
	        .kind = k,
	};
	return 0;
}

static int add_objev(objev_t **v, size_t *n, size_t *cap, const tr_event_t *e, size_t idx)
{
	if (!e->str)
		return 0; /* its string was lost: it names no object */
	if (GREEDY_REALLOC(*v, *cap, *n + 1) < 0)
		return -ENOMEM;
	(*v)[(*n)++] = (objev_t){.pid = e->pid, .object = e->str, .ns = e->ns, .idx = idx};
	return 0;
}

static int add_read(oracle_t *o, const tr_event_t *e, size_t idx)
{
	unsigned how = SMF_TRACE_READ_HOW(e->arg0);

	/* A snapshot is another object than the pg (no write changes it); an error read nothing. */
	if (!e->str || (how & (SMF_TRACE_READ_SNAPSHOT | SMF_TRACE_READ_ERROR)))
		return 0;
	if (GREEDY_REALLOC(o->reads, o->cap_reads, o->n_reads + 1) < 0)
		return -ENOMEM;
	o->reads[o->n_reads++] = (read_t){
	        .idx = idx,
	        .pid = e->pid,
	        .object = e->str,
	        .flow = e->flow,
	        .sent_ns = e->arg1 && e->arg1 <= e->ns ? e->arg1 : e->ns,
	        .ns = e->ns,
	        .gen = SMF_TRACE_READ_GENERATION(e->arg0),
	};
	return 0;
}

static int add_commit(oracle_t *o, const tr_event_t *e, size_t idx)
{
	if (GREEDY_REALLOC(o->commits, o->cap_commits, o->n_commits + 1) < 0)
		return -ENOMEM;
	o->commits[o->n_commits++] = (commit_t){
	        .id = e->arg0,
	        .configd_pid = e->pid,
	        .pid = (uint32_t)e->arg1,
	        .request = e->str,
	        .idx = idx,
	        .ns = e->ns,
	        .cause = SIZE_MAX,
	        .announce = SIZE_MAX,
	};
	return 0;
}

/* One pass over the events: commits, their writes, reads, notifications, announcements. */
static int collect(oracle_t *o)
{
	const trace_t *t = o->t;
	_cleanup_free_ configd_run_t *runs = NULL;
	size_t n_runs = 0, cap_runs = 0;
	int r = 0;

	for (size_t i = 0; i < t->n_events && r >= 0; i++) {
		const tr_event_t *e = &t->events[i];
		size_t *cur;

		switch (e->event) {
		case SMF_TRACE_CONFIGD_WRITE:
			cur = current_commit(&runs, &n_runs, &cap_runs, e->pid);
			if (!cur)
				return -ENOMEM;
			r = add_commit(o, e, i);
			*cur = o->n_commits - 1;
			break;
		case SMF_TRACE_CONFIGD_PG_CREATED:
		case SMF_TRACE_CONFIGD_COMMIT:
		case SMF_TRACE_CONFIGD_PG_DELETED:
			cur = current_commit(&runs, &n_runs, &cap_runs, e->pid);
			if (!cur)
				return -ENOMEM;
			/* Its write request must be the one configd is answering: else unknown. */
			if (!e->str || *cur == SIZE_MAX || o->commits[*cur].id != e->arg0)
				break;
			r = add_write(o, e, i, *cur,
			        e->event == SMF_TRACE_CONFIGD_PG_CREATED       ? W_CREATED
			                : e->event == SMF_TRACE_CONFIGD_COMMIT ? W_CHANGED
			                                                       : W_DELETED);
			break;
		case SMF_TRACE_SCF_READ:
			r = add_read(o, e, i);
			break;
		case SMF_TRACE_SCF_NOTIFY_RECEIVED:
			r = add_objev(&o->notes, &o->n_notes, &o->cap_notes, e, i);
			break;
		case SMF_TRACE_STARTD_WRITE:
			r = add_objev(&o->announces, &o->n_announces, &o->cap_announces, e, i);
			break;
		case SMF_TRACE_SCF_NOTIFY_INTEREST:
			/* by name; a type or instance interest names no pg */
			if (e->arg1 == SMF_TRACE_INTEREST_NAME)
				r = add_objev(
				        &o->interests, &o->n_interests, &o->cap_interests, e, i);
			break;
		}
	}
	return r;
}

static const oracle_t *sort_oracle; /* for the comparators: qsort has no userdata */

static int cmp_write(const void *a, const void *b)
{
	const pgwrite_t *x = a, *y = b;
	int c = cmp_ptr(x->object, y->object);

	return c ? c : cmp_u64(x->ns, y->ns);
}

static int cmp_objev(const void *a, const void *b)
{
	const objev_t *x = a, *y = b;
	int c = cmp_u64(x->pid, y->pid);

	if (!c)
		c = cmp_ptr(x->object, y->object);
	return c ? c : cmp_u64(x->ns, y->ns);
}

static int cmp_read(const void *a, const void *b)
{
	const read_t *x = a, *y = b;
	int c = cmp_u64(x->pid, y->pid);

	if (!c)
		c = cmp_ptr(x->object, y->object);
	return c ? c : cmp_u64(x->ns, y->ns);
}

static int cmp_by_id(const void *a, const void *b)
{
	const commit_t *x = &sort_oracle->commits[*(const size_t *)a],
	               *y = &sort_oracle->commits[*(const size_t *)b];
	int c = cmp_u64(x->id, y->id);

	return c ? c : cmp_u64(x->ns, y->ns);
}

/* The commit with that id that configd numbered last at or before ns, SIZE_MAX if none. */
static size_t commit_by_id(const oracle_t *o, uint64_t id, uint64_t ns)
{
	size_t lo = 0, hi = o->n_commits, best = SIZE_MAX;

	while (lo < hi) { /* the first of that id */
		size_t mid = lo + (hi - lo) / 2;

		if (o->commits[o->by_id[mid]].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < o->n_commits && o->commits[o->by_id[lo]].id == id; lo++)
		if (o->commits[o->by_id[lo]].ns <= ns)
			best = o->by_id[lo];
	return best;
}

/*
 * Entries of an array sorted by (pid, object, ns): the index of the first one after
 * (pid, object, ns), i.e. above it in that order.  The callers check that it is still of
 * (pid, object), and the one before it for "at or before".
 */
#define UPPER_BOUND(v, n, pid_, object_, ns_)                                                      \
	({                                                                                         \
		size_t lo_ = 0, hi_ = (n);                                                         \
		while (lo_ < hi_) {                                                                \
			size_t mid_ = lo_ + (hi_ - lo_) / 2;                                       \
			int c_ = cmp_u64((v)[mid_].pid, (pid_));                                   \
			if (!c_)                                                                   \
				c_ = cmp_ptr((v)[mid_].object, (object_));                         \
			if (!c_)                                                                   \
				c_ = cmp_u64((v)[mid_].ns, (ns_));                                 \
			if (c_ <= 0)                                                               \
				lo_ = mid_ + 1;                                                    \
			else                                                                       \
				hi_ = mid_;                                                        \
		}                                                                                  \
		lo_;                                                                               \
	})

/* The first entry of v at (pid, object) strictly after ns, SIZE_MAX if none. */
static size_t objev_after(const objev_t *v, size_t n, uint32_t pid, const char *object, uint64_t ns)
{
	size_t k = UPPER_BOUND(v, n, pid, object, ns);

	return k < n && v[k].pid == pid && v[k].object == object ? k : SIZE_MAX;
}

/* The last announcement by (pid, object) at or before ns, SIZE_MAX if none. */
static size_t announce_before(const oracle_t *o, uint32_t pid, const char *object, uint64_t ns)
{
	const objev_t *v = o->announces;
	size_t k = UPPER_BOUND(v, o->n_announces, pid, object, ns);

	return k > 0 && v[k - 1].pid == pid && v[k - 1].object == object ? k - 1 : SIZE_MAX;
}

/*
 * Each commit's cause: a writer that acts on a commit announces it (startd.write: the pg and
 * the cause) right before it writes that pg, and one thread only writes a given pg, so the
 * commit by the writer's pid of that pg that follows the announcement, and comes before any
 * other commit of the pg by that pid, is the announced write.  writes[] is in (object, ns)
 * order here.
 */
static void link_causes(oracle_t *o)
{
	for (size_t w = 0; w < o->n_writes; w++) {
		const pgwrite_t *pw = &o->writes[w];
		commit_t *c = &o->commits[pw->commit];
		size_t k = announce_before(o, c->pid, pw->object, c->ns), cause;

		if (k == SIZE_MAX || c->announce != SIZE_MAX)
			continue;
		/* A commit of this pg by this pid between the announcement and c took it. */
		for (size_t p = w; p-- > 0 && o->writes[p].object == pw->object;) {
			const commit_t *pc = &o->commits[o->writes[p].commit];

			if (pc->ns <= o->announces[k].ns)
				break;
			if (pc->pid == c->pid && o->writes[p].commit != pw->commit) {
				k = SIZE_MAX;
				break;
			}
		}
		if (k == SIZE_MAX)
			continue;
		c->announce = o->announces[k].idx;
		cause = commit_by_id(o, o->t->events[o->announces[k].idx].arg0, o->announces[k].ns);
		/* Causes come first: a cause later than its effect is a broken link, dropped. */
		if (cause != SIZE_MAX && o->commits[cause].ns < c->ns)
			c->cause = cause;
	}
}

static int add_effect(oracle_t *o, size_t ancestor, size_t write)
{
	if (GREEDY_REALLOC(o->effects, o->cap_effects, o->n_effects + 1) < 0)
		return -ENOMEM;
	o->effects[o->n_effects++] = (effect_t){.commit = ancestor, .write = write};
	return 0;
}

static int cmp_effect(const void *a, const void *b)
{
	const effect_t *x = a, *y = b;
	const pgwrite_t *wx = &sort_oracle->writes[x->write], *wy = &sort_oracle->writes[y->write];
	int c = cmp_ptr(wx->object, wy->object);

	if (!c)
		c = cmp_u64(sort_oracle->commits[x->commit].ns, sort_oracle->commits[y->commit].ns);
	if (!c)
		c = cmp_u64(x->commit, y->commit);
	return c ? c : cmp_u64(wx->ns, wy->ns);
}

/*
 * For every (ancestor commit, object): the first write of the object that descends from it,
 * the ancestor's own write of the object included (THE MODEL: "the first").
 */
static int find_effects(oracle_t *o)
{
	size_t n = 0;

	for (size_t w = 0; w < o->n_writes; w++) {
		size_t c = o->writes[w].commit;

		if (o->writes[w].kind == W_DELETED)
			continue;
		for (unsigned depth = 0; c != SIZE_MAX && depth < MAX_CHAIN; depth++) {
			int r = add_effect(o, c, w);

			if (r < 0)
				return r;
			c = o->commits[c].cause;
		}
	}
	qsort(o->effects, o->n_effects, sizeof(*o->effects), cmp_effect);
	/* Keep the first write per (object, ancestor). */
	for (size_t i = 0; i < o->n_effects; i++)
		if (n == 0 || o->effects[n - 1].commit != o->effects[i].commit ||
		        o->writes[o->effects[n - 1].write].object !=
		                o->writes[o->effects[i].write].object)
			o->effects[n++] = o->effects[i];
	o->n_effects = n;
	return 0;
}

/* ---- scripts ----------------------------------------------------------------------------- */

/* Whether a commit by pid committer counts for reader (itself, or a command of its script). */
static bool same_script(const trace_t *t, uint32_t committer, uint32_t reader)
{
	const tr_proc_t *c, *p;

	if (committer == reader)
		return true;
	c = trace_find_proc(t, committer);
	p = trace_find_proc(t, reader);
	return c && p && c->command && p->command && c->sid != 0 && c->sid == p->sid &&
	        c->pgid == p->pgid;
}

/* ---- reads -------------------------------------------------------------------------------- */

static size_t writes_of(const oracle_t *o, const char *object);

/* Whether a write of the announced pg by the announcing pid was committed after it. */
static bool announce_committed(const oracle_t *o, const objev_t *a)
{
	for (size_t w = writes_of(o, a->object);
	        w < o->n_writes && o->writes[w].object == a->object; w++)
		if (o->writes[w].ns > a->ns && o->commits[o->writes[w].commit].pid == a->pid)
			return true;
	return false;
}

/* The first effect entry of object (effects sorted by object), SIZE_MAX if none. */
static size_t effects_of(const oracle_t *o, const char *object)
{
	size_t lo = 0, hi = o->n_effects;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_ptr(o->writes[o->effects[mid].write].object, object) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->n_effects && o->writes[o->effects[lo].write].object == object ? lo
	                                                                             : SIZE_MAX;
}

/* The write R missed: the earliest first-effect of a commit of R's script made before R. */
static size_t read_misses(const oracle_t *o, const read_t *rd, size_t *ret_cause)
{
	size_t best = SIZE_MAX;

	for (size_t k = effects_of(o, rd->object);
	        k < o->n_effects && o->writes[o->effects[k].write].object == rd->object; k++) {
		const commit_t *c = &o->commits[o->effects[k].commit];
		const pgwrite_t *w = &o->writes[o->effects[k].write];

		if (c->ns >= rd->sent_ns)
			break; /* by ancestor's time: the rest are later than the read */
		if (o->commits[w->commit].pid == rd->pid || !same_script(o->t, c->pid, rd->pid))
			continue;
		if (rd->gen ? w->gen <= rd->gen : w->ns <= rd->sent_ns)
			continue; /* R saw it, or it came before R */
		if (best == SIZE_MAX || w->ns < o->writes[best].ns) {
			best = o->effects[k].write;
			*ret_cause = o->effects[k].commit;
		}
	}
	return best;
}

/* Whether pid registered an interest in the pg name of object before ns. */
static bool has_interest(const oracle_t *o, uint32_t pid, const char *object, uint64_t ns)
{
	const char *name = strrchr(object, '/');

	for (size_t i = 0; name && i < o->n_interests; i++)
		if (o->interests[i].pid == pid && o->interests[i].ns < ns &&
		        streq(o->interests[i].object, name + 1))
			return true;
	return false;
}

/*
 * A wait: the reader was handed a notification about the object after the read and read it
 * again after that; or it read it again while it had asked for the object's notifications (a
 * waiter whose periodic re-check came first, as scf_restarter_wait()'s may).
 */
static bool is_wait(const oracle_t *o, const read_t *rd)
{
	size_t n = objev_after(o->notes, o->n_notes, rd->pid, rd->object, rd->ns), k;

	if (n != SIZE_MAX) {
		k = UPPER_BOUND(o->reads, o->n_reads, rd->pid, rd->object, o->notes[n].ns);
		if (k < o->n_reads && o->reads[k].pid == rd->pid &&
		        o->reads[k].object == rd->object)
			return true;
	}
	k = UPPER_BOUND(o->reads, o->n_reads, rd->pid, rd->object, rd->ns);
	return k < o->n_reads && o->reads[k].pid == rd->pid && o->reads[k].object == rd->object &&
	        has_interest(o, rd->pid, rd->object, o->reads[k].sent_ns);
}

/* The first write of the object (writes sorted by object), SIZE_MAX if none. */
static size_t writes_of(const oracle_t *o, const char *object)
{
	size_t lo = 0, hi = o->n_writes;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (cmp_ptr(o->writes[mid].object, object) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < o->n_writes && o->writes[lo].object == object ? lo : SIZE_MAX;
}

/* P committed the object later in a generation-checked transaction (Commit). */
static bool is_validated(const oracle_t *o, const read_t *rd)
{
	for (size_t w = writes_of(o, rd->object);
	        w < o->n_writes && o->writes[w].object == rd->object; w++) {
		const commit_t *c = &o->commits[o->writes[w].commit];

		if (c->pid == rd->pid && c->ns > rd->ns && c->request &&
		        streq(c->request, "Commit"))
			return true;
	}
	return false;
}

/* Manifested unless P read the object again after W, saw it, and exited 0. */
static bool read_manifested(const oracle_t *o, const read_t *rd, const pgwrite_t *w)
{
	const tr_proc_t *p = trace_find_proc(o->t, rd->pid);

	if (!p || p->exit_status != 0)
		return true;
	for (const read_t *r2 = rd + 1;
	        r2 < o->reads + o->n_reads && r2->pid == rd->pid && r2->object == rd->object; r2++)
		if (r2->sent_ns > w->ns && r2->gen >= w->gen && r2->gen > 0)
			return false;
	return true;
}

static race_t *race_of_write(race_set_t *s, oracle_t *o, size_t w)
{
	if (o->race_of[w] != SIZE_MAX)
		return &s->v[o->race_of[w]];
	if (GREEDY_REALLOC(s->v, s->cap, s->n + 1) < 0)
		return NULL;
	o->race_of[w] = s->n;
	s->v[s->n] = (race_t){
	        .object = w == SIZE_MAX ? NULL : o->writes[w].object,
	        .flow = w == SIZE_MAX ? 0 : o->writes[w].flow,
	        .write = w,
	        .ret_idx = SIZE_MAX,
	        .ret_cause = SIZE_MAX,
	        .read = SIZE_MAX,
	        .read_cause = SIZE_MAX,
	};
	return &s->v[s->n++];
}

/*
 * For a read that found the object absent and that no write of it followed: a write of it
 * that another process announced (startd.write) for a commit of the read's script made before
 * the read, and never committed by the end of the trace.  The commit, SIZE_MAX if none.
 */
static size_t open_cause(const oracle_t *o, const read_t *rd)
{
	for (size_t w = writes_of(o, rd->object);
	        w < o->n_writes && o->writes[w].object == rd->object; w++)
		if (o->writes[w].ns > rd->sent_ns && o->writes[w].kind != W_DELETED)
			return SIZE_MAX;
	/* Rare (no write after the read): a scan of the announcements is cheap enough. */
	for (size_t k = 0; k < o->n_announces; k++) {
		const objev_t *a = &o->announces[k];
		size_t c;

		if (a->object != rd->object || a->pid == rd->pid)
			continue;
		/* Committed later: then it is a write above, not an open one. */
		if (k + 1 < o->n_announces && o->announces[k + 1].pid == a->pid &&
		        o->announces[k + 1].object == a->object)
			continue;
		c = commit_by_id(o, o->t->events[a->idx].arg0, a->ns);
		if (c != SIZE_MAX && o->commits[c].ns < rd->sent_ns &&
		        same_script(o->t, o->commits[c].pid, rd->pid) && !announce_committed(o, a))
			return c;
	}
	return SIZE_MAX;
}

static int judge_reads(oracle_t *o, race_set_t *races)
{
	for (size_t i = 0; i < o->n_reads; i++) {
		const read_t *rd = &o->reads[i];
		size_t cause = SIZE_MAX, w = read_misses(o, rd, &cause);
		bool manifested;
		race_t *rc;

		if (w == SIZE_MAX && rd->gen == 0) {
			/* Absent, and the write it waits for never came: an open window? */
			cause = open_cause(o, rd);
			if (cause == SIZE_MAX || is_wait(o, rd))
				continue;
			if (GREEDY_REALLOC(races->v, races->cap, races->n + 1) < 0)
				return -ENOMEM;
			races->v[races->n++] = (race_t){.object = rd->object,
			        .flow = rd->flow,
			        .write = SIZE_MAX,
			        .ret_idx = SIZE_MAX,
			        .ret_cause = SIZE_MAX,
			        .read = i,
			        .read_cause = cause,
			        .manifested = true};
			continue;
		}
		if (w == SIZE_MAX)
			continue;
		if (is_wait(o, rd)) {
			o->n_waits++;
			continue;
		}
		if (is_validated(o, rd))
			continue;
		manifested = read_manifested(o, rd, &o->writes[w]);
		rc = race_of_write(races, o, w);
		if (!rc)
			return -ENOMEM;
		/* The first manifested read, else the first read. */
		if (rc->read == SIZE_MAX || (manifested && !rc->manifested) ||
		        (manifested == rc->manifested &&
		                rd->sent_ns < o->reads[rc->read].sent_ns)) {
			rc->read = i;
			rc->read_cause = cause;
			rc->manifested = manifested;
		}
	}
	return 0;
}

/* ---- returns ------------------------------------------------------------------------------ */

/* Whether the object did not exist at ns, as far as writes tell: w created it after ns. */
static bool absent_until(const oracle_t *o, size_t w, uint64_t ns)
{
	const pgwrite_t *pw = &o->writes[w];

	if (pw->kind != W_CREATED || pw->ns <= ns)
		return false;
	/* The write before the creation (a deletion, if any) came before ns. */
	return w == 0 || o->writes[w - 1].object != pw->object || o->writes[w - 1].ns < ns;
}

static int cmp_eff_by_pid(const void *a, const void *b)
{
	const commit_t *x = &sort_oracle->commits[sort_oracle->effects[*(const size_t *)a].commit],
	               *y = &sort_oracle->commits[sort_oracle->effects[*(const size_t *)b].commit];
	int c = cmp_u64(x->pid, y->pid);

	return c ? c : cmp_u64(x->ns, y->ns);
}

/* A return (import.return or proc.exit) at event ret: its process's commits before it. */
static int judge_return(oracle_t *o, race_set_t *races, size_t ret)
{
	const tr_event_t *x = &o->t->events[ret];
	size_t lo = 0, hi = o->n_effects;

	while (lo < hi) { /* the first effect of a commit by x's pid */
		size_t mid = lo + (hi - lo) / 2;

		if (o->commits[o->effects[o->eff_by_pid[mid]].commit].pid < x->pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < o->n_effects; lo++) {
		size_t k = o->eff_by_pid[lo], w = o->effects[k].write;
		const commit_t *c = &o->commits[o->effects[k].commit];
		race_t *rc;

		if (c->pid != x->pid || c->ns >= x->ns)
			break;
		if (o->commits[o->writes[w].commit].pid == x->pid || !absent_until(o, w, x->ns))
			continue;
		rc = race_of_write(races, o, w);
		if (!rc)
			return -ENOMEM;
		if (rc->ret_idx == SIZE_MAX || x->ns < o->t->events[rc->ret_idx].ns) {
			rc->ret_idx = ret;
			rc->ret_cause = o->effects[k].commit;
		}
	}
	return 0;
}

static int judge_returns(oracle_t *o, race_set_t *races)
{
	const trace_t *t = o->t;

	for (size_t i = 0; i < t->n_events; i++) {
		int r;

		if (t->events[i].event != SMF_TRACE_IMPORT_RETURN &&
		        t->events[i].event != SMF_TRACE_PROC_EXIT)
			continue;
		r = judge_return(o, races, i);
		if (r < 0)
			return r;
	}
	return 0;
}

/* ---- findings ----------------------------------------------------------------------------- */

static void fill_cause(const oracle_t *o, finding_t *f, size_t cause)
{
	const commit_t *c;

	if (cause == SIZE_MAX)
		return;
	c = &o->commits[cause];
	f->cause_commit = c->id;
	f->cause_pid = c->pid;
	f->cause_ns = c->ns;
	f->cause_idx = c->idx;
	f->cause_request = c->request;
}

static finding_t make_finding(const oracle_t *o, const race_t *rc)
{
	const trace_t *t = o->t;
	const read_t *rd = rc->read != SIZE_MAX ? &o->reads[rc->read] : NULL;
	const pgwrite_t *w = rc->write != SIZE_MAX ? &o->writes[rc->write] : NULL;
	bool manifested = rd && rc->manifested;
	finding_t f = {
	        .kind = manifested ? FINDING_MANIFESTED : FINDING_LATENT,
	        .object = rc->object,
	        .flow = rd ? rd->flow : rc->flow,
	        .open = !w,
	        .pg_ns = w ? w->ns : NS_NEVER,
	        .end_idx = w ? w->idx : SIZE_MAX,
	        .return_ns = rc->ret_idx != SIZE_MAX ? t->events[rc->ret_idx].ns : NS_NEVER,
	        .return_idx = rc->ret_idx,
	        .read_ns = rd ? rd->sent_ns : NS_NEVER,
	        .read_idx = rd ? rd->idx : SIZE_MAX,
	        .read_generation = rd ? rd->gen : 0,
	        .reader_pid = rd ? rd->pid : 0,
	        .cause_idx = SIZE_MAX,
	};

	if (!f.flow && w)
		f.flow = w->flow;
	f.fmri = trace_flow_fmri(t, f.flow);
	if (w) {
		const commit_t *wc = &o->commits[w->commit];

		f.write_commit = wc->id;
		f.writer_pid = wc->pid;
		f.write_generation = w->gen;
		f.write_created = w->kind == W_CREATED;
	}
	/* A read that manifested it opens the window, else the earliest of the return and the read. */
	if (rd && (manifested || rc->ret_idx == SIZE_MAX || rd->sent_ns < f.return_ns)) {
		f.start_ns = rd->sent_ns;
		f.start_idx = rd->idx;
		f.rule = FINDING_RULE_READ;
		fill_cause(o, &f, rc->read_cause);
	} else {
		f.start_ns = f.return_ns;
		f.start_idx = rc->ret_idx;
		f.rule = FINDING_RULE_RETURN;
		fill_cause(o, &f, rc->ret_cause);
	}
	f.end_ns = w ? w->ns : t->t_end;
	return f;
}

static int cmp_finding(const void *a, const void *b)
{
	const finding_t *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

static void oracle_done(oracle_t *o)
{
	free(o->eff_by_pid);
	free(o->race_of);
	free(o->commits);
	free(o->by_id);
	free(o->writes);
	free(o->effects);
	free(o->reads);
	free(o->notes);
	free(o->announces);
	free(o->interests);
}

static int build(oracle_t *o)
{
	int r = collect(o);

	if (r < 0)
		return r;
	sort_oracle = o;
	o->by_id = calloc(o->n_commits ? o->n_commits : 1, sizeof(*o->by_id));
	if (!o->by_id)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_commits; i++)
		o->by_id[i] = i;
	qsort(o->by_id, o->n_commits, sizeof(*o->by_id), cmp_by_id);
	qsort(o->writes, o->n_writes, sizeof(*o->writes), cmp_write);
	qsort(o->reads, o->n_reads, sizeof(*o->reads), cmp_read);
	qsort(o->notes, o->n_notes, sizeof(*o->notes), cmp_objev);
	qsort(o->announces, o->n_announces, sizeof(*o->announces), cmp_objev);
	link_causes(o);
	r = find_effects(o);
	if (r < 0)
		return r;
	o->eff_by_pid = calloc(o->n_effects ? o->n_effects : 1, sizeof(*o->eff_by_pid));
	o->race_of = calloc(o->n_writes ? o->n_writes : 1, sizeof(*o->race_of));
	if (!o->eff_by_pid || !o->race_of)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_effects; i++)
		o->eff_by_pid[i] = i;
	qsort(o->eff_by_pid, o->n_effects, sizeof(*o->eff_by_pid), cmp_eff_by_pid);
	for (size_t i = 0; i < o->n_writes; i++)
		o->race_of[i] = SIZE_MAX;
	return 0;
}

/* Instances an svccfg of this trace imported (the stress harness compares it with its count). */
static int count_imported(const trace_t *t, size_t *ret)
{
	_cleanup_free_ bool *seen = calloc(t->n_flows ? t->n_flows : 1, sizeof(*seen));

	if (!seen)
		return -ENOMEM;
	*ret = 0;
	for (size_t i = 0; i < t->n_events; i++) {
		const tr_flow_t *fl;

		if (t->events[i].event != SMF_TRACE_IMPORT_INSTANCE_COMMITTED)
			continue;
		fl = trace_find_flow(t, t->events[i].flow);
		if (fl && !seen[fl - t->flows]) {
			seen[fl - t->flows] = true;
			(*ret)++;
		}
	}
	return 0;
}

int trace_analyze(const trace_t *t, analysis_t *ret)
{
	analysis_t a = {.n_instances = t->n_flows};
	race_set_t races = {};
	oracle_t o = {.t = t};
	int r;

	r = build(&o);
	if (r >= 0)
		r = judge_reads(&o, &races);
	if (r >= 0)
		r = judge_returns(&o, &races);
	if (r >= 0 && !(a.findings = calloc(races.n ? races.n : 1, sizeof(*a.findings))))
		r = -ENOMEM;
	if (r < 0) {
		free(races.v);
		oracle_done(&o);
		return r;
	}
	r = count_imported(t, &a.n_imported);
	if (r < 0) {
		free(races.v);
		oracle_done(&o);
		return r;
	}
	for (size_t i = 0; i < races.n; i++) {
		finding_t *f = &a.findings[a.n_findings++];

		*f = make_finding(&o, &races.v[i]);
		if (f->kind == FINDING_MANIFESTED)
			a.n_manifested++;
		else
			a.n_latent++;
	}
	a.n_reads = o.n_reads;
	a.n_waits = o.n_waits;
	a.n_commits = o.n_commits;
	for (size_t i = 0; i < o.n_commits; i++)
		a.n_caused += o.commits[i].cause != SIZE_MAX;
	free(races.v);
	oracle_done(&o);
	qsort(a.findings, a.n_findings, sizeof(*a.findings), cmp_finding);
	*ret = a;
	return 0;
}

void analysis_done(analysis_t *a)
{
	free(a->findings);
	*a = (analysis_t){};
}

const finding_t *analysis_finding_of(const analysis_t *a, uint64_t flow)
{
	for (size_t i = 0; i < a->n_findings; i++)
		if (a->findings[i].flow == flow)
			return &a->findings[i];
	return NULL;
}

const char *finding_kind_name(finding_kind_t k)
{
	return k == FINDING_MANIFESTED ? "manifested" : "latent";
}

const char *finding_rule_name(finding_rule_t r)
{
	return r == FINDING_RULE_READ ? "read" : "return";
}
