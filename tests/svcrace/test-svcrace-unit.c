/*
 * test-svcrace-unit.c: svcrace's pure parts, without a daemon: the schedules (a pure function
 * of the seed, uniform over the points as the probability bound assumes, their SMF_DELAY
 * strings), the fix variants and their switches, the verdict and the counts read from
 * svctrace check's JSON.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

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

		assert_int_equal(schedule_draw(seed, 2, &s1), 0);
		assert_int_equal(schedule_draw(seed, 2, &s2), 0);
		assert_memory_equal(&s1, &s2, sizeof(s1));
		assert_int_equal(schedule_draw(seed + 1, 2, &s3), 0);
		differ += strcmp(schedule_format(&s1, a, sizeof(a)),
		                  schedule_format(&s3, b, sizeof(b))) != 0;
	}
	/* Neighbouring seeds are independent draws, not shifted copies. */
	assert_true(differ > 100);
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

			assert_int_equal(schedule_draw(seed, depth, &s), 0);
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

		assert_int_equal(schedule_draw(seed * 7919, 2, &s), 0);
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

		assert_int_equal(schedule_draw(seed, (unsigned)(seed % 4), &s), 0);
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
	assert_int_equal(schedule_draw(3, 3, &s), 0);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_points_are_smf_points),
	        cmocka_unit_test(test_draw_is_a_function_of_the_seed),
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
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
