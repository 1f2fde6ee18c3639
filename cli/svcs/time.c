/* time.c: the two ways svcs writes a time, as illumos does. */
#include <time.h>

#include "svcs.h"

/* The format is one of three literals; -Wformat-nonliteral cannot see that through strftime. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-y2k"

/*
 * STIME: the time of day within the last 24 hours ("%k": the hour is blank-padded), the date
 * within the last 12 months of 30 days, else the year.
 */
void format_stime(int64_t sec, char *buf, size_t sz)
{
	time_t then = (time_t)sec, now = time(NULL);
	struct tm tm;
	const char *fmt;

	if (now - then < 24 * 60 * 60)
		fmt = "%k:%M:%S";
	else if (now - then < 12 * 30 * 24 * 60 * 60)
		fmt = "%b_%d";
	else
		fmt = "%Y";
	if (!localtime_r(&then, &tm) || strftime(buf, sz, fmt, &tm) == 0)
		snprintf(buf, sz, "-");
}

/* -l's state_time and -x's "since": the locale's full date and time. */
void format_long_time(int64_t sec, char *buf, size_t sz)
{
	time_t then = (time_t)sec;
	struct tm tm;

	if (!localtime_r(&then, &tm) || strftime(buf, sz, "%c", &tm) == 0)
		snprintf(buf, sz, "-");
}
