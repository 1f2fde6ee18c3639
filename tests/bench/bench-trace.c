/*
 * bench-trace.c: what one smf_trace() call costs, tracing off and on (goal <= 30 ns per event
 * enabled).  The enabled figure includes the first-touch page faults of a fresh file, as in a
 * real run, and is split into user and kernel CPU time, since the kernel's share (allocating
 * page cache for 40 bytes an event) varies widely from run to run on a VM.  It also times
 * what a trace point with a string costs (SMF_PROBE: the FMRI hashed and found in the thread's
 * cache), and checks that no event was dropped.  It writes into a private root under $TMPDIR
 * that it removes afterwards.
 *
 * usage: bench-trace [EVENTS]   (default 10^7)
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "test-root.h"
#include "trace.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t tv_ns(struct timeval tv)
{
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

/* What SMF_PROBE() records: the string interned on every call (a thread-cache hit). */
static double ns_per_probe(uint64_t n, const char *s)
{
	uint64_t t0 = now_ns();

	for (uint64_t i = 0; i < n; i++)
		smf_trace_str(SMF_TRACE_TEST, i, s);
	return (double)(now_ns() - t0) / (double)n;
}

/* Wall ns per event; *user and *sys (if not NULL): this thread's CPU time split per event. */
static double ns_per_event_split(uint64_t n, uint32_t str, double *user, double *sys)
{
	struct rusage r0, r1;
	uint64_t t0, t1;

	getrusage(RUSAGE_THREAD, &r0);
	t0 = now_ns();
	for (uint64_t i = 0; i < n; i++)
		smf_trace(SMF_TRACE_TEST, i, str);
	t1 = now_ns();
	getrusage(RUSAGE_THREAD, &r1);
	if (user)
		*user = (double)(tv_ns(r1.ru_utime) - tv_ns(r0.ru_utime)) / (double)n;
	if (sys)
		*sys = (double)(tv_ns(r1.ru_stime) - tv_ns(r0.ru_stime)) / (double)n;
	return (double)(t1 - t0) / (double)n;
}

static double ns_per_event(uint64_t n, uint32_t str)
{
	return ns_per_event_split(n, str, NULL, NULL);
}

struct thread_arg {
	uint64_t n;
	double ns;
};

static void *bench_thread(void *p)
{
	struct thread_arg *a = p;

	a->ns = ns_per_event(a->n, 0);
	return NULL;
}

/* The same loop in `threads` threads at once: the page claims are the only shared writes. */
static double ns_per_event_threads(uint64_t n, int threads)
{
	pthread_t th[16];
	struct thread_arg a[16];
	double worst = 0;

	for (int t = 0; t < threads; t++) {
		a[t] = (struct thread_arg){.n = n / (uint64_t)threads};
		if (pthread_create(&th[t], NULL, bench_thread, &a[t]) != 0)
			exit(1);
	}
	for (int t = 0; t < threads; t++) {
		pthread_join(th[t], NULL);
		worst = a[t].ns > worst ? a[t].ns : worst;
	}
	return worst;
}

/*
 * Room for every event of the run, so nothing is dropped (a drop is cheaper than an event and
 * would flatter the figure): the string table takes a quarter of the file.
 */
static uint64_t file_size_for(uint64_t n)
{
	uint64_t pages = n / ((64 * 1024 - 64) / 40) + 64; /* 40-byte events (format 2) */

	return (pages * 64 * 1024 + 4096) / 3 * 4 + 4 * 64 * 1024;
}

static int count_event(const struct smf_trace_record *rec, void *userdata)
{
	(void)rec;
	(*(uint64_t *)userdata)++;
	return 0;
}

/* Events lost in the file just written: must be 0 for the figure to count. */
static uint64_t lost(uint64_t n)
{
	struct smf_trace_file_info info;
	uint64_t seen = 0;

	if (smf_trace_read(smf_trace_path(), count_event, &seen, &info) < 0)
		return n;
	return info.drops + (seen < n ? n - seen : 0);
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? strtoull(argv[1], NULL, 10) : 10000000;
	char root[4096];
	double off, on, on2, probe, user, sys;
	uint64_t drops;
	uint32_t str;
	int r;

	if (n == 0 || test_root_make(root, sizeof(root), "bench-trace") < 0)
		return 1;

	off = ns_per_event(n, 0);

	r = smf_trace_open_sized(root, "bench-trace", file_size_for(n));
	if (r < 0) {
		fprintf(stderr, "bench-trace: smf_trace_open: %d\n", r);
		return 1;
	}
	str = smf_trace_intern("svc:/bench/trace:default");
	on = ns_per_event_split(n, str, &user, &sys);
	drops = lost(n);
	smf_trace_close();

	r = smf_trace_open_sized(root, "bench-trace", file_size_for(n));
	if (r < 0)
		return 1;
	probe = ns_per_probe(n, "svc:/bench/trace:default");
	smf_trace_close();

	r = smf_trace_open_sized(root, "bench-trace", file_size_for(n));
	if (r < 0)
		return 1;
	on2 = ns_per_event_threads(n, 2);
	smf_trace_close();
	(void)test_root_remove(root);

	printf("trace recorder, %llu events           ns/event  goal\n", (unsigned long long)n);
	printf("  disabled                            %8.2f\n", off);
	printf("  enabled, 1 thread                   %8.2f  <= 30 ns\n", on);
	/* The kernel's part is supplying fresh file pages (40 bytes an event), not the recorder. */
	printf("    of which user CPU                 %8.2f\n", user);
	printf("    of which kernel CPU (page faults) %8.2f\n", sys);
	printf("  enabled, 2 threads (slowest)        %8.2f  <= 30 ns\n", on2);
	printf("  enabled, with an FMRI (SMF_PROBE)   %8.2f  (string hashed, thread cache hit)\n",
	        probe);
	printf("  events lost (1 thread)              %8llu\n", (unsigned long long)drops);
	return 0;
}
