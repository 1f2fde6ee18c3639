/*
 * pids.c: processes that share a pid in one trace.
 *
 * Pids wrap in a long run: pid_max is 32768 on many systems, and make stress starts more
 * processes than that in a 30 s phase, so two trace files may hold two processes of one pid,
 * one after the other.  The rest of svctrace knows a process by its pid (a commit names its
 * committer by pid, threads are keyed by pid and tid), and would take the two for one: an
 * svcadm's commit counted as the svccfg's before it, that svccfg's exit as the svcadm's.  So
 * before anything is indexed, each later process of a reused pid gets a pid of its own in the
 * merged trace, pid + TRACE_PID_REUSED x n for the n-th reuse: above any pid_max (2^22), its
 * low digits still the real pid (trace_proc_name() prints "svcadm[11334#1]").
 *
 * A process here is a (file, pid) pair: a file's own process, or a child forked without exec
 * that wrote into its parent's file.  The same pid in another pair is a NEW process only when
 * the earlier one recorded its end (proc.exit) before the later one's first event; otherwise
 * it is the same process seen again (a forked child that exec'd a traced program, a process
 * that reopened its trace).  Daemons record no proc.exit and keep their pid, which is right:
 * they outlive the run.
 *
 * A pid that an event names (configd.write's committer, configd.notify_sent's subscriber) is
 * mapped to the process of that pid that had started by the event's time: a committer is alive
 * when it commits, after its first event (a program opens its trace before its first request).
 * When none of that pid had started yet, or (a commit) the one that had has exited, the pid
 * names one that left no file here (another phase's command, whose file is in another
 * directory; an untraced client): it becomes 0, no process, rather than one it cannot be.  A
 * subscriber may be gone by the time configd notifies it: its connection lives until configd
 * next looks at the socket, so a notification is sent to an exited process now and then (the
 * model says so too: configd.closed comes some time after the exit).  (A libscf
 * program's other threads may still commit after its proc.exit, its file kept mapped: more
 * than CLOCK_SLACK_NS later, such a commit is "no process".)
 * proc.start's parent and the files' session and process group ids are left as they are: they
 * name shells and harnesses, which are not traced.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "svctrace.h"
#include "trace.h"

typedef struct use {
	uint32_t pid, file, vpid;
	uint64_t first_ns, exit_ns; /* exit_ns: NS_NEVER without a proc.exit */
} use_t;

/*
 * How far apart two processes' clocks may be when one names the other: each converts its own
 * TSC reads (lib/util/trace-clock.c), so a commit recorded by configd may come a few
 * microseconds "after" its committer's exit.  A pid is reused only after pid_max others, far
 * later.
 */
#define CLOCK_SLACK_NS (10 * 1000 * 1000ull)

static int cmp_by_file(const void *a, const void *b)
{
	const use_t *x = a, *y = b;

	if (x->file != y->file)
		return x->file < y->file ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static int cmp_by_time(const void *a, const void *b)
{
	const use_t *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->first_ns != y->first_ns)
		return x->first_ns < y->first_ns ? -1 : 1;
	return x->file < y->file ? -1 : x->file > y->file;
}

/*
 * One entry per (file, pid), in the read order: a file's events are one block (merge.c reads
 * file by file) and mostly one thread's run after another, so the last entry nearly always
 * matches and a file holds few pids.
 */
static int collect(const trace_t *t, use_t **ret, size_t *n_ret)
{
	use_t *v = NULL;
	size_t n = 0, cap = 0, file_start = 0, last = SIZE_MAX;

	for (size_t i = 0; i < t->n_events; i++) {
		const tr_event_t *e = &t->events[i];
		use_t *u = last != SIZE_MAX && v[last].file == e->file && v[last].pid == e->pid
		        ? &v[last]
		        : NULL;

		if (n > 0 && v[n - 1].file != e->file)
			file_start = n;
		for (size_t k = file_start; !u && k < n; k++)
			if (v[k].pid == e->pid)
				u = &v[k];
		if (!u) {
			if (GREEDY_REALLOC(v, cap, n + 1) < 0) {
				free(v);
				return -ENOMEM;
			}
			v[n] = (use_t){.pid = e->pid,
			        .file = e->file,
			        .vpid = e->pid,
			        .first_ns = e->ns,
			        .exit_ns = NS_NEVER};
			u = &v[n++];
		}
		last = (size_t)(u - v);
		if (e->ns < u->first_ns)
			u->first_ns = e->ns;
		/* Its last: a process records one, but a synthetic one (tests) may run as several
		 * commands one after the other. */
		if (e->event == SMF_TRACE_PROC_EXIT &&
		        (u->exit_ns == NS_NEVER || e->ns > u->exit_ns))
			u->exit_ns = e->ns;
	}
	/* A file's own process began when it opened the file: a daemon (no proc.start) may be
	 * named by configd before its first event. */
	for (size_t k = 0; k < n; k++)
		if (v[k].file < t->n_files && t->files[v[k].file].pid == v[k].pid &&
		        t->files[v[k].file].start_ns < v[k].first_ns)
			v[k].first_ns = t->files[v[k].file].start_ns;
	*ret = v;
	*n_ret = n;
	return 0;
}

