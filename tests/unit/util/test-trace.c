/*
 * test-trace.c: the trace recorder.  What is written is read back exactly once and whole, from
 * many threads at once, from a process killed with SIGKILL mid-run (its prefaulter running),
 * and when the file is full the loss is counted; without SMF_TRACE nothing is created.  The
 * prefaulter keeps its lead of faulted-in pages, stays out of the way (idle priority, signals
 * blocked) and is gone after close; a forked child runs its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "hash.h"
#include "macro.h"
#include "test-root.h"
#include "timeutil.h"
#include "trace-reader.h"
#include "trace.h"

#define THREADS 8
#define PER_THREAD 100000
#define EVENTS_PER_PAGE ((64 * 1024 - 64) / 40)

static int setup_root(void **state)
{
	char *root = malloc(PATH_MAX);

	if (!root || test_root_make(root, PATH_MAX, "test-trace") < 0) {
		free(root);
		return -1;
	}
	*state = root;
	return 0;
}

static int teardown_root(void **state)
{
	smf_trace_close();
	(void)test_root_remove(*state);
	free(*state);
	return 0;
}

static char *trace_file_of(const char *root, pid_t pid)
{
	char *p;

	assert_true(asprintf(&p, "%s/var/svc/trace/test-trace.%d.trace", root, (int)pid) > 0);
	return p;
}

/* Threads of process pid (its /proc/<pid>/task entries), -1 if unreadable. */
static int task_count(pid_t pid)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The one thread of this process that is not the caller (the prefaulter), or 0. */
static pid_t other_task(void)
{
	struct dirent *de;
	pid_t tid = 0;
	DIR *d = opendir("/proc/self/task");

	assert_non_null(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.' && atoi(de->d_name) != gettid())
			tid = atoi(de->d_name);
	closedir(d);
	return tid;
}

typedef struct collected {
	size_t n;
	smf_trace_record_t rec[4];
	char str[4][64];
} collected_t;

static int collect(const smf_trace_record_t *rec, void *userdata)
{
	collected_t *c = userdata;

	if (c->n < ELEMENTSOF(c->rec)) {
		c->rec[c->n] = *rec;
		snprintf(c->str[c->n], sizeof(c->str[0]), "%s", rec->str ? rec->str : "(null)");
	}
	c->n++;
	return 0;
}

static int collect_string(uint32_t id, const char *s, void *userdata)
{
	int *n = userdata;

	assert_true(id > 0);
	assert_string_equal(s, *n == 0 ? "svc:/system/a:default" : "svc:/system/b:default");
	(*n)++;
	return 0;
}

static void test_round_trip(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *path = trace_file_of(root, getpid());
	smf_trace_file_info_t info;
	collected_t c = {};
	uint32_t a, b;
	int nstr = 0;

	assert_int_equal(smf_trace_open(root, "/usr/bin/test-trace"), 0);
	assert_string_equal(smf_trace_path(), path);
	assert_int_equal(smf_trace_open(root, "test-trace"), -EBUSY);
	a = smf_trace_intern("svc:/system/a:default");
	b = smf_trace_intern("svc:/system/b:default");
	assert_true(a != 0 && b != 0 && a != b);
	assert_int_equal(smf_trace_intern("svc:/system/a:default"), a);
	assert_int_equal(
	        smf_trace_flow("svc:/system/a:default"), smf_trace_flow("svc:/system/a:default"));
	assert_true(
	        smf_trace_flow("svc:/system/a:default") != smf_trace_flow("svc:/system/b:default"));

	smf_trace(SMF_TRACE_IMPORT_BEGIN, 0, 0);
	smf_trace(SMF_TRACE_CONFIGD_COMMIT, smf_trace_flow("svc:/system/a:default"), a);
	smf_trace(SMF_TRACE_SVCADM_RESULT, 7, b);

	assert_int_equal(smf_trace_read(path, collect, &c, &info), 0);
	assert_int_equal(c.n, 3);
	assert_string_equal(info.prog, "test-trace");
	assert_int_equal(info.pid, getpid());
	assert_int_equal(info.pages_used, 1);
	assert_int_equal(info.drops, 0);
	assert_int_equal(c.rec[0].event, SMF_TRACE_IMPORT_BEGIN);
	assert_int_equal(c.rec[0].str_id, 0);
	assert_string_equal(c.str[0], "(null)");
	assert_int_equal(c.rec[1].event, SMF_TRACE_CONFIGD_COMMIT);
	assert_int_equal(c.rec[1].flow, smf_trace_flow("svc:/system/a:default"));
	assert_string_equal(c.str[1], "svc:/system/a:default");
	assert_string_equal(c.str[2], "svc:/system/b:default");
	assert_int_equal(c.rec[2].flow, 7);
	assert_int_equal(c.rec[2].pid, getpid());
	assert_true(c.rec[0].ns >= info.start_ns);
	assert_true(c.rec[0].ns <= c.rec[1].ns && c.rec[1].ns <= c.rec[2].ns);
	assert_int_equal(c.rec[0].tid, c.rec[2].tid);
	assert_string_equal(smf_trace_event_name(c.rec[1].event), "configd.commit");

	assert_int_equal(smf_trace_read_strings(path, collect_string, &nstr), 0);
	assert_int_equal(nstr, 2);
	smf_trace_close();
	assert_null(smf_trace_path());
	/* Off again: nothing more is written. */
	smf_trace(SMF_TRACE_TEST, 1, 0);
	assert_int_equal(smf_trace_intern("x"), 0);
	c.n = 0;
	assert_int_equal(smf_trace_read(path, collect, &c, NULL), 0);
	assert_int_equal(c.n, 3);
}

/* The FNV-1a 64 the recorder used before it shared hash.h, kept here as the oracle. */
static uint64_t flow_oracle(const char *fmri)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (const unsigned char *p = (const unsigned char *)fmri; p && *p; p++) {
		h ^= *p;
		h *= 0x100000001b3ull;
	}
	return h ? h : 1;
}

