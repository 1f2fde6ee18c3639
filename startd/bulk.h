/*
 * bulk.h: the restarter's bulk worker (bulk.c).
 */
#ifndef STARTD_BULK_H
#define STARTD_BULK_H

#include <stdbool.h>
#include <stdint.h>

#include "instance.h"
#include "startd.h"

int bulk_start(startd_t *m);
/* Hands on what it holds (a shutdown is not its to handle), then the thread exits. */
void bulk_stop(void);

/*
 * Whether an event that finds no worker may go to the bulk worker: one that may need neither
 * a method nor a read of its own (a fresh insert, enable, disable; the bulk worker checks the
 * instance's state before it takes it).
 */
bool bulk_event(int type, int64_t arg);
/* i's queue has a claimed bit and no worker: the bulk worker takes it up. */
void bulk_hand(startd_t *m, instance_t *i);

#endif
