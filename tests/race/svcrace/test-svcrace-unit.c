/*
 * test-svcrace-unit.c: svcrace's pure parts, without a daemon: the schedules (a pure function
 * of the seed, uniform over the points as the probability bound assumes, their SMF_DELAY
 * strings), the fix variants and their switches, the verdict and the counts read from
 * svctrace check's JSON; and run_pool()'s pipeline with fake runs (run_ops_t): results
 * reported in the order of the runs, each after its analysis, the next run executing while a
 * run is analysed, never more than --jobs executing, and a stop reporting nothing after it.
 * The fakes order their steps through pipes (a poll with a deadline), never by sleeping.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "strv.h"
#include "svcrace.h"

#define SEEDS 6000

static void test_points_are_smf_points(void **state)
{
	size_t n = 0;

	(void)state;
#define COUNT_(c, name, where) n++;
	SMF_POINTS(COUNT_)
#undef COUNT_
	assert_int_equal(svcrace_n_points, n);
	for (size_t i = 0; i < svcrace_n_points; i++) {
		assert_true(strlen(svcrace_points[i].name) > 0);
		assert_true(strlen(svcrace_points[i].where) > 0);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(svcrace_points[i].name, svcrace_points[j].name);
	}
}

static void test_draw_is_a_function_of_the_seed(void **state)
{
	char a[SCHEDULE_STRMAX], b[SCHEDULE_STRMAX];
	size_t differ = 0;

	(void)state;
	for (uint64_t seed = 0; seed < 200; seed++) {
		schedule_t s1, s2, s3;

		assert_int_equal(schedule_draw(seed, 2, 1, &s1), 0);
		assert_int_equal(schedule_draw(seed, 2, 1, &s2), 0);
		assert_memory_equal(&s1, &s2, sizeof(s1));
		assert_int_equal(schedule_draw(seed + 1, 2, 1, &s3), 0);
		differ += strcmp(schedule_format(&s1, a, sizeof(a)),
		                  schedule_format(&s3, b, sizeof(b))) != 0;
	}
	/* Neighbouring seeds are independent draws, not shifted copies. */
	assert_true(differ > 100);
}

/* --scale K: the same points as at scale 1, each delay K times as long. */
static void test_draw_scaled(void **state)
{
	(void)state;
	for (uint64_t seed = 0; seed < 200; seed++) {
		schedule_t one, ten;

		assert_int_equal(schedule_draw(seed, 2, 1, &one), 0);
		assert_int_equal(schedule_draw(seed, 2, 10, &ten), 0);
		assert_int_equal(one.n, ten.n);
		for (size_t k = 0; k < one.n; k++) {
			assert_int_equal(one.slot[k].point, ten.slot[k].point);
			assert_int_equal(one.slot[k].usec * 10, ten.slot[k].usec);
		}
	}
}

static bool on_ladder(uint64_t usec)
{
	for (size_t m = 0; m < schedule_n_magnitudes; m++)
		if (usec == schedule_magnitudes_ms[m] * 1000ULL)
			return true;
	return false;
}

static void test_draw_shape(void **state)
{
	schedule_t s;

	(void)state;
	for (unsigned depth = 0; depth <= svcrace_n_points + 2; depth++)
		for (uint64_t seed = 1; seed < 50; seed++) {
			size_t want = depth < svcrace_n_points ? depth : svcrace_n_points;

			assert_int_equal(schedule_draw(seed, depth, 1, &s), 0);
			assert_int_equal(s.n, want);
			for (size_t k = 0; k < s.n; k++) {
				assert_true(s.slot[k].point < svcrace_n_points);
				assert_true(on_ladder(s.slot[k].usec));
				/* Sorted and distinct. */
				if (k > 0)
					assert_true(s.slot[k - 1].point < s.slot[k].point);
			}
		}
}

/*
 * The bound of svcrace(1): a given point is slowed in D/P of the runs, a given pair in
 * 1/C(P,2) with D = 2, and each magnitude is as likely as the others.  Checked over SEEDS
 * seeds, within 5 standard deviations.
 */
