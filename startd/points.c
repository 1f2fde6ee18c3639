/* points.c: the delay/trace point hook (a no-op until the harness fills it; see points.h). */
#include "points.h"

void startd_point(const char *name, const char *fmri)
{
	(void)name;
	(void)fmri;
}