/* v sorted by time: each later process of a pid its own pid.  Whether any pid was reused. */
static bool assign(use_t *v, size_t n)
{
	bool reused = false;

	for (size_t i = 0; i < n;) {
		uint64_t end = v[i].exit_ns;
		uint32_t k = 0;
		size_t j = i + 1;

		for (; j < n && v[j].pid == v[i].pid; j++) {
			if (end != NS_NEVER && v[j].first_ns > end) {
				if (v[i].pid + (uint64_t)(k + 1) * TRACE_PID_REUSED <= UINT32_MAX)
					k++;
				end = NS_NEVER;
				reused = true;
			}
			v[j].vpid = v[i].pid + k * TRACE_PID_REUSED;
			if (v[j].exit_ns != NS_NEVER)
				end = v[j].exit_ns;
		}
		i = j;
	}
	return reused;
}

/*
 * The process of pid alive at ns (give or take CLOCK_SLACK_NS), or (gone_too) the last of pid
 * that had started by ns even if it has exited since; 0 when there is none; pid itself when
 * pid left no file.
 */
static uint32_t pid_at(const use_t *v, size_t n, uint32_t pid, uint64_t ns, bool gone_too)
{
	size_t lo = 0, hi = n, at = SIZE_MAX;

	while (lo < hi) { /* the first entry of pid */
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = lo; k < n && v[k].pid == pid &&
	        (at == SIZE_MAX || v[k].first_ns <= ns + CLOCK_SLACK_NS);
	        k++)
		at = k;
	if (at == SIZE_MAX)
		return pid;
	if (v[at].first_ns > ns + CLOCK_SLACK_NS)
		return 0;
	if (!gone_too && v[at].exit_ns != NS_NEVER && v[at].exit_ns + CLOCK_SLACK_NS < ns)
		return 0;
	return v[at].vpid;
}

/* Each event's own pid: its process's, told apart from the others of that pid. */
static int rename_processes(trace_t *t, const use_t *v, size_t n)
{
	_cleanup_free_ use_t *by_file = malloc(n * sizeof(*v));
	const use_t *hit = NULL;

	if (!by_file)
		return -ENOMEM;
	memcpy(by_file, v, n * sizeof(*v));
	qsort(by_file, n, sizeof(*by_file), cmp_by_file);
	for (size_t i = 0; i < t->n_events; i++) {
		tr_event_t *e = &t->events[i];
		use_t key = {.file = e->file, .pid = e->pid};

		if (!hit || hit->file != e->file || hit->pid != e->pid)
			hit = bsearch(&key, by_file, n, sizeof(*by_file), cmp_by_file);
		assert(hit); /* collect() saw every event */
		if (e->tid == e->pid)
			e->tid = hit->vpid;
		e->pid = hit->vpid;
	}
	return 0;
}

int trace_resolve_pids(trace_t *t)
{
	_cleanup_free_ use_t *v = NULL;
	size_t n = 0;
	bool reused;
	int r;

	r = collect(t, &v, &n);
	if (r < 0)
		return r;
	qsort(v, n, sizeof(*v), cmp_by_time);
	reused = assign(v, n);
	if (reused && (r = rename_processes(t, v, n)) < 0)
		return r;
	for (size_t i = 0; i < t->n_events; i++) {
		tr_event_t *e = &t->events[i];

		if (e->event == SMF_TRACE_CONFIGD_WRITE)
			e->arg1 = pid_at(v, n, (uint32_t)e->arg1, e->ns, false);
		else if (e->event == SMF_TRACE_CONFIGD_NOTIFY_SENT)
			e->arg1 = pid_at(v, n, (uint32_t)e->arg1, e->ns, true);
	}
	return reused;
}