/*
 * Flow ids are stored in files and compared across tools and versions: smf_trace_flow() must
 * give the values it always gave, including the 0 -> 1 rule and NULL.
 */
static void test_flow(void **state)
{
	static const char *const fmris[] = {"", "a", "svc:/site/a:default",
	        "svc:/system/filesystem/local:default", "svc:/site/a:default/:properties/restarter",
	        "\xff\x80 not UTF-8"};
	/* The 8 bytes of which FNV-1a 64 is 0. */
	static const char zero[] = "\xd5\x6b\xb9\x53\x42\x87\x08\x36";
	char buf[256];

	(void)state;
	assert_int_equal(smf_trace_flow("svc:/site/a:default"), 0x860533c12fde8b66ull);
	assert_int_equal(smf_trace_flow(""), 0xcbf29ce484222325ull);
	assert_int_equal(smf_trace_flow(NULL), 0xcbf29ce484222325ull);
	assert_int_equal(smf_hash_str(zero), 0);
	assert_int_equal(smf_trace_flow(zero), 1);
	for (size_t i = 0; i < ELEMENTSOF(fmris); i++) {
		assert_int_equal(smf_trace_flow(fmris[i]), flow_oracle(fmris[i]));
		assert_int_equal(smf_trace_flow(fmris[i]), smf_hash_str(fmris[i]));
	}
	for (unsigned i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "svc:/site/s%u:i%u", i % 97, i * 7919);
		assert_int_equal(smf_trace_flow(buf), flow_oracle(buf));
	}
}

static void *writer(void *arg)
{
	uint64_t t = (uintptr_t)arg;

	for (uint64_t i = 0; i < PER_THREAD; i++)
		smf_trace(SMF_TRACE_TEST, t << 32 | i, (uint32_t)t);
	return NULL;
}

typedef struct per_thread {
	uint64_t next[THREADS];
	uint32_t tid[THREADS];
	size_t bad;
} per_thread_t;

static int check_sequence(const smf_trace_record_t *rec, void *userdata)
{
	per_thread_t *p = userdata;
	uint64_t t = rec->flow >> 32, i = rec->flow & 0xffffffffu;

	if (rec->event != SMF_TRACE_TEST || t >= THREADS || rec->str_id != t || i != p->next[t] ||
	        (p->tid[t] && p->tid[t] != rec->tid)) {
		p->bad++;
		return 0;
	}
	p->tid[t] = rec->tid;
	p->next[t]++;
	return 0;
}

