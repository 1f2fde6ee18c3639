/*
 * analyze.c: finds the import/enable race in a merged trace.
 *
 * When an instance's restarter pg exists.  configd records configd.pg_created of
 * "<I>/:properties/restarter" just before the configd.commit of a transaction that created
 * the pg, and a bare configd.commit for an update of one that already existed; it records both
 * before it answers, so no reader can have seen the pg earlier.  Deletions are not traced, so
 * the pg's life is read from the creations alone:
 *
 *   pg(I) is the first configd.pg_created of I's restarter pg.  When the trace has none but
 *   has a configd.commit of the pg, the pg predates the trace (an update of an existing pg,
 *   e.g. startd's state after an import of a running service): it exists from before the
 *   first event.  With no configd event for the pg at all it never appeared.
 *
 *   A generation: an import commits I at C (import.instance_committed), possibly after I was
 *   deleted, so what that import waits for is the first creation after C, not the first of the
 *   trace; a creation after C proves the pg was absent until then (re-created).  Only when no
 *   creation follows C does an earlier creation (or an update) mean the pg still exists.
 *
 *   latent      an svccfg process emitted import.instance_committed for I at C and then its
 *               import.return (same pid) at R, and the first creation after C comes after R,
 *               or the pg never appeared: the import gave the shell back while I had no
 *               restarter pg.  Window: R .. that creation, open when there is none.
 *   manifested  svcadm read I's restarter pg at Q and the read's svcadm.result (same pid and
 *               flow) says "absent"; or the read has no result (svcadm died) and the pg was
 *               absent at Q by the rule above (the generation of I's latest import before Q,
 *               else the whole trace), or it never appeared and I was imported in this trace.
 *               Window: Q .. the first creation (or commit, which proves the pg exists) after
 *               Q, open when there is none.
 *
 * The rule errs on the side of a window: when a pg is created, deleted and re-created while an
 * import of I returned in between, the import is latent up to the re-creation even if the
 * deletion (untraced) came after its return.
 *
 * A read whose result is "present" is never a finding, even before a creation: svcadm records
 * the event before it sends the read, so configd may create the pg while the read is on its
 * way and then answer it, and that is no race.  And when the trace has no configd event for
 * I's pg but svcadm found it present, the pg predates the trace (a re-import of an old
 * instance whose pg nobody committed since), so an import of I is no latent race either.
 *
 * A configd event whose string the recorder could not intern (its table was full) names no pg
 * and is not seen here; check warns when a file lost strings.
 *
 * One finding per instance: manifested when the instance has a manifested read (its first
 * one), else latent (its first import that returned early).  A manifested finding keeps the
 * latent import's return time too (return_ns) when both windows end at the same creation, so
 * the manifestation includes its latent window instead of counting it twice.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "svctrace.h"
#include "trace.h"

#define RESTARTER_PG_SUFFIX "/:properties/restarter"

/* A configd event about an instance's restarter pg. */
typedef struct pg_event {
	size_t idx; /* in trace.events */
	bool created;
} pg_event_t;

/* What one flow gathered while the events are walked. */
typedef struct flow_state {
	pg_event_t *pg; /* in time order */
	size_t n_pg, cap_pg;
	bool imported;
	bool latent, manifested;
	bool seen_present;  /* svcadm found the pg: it exists, maybe from before the trace */
	size_t last_commit; /* the latest import.instance_committed so far, SIZE_MAX if none */
	size_t return_idx, read_idx;
	size_t latent_end, read_end; /* the events closing the windows, SIZE_MAX when open */
} flow_state_t;

/* An import not yet returned, or a read not yet answered: (pid, flow) -> event index. */
typedef struct pending {
	uint32_t pid;
	uint64_t flow;
	size_t idx;
	size_t since; /* the generation of the flow it belongs to (see pg_absent_at()) */
} pending_t;

typedef struct pending_set {
	pending_t *v;
	size_t n, cap;
} pending_set_t;

static int pending_add(pending_set_t *s, uint32_t pid, uint64_t flow, size_t idx, size_t since)
{
	if (GREEDY_REALLOC(s->v, s->cap, s->n + 1) < 0)
		return -ENOMEM;
	s->v[s->n++] = (pending_t){.pid = pid, .flow = flow, .idx = idx, .since = since};
	return 0;
}

static void pending_remove(pending_set_t *s, size_t i)
{
	assert(i < s->n);
	s->v[i] = s->v[--s->n];
}

