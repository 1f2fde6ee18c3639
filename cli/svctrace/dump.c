/*
 * dump.c: the merged trace as text, one event a line.  check prints its context in the same
 * form, so what a finding shows can be found again in a full dump with grep.
 */
#include <getopt.h>
#include <inttypes.h>

#include "log.h"
#include "macro.h"
#include "svctrace.h"

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

void dump_line(FILE *f, const trace_t *t, const tr_event_t *e, const char *mark)
{
	char rel[32], name[24], hex[20];
	const char *who = trace_flow_fmri(t, e->flow);

	if (!who) {
		snprintf(hex, sizeof(hex), "%016" PRIx64, e->flow);
		who = e->flow ? hex : "-";
	}
	fprintf(f, "%s%s %s[%" PRIu32 "/%" PRIu32 "] %s %s %s\n", strempty(mark),
	        format_rel_ms(t, e->ns, rel), t->procs[e->proc].prog, e->pid, e->tid,
	        trace_event_name(e->event, name), who, e->str ? e->str : "-");
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
