/* timeutil.h: microsecond clocks and deadlines (CLOCK_MONOTONIC unless said otherwise). */
#ifndef SMF_TIMEUTIL_H
#define SMF_TIMEUTIL_H

#include <stdint.h>

#define USEC_PER_SEC UINT64_C(1000000)
#define USEC_PER_MSEC UINT64_C(1000)
#define NSEC_PER_USEC UINT64_C(1000)
#define USEC_INFINITY UINT64_MAX

uint64_t now_monotonic_usec(void);
uint64_t now_realtime_usec(void);
uint64_t now_monotonic_nsec(void);
/* now + timeout, saturating at USEC_INFINITY. */
uint64_t deadline_after_usec(uint64_t timeout);
/* Time left until deadline (0 when past, USEC_INFINITY for an infinite deadline). */
uint64_t deadline_left_usec(uint64_t deadline);
/*
 * Seconds, a positive decimal number (fractions allowed, at most 1e9), into microseconds;
 * -EINVAL for anything else.
 */
int parse_seconds_usec(const char *s, uint64_t *ret);

#endif
