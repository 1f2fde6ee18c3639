/*
 * analyze.c: finds the import/enable race in a merged trace.
 *
 * The instant an instance's restarter pg came to exist, pg(I), is configd's first
 * configd.commit of "<I>/:properties/restarter" (configd records it before it answers, so no
 * reader can have seen the pg earlier); NS_NEVER if the trace has none.
 *
 *   latent      an svccfg process emitted import.instance_committed for I and then its
 *               import.return (same pid) at time R < pg(I): the import gave the shell back
 *               while I had no restarter pg.  Window: R .. pg(I), open when pg(I) is never.
 *   manifested  svcadm read I's restarter pg at time Q and the read's svcadm.result (same
 *               pid and flow) says "absent"; or the read has no result (svcadm died) and
 *               Q < pg(I) for a pg that was committed, or I was imported in this trace and its
 *               pg never appeared.  Window: Q .. pg(I).
 *
 * A read whose result is "present" is never a finding, even with Q < pg(I): svcadm records
 * the event before it sends the read, so configd may commit the pg while the read is on its
 * way and then answer it, and that is no race.  And when the trace has no commit of I's pg
 * but svcadm found it present, the pg predates the trace (a re-import of an old instance), so
 * an import of I is no latent race either.
 *
 * One finding per instance: manifested when the instance has a manifested read (its first
 * one), else latent (its first import that returned early).  A manifested finding keeps the
 * latent import's return time too (return_ns), so the manifestation includes its latent
 * window instead of counting it twice.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "svctrace.h"
#include "trace.h"

#define RESTARTER_PG_SUFFIX "/:properties/restarter"

/* What one flow gathered while the events are walked. */
struct flow_state {
	uint64_t pg_ns;
	size_t pg_idx;
	bool imported;
	bool latent, manifested;
	bool seen_present; /* svcadm found the pg: it exists, maybe from before the trace */
	size_t return_idx, read_idx;
};

/* An import not yet returned, or a read not yet answered: (pid, flow) -> event index. */
struct pending {
	uint32_t pid;
	uint64_t flow;
	size_t idx;
};

struct pending_set {
	struct pending *v;
	size_t n, cap;
};

static int pending_add(struct pending_set *s, uint32_t pid, uint64_t flow, size_t idx)
{
	if (s->n == s->cap) {
		size_t n = s->cap ? s->cap * 2 : 16;
		struct pending *v = reallocarray(s->v, n, sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = n;
	}
	s->v[s->n++] = (struct pending){.pid = pid, .flow = flow, .idx = idx};
	return 0;
}

static void pending_remove(struct pending_set *s, size_t i)
{
	s->v[i] = s->v[--s->n];
}

static ssize_t pending_find(const struct pending_set *s, uint32_t pid, uint64_t flow)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].pid == pid && s->v[i].flow == flow)
			return (ssize_t)i;
	return -1;
}

static struct flow_state *state_of(const struct trace *t, struct flow_state *st, uint64_t flow)
{
	const struct tr_flow *f = trace_find_flow(t, flow);

	return f ? &st[f - t->flows] : NULL;
}

/* The instance whose restarter pg a commit created, or 0 when it is about another pg. */
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

static void find_pg_commits(const struct trace *t, struct flow_state *st)
{
	for (size_t i = 0; i < t->n_events; i++) {
		const struct tr_event *e = &t->events[i];
		struct flow_state *s;

		if (e->event != SMF_TRACE_CONFIGD_COMMIT)
			continue;
		s = state_of(t, st, restarter_pg_flow(e->str));
		if (s && s->pg_ns == NS_NEVER) {
			s->pg_ns = e->ns;
			s->pg_idx = i;
		}
	}
}

static void import_returned(const struct trace *t, struct flow_state *st,
        struct pending_set *imports, const struct tr_event *ret, size_t ret_idx)
{
	for (size_t i = 0; i < imports->n;) {
		struct flow_state *s;

		if (imports->v[i].pid != ret->pid) {
			i++;
			continue;
		}
		s = state_of(t, st, imports->v[i].flow);
		if (s && !s->latent && ret->ns < s->pg_ns) {
			s->latent = true;
			s->return_idx = ret_idx;
		}
		pending_remove(imports, i);
	}
}

static void read_answered(const struct trace *t, struct flow_state *st, struct pending_set *reads,
        const struct tr_event *res, size_t res_idx)
{
	ssize_t p = pending_find(reads, res->pid, res->flow);
	struct flow_state *s = state_of(t, st, res->flow);
	size_t read_idx = p >= 0 ? reads->v[p].idx : res_idx;

	if (p >= 0)
		pending_remove(reads, (size_t)p);
	if (s && res->str && streq(res->str, "present"))
		s->seen_present = true;
	if (s && !s->manifested && res->str && streq(res->str, "absent")) {
		s->manifested = true;
		s->read_idx = read_idx;
	}
}

