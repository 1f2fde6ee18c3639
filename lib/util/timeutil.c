#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "timeutil.h"

static uint64_t clock_nsec(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t now_monotonic_nsec(void)
{
	return clock_nsec(CLOCK_MONOTONIC);
}

uint64_t now_monotonic_usec(void)
{
	return clock_nsec(CLOCK_MONOTONIC) / NSEC_PER_USEC;
}

uint64_t now_realtime_usec(void)
{
	return clock_nsec(CLOCK_REALTIME) / NSEC_PER_USEC;
}

uint64_t deadline_after_usec(uint64_t timeout)
{
	uint64_t now = now_monotonic_usec();

	if (timeout == USEC_INFINITY || timeout > USEC_INFINITY - now)
		return USEC_INFINITY;
	return now + timeout;
}

uint64_t deadline_left_usec(uint64_t deadline)
{
	uint64_t now;

	if (deadline == USEC_INFINITY)
		return USEC_INFINITY;
	now = now_monotonic_usec();
	return deadline > now ? deadline - now : 0;
}

int parse_seconds_usec(const char *s, uint64_t *ret)
{
	char *end;
	double v;

	if (!s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e9)
		return -EINVAL;
	*ret = (uint64_t)(v * (double)USEC_PER_SEC);
	return 0;
}
