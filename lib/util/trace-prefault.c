/*
 * trace-prefault.c: the prefaulter, one helper thread per process, started by the first
 * thread that fills a page, which keeps the pages after next_page faulted in so that the
 * threads that claim them never wait for the kernel's page supply.  Why it exists, what it
 * may cost and what a killed process leaves because of it: the theory statement (trace.c);
 * the decision and its alternatives: docs/decisions.md.
 *
 * Its one meeting point with the threads that record is a claim (trace_prefault_claimed(), on
 * the claim path, never in an append): the claim starts it once, wakes it when it sleeps, and
 * faults its page in itself when the helper has not got there.  The helper publishes the run
 * of pages it has faulted in as one atomic word, so a claimer asks "covered?" with one load.
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "macro.h"
#include "trace-recorder.h"
#include "trace.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older glibc headers lack it */
#endif

/* A process's lead is min(the pages it used, SMF_TRACE_PREFAULT_PAGES). */
#define PREFAULT_MAX_AHEAD SMF_TRACE_PREFAULT_PAGES

enum { PF_NONE, PF_RUNNING, PF_FAILED };

/* Reset in a forked child (trace_prefault_forget()) and at close. */
static struct {
	uint32_t state;   /* PF_*; PF_NONE -> PF_RUNNING by one claimer's compare-and-swap */
	uint32_t seq;     /* futex word: bumped at every claim and at stop */
	uint32_t waiting; /* the helper is about to sleep on seq: a claimer must wake it */
	uint32_t stop;
	/* The helper's run of faulted-in pages, [from, to): from << 32 | to, one atomic word. */
	uint64_t run;
	pthread_t thread;
} pf;

static long futex(uint32_t *word, int op, uint32_t val)
{
	return syscall(SYS_futex, word, op, val, NULL, NULL, 0);
}

/* Was page idx faulted in by the prefaulter?  Then its claimer need not do it. */
static bool prefault_covers(uint32_t idx)
{
	uint64_t run = __atomic_load_n(&pf.run, __ATOMIC_ACQUIRE);

	return (uint32_t)(run >> 32) <= idx && idx < (uint32_t)run;
}

/* Faults page idx in; false when the kernel will not (before Linux 5.14, no memory, no disk). */
static bool prefault_page(uint8_t *pages, uint64_t idx)
{
	return madvise(pages + idx * TRACE_PAGE_SIZE, TRACE_PAGE_SIZE, MADV_POPULATE_WRITE) == 0 ||
	        errno == EINTR || errno == EAGAIN;
}

static void *prefault_main(void *arg)
{
	trace_header_t *h = arg; /* close() joins this thread before it unmaps the file */
	uint8_t *pages = (uint8_t *)h + h->pages_offset;
	struct sched_param idle = {.sched_priority = 0};

	/* Only idle CPU time: the helper never takes the CPU from the threads it serves. */
	(void)pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle);
	while (!__atomic_load_n(&pf.stop, __ATOMIC_ACQUIRE)) {
		uint32_t seq = __atomic_load_n(&pf.seq, __ATOMIC_SEQ_CST);
		uint64_t next = __atomic_load_n(&h->next_page, __ATOMIC_RELAXED);
		uint64_t run = __atomic_load_n(&pf.run, __ATOMIC_RELAXED);
		uint64_t from = run >> 32, to = (uint32_t)run;
		uint64_t target = next + (next < PREFAULT_MAX_AHEAD ? next : PREFAULT_MAX_AHEAD);

		if (target > h->npages)
			target = h->npages;
		/*
		 * Pages claimed before the helper came are their claimers'.  Caught up (no lead
		 * left, and not at its start), it leaves the next page to its claimer too, which
		 * faults it in at once, and works on the one after: two CPUs supplying pages, not
		 * both on one.  Once ahead again it fills that page in, backwards.
		 */
		if (to <= next && run != 0)
			from = to = next + 1;
		else if (to < next)
			from = to = next;
		if (to < target) {
			if (!prefault_page(pages, to))
				break;
			__atomic_store_n(&pf.run, from << 32 | (to + 1), __ATOMIC_RELEASE);
			continue;
		}
		if (from > next && from <= target) {
			if (!prefault_page(pages, from - 1))
				break;
			__atomic_store_n(&pf.run, (from - 1) << 32 | to, __ATOMIC_RELEASE);
			continue;
		}
		/* Ahead: sleep until a claim moves next_page (Dekker with prefault_kick()). */
		__atomic_store_n(&pf.waiting, 1, __ATOMIC_SEQ_CST);
		if (__atomic_load_n(&pf.seq, __ATOMIC_SEQ_CST) == seq)
			(void)futex(&pf.seq, FUTEX_WAIT_PRIVATE, seq);
		__atomic_store_n(&pf.waiting, 0, __ATOMIC_RELAXED);
	}
	__atomic_store_n(&pf.state, PF_FAILED, __ATOMIC_RELEASE); /* not restarted in this file */
	return NULL;
}

