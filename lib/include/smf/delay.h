/*
 * delay.h: delay points, the race harness's way to hold a window open on purpose.
 *
 * SMF_DELAY="point=spec[,point=spec...]" names points of a daemon's event path and a delay for
 * each.  A spec is fixed, "Nus", "Nms" or "Ns", or random, "rand:A-B(us|ms|s)", uniform in
 * [A, B].  Random delays are a pure function of (seed, point, call index), so a run replays
 * with the same seed (SMF_DELAY_SEED) whatever the thread interleaving.
 */
#ifndef SMF_DELAY_H
#define SMF_DELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct SmfDelayTable SmfDelayTable;

/*
 * Parses spec into a new table.  An entry that does not parse is reported on stderr (naming it)
 * and skipped; the others still apply.  Returns the number of entries skipped (>= 0), or
 * -ENOMEM.  *ret is a table even when it holds no entry.
 */
int smf_delay_parse(const char *spec, uint64_t seed, SmfDelayTable **ret);

/* The delay for the next pass through point, in microseconds; 0 when point has no spec. */
uint64_t smf_delay_usec(SmfDelayTable *t, const char *point);

size_t smf_delay_count(const SmfDelayTable *t);
bool smf_delay_has_random(const SmfDelayTable *t);
uint64_t smf_delay_seed(const SmfDelayTable *t);

SmfDelayTable *smf_delay_free(SmfDelayTable *t);
static inline void smf_delay_freep(SmfDelayTable **t)
{
	smf_delay_free(*t);
}
#define _cleanup_delay_free_ __attribute__((cleanup(smf_delay_freep)))

/*
 * The table of $SMF_DELAY with the seed of $SMF_DELAY_SEED (or one from the clock), for a daemon
 * at startup.  When a random spec is present the seed is printed once on stderr as
 * "<who>: SMF_DELAY seed N", so a reproduction can be replayed.  *ret is NULL when SMF_DELAY is
 * unset or has no valid entry, so callers test one pointer on their hot path.
 */
int smf_delay_from_env(const char *who, SmfDelayTable **ret);

/* Sleeps usec on CLOCK_MONOTONIC, resuming after signals so the delay is neither cut nor stretched. */
void smf_delay_sleep(uint64_t usec);

#endif
