/*
 * bench-rss: configd's resident memory with a large repository, and `svcs -a` over it.
 *
 * Creates NSVC services with NINST instances each (default 1,000 x 100 = 100,000 instances)
 * and NPG property groups on every instance (default 5): general (enabled=false), a
 * non-persistent restarter pg as svc.startd writes it (state disabled, next_state none,
 * auxiliary_state none, state_timestamp), and application pgs pg0, pg1... of one property
 * each, so that svcs has real states to show.  One batch per service (one SQLite transaction
 * for its instances).  It then reads configd's VmRSS from /proc/PID/status, and with
 * $BENCH_SVCS (the svcs binary) times `svcs -a` (best and median of 5, output to /dev/null)
 * and reads VmRSS again, after configd has served those reads (its pg cache filled).  Goals
 * (issue 14): VmRSS <= 64 MiB, svcs -a <= 1 s.  Never fails on speed.
 *
 * Usage: [BENCH_SVCS=path] bench-rss CONFIGD_PID [NSVC [NINST [NPG]]]   (configd at $SMF_ROOT)
 */
#include <fcntl.h>
#include <inttypes.h>
#include <spawn.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-common.h"
#include "macro.h"
#include "paths.h"
#include "timeutil.h"

#define RSS_GOAL_KB (64 * 1024)
#define SVCS_GOAL_MS 1000.0

extern char **environ;

static long vm_rss_kb(pid_t pid)
{
	char path[64], line[256];
	_cleanup_fclose_ FILE *f = NULL;
	long kb = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	return kb;
}

static long file_kb(const char *root, const char *rel, const char *suffix)
{
	_cleanup_free_ char *path = NULL, *full = NULL;
	struct stat st;

	if (smf_path(root, rel, &path) < 0 || asprintf(&full, "%s%s", path, suffix) < 0)
		return -1;
	return stat(full, &st) < 0 ? 0 : (long)(st.st_size / 1024);
}

static void set1(scf_batch_t *b, const char *ent, const char *pg, const char *prop, scf_type_t t,
        const char *v)
{
	bench_check(NULL, scf_batch_prop_set(b, ent, pg, prop, t, &v, 1), prop);
}

/* One service and its instances, in one batch. */
static void create_service(scf_handle_t *h, unsigned s, unsigned ninst, unsigned npg)
{
	_cleanup_(scf_batch_freep) scf_batch_t *b = NULL;
	char svc[64], inst[96], pg[16], now[32];

	snprintf(svc, sizeof(svc), "svc:/bench/rss/s%u", s);
	snprintf(now, sizeof(now), "%" PRIu64 ".%06u", now_realtime_usec() / USEC_PER_SEC, s);
	bench_check(h, scf_batch_new(h, &b), "batch");
	bench_check(h, scf_batch_service_ensure(b, svc), svc);
	for (unsigned i = 0; i < ninst; i++) {
		snprintf(inst, sizeof(inst), "%s:i%u", svc, i);
		bench_check(h, scf_batch_instance_ensure(b, inst), inst);
		for (unsigned p = 0; p < npg; p++) {
			if (p == 0) {
				bench_check(h,
				        scf_batch_pg_ensure(
				                b, inst, SCF_PG_GENERAL, SCF_GROUP_FRAMEWORK, 0),
				        inst);
				set1(b, inst, SCF_PG_GENERAL, SCF_PROPERTY_ENABLED, SCF_TYPE_BOOLEAN,
				        "false");
			} else if (p == 1) {
				bench_check(h,
				        scf_batch_pg_ensure(b, inst, SCF_PG_RESTARTER,
				                SCF_GROUP_FRAMEWORK, SCF_PG_FLAG_NONPERSISTENT),
				        inst);
				set1(b, inst, SCF_PG_RESTARTER, SCF_PROPERTY_STATE, SCF_TYPE_ASTRING,
				        "disabled");
				set1(b, inst, SCF_PG_RESTARTER, SCF_PROPERTY_NEXT_STATE,
				        SCF_TYPE_ASTRING, "none");
				set1(b, inst, SCF_PG_RESTARTER, SCF_PROPERTY_AUX_STATE,
				        SCF_TYPE_ASTRING, "none");
				set1(b, inst, SCF_PG_RESTARTER, SCF_PROPERTY_STATE_TIMESTAMP,
				        SCF_TYPE_TIME, now);
			} else {
				snprintf(pg, sizeof(pg), "pg%u", p - 2);
				bench_check(h,
				        scf_batch_pg_ensure(b, inst, pg, SCF_GROUP_APPLICATION, 0),
				        pg);
				set1(b, inst, pg, "value", SCF_TYPE_COUNT, "1");
			}
		}
	}
	bench_check(h, scf_batch_commit(b), svc);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* svcs -a, 5 times: *best and *median in ms; false when it could not run. */
static bool time_svcs(const char *svcs, double *best, double *median)
{
	char *const argv[] = {(char *)svcs, (char *)"-a", NULL};
	posix_spawn_file_actions_t fa;
	double t[5];

	if (posix_spawn_file_actions_init(&fa) != 0 ||
	        posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0) != 0)
		return false;
	for (int k = 0; k < 5; k++) {
		uint64_t t0 = now_monotonic_usec();
		pid_t pid;
		int status;

		if (posix_spawn(&pid, svcs, &fa, NULL, argv, environ) != 0 ||
		        waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
		        WEXITSTATUS(status) != 0)
			return false;
		t[k] = (double)(now_monotonic_usec() - t0) / 1000.0;
	}
	posix_spawn_file_actions_destroy(&fa);
	qsort(t, 5, sizeof(double), cmp_double);
	*best = t[0];
	*median = t[2];
	return true;
}

