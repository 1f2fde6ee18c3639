/*
 * trace.c: the trace recorder: its model (below), and opening, forking and closing a process's
 * trace file.  The recorder's other concerns have a file each, listed at the end.
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
 * clock_gettime() until then; trace-clock.c says why).  Times stay CLOCK_MONOTONIC
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
 *
 * The parts, one concern a file (what they share: trace-recorder.h):
 *   trace.c           this model; the file created and its header written, fork, close; flows
 *   trace-emit.c      the hot path: an event appended to the thread's page, a page claimed
 *   trace-clock.c     an event's time: the TSC, calibrated at open, anchored per thread
 *                     (the per-event conversion is inline in trace-clock.h)
 *   trace-prefault.c  the prefaulter, the helper thread that faults pages in ahead
 *   trace-strings.c   the string table and each thread's cache of it
 *   trace-command.c   a command's proc.start and proc.exit
 *   trace-format.h    the file's layout, which the reader shares
 * The reader (trace-read.c, trace-names.c, declared in trace-reader.h) is a library of its
 * own, trace_reader_dep: only what reads traces links it.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "macro.h"
#include "paths.h"
#include "trace-clock.h"
#include "trace-recorder.h"
#include "trace.h"

#define TRACE_DEFAULT_SIZE (256ull * 1024 * 1024)
#define TRACE_MIN_STRINGS (64u * 1024u)

trace_file_t trace_file;
unsigned trace_gen;
int smf_trace_enabled_;

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

/*
 * The string table's lock is held across fork(): the child's only thread cannot inherit it
 * locked by a vanished one.
 */
static void trace_atfork_prepare(void)
{
	trace_strings_lock();
}

static void trace_atfork_parent(void)
{
	trace_strings_unlock();
}

static void trace_atfork_child(void)
{
	trace_strings_unlock();
	/* This thread's page belongs to the parent; claim fresh ones under our own pid. */
	trace_file.pid = (uint32_t)getpid();
	trace_emit_forget_page();
	/* The parent's prefaulter did not come along; a child that fills a page starts its own. */
	trace_prefault_forget();
}

static void trace_register_atfork(void)
{
	(void)pthread_atfork(trace_atfork_prepare, trace_atfork_parent, trace_atfork_child);
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
	h->pid = trace_file.pid;
	h->ppid = (uint32_t)getppid();
	h->sid = (uint32_t)getsid(0);
	h->pgid = (uint32_t)getpgrp();
	h->start_ns = trace_now_ns(CLOCK_MONOTONIC);
	h->start_realtime_ns = trace_now_ns(CLOCK_REALTIME);
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

bool trace_open_tried(void)
{
	return __atomic_load_n(&trace_tried, __ATOMIC_RELAXED);
}

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
	if (trace_file.map)
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
	trace_clock_calibrate();
	trace_file.map = map;
	trace_file.size = size;
	trace_file.hdr = map;
	trace_file.path = TAKE_PTR(path);
	trace_file.pid = (uint32_t)getpid();
	trace_header_init(trace_file.hdr, size, base);
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

void smf_trace_close(void)
{
	__atomic_store_n(&smf_trace_enabled_, 0, __ATOMIC_RELEASE);
	if (!trace_file.map)
		return;
	trace_prefault_stop();
	(void)munmap(trace_file.map, trace_file.size);
	trace_file.map = NULL;
	trace_file.hdr = NULL;
	trace_file.size = 0;
	trace_file.path = (free(trace_file.path), NULL);
	trace_strings_forget();
}

const char *smf_trace_path(void)
{
	return trace_file.path;
}
