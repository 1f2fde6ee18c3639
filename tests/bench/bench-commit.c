/*
 * bench-commit: commits per second of one-property transactions.
 *
 * NCLIENTS processes, each with its own handle and its own instance (so that the figure is
 * configd's throughput, not the cost of "not latest" retries on a shared pg), wait at a common
 * start line, then each commits COMMITS transactions that set one count property: scf_tx_begin
 * (which reads the pg: one round trip), scf_tx_set, scf_tx_commit (a second round trip, and one
 * SQLite transaction in configd).  The wall time from the start line to the last child's exit
 * gives the aggregate rate.
 *
 * Usage: bench-commit NCLIENTS [COMMITS_PER_CLIENT]   (the configd at $SMF_ROOT)
 */
#include <inttypes.h>
#include <stdint.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-common.h"
#include "timeutil.h"

#define SERVICE "svc:/bench/commit"
#define PG "bench"

static void instance_fmri(char *buf, size_t n, unsigned i)
{
	snprintf(buf, n, SERVICE ":c%u", i);
}

static void setup(unsigned nclients)
{
	scf_handle_t *h = NULL;

	bench_check(NULL, scf_handle_create(NULL, &h), "connect");
	bench_check(h, bench_exists_ok(scf_service_add(h, SERVICE)), "add service");
	for (unsigned i = 0; i < nclients; i++) {
		char inst[64];

		instance_fmri(inst, sizeof(inst), i);
		bench_check(h, bench_exists_ok(scf_instance_add(h, inst)), "add instance");
		bench_check(h, bench_exists_ok(scf_pg_add(h, inst, PG, SCF_GROUP_APPLICATION, 0)),
		        "add pg");
	}
	scf_handle_destroy(h);
}

static int client(unsigned id, unsigned commits, int ready_fd, int start_fd)
{
	scf_handle_t *h = NULL;
	char inst[64], buf[32];
	const char *vals[] = {buf};

	instance_fmri(inst, sizeof(inst), id);
	bench_check(NULL, scf_handle_create(NULL, &h), "connect");
	if (write(ready_fd, "r", 1) != 1)
		return 1;
	/* The start line: the parent closes the pipe's write end when every child is connected. */
	if (read(start_fd, buf, 1) != 0)
		return 1;
	for (unsigned i = 0; i < commits; i++) {
		scf_tx_t *tx = NULL;

		snprintf(buf, sizeof(buf), "%u", i);
		bench_check(h, scf_tx_begin(h, inst, PG, &tx), "tx begin");
		bench_check(h, scf_tx_set(tx, "n", SCF_TYPE_COUNT, vals, 1), "tx set");
		/* Each client owns its pg, so "not latest" (0) would be a bug worth stopping for. */
		bench_check(h, scf_tx_commit(tx) == 1 ? 0 : -SCF_ERROR_INTERNAL, "tx commit");
		scf_tx_free(tx);
	}
	scf_handle_destroy(h);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned nclients = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1;
	unsigned commits = argc > 2 ? (unsigned)strtoul(argv[2], NULL, 10) : 2000;
	unsigned failed = 0;
	uint64_t t0, t1;
	int start[2], ready[2];
	char c;

	if (nclients == 0 || nclients > 256 || commits == 0) {
		fprintf(stderr, "usage: bench-commit NCLIENTS [COMMITS_PER_CLIENT]\n");
		return 2;
	}
	setup(nclients);
	if (pipe(start) < 0 || pipe(ready) < 0) {
		perror("pipe");
		return 1;
	}
	for (unsigned i = 0; i < nclients; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			close(start[1]);
			close(ready[0]);
			_exit(client(i, commits, ready[1], start[0]));
		}
	}
	close(start[0]);
	close(ready[1]);
	/* Connecting is not what we measure: wait until every child is connected. */
	for (unsigned i = 0; i < nclients; i++)
		if (read(ready[0], &c, 1) != 1) {
			fprintf(stderr, "a client failed to connect\n");
			return 1;
		}
	t0 = now_monotonic_usec();
	close(start[1]);
	for (unsigned i = 0; i < nclients; i++) {
		int status;

		if (wait(&status) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
			failed++;
	}
	t1 = now_monotonic_usec();
	if (failed) {
		fprintf(stderr, "%u client(s) failed\n", failed);
		return 1;
	}
	printf("commits, %u client(s) x %u one-property transactions: %8.0f commits/s "
	       "(%.1f us per transaction per client)\n",
	        nclients, commits, (double)nclients * commits * 1e6 / (double)(t1 - t0),
	        (double)(t1 - t0) / commits);
	return 0;
}
