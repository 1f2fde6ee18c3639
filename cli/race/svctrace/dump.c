/*
 * dump.c: the merged trace as text, one event a line: time, process, event, instance, string,
 * and the event's arguments in words ("(commit 12, generation 3)").  check prints its context
 * in the same form, so what a finding shows can be found again in a full dump with grep.
 */
#include <getopt.h>
#include <inttypes.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "svctrace.h"
#include "trace.h"

const char *format_ms(uint64_t ns, char buf[static 32])
{
	/* Integer arithmetic: exact, and no rounding up to the next millisecond. */
	snprintf(buf, 32, "%" PRIu64 ".%03" PRIu64, ns / 1000000, ns / 1000 % 1000);
	return buf;
}

const char *format_rel_ms(const trace_t *t, uint64_t ns, char buf[static 32])
{
	uint64_t d = ns >= t->t0 ? ns - t->t0 : 0;

	snprintf(buf, 32, "+%" PRIu64 ".%03" PRIu64, d / 1000000, d / 1000 % 1000);
	return buf;
}

const char *format_args(const tr_event_t *e, char buf[static 96])
{
	uint64_t a = e->arg0, b = e->arg1, gen = SMF_TRACE_READ_GENERATION(a);
	unsigned how = SMF_TRACE_READ_HOW(a);

	buf[0] = '\0';
	switch (e->event) {
	case SMF_TRACE_CONFIGD_WRITE:
		snprintf(buf, 96, "(commit %" PRIu64 ", by pid %" PRIu64 ")", a, b);
		break;
	case SMF_TRACE_CONFIGD_COMMIT:
	case SMF_TRACE_CONFIGD_PG_CREATED:
	case SMF_TRACE_STARTD_NOTIFY_RECEIVED:
		/* startd's InstanceAdded or PgDeleted has no generation. */
		if (b || e->event != SMF_TRACE_STARTD_NOTIFY_RECEIVED)
			snprintf(buf, 96, "(commit %" PRIu64 ", generation %" PRIu64 ")", a, b);
		else
			snprintf(buf, 96, "(commit %" PRIu64 ")", a);
		break;
	case SMF_TRACE_CONFIGD_PG_DELETED:
	case SMF_TRACE_CONFIGD_INSTANCE_ADDED:
		snprintf(buf, 96, "(commit %" PRIu64 ")", a);
		break;
	case SMF_TRACE_CONFIGD_NOTIFY_SENT:
		snprintf(buf, 96, "(commit %" PRIu64 ", to pid %" PRIu64 ")", a, b);
		break;
	case SMF_TRACE_SCF_NOTIFY_RECEIVED:
		if (b)
			snprintf(buf, 96, "(commit %" PRIu64 ", generation %" PRIu64 ")", a, b);
		else if (e->str && !strstr(e->str, "/:properties/"))
			snprintf(buf, 96, "(commit %" PRIu64 ", instance added)", a);
		else
			snprintf(buf, 96, "(commit %" PRIu64 ", deleted)", a);
		break;
	case SMF_TRACE_SCF_READ:
		if (how & SMF_TRACE_READ_ERROR)
			snprintf(buf, 96, "(failed");
		else if (gen)
			snprintf(buf, 96, "(generation %" PRIu64, gen);
		else
			snprintf(buf, 96, "(absent");
		if (how & SMF_TRACE_READ_COMPOSED)
			strncat(buf, ", composed", 95 - strlen(buf));
		if (how & SMF_TRACE_READ_SNAPSHOT)
			strncat(buf, ", snapshot", 95 - strlen(buf));
		strncat(buf, ")", 95 - strlen(buf));
		break;
	case SMF_TRACE_SCF_NOTIFY_INTEREST:
		snprintf(buf, 96, "(by %s)",
		        b == SMF_TRACE_INTEREST_INSTANCES      ? "instance creation"
		                : b == SMF_TRACE_INTEREST_TYPE ? "type"
		                                               : "name");
		break;
	case SMF_TRACE_PROC_START:
		snprintf(buf, 96, "(ppid %" PRIu64 ", sid %" PRIu64 ", pgid %" PRIu64 ")", a,
		        b >> 32, b & 0xffffffffu);
		break;
	default:
		/* startd's events: their cause, when they have one. */
		if (a && e->event > SMF_TRACE_STARTD_NOTIFY_RECEIVED &&
		        e->event <= SMF_TRACE_STARTD_WRITE)
			snprintf(buf, 96, "(cause %" PRIu64 ")", a);
		break;
	}
	return buf;
}

void dump_line(FILE *f, const trace_t *t, const tr_event_t *e, const char *mark)
{
	char rel[32], name[24], hex[20], args[96];
	const char *who = trace_flow_fmri(t, e->flow);

	if (!who) {
		snprintf(hex, sizeof(hex), "%016" PRIx64, e->flow);
		who = e->flow ? hex : "-";
	}
	format_args(e, args);
	fprintf(f, "%s%s %s[%" PRIu32 "/%" PRIu32 "] %s %s %s%s%s\n", strempty(mark),
	        format_rel_ms(t, e->ns, rel), t->procs[e->proc].prog, e->pid, e->tid,
	        trace_event_name(e->event, name), who, e->str ? e->str : "-", args[0] ? " " : "",
	        args);
}

int cmd_dump(int argc, char *argv[])
{
	trace_t t;
	int r;

	if (argc != 2 || argv[1][0] == '-')
		return usage_error("dump");
	r = load_or_complain(argv[1], &t);
	if (r != 0)
		return r;
	for (size_t i = 0; i < t.n_events; i++)
		dump_line(stdout, &t, &t.events[i], NULL);
	trace_done(&t);
	return fflush(stdout) == 0 ? 0 : EXIT_FAILURE;
}
