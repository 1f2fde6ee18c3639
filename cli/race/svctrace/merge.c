/*
 * merge.c: reads every trace file of a run into one array of events sorted by time, and
 * indexes it by process, thread and flow.
 *
 * Times are CLOCK_MONOTONIC in every file, so sorting by ns is the merge.  Two events with the
 * same ns keep their read order, and the reader yields each thread's events in the order the
 * thread wrote them, so a thread's own order survives the sort even where its clock did not
 * advance.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "macro.h"
#include "paths.h"
#include "strv.h"
#include "svctrace.h"
#include "trace-reader.h"
#include "trace.h"

#define PG_INFIX "/:properties/"

/* Per file: a small direct-mapped cache from string id to pooled string. */
#define STR_CACHE 512

typedef struct reader {
	trace_t *t;
	const char *prog;
	uint32_t cache_id[STR_CACHE];
	const char *cache_str[STR_CACHE];
} reader_t;

/*
 * Every trace file has its own string table and ids, and its mapping is gone once read, so
 * the merged trace keeps the strings in one pool: the same FMRI from four processes is stored
 * once and compared by pointer.  The pool is a hashmap_t used as a set; its keys are the copies.
 */
static int trace_pool_string(trace_t *t, const char *s, const char **ret)
{
	const char *k = hashmap_key(t->pool, s);
	int r;

	if (!k) {
		r = hashmap_put(t->pool, s, NULL);
		if (r < 0)
			return r;
		k = hashmap_key(t->pool, s);
		assert(k); /* the entry just made */
	}
	*ret = k;
	return 0;
}

static int pooled_string(reader_t *rd, const smf_trace_record_t *rec, const char **ret)
{
	unsigned slot = rec->str_id % STR_CACHE;
	int r;

	if (!rec->str) {
		*ret = NULL;
		return 0;
	}
	if (rd->cache_id[slot] == rec->str_id) {
		*ret = rd->cache_str[slot];
		return 0;
	}
	r = trace_pool_string(rd->t, rec->str, ret);
	if (r < 0)
		return r;
	rd->cache_id[slot] = rec->str_id;
	rd->cache_str[slot] = *ret;
	return 0;
}

static int on_record(const smf_trace_record_t *rec, void *userdata)
{
	reader_t *rd = userdata;
	trace_t *t = rd->t;
	tr_event_t *e;
	int r;

	if (GREEDY_REALLOC(t->events, t->cap_events, t->n_events + 1) < 0)
		return -ENOMEM;
	e = &t->events[t->n_events];
	*e = (tr_event_t){
	        .ns = rec->ns,
	        .flow = rec->flow,
	        .arg0 = rec->arg0,
	        .arg1 = rec->arg1,
	        .order = t->n_events,
	        .pid = rec->pid,
	        .tid = rec->tid,
	        .event = rec->event,
	};
	r = pooled_string(rd, rec, &e->str);
	if (r < 0)
		return r;
	t->n_events++;
	return 0;
}

static int read_one_file(trace_t *t, const char *path)
{
	reader_t *rd = calloc(1, sizeof(*rd));
	smf_trace_file_info_t info;
	size_t first = t->n_events;
	int r;

	if (!rd)
		return -ENOMEM;
	rd->t = t;
	r = smf_trace_read(path, on_record, rd, &info);
	free(rd);
	if (r < 0)
		return r;
	/* proc holds the file's index until index_threads() knows the processes. */
	for (size_t i = first; i < t->n_events; i++)
		t->events[i].proc = t->events[i].file = (uint32_t)t->n_files;
	t->drops += info.drops;
	t->str_drops += info.str_drops;
	if (info.drops > 0 || info.str_drops > 0)
		log_warning("%s: %" PRIu64 " events and %" PRIu64
		            " strings were lost (the file was full)",
		        path, info.drops, info.str_drops);
	if (GREEDY_REALLOC(t->files, t->cap_files, t->n_files + 1) < 0)
		return -ENOMEM;
	t->files[t->n_files] = (tr_file_t){.pid = info.pid,
	        .ppid = info.ppid,
	        .sid = info.sid,
	        .pgid = info.pgid,
	        .start_ns = info.start_ns};
	r = trace_pool_string(t, basename(path), &t->files[t->n_files].name);
	if (r < 0)
		return r;
	return trace_pool_string(t, info.prog[0] ? info.prog : "?", &t->files[t->n_files].prog);
}