static const char *verdict(bool met)
{
	return met ? "met" : "NOT met";
}

int main(int argc, char **argv)
{
	pid_t pid = argc > 1 ? (pid_t)strtol(argv[1], NULL, 10) : 0;
	unsigned nsvc = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 1000;
	unsigned ninst = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 100;
	unsigned npg = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 5;
	const char *svcs = getenv("BENCH_SVCS");
	_cleanup_free_ char *root = NULL;
	scf_handle_t *h = NULL;
	long before, after, served;
	double best, median;
	uint64_t t0, t1;

	if (pid <= 0 || vm_rss_kb(pid) < 0 || smf_root_resolve(NULL, &root) < 0) {
		fprintf(stderr,
		        "usage: bench-rss CONFIGD_PID [NSVC [NINST [NPG]]] (SMF_ROOT set)\n");
		return 2;
	}
	bench_check(NULL, scf_handle_create(NULL, &h), "connect");
	before = vm_rss_kb(pid);
	t0 = now_monotonic_usec();
	for (unsigned s = 0; s < nsvc; s++)
		create_service(h, s, ninst, npg);
	t1 = now_monotonic_usec();
	after = vm_rss_kb(pid);
	scf_handle_destroy(h);

	printf("configd RSS, %u instances x %u pgs (%u services, one batch each):\n", nsvc * ninst,
	        npg, nsvc);
	printf("  VmRSS before: %8ld kB\n", before);
	printf("  VmRSS after:  %8ld kB   (+%ld kB, %.2f kB per instance; goal <= %d kB: %s)\n",
	        after, after - before, (double)(after - before) / (nsvc * ninst), RSS_GOAL_KB,
	        verdict(after <= RSS_GOAL_KB));
	printf("  created in %.1f s; repository.db %ld kB + WAL %ld kB, non-persistent %ld kB + "
	       "WAL %ld kB\n",
	        (t1 - t0) / 1e6, file_kb(root, SMF_REL_REPOSITORY, ""),
	        file_kb(root, SMF_REL_REPOSITORY, "-wal"), file_kb(root, SMF_REL_NONPERSIST_DB, ""),
	        file_kb(root, SMF_REL_NONPERSIST_DB, "-wal"));
	if (!svcs)
		return 0;
	if (!time_svcs(svcs, &best, &median)) {
		fprintf(stderr, "bench-rss: %s -a failed\n", svcs);
		return 1;
	}
	served = vm_rss_kb(pid);
	printf("  svcs -a over them: best %.0f ms, median %.0f ms (goal <= %.0f ms: %s)\n", best,
	        median, SVCS_GOAL_MS, verdict(median <= SVCS_GOAL_MS));
	printf("  VmRSS after serving those reads: %ld kB (goal <= %d kB: %s)\n", served,
	        RSS_GOAL_KB, verdict(served <= RSS_GOAL_KB));
	return 0;
}
