/*
 * conform-report.c: what "svctrace conform" says of an instance: a failure with its place in
 * the trace and the events around it, a conforming instance (with -v), or a JSON object
 * (--json), each with the run's switches in words.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdint.h>

#include "conform.h"
#include "macro.h"

#define CONTEXT 8

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

void conform_print_failure(const ctx_t *c, const result_t *r)
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

void conform_print_ok(const ctx_t *c, const result_t *r)
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

void conform_json_result(json_t *j, const ctx_t *c, const result_t *r)
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
