/*
 * act.h: an instance's events acted on: its machine stepped (fsm.h), the actions performed.
 *
 * Each function runs in the thread that holds the instance's worker bit (asserted).
 */
#ifndef STARTD_ACT_H
#define STARTD_ACT_H

#include <stdbool.h>
#include <stdint.h>

#include "fsm.h"
#include "instance.h"
#include "queue.h"
#include "rpg.h"

/*
 * Handles e to its end, as i's worker (with i->h bound; RE_SHUTDOWN also without a handle,
 * when configd is gone): every action performed, every answer fed back to the machine.
 */
void act_event(instance_t *i, const event_t *e);

/*
 * The bulk worker's (bulk.c).  act_light(): whether i's next event (type, arg) is light in
 * i's state (fsm_out_t.light: no method, no read, no wait, one commit at most).
 * act_batched(): handles a light event as act_event() would, except that its commit joins b
 * unwritten, and the state it settles is reported only once b is committed (act_report()).
 */
bool act_light(instance_t *i, int type, int64_t arg);
void act_batched(instance_t *i, const event_t *e, rpg_batch_t *b);

/* The graph hears that i settled in state (aux: the auxiliary_state recorded with it). */
void act_report(instance_t *i, restarter_instance_state_t state, const char *aux);

#endif
