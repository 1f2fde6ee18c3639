/*
 * points.c: the delay hook behind startd_point() (see points.h).
 *
 * THE MODEL.  SMF_DELAY="point=Nms[,point=Nms...]" (units us, ms or s) names points of
 * startd's event path and a FIXED delay for each: every thread that reaches a named point
 * sleeps that long there.  Tests use it to hold the race window open on purpose
 * (startd.restarter.before_pg_write delays the first write of a new instance's restarter pg).
 *
 * INVARIANTS.  The variable is parsed once, by a constructor, before main() and before any
 * thread exists, so the table is read-only afterwards and needs no lock.  When SMF_DELAY is
 * unset the hook is one predictable branch on a zero count.  An entry that does not parse is
 * reported and ignored (the others still apply): a typo must be visible, not fatal.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "points.h"
#include "timeutil.h"

#define POINTS_MAX 16
#define POINT_NAME_MAX 64

typedef struct point_delay {
	char name[POINT_NAME_MAX];
	uint64_t usec;
} point_delay_t;

static point_delay_t delays[POINTS_MAX];
static size_t n_delays;

/* "250ms", "2s", "500us" -> microseconds; -EINVAL otherwise. */
static int parse_duration(const char *s, uint64_t *ret)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {{"us", 1}, {"ms", USEC_PER_MSEC}, {"s", USEC_PER_SEC}};
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -EINVAL;
	for (size_t k = 0; k < sizeof(units) / sizeof(units[0]); k++)
		if (strcmp(end, units[k].suffix) == 0) {
			if (v > UINT64_MAX / units[k].mult)
				return -ERANGE;
			*ret = v * units[k].mult;
			return 0;
		}
	return -EINVAL;
}

/* One "point=duration" entry (the string is a writable copy). */
static int parse_entry(char *e)
{
	char *eq = strchr(e, '=');
	point_delay_t *d;

	if (!eq || eq == e || (size_t)(eq - e) >= POINT_NAME_MAX)
		return -EINVAL;
	if (n_delays >= POINTS_MAX)
		return -E2BIG;
	d = &delays[n_delays];
	*eq = '\0';
	if (parse_duration(eq + 1, &d->usec) < 0)
		return -EINVAL;
	strcpy(d->name, e);
	n_delays++;
	return 0;
}

static void points_parse(const char *spec)
{
	char *copy = strdup(spec), *save = NULL;

	if (!copy)
		return;
	for (char *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		char shown[128];

		snprintf(shown, sizeof(shown), "%s", e);
		if (parse_entry(e) < 0)
			fprintf(stderr, "svc.startd: SMF_DELAY: ignoring \"%s\" (want point=Nms)\n",
			        shown);
	}
	free(copy);
}

__attribute__((constructor)) static void points_init(void)
{
	const char *spec = getenv("SMF_DELAY");

	if (spec && *spec)
		points_parse(spec);
}

static void sleep_usec(uint64_t usec)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += (time_t)(usec / USEC_PER_SEC);
	ts.tv_nsec += (long)(usec % USEC_PER_SEC * NSEC_PER_USEC);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	/* Absolute, so a signal (the reaper's SIGCHLD) does not stretch or cut the delay. */
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

void startd_point(const char *name, const char *fmri)
{
	(void)fmri;
	if (__builtin_expect(n_delays == 0, 1))
		return;
	for (size_t k = 0; k < n_delays; k++)
		if (strcmp(delays[k].name, name) == 0) {
			sleep_usec(delays[k].usec);
			return;
		}
}
