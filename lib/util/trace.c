/*
 * trace.c: the trace recorder.
 *
 * Big theory statement.
 *
 * The race harness must see, across configd, startd, svccfg and svcadm, in which order things
 * happened, down to microseconds, without changing that order by looking.  So each process
 * records fixed-size binary events into one file of its own, $ROOT/var/svc/trace/
 * <prog>.<pid>.trace, mapped MAP_SHARED, and svctrace merges the files later by their
 * CLOCK_MONOTONIC time stamps.  Nothing is formatted, locked or written with a syscall while
 * recording; the kernel writes the pages back whenever it likes, and still does after a crash
 * or SIGKILL, because the data lives in the page cache, not in the process.
 *
 * The file (docs/trace-format.md, format 2) is a header page, a string table, and N event pages
 * of 64 KiB, preallocated sparse with ftruncate() (256 MiB by default: blocks are only used by
 * pages that are touched).  An event is 40 bytes: time, flow, two 64-bit arguments (a commit
 * id, a cause, a generation: what the race oracle links events by), string id, event id; its
 * pid and tid are its page's, since a page has one writer.  The header also records the
 * creator's parent, session and process group, and smf_trace_open_command() a command's line
 * and, from an on_exit() handler, its exit status: how the oracle tells a script's commands and
 * a reader that failed.  Three atomic counters in the header, each on its own cache line, are the only
 * shared writable state:
 *
 *   next_page   a thread claims a whole event page with one fetch-add; after that the page is
 *               its own and it appends without any synchronisation with other threads;
 *   str_cursor  interned strings are claimed the same way in the string table (a lock
 *               keeps the process's string-to-id map, a hashmap_t; each thread caches its
 *               hits, so a trace point with a string takes the lock only the first time);
 *   drops       events lost because every page was taken (str_drops beside it: strings
 *               refused by a full table).
 *
 * Invariants a reader relies on, which is what makes a killed process readable:
 *   - a page's header fields (pid, tid, per-thread page sequence) are written before its event
 *     count first becomes non-zero;
 *   - the event count of a page is stored with release ordering only after the event it counts
 *     is complete, so the first `count` events of a page are always whole, whatever instant the
 *     writer died at; a reader loads it with acquire ordering;
 *   - a string entry's length word gets its "committed" bit (release) after its bytes;
 *   - the header's version word is stored last at open (release), so a half-created file is
 *     not a trace.
 * A thread's pages are claimed in increasing order, so walking pages by index yields each
 * thread's events in its own order.
 *
 * Thread-local state (current page, its fill, the thread id) makes the hot path a few stores
 * and a clock read.  clock_gettime() alone costs ~25 ns in a KVM guest, so where the TSC is
 * the kernel's clocksource and runs at a constant rate (x86-64, constant_tsc and nonstop_tsc),
 * events read the TSC and convert it with a per-thread anchor (a CLOCK_MONOTONIC reading and
 * the TSC at that instant, retaken once the anchor is 100 us old) and a rate measured against
 * a base anchor taken at open, used only once that base is 10 ms old (events read
 * clock_gettime() until then; see "The TSC clock" below for why).  Times stay CLOCK_MONOTONIC
 * ns in the file (the format does not know), within well under a microsecond of
 * clock_gettime(), and never go backwards within a thread.  SMF_TRACE_TSC=0 forces
 * clock_gettime().  A generation number bumped at every open lets a
 * thread notice that the file it was writing to was closed and reopened.  After fork(), the
 * child's only thread drops its page (the parent may still be filling it) and claims new pages
 * in the same file, marked with its own pid.
 *
 * The recorder's real cost is the kernel's: a fresh page of the file for every 4 KiB the
 * events add, zeroed and mapped, microseconds each, ten times more where the VM's host has taken
 * back the free memory it is cut from (docs/performance.md).  So a helper thread per process,
 * the *prefaulter*, keeps the pages after next_page faulted in (MADV_POPULATE_WRITE, into this
 * process's page table): as many as the process has claimed, at most SMF_TRACE_PREFAULT_PAGES
 * (4 MiB).  A thread that claims one finds it mapped and writable and does not enter the
 * kernel.  The first thread that fills a page starts it (a short-lived command that uses one
 * page never has one); it runs at SCHED_IDLE, on idle CPU time only, so it never takes the CPU
 * from the threads it serves or from anyone (on a busy machine a claimer faults its page in
 * itself, with one madvise(), as before); it has every signal blocked; it sleeps on a futex
 * once ahead and a claim wakes it (a syscall then, on the claim path, never in an append); close
 * joins it; a forked child does not inherit it and starts its own.  What it faults in ahead is
 * zeros past next_page, which a reader never walks: a killed process leaves every event it
 * recorded, as before, and at most 4 MiB of zeros more in the file.
 *
 * When tracing is off, smf_trace() (inline, trace.h) is a relaxed load of one global and a
 * branch predicted not taken.  Opening and closing are not thread safe against concurrent
 * emitters: open at start, close at exit.
 */