/* Every event of 8 concurrent writers is read back once, in each writer's order. */
static void test_threads(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *path = trace_file_of(root, getpid());
	pthread_t th[THREADS];
	per_thread_t p = {};
	smf_trace_file_info_t info;

	assert_int_equal(smf_trace_open(root, "test-trace"), 0);
	for (uintptr_t t = 0; t < THREADS; t++)
		assert_int_equal(pthread_create(&th[t], NULL, writer, (void *)t), 0);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);

	assert_int_equal(smf_trace_read(path, check_sequence, &p, &info), 0);
	assert_int_equal(p.bad, 0);
	for (int t = 0; t < THREADS; t++)
		assert_int_equal(p.next[t], PER_THREAD);
	assert_int_equal(info.drops, 0);
	/* Whole pages per thread: at most one partly filled page each. */
	assert_true(info.pages_used <= THREADS * (PER_THREAD / EVENTS_PER_PAGE + 1));
	smf_trace_close();
}

typedef struct killed {
	pid_t pid;
	uint64_t n;
	size_t bad;
} killed_t;

static int check_killed(const smf_trace_record_t *rec, void *userdata)
{
	killed_t *k = userdata;

	if (rec->event != SMF_TRACE_TEST || rec->flow != k->n || (pid_t)rec->pid != k->pid ||
	        rec->ns == 0 || rec->str == NULL || strcmp(rec->str, "svc:/killed:default") != 0)
		k->bad++;
	k->n++;
	return 0;
}

_noreturn_ static void killed_child(const char *root, int fd, uint64_t n)
{
	uint32_t s;

	alarm(20); /* never outlive a failed parent */
	if (smf_trace_open_sized(root, "test-trace", 16 * 1024 * 1024) < 0)
		_exit(1);
	s = smf_trace_intern("svc:/killed:default");
	for (uint64_t i = 0;; i++) {
		smf_trace(SMF_TRACE_TEST, i, s);
		if (i + 1 == n && write(fd, "x", 1) != 1)
			_exit(1);
	}
}

/* A process killed with SIGKILL while writing leaves every event it finished, none torn. */
static void test_sigkill(void **state)
{
	const char *root = *state;
	const uint64_t n = 50000;
	killed_t k = {};
	smf_trace_file_info_t info;
	_cleanup_free_ char *path = NULL;
	int pfd[2], status;
	char c;

	assert_int_equal(pipe(pfd), 0);
	k.pid = fork();
	assert_true(k.pid >= 0);
	if (k.pid == 0) {
		close(pfd[0]);
		killed_child(root, pfd[1], n);
	}
	close(pfd[1]);
	assert_int_equal(read(pfd[0], &c, 1), 1);
	/* Its prefaulter runs (it filled pages): the kill catches pages faulted in ahead too. */
	assert_int_equal(task_count(k.pid), 2);
	assert_int_equal(kill(k.pid, SIGKILL), 0);
	assert_int_equal(waitpid(k.pid, &status, 0), k.pid);
	close(pfd[0]);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);

	path = trace_file_of(root, k.pid);
	assert_int_equal(smf_trace_read(path, check_killed, &k, &info), 0);
	assert_int_equal(k.bad, 0);
	assert_true(k.n >= n);
	assert_int_equal(info.pid, k.pid);
}

typedef struct forked {
	pid_t child;
	size_t parent_events, child_events, bad;
	uint32_t parent_page, child_page;
} forked_t;

static int check_forked(const smf_trace_record_t *rec, void *userdata)
{
	forked_t *f = userdata;

	if ((pid_t)rec->pid == getpid()) {
		f->parent_events++;
		f->parent_page = rec->page;
	} else if ((pid_t)rec->pid == f->child && rec->flow == f->child_events && rec->str &&
	        streq(rec->str, "svc:/child:default")) {
		f->child_events++;
		f->child_page = rec->page;
	} else
		f->bad++;
	return 0;
}

/*
 * A forked child keeps tracing into the parent's file, on pages of its own, under its pid.  The
 * parent's prefaulter does not come along: a child that fills a page starts its own, and the
 * parent's goes on serving the parent.
 */
static void test_fork(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *path = trace_file_of(root, getpid());
	const uint64_t n = 2 * EVENTS_PER_PAGE + 1; /* fills pages: starts a prefaulter */
	forked_t f = {};
	int status;

	assert_int_equal(smf_trace_open(root, "test-trace"), 0);
	for (uint64_t i = 0; i < n; i++)
		smf_trace(SMF_TRACE_TEST, 0, 0);
	assert_int_equal(task_count(getpid()), 2);
	f.child = fork();
	assert_true(f.child >= 0);
	if (f.child == 0) {
		uint32_t s = smf_trace_intern("svc:/child:default");
		int before = task_count(getpid());

		for (uint64_t i = 0; i < n; i++)
			smf_trace(SMF_TRACE_TEST, i, s);
		_exit(s == 0 ? 1 : before != 1 ? 2 : task_count(getpid()) != 2 ? 3 : 0);
	}
	assert_int_equal(waitpid(f.child, &status, 0), f.child);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	smf_trace(SMF_TRACE_TEST, 1, 0);

	assert_int_equal(smf_trace_read(path, check_forked, &f, NULL), 0);
	assert_int_equal(f.bad, 0);
	assert_int_equal(f.parent_events, n + 1);
	assert_int_equal(f.child_events, n);
	assert_true(f.parent_page != f.child_page);
	smf_trace_close();
	assert_int_equal(task_count(getpid()), 1);
}

