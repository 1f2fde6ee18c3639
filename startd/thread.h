/*
 * thread.h: how svc.startd starts a thread.
 *
 * Every thread of startd (the repository thread, the graph, the dispatcher, the bulk worker,
 * the reaper, the instance workers) starts here, named for top -H and perf ("startd-graph"),
 * with the signal mask it inherits (main.c blocks the signals startd takes synchronously
 * before the first one starts).
 */
#ifndef STARTD_THREAD_H
#define STARTD_THREAD_H

#include <pthread.h>

/*
 * Runs fn(arg) in a new thread named name (at most 15 characters), joinable with *t, or
 * detached when t is NULL.  0, or a negative errno (nothing started).
 */
int thread_start(pthread_t *t, const char *name, void *(*fn)(void *), void *arg);

#endif
