/*
 * probes.c: configd's trace points (see probes.h).
 *
 * The pg FMRI is formatted into a stack buffer on every call, tracing on or off: the USDT half
 * of a probe needs the string whether or not the recorder runs, and a few hundred bytes of
 * snprintf() cost nothing next to the SQLite commit that precedes them.  Nothing here
 * allocates.
 */
#include <stdio.h>
#include <string.h>

#include "probe.h"
#include "probes.h"

/* An entity FMRI and a pg name, each at its longest, plus "/:properties/" and the NUL. */
#define PG_FMRI_MAX (SCF_LIMIT_MAX_FMRI_LENGTH + SCF_LIMIT_MAX_NAME_LENGTH + 16)

/* Canonical FMRIs (configd's records) name an instance exactly when a ':' follows "svc:/". */
static uint64_t entity_flow(const char *entity)
{
	if (!entity || strncmp(entity, "svc:/", 5) != 0 || !strchr(entity + 5, ':'))
		return 0;
	return smf_trace_flow(entity);
}

static const char *pg_fmri(const scf_pg_t *pg, char *buf, size_t size)
{
	snprintf(buf, size, "%s/:properties/%s", pg->entity ? pg->entity : "",
	        pg->name ? pg->name : "");
	return buf;
}

void probe_pg_committed(const scf_pg_t *pg)
{
	char buf[PG_FMRI_MAX];

	SMF_PROBE(commit, SMF_TRACE_CONFIGD_COMMIT, entity_flow(pg->entity),
	        pg_fmri(pg, buf, sizeof(buf)));
}

void probe_pg_created(const scf_pg_t *pg)
{
	char buf[PG_FMRI_MAX];

	SMF_PROBE(pg_created, SMF_TRACE_CONFIGD_PG_CREATED, entity_flow(pg->entity),
	        pg_fmri(pg, buf, sizeof(buf)));
}

void probe_notify_sent(const scf_pg_t *pg)
{
	char buf[PG_FMRI_MAX];

	SMF_PROBE(notify_sent, SMF_TRACE_CONFIGD_NOTIFY_SENT, entity_flow(pg->entity),
	        pg_fmri(pg, buf, sizeof(buf)));
}

void probe_instance_added(const char *fmri)
{
	SMF_PROBE(instance_added, SMF_TRACE_CONFIGD_INSTANCE_ADDED, entity_flow(fmri), fmri);
}
