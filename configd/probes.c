/*
 * probes.c: configd's trace points and commit ids (see probes.h).
 *
 * The pg FMRI is formatted into a stack buffer on every call, tracing on or off: the USDT half
 * of a probe needs the string whether or not the recorder runs, and a few hundred bytes of
 * snprintf() cost nothing next to the SQLite commit that precedes them.  Nothing here
 * allocates.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "probe.h"
#include "probes.h"

/* An entity FMRI and a pg name, each at its longest, plus "/:properties/" and the NUL. */
#define PG_FMRI_MAX (SCF_LIMIT_MAX_FMRI_LENGTH + SCF_LIMIT_MAX_NAME_LENGTH + 16)

/* The last commit id given; only configd's serving thread touches it (probes.h). */
static uint64_t commit_id;

/* configd's records hold canonical FMRIs. */
#define entity_flow smf_trace_instance_flow

static const char *pg_fmri(const scf_pg_t *pg, char *buf, size_t size)
{
	snprintf(buf, size, "%s/:properties/%s", pg->entity ? pg->entity : "",
	        pg->name ? pg->name : "");
	return buf;
}

uint64_t probe_write(const connection_t *c, const char *request, const char *entity)
{
	commit_id++;
	assert(commit_id != 0);
	SMF_PROBE_ARGS(write, SMF_TRACE_CONFIGD_WRITE, entity_flow(entity), request, commit_id,
	        (uint64_t)(c->pid > 0 ? c->pid : 0));
	return commit_id;
}

uint64_t probe_commit_id(void)
{
	return commit_id;
}

void probe_pg_committed(const scf_pg_t *pg)
{
	char buf[PG_FMRI_MAX];

	SMF_PROBE_ARGS(commit, SMF_TRACE_CONFIGD_COMMIT, entity_flow(pg->entity),
	        pg_fmri(pg, buf, sizeof(buf)), commit_id, pg->generation);
}

void probe_pg_created(const scf_pg_t *pg)
{
	char buf[PG_FMRI_MAX];

	SMF_PROBE_ARGS(pg_created, SMF_TRACE_CONFIGD_PG_CREATED, entity_flow(pg->entity),
	        pg_fmri(pg, buf, sizeof(buf)), commit_id, pg->generation);
}

void probe_pg_deleted(const scf_pg_t *pg)
{
	char buf[PG_FMRI_MAX];

	SMF_PROBE_ARGS(pg_deleted, SMF_TRACE_CONFIGD_PG_DELETED, entity_flow(pg->entity),
	        pg_fmri(pg, buf, sizeof(buf)), commit_id, 0);
}

/* configd.notify_sent of the signal about object (a pg FMRI, or an instance's) of entity. */
static void notify_sent(const connection_t *c, const char *entity, const char *object)
{
	SMF_PROBE_ARGS(notify_sent, SMF_TRACE_CONFIGD_NOTIFY_SENT, entity_flow(entity), object,
	        commit_id, (uint64_t)(c->pid > 0 ? c->pid : 0));
}

void probe_notify_sent(const connection_t *c, const scf_pg_t *pg)
{
	char buf[PG_FMRI_MAX];

	notify_sent(c, pg->entity, pg_fmri(pg, buf, sizeof(buf)));
}

void probe_instance_notify_sent(const connection_t *c, const char *fmri)
{
	notify_sent(c, fmri, fmri);
}

void probe_instance_added(const char *fmri)
{
	SMF_PROBE_ARGS(instance_added, SMF_TRACE_CONFIGD_INSTANCE_ADDED, entity_flow(fmri), fmri,
	        commit_id, 0);
}
