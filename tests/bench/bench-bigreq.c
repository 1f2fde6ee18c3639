/*
 * bench-bigreq: what a Commit too big to accept costs before configd refuses it (issue 18),
 * beside its peer, the biggest Commit configd accepts (one property of 4,096 values).
 *
 * Raw sd-bus, since libscf refuses such a list itself.  Each request is built, then timed from
 * the call to the answer (wall time, and configd's CPU time from /proc when BENCH_CONFIGD_PID is
 * set).  Before issue 18 a refusal cost O(n^2): 100,000 values 1.5 s, 2 million about ten
 * minutes; now it costs what receiving the bytes costs.
 *
 * Usage: bench-bigreq [N...]   (the configd at $SMF_ROOT; default N: 100000 2000000)
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "libscf.h"
#include "macro.h"
#include "paths.h"
#include "protocol.h"
#include "timeutil.h"
#include "unixsock.h"

static void die(const char *what, int r)
{
	fprintf(stderr, "bench-bigreq: %s: %s\n", what, strerror(-r));
	exit(1);
}

/* configd's CPU time so far in ns (schedstat), 0 when unknown. */
static uint64_t configd_cpu_ns(void)
{
	const char *pid = getenv("BENCH_CONFIGD_PID");
	char path[64];
	unsigned long long ns = 0;
	FILE *f;

	if (!pid)
		return 0;
	snprintf(path, sizeof(path), "/proc/%s/schedstat", pid);
	f = fopen(path, "re");
	if (f && fscanf(f, "%llu", &ns) != 1)
		ns = 0;
	if (f)
		fclose(f);
	return ns;
}

static sd_bus *connect_configd(void)
{
	_cleanup_free_ char *door = NULL;
	sd_bus *bus = NULL;
	int fd, r;

	r = smf_path(getenv("SMF_ROOT"), SMF_REL_DOOR, &door);
	if (r < 0)
		die("root", r);
	fd = smf_unix_connect(door);
	if (fd < 0)
		die(door, fd);
	if ((r = sd_bus_new(&bus)) < 0 || (r = sd_bus_set_fd(bus, fd, fd)) < 0 ||
	        (r = sd_bus_start(bus)) < 0)
		die("sd-bus", r);
	return bus;
}

/* One Commit of NEW p (n values "v") to svc:/bench/bigreq pg big at generation gen. */
static void commit(sd_bus *bus, size_t n, uint64_t gen, const char *label)
{
	_cleanup_(sd_bus_message_unrefp) sd_bus_message *m = NULL, *reply = NULL;
	sd_bus_error error = SD_BUS_ERROR_NULL;
	uint64_t t0, cpu0;
	int r;

	if ((r = sd_bus_message_new_method_call(
	             bus, &m, NULL, SMF_BUS_PATH, SMF_BUS_INTERFACE, smf_method_commit.name)) < 0 ||
	        (r = sd_bus_message_append(m, "sst", "svc:/bench/bigreq", "big", gen)) < 0 ||
	        (r = sd_bus_message_open_container(m, 'a', "(" SMF_BUS_COMMAND ")")) < 0 ||
	        (r = sd_bus_message_open_container(m, 'r', SMF_BUS_COMMAND)) < 0 ||
	        (r = sd_bus_message_append(m, "uss", 0, "p", "astring")) < 0 ||
	        (r = sd_bus_message_open_container(m, 'a', "s")) < 0)
		die("building the request", r);
	for (size_t i = 0; i < n; i++)
		if ((r = sd_bus_message_append_basic(m, 's', "v")) < 0)
			die("building the request", r);
	for (int k = 0; k < 3; k++)
		if ((r = sd_bus_message_close_container(m)) < 0)
			die("building the request", r);
	cpu0 = configd_cpu_ns();
	t0 = now_monotonic_usec();
	r = sd_bus_call(bus, m, 3600ull * USEC_PER_SEC, &error, &reply);
	printf("%-34s %9zu values: %8.3f s", label, n,
	        (double)(now_monotonic_usec() - t0) / USEC_PER_SEC);
	if (cpu0)
		printf(" (configd CPU %.3f s)", (double)(configd_cpu_ns() - cpu0) / 1e9);
	printf("  %s\n", r >= 0 ? "committed" : strna(error.name));
	sd_bus_error_free(&error);
}

int main(int argc, char **argv)
{
	_cleanup_(sd_bus_flush_close_unrefp) sd_bus *bus = connect_configd();
	scf_handle_t *h = NULL;
	scf_pg_t *pg = NULL;
	uint64_t gen;
	int r;

	if (scf_handle_create(NULL, &h) < 0)
		die("connect", -EIO);
	r = scf_service_add(h, "svc:/bench/bigreq");
	if (r < 0 && r != -SCF_ERROR_EXISTS)
		die("setup", -EIO);
	/* A fresh pg without p, whatever a run before left (its generation goes on above). */
	(void)scf_pg_delete(h, "svc:/bench/bigreq", "big");
	if (scf_pg_add(h, "svc:/bench/bigreq", "big", SCF_GROUP_APPLICATION, 0) < 0 ||
	        scf_pg_get(h, "svc:/bench/bigreq", "big", NULL, 0, &pg) < 0)
		die("setup", -EIO);
	gen = pg->generation;
	scf_pg_free(pg);
	scf_handle_destroy(h);
	/* The peer: the biggest list configd accepts, read, checked and stored. */
	commit(bus, SCF_LIMIT_MAX_VALUES, gen, "Commit accepted (the limit)");
	if (argc > 1)
		for (int i = 1; i < argc; i++)
			commit(bus, strtoul(argv[i], NULL, 10), gen + 1,
			        "Commit refused (over the limit)");
	else {
		commit(bus, 100000, gen + 1, "Commit refused (over the limit)");
		commit(bus, 2000000, gen + 1, "Commit refused (over the limit)");
	}
	return 0;
}