/* DIR itself when it holds trace files, else DIR/var/svc/trace (a run's root). */
static int trace_dir_of(const char *path, char **ret)
{
	_cleanup_free_ char *sub = NULL;
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	if (smf_path(path, SMF_REL_TRACE_DIR, &sub) < 0)
		return -ENOMEM;
	if (stat(sub, &st) == 0 && S_ISDIR(st.st_mode)) {
		*ret = TAKE_PTR(sub);
		return 0;
	}
	*ret = strdup(path);
	return *ret ? 0 : -ENOMEM;
}

static bool is_trace_name(const char *name)
{
	size_t n = strlen(name);

	return n > 6 && streq(name + n - 6, ".trace") && name[0] != '.';
}

static int list_trace_files(const char *dir, char ***ret)
{
	_cleanup_strv_free_ char **l = strv_new_empty();
	DIR *d;
	struct dirent *de;
	int r = 0;

	if (!l)
		return -ENOMEM;
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		_cleanup_free_ char *p = NULL;

		if (!is_trace_name(de->d_name))
			continue;
		if (asprintf(&p, "%s/%s", dir, de->d_name) < 0 || strv_consume(&l, p) < 0) {
			r = -ENOMEM;
			break;
		}
		p = NULL;
	}
	closedir(d);
	if (r < 0)
		return r;
	strv_sort(l); /* the same order every time: ties in ns then merge the same way */
	*ret = TAKE_PTR(l);
	return 0;
}