static void test_draw_is_uniform(void **state)
{
	size_t point[SCHEDULE_MAX] = {0}, pair = 0, mag[16] = {0};
	double p1 = schedule_hit_probability(svcrace_n_points, 2, 1);
	double p2 = schedule_hit_probability(svcrace_n_points, 2, 2);

	(void)state;
	assert_true(svcrace_n_points >= 2);
	for (uint64_t seed = 0; seed < SEEDS; seed++) {
		schedule_t s;
		bool first = false, second = false;

		assert_int_equal(schedule_draw(seed * 7919, 2, 1, &s), 0);
		for (size_t k = 0; k < s.n; k++) {
			point[s.slot[k].point]++;
			first |= s.slot[k].point == 0;
			second |= s.slot[k].point == 1;
			for (size_t m = 0; m < schedule_n_magnitudes; m++)
				mag[m] += s.slot[k].usec == schedule_magnitudes_ms[m] * 1000ULL;
		}
		pair += first && second;
	}
	for (size_t i = 0; i < svcrace_n_points; i++) {
		double sd = sqrt(SEEDS * p1 * (1 - p1));

		assert_true(fabs(point[i] - SEEDS * p1) < 5 * sd);
	}
	assert_true(fabs(pair - SEEDS * p2) < 5 * sqrt(SEEDS * p2 * (1 - p2)) + 1);
	for (size_t m = 0; m < schedule_n_magnitudes; m++) {
		double n = 2.0 * SEEDS, q = 1.0 / (double)schedule_n_magnitudes;

		assert_true(fabs(mag[m] - n * q) < 5 * sqrt(n * q * (1 - q)));
	}
}

static void test_hit_probability(void **state)
{
	(void)state;
	assert_true(fabs(schedule_hit_probability(3, 2, 1) - 2.0 / 3) < 1e-9);
	assert_true(fabs(schedule_hit_probability(3, 2, 2) - 1.0 / 3) < 1e-9);
	assert_true(fabs(schedule_hit_probability(9, 2, 1) - 2.0 / 9) < 1e-9);
	assert_true(fabs(schedule_hit_probability(9, 2, 2) - 1.0 / 36) < 1e-9);
	assert_true(fabs(schedule_hit_probability(9, 3, 2) - 1.0 / 12) < 1e-9);
	assert_true(schedule_hit_probability(9, 2, 3) == 0);
	/* A depth above the points slows them all. */
	assert_true(fabs(schedule_hit_probability(3, 5, 3) - 1) < 1e-9);
}

static void test_format_parse_round_trip(void **state)
{
	char a[SCHEDULE_STRMAX], b[SCHEDULE_STRMAX];

	(void)state;
	for (uint64_t seed = 0; seed < 100; seed++) {
		schedule_t s, t;

		assert_int_equal(schedule_draw(seed, (unsigned)(seed % 4), 1, &s), 0);
		schedule_format(&s, a, sizeof(a));
		assert_int_equal(schedule_parse(a, &t), 0);
		assert_string_equal(schedule_format(&t, b, sizeof(b)), a);
		assert_int_equal(t.n, s.n);
	}
}

static void test_parse(void **state)
{
	char name[120], text[400], out[SCHEDULE_STRMAX];
	schedule_t s;

	(void)state;
	snprintf(name, sizeof(name), "%s", svcrace_points[0].name);
	/* Units, blanks, a zero delay (slows nothing), microseconds kept as such. */
	snprintf(text, sizeof(text), " %s = 1500us ", name);
	assert_int_equal(schedule_parse(text, &s), 0);
	assert_int_equal(s.n, 1);
	assert_int_equal(s.slot[0].usec, 1500);
	assert_string_equal(
	        schedule_format(&s, out, sizeof(out)), strcat(strcpy(text, name), "=1500us"));
	snprintf(text, sizeof(text), "%s=2s", name);
	assert_int_equal(schedule_parse(text, &s), 0);
	assert_int_equal(s.slot[0].usec, 2000000);
	snprintf(text, sizeof(text), "%s=0ms", name);
	assert_int_equal(schedule_parse(text, &s), 0);
	assert_int_equal(s.n, 0);
	assert_int_equal(schedule_parse("", &s), 0);
	assert_int_equal(s.n, 0);
	/* Random delays do not replay exactly; unknown points and bad specs are errors. */
	snprintf(text, sizeof(text), "%s=rand:1-5ms", name);
	assert_int_equal(schedule_parse(text, &s), -EINVAL);
	assert_int_equal(schedule_parse("startd.no.such.point=5ms", &s), -EINVAL);
	snprintf(text, sizeof(text), "%s=5parsecs", name);
	assert_int_equal(schedule_parse(text, &s), -EINVAL);
	snprintf(text, sizeof(text), "%s=5ms,%s=6ms", name, name);
	assert_int_equal(schedule_parse(text, &s), -EINVAL);
	assert_int_equal(schedule_parse("justaword", &s), -EINVAL);
}

