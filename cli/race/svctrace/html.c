/*
 * html.c: "svctrace html": a self-contained page showing one instance's timeline.
 *
 * The page (report-template.html, compiled in as svctrace_report_template by
 * tools/embed.py) holds one marker, "/\*SVCTRACE_DATA*\/null", in its <script>; it is replaced
 * by one JSON object (the contract is in docs/man/svctrace.1 and in the template's header):
 * the focus instance and its window, the processes and threads, the events of the focus flow
 * and those of other flows near it, the findings and the summary.  json.c escapes "</" and
 * "<!" in strings, so no string of the trace can end the script element.
 *
 * Which events: every event of the focus flow, and every other event within the focus span
 * (the flow's first to last event, widened to its window) +-20%, at most MAX_EVENTS; when
 * there are more, the margin shrinks, then other flows' events are thinned evenly.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "log.h"
#include "macro.h"
#include "report-template.h"
#include "svctrace.h"

#define MARKER "/*SVCTRACE_DATA*/null"
#define MAX_EVENTS 2000

typedef struct focus {
	const tr_flow_t *flow; /* NULL when the trace has no instance at all */
	const finding_t *finding;
	uint64_t span_start, span_end; /* absolute ns */
	size_t *idx;                   /* events to show, in time order */
	size_t n_idx;
} focus_t;

/* The first manifested finding, else the first latent one, else NULL. */
static const finding_t *first_finding(const analysis_t *a)
{
	for (size_t i = 0; i < a->n_findings; i++)
		if (a->findings[i].kind == FINDING_MANIFESTED)
			return &a->findings[i];
	return a->n_findings ? &a->findings[0] : NULL;
}

static int pick_focus(const trace_t *t, const analysis_t *a, const char *fmri, focus_t *fc)
{
	if (fmri) {
		fc->flow = trace_flow_by_fmri(t, fmri);
		if (!fc->flow)
			return log_error_errno(-ENOENT, "no instance %s in the trace", fmri);
		fc->finding = analysis_finding_of(a, fc->flow->flow);
	} else if ((fc->finding = first_finding(a)))
		fc->flow = trace_find_flow(t, fc->finding->flow);
	else if (t->n_flows > 0)
		fc->flow = &t->flows[0];
	if (!fc->flow) {
		fc->span_start = t->t0;
		fc->span_end = t->t_end;
		return 0;
	}
	fc->span_start = t->events[fc->flow->first].ns;
	fc->span_end = t->events[fc->flow->last].ns;
	if (fc->finding) {
		if (fc->finding->start_ns < fc->span_start)
			fc->span_start = fc->finding->start_ns;
		if (fc->finding->end_ns > fc->span_end)
			fc->span_end = fc->finding->end_ns;
	}
	return 0;
}

static bool in_focus(const focus_t *fc, const tr_event_t *e)
{
	return !fc->flow || e->flow == fc->flow->flow;
}

/* Events of other flows within the span widened by margin on each side. */
static size_t count_near(const trace_t *t, const focus_t *fc, uint64_t margin)
{
	uint64_t lo = fc->span_start > margin ? fc->span_start - margin : 0;
	uint64_t hi = fc->span_end + margin;
	size_t n = 0;

	for (size_t i = 0; i < t->n_events; i++)
		n += !in_focus(fc, &t->events[i]) && t->events[i].ns >= lo && t->events[i].ns <= hi;
	return n;
}

static int select_events(const trace_t *t, focus_t *fc)
{
	uint64_t margin = (fc->span_end - fc->span_start) / 5, lo, hi;
	size_t own = fc->flow ? fc->flow->n_events : 0, near, stride = 1, k = 0;

	while ((near = count_near(t, fc, margin)) + own > MAX_EVENTS && margin > 0)
		margin /= 2;
	if (own < MAX_EVENTS && near > MAX_EVENTS - own)
		stride = (near + (MAX_EVENTS - own) - 1) / (MAX_EVENTS - own);
	else if (own >= MAX_EVENTS)
		stride = SIZE_MAX;
	lo = fc->span_start > margin ? fc->span_start - margin : 0;
	hi = fc->span_end + margin;
	fc->idx = calloc(own + near + 1, sizeof(*fc->idx));
	if (!fc->idx)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_events; i++) {
		const tr_event_t *e = &t->events[i];

		if (in_focus(fc, e))
			fc->idx[fc->n_idx++] = i;
		else if (e->ns >= lo && e->ns <= hi && k++ % stride == 0)
			fc->idx[fc->n_idx++] = i;
	}
	return 0;
}

