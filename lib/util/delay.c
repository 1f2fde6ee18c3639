/*
 * delay.c: parsing SMF_DELAY and drawing delays (see delay.h).
 *
 * THE MODEL.  A table is an array of entries, one per named point: a fixed delay, or a range
 * [lo, hi] in microseconds from which each pass draws uniformly.  The draw for the i-th pass
 * through a point is splitmix64(key + i * golden), where key mixes the seed with a hash of the
 * point's name: a pure function of (seed, point, i).  Two threads racing through the same point
 * may swap which of them gets draw i, but the sequence of delays at each point is the same on
 * every run with the same seed, which is what lets a reproduction be replayed.
 *
 * INVARIANTS.  A table is built once and read-only afterwards except for each entry's pass
 * counter, which is atomic (relaxed: it only numbers the passes), so lookups need no lock.
 * Parsing never fails on a bad entry: it names the entry on stderr and skips it, because a typo
 * in a test's environment must be visible but must not stop a daemon from starting.
 */
#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "delay.h"
#include "hash.h"
#include "log.h"
#include "macro.h"
#include "timeutil.h"

#define GOLDEN_GAMMA UINT64_C(0x9e3779b97f4a7c15)

typedef struct delay_entry {
	char *name;
	bool random;
	uint64_t lo, hi; /* usec; lo == hi for a fixed delay */
	uint64_t key;    /* seed mixed with the name, for random draws */
	_Atomic uint64_t passes;
} delay_entry_t;

struct delay_table {
	uint64_t seed;
	size_t n;
	delay_entry_t *entries;
};