static void test_drop(void **state)
{
	schedule_t s, t;

	(void)state;
	assert_int_equal(schedule_draw(3, 3, 1, &s), 0);
	if (s.n < 2)
		skip();
	schedule_drop(&s, 0, &t);
	assert_int_equal(t.n, s.n - 1);
	assert_int_equal(t.slot[0].point, s.slot[1].point);
	assert_int_equal(t.slot[0].usec, s.slot[1].usec);
}

static void test_fix_parse(void **state)
{
	char buf[FIX_STRMAX];
	unsigned f;

	(void)state;
	assert_int_equal(fix_parse("none", &f), 0);
	assert_int_equal(f, 0);
	assert_string_equal(fix_name(f, buf, sizeof(buf)), "none");
	assert_int_equal(fix_parse("default", &f), 0);
	assert_int_equal(f, FIX_IMPORT_WAIT | FIX_ADD_WAIT);
	assert_string_equal(fix_name(f, buf, sizeof(buf)), "default");
	assert_int_equal(fix_parse("add-wait+import-wait", &f), 0);
	assert_string_equal(fix_name(f, buf, sizeof(buf)), "default");
	assert_int_equal(fix_parse("svcadm-wait", &f), 0);
	assert_int_equal(f, FIX_SVCADM_WAIT);
	assert_int_equal(fix_parse("default+configd-eager", &f), 0);
	assert_string_equal(fix_name(f, buf, sizeof(buf)), "import-wait+add-wait+configd-eager");
	assert_int_equal(fix_parse("all", &f), 0);
	assert_int_equal(f, FIX_ALL);
	assert_int_equal(fix_parse("", &f), -EINVAL);
	assert_int_equal(fix_parse("bogus", &f), -EINVAL);
	assert_int_equal(fix_parse("import-wait+", &f), -EINVAL);
	assert_int_equal(fix_parse("+import-wait", &f), -EINVAL);
	assert_int_equal(fix_parse("import-wait++add-wait", &f), -EINVAL);
	assert_int_equal(fix_parse("none+add-wait", &f), -EINVAL);
}

static const char *env_get(char **env, const char *name)
{
	size_t len = strlen(name);

	STRV_FOREACH (e, env)
		if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
			return *e + len + 1;
	return NULL;
}

/* Every switch is set or unset explicitly: what the caller's environment held does not leak. */
static void test_fix_env(void **state)
{
	_cleanup_strv_free_ char **env = strv_new_empty();

	(void)state;
	assert_non_null(env);
	assert_int_equal(strv_extend(&env, "SVCADM_WAIT_RESTARTER=1"), 0);
	assert_int_equal(strv_extend(&env, "SVC_CONFIGD_EAGER=1"), 0);
	assert_int_equal(strv_extend(&env, "KEEP=me"), 0);
	assert_int_equal(fix_client_env(0, &env), 0);
	assert_string_equal(env_get(env, "SVCCFG_IMPORT_NOWAIT"), "1");
	assert_string_equal(env_get(env, "SVCCFG_ADD_NOWAIT"), "1");
	assert_null(env_get(env, "SVCADM_WAIT_RESTARTER"));
	assert_null(env_get(env, "SVC_CONFIGD_EAGER"));
	assert_string_equal(env_get(env, "KEEP"), "me");
	assert_int_equal(fix_client_env(FIX_DEFAULT | FIX_SVCADM_WAIT, &env), 0);
	assert_null(env_get(env, "SVCCFG_IMPORT_NOWAIT"));
	assert_null(env_get(env, "SVCCFG_ADD_NOWAIT"));
	assert_string_equal(env_get(env, "SVCADM_WAIT_RESTARTER"), "1");
	assert_int_equal(fix_configd_env(FIX_CONFIGD_EAGER, &env), 0);
	assert_string_equal(env_get(env, "SVC_CONFIGD_EAGER"), "1");
	assert_int_equal(fix_configd_env(FIX_DEFAULT, &env), 0);
	assert_null(env_get(env, "SVC_CONFIGD_EAGER"));
	/* Set twice, present once. */
	assert_int_equal(env_set(&env, "KEEP", "a"), 0);
	assert_int_equal(env_set(&env, "KEEP", "b"), 0);
	assert_string_equal(env_get(env, "KEEP"), "b");
	env_unset(env, "KEEP");
	assert_null(env_get(env, "KEEP"));
}

