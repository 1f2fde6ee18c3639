/*
 * points.c: the delay hook behind configd_point() (see points.h).
 *
 * SMF_DELAY="point=spec,..." is shared with svc.startd: each daemon reads the same variable
 * and acts on the points it has (lib/util/delay.c parses it, draws random delays from the seed
 * and prints the seed).  configd is one thread, so a delay at a point stalls every client for
 * its length, not just the one being served: that is the point of
 * configd.notify.before_send, which holds back a notification after the commit and its reply
 * went out, as a loaded configd would.  When SMF_DELAY is unset the table is NULL and a point
 * is one predictable branch.
 */
#include <errno.h>

#include "delay.h"
#include "log.h"
#include "macro.h"
#include "points.h"

static SmfDelayTable *delays;

void configd_points_init(void)
{
	int r = smf_delay_from_env("svc.configd", &delays);

	/* A harness knob must not stop the repository: serve, without delays. */
	if (r < 0)
		log_error_errno(r, "SMF_DELAY: out of memory; no delay points");
}

void configd_point(const char *name)
{
	if (_likely_(!delays))
		return;
	smf_delay_sleep(smf_delay_usec(delays, name));
}

void configd_points_done(void)
{
	delays = smf_delay_free(delays);
}