/* Starts the helper (signals blocked: they are the other threads' business). */
static void prefault_start(void)
{
	uint32_t none = PF_NONE;
	pthread_attr_t attr;
	sigset_t all, old;
	int r;

	if (!__atomic_compare_exchange_n(
	            &pf.state, &none, PF_RUNNING, false, __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
		return;
	sigfillset(&all);
	if (pthread_attr_init(&attr) != 0) {
		__atomic_store_n(&pf.state, PF_FAILED, __ATOMIC_RELEASE);
		return;
	}
	(void)pthread_attr_setstacksize(&attr, 64 * 1024);
	(void)pthread_sigmask(SIG_SETMASK, &all, &old);
	r = pthread_create(&pf.thread, &attr, prefault_main, trace_file.hdr);
	(void)pthread_sigmask(SIG_SETMASK, &old, NULL);
	(void)pthread_attr_destroy(&attr);
	if (r != 0)
		__atomic_store_n(&pf.state, PF_FAILED, __ATOMIC_RELEASE);
	else
		(void)pthread_setname_np(pf.thread, "smf-trace-pf");
}

/* A claim moved next_page: the helper has work again (a syscall only if it sleeps). */
static void prefault_kick(void)
{
	__atomic_fetch_add(&pf.seq, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&pf.waiting, __ATOMIC_SEQ_CST))
		(void)futex(&pf.seq, FUTEX_WAKE_PRIVATE, 1);
}

void trace_prefault_claimed(uint32_t idx, trace_page_header_t *ph, bool filled_before)
{
	/*
	 * A thread that filled a page will likely fill this one and more: the prefaulter takes
	 * over from here (started once per process).  If it has not reached this page, fault it
	 * in with one syscall here, on the slow path, rather than 16 faults inside events on the
	 * hot path (a fresh page of a sparse file costs the kernel microseconds each).  Not a
	 * thread's first page: a short-lived svcadm would then allocate 64 KiB of disk for a few
	 * events.  Best effort: before Linux 5.14 it fails and events fault the page in as
	 * before.
	 */
	if (filled_before && _unlikely_(__atomic_load_n(&pf.state, __ATOMIC_RELAXED) == PF_NONE))
		prefault_start();
	if (__atomic_load_n(&pf.state, __ATOMIC_RELAXED) == PF_RUNNING)
		prefault_kick();
	if (filled_before && !prefault_covers(idx))
		(void)madvise(ph, TRACE_PAGE_SIZE, MADV_POPULATE_WRITE);
}

void trace_prefault_stop(void)
{
	if (__atomic_load_n(&pf.state, __ATOMIC_ACQUIRE) == PF_NONE)
		return;
	if (pf.thread) {
		__atomic_store_n(&pf.stop, 1, __ATOMIC_RELEASE);
		prefault_kick();
		(void)pthread_join(pf.thread, NULL);
	}
	memset(&pf, 0, sizeof(pf));
}

void trace_prefault_forget(void)
{
	memset(&pf, 0, sizeof(pf));
}

uint32_t smf_trace_pages_ready(void)
{
	uint64_t run = __atomic_load_n(&pf.run, __ATOMIC_ACQUIRE), next;

	if (!trace_file.hdr)
		return 0;
	next = __atomic_load_n(&trace_file.hdr->next_page, __ATOMIC_RELAXED);
	return (uint32_t)(run >> 32) <= next && next < (uint32_t)run ? (uint32_t)run - next : 0;
}