/* Reads that never got a result: svcadm died between its read and its verdict. */
static void reads_unanswered(
        const struct trace *t, struct flow_state *st, const struct pending_set *reads)
{
	for (size_t i = 0; i < reads->n; i++) {
		struct flow_state *s = state_of(t, st, reads->v[i].flow);
		uint64_t q = t->events[reads->v[i].idx].ns;

		if (!s || s->manifested)
			continue;
		if ((s->pg_ns != NS_NEVER && q < s->pg_ns) ||
		        (s->pg_ns == NS_NEVER && s->imported)) {
			s->manifested = true;
			s->read_idx = reads->v[i].idx;
		}
	}
}

static int walk_events(const struct trace *t, struct flow_state *st)
{
	struct pending_set imports = {}, reads = {};
	int r = 0;

	for (size_t i = 0; i < t->n_events && r >= 0; i++) {
		const struct tr_event *e = &t->events[i];
		struct flow_state *s = state_of(t, st, e->flow);

		switch (e->event) {
		case SMF_TRACE_IMPORT_INSTANCE_COMMITTED:
			if (s)
				s->imported = true;
			r = s ? pending_add(&imports, e->pid, e->flow, i) : 0;
			break;
		case SMF_TRACE_IMPORT_RETURN:
			import_returned(t, st, &imports, e, i);
			break;
		case SMF_TRACE_SVCADM_READ_RESTARTER_PG:
			/* The first read of a run of reads is when the command first looked. */
			if (s && pending_find(&reads, e->pid, e->flow) < 0)
				r = pending_add(&reads, e->pid, e->flow, i);
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

static struct finding make_finding(const struct trace *t, const struct flow_state *s, size_t fi)
{
	struct finding f = {
	        .kind = s->manifested ? FINDING_MANIFESTED : FINDING_LATENT,
	        .flow = t->flows[fi].flow,
	        .fmri = t->flows[fi].fmri,
	        .open = s->pg_ns == NS_NEVER,
	        .pg_ns = s->pg_ns,
	        .return_ns = s->latent ? t->events[s->return_idx].ns : NS_NEVER,
	        .read_ns = s->manifested ? t->events[s->read_idx].ns : NS_NEVER,
	        .start_idx = s->manifested ? s->read_idx : s->return_idx,
	        .end_idx = s->pg_ns == NS_NEVER ? SIZE_MAX : s->pg_idx,
	};

	f.start_ns = t->events[f.start_idx].ns;
	f.end_ns = f.open ? t->t_end : s->pg_ns;
	return f;
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;

	if (x->start_ns != y->start_ns)
		return x->start_ns < y->start_ns ? -1 : 1;
	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

int trace_analyze(const struct trace *t, struct analysis *ret)
{
	_cleanup_free_ struct flow_state *st = calloc(t->n_flows ? t->n_flows : 1, sizeof(*st));
	struct analysis a = {.n_instances = t->n_flows};
	int r;

	if (!st)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_flows; i++)
		st[i].pg_ns = NS_NEVER;
	find_pg_commits(t, st);
	r = walk_events(t, st);
	if (r < 0)
		return r;
	a.findings = calloc(t->n_flows ? t->n_flows : 1, sizeof(*a.findings));
	if (!a.findings)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_flows; i++) {
		a.n_imported += st[i].imported;
		/* No commit in the trace, yet svcadm found the pg: it predates the trace. */
		if (st[i].latent && st[i].pg_ns == NS_NEVER && st[i].seen_present)
			st[i].latent = false;
		if (!st[i].latent && !st[i].manifested)
			continue;
		a.findings[a.n_findings++] = make_finding(t, &st[i], i);
		if (st[i].manifested)
			a.n_manifested++;
		else
			a.n_latent++;
	}
	qsort(a.findings, a.n_findings, sizeof(*a.findings), cmp_finding);
	*ret = a;
	return 0;
}

void analysis_done(struct analysis *a)
{
	free(a->findings);
	*a = (struct analysis){};
}

const struct finding *analysis_finding_of(const struct analysis *a, uint64_t flow)
{
	for (size_t i = 0; i < a->n_findings; i++)
		if (a->findings[i].flow == flow)
			return &a->findings[i];
	return NULL;
}

const char *finding_kind_name(enum finding_kind k)
{
	return k == FINDING_MANIFESTED ? "manifested" : "latent";
}