static void test_counts(void **state)
{
	uint32_t l = 99, m = 99;

	(void)state;
	/* What svctrace check --json writes today: the counts under "summary". */
	assert_int_equal(
	        verdict_parse_counts(
	                "{\"findings\":[{\"kind\":\"latent\",\"fmri\":\"svc:/a:b\",\"latent\":"
	                "7,\"window_us\":1.5,\"open\":false,\"x\":null}],\"summary\":{"
	                "\"instances\":1,\"latent\":1,\"manifested\":0,\"drops\":0}}\n",
	                &l, &m),
	        0);
	assert_int_equal(l, 1);
	assert_int_equal(m, 0);
	/* The interface's top-level counts win over the summary's. */
	assert_int_equal(verdict_parse_counts("{\"latent\":2,\"manifested\":3,\"summary\":{"
	                                      "\"latent\":9,\"manifested\":9}}",
	                         &l, &m),
	        0);
	assert_int_equal(l, 2);
	assert_int_equal(m, 3);
	/* Extra keys, nesting, escapes, arrays of objects: skipped. */
	assert_int_equal(
	        verdict_parse_counts(" { \"new\" : {\"summary\":{\"latent\":5}}, \"s\":\"a\\\"}"
	                             "\", \"summary\" : { \"manifested\" : 4 , \"latent\" : 0 "
	                             "}, \"arr\": [[1,2],{\"latent\":8},true,-1.5e3] } ",
	                &l, &m),
	        0);
	assert_int_equal(l, 0);
	assert_int_equal(m, 4);
	/* No counts, or no JSON: not an answer. */
	assert_int_equal(verdict_parse_counts("{\"findings\":[]}", &l, &m), -EINVAL);
	assert_int_equal(verdict_parse_counts("{\"summary\":{\"latent\":1}}", &l, &m), -EINVAL);
	assert_int_equal(verdict_parse_counts("", &l, &m), -EINVAL);
	assert_int_equal(
	        verdict_parse_counts("{\"summary\":{\"latent\":1,\"manifested\":0}", &l, &m),
	        -EINVAL);
	assert_int_equal(
	        verdict_parse_counts("{\"summary\":{\"latent\":1,\"manifested\":0}} x", &l, &m),
	        -EINVAL);
	assert_int_equal(verdict_parse_counts("[1]", &l, &m), -EINVAL);
}

static void test_verdict(void **state)
{
	run_result_t r = {.status = 0, .check_rc = 0};

	(void)state;
	assert_int_equal(verdict_of(&r), VERDICT_CLEAN);
	r.status = 3 << 8; /* exit 3 */
	assert_int_equal(verdict_of(&r), VERDICT_FAILED);
	r.hung = true;
	r.status = -1;
	assert_int_equal(verdict_of(&r), VERDICT_HUNG);
	/* The trace decides race, whatever the script did. */
	r.latent = 1;
	r.check_rc = 1;
	assert_int_equal(verdict_of(&r), VERDICT_LATENT);
	r.manifested = 1;
	assert_int_equal(verdict_of(&r), VERDICT_MANIFESTED);
	assert_true(verdict_is_race(verdict_of(&r)));
	strcpy(r.error, "x");
	assert_int_equal(verdict_of(&r), VERDICT_ERROR);
	assert_false(verdict_is_race(VERDICT_FAILED));
	assert_false(verdict_is_race(VERDICT_HUNG));
}

