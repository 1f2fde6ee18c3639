/*
 * trace-emit.c: the recorder's hot path: one event appended to the calling thread's page, and,
 * once that page is full, the claim of the next one.  Everything else a traced thread does
 * (open, intern a string, fork) happens elsewhere and rarely; this is what every trace point
 * pays, so it is a few stores into thread-local state, a clock read (trace-clock.h) and one
 * release store, with no lock and no syscall (trace.c: the model and its invariants).
 *
 * Invariants kept here, which a reader of a killed process's file relies on:
 *   - a page is claimed by one fetch-add on next_page and has one writer from then on;
 *   - its header's pid, tid and seq are written before its count first becomes non-zero;
 *   - the count is stored with release ordering only after the event it counts is whole.
 */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "macro.h"
#include "trace-clock.h"
#include "trace-recorder.h"
#include "trace.h"

static __thread struct {
	unsigned gen;
	uint32_t n; /* events in page; EVENTS_PER_PAGE when a new page is needed */
	uint32_t seq;
	uint32_t tid;
	bool full;
	trace_page_header_t *ph;
	trace_event_t *ev;
} tls;

void trace_emit_forget_page(void)
{
	tls.gen = 0;
}

/* Slow path: a new page for this thread; 0 or -ENOSPC (counted as a drop). */
static int trace_claim_page(void)
{
	trace_header_t *h = trace_file.hdr;
	unsigned gen = __atomic_load_n(&trace_gen, __ATOMIC_RELAXED);

	if (tls.gen != gen) {
		tls.gen = gen;
		tls.seq = 0;
		tls.full = false;
		tls.tid = (uint32_t)syscall(SYS_gettid);
		trace_clock_thread_reset();
	}
	if (!tls.full) {
		uint32_t idx = __atomic_fetch_add(&h->next_page, 1, __ATOMIC_RELAXED);

		if (idx < h->npages) {
			trace_page_header_t *ph = (void *)(trace_file.map + h->pages_offset +
			        (uint64_t)idx * TRACE_PAGE_SIZE);

			assert(h->pages_offset + ((uint64_t)idx + 1) * TRACE_PAGE_SIZE <=
			        trace_file.size);

			trace_prefault_claimed(idx, ph, tls.seq > 0);
			ph->pid = trace_file.pid;
			ph->tid = tls.tid;
			ph->seq = tls.seq++;
			ph->claim_ns = trace_now_ns(CLOCK_MONOTONIC);
			/* Each page is claimed once: no thread has counted an event in it yet. */
			assert(__atomic_load_n(&ph->count, __ATOMIC_RELAXED) == 0);
			tls.ph = ph;
			tls.ev = (trace_event_t *)(ph + 1);
			tls.n = 0;
			return 0;
		}
		tls.full = true;
	}
	tls.n = EVENTS_PER_PAGE;
	__atomic_fetch_add(&h->drops, 1, __ATOMIC_RELAXED);
	return -ENOSPC;
}

void smf_trace_emit_(uint16_t event, uint64_t flow, uint32_t str, uint64_t arg0, uint64_t arg1)
{
	trace_event_t *e;

	if (_unlikely_(tls.gen != __atomic_load_n(&trace_gen, __ATOMIC_RELAXED) ||
	            tls.n >= EVENTS_PER_PAGE))
		if (trace_claim_page() < 0)
			return;

	e = &tls.ev[tls.n];
	e->ns = trace_clock_event_ns();
	e->flow = flow;
	e->arg0 = arg0;
	e->arg1 = arg1;
	e->str = str;
	e->event = event;
	e->reserved = 0;
	/* Publishes the event: a reader never sees a count that covers a partial one. */
	__atomic_store_n(&tls.ph->count, ++tls.n, __ATOMIC_RELEASE);
}