static uint64_t splitmix64(uint64_t z)
{
	z += GOLDEN_GAMMA;
	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* A stable hash of the point's name, so each point has its own stream. */
static uint64_t name_hash(const char *s)
{
	return smf_hash_str(s);
}

static char *strip(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* Decimal digits only (strtoull would also take signs and blanks); *end is left after them. */
static int parse_number(const char *s, const char **end, uint64_t *ret)
{
	unsigned long long v;
	char *e;

	if (!isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno)
		return -ERANGE;
	*end = e;
	*ret = v;
	return 0;
}

static int parse_unit(const char *s, uint64_t *ret)
{
	if (strcmp(s, "us") == 0)
		*ret = 1;
	else if (strcmp(s, "ms") == 0)
		*ret = USEC_PER_MSEC;
	else if (strcmp(s, "s") == 0)
		*ret = USEC_PER_SEC;
	else
		return -EINVAL;
	return 0;
}

static int scale(uint64_t v, uint64_t mult, uint64_t *ret)
{
	if (v > UINT64_MAX / mult)
		return -ERANGE;
	*ret = v * mult;
	return 0;
}

/* "250ms" or "rand:0-50ms" into e; *why says what was wrong. */
static int parse_spec(const char *s, delay_entry_t *e, const char **why)
{
	uint64_t a, b, mult;
	const char *p;
	int r;

	e->random = strncmp(s, "rand:", 5) == 0;
	if (e->random)
		s += 5;
	r = parse_number(s, &p, &a);
	if (r < 0)
		return *why = r == -ERANGE ? "too large" : "not a number", r;
	b = a;
	if (e->random) {
		if (*p != '-')
			return *why = "want rand:A-B with a unit", -EINVAL;
		r = parse_number(p + 1, &p, &b);
		if (r < 0)
			return *why = r == -ERANGE ? "too large" : "not a number after '-'", r;
	}
	if (parse_unit(p, &mult) < 0)
		return *why = "unit must be us, ms or s", -EINVAL;
	if (a > b)
		return *why = "range is empty (A > B)", -EINVAL;
	if (scale(a, mult, &e->lo) < 0 || scale(b, mult, &e->hi) < 0)
		return *why = "too large", -ERANGE;
	return 0;
}

static delay_entry_t *find(const delay_table_t *t, const char *point)
{
	for (size_t k = 0; k < t->n; k++)
		if (strcmp(t->entries[k].name, point) == 0)
			return &t->entries[k];
	return NULL;
}

/* One "point=spec" entry (a writable copy); -ENOMEM is the only error the caller passes up. */
static int parse_entry(delay_table_t *t, char *text, const char **why)
{
	char *eq = strchr(text, '='), *name, *spec;
	delay_entry_t e = {0};

	if (!eq)
		return *why = "want point=spec", -EINVAL;
	*eq = '\0';
	name = strip(text);
	spec = strip(eq + 1);
	if (!*name)
		return *why = "no point name", -EINVAL;
	if (find(t, name))
		return *why = "point given twice", -EEXIST;
	if (parse_spec(spec, &e, why) < 0)
		return -EINVAL;
	e.name = strdup(name);
	if (!e.name)
		return -ENOMEM;
	e.key = splitmix64(t->seed ^ name_hash(name));
	t->entries[t->n++] = e;
	return 0;
}

static size_t count_entries(const char *spec)
{
	size_t n = 1;

	for (; *spec; spec++)
		n += *spec == ',';
	return n;
}

int smf_delay_parse(const char *spec, uint64_t seed, delay_table_t **ret)
{
	_cleanup_delay_free_ delay_table_t *t = NULL;
	_cleanup_free_ char *copy = strdup(spec);
	char *save = NULL;
	int skipped = 0;

	t = calloc(1, sizeof(*t));
	if (!t || !copy)
		return -ENOMEM;
	t->seed = seed;
	t->entries = calloc(count_entries(spec), sizeof(*t->entries));
	if (!t->entries)
		return -ENOMEM;
	for (char *e = strtok_r(copy, ",", &save); e; e = strtok_r(NULL, ",", &save)) {
		_cleanup_free_ char *shown = strdup(strip(e));
		const char *why = NULL;
		int r;

		if (!shown)
			return -ENOMEM;
		if (!*shown)
			continue;
		r = parse_entry(t, e, &why);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			fprintf(stderr, "%s: SMF_DELAY: ignoring \"%s\": %s\n",
			        program_invocation_short_name, shown, why);
			skipped++;
		}
	}
	*ret = TAKE_PTR(t);
	return skipped;
}

uint64_t smf_delay_usec(delay_table_t *t, const char *point)
{
	delay_entry_t *e;
	uint64_t i, span;

	if (!t)
		return 0;
	e = find(t, point);
	if (!e)
		return 0;
	if (!e->random)
		return e->lo;
	i = atomic_fetch_add_explicit(&e->passes, 1, memory_order_relaxed);
	span = e->hi - e->lo + 1;
	/* span is 0 only for the whole 64-bit range; the modulo bias is < span / 2^64. */
	return e->lo +
	        (span ? splitmix64(e->key + i * GOLDEN_GAMMA) % span
	              : splitmix64(e->key + i * GOLDEN_GAMMA));
}

size_t smf_delay_count(const delay_table_t *t)
{
	return t ? t->n : 0;
}

bool smf_delay_has_random(const delay_table_t *t)
{
	for (size_t k = 0; t && k < t->n; k++)
		if (t->entries[k].random)
			return true;
	return false;
}

uint64_t smf_delay_seed(const delay_table_t *t)
{
	return t ? t->seed : 0;
}

delay_table_t *smf_delay_free(delay_table_t *t)
{
	if (!t)
		return NULL;
	for (size_t k = 0; k < t->n; k++)
		free(t->entries[k].name);
	free(t->entries);
	free(t);
	return NULL;
}

/* $SMF_DELAY_SEED, or the clock's nanoseconds when it is unset or bad. */
static uint64_t seed_from_env(const char *who, bool *given)
{
	const char *s = getenv("SMF_DELAY_SEED"), *end;
	uint64_t seed;

	*given = false;
	if (s && *s) {
		if (parse_number(s, &end, &seed) == 0 && *end == '\0') {
			*given = true;
			return seed;
		}
		fprintf(stderr, "%s: SMF_DELAY_SEED: ignoring \"%s\" (want a decimal number)\n",
		        who, s);
	}
	return splitmix64(now_realtime_usec() ^ now_monotonic_nsec() ^ (uint64_t)getpid());
}

int smf_delay_from_env(const char *who, delay_table_t **ret)
{
	_cleanup_delay_free_ delay_table_t *t = NULL;
	const char *spec = getenv("SMF_DELAY");
	uint64_t seed;
	bool given;
	int r;

	*ret = NULL;
	if (!spec || !*spec)
		return 0;
	seed = seed_from_env(who, &given);
	/* The seed is a decimal the user retypes; keep it short enough to copy by eye. */
	if (!given)
		seed %= UINT64_C(1000000000);
	r = smf_delay_parse(spec, seed, &t);
	if (r < 0)
		return r;
	if (smf_delay_has_random(t))
		fprintf(stderr, "%s: SMF_DELAY seed %" PRIu64 "\n", who, seed);
	if (smf_delay_count(t) > 0)
		*ret = TAKE_PTR(t);
	return 0;
}

void smf_delay_sleep(uint64_t usec)
{
	struct timespec ts;

	if (usec == 0)
		return;
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

/* Written once by smf_points_init() before any thread exists; read-only afterwards. */
static delay_table_t *points;

void smf_points_init(const char *who)
{
	assert(!points);
	if (smf_delay_from_env(who, &points) < 0)
		log_error("SMF_DELAY: out of memory; no delay points");
}

void smf_point(const char *name)
{
	if (_likely_(!points))
		return;
	smf_delay_sleep(smf_delay_usec(points, name));
}
