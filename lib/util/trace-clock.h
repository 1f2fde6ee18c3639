/*
 * trace-clock.h: an event's time stamp, read on the recorder's hot path.  The conversion of a
 * TSC reading is inline here, because every event pays for it; the calibration at open and a
 * thread's re-anchoring, which are rare, are trace-clock.c's, and that file says how the clock
 * is built and why its times can be trusted.  Private to the recorder.
 */
#ifndef SMF_TRACE_CLOCK_H
#define SMF_TRACE_CLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "macro.h"

#pragma GCC visibility push(hidden)

typedef struct trace_tsc {
	bool on;            /* usable on this machine (set at open) */
	uint64_t tsc0, ns0; /* the base anchor, a tight pair taken at open */
	/* The three below are relaxed atomics: any thread may update them at a re-anchor. */
	uint64_t pair_max;  /* ticks a tight pair may span (~0.5 us, or 4x the best seen) */
	uint64_t mult;      /* ns per tick, 32.32 fixed point; 0 until the base is old enough */
	uint64_t max_delta; /* ticks after which a thread re-anchors */
} trace_tsc_t;

extern trace_tsc_t trace_tsc;

/* A thread's anchor (a CLOCK_MONOTONIC time and the TSC then) and its last event's time. */
typedef struct trace_clock_thread {
	uint64_t anchor_tsc, anchor_ns, last_ns;
} trace_clock_thread_t;

extern __thread trace_clock_thread_t trace_clock_tls;

/* At open: is the TSC usable here, and the base anchor the rate will be measured against. */
void trace_clock_calibrate(void);

/* A new anchor for this thread and the time now, or clock_gettime() alone when none came. */
uint64_t trace_clock_reanchor(void);

#pragma GCC visibility pop

static inline uint64_t trace_now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t trace_read_tsc(void)
{
	return __builtin_ia32_rdtsc();
}
#else
static inline uint64_t trace_read_tsc(void)
{
	return 0;
}
#endif

/* A thread that meets a new file starts again: no anchor, no previous event. */
static inline void trace_clock_thread_reset(void)
{
	trace_clock_tls.anchor_tsc = trace_clock_tls.anchor_ns = trace_clock_tls.last_ns = 0;
}

/* CLOCK_MONOTONIC ns for an event, never before this thread's previous one. */
static inline uint64_t trace_clock_event_ns(void)
{
	uint64_t t, d, n, mult;

	if (!trace_tsc.on)
		n = trace_now_ns(CLOCK_MONOTONIC);
	else {
		t = trace_read_tsc();
		d = t - trace_clock_tls.anchor_tsc;
		mult = __atomic_load_n(&trace_tsc.mult, __ATOMIC_RELAXED);
		if (_unlikely_(mult == 0 || trace_clock_tls.anchor_tsc == 0 ||
		            d > __atomic_load_n(&trace_tsc.max_delta, __ATOMIC_RELAXED)))
			n = trace_clock_reanchor();
		else
			n = trace_clock_tls.anchor_ns + ((d * mult) >> 32);
	}
	if (_unlikely_(n < trace_clock_tls.last_ns))
		n = trace_clock_tls.last_ns;
	trace_clock_tls.last_ns = n;
	return n;
}

#endif
