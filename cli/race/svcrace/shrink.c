/*
 * shrink.c: "svcrace shrink": the smallest schedule that still gives a run's verdict.
 *
 * THE MODEL.  The seed's run gives a verdict (a manifested or latent race, or a failure); a
 * candidate schedule *reproduces* it when K replays in a row (--confirm, default 5) all give
 * that same verdict, the first one that does not ending the candidate.  A latent race is
 * reproduced by a manifested one too: both open the same window, and whether a reader falls
 * into it is the machine's timing (a seed found latent otherwise replays as "manifested" in
 * some runs and is given up as not reproducible).  A delay near the
 * length of the window itself (1 or 2 ms against a svcadm that takes a few ms to start) gives
 * the verdict on some runs and not others, as the machine's timing varies; so the two ends of
 * the search must *hold*: give the verdict in 4K replays in a row (20 by default), every
 * delay lengthened a rung at a time until they do (to the longest rung at most).  Then:
 *   1. the base: the seed's own schedule, held (lengthened if its delays sit at the edge;
 *      if even the longest do not hold, there is nothing trustworthy to shrink);
 *   2. no delay at all: a race the machine's own timing opens needs none;
 *   3. fewest points: drop each point in turn and keep every drop that still reproduces
 *      (with D points, at most D candidates per pass; passes until nothing drops);
 *   4. shortest delays: for each remaining point, a binary search over the ladder rungs below
 *      its delay for the shortest that still reproduces.  This assumes that a longer delay
 *      holds a window open at least as well as a shorter one, which is what a delay point
 *      does (a slower hop, everything after it later);
 *   5. the result, held (lengthened back from the edge where the search left it, rung by
 *      rung, or to the base's own delay where that comes first); when even that does not
 *      hold, the simplification before it is tried, and so on back to the base;
 *   6. one last run of it, whose trace becomes the HTML report (svctrace html).
 * The result is printed as the SMF_DELAY string that reproduces it, with the command that
 * replays it.  Every candidate is a whole run in a fresh sandbox, J at a time.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "macro.h"
#include "svcrace.h"
#include "timeutil.h"

/* The final confirmation: FINAL_FACTOR x --confirm replays, at most FINAL_MAX. */
#define FINAL_FACTOR 4
#define FINAL_MAX 256

typedef struct shrink {
	svcrace_t *c;
	const options_t *o;
	verdict_t target;
	size_t runs;    /* made so far, all candidates */
	size_t matched; /* of the current candidate's replays */
	bool mismatch;  /* the current candidate failed to reproduce */
	bool error;     /* a run could not be made */
	verdict_t got;  /* the verdict that broke the streak */
} shrink_t;

static bool on_replay(const run_spec_t *spec, const run_result_t *r, void *userdata)
{
	shrink_t *sh = userdata;
	verdict_t v = verdict_of(r);

	sh->runs++;
	if (v == VERDICT_ERROR) {
		log_error("seed %" PRIu64 ": %s", r->seed, r->error);
		sh->error = true;
		return true;
	}
	if (v == sh->target || (sh->target == VERDICT_LATENT && v == VERDICT_MANIFESTED)) {
		sh->matched++;
		return false;
	}
	sh->mismatch = true;
	sh->got = v;
	return true;
}

/* What a candidate must give, in words: a latent target counts manifested replays too. */
static const char *target_name(verdict_t target)
{
	return target == VERDICT_LATENT ? "a race (latent or manifested)" : verdict_name(target);
}

/* The index of the largest rung strictly below usec, plus one: how many rungs lie below it. */
static size_t rungs_below(uint64_t usec)
{
	size_t n = 0;

	while (n < schedule_n_magnitudes && schedule_magnitudes_ms[n] * USEC_PER_MSEC < usec)
		n++;
	return n;
}

/* k replays of s: 1 reproduces, 0 not, < 0 a run could not be made or we were stopped. */
static int reproduces_k(shrink_t *sh, const schedule_t *s, size_t k, const char *what)
{
	run_spec_t specs[FINAL_MAX];
	char delay[SCHEDULE_STRMAX];
	int r;

	assert(k <= ELEMENTSOF(specs));
	for (size_t i = 0; i < k; i++)
		specs[i] = (run_spec_t){
		        .seed = sh->o->seed, .index = i, .schedule = *s, .fixes = sh->o->fixes};
	sh->matched = 0;
	sh->mismatch = sh->error = false;
	r = run_pool(sh->c, specs, k, on_replay, sh);
	if (r < 0 || sh->error)
		return r < 0 ? r : -EIO;
	printf("  %-14s '%s': %s\n", what, schedule_format(s, delay, sizeof(delay)),
	        sh->mismatch ? "no" : "reproduces");
	if (sh->mismatch)
		printf("  %-14s   (%s after %zu of %zu)\n", "", verdict_name(sh->got), sh->matched,
		        k);
	fflush(stdout);
	return !sh->mismatch;
}