static void test_quantile(void **state)
{
	uint64_t v[] = {50, 10, 40, 20, 30};

	(void)state;
	assert_int_equal(quantile_usec(v, 5, 0.5), 30);
	assert_int_equal(quantile_usec(v, 5, 0.99), 50);
	assert_int_equal(quantile_usec(v, 5, 0), 10);
	assert_int_equal(quantile_usec(v, 0, 0.5), 0);
}

/* ---- run_pool() with fake runs ------------------------------------------------------------ */

#define POOL_RUNS 6
#define POOL_WAIT_MS 20000 /* a step that never comes: the fake's run fails, never hangs */

/* What the runs' processes share with the test (MAP_SHARED), and the pipes that order them. */
typedef struct pool_probe {
	int executing, max_executing; /* runs inside execute() now, and at most */
	int analysed[POOL_RUNS];      /* analyse() of run i returned */
	int gate[2];                  /* a byte: the step the test waits for happened */
	int scenario;
} pool_probe_t;

static pool_probe_t *probe;

enum { SCENARIO_ORDER, SCENARIO_PIPELINE, SCENARIO_STOP };

static bool gate_wait(void)
{
	struct pollfd p = {.fd = probe->gate[0], .events = POLLIN};
	char b;

	return poll(&p, 1, POOL_WAIT_MS) == 1 && read(probe->gate[0], &b, 1) == 1;
}

static void gate_open(void)
{
	(void)!write(probe->gate[1], "g", 1);
}

