/* why.c: a refusal's reason (why.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "why.h"

int why_set(char **why, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = vasprintf(why, fmt, ap);
	va_end(ap);
	if (r < 0) {
		*why = NULL;
		return -ENOMEM;
	}
	return -EINVAL;
}