static ssize_t pending_find(const pending_set_t *s, uint32_t pid, uint64_t flow)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid && s->v[i].flow == flow)
			return (ssize_t)i;
	return -1;
}

static flow_state_t *state_of(const trace_t *t, flow_state_t *st, uint64_t flow)
{
	const tr_flow_t *f = trace_find_flow(t, flow);

	return f ? &st[f - t->flows] : NULL;
}

/* The instance whose restarter pg a configd event is about, or 0 when it is another pg. */
static uint64_t restarter_pg_flow(const char *pg_fmri)
{
	size_t n = pg_fmri ? strlen(pg_fmri) : 0, k = strlen(RESTARTER_PG_SUFFIX);
	char buf[4096];

	if (n <= k || n - k >= sizeof(buf) || !streq(pg_fmri + n - k, RESTARTER_PG_SUFFIX))
		return 0;
	memcpy(buf, pg_fmri, n - k);
	buf[n - k] = '\0';
	return smf_trace_flow(buf);
}

static int pg_event_add(flow_state_t *s, size_t idx, bool created)
{
	if (GREEDY_REALLOC(s->pg, s->cap_pg, s->n_pg + 1) < 0)
		return -ENOMEM;
	s->pg[s->n_pg++] = (pg_event_t){.idx = idx, .created = created};
	return 0;
}

static int find_pg_events(const trace_t *t, flow_state_t *st)
{
	for (size_t i = 0; i < t->n_events; i++) {
		const tr_event_t *e = &t->events[i];
		flow_state_t *s;
		int r;

		if (e->event != SMF_TRACE_CONFIGD_COMMIT &&
		        e->event != SMF_TRACE_CONFIGD_PG_CREATED)
			continue;
		s = state_of(t, st, restarter_pg_flow(e->str));
		if (!s)
			continue;
		r = pg_event_add(s, i, e->event == SMF_TRACE_CONFIGD_PG_CREATED);
		if (r < 0)
			return r;
	}
	return 0;
}

/* The first creation (or with any, also a commit) of the pg after event index since. */
static size_t pg_event_after(const flow_state_t *s, size_t since, bool any)
{
	for (size_t i = 0; i < s->n_pg; i++)
		if ((since == SIZE_MAX || s->pg[i].idx > since) && (any || s->pg[i].created))
			return s->pg[i].idx;
	return SIZE_MAX;
}

/*
 * Whether I's restarter pg was absent at event index at, in the generation of I that began at
 * event since (an import's commit of I; SIZE_MAX: the start of the trace).  *ret_end: the
 * creation that ended the absence, SIZE_MAX when the pg never appeared (then absent too).
 */
static bool pg_absent_at(const flow_state_t *s, size_t since, size_t at, size_t *ret_end)
{
	size_t c = pg_event_after(s, since, false);

	*ret_end = c;
	if (c != SIZE_MAX)
		return c > at;
	/* No creation after since: an earlier one, or an update, says it still exists. */
	return s->n_pg == 0;
}

static void import_returned(const trace_t *t, flow_state_t *st, pending_set_t *imports,
        const tr_event_t *ret, size_t ret_idx)
{
	for (size_t i = 0; i < imports->n;) {
		flow_state_t *s;
		size_t end;

		if (imports->v[i].pid != ret->pid) {
			i++;
			continue;
		}
		s = state_of(t, st, imports->v[i].flow);
		if (s && !s->latent && pg_absent_at(s, imports->v[i].since, ret_idx, &end)) {
			s->latent = true;
			s->return_idx = ret_idx;
			s->latent_end = end;
		}
		pending_remove(imports, i);
	}
}

static void read_answered(const trace_t *t, flow_state_t *st, pending_set_t *reads,
        const tr_event_t *res, size_t res_idx)
{
	ssize_t p = pending_find(reads, res->pid, res->flow);
	flow_state_t *s = state_of(t, st, res->flow);
	size_t read_idx = p >= 0 ? reads->v[p].idx : res_idx;

	if (p >= 0)
		pending_remove(reads, (size_t)p);
	if (s && res->str && streq(res->str, "present"))
		s->seen_present = true;
	if (s && !s->manifested && res->str && streq(res->str, "absent")) {
		s->manifested = true;
		s->read_idx = read_idx;
		/* svcadm saw it absent: whatever configd does next with the pg ends that. */
		s->read_end = pg_event_after(s, read_idx, true);
	}
}