static const char *focus_kind(const focus_t *fc)
{
	return fc->finding ? finding_kind_name(fc->finding->kind) : "none";
}

/* The finding in one sentence: who read or returned, what it missed, whose commit caused it. */
static void explain(const trace_t *t, const finding_t *f, char *buf, size_t size)
{
	char who[64], writer[64], cause[64], got[48];
	const tr_proc_t *reader = trace_find_proc(t, f->reader_pid);
	int n = 0;

	if (f->rule == FINDING_RULE_READ) {
		if (f->read_generation)
			snprintf(got, sizeof(got), "at generation %" PRIu64, f->read_generation);
		else
			snprintf(got, sizeof(got), "absent");
		n = snprintf(buf, size, "%s read %s and found it %s",
		        trace_proc_name(t, f->reader_pid, who), strna(f->object), got);
		if (reader && reader->exit_status != EXIT_UNKNOWN)
			n += snprintf(buf + n, size - (size_t)n, " (it exited %" PRId32 ")",
			        reader->exit_status);
	} else
		n = snprintf(buf, size, "%s returned while %s did not exist",
		        trace_proc_name(t, t->events[f->return_idx].pid, who), strna(f->object));
	if ((size_t)n >= size)
		return;
	if (f->open)
		n += snprintf(buf + n, size - (size_t)n, "; the write announced for it never came");
	else
		n += snprintf(buf + n, size - (size_t)n, ", before %s %s it (commit %" PRIu64 ")",
		        trace_proc_name(t, f->writer_pid, writer),
		        f->write_created ? "created" : "changed", f->write_commit);
	if ((size_t)n < size && f->cause_commit)
		n += snprintf(buf + n, size - (size_t)n,
		        ", a write caused by commit %" PRIu64 " (%s) of %s", f->cause_commit,
		        strna(f->cause_request), trace_proc_name(t, f->cause_pid, cause));
	if ((size_t)n < size && f->kind == FINDING_LATENT && f->rule == FINDING_RULE_READ)
		n += snprintf(buf + n, size - (size_t)n, "; it read it again after the write");
	if ((size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ".");
}

static void data_focus(json_t *j, const trace_t *t, const focus_t *fc, uint64_t base)
{
	char why[1024];

	json_key(j, "focus");
	json_begin_object(j);
	json_kv_string(j, "fmri", fc->flow ? fc->flow->fmri : NULL);
	json_key(j, "flow");
	if (fc->flow)
		json_hex(j, fc->flow->flow);
	else
		json_null(j);
	json_kv_string(j, "kind", focus_kind(fc));
	json_key(j, "window_us");
	if (fc->finding)
		json_us(j, finding_window_ns(fc->finding));
	else
		json_null(j);
	json_key(j, "open");
	json_bool(j, fc->finding && fc->finding->open);
	json_kv_uint(j, "start_ns", (fc->finding ? fc->finding->start_ns : fc->span_start) - base);
	json_kv_uint(j, "end_ns", (fc->finding ? fc->finding->end_ns : fc->span_end) - base);
	json_kv_string(j, "object", fc->finding ? fc->finding->object : NULL);
	if (fc->finding)
		explain(t, fc->finding, why, sizeof(why));
	json_kv_string(j, "explain", fc->finding ? why : NULL);
	json_end_object(j);
}

static void data_processes(json_t *j, const trace_t *t)
{
	char name[96];

	json_key(j, "processes");
	json_begin_array(j);
	for (size_t p = 0, th = 0; p < t->n_procs; p++) {
		json_begin_object(j);
		json_kv_uint(j, "pid", t->procs[p].pid);
		json_kv_string(j, "prog", t->procs[p].prog);
		json_key(j, "threads");
		json_begin_array(j);
		for (; th < t->n_threads && t->threads[th].proc == p; th++) {
			const tr_thread_t *x = &t->threads[th];

			json_begin_object(j);
			json_kv_uint(j, "tid", x->tid);
			json_kv_string(j, "name", trace_thread_name(x, name, sizeof(name)));
			json_end_object(j);
		}
		json_end_array(j);
		json_end_object(j);
	}
	json_end_array(j);
}

static void data_events(json_t *j, const trace_t *t, const focus_t *fc, uint64_t base)
{
	char buf[24];

	json_key(j, "events");
	json_begin_array(j);
	for (size_t k = 0; k < fc->n_idx; k++) {
		const tr_event_t *e = &t->events[fc->idx[k]];

		json_begin_object(j);
		json_kv_uint(j, "t", e->ns - base);
		json_kv_uint(j, "pid", e->pid);
		json_kv_uint(j, "tid", e->tid);
		json_kv_string(j, "name", trace_event_name(e->event, buf));
		json_key(j, "flow");
		if (e->flow)
			json_hex(j, e->flow);
		else
			json_null(j);
		json_kv_string(j, "fmri", trace_flow_fmri(t, e->flow));
		json_kv_string(j, "str", e->str);
		json_key(j, "focus");
		json_bool(j, fc->flow && e->flow == fc->flow->flow);
		json_end_object(j);
	}
	json_end_array(j);
}

static void data_findings(json_t *j, const analysis_t *a)
{
	json_key(j, "findings");
	json_begin_array(j);
	for (size_t i = 0; i < a->n_findings; i++) {
		json_begin_object(j);
		json_kv_string(j, "kind", finding_kind_name(a->findings[i].kind));
		json_kv_string(j, "fmri", a->findings[i].fmri);
		json_key(j, "window_us");
		json_us(j, finding_window_ns(&a->findings[i]));
		json_key(j, "open");
		json_bool(j, a->findings[i].open);
		json_kv_string(j, "object", a->findings[i].object);
		json_kv_string(j, "rule", finding_rule_name(a->findings[i].rule));
		json_end_object(j);
	}
	json_end_array(j);
}

static void write_data(FILE *f, const trace_t *t, const analysis_t *a, const focus_t *fc)
{
	/* Times count from the first event shown; the window may start before it, so clamp. */
	uint64_t base = fc->n_idx ? t->events[fc->idx[0]].ns : t->t0;
	char title[512];
	json_t j;

	if (fc->finding && fc->finding->start_ns < base)
		base = fc->finding->start_ns;
	if (fc->finding)
		snprintf(
		        title, sizeof(title), "%s race: %s", focus_kind(fc), strna(fc->flow->fmri));
	else
		snprintf(title, sizeof(title), "svctrace: %s",
		        fc->flow ? strna(fc->flow->fmri) : "no instance");
	json_init(&j, f);
	json_begin_object(&j);
	json_kv_string(&j, "title", title);
	json_kv_string(&j, "generated_by", SVCTRACE_VERSION);
	data_focus(&j, t, fc, base);
	data_processes(&j, t);
	data_events(&j, t, fc, base);
	data_findings(&j, a);
	json_key(&j, "summary");
	json_begin_object(&j);
	json_kv_uint(&j, "instances", a->n_instances);
	json_kv_uint(&j, "latent", a->n_latent);
	json_kv_uint(&j, "manifested", a->n_manifested);
	/* What the recorders lost: a reader of the page should know its windows may be wrong. */
	json_kv_uint(&j, "drops", t->drops);
	json_kv_uint(&j, "string_drops", t->str_drops);
	json_end_object(&j);
	json_end_object(&j);
}

static int html_write(const trace_t *t, const char *fmri, FILE *out)
{
	const char *tpl = svctrace_report_template, *m = strstr(tpl, MARKER);
	focus_t fc = {};
	analysis_t a;
	int r;

	if (!m)
		return log_error_errno(-EINVAL, "the compiled-in template has no " MARKER);
	r = trace_analyze(t, &a);
	if (r < 0)
		return r;
	r = pick_focus(t, &a, fmri, &fc);
	if (r >= 0)
		r = select_events(t, &fc);
	if (r >= 0) {
		fwrite(tpl, 1, (size_t)(m - tpl), out);
		write_data(out, t, &a, &fc);
		fputs(m + strlen(MARKER), out);
	}
	free(fc.idx);
	analysis_done(&a);
	return r;
}

int cmd_html(int argc, char *argv[])
{
	return run_writer(argc, argv, "html", html_write);
}
