/*
 * worker.h: an instance's own worker thread (worker.c).
 */
#ifndef STARTD_WORKER_H
#define STARTD_WORKER_H

#include "instance.h"
#include "startd.h"

/*
 * i's queue has its worker bit claimed (by a push that found no worker, or handed on by the
 * bulk worker) and no thread: starts one, which takes the bit over.  A worker that cannot be
 * started drops the bit (logged).
 */
void worker_start(startd_t *m, instance_t *i);

#endif