/* Without SMF_TRACE=1 nothing is opened or written; with it, the file exists. */
static void test_off_by_default(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *dir = NULL, *path = trace_file_of(root, getpid());
	struct stat st;

	assert_true(asprintf(&dir, "%s/var/svc/trace", root) > 0);
	assert_int_equal(unsetenv("SMF_TRACE"), 0);
	assert_int_equal(smf_trace_open_env(root, "test-trace"), 0);
	assert_false(smf_trace_enabled());
	smf_trace(SMF_TRACE_TEST, 1, 0);
	assert_int_equal(smf_trace_intern("svc:/a:default"), 0);
	assert_int_equal(stat(dir, &st), -1);
	assert_int_equal(errno, ENOENT);

	assert_int_equal(setenv("SMF_TRACE", "0", 1), 0);
	assert_int_equal(smf_trace_open_env(root, "test-trace"), 0);
	assert_int_equal(stat(dir, &st), -1);

	assert_int_equal(setenv("SMF_TRACE", "1", 1), 0);
	assert_int_equal(setenv("SMF_TRACE_SIZE", "1048576", 1), 0);
	assert_int_equal(smf_trace_open_env(root, "test-trace"), 1);
	assert_true(smf_trace_enabled());
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 1048576);
	smf_trace_close();
	assert_false(smf_trace_enabled());
	unsetenv("SMF_TRACE");
	unsetenv("SMF_TRACE_SIZE");
}

static int count(const smf_trace_record_t *rec, void *userdata)
{
	(*(size_t *)userdata)++;
	return 0;
}

/* Two event pages: the third page's worth of events is dropped and counted. */
static void test_drops(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *path = trace_file_of(root, getpid());
	smf_trace_file_info_t info;
	size_t n = 0;

	assert_int_equal(smf_trace_open_sized(root, "test-trace", 4096 + 65536), -EINVAL);
	assert_int_equal(smf_trace_open_sized(root, "test-trace", 4096 + 65536 + 2 * 65536), 0);
	for (int i = 0; i < 3 * EVENTS_PER_PAGE; i++)
		smf_trace(SMF_TRACE_TEST, (uint64_t)i, 0);
	assert_int_equal(smf_trace_read(path, count, &n, &info), 0);
	assert_int_equal(info.npages, 2);
	assert_int_equal(info.pages_used, 2);
	assert_int_equal(n, 2 * EVENTS_PER_PAGE);
	assert_int_equal(info.drops, EVENTS_PER_PAGE);
	smf_trace_close();
}

#define CLOCK_EVENTS 4000

typedef struct clock_check {
	uint64_t after[CLOCK_EVENTS];
	size_t n, bad;
} clock_check_t;

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Event i happened after reading i-1 and before reading i (1 us of slack for the TSC). */
static int check_clock(const smf_trace_record_t *rec, void *userdata)
{
	clock_check_t *c = userdata;
	uint64_t lo = c->n ? c->after[c->n - 1] : 0;

	if (c->n >= CLOCK_EVENTS || rec->ns + 1000 < lo || rec->ns > c->after[c->n] + 1000)
		c->bad++;
	c->n++;
	return 0;
}

