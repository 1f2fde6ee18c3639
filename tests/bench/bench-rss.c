/*
 * bench-rss: configd's resident memory after a large repository is created.
 *
 * Creates NSVC services with NINST instances each (default 100 x 100 = 10,000 instances) and
 * NPG property groups on every instance (default 5), one libscf call each, then reads configd's
 * VmRSS from /proc/PID/status and prints it next to the RSS it had before, with the time the
 * creation took and the size of the database files.
 *
 * Usage: bench-rss CONFIGD_PID [NSVC [NINST [NPG]]]   (the configd at $SMF_ROOT)
 */
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "bench-common.h"
#include "macro.h"
#include "paths.h"
#include "timeutil.h"

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

int main(int argc, char **argv)
{
	pid_t pid = argc > 1 ? (pid_t)strtol(argv[1], NULL, 10) : 0;
	unsigned nsvc = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 100;
	unsigned ninst = argc > 3 ? (unsigned)strtoul(argv[3], NULL, 10) : 100;
	unsigned npg = argc > 4 ? (unsigned)strtoul(argv[4], NULL, 10) : 5;
	_cleanup_free_ char *root = NULL;
	scf_handle_t *h = NULL;
	long before, after;
	uint64_t t0, t1;

	if (pid <= 0 || vm_rss_kb(pid) < 0 || smf_root_resolve(NULL, &root) < 0) {
		fprintf(stderr,
		        "usage: bench-rss CONFIGD_PID [NSVC [NINST [NPG]]] (SMF_ROOT set)\n");
		return 2;
	}
	bench_check(NULL, scf_handle_create(NULL, &h), "connect");
	before = vm_rss_kb(pid);

	t0 = now_monotonic_usec();
	for (unsigned s = 0; s < nsvc; s++) {
		char svc[64];

		snprintf(svc, sizeof(svc), "svc:/bench/rss/s%u", s);
		bench_check(h, bench_exists_ok(scf_service_add(h, svc)), svc);
		for (unsigned i = 0; i < ninst; i++) {
			char inst[96];

			snprintf(inst, sizeof(inst), "%s:i%u", svc, i);
			bench_check(h, bench_exists_ok(scf_instance_add(h, inst)), inst);
			for (unsigned p = 0; p < npg; p++) {
				char pg[16];

				snprintf(pg, sizeof(pg), "pg%u", p);
				bench_check(h,
				        bench_exists_ok(
				                scf_pg_add(h, inst, pg, SCF_GROUP_APPLICATION, 0)),
				        pg);
			}
		}
	}
	t1 = now_monotonic_usec();
	after = vm_rss_kb(pid);
	scf_handle_destroy(h);

	printf("configd RSS, %u instances x %u pgs (%u services):\n", nsvc * ninst, npg, nsvc);
	printf("  VmRSS before: %8ld kB\n", before);
	printf("  VmRSS after:  %8ld kB   (+%ld kB, %.2f kB per instance)\n", after, after - before,
	        (double)(after - before) / (nsvc * ninst));
	printf("  created in %.1f s (%.0f creations/s); repository.db %ld kB + WAL %ld kB\n",
	        (t1 - t0) / 1e6, (double)nsvc * (1 + ninst * (1 + npg)) * 1e6 / (double)(t1 - t0),
	        file_kb(root, SMF_REL_REPOSITORY, ""), file_kb(root, SMF_REL_REPOSITORY, "-wal"));
	return 0;
}