/* Reads that never got a result: svcadm died between its read and its verdict. */
static void reads_unanswered(const trace_t *t, flow_state_t *st, const pending_set_t *reads)
{
	for (size_t i = 0; i < reads->n; i++) {
		flow_state_t *s = state_of(t, st, reads->v[i].flow);
		size_t q = reads->v[i].idx, end;

		if (!s || s->manifested)
			continue;
		/* The generation of the read: that of I's latest import before it, if any. */
		if (pg_absent_at(s, reads->v[i].since, q, &end) &&
		        (end != SIZE_MAX || s->imported)) {
			s->manifested = true;
			s->read_idx = q;
			s->read_end = end;
		}
	}
}

static int walk_events(const trace_t *t, flow_state_t *st)
{
	pending_set_t imports = {}, reads = {};
	int r = 0;

	for (size_t i = 0; i < t->n_events && r >= 0; i++) {
		const tr_event_t *e = &t->events[i];
		flow_state_t *s = state_of(t, st, e->flow);

		switch (e->event) {
		case SMF_TRACE_IMPORT_INSTANCE_COMMITTED:
			if (!s)
				break;
			s->imported = true;
			s->last_commit = i;
			r = pending_add(&imports, e->pid, e->flow, i, i);
			break;
		case SMF_TRACE_IMPORT_RETURN:
			import_returned(t, st, &imports, e, i);
			break;
		case SMF_TRACE_SVCADM_READ_RESTARTER_PG:
			/* The first read of a run of reads is when the command first looked. */
			if (s && pending_find(&reads, e->pid, e->flow) < 0)
				r = pending_add(&reads, e->pid, e->flow, i, s->last_commit);
			break;
		case SMF_TRACE_SVCADM_RESULT:
			read_answered(t, st, &reads, e, i);
			break;
		}
	}
	if (r >= 0)
		reads_unanswered(t, st, &reads);
	free(imports.v);
	free(reads.v);
	return r;
}

static finding_t make_finding(const trace_t *t, const flow_state_t *s, size_t fi)
{
	size_t end = s->manifested ? s->read_end : s->latent_end;
	/* The latent window is part of the manifested one only when both end at one creation. */
	bool with_latent = s->latent && s->latent_end == end;
	finding_t f = {
	        .kind = s->manifested ? FINDING_MANIFESTED : FINDING_LATENT,
	        .flow = t->flows[fi].flow,
	        .fmri = t->flows[fi].fmri,
	        .open = end == SIZE_MAX,
	        .pg_ns = end == SIZE_MAX ? NS_NEVER : t->events[end].ns,
	        .return_ns = with_latent ? t->events[s->return_idx].ns : NS_NEVER,
	        .read_ns = s->manifested ? t->events[s->read_idx].ns : NS_NEVER,
	        .start_idx = s->manifested ? s->read_idx : s->return_idx,
	        .end_idx = end,
	};

	f.start_ns = t->events[f.start_idx].ns;
	f.end_ns = f.open ? t->t_end : f.pg_ns;
	return f;
}

static int cmp_finding(const void *a, const void *b)
{
	const finding_t *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

static void states_free(flow_state_t *st, size_t n)
{
	for (size_t i = 0; st && i < n; i++)
		free(st[i].pg);
	free(st);
}

int trace_analyze(const trace_t *t, analysis_t *ret)
{
	flow_state_t *st = calloc(t->n_flows ? t->n_flows : 1, sizeof(*st));
	analysis_t a = {.n_instances = t->n_flows};
	int r;

	if (!st)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_flows; i++)
		st[i].last_commit = SIZE_MAX;
	r = find_pg_events(t, st);
	if (r >= 0)
		r = walk_events(t, st);
	if (r >= 0) {
		a.findings = calloc(t->n_flows ? t->n_flows : 1, sizeof(*a.findings));
		if (!a.findings)
			r = -ENOMEM;
	}
	if (r < 0) {
		states_free(st, t->n_flows);
		return r;
	}
	for (size_t i = 0; i < t->n_flows; i++) {
		flow_state_t *s = &st[i];

		a.n_imported += s->imported;
		/* No configd event for the pg, yet svcadm found it: it predates the trace. */
		if (s->latent && s->n_pg == 0 && s->seen_present)
			s->latent = false;
		if (!s->latent && !s->manifested)
			continue;
		a.findings[a.n_findings++] = make_finding(t, s, i);
		if (s->manifested)
			a.n_manifested++;
		else
			a.n_latent++;
	}
	states_free(st, t->n_flows);
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