static void clock_run(const char *root, const char *tsc_env)
{
	/* Static: a failed assertion longjmps out, and a heap copy would then leak. */
	static clock_check_t c;
	_cleanup_free_ char *path = NULL;
	uint64_t t0;

	memset(&c, 0, sizeof(c));
	if (tsc_env)
		assert_int_equal(setenv("SMF_TRACE_TSC", tsc_env, 1), 0);
	assert_int_equal(smf_trace_open(root, "test-trace"), 0);
	unsetenv("SMF_TRACE_TSC");
	/* The second run's file is <prog>.<pid>.1.trace: the first one is never overwritten. */
	path = strdup(smf_trace_path());
	assert_non_null(path);
	/*
	 * The recorder uses the TSC only once its base anchor is 10 ms old; time must pass for
	 * that, so spin 12 ms first.
	 */
	t0 = mono_ns();
	while (mono_ns() - t0 < 12000000)
		;
	/* ~2 ms, past several re-anchors of the TSC clock. */
	t0 = mono_ns();
	for (size_t i = 0; i < CLOCK_EVENTS; i++) {
		smf_trace(SMF_TRACE_TEST, i, 0);
		c.after[i] = mono_ns();
		while (i % 100 == 99 && mono_ns() - c.after[i] < 50000)
			;
	}
	assert_true(mono_ns() - t0 >= 2000000);
	assert_int_equal(smf_trace_read(path, check_clock, &c, NULL), 0);
	assert_int_equal(c.n, CLOCK_EVENTS);
	assert_int_equal(c.bad, 0);
	smf_trace_close();
}

/* SMF_TRACE_DIR moves the file out of the root; the events are the same. */
static void test_trace_dir(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *dir = NULL, *path = NULL, *in_root = trace_file_of(root, getpid());
	struct stat st;
	size_t n = 0;

	assert_true(asprintf(&dir, "%s/elsewhere/deeper", root) > 0);
	assert_true(asprintf(&path, "%s/test-trace.%u.trace", dir, (unsigned)getpid()) > 0);
	assert_int_equal(setenv("SMF_TRACE", "1", 1), 0);
	assert_int_equal(setenv("SMF_TRACE_DIR", dir, 1), 0);
	assert_int_equal(setenv("SMF_TRACE_SIZE", "1048576", 1), 0);
	assert_int_equal(smf_trace_open_env(root, "test-trace"), 1);
	unsetenv("SMF_TRACE");
	unsetenv("SMF_TRACE_DIR");
	unsetenv("SMF_TRACE_SIZE");
	assert_string_equal(smf_trace_path(), path);
	smf_trace(SMF_TRACE_TEST, 7, 0);
	smf_trace_close();
	assert_int_equal(stat(in_root, &st), -1);
	assert_int_equal(smf_trace_read(path, count, &n, NULL), 0);
	assert_int_equal(n, 1);
}

/* A second file of the same process gets its own name; the first keeps its events. */
static void test_reopen(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *first = trace_file_of(root, getpid()), *second = NULL;
	size_t n1 = 0, n2 = 0;

	assert_int_equal(smf_trace_open(root, "test-trace"), 0);
	smf_trace(SMF_TRACE_TEST, 1, 0);
	smf_trace(SMF_TRACE_TEST, 2, 0);
	smf_trace_close();
	assert_int_equal(smf_trace_open(root, "test-trace"), 0);
	assert_true(asprintf(&second, "%s/var/svc/trace/test-trace.%u.1.trace", root,
	                    (unsigned)getpid()) > 0);
	assert_string_equal(smf_trace_path(), second);
	smf_trace(SMF_TRACE_TEST, 3, 0);
	smf_trace_close();
	assert_int_equal(smf_trace_read(first, count, &n1, NULL), 0);
	assert_int_equal(smf_trace_read(second, count, &n2, NULL), 0);
	assert_int_equal(n1, 2);
	assert_int_equal(n2, 1);
}

/* A full string table refuses strings (id 0) and counts each refusal; events still go in. */
static void test_string_drops(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *path = trace_file_of(root, getpid());
	smf_trace_file_info_t info;
	char s[1024];
	size_t kept = 0, refused = 0, n = 0;

	/* The smallest file: a 64 KiB string table, room for ~63 strings of 1 KiB. */
	assert_int_equal(smf_trace_open_sized(root, "test-trace", 4096 + 65536 + 65536), 0);
	for (int i = 0; i < 100; i++) {
		uint32_t id;

		memset(s, 'a' + i % 26, sizeof(s) - 8);
		snprintf(s + sizeof(s) - 8, 8, "%05d", i);
		id = smf_trace_intern(s);
		kept += id != 0;
		refused += id == 0;
		smf_trace(SMF_TRACE_TEST, (uint64_t)i, id);
	}
	/* A kept string is still found (by this thread's cache, then by the table). */
	memset(s, 'a', sizeof(s) - 8);
	snprintf(s + sizeof(s) - 8, 8, "%05d", 0);
	assert_true(smf_trace_intern(s) != 0);
	/* A refused string is not remembered as interned: asked again, it is refused again. */
	memset(s, 'a' + 99 % 26, sizeof(s) - 8);
	snprintf(s + sizeof(s) - 8, 8, "%05d", 99);
	assert_int_equal(smf_trace_intern(s), 0);
	smf_trace_close();
	assert_true(kept > 50 && refused > 0);
	assert_int_equal(smf_trace_read(path, count, &n, &info), 0);
	assert_int_equal(n, 100);
	assert_int_equal(info.drops, 0);
	assert_int_equal(info.str_drops, refused + 1);
}