static int reproduces(shrink_t *sh, const schedule_t *s, const char *what)
{
	return reproduces_k(sh, s, sh->o->confirm, what);
}

/*
 * Every slot of s one step longer: to the next rung, or to base's delay for that point when
 * that comes first (so that a held base can always be come back to); false when none grew.
 */
static bool lengthen(schedule_t *s, const schedule_t *base)
{
	bool grew = false;

	for (size_t k = 0; k < s->n; k++) {
		size_t next = rungs_below(s->slot[k].usec + 1);
		uint64_t to = next < schedule_n_magnitudes
		        ? schedule_magnitudes_ms[next] * USEC_PER_MSEC
		        : UINT64_MAX;

		for (size_t i = 0; i < base->n; i++)
			if (base->slot[i].point == s->slot[k].point &&
			        base->slot[i].usec > s->slot[k].usec && base->slot[i].usec < to)
				to = base->slot[i].usec;
		if (to != UINT64_MAX) {
			s->slot[k].usec = to;
			grew = true;
		}
	}
	return grew;
}

/*
 * final replays of *s until it holds, lengthening it a step at a time (lengthen()): 1 held
 * (*s is what held), 0 never, even at the longest; < 0 as reproduces_k().
 */
static int steady(
        shrink_t *sh, schedule_t *s, const schedule_t *base, size_t final, const char *what)
{
	for (;;) {
		int r = reproduces_k(sh, s, final, what);

		if (r != 0 || !lengthen(s, base))
			return r;
	}
}

static bool on_first(const run_spec_t *spec, const run_result_t *r, void *userdata)
{
	*(run_result_t *)userdata = *r;
	return false;
}