static int cmp_event(const void *a, const void *b)
{
	const tr_event_t *x = a, *y = b;

	if (x->ns != y->ns)
		return x->ns < y->ns ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static int cmp_thread(const void *a, const void *b)
{
	const tr_thread_t *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static int cmp_thread_first(const void *a, const void *b)
{
	const tr_thread_t *x = a, *y = b;
	int c = cmp_thread(a, b);

	if (c != 0)
		return c;
	return x->first < y->first ? -1 : x->first > y->first;
}

static int cmp_flow(const void *a, const void *b)
{
	const tr_flow_t *x = a, *y = b;

	return x->flow < y->flow ? -1 : x->flow > y->flow;
}

/*
 * Threads and processes, from the events.  A process's program is that of the file it wrote
 * into: a child forked without exec writes into its parent's file under its own pid.
 */
static int index_threads(trace_t *t)
{
	size_t n = 0;

	t->threads = calloc(t->n_events ? t->n_events : 1, sizeof(*t->threads));
	t->procs = calloc(t->n_events ? t->n_events : 1, sizeof(*t->procs));
	if (!t->threads || !t->procs)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_events; i++) {
		tr_thread_t key = {.pid = t->events[i].pid, .tid = t->events[i].tid};

		if (n > 0 && cmp_thread(&key, &t->threads[n - 1]) == 0)
			continue;
		assert(t->events[i].proc < t->n_files); /* still the file's index here */
		key.proc = t->events[i].proc;
		key.prog = t->files[key.proc].prog;
		key.first = i;
		key.first_event = t->events[i].event;
		t->threads[n++] = key;
	}
	qsort(t->threads, n, sizeof(*t->threads), cmp_thread_first);
	t->n_threads = 0;
	for (size_t i = 0; i < n; i++) {
		if (t->n_threads > 0 &&
		        cmp_thread(&t->threads[i], &t->threads[t->n_threads - 1]) == 0)
			continue;
		t->threads[t->n_threads++] = t->threads[i];
	}
	for (size_t i = 0; i < t->n_threads; i++) {
		tr_thread_t *th = &t->threads[i];
		const tr_file_t *f = &t->files[th->proc]; /* still the file's index here */

		if (t->n_procs == 0 || t->procs[t->n_procs - 1].pid != th->pid)
			t->procs[t->n_procs++] = (tr_proc_t){.pid = th->pid,
			        .prog = th->prog,
			        .ppid = f->ppid,
			        .sid = f->sid,
			        .pgid = f->pgid,
			        .exit_status = EXIT_UNKNOWN,
			        .exit_ns = NS_NEVER};
		th->proc = (uint32_t)(t->n_procs - 1);
	}
	for (size_t i = 0; i < t->n_events; i++) {
		tr_thread_t key = {.pid = t->events[i].pid, .tid = t->events[i].tid};
		const tr_thread_t *th =
		        bsearch(&key, t->threads, t->n_threads, sizeof(key), cmp_thread);

		assert(th); /* every event's thread was indexed above */
		t->events[i].thread = (uint32_t)(th - t->threads);
		t->events[i].proc = th->proc;
	}
	return 0;
}

/* The instance FMRI a string names: itself, or what precedes "/:properties/"; NULL if none. */
static char *fmri_of_string(const char *s)
{
	const char *pg;

	if (!s || !strneq(s, "svc:/", 5))
		return NULL;
	pg = strstr(s, PG_INFIX);
	return pg ? strndup(s, (size_t)(pg - s)) : strdup(s);
}

/* Learns a flow's FMRI, preferring a name whose hash is the flow (the writers' contract). */
static int learn_fmri(trace_t *t, tr_flow_t *f, const char *s, bool *verified)
{
	_cleanup_free_ char *fmri = NULL;

	if (*verified)
		return 0;
	fmri = fmri_of_string(s);
	if (!fmri)
		return 0;
	if (smf_trace_flow(fmri) == f->flow)
		*verified = true;
	else if (f->fmri)
		return 0;
	return trace_pool_string(t, fmri, &f->fmri);
}

static int index_flows(trace_t *t)
{
	_cleanup_free_ bool *verified = NULL;
	size_t n = 0;

	t->flows = calloc(t->n_events ? t->n_events : 1, sizeof(*t->flows));
	if (!t->flows)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_events; i++)
		if (t->events[i].flow)
			t->flows[n++].flow = t->events[i].flow;
	qsort(t->flows, n, sizeof(*t->flows), cmp_flow);
	for (size_t i = 0; i < n; i++)
		if (t->n_flows == 0 || t->flows[t->n_flows - 1].flow != t->flows[i].flow)
			t->flows[t->n_flows++] = t->flows[i];
	verified = calloc(t->n_flows ? t->n_flows : 1, sizeof(*verified));
	if (!verified)
		return -ENOMEM;
	for (size_t i = 0; i < t->n_events; i++) {
		tr_flow_t *f = (tr_flow_t *)trace_find_flow(t, t->events[i].flow);
		int r;

		assert(!f == !t->events[i].flow); /* every non-zero flow was indexed above */
		if (!f)
			continue;
		if (f->n_events++ == 0)
			f->first = i;
		f->last = i;
		r = learn_fmri(t, f, t->events[i].str, &verified[f - t->flows]);
		if (r < 0)
			return r;
	}
	return 0;
}

/* A command's start and end (proc.start, proc.exit), from its own events. */
static void index_commands(trace_t *t)
{
	for (size_t i = 0; i < t->n_events; i++) {
		const tr_event_t *e = &t->events[i];
		tr_proc_t *p = &t->procs[e->proc];

		if (e->event == SMF_TRACE_PROC_START) {
			p->command = true;
			p->cmdline = e->str;
		} else if (e->event == SMF_TRACE_PROC_EXIT && p->exit_ns == NS_NEVER) {
			p->exit_status = (int32_t)(int64_t)e->arg0;
			p->exit_ns = e->ns;
		}
	}
}

static int read_files(trace_t *t, char **files)
{
	STRV_FOREACH (p, files) {
		int r = read_one_file(t, *p);

		if (r == -EBADMSG) {
			/* A file being created (version not yet written) or not a trace at all. */
			log_warning("%s: not a trace file, skipped", *p);
			continue;
		}
		if (r == -EPROTONOSUPPORT) {
			log_warning("%s: a trace of another format version (this svctrace reads "
			            "version 2), skipped",
			        *p);
			continue;
		}
		if (r < 0)
			return log_error_errno(r, "%s", *p);
		t->n_files++;
	}
	return 0;
}

