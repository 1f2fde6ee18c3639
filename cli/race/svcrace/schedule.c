/*
 * schedule.c: which delay points a run slows, and by how much.
 *
 * THE MODEL (after PCT, "probabilistic concurrency testing": a bug of depth d needs d
 * particular orderings; a scheduler that perturbs d places chosen at random finds it with a
 * probability that depends only on how many places there are, not on luck of the load).
 *
 * The places are the delay points of this build: SMF_POINTS in delay.h, compiled in, P of
 * them.  A run's schedule slows D of them (--depth, default 2), chosen uniformly without
 * replacement, each by a magnitude chosen uniformly from a fixed ladder.  A race that opens
 * only when k given points (k <= D) are all slowed by at least some length is therefore hit in
 * a run with probability
 *
 *     C(P - k, D - k) / C(P, D)  x  (share of the ladder at least that long)^k
 *
 * (k = 1: D / P; k = D: 1 / C(P, D)), independently from run to run: after n runs it was
 * missed with probability (1 - p)^n.  svcrace points prints the first factor.  A race the
 * machine's own timing opens (no point needed) is hit on every run where the timing allows.
 *
 * The ladder, 1-2-5 steps from 1 ms to 100 ms: a window between 1 ms and 100 ms is exceeded
 * by a rung at most 2.5 times its length, so a delay is never far longer than it needs to be
 * (every pass through a slowed point pays it: a point passed ten times a run at 100 ms costs a
 * second).  1 ms is about the length of one hop of startd's path unloaded (a thread wake-up
 * and a round trip to configd); 100 ms is above the windows seen under heavy load (tens of ms,
 * docs/race.md, "A run on this machine"); beyond it a run gets slow without opening more.
 * Those lengths are the unloaded build's: under the sanitizers every command of a script
 * takes ten times longer to start and to exit (about 100 ms, not 10), so a window the ladder
 * opens closes before the script's next command reads.  --scale K multiplies every rung (the
 * draws are the same, so a seed picks the same points at any scale).
 *
 * INVARIANTS.  A schedule is a pure function of (seed, depth, scale, the point list): the
 * draws come from the tree's one seeded generator (a delay table with one random entry,
 * lib/util/delay.c), so a seed replays the same schedule in this build at the same scale.  A schedule holds fixed delays only and is
 * kept sorted by point, so its SMF_DELAY string is canonical and replays exactly.
 */
#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "svcrace.h"

const svcrace_point_t svcrace_points[] = {
#define POINT_ENTRY_(c, name, where) {name, where},
        SMF_POINTS(POINT_ENTRY_)
#undef POINT_ENTRY_
};
const size_t svcrace_n_points = ELEMENTSOF(svcrace_points);

const uint32_t schedule_magnitudes_ms[] = {1, 2, 5, 10, 20, 50, 100};
const size_t schedule_n_magnitudes = ELEMENTSOF(schedule_magnitudes_ms);

_Static_assert(ELEMENTSOF(svcrace_points) <= SCHEDULE_MAX, "SCHEDULE_MAX below the points");

/* A uniform draw in [0, 2^32) per call, from the seed's stream. */
#define DRAW_POINT "svcrace.schedule"
#define DRAW_SPEC DRAW_POINT "=rand:0-4294967295us"

static int cmp_slot_point(const void *a, const void *b)
{
	const size_t *x = a, *y = b;

	return *x < *y ? -1 : *x > *y;
}

static void schedule_sort(schedule_t *s)
{
	/* slot[k].point comes first in each slot, so the slots sort by it. */
	qsort(s->slot, s->n, sizeof(s->slot[0]), cmp_slot_point);
}

