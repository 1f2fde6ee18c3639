/*
 * points.c: the delay hook behind startd_point() (see points.h).
 *
 * THE MODEL.  SMF_DELAY="point=spec[,point=spec...]" names points of startd's event path and a
 * delay for each, fixed ("250ms") or random ("rand:0-50ms", driven by SMF_DELAY_SEED or a seed
 * printed at startup); lib/util/delay.c parses it and draws the delays.  Every thread that
 * reaches a named point sleeps there.  Tests use it to hold the race window open on purpose
 * (startd.restarter.before_pg_write delays the first write of a new instance's restarter pg).
 *
 * INVARIANTS.  The variable is parsed once, by a constructor, before main() and before any
 * thread exists, so the table pointer never changes afterwards and needs no lock (the table's
 * own pass counters are atomic).  It is never freed: a thread may still pass a point while
 * the process exits.  When SMF_DELAY is unset, or holds no valid entry, the table is
 * NULL and the hook is one predictable branch.  An entry that does not parse is reported and
 * ignored (the others still apply): a typo must be visible, not fatal.
 */
#include <stdio.h>

#include "delay.h"
#include "macro.h"
#include "points.h"

static SmfDelayTable *delays;

__attribute__((constructor)) static void points_init(void)
{
	if (smf_delay_from_env("svc.startd", &delays) < 0)
		fprintf(stderr, "svc.startd: SMF_DELAY: out of memory, no delay points\n");
}

void startd_point(const char *name, const char *fmri)
{
	(void)fmri;
	if (_likely_(!delays))
		return;
	smf_delay_sleep(smf_delay_usec(delays, name));
}