#include <assert.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "hashmap.h"
#include "macro.h"
#include "paths.h"
#include "trace-format.h"
#include "trace.h"

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older glibc headers lack it */
#endif

#define TRACE_DEFAULT_SIZE (256ull * 1024 * 1024)
#define TRACE_MIN_STRINGS (64u * 1024u)

/* Written by open/close only (see above); emitters read map and gen with relaxed loads. */
static struct {
	uint8_t *map;
	uint64_t size;
	trace_header_t *hdr;
	char *path;
	uint32_t pid;
	pthread_mutex_t intern_lock;
	hashmap_t *strings; /* string -> its id in the file (as a pointer), under intern_lock */
} g = {.intern_lock = PTHREAD_MUTEX_INITIALIZER};

int smf_trace_enabled_;
static unsigned trace_gen;

/* The prefaulter's state ("The prefaulter" below); reset in a forked child. */
/* A process's lead is min(the pages it used, SMF_TRACE_PREFAULT_PAGES). */
#define PREFAULT_MAX_AHEAD SMF_TRACE_PREFAULT_PAGES

enum { PF_NONE, PF_RUNNING, PF_FAILED };

static struct {
	uint32_t state;   /* PF_*; PF_NONE -> PF_RUNNING by one claimer's compare-and-swap */
	uint32_t seq;     /* futex word: bumped at every claim and at stop */
	uint32_t waiting; /* the helper is about to sleep on seq: a claimer must wake it */
	uint32_t stop;
	/* The helper's run of faulted-in pages, [from, to): from << 32 | to, one atomic word. */
	uint64_t run;
	pthread_t thread;
} pf;

/*
 * The TSC clock (x86-64 only); see the theory statement.  Two things could make its times
 * wrong by more than a microsecond, and each has its guard:
 *   - a preemption between the clock read and the TSC read of an anchor would shift every
 *     time derived from it: an anchor is a *tight pair* (TSC read on both sides of the clock
 *     read, kept only when the two TSC reads are close; otherwise that event falls back to
 *     clock_gettime() and the next one tries again);
 *   - a rate measured over a short base is off by (pair error / base): the TSC is used only
 *     once the base anchor taken at open is TSC_BASE_NS old, and the rate is then re-measured
 *     against that base at every re-anchor.  Until then events read clock_gettime().
 */
#define TSC_BASE_NS 10000000ull   /* 10 ms: a 0.5 us pair error is then 0.005 % of rate */
#define TSC_REANCHOR_NS 100000ull /* a thread's anchor is retaken when 100 us old */
#define TSC_PAIR_TRIES 8

static struct {
	bool on;            /* usable on this machine (set at open) */
	uint64_t tsc0, ns0; /* the base anchor, a tight pair taken at open */
	/* The three below are relaxed atomics: any thread may update them at a re-anchor. */
	uint64_t pair_max;  /* ticks a tight pair may span (~0.5 us, or 4x the best seen) */
	uint64_t mult;      /* ns per tick, 32.32 fixed point; 0 until the base is old enough */
	uint64_t max_delta; /* ticks after which a thread re-anchors */
} tsc;

static __thread struct {
	unsigned gen;
	uint64_t anchor_tsc, anchor_ns, last_ns;
	uint32_t n; /* events in page; EVENTS_PER_PAGE when a new page is needed */
	uint32_t seq;
	uint32_t tid;
	bool full;
	trace_page_header_t *ph;
	trace_event_t *ev;
} tls;

