/* why.h: a refusal's reason, written for the caller to log (context.c, expand.c). */
#ifndef STARTD_WHY_H
#define STARTD_WHY_H

#include "macro.h"

/*
 * Sets *why to the formatted reason (the caller frees it) and returns -EINVAL; when the reason
 * cannot be written, *why is NULL and the return is -ENOMEM.
 */
int why_set(char **why, const char *fmt, ...) _printf_(2, 3);

#endif