/* Threads interning the same strings get the same ids, from their caches or the table. */
static void *intern_many(void *arg)
{
	uint32_t *ids = arg;
	char s[64];

	for (int round = 0; round < 3; round++)
		for (int i = 0; i < 200; i++) {
			uint32_t id;

			snprintf(s, sizeof(s), "svc:/site/s%d:default", i);
			id = smf_trace_intern(s);
			if (round == 0)
				ids[i] = id;
			else if (ids[i] != id)
				ids[i] = 0;
		}
	return NULL;
}

static void test_intern_threads(void **state)
{
	static uint32_t ids[4][200];
	pthread_t th[4];

	assert_int_equal(smf_trace_open(*state, "test-trace"), 0);
	for (int t = 0; t < 4; t++)
		assert_int_equal(pthread_create(&th[t], NULL, intern_many, ids[t]), 0);
	for (int t = 0; t < 4; t++)
		assert_int_equal(pthread_join(th[t], NULL), 0);
	smf_trace_close();
	for (int i = 0; i < 200; i++)
		for (int t = 0; t < 4; t++) {
			assert_true(ids[t][i] != 0);
			assert_int_equal(ids[t][i], ids[0][i]);
		}
}

/* Event times are CLOCK_MONOTONIC, with the TSC clock and with clock_gettime(). */
static void test_clock(void **state)
{
	clock_run(*state, NULL);
	clock_run(*state, "0");
}

/* Both arguments come back whole, and the header says who the process was. */
static void test_args(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *path = trace_file_of(root, getpid());
	smf_trace_file_info_t info;
	collected_t c = {};

	assert_int_equal(smf_trace_open(root, "test-trace"), 0);
	smf_trace_args(SMF_TRACE_CONFIGD_COMMIT, 5, 0, UINT64_MAX, 0x0123456789abcdefull);
	smf_trace_str_args(SMF_TRACE_SCF_READ, 6, "svc:/a:b/:properties/restarter",
	        SMF_TRACE_READ_ARG0(42, SMF_TRACE_READ_COMPOSED), 77);
	smf_trace(SMF_TRACE_TEST, 7, 0);
	assert_int_equal(smf_trace_read(path, collect, &c, &info), 0);
	assert_int_equal(c.n, 3);
	assert_true(c.rec[0].arg0 == UINT64_MAX && c.rec[0].arg1 == 0x0123456789abcdefull);
	assert_int_equal(SMF_TRACE_READ_GENERATION(c.rec[1].arg0), 42);
	assert_int_equal(SMF_TRACE_READ_HOW(c.rec[1].arg0), SMF_TRACE_READ_COMPOSED);
	assert_int_equal(c.rec[1].arg1, 77);
	assert_string_equal(c.str[1], "svc:/a:b/:properties/restarter");
	assert_true(c.rec[2].arg0 == 0 && c.rec[2].arg1 == 0);
	assert_int_equal(c.rec[2].pid, getpid());
	assert_int_equal(info.ppid, getppid());
	assert_int_equal(info.sid, getsid(0));
	assert_int_equal(info.pgid, getpgrp());
	assert_int_equal(smf_trace_instance_flow("svc:/a:b"), smf_trace_flow("svc:/a:b"));
	assert_int_equal(smf_trace_instance_flow("svc:/a"), 0);
	assert_int_equal(smf_trace_instance_flow(NULL), 0);
}

typedef struct command_events {
	int starts, exits;
	uint64_t status;
	char line[64];
} command_events_t;

static int collect_command(const smf_trace_record_t *rec, void *userdata)
{
	command_events_t *e = userdata;

	if (rec->event == SMF_TRACE_PROC_START) {
		e->starts++;
		snprintf(e->line, sizeof(e->line), "%s", rec->str ? rec->str : "");
	} else if (rec->event == SMF_TRACE_PROC_EXIT) {
		e->exits++;
		e->status = rec->arg0;
	}
	return 0;
}