static uint64_t now_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t read_tsc(void)
{
	return __builtin_ia32_rdtsc();
}
#else
static inline uint64_t read_tsc(void)
{
	return 0;
}
#endif

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
		uint64_t t1 = read_tsc(), n = now_ns(CLOCK_MONOTONIC), t2 = read_tsc();

		if (t2 >= t1 && t2 - t1 < best) {
			best = t2 - t1;
			*ret_ns = n;
			*ret_tsc = t1 + (t2 - t1) / 2;
		}
		if (best <= __atomic_load_n(&tsc.pair_max, __ATOMIC_RELAXED))
			break;
	}
	return best;
}

/* The base anchor; the rate comes later, from tsc_rate(). */
static void tsc_calibrate(void)
{
	uint64_t best = UINT64_MAX, w, n, t;

	__atomic_store_n(&tsc.mult, 0, __ATOMIC_RELAXED);
	tsc.on = tsc_usable();
	if (!tsc.on)
		return;
	/* The width of an undisturbed pair on this machine, to judge later pairs by. */
	tsc.pair_max = 0;
	for (int i = 0; i < 16; i++)
		if ((w = tsc_pair(&n, &t)) < best)
			best = w;
	tsc.pair_max = best * 4;
	if (best == UINT64_MAX || tsc_pair(&tsc.ns0, &tsc.tsc0) > tsc.pair_max)
		tsc.on = false;
}

/* Sets the rate from a tight pair (n, t) once the base is old enough; false if not yet. */
static bool tsc_rate(uint64_t n, uint64_t t)
{
	uint64_t mult, dn = n - tsc.ns0, dt = t - tsc.tsc0;

	if (n < tsc.ns0 + TSC_BASE_NS || t <= tsc.tsc0)
		return false;
	if (dn >= dt)
		return false; /* slower than 1 GHz (32.32 could overflow): stay on clock_gettime() */
	mult = (uint64_t)(((unsigned __int128)dn << 32) / dt);
	__atomic_store_n(&tsc.max_delta, (TSC_REANCHOR_NS << 32) / mult, __ATOMIC_RELAXED);
	__atomic_store_n(&tsc.mult, mult, __ATOMIC_RELAXED);
	/* ~0.5 us of ticks, unless undisturbed pairs are wider than that here. */
	if (__atomic_load_n(&tsc.pair_max, __ATOMIC_RELAXED) < (500ull << 32) / mult)
		__atomic_store_n(&tsc.pair_max, (500ull << 32) / mult, __ATOMIC_RELAXED);
	return true;
}

/* A new anchor for this thread, or clock_gettime() alone when no tight pair came. */
static uint64_t tsc_reanchor(void)
{
	uint64_t n = 0, t = 0;

	if (tsc_pair(&n, &t) > __atomic_load_n(&tsc.pair_max, __ATOMIC_RELAXED) || !tsc_rate(n, t))
		return now_ns(CLOCK_MONOTONIC);
	tls.anchor_tsc = t;
	tls.anchor_ns = n;
	return n;
}

/* CLOCK_MONOTONIC ns for an event, never before this thread's previous one. */
static inline uint64_t event_ns(void)
{
	uint64_t t, d, n, mult;

	if (!tsc.on)
		n = now_ns(CLOCK_MONOTONIC);
	else {
		t = read_tsc();
		d = t - tls.anchor_tsc;
		mult = __atomic_load_n(&tsc.mult, __ATOMIC_RELAXED);
		if (_unlikely_(mult == 0 || tls.anchor_tsc == 0 ||
		            d > __atomic_load_n(&tsc.max_delta, __ATOMIC_RELAXED)))
			n = tsc_reanchor();
		else
			n = tls.anchor_ns + ((d * mult) >> 32);
	}
	if (_unlikely_(n < tls.last_ns))
		n = tls.last_ns;
	tls.last_ns = n;
	return n;
}

uint64_t smf_trace_flow(const char *fmri)
{
	/* Stored in files and compared across tools: the function and the 0 -> 1 rule stay. */
	uint64_t h = fmri ? smf_hash_str(fmri) : SMF_HASH_INIT;

	return h ? h : 1;
}

