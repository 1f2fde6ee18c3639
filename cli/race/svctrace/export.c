/*
 * export.c: "svctrace export": the merged trace as Chrome Trace Event JSON, for
 * ui.perfetto.dev and chrome://tracing.
 *
 * Every event is a tiny complete slice ("ph":"X") on its process's thread track, because flow
 * arrows bind to slices: Perfetto binds a flow point to the slice enclosing its timestamp on
 * that thread ("bp":"e" makes the end bind the same way), and Chrome's viewer to the slice
 * with the same pid, tid, cat and ts.  So a flow point carries exactly its slice's pid, tid,
 * cat and ts.  Slices of one thread must not overlap partially, so each lasts at most
 * SLICE_NS and never past the thread's next event, and events of one thread that share a
 * nanosecond are moved apart by 1 ns each.
 *
 * One flow per instance chains all its events in time order ("s", then "t", then "f"): from
 * svccfg's import through configd's commit and startd's queues to svcadm's read.  Flow ids are
 * small integers (the flow's index), not the 64-bit flow hash, which a JSON number cannot hold
 * exactly; the hash is in each slice's args.flow.  Race windows are slices on a "races"
 * process, one thread per lane so that overlapping windows do not overlap on a track.
 *
 * --fmri FMRI keeps one instance's story and what ran beside it: the events within its span
 * (its first to last event, widened to its race window) +-20%; a flow keeps its arrows only
 * when all its events are kept, so that every "s" still has its "f".  make stress writes its
 * trace.json this way: a whole run's is tens of megabytes.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "json.h"
#include "log.h"
#include "macro.h"
#include "svctrace.h"

#define SLICE_NS 1000u

typedef struct exporter {
	const trace_t *t;
	uint64_t lo, hi; /* the events kept (absolute ns); everything when not --fmri */
	json_t j;
	uint64_t *ts;  /* per event: ns since t0, strictly increasing within a thread */
	uint64_t *dur; /* per event */
} exporter_t;

static int export_times(exporter_t *x)
{
	const trace_t *t = x->t;
	_cleanup_free_ size_t *last = calloc(t->n_threads ? t->n_threads : 1, sizeof(*last));

	x->ts = calloc(t->n_events ? t->n_events : 1, sizeof(*x->ts));
	x->dur = calloc(t->n_events ? t->n_events : 1, sizeof(*x->dur));
	if (!last || !x->ts || !x->dur)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_events; i++) {
		const tr_event_t *e = &t->events[i];
		size_t *prev = &last[e->thread]; /* index + 1 of the thread's previous event */

		x->ts[i] = e->ns - t->t0;
		x->dur[i] = SLICE_NS;
		if (*prev) {
			size_t p = *prev - 1;

			if (x->ts[i] <= x->ts[p])
				x->ts[i] = x->ts[p] + 1;
			if (x->ts[i] - x->ts[p] < x->dur[p])
				x->dur[p] = x->ts[i] - x->ts[p];
		}
		*prev = i + 1;
	}
	return 0;
}

static void metadata(exporter_t *x, const char *what, uint32_t pid, uint32_t tid, const char *name)
{
	json_begin_object(&x->j);
	json_kv_string(&x->j, "name", what);
	json_kv_string(&x->j, "ph", "M");
	json_kv_uint(&x->j, "pid", pid);
	json_kv_uint(&x->j, "tid", tid);
	json_key(&x->j, "args");
	json_begin_object(&x->j);
	json_kv_string(&x->j, "name", name);
	json_end_object(&x->j);
	json_end_object(&x->j);
}

static void export_metadata(exporter_t *x)
{
	const trace_t *t = x->t;
	char name[128];

	for (size_t i = 0; i < t->n_procs; i++) {
		snprintf(name, sizeof(name), "%s [%" PRIu32 "]", t->procs[i].prog, t->procs[i].pid);
		metadata(x, "process_name", t->procs[i].pid, t->procs[i].pid, name);
	}
	for (size_t i = 0; i < t->n_threads; i++) {
		const tr_thread_t *th = &t->threads[i];

		metadata(x, "thread_name", th->pid, th->tid,
		        trace_thread_name(th, name, sizeof(name)));
	}
}

static void export_slice(exporter_t *x, size_t i)
{
	const tr_event_t *e = &x->t->events[i];
	char buf[24];

	json_begin_object(&x->j);
	json_kv_string(&x->j, "name", trace_event_name(e->event, buf));
	json_kv_string(&x->j, "cat", "smf");
	json_kv_string(&x->j, "ph", "X");
	json_key(&x->j, "ts");
	json_us(&x->j, x->ts[i]);
	json_key(&x->j, "dur");
	json_us(&x->j, x->dur[i]);
	json_kv_uint(&x->j, "pid", e->pid);
	json_kv_uint(&x->j, "tid", e->tid);
	json_key(&x->j, "args");
	json_begin_object(&x->j);
	json_kv_string(&x->j, "fmri", trace_flow_fmri(x->t, e->flow));
	json_kv_string(&x->j, "str", e->str);
	json_key(&x->j, "flow");
	if (e->flow)
		json_hex(&x->j, e->flow);
	else
		json_null(&x->j);
	json_end_object(&x->j);
	json_end_object(&x->j);
}

static bool kept(const exporter_t *x, size_t i)
{
	return x->t->events[i].ns >= x->lo && x->t->events[i].ns <= x->hi;
}

