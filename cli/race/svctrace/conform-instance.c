/*
 * conform-instance.c: one instance checked against the model: its events gathered (its flow,
 * the commits that wrote it, its service's general pg, its two commands' flow-less events),
 * the run's switches read from them, each event mapped to a step (conform-steps.c), and the
 * steps handed to the verifier (conform-verify.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conform.h"
#include "libscf.h"
#include "log.h"
#include "macro.h"
#include "trace.h"

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return x < y ? -1 : x > y;
}

static int inst_add(inst_t *in, size_t idx)
{
	if (GREEDY_REALLOC(in->ev, in->cap_ev, in->n_ev + 1) < 0)
		return -ENOMEM;
	in->ev[in->n_ev++] = idx;
	return 0;
}

/*
 * The pooled string of a pg's FMRI, the instance's pg or (of_service) its service's, written
 * by scf_fmri_format() as every traced program wrote it: *ret NULL when no event names it.
 * 0 or -ENOMEM.
 */
static int pooled_pg_fmri(const inst_t *in, bool of_service, const char *pg, const char **ret)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {};
	_cleanup_free_ char *s = NULL;
	int r;

	*ret = NULL;
	r = scf_fmri_parse(in->fmri, &f);
	if (r >= 0) {
		if (of_service)
			f.instance = mfree(f.instance);
		f.pg = strdup(pg);
		r = f.pg ? scf_fmri_format(&f, &s) : -SCF_ERROR_NO_MEMORY;
	}
	if (r == -SCF_ERROR_NO_MEMORY)
		return -ENOMEM;
	if (r >= 0)
		*ret = hashmap_key(in->c->t->pool, s);
	return 0; /* an FMRI that does not parse names no pg of the trace */
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
	r = pooled_pg_fmri(in, true, SCF_PG_GENERAL, &in->svc_general);
	if (r >= 0)
		r = pooled_pg_fmri(in, false, SCF_PG_RESTARTER, &in->restarter_pg);
	if (r < 0)
		return r;
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
		        c->commit_of[in->ev[k]] == in->create && in->restarter_pg &&
		        e->str == in->restarter_pg)
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

/* One instance, into res; < 0 when there is no answer (said). */
int conform_check_instance(ctx_t *c, const tr_flow_t *f, result_t *res)
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
		role_t role = conform_pattern_of(&in, k, pat, sizeof(pat), &found, &ok, &status);
		const conform_rule_t *rule = conform_lookup(role, pat);

		res->n_events++;
		if (!rule) {
			unknown = k;
			snprintf(res->why_buf, sizeof(res->why_buf),
			        "no step of the model records it (role %s, %s)",
			        conform_role_name(role), pat);
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
	bad = conform_check_labels(c, in.sw, labels, n_labels);
	if (bad < -1) {
		r = (int)(bad + 2);
		goto out;
	}
	if (bad >= 0) {
		/* the first event the model does not allow, before any unknown one */
		res->outcome = OUTCOME_FAILS;
		res->bad_idx = in.ev[at[bad]];
		res->checked_labels = (size_t)bad;
		res->label_keys = conform_label_keys(labels[bad] / 16);
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