uint64_t smf_trace_instance_flow(const char *entity)
{
	if (!entity || !strneq(entity, "svc:/", 5) || !strchr(entity + 5, ':'))
		return 0;
	return smf_trace_flow(entity);
}

/* Held across fork() so the child's only thread cannot inherit it locked by a vanished one. */
static void trace_atfork_prepare(void)
{
	pthread_mutex_lock(&g.intern_lock);
}

static void trace_atfork_parent(void)
{
	pthread_mutex_unlock(&g.intern_lock);
}

static void trace_atfork_child(void)
{
	pthread_mutex_unlock(&g.intern_lock);
	/* This thread's page belongs to the parent; claim fresh ones under our own pid. */
	g.pid = (uint32_t)getpid();
	tls.gen = 0;
	/* The parent's prefaulter did not come along; a child that fills a page starts its own. */
	memset(&pf, 0, sizeof(pf));
}

static void trace_register_atfork(void)
{
	(void)pthread_atfork(trace_atfork_prepare, trace_atfork_parent, trace_atfork_child);
}

/*
 * The prefaulter (see the theory statement): one helper thread per process, started by the
 * first thread that fills a page, which keeps the pages after next_page faulted in so that
 * the threads that claim them never wait for the kernel's page supply.
 */
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
	r = pthread_create(&pf.thread, &attr, prefault_main, g.hdr);
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

/* At close: the helper stops and is joined before the file is unmapped. */
static void prefault_stop(void)
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

uint32_t smf_trace_pages_ready(void)
{
	uint64_t run = __atomic_load_n(&pf.run, __ATOMIC_ACQUIRE), next;

	if (!g.hdr)
		return 0;
	next = __atomic_load_n(&g.hdr->next_page, __ATOMIC_RELAXED);
	return (uint32_t)(run >> 32) <= next && next < (uint32_t)run ? (uint32_t)run - next : 0;
}

