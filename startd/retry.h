/*
 * retry.h: writes the repository's store refused, tried again with backoff until it takes them.
 *
 * THE MODEL.  A restarter pg write can fail because of the request (an instance deleted
 * meanwhile: NOT_FOUND), because the connection broke (configd restarts: instance_rebind()
 * waits for it), or because configd's store failed: SQLite could not write the database file
 * (a full filesystem, an I/O error, a read-only file), which configd answers with
 * SCF_ERROR_BACKEND_ACCESS or SCF_ERROR_BACKEND_READONLY and which nothing startd does can
 * cure, but which an administrator freeing space can.  Such a write is not dropped: whoever
 * made it (an instance's worker, the bulk worker, the graph for a first sight) makes it again
 * after retry_delay_usec(attempt), 100 ms doubling to a cap of 3.2 s, until it succeeds or
 * startd stops.  The instance's work waits meanwhile (its next step never runs on a state that
 * was not recorded), which is what keeps "the restarter pg says" true once the store recovers.
 *
 * The log hears of it once per episode, not once per try: the first failure says what failed
 * and that startd retries; while the store keeps failing, one line every RETRY_LOG_INTERVAL
 * says how long and how many tries; the first write that succeeds ends the episode with one
 * line.  The episode is startd's, not an instance's: a full filesystem fails every
 * instance's writes at once.
 */
#ifndef STARTD_RETRY_H
#define STARTD_RETRY_H

#include <stdbool.h>
#include <stdint.h>

#include "libscf.h"
#include "startd.h"
#include "timeutil.h"

/* The schedule: the first delay, doubled per attempt up to the cap. */
#define RETRY_FIRST_USEC (100 * USEC_PER_MSEC)
#define RETRY_CAP_USEC (3200 * USEC_PER_MSEC)
/* While an episode lasts, at most one line this often. */
#define RETRY_LOG_INTERVAL_USEC (60 * USEC_PER_SEC)

/* Whether a repository call's result r means that configd's store refused the write. */
static inline bool retry_store_failed(int r)
{
	return r == -SCF_ERROR_BACKEND_ACCESS || r == -SCF_ERROR_BACKEND_READONLY;
}

/*
 * The delay before try number attempt + 1 of a write that failed attempt + 1 times (attempt
 * counts from 0): RETRY_FIRST_USEC << attempt, at most RETRY_CAP_USEC.  Pure.
 */
uint64_t retry_delay_usec(unsigned attempt);

/*
 * A write (what: the instance's FMRI, or a description of a batch) failed: r, with the
 * repository's message errmsg.  Logs as the model says.
 */
void retry_failed(const char *what, int r, const char *errmsg);
/* A write went through: ends the episode (one line) if one is on.  Cheap without one. */
void retry_succeeded(void);
/*
 * Sleeps retry_delay_usec(attempt), or less if startd stops meanwhile (m->repo_stop_fd):
 * true to try again, false when startd stops (the caller gives the write up).
 */
bool retry_wait(startd_t *m, unsigned attempt);

#endif