static void fake_execute(const svcrace_t *c, const run_spec_t *spec, sandbox_t *sb, run_result_t *r)
{
	int now = __atomic_add_fetch(&probe->executing, 1, __ATOMIC_SEQ_CST);
	int max = __atomic_load_n(&probe->max_executing, __ATOMIC_SEQ_CST);

	while (now > max &&
	        !__atomic_compare_exchange_n(&probe->max_executing, &max, now, false,
	                __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		;
	*r = (run_result_t){.seed = spec->seed,
	        .index = spec->index,
	        .status = 0,
	        .check_rc = -1,
	        .conform_rc = -1};
	memset(sb, 0, sizeof(*sb));
	/* ORDER: run 0 finishes only after run 1 was analysed: run 1 is done first. */
	if (probe->scenario == SCENARIO_ORDER && spec->index == 0 && !gate_wait())
		strcpy(r->error, "run 1 was never analysed while run 0 executed");
	/* PIPELINE: run 1 starting to execute is what run 0's analysis waits for. */
	if (probe->scenario == SCENARIO_PIPELINE && spec->index == 1)
		gate_open();
	__atomic_sub_fetch(&probe->executing, 1, __ATOMIC_SEQ_CST);
}

static void fake_analyse(const svcrace_t *c, const run_spec_t *spec, sandbox_t *sb, run_result_t *r)
{
	if (probe->scenario == SCENARIO_PIPELINE && spec->index == 0 && !gate_wait())
		strcpy(r->error, "run 1 did not execute while run 0 was analysed");
	r->check_rc = 1;
	r->latent = (uint32_t)spec->index + 1; /* what only the analysis says */
	r->conform_rc = 0;
	__atomic_store_n(&probe->analysed[spec->index], 1, __ATOMIC_SEQ_CST);
	if (probe->scenario == SCENARIO_ORDER && spec->index == 1)
		gate_open();
}

static const run_ops_t fake_ops = {.execute = fake_execute, .analyse = fake_analyse};

typedef struct pool_seen {
	size_t n, order[POOL_RUNS];
	size_t stop_at; /* done() asks to stop at this run; POOL_RUNS: never */
	bool bad;       /* a result without its analysis, or with an error */
} pool_seen_t;

static bool on_pool_done(const run_spec_t *spec, const run_result_t *r, void *userdata)
{
	pool_seen_t *seen = userdata;

	if (seen->n < POOL_RUNS)
		seen->order[seen->n++] = spec->index;
	/* A verdict reported only once its analysis is done, and with what it found. */
	if (!__atomic_load_n(&probe->analysed[spec->index], __ATOMIC_SEQ_CST) ||
	        r->latent != spec->index + 1 || r->index != spec->index || r->error[0]) {
		fprintf(stderr, "run %zu: analysed %d, latent %u, error '%s'\n", spec->index,
		        probe->analysed[spec->index], r->latent, r->error);
		seen->bad = true;
	}
	return spec->index == seen->stop_at;
}

/* n fake runs, jobs at a time, under scenario; what done() saw into *seen. */
static int pool_run(int scenario, unsigned jobs, size_t n, pool_seen_t *seen)
{
	svcrace_t c = {.jobs = jobs, .pid = getpid(), .ops = &fake_ops};
	run_spec_t specs[POOL_RUNS];
	int r;

	assert_true(n <= POOL_RUNS);
	memset(probe, 0, sizeof(*probe));
	probe->scenario = scenario;
	assert_int_equal(pipe(probe->gate), 0);
	for (size_t i = 0; i < n; i++)
		specs[i] = (run_spec_t){.seed = 100 + i, .index = i};
	r = run_pool(&c, specs, n, on_pool_done, seen);
	close(probe->gate[0]);
	close(probe->gate[1]);
	return r;
}

static int pool_setup(void **state)
{
	probe = mmap(
	        NULL, sizeof(*probe), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	return probe == MAP_FAILED ? -1 : 0;
}

static int pool_teardown(void **state)
{
	munmap(probe, sizeof(*probe));
	return 0;
}

/* Run 1 is done before run 0 (run 0 waits for it): reported 0 then 1, all in order. */
static void test_pool_reports_in_order(void **state)
{
	pool_seen_t seen = {.stop_at = POOL_RUNS};

	(void)state;
	assert_int_equal(pool_run(SCENARIO_ORDER, 2, 4, &seen), 0);
	assert_false(seen.bad);
	assert_int_equal(seen.n, 4);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(seen.order[i], i);
	assert_true(probe->max_executing <= 2);
}

/*
 * One job: run 0's analysis finishes only once run 1 has started to execute, which happens
 * only if the next run starts while one is analysed; still one executing at a time.
 */
static void test_pool_pipeline(void **state)
{
	pool_seen_t seen = {.stop_at = POOL_RUNS};

	(void)state;
	assert_int_equal(pool_run(SCENARIO_PIPELINE, 1, 3, &seen), 0);
	assert_false(seen.bad);
	assert_int_equal(seen.n, 3);
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(seen.order[i], i);
	assert_int_equal(probe->max_executing, 1);
}

/* A stop at run 1: nothing after it is reported, whatever was under way. */
static void test_pool_stop(void **state)
{
	pool_seen_t seen = {.stop_at = 1};

	(void)state;
	assert_int_equal(pool_run(SCENARIO_STOP, 2, POOL_RUNS, &seen), 0);
	assert_false(seen.bad);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.order[0], 0);
	assert_int_equal(seen.order[1], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_points_are_smf_points),
	        cmocka_unit_test(test_draw_is_a_function_of_the_seed),
	        cmocka_unit_test(test_draw_scaled),
	        cmocka_unit_test(test_draw_shape),
	        cmocka_unit_test(test_draw_is_uniform),
	        cmocka_unit_test(test_hit_probability),
	        cmocka_unit_test(test_format_parse_round_trip),
	        cmocka_unit_test(test_parse),
	        cmocka_unit_test(test_drop),
	        cmocka_unit_test(test_fix_parse),
	        cmocka_unit_test(test_fix_env),
	        cmocka_unit_test(test_counts),
	        cmocka_unit_test(test_verdict),
	        cmocka_unit_test(test_quantile),
	        cmocka_unit_test_setup_teardown(
	                test_pool_reports_in_order, pool_setup, pool_teardown),
	        cmocka_unit_test_setup_teardown(test_pool_pipeline, pool_setup, pool_teardown),
	        cmocka_unit_test_setup_teardown(test_pool_stop, pool_setup, pool_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