/* Slow path: a new page for this thread; 0 or -ENOSPC (counted as a drop). */
static int trace_claim_page(void)
{
	trace_header_t *h = g.hdr;
	unsigned gen = __atomic_load_n(&trace_gen, __ATOMIC_RELAXED);

	if (tls.gen != gen) {
		tls.gen = gen;
		tls.seq = 0;
		tls.full = false;
		tls.tid = (uint32_t)syscall(SYS_gettid);
		tls.anchor_tsc = tls.anchor_ns = tls.last_ns = 0;
	}
	if (!tls.full) {
		uint32_t idx = __atomic_fetch_add(&h->next_page, 1, __ATOMIC_RELAXED);

		if (idx < h->npages) {
			trace_page_header_t *ph =
			        (void *)(g.map + h->pages_offset + (uint64_t)idx * TRACE_PAGE_SIZE);

			assert(h->pages_offset + ((uint64_t)idx + 1) * TRACE_PAGE_SIZE <= g.size);

			/*
			 * A thread that filled a page will likely fill this one and more: the
			 * prefaulter takes over from here (started once per process).  If it
			 * has not reached this page, fault it in with one syscall here, on the
			 * slow path, rather than 16 faults inside events on the hot path (a
			 * fresh page of a sparse file costs the kernel microseconds each).  Not
			 * a thread's first page: a short-lived svcadm would then allocate 64 KiB
			 * of disk for a few events.  Best effort: before Linux 5.14 it fails and
			 * events fault the page in as before.
			 */
			if (tls.seq > 0 &&
			        _unlikely_(__atomic_load_n(&pf.state, __ATOMIC_RELAXED) == PF_NONE))
				prefault_start();
			if (__atomic_load_n(&pf.state, __ATOMIC_RELAXED) == PF_RUNNING)
				prefault_kick();
			if (tls.seq > 0 && !prefault_covers(idx))
				(void)madvise(ph, TRACE_PAGE_SIZE, MADV_POPULATE_WRITE);
			ph->pid = g.pid;
			ph->tid = tls.tid;
			ph->seq = tls.seq++;
			ph->claim_ns = now_ns(CLOCK_MONOTONIC);
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
	e->ns = event_ns();
	e->flow = flow;
	e->arg0 = arg0;
	e->arg1 = arg1;
	e->str = str;
	e->event = event;
	e->reserved = 0;
	/* Publishes the event: a reader never sees a count that covers a partial one. */
	__atomic_store_n(&tls.ph->count, ++tls.n, __ATOMIC_RELEASE);
}

static uint64_t strings_size_for(uint64_t size)
{
	/*
	 * A quarter: configd interns ~8 pg FMRIs of ~55 bytes per instance against ~20 events of
	 * 32 bytes (40 since version 2), so a sixteenth ran out of strings first (after ~37,000 instances at 256 MiB).
	 */
	uint64_t s = size / 4;

	s &= ~(uint64_t)(TRACE_HEADER_SIZE - 1);
	return s < TRACE_MIN_STRINGS ? TRACE_MIN_STRINGS : s;
}

static void trace_header_init(trace_header_t *h, uint64_t size, const char *prog)
{
	uint64_t strings = strings_size_for(size);

	memcpy(h->magic, TRACE_MAGIC, sizeof(h->magic));
	h->header_size = TRACE_HEADER_SIZE;
	h->page_size = TRACE_PAGE_SIZE;
	h->page_header_size = sizeof(trace_page_header_t);
	h->event_size = sizeof(trace_event_t);
	h->file_size = size;
	h->strings_offset = TRACE_HEADER_SIZE;
	h->strings_size = strings;
	h->pages_offset = TRACE_HEADER_SIZE + strings;
	h->npages = (uint32_t)((size - h->pages_offset) / TRACE_PAGE_SIZE);
	assert(h->npages > 0 && h->pages_offset + (uint64_t)h->npages * TRACE_PAGE_SIZE <= size);
	h->pid = g.pid;
	h->ppid = (uint32_t)getppid();
	h->sid = (uint32_t)getsid(0);
	h->pgid = (uint32_t)getpgrp();
	h->start_ns = now_ns(CLOCK_MONOTONIC);
	h->start_realtime_ns = now_ns(CLOCK_REALTIME);
	strncpy(h->prog, prog, sizeof(h->prog) - 1);
	__atomic_store_n(&h->version, TRACE_VERSION, __ATOMIC_RELEASE);
}

/* The file in dir, or in the root's trace directory when dir is NULL or empty. */
static int trace_create_file(
        const char *root, const char *dir_override, const char *prog, char **ret_path, int *ret_fd)
{
	_cleanup_free_ char *r = NULL, *dir = NULL, *path = NULL;
	int fd, k;

	if (dir_override && *dir_override) {
		dir = strdup(dir_override);
		if (!dir)
			return -ENOMEM;
	} else {
		k = smf_root_resolve(root, &r);
		if (k < 0)
			return k;
		k = smf_path(r, SMF_REL_TRACE_DIR, &dir);
		if (k < 0)
			return k;
	}
	k = smf_mkdir_p(dir, 0755);
	if (k < 0)
		return k;
	/*
	 * Never over another file: pids wrap (a long make stress runs through all 32,768), and a
	 * process may open, close and open again.  The first free of <prog>.<pid>.trace,
	 * <prog>.<pid>.1.trace, ...
	 */
	for (unsigned n = 0;; n++) {
		char suffix[16] = "";

		if (n > 0)
			snprintf(suffix, sizeof(suffix), ".%u", n);
		free(path);
		if (asprintf(&path, "%s/%s.%u%s.trace", dir, prog, (unsigned)getpid(), suffix) <
		        0) {
			path = NULL;
			return -ENOMEM;
		}
		fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0)
			break;
		if (errno != EEXIST || n >= 1000)
			return -errno;
	}
	*ret_fd = fd;
	*ret_path = TAKE_PTR(path);
	return 0;
}

/* Whether this process ever tried to open a trace file (smf_trace_open_client()). */
static bool trace_tried;

static int trace_open(const char *root, const char *dir, const char *prog, uint64_t size)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	_cleanup_free_ char *path = NULL;
	_cleanup_close_ int fd = -1;
	const char *base;
	void *map;
	int r;

	__atomic_store_n(&trace_tried, true, __ATOMIC_RELAXED);
	if (!prog || !*prog)
		return -EINVAL;
	if (g.map)
		return -EBUSY;
	size &= ~(uint64_t)(TRACE_HEADER_SIZE - 1);
	if (size < TRACE_HEADER_SIZE + strings_size_for(size) + TRACE_PAGE_SIZE)
		return -EINVAL;
	base = strrchr(prog, '/');
	base = base ? base + 1 : prog;

	r = trace_create_file(root, dir, base, &path, &fd);
	if (r < 0)
		return r;
	/* Sparse: blocks are allocated only for the pages threads touch. */
	if (ftruncate(fd, (off_t)size) < 0) {
		r = -errno;
		(void)unlink(path);
		return r;
	}
	map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		r = -errno;
		(void)unlink(path);
		return r;
	}

	(void)pthread_once(&once, trace_register_atfork);
	tsc_calibrate();
	g.map = map;
	g.size = size;
	g.hdr = map;
	g.path = TAKE_PTR(path);
	g.pid = (uint32_t)getpid();
	trace_header_init(g.hdr, size, base);
	__atomic_add_fetch(&trace_gen, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&smf_trace_enabled_, 1, __ATOMIC_RELEASE);
	return 0;
}

