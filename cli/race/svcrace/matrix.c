/*
 * matrix.c: "svcrace matrix": the same runs under every fix variant, one table.
 *
 * THE MODEL.  N seeds (S..S+N-1), so N schedules, each run once under each variant: a row
 * differs from another only by its fixes.  The runs are interleaved (seed by seed, every
 * variant in turn) rather than variant after variant, so that a change of the machine's load
 * during the command falls on every row alike.  Per variant: failures, hung runs, runs with a
 * manifested race, runs with a latent one, and the script's median and p99 wall time (what a
 * fix costs the script: a wait is time).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "macro.h"
#include "svcrace.h"

typedef struct matrix {
	size_t variants;
	run_stats_t *stats; /* per variant */
	bool verbose;
} matrix_t;

static bool on_matrix_run(const run_spec_t *spec, const run_result_t *r, void *userdata)
{
	matrix_t *m = userdata;
	size_t v = spec->index % m->variants;

	run_stats_add(&m->stats[v], r);
	if (verdict_of(r) == VERDICT_ERROR || m->verbose) {
		char fx[FIX_STRMAX];

		printf("[%s] ", fix_name(spec->fixes, fx, sizeof(fx)));
		run_print(stdout, spec, r);
		fflush(stdout);
	}
	return false;
}

int cmd_matrix(svcrace_t *c, const options_t *o)
{
	const unsigned *fixes = o->matrix_n ? o->matrix_fixes : fix_matrix_default;
	size_t nv = o->matrix_n ? o->matrix_n : fix_matrix_n_default, n = o->runs * nv;
	_cleanup_free_ run_spec_t *specs = calloc(n ? n : 1, sizeof(*specs));
	_cleanup_free_ run_stats_t *stats = calloc(nv, sizeof(*stats));
	matrix_t m = {.variants = nv, .stats = stats, .verbose = c->verbose};
	bool errors = false;
	int r;

	if (!specs || !stats)
		return log_error_errno(-ENOMEM, "matrix"), EXIT_INTERNAL;
	for (size_t i = 0; i < o->runs; i++) {
		schedule_t s;

		r = schedule_draw(o->seed + i, o->depth, o->scale, &s);
		if (r < 0)
			return log_error_errno(r, "drawing a schedule"), EXIT_INTERNAL;
		for (size_t v = 0; v < nv; v++)
			specs[i * nv + v] = (run_spec_t){.seed = o->seed + i,
			        .index = i * nv + v,
			        .schedule = s,
			        .fixes = fixes[v]};
	}
	printf("svcrace: matrix of %s: %zu seeds (%" PRIu64 "..%" PRIu64 ") x %zu fix variants, "
	       "%u of %zu delay points per run, %u at a time\n",
	        c->script[0], o->runs, o->seed, o->seed + (o->runs ? o->runs - 1 : 0), nv,
	        o->depth < svcrace_n_points ? o->depth : (unsigned)svcrace_n_points,
	        svcrace_n_points, c->jobs);
	r = run_pool(c, specs, n, on_matrix_run, &m);
	printf("\n%-40s %5s %9s %5s %11s %7s %7s %12s %12s\n", "fix", "runs", "failures", "hung",
	        "manifested", "latent", "errors", "median (ms)", "p99 (ms)");
	for (size_t v = 0; v < nv; v++) {
		run_stats_t *s = &stats[v];
		char fx[FIX_STRMAX];
		double med = quantile_usec(s->script_usec, s->n_times, 0.5) / 1000.0;
		double p99 = quantile_usec(s->script_usec, s->n_times, 0.99) / 1000.0;

		printf("%-40s %5zu %9zu %5zu %11zu %7zu %7zu %12.1f %12.1f\n",
		        fix_name(fixes[v], fx, sizeof(fx)), s->runs, s->failures, s->hung,
		        s->manifested, s->latent, s->errors, med, p99);
		errors |= s->errors > 0;
		run_stats_done(s);
	}
	if (r == -EINTR)
		return 130;
	return r < 0 || errors ? EXIT_INTERNAL : 0;
}
