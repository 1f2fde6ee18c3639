/*
 * probes.c: startd's trace points (see probes.h).
 *
 * Every string is formatted on the stack, tracing on or off: no allocation on the event path,
 * and what is formatted (an FMRI, two state names) is short next to the repository round trip
 * each of these events goes with.  arg0 of every event is its cause: the commit id the
 * notification brought (notify_received), else the calling thread's current cause (queue.h).
 */
#include <stdio.h>
#include <string.h>

#include "macro.h"
#include "probe.h"
#include "probes.h"
#include "queue.h"

#define PG_FMRI_MAX (SCF_LIMIT_MAX_FMRI_LENGTH + SCF_LIMIT_MAX_NAME_LENGTH + 16)

/* The admin events are named by the restarter_actions property that asks for them. */
static const char *const event_names[] = {
        [RE_INSERT] = "insert",
        [RE_ENABLE] = "enable",
        [RE_DISABLE] = "disable",
        [RE_START] = "start",
        [RE_STOP] = "stop",
        [RE_CONTRACT_EMPTY] = "contract_empty",
        [RE_REMOVE] = "remove",
        [RE_RESTART] = RESTARTER_ACTION_RESTART,
        [RE_REFRESH] = RESTARTER_ACTION_REFRESH,
        [RE_MAINT_ON] = RESTARTER_ACTION_MAINT_ON,
        [RE_MAINT_ON_IMMEDIATE] = RESTARTER_ACTION_MAINT_ON_IMMEDIATE,
        [RE_MAINT_OFF] = RESTARTER_ACTION_MAINT_OFF,
        [RE_DEGRADED] = RESTARTER_ACTION_DEGRADED,
        [RE_RESTORE] = RESTARTER_ACTION_RESTORE,
        [RE_RESYNC] = "resync",
        [RE_SHUTDOWN] = "shutdown",
        [RE_QUIT] = "quit",
        [RE_DEPENDENCY_CYCLE] = RESTARTER_AUX_DEPENDENCY_CYCLE,
};

const char *restarter_event_name(int type)
{
	if (type <= 0 || (size_t)type >= ELEMENTSOF(event_names) || !event_names[type])
		return "unknown";
	return event_names[type];
}

#define instance_flow smf_trace_instance_flow

void probe_notify_received(const scf_notification_t *n)
{
	char buf[PG_FMRI_MAX];

	if (n->pg)
		snprintf(buf, sizeof(buf), "%s/:properties/%s", n->entity ? n->entity : "", n->pg);
	else
		snprintf(buf, sizeof(buf), "%s", n->entity ? n->entity : "");
	SMF_PROBE_ARGS(notify_received, SMF_TRACE_STARTD_NOTIFY_RECEIVED, instance_flow(n->entity),
	        buf, n->commit_id, n->generation);
}

void probe_graph_insert(const char *fmri)
{
	SMF_PROBE_ARGS(graph_insert, SMF_TRACE_STARTD_GRAPH_INSERT, instance_flow(fmri), fmri,
	        event_cause(), 0);
}

void probe_restarter_enqueue(const char *fmri, int type)
{
	SMF_PROBE_ARGS(restarter_enqueue, SMF_TRACE_STARTD_RESTARTER_ENQUEUE, instance_flow(fmri),
	        restarter_event_name(type), event_cause(), 0);
}

void probe_restarter_dequeue(const char *fmri, int type)
{
	SMF_PROBE_ARGS(restarter_dequeue, SMF_TRACE_STARTD_RESTARTER_DEQUEUE, instance_flow(fmri),
	        restarter_event_name(type), event_cause(), 0);
}

void probe_restarter_pg_written(const char *fmri)
{
	SMF_PROBE_ARGS(restarter_pg_written, SMF_TRACE_STARTD_RESTARTER_PG_WRITTEN,
	        instance_flow(fmri), fmri, event_cause(), 0);
}

void probe_write(const char *fmri, const char *pg)
{
	char buf[PG_FMRI_MAX];

	snprintf(buf, sizeof(buf), "%s/:properties/%s", fmri, pg);
	SMF_PROBE_ARGS(write, SMF_TRACE_STARTD_WRITE, instance_flow(fmri), buf, event_cause(), 0);
}

void probe_state_change(
        const char *fmri, restarter_instance_state_t from, restarter_instance_state_t to)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s>%s", restarter_state_to_string(from),
	        restarter_state_to_string(to));
	SMF_PROBE_ARGS(state_change, SMF_TRACE_STARTD_STATE_CHANGE, instance_flow(fmri), buf,
	        event_cause(), 0);
}

void probe_method_start(const char *fmri, const char *method)
{
	SMF_PROBE_ARGS(method_start, SMF_TRACE_STARTD_METHOD_START, instance_flow(fmri), method,
	        event_cause(), 0);
}

void probe_method_exit(const char *fmri, const char *method, const method_end_t *end)
{
	char buf[SCF_LIMIT_MAX_NAME_LENGTH + 32];

	if (end->outcome == METHOD_TIMEOUT)
		snprintf(buf, sizeof(buf), "%s timeout", method);
	else if (end->outcome == METHOD_CANCELED)
		snprintf(buf, sizeof(buf), "%s canceled", method);
	else if (end->code < 0)
		snprintf(buf, sizeof(buf), "%s signal %d", method, -end->code);
	else
		snprintf(buf, sizeof(buf), "%s exit %d", method, end->code);
	SMF_PROBE_ARGS(method_exit, SMF_TRACE_STARTD_METHOD_EXIT, instance_flow(fmri), buf,
	        event_cause(), 0);
}

void probe_first_sight(const char *fmri, const char *what)
{
	SMF_PROBE_ARGS(first_sight, SMF_TRACE_STARTD_FIRST_SIGHT, instance_flow(fmri), what,
	        event_cause(), 0);
}
