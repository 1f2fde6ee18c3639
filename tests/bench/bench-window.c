/*
 * bench-window: the race window, seen from a client.
 *
 * Usage: bench-window [N]   (against $SMF_ROOT, with svc.startd attached; default N = 1000)
 *
 * N times, one at a time (unloaded): commit a new instance in one batch, as svccfg import does
 * without its wait, note when the commit returns, and wait for the PgChanged of that instance's
 * restarter pg, i.e. startd's first write (state uninitialized).  The time between the two is
 * how long "import returned, svcadm would find the instance misconfigured" lasts.  A separate
 * connection listens, registered before the first commit, so no notification is missed.
 * Prints p50, p99 and max against the goals (p50 <= 2 ms, p99 <= 20 ms); never fails on speed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench-common.h"
#include "timeutil.h"

#define WAIT_USEC (30 * USEC_PER_SEC)

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static void commit_instance(scf_handle_t *h, const char *svc, const char *inst)
{
	const char *f[] = {"false"};
	scf_batch_t *b = NULL;

	bench_check(h, scf_batch_new(h, &b), "batch");
	bench_check(h, scf_batch_service_ensure(b, svc), svc);
	bench_check(h, scf_batch_instance_ensure(b, inst), inst);
	bench_check(h, scf_batch_pg_ensure(b, inst, SCF_PG_GENERAL, SCF_GROUP_FRAMEWORK, 0), inst);
	bench_check(h,
	        scf_batch_prop_set(b, inst, SCF_PG_GENERAL, "enabled", SCF_TYPE_BOOLEAN, f, 1),
	        inst);
	bench_check(h, scf_batch_refresh(b, inst), inst);
	bench_check(h, scf_batch_commit(b), inst);
	scf_batch_free(b);
}

/* Blocks until the restarter pg of inst is written; returns when it was received. */
static uint64_t wait_restarter_pg(scf_handle_t *hn, const char *inst)
{
	uint64_t deadline = deadline_after_usec(WAIT_USEC);

	for (;;) {
		scf_notification_t n;
		int r = scf_notify_wait(hn, deadline_left_usec(deadline), &n);
		bool hit;

		bench_check(hn, r, "notify_wait");
		if (r == 0) {
			fprintf(stderr,
			        "bench-window: no restarter pg for %s within 30 s "
			        "(is svc.startd attached?)\n",
			        inst);
			exit(1);
		}
		hit = n.kind == SCF_NOTIFY_PG_UPDATED && strcmp(n.entity, inst) == 0;
		scf_notification_clear(&n);
		if (hit)
			return now_monotonic_usec();
	}
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? strtoul(argv[1], NULL, 10) : 1000;
	scf_handle_t *h = NULL, *hn = NULL;
	uint64_t *w;

	if (n == 0 || !(w = calloc(n, sizeof(*w))))
		return 2;
	bench_check(NULL, scf_handle_create(NULL, &h), "connect");
	bench_check(NULL, scf_handle_create(NULL, &hn), "connect");
	bench_check(hn, scf_notify_add_pgname(hn, SCF_PG_RESTARTER), "notify");
	for (size_t i = 0; i < n; i++) {
		char svc[128], inst[160];
		uint64_t t0;

		snprintf(svc, sizeof(svc), "svc:/bench/window/p%d-%zu", (int)getpid(), i);
		snprintf(inst, sizeof(inst), "%s:default", svc);
		commit_instance(h, svc, inst);
		t0 = now_monotonic_usec();
		w[i] = wait_restarter_pg(hn, inst) - t0;
	}
	qsort(w, n, sizeof(*w), cmp_u64);
	printf("race window, commit return -> restarter pg (%zu new instances, one at a time):\n",
	        n);
	printf("  p50 %.3f ms (goal <= 2 ms)\n", (double)w[n / 2] / 1000.0);
	printf("  p99 %.3f ms (goal <= 20 ms)\n", (double)w[(n * 99) / 100 - (n >= 100)] / 1000.0);
	printf("  max %.3f ms\n", (double)w[n - 1] / 1000.0);
	scf_handle_destroy(h);
	scf_handle_destroy(hn);
	free(w);
	return 0;
}