int cmd_shrink(svcrace_t *c, const options_t *o)
{
	shrink_t sh = {.c = c, .o = o};
	_cleanup_free_ char *report = NULL;
	char delay[SCHEDULE_STRMAX], fx[FIX_STRMAX];
	uint64_t t0 = now_monotonic_usec();
	run_result_t first;
	size_t final = (size_t)o->confirm * FINAL_FACTOR;
	_cleanup_free_ schedule_t *hist = NULL; /* every simplification kept, in order */
	size_t n_hist = 0;
	schedule_t cur;
	bool confirmed;
	run_spec_t spec;
	int r;

	if (final > FINAL_MAX)
		final = FINAL_MAX;
	if (final < o->confirm)
		final = o->confirm;

	if (o->have_schedule)
		cur = o->schedule;
	else if ((r = schedule_draw(o->seed, o->depth, o->scale, &cur)) < 0)
		return log_error_errno(r, "drawing a schedule"), EXIT_INTERNAL;
	printf("svcrace: shrinking seed %" PRIu64 " of %s (fix %s), confirming each candidate "
	       "with %u replays\n",
	        o->seed, c->script[0], fix_name(o->fixes, fx, sizeof(fx)), o->confirm);

	/* The verdict to keep: the seed's own run. */
	spec = (run_spec_t){.seed = o->seed, .schedule = cur, .fixes = o->fixes};
	if (run_pool(c, &spec, 1, on_first, &first) < 0)
		return 130;
	sh.runs++;
	sh.target = verdict_of(&first);
	run_print(stdout, &spec, &first);
	if (sh.target == VERDICT_ERROR)
		return EXIT_INTERNAL;
	if (sh.target == VERDICT_CLEAN) {
		printf("svcrace: seed %" PRIu64 " found nothing: nothing to shrink\n", o->seed);
		return EXIT_RACE;
	}
	/* A base that holds, lengthened if the seed's delays sit at the edge of the window. */
	r = steady(&sh, &cur, &cur, final, "the seed's");
	if (r < 0)
		return r == -EINTR ? 130 : EXIT_INTERNAL;
	if (r == 0) {
		printf("svcrace: %s does not come back in %zu of %zu replays, even with its "
		       "delays at their longest: nothing trustworthy to shrink\n",
		        target_name(sh.target), final, final);
		return EXIT_RACE;
	}

	hist = calloc(2 * SCHEDULE_MAX + 2, sizeof(*hist));
	if (!hist)
		return log_error_errno(-ENOMEM, "shrink"), EXIT_INTERNAL;
	hist[n_hist++] = cur;
	if (cur.n > 0) {
		schedule_t none = {0};

		r = reproduces(&sh, &none, "no delay");
		if (r < 0)
			return r == -EINTR ? 130 : EXIT_INTERNAL;
		if (r > 0)
			hist[n_hist++] = cur = none;
	}
	for (size_t k = 0; k < cur.n && cur.n > 1;) {
		schedule_t cand;

		schedule_drop(&cur, k, &cand);
		r = reproduces(&sh, &cand, "fewer points");
		if (r < 0)
			return r == -EINTR ? 130 : EXIT_INTERNAL;
		if (r > 0)
			hist[n_hist++] = cur = cand; /* slot k is now the next point */
		else
			k++;
	}
	for (size_t k = 0; k < cur.n; k++) {
		size_t lo = 0, hi = rungs_below(cur.slot[k].usec);
		schedule_t best = cur;

		/* Invariant: rung hi (or the current delay, when hi is the count) reproduces. */
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			schedule_t cand = cur;

			cand.slot[k].usec = schedule_magnitudes_ms[mid] * USEC_PER_MSEC;
			r = reproduces(&sh, &cand, "shorter delay");
			if (r < 0)
				return r == -EINTR ? 130 : EXIT_INTERNAL;
			if (r > 0) {
				hi = mid;
				best = cand;
			} else
				lo = mid + 1;
		}
		if (best.slot[k].usec != cur.slot[k].usec)
			hist[n_hist++] = cur = best;
	}

	/*
	 * The shortest delays sit at the edge of the window too.  When the result does not hold
	 * even lengthened (no delay left to lengthen, say), the step before it is tried, and so
	 * on back to the base, which held.
	 */
	assert(n_hist >= 1 && n_hist <= 2 * SCHEDULE_MAX + 2);
	confirmed = false;
	while (n_hist > 0 && !confirmed) {
		cur = hist[--n_hist];
		r = steady(&sh, &cur, &hist[0], final, "final check");
		if (r < 0)
			return r == -EINTR ? 130 : EXIT_INTERNAL;
		confirmed = r > 0;
	}

	/* The last run, whose trace is the report. */
	if (o->report)
		report = strdup(o->report);
	else if (asprintf(&report, "svcrace-%" PRIu64 ".html", o->seed) < 0)
		report = NULL;
	if (!report)
		return log_error_errno(-ENOMEM, "shrink"), EXIT_INTERNAL;
	spec = (run_spec_t){.seed = o->seed, .schedule = cur, .fixes = o->fixes, .report = report};
	if (run_pool(c, &spec, 1, on_first, &first) < 0)
		return 130;
	sh.runs++;
	schedule_format(&cur, delay, sizeof(delay));
	if (confirmed)
		printf("\nminimal schedule: %zu delay point%s, %zu of %zu replays gave: %s "
		       "(%zu runs in %.1f s)\n",
		        cur.n, cur.n == 1 ? "" : "s", final, final, target_name(sh.target), sh.runs,
		        (now_monotonic_usec() - t0) / 1e6);
	else
		printf("\nno schedule gave %s in %zu of %zu replays; the closest, "
		       "%zu delay point%s (%zu runs in %.1f s):\n",
		        target_name(sh.target), final, final, cur.n, cur.n == 1 ? "" : "s", sh.runs,
		        (now_monotonic_usec() - t0) / 1e6);
	printf("SMF_DELAY='%s'\n", delay);
	printf("replay: svcrace replay --seed %" PRIu64 " --fix %s --schedule '%s' %s\n", o->seed,
	        fix_name(o->fixes, fx, sizeof(fx)), delay, c->script[0]);
	if (verdict_of(&first) == VERDICT_ERROR)
		log_error("no trace report: %s", first.error);
	else
		printf("trace report of the minimal run (%s): %s\n",
		        verdict_name(verdict_of(&first)), report);
	return confirmed ? 0 : EXIT_RACE;
}
