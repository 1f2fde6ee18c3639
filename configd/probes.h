/*
 * probes.h: configd's trace points, each a USDT probe and a recorder event (probe.h).
 *
 * What each event carries is docs/trace-format.md's contract: the string is the pg FMRI
 * ("<entity>/:properties/<pg>"), the flow the instance's (0 for a service-level pg).
 */
#ifndef CONFIGD_PROBES_H
#define CONFIGD_PROBES_H

#include "libscf.h"

/*
 * configd.commit: pg was created or changed and SQLite has committed it.  Call before the
 * reply and before notify_pg_changed(): svctrace takes this time stamp as the instant the pg
 * exists for every client.
 */
void probe_pg_committed(const scf_pg_t *pg);

/*
 * configd.pg_created: the commit about to be traced by probe_pg_committed() created pg (it did
 * not exist before).  Call right before that: svctrace dates a pg's existence by it, since a
 * commit alone may be an update of a pg older than the trace.
 */
void probe_pg_created(const scf_pg_t *pg);

/* configd.notify_sent: one notification about pg was queued on one connection. */
void probe_notify_sent(const scf_pg_t *pg);

/*
 * configd.instance_added: the instance fmri (canonical) was created and SQLite has committed
 * it; call before the reply and before notify_instance_added(), as probe_pg_committed().
 */
void probe_instance_added(const char *fmri);

#endif
