/*
 * probes.h: startd's trace points, each a USDT probe and a recorder event (probe.h).
 *
 * What each event carries is docs/trace-format.md's contract; the flow is the instance's
 * (smf_trace_flow() of its canonical FMRI), 0 for a notification about a service; arg0 the
 * cause, the commit id the work descends from (queue.h, CAUSES).  One
 * function per event keeps the call sites one line and the strings built in one place, on the
 * stack (the USDT half needs them even when the recorder is off).
 */
#ifndef STARTD_PROBES_H
#define STARTD_PROBES_H

#include "fsm.h"
#include "libscf.h"

/* startd.notify_received: the repository thread read n (string: the pg FMRI). */
void probe_notify_received(const scf_notification_t *n);
/* startd.graph_insert: the graph took up a new instance and is about to queue its INSERT. */
void probe_graph_insert(const char *fmri);
/* startd.restarter_enqueue / _dequeue: an RE_* event onto / off the instance's own queue. */
void probe_restarter_enqueue(const char *fmri, int type);
void probe_restarter_dequeue(const char *fmri, int type);
/* startd.restarter_pg_written: configd acknowledged a commit of the instance's restarter pg. */
void probe_restarter_pg_written(const char *fmri);
/*
 * startd.write: this thread is about to commit fmri's pg, because of its current cause (arg0).
 * Call right before the write, on every write of a pg: svctrace links configd's next commit of
 * that pg by startd's pid to this cause (docs/trace-format.md, "Causality"), which holds
 * because one thread at a time writes a given pg (restarter: the holder of the instance's
 * worker bit, which passes it on only between writes; restarter_actions: the graph thread).
 * A batch of restarter pgs announces each one, all with the batch's one cause.
 */
void probe_write(const char *fmri, const char *pg);
/* startd.state_change: "<from>><to>". */
void probe_state_change(
        const char *fmri, restarter_instance_state_t from, restarter_instance_state_t to);
/* startd.method_start / method_exit ("<method> exit N", "signal N", "timeout", "canceled"). */
void probe_method_start(const char *fmri, const char *method);
void probe_method_exit(const char *fmri, const char *method, const method_end_t *end);

/*
 * startd.first_sight: the graph met an instance it has no vertex for; what it does: "insert"
 * (it has general), "write" (no general, no restarter pg: the graph writes it), "present" (no
 * general, a restarter pg already), "error".
 */
void probe_first_sight(const char *fmri, const char *what);

/* The RE_* event's name as the trace writes it ("insert", "enable", ...). */
const char *restarter_event_name(int type);

#endif
