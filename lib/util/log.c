#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "log.h"

static const char *program = "minismf";
static int max_level = -1; /* -1: not read from the environment yet */

void log_set_program(const char *name)
{
	const char *slash = strrchr(name, '/');

	program = slash ? slash + 1 : name;
}

const char *log_program(void)
{
	return program;
}

void log_set_level(int level)
{
	max_level = level;
}

int log_get_level(void)
{
	if (max_level < 0) {
		const char *e = getenv("SMF_LOG_LEVEL");

		max_level = LOG_LEVEL_INFO;
		if (e && streq(e, "debug"))
			max_level = LOG_LEVEL_DEBUG;
		else if (e && streq(e, "warning"))
			max_level = LOG_LEVEL_WARNING;
		else if (e && streq(e, "error"))
			max_level = LOG_LEVEL_ERROR;
	}
	return max_level;
}

_printf_(3, 0) static void log_vmsg(int level, int err, const char *fmt, va_list ap)
{
	char buf[2048];

	if (level > log_get_level())
		return;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* One fprintf per message, so lines from several threads do not interleave. */
	if (err)
		fprintf(stderr, "%s: %s: %s\n", program, buf, smf_strerror(err));
	else
		fprintf(stderr, "%s: %s\n", program, buf);
}

void log_msg(int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, 0, fmt, ap);
	va_end(ap);
}

int log_msg_errno(int level, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, err, fmt, ap);
	va_end(ap);
	return err;
}
