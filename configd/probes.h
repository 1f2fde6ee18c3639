/*
 * probes.h: configd's trace points, each a USDT probe and a recorder event (probe.h), and the
 * commit ids they carry.
 *
 * What each event carries is docs/trace-format.md's contract: the string is the pg FMRI
 * ("<entity>/:properties/<pg>"), the flow the instance's (0 for a service-level pg), arg0 the
 * commit id of the write being answered.
 *
 * THE COMMIT ID.  Every request that changes the repository (Commit, Batch, AddPg, DeletePg,
 * AddService, AddInstance, Delete, TakeSnapshot, DeleteSnapshot, Refresh) gets a number once
 * it has committed: 1, 2, 3... in the life of this configd, never 0.  probe_write() takes it;
 * every event of that request (configd.commit, pg_created, pg_deleted, instance_added,
 * notify_sent) and every
 * notification it sends on the wire (protocol.h) carries it, so that a subscriber can name the
 * commit that caused what it does next (svc.startd's events, docs/trace-format.md
 * "Causality").  configd serves every request from one thread, start to end, so "the write
 * being answered" is one number at a time.
 */
#ifndef CONFIGD_PROBES_H
#define CONFIGD_PROBES_H

#include <stdint.h>

#include "configd.h"
#include "libscf.h"

/*
 * configd.write: request (its method name) from connection c committed; entity is what it
 * names (NULL for a batch).  Takes the next commit id, records it with the peer's pid, and
 * returns it.  Call right after the SQLite commit, before the request's other probes, its
 * reply and its notifications: they all carry the id.
 */
uint64_t probe_write(const connection_t *c, const char *request, const char *entity);

/* The id probe_write() gave the write being answered (0 before the first). */
uint64_t probe_commit_id(void);

/*
 * configd.commit: pg was created or changed and SQLite has committed it.  Call before the
 * reply and before notify_pg_changed(): svctrace takes this time stamp as the instant the pg
 * exists for every client.  arg1: the pg's new generation.
 */
void probe_pg_committed(const scf_pg_t *pg);

/*
 * configd.pg_created: the commit about to be traced by probe_pg_committed() created pg (it did
 * not exist before).  Call right before that: svctrace dates a pg's existence by it, since a
 * commit alone may be an update of a pg older than the trace.
 */
void probe_pg_created(const scf_pg_t *pg);

/* configd.pg_deleted: the write being answered deleted pg (alone or with its entity). */
void probe_pg_deleted(const scf_pg_t *pg);

/* configd.notify_sent: one notification about pg was queued on connection c. */
void probe_notify_sent(const connection_t *c, const scf_pg_t *pg);

/* configd.notify_sent for InstanceAdded: the string is the instance's FMRI. */
void probe_instance_notify_sent(const connection_t *c, const char *fmri);

/*
 * configd.instance_added: the instance fmri (canonical) was created by the write being answered
 * and SQLite has committed it; call after probe_write(), before the probes of the pgs created
 * with it (configd-eager's restarter pg), the reply and notify_instance_added().
 */
void probe_instance_added(const char *fmri);

#endif
