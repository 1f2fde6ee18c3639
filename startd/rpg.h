/*
 * rpg.h: commits to an instance's restarter pg (rpg.c).
 */
#ifndef STARTD_RPG_H
#define STARTD_RPG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "instance.h"
#include "libscf.h"
#include "restarter.h"

/* What a restarter pg commit writes: state, next_state, auxiliary_state and state_timestamp
 * always; the pids and logfile only when set (>= 0, non-NULL). */
typedef struct state_update {
	restarter_instance_state_t state, next_state;
	const char *aux;
	pid_t start_pid; /* -1: leave as is */
	pid_t contract;  /* -1: leave as is */
	const char *logfile;
} state_update_t;

/*
 * i's restarter pg, written with one atomic batch over i->h (startd is its only writer, and
 * only the thread that holds i's worker bit writes it: its worker; the bulk worker writes with
 * rpg_batch_*).
 */
int rpg_write(instance_t *i, const state_update_t *u);
/*
 * The graph thread's first sight of an instance that has no restarter pg and no general pg:
 * the uninitialized pg (state uninitialized, next_state none, auxiliary_state
 * insert_in_graph), over the graph's handle h, before the instance has a worker.  Failures are
 * logged, except -SCF_ERROR_NOT_FOUND (the instance is gone).
 */
int rpg_write_initial(scf_handle_t *h, const char *fmri);

/* One write of a batch: i's state as u says, under the cause of the event it is for. */
typedef struct rpg_item {
	instance_t *i;
	state_update_t u;
	uint64_t cause;
	bool report; /* the state is reported to the graph once written (bulk.c) */
	bool done;   /* written (or given up: its instance is gone); a commit again skips it */
} rpg_item_t;

/* The restarter pg writes of many instances, committed in one scf_batch (one transaction). */
typedef struct rpg_batch {
	rpg_item_t *items;
	size_t n, cap;
	bool first; /* an item is the first write of its pg (startd.restarter.before_pg_write) */
	bool later; /* an item is a later one (startd.restarter.before_state_write) */
} rpg_batch_t;

/* Adds i's write under the calling thread's cause (it holds i's worker bit).  0, -ENOMEM. */
int rpg_batch_add(rpg_batch_t *b, instance_t *i, const state_update_t *u, bool first, bool report);
/*
 * Commits the writes over h in one batch per cause (the writes that descend from one commit:
 * svctrace links a commit to one cause), startd.write for each pg, with the cause, before the
 * commit, startd.restarter_pg_written for each after it.  When configd refuses a batch (an
 * instance deleted meanwhile, say), each of its writes is made on its own instead, so one
 * instance cannot cost the others theirs.  0, -ENOMEM, instance_connection_lost()'s codes
 * when the connection broke (the caller rebinds and commits again: a write repeated is the
 * same write), or retry_store_failed()'s when configd's store failed (retry.h: the caller
 * waits and commits again).  The items written are marked done, so a commit again writes
 * only the others.
 */
int rpg_batch_commit(scf_handle_t *h, rpg_batch_t *b);
/* Empties b (the items' instances are the caller's). */
void rpg_batch_clear(rpg_batch_t *b);

#endif