/* A command records its start and, at exit(), its exit status; a killed one has no exit. */
static void test_command(void **state)
{
	const char *root = *state;

	for (int kill_it = 0; kill_it < 2; kill_it++) {
		_cleanup_free_ char *path = NULL;
		command_events_t e = {};
		int status, ready[2];
		char ch;
		pid_t pid;

		assert_int_equal(pipe(ready), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			close(ready[0]);
			setenv("SMF_TRACE", "1", 1);
			if (smf_trace_open_command(root, "test-trace") != 1)
				_exit(99);
			if (write(ready[1], "k", 1) != 1)
				_exit(98);
			if (kill_it)
				pause();
			exit(7);
		}
		close(ready[1]);
		assert_int_equal(read(ready[0], &ch, 1), 1);
		close(ready[0]);
		if (kill_it)
			assert_int_equal(kill(pid, SIGKILL), 0);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(kill_it ? WIFSIGNALED(status)
		                    : WIFEXITED(status) && WEXITSTATUS(status) == 7);
		path = trace_file_of(root, pid);
		assert_int_equal(smf_trace_read(path, collect_command, &e, NULL), 0);
		assert_int_equal(e.starts, 1);
		/* The command line, from /proc/self/cmdline: this test program's. */
		assert_non_null(strstr(e.line, "test-trace"));
		assert_int_equal(e.exits, kill_it ? 0 : 1);
		if (!kill_it)
			assert_int_equal(e.status, 7);
	}
}

/* A trace of another format version (1: no arguments) is refused as such, not misread. */
static void test_old_version(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *path = trace_file_of(root, getpid());
	uint32_t v = 1;
	FILE *f;

	assert_int_equal(smf_trace_open(root, "test-trace"), 0);
	smf_trace(SMF_TRACE_TEST, 1, 0);
	smf_trace_close();
	f = fopen(path, "r+");
	assert_non_null(f);
	assert_int_equal(fseek(f, 8, SEEK_SET), 0); /* the version word */
	assert_int_equal(fwrite(&v, sizeof(v), 1, f), 1);
	fclose(f);
	assert_int_equal(smf_trace_read(path, count, NULL, NULL), -EPROTONOSUPPORT);
}

/* Not a trace: refused, not walked. */
static void test_not_a_trace(void **state)
{
	_cleanup_free_ char *path = NULL;
	char zero[8192] = {};
	FILE *f;

	assert_true(asprintf(&path, "%s/junk", (const char *)*state) > 0);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(zero, 1, sizeof(zero), f), sizeof(zero));
	fclose(f);
	assert_int_equal(smf_trace_read(path, count, NULL, NULL), -EBADMSG);
	assert_int_equal(smf_trace_read("/nonexistent/x.trace", count, NULL, NULL), -ENOENT);
}

/* Field 41 of /proc/self/task/<tid>/stat (the scheduling policy). */
static int task_policy(pid_t tid)
{
	char path[64], buf[1024], *p;
	int field = 3, policy = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	f = fopen(path, "re");
	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	p = strrchr(buf, ')'); /* after the command name, which may hold blanks */
	assert_non_null(p);
	for (p = strtok(p + 2, " "); p && field <= 41; p = strtok(NULL, " "), field++)
		if (field == 41)
			policy = atoi(p);
	return policy;
}

/* The blocked-signal mask of a thread (SigBlk in its status). */
static uint64_t task_sigblk(pid_t tid)
{
	char path[64], line[256];
	uint64_t mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	f = fopen(path, "re");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, "SigBlk:", 7) == 0)
			mask = strtoull(line + 7, NULL, 16);
	fclose(f);
	return mask;
}

/* Where the recorder mapped the file at path (its line in /proc/self/maps). */
static uint8_t *recorder_map(const char *path)
{
	char line[4096];
	uint8_t *start = NULL;
	unsigned long long lo, off;
	size_t len = strlen(path);
	FILE *f = fopen("/proc/self/maps", "re");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		if (n > len && line[n - 1] == '\n' && strncmp(line + n - 1 - len, path, len) == 0 &&
		        sscanf(line, "%llx-%*x %*s %llx", &lo, &off) == 2 && off == 0)
			start = (uint8_t *)(uintptr_t)lo;
	}
	fclose(f);
	assert_non_null(start);
	return start;
}