int smf_trace_open_sized(const char *root, const char *prog, uint64_t size)
{
	return trace_open(root, NULL, prog, size);
}

int smf_trace_open(const char *root, const char *prog)
{
	return smf_trace_open_sized(root, prog, TRACE_DEFAULT_SIZE);
}

int smf_trace_open_env(const char *root, const char *prog)
{
	const char *e = getenv("SMF_TRACE"), *sz = getenv("SMF_TRACE_SIZE");
	uint64_t size = TRACE_DEFAULT_SIZE;
	int r;

	if (!e || !streq(e, "1"))
		return 0;
	if (sz && *sz) {
		char *end;

		errno = 0;
		size = strtoull(sz, &end, 10);
		if (errno != 0 || *end != '\0')
			return -EINVAL;
	}
	r = trace_open(root, getenv("SMF_TRACE_DIR"), prog, size);
	return r < 0 ? r : 1;
}

/* The command line, blank-separated and cut to fit the buffer ("?" when unreadable). */
static void read_cmdline(char *buf, size_t size)
{
	_cleanup_close_ int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, size - 1) : -1;

	if (n <= 0) {
		snprintf(buf, size, "?");
		return;
	}
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\0')
		n--;
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
}

/*
 * A libscf program's trace (smf_trace_open_client()) stays mapped at exit: unlike the CLI,
 * such a program may still have threads inside libscf, and they would trace into the unmapped
 * file.  exit() unmaps it soon enough.
 */
static bool command_keep_mapped;

/* on_exit(): a command's end, then the file closed (the CLI is single threaded by then). */
static void trace_command_exit(int status, void *userdata)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "exit %d", status);
	smf_trace_str_args(SMF_TRACE_PROC_EXIT, 0, buf, (uint64_t)(int64_t)status, 0);
	if (!__atomic_load_n(&command_keep_mapped, __ATOMIC_RELAXED))
		smf_trace_close();
}

int smf_trace_open_command(const char *root, const char *prog)
{
	static bool registered;
	char cmdline[256];
	int r = smf_trace_open_env(root, prog);

	if (r <= 0)
		return r;
	read_cmdline(cmdline, sizeof(cmdline));
	smf_trace_str_args(SMF_TRACE_PROC_START, 0, cmdline, g.hdr->ppid,
	        (uint64_t)g.hdr->sid << 32 | g.hdr->pgid);
	if (!registered && on_exit(trace_command_exit, NULL) == 0)
		registered = true;
	return r;
}

int smf_trace_open_client(const char *root, const char *prog)
{
	static bool claimed;

	/* Only the first handle of a process that never opened a trace itself; and one thread. */
	if (__atomic_load_n(&trace_tried, __ATOMIC_RELAXED) ||
	        __atomic_exchange_n(&claimed, true, __ATOMIC_ACQ_REL))
		return 0;
	__atomic_store_n(&command_keep_mapped, true, __ATOMIC_RELAXED);
	return smf_trace_open_command(root, prog);
}