int schedule_draw(uint64_t seed, unsigned depth, unsigned scale, schedule_t *ret)
{
	_cleanup_delay_free_ delay_table_t *t = NULL;
	size_t idx[SCHEDULE_MAX], n = svcrace_n_points;
	int r;

	assert(scale >= 1 && scale <= SCHEDULE_MAX_SCALE);
	r = smf_delay_parse(DRAW_SPEC, seed, &t);
	if (r != 0)
		return r < 0 ? r : -EINVAL;
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	*ret = (schedule_t){0};
	/* A partial Fisher-Yates shuffle: the first `depth` of a uniform permutation. */
	for (size_t k = 0; k < depth && k < n; k++) {
		size_t j = k + smf_delay_usec(t, DRAW_POINT) % (n - k), m, tmp;

		tmp = idx[k];
		idx[k] = idx[j];
		idx[j] = tmp;
		m = smf_delay_usec(t, DRAW_POINT) % schedule_n_magnitudes;
		ret->slot[k].point = idx[k];
		ret->slot[k].usec = (uint64_t)schedule_magnitudes_ms[m] * scale * 1000;
		ret->n++;
	}
	schedule_sort(ret);
	return 0;
}

const char *schedule_format(const schedule_t *s, char *buf, size_t size)
{
	size_t len = 0;

	assert(size > 0);
	buf[0] = '\0';
	for (size_t k = 0; k < s->n && len < size; k++) {
		uint64_t us = s->slot[k].usec;
		int w = us % 1000 == 0
		        ? snprintf(buf + len, size - len, "%s%s=%" PRIu64 "ms", k ? "," : "",
		                  svcrace_points[s->slot[k].point].name, us / 1000)
		        : snprintf(buf + len, size - len, "%s%s=%" PRIu64 "us", k ? "," : "",
		                  svcrace_points[s->slot[k].point].name, us);
		if (w < 0)
			break;
		len += (size_t)w;
	}
	return buf;
}

static int point_index(const char *name)
{
	for (size_t i = 0; i < svcrace_n_points; i++)
		if (streq(svcrace_points[i].name, name))
			return (int)i;
	return -1;
}

/*
 * The specs are read by delay.c's parser, the one SMF_DELAY parser; only the names are
 * checked here, against this build's points, so a typo is an error and not a silent no-op.
 */
int schedule_parse(const char *text, schedule_t *ret)
{
	_cleanup_delay_free_ delay_table_t *t = NULL;
	_cleanup_free_ char *copy = strdup(text);
	char *save = NULL;
	int r;

	if (!copy)
		return log_error_errno(-ENOMEM, "parsing the schedule");
	r = smf_delay_parse(text, 0, &t);
	if (r < 0)
		return log_error_errno(r, "parsing the schedule");
	if (r > 0) {
		log_error("the schedule \"%s\" does not parse (above)", text);
		return -EINVAL;
	}
	if (smf_delay_has_random(t)) {
		log_error("the schedule \"%s\" has a random delay: a schedule is fixed delays "
		          "only, so "
		          "that it replays exactly",
		        text);
		return -EINVAL;
	}
	*ret = (schedule_t){0};
	for (char *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		char *name = e, *end;
		uint64_t us;
		int p;

		name += strspn(name, " \t");
		end = name + strcspn(name, "= \t");
		*end = '\0';
		if (!*name)
			continue;
		p = point_index(name);
		if (p < 0) {
			log_error("the schedule names \"%s\", not a delay point of this build "
			          "(svcrace "
			          "points lists them)",
			        name);
			return -EINVAL;
		}
		us = smf_delay_usec(t, name);
		if (us == 0)
			continue; /* a zero delay slows nothing */
		ret->slot[ret->n].point = (size_t)p;
		ret->slot[ret->n].usec = us;
		ret->n++;
	}
	schedule_sort(ret);
	return 0;
}

void schedule_drop(const schedule_t *s, size_t k, schedule_t *ret)
{
	assert(k < s->n);
	*ret = *s;
	memmove(&ret->slot[k], &ret->slot[k + 1], (ret->n - k - 1) * sizeof(ret->slot[0]));
	ret->n--;
}

static double choose(size_t n, size_t k)
{
	double c = 1;

	if (k > n)
		return 0;
	for (size_t i = 0; i < k; i++)
		c = c * (double)(n - i) / (double)(i + 1);
	return c;
}

double schedule_hit_probability(size_t points, unsigned depth, unsigned needed)
{
	size_t d = depth < points ? depth : points;

	if (needed > d)
		return 0;
	return choose(points - needed, d - needed) / choose(points, d);
}