int trace_load(const char *path, trace_t *ret)
{
	_cleanup_strv_free_ char **files = NULL;
	trace_t t = {};
	int r;

	r = trace_dir_of(path, &t.dir);
	if (r < 0)
		return log_error_errno(r, "%s", path);
	t.pool = hashmap_new();
	if (!t.pool) {
		r = -ENOMEM;
		goto fail;
	}
	r = list_trace_files(t.dir, &files);
	if (r < 0)
		goto fail;
	r = read_files(&t, files);
	if (r >= 0)
		r = trace_resolve_pids(&t);
	if (r < 0)
		goto fail;
	qsort(t.events, t.n_events, sizeof(*t.events), cmp_event);
	r = index_threads(&t);
	if (r >= 0)
		r = index_flows(&t);
	if (r < 0)
		goto fail;
	index_commands(&t);
	if (t.n_events > 0) {
		t.t0 = t.events[0].ns;
		t.t_end = t.events[t.n_events - 1].ns;
	}
	*ret = t;
	return 0;
fail:
	trace_done(&t);
	return r;
}

void trace_done(trace_t *t)
{
	free(t->events);
	free(t->procs);
	free(t->threads);
	free(t->flows);
	free(t->dir);
	free(t->files);
	hashmap_free(t->pool);
	*t = (trace_t){};
}

const tr_flow_t *trace_find_flow(const trace_t *t, uint64_t flow)
{
	tr_flow_t key = {.flow = flow};

	if (!flow || t->n_flows == 0)
		return NULL;
	return bsearch(&key, t->flows, t->n_flows, sizeof(key), cmp_flow);
}

const tr_flow_t *trace_flow_by_fmri(const trace_t *t, const char *fmri)
{
	for (size_t i = 0; i < t->n_flows; i++) {
		const char *f = t->flows[i].fmri;

		/* "site/foo:default" names "svc:/site/foo:default" too. */
		if (f && (streq(f, fmri) || (strneq(f, "svc:/", 5) && streq(f + 5, fmri))))
			return &t->flows[i];
	}
	return NULL;
}

static int cmp_proc(const void *a, const void *b)
{
	const tr_proc_t *x = a, *y = b;

	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

const tr_proc_t *trace_find_proc(const trace_t *t, uint32_t pid)
{
	tr_proc_t key = {.pid = pid};

	return t->n_procs ? bsearch(&key, t->procs, t->n_procs, sizeof(key), cmp_proc) : NULL;
}

const char *trace_proc_name(const trace_t *t, uint32_t pid, char buf[static 64])
{
	const tr_proc_t *p = trace_find_proc(t, pid);

	if (p && pid >= TRACE_PID_REUSED) /* pids.c: the n-th reuse of pid % TRACE_PID_REUSED */
		snprintf(buf, 64, "%s[%" PRIu32 "#%" PRIu32 "]", p->prog, pid % TRACE_PID_REUSED,
		        pid / TRACE_PID_REUSED);
	else if (p)
		snprintf(buf, 64, "%s[%" PRIu32 "]", p->prog, pid);
	else
		snprintf(buf, 64, "pid %" PRIu32, pid);
	return buf;
}

const char *trace_flow_fmri(const trace_t *t, uint64_t flow)
{
	const tr_flow_t *f = trace_find_flow(t, flow);

	return f ? f->fmri : NULL;
}

const char *trace_thread_name(const tr_thread_t *th, char *buf, size_t size)
{
	char name[24];

	if (th->tid == th->pid)
		snprintf(buf, size, "%s main", th->prog);
	else
		snprintf(buf, size, "%s thread %" PRIu32 " (%s)", th->prog, th->tid,
		        trace_event_name(th->first_event, name));
	return buf;
}

const char *trace_event_name(uint16_t event, char buf[static 24])
{
	const char *name = smf_trace_event_name(event);

	if (name)
		return name;
	snprintf(buf, 24, "event#%u", (unsigned)event);
	return buf;
}