void smf_trace_close(void)
{
	__atomic_store_n(&smf_trace_enabled_, 0, __ATOMIC_RELEASE);
	if (!g.map)
		return;
	prefault_stop();
	(void)munmap(g.map, g.size);
	g.map = NULL;
	g.hdr = NULL;
	g.size = 0;
	g.path = (free(g.path), NULL);
	g.strings = hashmap_free(g.strings);
}

const char *smf_trace_path(void)
{
	return g.path;
}

/* Copies s into the file's table; its id, or 0 when the table is full. */
static uint32_t trace_store_string(const char *s, size_t len)
{
	trace_header_t *h = g.hdr;
	uint64_t need = (4 + len + 1 + 3) & ~(uint64_t)3;
	uint64_t off = __atomic_fetch_add(&h->str_cursor, need, __ATOMIC_RELAXED);
	uint8_t *p;

	if (len >= STR_COMMITTED || off + need > h->strings_size || off / 4 + 1 > UINT32_MAX)
		return 0;
	/* Every claim is a multiple of 4, so an id names exactly one entry's offset. */
	assert(off % 4 == 0 && h->strings_offset + off + need <= h->pages_offset);
	p = g.map + h->strings_offset + off;
	memcpy(p + 4, s, len + 1);
	__atomic_store_n((uint32_t *)p, (uint32_t)len | STR_COMMITTED, __ATOMIC_RELEASE);
	return (uint32_t)(off / 4 + 1);
}

/*
 * The process's string table, consulted on a thread-cache miss with intern_lock held.  The
 * entry is made before the string is copied into the file, so that running out of memory
 * refuses the string without spending room in the file, and it is removed again when the
 * file's table is full.
 */
static uint32_t intern_locked(const char *s)
{
	uint32_t id;
	int r;

	if (!g.strings && !(g.strings = hashmap_new()))
		goto refused;
	id = (uint32_t)(uintptr_t)hashmap_get(g.strings, s);
	if (id != 0)
		return id;
	if (hashmap_put(g.strings, s, NULL) < 0)
		goto refused;
	id = trace_store_string(s, strlen(s));
	if (id == 0) {
		(void)hashmap_remove(g.strings, s);
		goto refused;
	}
	r = hashmap_put(g.strings, s, (void *)(uintptr_t)id);
	assert(r == 0); /* the entry made above: a replacement, no allocation */
	(void)r;
	return id;
refused:
	/* Counted: a reader must know that events with no string may have lost one. */
	__atomic_fetch_add(&g.hdr->str_drops, 1, __ATOMIC_RELAXED);
	return 0;
}

/*
 * A per-thread cache of interned strings, so that a trace point with a string (SMF_PROBE) takes
 * no lock once its thread has seen that string: a direct-mapped table of (hash, id), each hit
 * confirmed against the copy in the file's string table (complete before its id was handed
 * out).  Emptied when the file is reopened (gen), since ids belong to one file.
 */
#define ICACHE_SLOTS 64

static __thread struct {
	unsigned gen;
	struct {
		uint64_t hash;
		uint32_t id;
	} slot[ICACHE_SLOTS];
} icache;

static const char *string_of(uint32_t id)
{
	uint64_t off = (uint64_t)(id - 1) * 4;

	/* Only ids trace_store_string() handed out for this file are cached. */
	assert(id != 0 && off + 4 < g.hdr->strings_size);
	return (const char *)(g.map + g.hdr->strings_offset + off + 4);
}

uint32_t smf_trace_intern(const char *s)
{
	unsigned gen = __atomic_load_n(&trace_gen, __ATOMIC_RELAXED);
	uint64_t hash;
	uint32_t id;
	size_t k;

	if (!s || !smf_trace_enabled())
		return 0;
	hash = smf_hash_str(s);
	if (icache.gen != gen) {
		memset(&icache, 0, sizeof(icache));
		icache.gen = gen;
	}
	k = hash % ICACHE_SLOTS;
	if (icache.slot[k].id != 0 && icache.slot[k].hash == hash &&
	        streq(string_of(icache.slot[k].id), s))
		return icache.slot[k].id;
	pthread_mutex_lock(&g.intern_lock);
	id = g.map ? intern_locked(s) : 0;
	pthread_mutex_unlock(&g.intern_lock);
	if (id != 0) {
		icache.slot[k].hash = hash;
		icache.slot[k].id = id;
	}
	return id;
}