/* Is the page at addr mapped in this process (present in its page table: /proc/self/pagemap)? */
static bool page_mapped(const void *addr)
{
	uint64_t entry = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &entry, sizeof(entry), (off_t)((uintptr_t)addr / 4096 * 8)),
	        sizeof(entry));
	close(fd);
	return entry >> 63;
}

/* Polls (deadline 30 s: the helper only has idle CPU time) until it leads by want pages. */
static bool lead_reaches(uint32_t want)
{
	uint64_t deadline = deadline_after_usec(30 * USEC_PER_SEC);
	const struct timespec tick = {.tv_nsec = 1000000};

	while (smf_trace_pages_ready() < want) {
		if (deadline_left_usec(deadline) == 0)
			return false;
		(void)nanosleep(&tick, NULL);
	}
	return true;
}

/*
 * The prefaulter: none until a thread fills a page; then one helper thread, at idle priority
 * with every signal blocked, faults in as many pages after the next claim as the process has
 * used, 64 at most (they are in the page cache), without counting them as used; the events
 * recorded into them are all read back; close stops it.
 */
static void test_prefault(void **state)
{
	const char *root = *state;
	_cleanup_free_ char *path = trace_file_of(root, getpid());
	const uint64_t sig = 1ull << (SIGTERM - 1) | 1ull << (SIGCHLD - 1) | 1ull << (SIGINT - 1) |
	        1ull << (SIGHUP - 1) | 1ull << (SIGUSR1 - 1) | 1ull << (SIGALRM - 1);
	smf_trace_file_info_t info;
	uint64_t pages_offset, events = 0;
	size_t seen = 0;
	pid_t helper;
	uint8_t *map;
	int fd;

	assert_int_equal(task_count(getpid()), 1);
	assert_int_equal(smf_trace_open(root, "test-trace"), 0);
	for (; events < EVENTS_PER_PAGE; events++)
		smf_trace(SMF_TRACE_TEST, events, 0);
	/* One page used, none filled: a short-lived command never starts a helper. */
	assert_int_equal(task_count(getpid()), 1);
	assert_int_equal(smf_trace_pages_ready(), 0);

	for (; events < 3 * EVENTS_PER_PAGE + 1; events++) /* pages 0-3 */
		smf_trace(SMF_TRACE_TEST, events, 0);
	assert_int_equal(task_count(getpid()), 2);
	helper = other_task();
	assert_true(helper > 0);
	assert_int_equal(task_sigblk(helper) & sig, sig);

	/* Four pages used: pages 4-7 faulted in (mapped in this process), no further. */
	assert_true(lead_reaches(4));
	assert_int_equal(smf_trace_pages_ready(), 4);
	assert_int_equal(task_policy(helper), SCHED_IDLE); /* set first thing, before any page */
	fd = open(path, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &pages_offset, sizeof(pages_offset), 56), sizeof(pages_offset));
	close(fd);
	map = recorder_map(path);
	for (unsigned i = 4; i < 8; i++)
		for (unsigned k = 0; k < 16; k++)
			assert_true(page_mapped(map + pages_offset + i * 65536 + k * 4096));
	assert_false(page_mapped(map + pages_offset + 8 * 65536));
	assert_int_equal(smf_trace_read(path, NULL, NULL, &info), 0);
	assert_int_equal(info.pages_used, 4);

	/* 100 pages used: the lead is the most it may be, 64 pages. */
	for (; events < 100 * EVENTS_PER_PAGE; events++)
		smf_trace(SMF_TRACE_TEST, events, 0);
	assert_true(lead_reaches(SMF_TRACE_PREFAULT_PAGES));
	assert_int_equal(smf_trace_pages_ready(), SMF_TRACE_PREFAULT_PAGES);

	assert_int_equal(smf_trace_read(path, count, &seen, &info), 0);
	assert_int_equal(seen, events);
	assert_int_equal(info.pages_used, 100);
	assert_int_equal(info.drops, 0);
	smf_trace_close();
	assert_int_equal(task_count(getpid()), 1);
	assert_int_equal(smf_trace_pages_ready(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	        cmocka_unit_test(test_flow),
	        cmocka_unit_test_setup_teardown(test_round_trip, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_threads, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_sigkill, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_fork, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_prefault, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_off_by_default, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_trace_dir, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_reopen, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_string_drops, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_intern_threads, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_clock, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_drops, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_not_a_trace, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_args, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_command, setup_root, teardown_root),
	        cmocka_unit_test_setup_teardown(test_old_version, setup_root, teardown_root),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
