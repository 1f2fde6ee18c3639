/*
 * concurrency: no lost update under contention.
 *
 * NPROC client processes (default 16), each with its own handle, run NLOOPS (default 500)
 * read-increment-commit transactions through scf_tx_run() on one count property.  A commit
 * against a generation that another client moved must answer "not latest" and be retried from a
 * fresh read, so the property ends at exactly NPROC * NLOOPS; anything less is a lost update,
 * anything more a double apply.  The parent prepares the pg, waits for every child, and reads
 * the result over a fresh handle.
 *
 * Usage: concurrency [NPROC [NLOOPS]]   (talks to the configd at $SMF_ROOT)
 * Exit status: 0 when the count is exact and every child succeeded, 1 otherwise.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "libscf.h"

#define SERVICE "svc:/test/concurrency"
#define INSTANCE "svc:/test/concurrency:default"
#define PG "counter"
#define PROP "count"

/* Far above what 16 contenders need; a child that still loses this often is a failure. */
#define MAX_TRIES 100000

struct child_stats {
	unsigned long tries;
};

static int increment(scf_tx_t *tx, void *userdata)
{
	struct child_stats *st = userdata;
	const scf_property_t *p;
	uint64_t v;
	char buf[32];
	const char *vals[] = {buf};
	int r;

	st->tries++;
	p = scf_pg_property(scf_tx_pg(tx), PROP);
	if (!p)
		return -SCF_ERROR_NOT_FOUND;
	r = scf_property_get_count(p, &v);
	if (r < 0)
		return r;
	snprintf(buf, sizeof(buf), "%" PRIu64, v + 1);
	return scf_tx_replace(tx, PROP, SCF_TYPE_COUNT, vals, 1);
}

static int child(int id, unsigned loops)
{
	struct child_stats st = {0};
	scf_handle_t *h = NULL;
	int r;

	r = scf_handle_create(NULL, &h);
	if (r < 0) {
		fprintf(stderr, "child %d: connect: %s\n", id, scf_strerror(r));
		return 1;
	}
	for (unsigned i = 0; i < loops; i++) {
		r = scf_tx_run(h, INSTANCE, PG, increment, &st, MAX_TRIES);
		if (r != 1) {
			fprintf(stderr, "child %d: loop %u: scf_tx_run returned %d: %s (%s)\n", id,
			        i, r, scf_strerror(r), scf_handle_errmsg(h));
			scf_handle_destroy(h);
			return 1;
		}
	}
	scf_handle_destroy(h);
	/* Attempts beyond one per loop are the "not latest" answers that were retried. */
	printf("child %2d: %u commits, %lu attempts\n", id, loops, st.tries);
	fflush(stdout);
	return 0;
}

static int setup(void)
{
	scf_handle_t *h = NULL;
	scf_tx_t *tx = NULL;
	const char *zero[] = {"0"};
	int r;

	r = scf_handle_create(NULL, &h);
	if (r < 0)
		goto out;
	if ((r = scf_service_add(h, SERVICE)) < 0 || (r = scf_instance_add(h, INSTANCE)) < 0 ||
	        (r = scf_pg_add(h, INSTANCE, PG, SCF_GROUP_APPLICATION, 0)) < 0 ||
	        (r = scf_tx_begin(h, INSTANCE, PG, &tx)) < 0 ||
	        (r = scf_tx_new(tx, PROP, SCF_TYPE_COUNT, zero, 1)) < 0)
		goto out;
	r = scf_tx_commit(tx);
	if (r == 0)
		r = -SCF_ERROR_INTERNAL; /* nobody else writes yet */
out:
	if (r < 0)
		fprintf(stderr, "setup: %s (%s)\n", scf_strerror(r), h ? scf_handle_errmsg(h) : "");
	scf_tx_free(tx);
	scf_handle_destroy(h);
	return r < 0 ? r : 0;
}

static int read_count(uint64_t *ret)
{
	scf_handle_t *h = NULL;
	scf_property_t *p = NULL;
	int r;

	r = scf_handle_create(NULL, &h);
	if (r >= 0)
		r = scf_property_read(h, INSTANCE, PG, PROP, &p);
	if (r >= 0)
		r = scf_property_get_count(p, ret);
	if (r < 0)
		fprintf(stderr, "read: %s (%s)\n", scf_strerror(r), h ? scf_handle_errmsg(h) : "");
	scf_property_free(p);
	scf_handle_destroy(h);
	return r;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned nproc = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 16;
	unsigned loops = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 500;
	unsigned failed = 0;
	uint64_t count = 0;
	double t0;

	if (nproc == 0 || nproc > 1024 || loops == 0) {
		fprintf(stderr, "usage: concurrency [NPROC [NLOOPS]]\n");
		return 2;
	}
	if (setup() < 0)
		return 1;

	t0 = now_s();
	for (unsigned i = 0; i < nproc; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			_exit(child((int)i, loops));
	}
	for (unsigned i = 0; i < nproc; i++) {
		int status;

		if (wait(&status) < 0) {
			perror("wait");
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	}

	if (read_count(&count) < 0)
		return 1;
	printf("%u processes x %u loops in %.2f s: count = %" PRIu64 " (expected %u)\n", nproc,
	        loops, now_s() - t0, count, nproc * loops);
	if (failed)
		fprintf(stderr, "FAIL: %u child process(es) failed\n", failed);
	if (count != (uint64_t)nproc * loops)
		fprintf(stderr, "FAIL: count is %" PRIu64 ", expected %u (%s)\n", count,
		        nproc * loops,
		        count < (uint64_t)nproc * loops ? "lost updates" : "double applies");
	return failed || count != (uint64_t)nproc * loops ? 1 : 0;
}
