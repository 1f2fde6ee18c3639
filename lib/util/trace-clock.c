/*
 * trace-clock.c: the recorder's TSC clock (x86-64 only): whether the TSC may be used, the
 * base anchor taken at open, the rate measured against it, and a thread's re-anchoring.  An
 * event's time itself is read inline (trace-clock.h); why events read the TSC at all is in
 * the theory statement (trace.c).
 *
 * Two things could make its times wrong by more than a microsecond, and each has its guard:
 *   - a preemption between the clock read and the TSC read of an anchor would shift every
 *     time derived from it: an anchor is a *tight pair* (TSC read on both sides of the clock
 *     read, kept only when the two TSC reads are close; otherwise that event falls back to
 *     clock_gettime() and the next one tries again);
 *   - a rate measured over a short base is off by (pair error / base): the TSC is used only
 *     once the base anchor taken at open is TSC_BASE_NS old, and the rate is then re-measured
 *     against that base at every re-anchor.  Until then events read clock_gettime().
 */
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "macro.h"
#include "trace-clock.h"

#define TSC_BASE_NS 10000000ull   /* 10 ms: a 0.5 us pair error is then 0.005 % of rate */
#define TSC_REANCHOR_NS 100000ull /* a thread's anchor is retaken when 100 us old */
#define TSC_PAIR_TRIES 8

trace_tsc_t trace_tsc;
__thread trace_clock_thread_t trace_clock_tls;

/*
 * Constant-rate TSC that the kernel itself trusts as its clocksource.  "Constant and nonstop"
 * is CPUID's invariant TSC (leaf 0x80000007, EDX bit 8), which is where the kernel's
 * constant_tsc and nonstop_tsc flags come from; asking the CPU costs a fraction of reading
 * /proc/cpuinfo, which the kernel formats for every CPU (that read was most of what opening a
 * trace cost a short-lived command: 0.16 ms of its 0.2 ms).
 */
static bool tsc_usable(void)
{
#if defined(__x86_64__)
	_cleanup_fclose_ FILE *f = NULL;
	char buf[64] = "";
	unsigned a, b, c, d;
	const char *e = getenv("SMF_TRACE_TSC");

	if (e && streq(e, "0"))
		return false;
	f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "re");
	if (!f || !fgets(buf, sizeof(buf), f) || !strneq(buf, "tsc", 3))
		return false;
	if (!__get_cpuid(0x80000007, &a, &b, &c, &d))
		return false;
	return (d >> 8) & 1;
#else
	return false;
#endif
}

/*
 * The tightest of a few (clock, TSC) pairs, the TSC taken as the midpoint of the reads around
 * the clock read.  Returns the pair's width in ticks (UINT64_MAX if the TSC went backwards).
 */
static uint64_t tsc_pair(uint64_t *ret_ns, uint64_t *ret_tsc)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < TSC_PAIR_TRIES; i++) {
		uint64_t t1 = trace_read_tsc(), n = trace_now_ns(CLOCK_MONOTONIC),
		         t2 = trace_read_tsc();

		if (t2 >= t1 && t2 - t1 < best) {
			best = t2 - t1;
			*ret_ns = n;
			*ret_tsc = t1 + (t2 - t1) / 2;
		}
		if (best <= __atomic_load_n(&trace_tsc.pair_max, __ATOMIC_RELAXED))
			break;
	}
	return best;
}

/* The base anchor; the rate comes later, from tsc_rate(). */
void trace_clock_calibrate(void)
{
	uint64_t best = UINT64_MAX, w, n, t;

	__atomic_store_n(&trace_tsc.mult, 0, __ATOMIC_RELAXED);
	trace_tsc.on = tsc_usable();
	if (!trace_tsc.on)
		return;
	/* The width of an undisturbed pair on this machine, to judge later pairs by. */
	trace_tsc.pair_max = 0;
	for (int i = 0; i < 16; i++)
		if ((w = tsc_pair(&n, &t)) < best)
			best = w;
	trace_tsc.pair_max = best * 4;
	if (best == UINT64_MAX || tsc_pair(&trace_tsc.ns0, &trace_tsc.tsc0) > trace_tsc.pair_max)
		trace_tsc.on = false;
}

/* Sets the rate from a tight pair (n, t) once the base is old enough; false if not yet. */
static bool tsc_rate(uint64_t n, uint64_t t)
{
	uint64_t mult, dn = n - trace_tsc.ns0, dt = t - trace_tsc.tsc0;

	if (n < trace_tsc.ns0 + TSC_BASE_NS || t <= trace_tsc.tsc0)
		return false;
	if (dn >= dt)
		return false; /* slower than 1 GHz (32.32 could overflow): stay on clock_gettime() */
	mult = (uint64_t)(((unsigned __int128)dn << 32) / dt);
	__atomic_store_n(&trace_tsc.max_delta, (TSC_REANCHOR_NS << 32) / mult, __ATOMIC_RELAXED);
	__atomic_store_n(&trace_tsc.mult, mult, __ATOMIC_RELAXED);
	/* ~0.5 us of ticks, unless undisturbed pairs are wider than that here. */
	if (__atomic_load_n(&trace_tsc.pair_max, __ATOMIC_RELAXED) < (500ull << 32) / mult)
		__atomic_store_n(&trace_tsc.pair_max, (500ull << 32) / mult, __ATOMIC_RELAXED);
	return true;
}

uint64_t trace_clock_reanchor(void)
{
	uint64_t n = 0, t = 0;

	if (tsc_pair(&n, &t) > __atomic_load_n(&trace_tsc.pair_max, __ATOMIC_RELAXED) ||
	        !tsc_rate(n, t))
		return trace_now_ns(CLOCK_MONOTONIC);
	trace_clock_tls.anchor_tsc = t;
	trace_clock_tls.anchor_ns = n;
	return n;
}