/* The flow point of event i: "s" at its flow's first event, "f" at its last, "t" between. */
static void export_flow_point(exporter_t *x, size_t i)
{
	const tr_event_t *e = &x->t->events[i];
	const tr_flow_t *f = trace_find_flow(x->t, e->flow);
	const char *ph;

	if (!f || f->n_events < 2 || !kept(x, f->first) || !kept(x, f->last))
		return;
	ph = i == f->first ? "s" : i == f->last ? "f" : "t";
	json_begin_object(&x->j);
	json_kv_string(&x->j, "name", f->fmri ? f->fmri : "instance");
	json_kv_string(&x->j, "cat", "smf");
	json_kv_string(&x->j, "ph", ph);
	json_kv_uint(&x->j, "id", (uint64_t)(f - x->t->flows) + 1);
	json_key(&x->j, "ts");
	json_us(&x->j, x->ts[i]);
	json_kv_uint(&x->j, "pid", e->pid);
	json_kv_uint(&x->j, "tid", e->tid);
	json_kv_string(&x->j, "bp", "e");
	json_end_object(&x->j);
}

static void export_race(exporter_t *x, const finding_t *f, uint32_t pid, uint32_t lane)
{
	const trace_t *t = x->t;
	uint64_t w = finding_window_ns(f);
	char name[512];

	snprintf(name, sizeof(name), "%s race %s", finding_kind_name(f->kind), strna(f->fmri));
	json_begin_object(&x->j);
	json_kv_string(&x->j, "name", name);
	json_kv_string(&x->j, "cat", "race");
	json_kv_string(&x->j, "ph", "X");
	json_key(&x->j, "ts");
	json_us(&x->j, f->start_ns - t->t0);
	json_key(&x->j, "dur");
	json_us(&x->j, w ? w : 1);
	json_kv_uint(&x->j, "pid", pid);
	json_kv_uint(&x->j, "tid", lane);
	json_key(&x->j, "args");
	json_begin_object(&x->j);
	json_kv_string(&x->j, "fmri", f->fmri);
	json_kv_string(&x->j, "kind", finding_kind_name(f->kind));
	json_key(&x->j, "window_us");
	json_us(&x->j, w);
	json_key(&x->j, "open");
	json_bool(&x->j, f->open);
	json_key(&x->j, "flow");
	json_hex(&x->j, f->flow);
	json_end_object(&x->j);
	json_end_object(&x->j);
}

/* Windows on lanes: each on the first lane free at its start (findings come by start). */
static int export_races(exporter_t *x, const analysis_t *a)
{
	const trace_t *t = x->t;
	_cleanup_free_ uint64_t *lane_end = calloc(a->n_findings + 1, sizeof(*lane_end));
	uint32_t pid = t->n_procs ? t->procs[t->n_procs - 1].pid + 1 : 1, n_lanes = 0;
	char name[32];

	if (!lane_end)
		return -ENOMEM;
	if (a->n_findings == 0)
		return 0;
	metadata(x, "process_name", pid, pid, "races");
	for (size_t i = 0; i < a->n_findings; i++) {
		const finding_t *f = &a->findings[i];
		uint32_t l = 0;

		if (f->end_ns < x->lo || f->start_ns > x->hi)
			continue;
		while (l < n_lanes && lane_end[l] > f->start_ns)
			l++;
		if (l == n_lanes) {
			snprintf(name, sizeof(name), "race windows %" PRIu32, l + 1);
			metadata(x, "thread_name", pid, l + 1, name);
			n_lanes++;
		}
		lane_end[l] = f->end_ns > f->start_ns ? f->end_ns : f->start_ns + 1;
		export_race(x, f, pid, l + 1);
	}
	return 0;
}

/* The span of fmri's events and race window, +-20%, into x->lo and x->hi. */
static int export_around(exporter_t *x, const analysis_t *a, const char *fmri)
{
	const tr_flow_t *f = trace_flow_by_fmri(x->t, fmri);
	const finding_t *w;
	uint64_t lo, hi, margin;

	if (!f)
		return log_error_errno(-ENOENT, "no instance %s in the trace", fmri);
	lo = x->t->events[f->first].ns;
	hi = x->t->events[f->last].ns;
	w = analysis_finding_of(a, f->flow);
	if (w && w->start_ns < lo)
		lo = w->start_ns;
	if (w && w->end_ns > hi)
		hi = w->end_ns;
	margin = (hi - lo) / 5;
	x->lo = lo > margin ? lo - margin : 0;
	x->hi = hi + margin;
	return 0;
}

static int export_write(const trace_t *t, const char *fmri, FILE *out)
{
	exporter_t x = {.t = t, .lo = 0, .hi = UINT64_MAX};
	analysis_t a;
	int r;

	r = trace_analyze(t, &a);
	if (r < 0)
		return r;
	if (fmri && (r = export_around(&x, &a, fmri)) < 0) {
		analysis_done(&a);
		return r;
	}
	r = export_times(&x);
	json_init(&x.j, out);
	json_begin_object(&x.j);
	json_key(&x.j, "traceEvents");
	json_begin_array(&x.j);
	if (r >= 0) {
		export_metadata(&x);
		for (size_t i = 0; i < t->n_events; i++) {
			if (!kept(&x, i))
				continue;
			export_slice(&x, i);
			export_flow_point(&x, i);
		}
		r = export_races(&x, &a);
	}
	json_end_array(&x.j);
	json_kv_string(&x.j, "displayTimeUnit", "ns");
	json_key(&x.j, "otherData");
	json_begin_object(&x.j);
	json_kv_string(&x.j, "generator", SVCTRACE_VERSION);
	json_kv_string(&x.j, "source", t->dir);
	json_end_object(&x.j);
	json_end_object(&x.j);
	fputc('\n', out);
	free(x.ts);
	free(x.dur);
	analysis_done(&a);
	return r;
}

int cmd_export(int argc, char *argv[])
{
	return run_writer(argc, argv, "export", export_write);
}
