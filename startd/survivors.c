/*
 * survivors.c: finding the processes a previous svc.startd of this root left running.
 *
 * THEORY
 *
 * A startd that dies (kill -9, a crash) leaves its services running: their processes are
 * reparented to init (or another subreaper) and keep their process groups and cgroup leaves.
 * Normally the restarter pg tells the next startd which group each instance owns, and the
 * instance's machine adopts it when it inserts the instance (fsm.c, on_record()).  That pg is non-persistent: when the volatile repository
 * starts afresh while the processes run on, the record is gone, and a startd that trusted the
 * repository alone would start every service a second time.  So startd looks for its
 * predecessor's processes itself, once, before it spawns anything (EMI included): every
 * process it finds then belongs to an earlier run.  A process is attributed to an instance
 *
 *   1. by its cgroup v2 leaf, where startd has cgroups (cgroup_fmri_of()): the start method of
 *      a contract or wait service enters <root's directory>/<fmri> before it execs, the leaves
 *      are writable by startd's user alone, and an unprivileged process cannot leave one; or
 *   2. by its environment (/proc/PID/environ, as the process was exec'd): startd gives every
 *      method SMF_ROOT=<root>, SMF_FMRI=<instance>, SMF_METHOD=<method> and SMF_RESTARTER,
 *      and children inherit them.  Anybody can forge an environment, so such a group counts
 *      only when one of its processes runs with startd's own real uid, or with the uid the
 *      instance's start method names (checked where the group is used, in the worker): a
 *      forged group can then only be its owner's own service.
 *
 * Processes are gathered into their process groups (the unit startd tracks as a contract):
 * for each group, the instance, whether a start method made it, whether its leader (the
 * method's own process, pid == pgid) still runs, and whether it is a session of its own
 * (setsid(): an escapee, never a contract).  What the worker does with them when it inserts
 * the instance is the machine's to decide (fsm.c, on_survivor()) and act.c's to do; groups of
 * instances that will never be inserted (deleted, or without a general pg) are stopped here,
 * at once.
 *
 * Invariants: the scan runs on the main thread before any worker exists; afterwards the table
 * is only read under table_lock, and each instance's entry is taken exactly once.
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgroup.h"
#include "hashmap.h"
#include "lock.h"
#include "log.h"
#include "macro.h"
#include "proc.h"
#include "strv.h"
#include "survivors.h"

#define ENVIRON_MAX (1024 * 1024) /* an environment larger than this is not read to its end */

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static hashmap_t *table; /* fmri -> survivors_t */

survivors_t *survivors_free(survivors_t *s)
{
	if (s) {
		free(s->groups);
		free(s);
	}
	return NULL;
}

/* /proc/PID/environ, NUL-separated, NUL-terminated; its length in *len, or NULL. */
static char *read_environ(pid_t pid, size_t *len)
{
	_cleanup_free_ char *buf = NULL;
	_cleanup_close_ int fd = -1;
	char path[64];
	size_t cap = 0, n = 0;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r;

		if (GREEDY_REALLOC(buf, cap, n + 4096 + 1) < 0)
			return NULL;
		r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return NULL;
		n += (size_t)r;
		if (r == 0 || n >= ENVIRON_MAX)
			break;
	}
	buf[n] = 0;
	*len = n;
	return TAKE_PTR(buf);
}

/* The value of NAME ("NAME=") in an environment block, or NULL. */
static const char *env_get(const char *env, size_t len, const char *name)
{
	size_t k = strlen(name);

	for (const char *p = env; p < env + len; p += strlen(p) + 1)
		if (strneq(p, name, k))
			return p + k;
	return NULL;
}

/* The instance a method of this root's restarter gave pid (malloc'd), or NULL. */
static char *fmri_by_environ(pid_t pid, const char *root, bool *start)
{
	_cleanup_free_ char *env = NULL;
	const char *r, *f, *who, *method;
	size_t len = 0;

	env = read_environ(pid, &len);
	if (!env)
		return NULL;
	r = env_get(env, len, "SMF_ROOT=");
	f = env_get(env, len, "SMF_FMRI=");
	who = env_get(env, len, "SMF_RESTARTER=");
	method = env_get(env, len, "SMF_METHOD=");
	if (!r || !f || !*f || !who || !streq(r, root) || !streq(who, SCF_SERVICE_STARTD))
		return NULL;
	*start = method && streq(method, "start");
	return strdup(f);
}

/* The real uid of pid (from /proc/PID/status: the directory's owner may be root for any). */
static int read_ruid(pid_t pid, uid_t *uid)
{
	char path[64], line[256];
	_cleanup_(fclosep) FILE *f = NULL;
	unsigned u;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u", &u) == 1) {
			*uid = (uid_t)u;
			return 0;
		}
	return -ESRCH;
}

/* Records pid (of group st->pgid) for fmri; called with table_lock held. */
static int add_locked(
        const char *fmri, pid_t pid, const proc_stat_t *st, uid_t uid, bool start, bool in_cgroup)
{
	survivors_t *s = hashmap_get(table, fmri);
	survivor_t *g = NULL;

	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s || hashmap_put(table, fmri, s) < 0) {
			free(s);
			return -ENOMEM;
		}
	}
	for (size_t k = 0; k < s->n && !g; k++)
		if (s->groups[k].pgid == st->pgid)
			g = &s->groups[k];
	if (!g) {
		survivor_t *v = reallocarray(s->groups, s->n + 1, sizeof(*v));

		if (!v)
			return -ENOMEM;
		s->groups = v;
		g = &v[s->n++];
		*g = (survivor_t){.pgid = st->pgid, .sid = st->sid, .uid = uid};
	}
	/* A forged process must not vouch for the group: the uid of one of startd's own wins. */
	if (uid == geteuid())
		g->uid = uid;
	g->from_start |= start;
	g->in_cgroup |= in_cgroup;
	g->leader |= pid == st->pgid;
	return 0;
}

void survivors_stop(const char *fmri, const survivor_t *g)
{
	if (!proc_group_alive_live(g->pgid))
		return;
	log_info("%s: stopping process group %d left by a previous svc.startd", fmri, (int)g->pgid);
	if (proc_group_kill(g->pgid, SIGTERM, STOP_GRACE_USEC) < 0)
		log_warning("%s: processes of group %d survive SIGKILL", fmri, (int)g->pgid);
}

/* Instances that will never be inserted (no general pg, or gone) get no worker to decide. */
static void stop_uninsertable(startd_t *m)
{
	_cleanup_strv_free_ char **fmris = strv_new_empty();
	const char *key;
	size_t st = 0;

	lock_take(&table_lock, LOCK_LEAF);
	while (fmris && hashmap_next(table, &st, &key))
		if (strv_extend(&fmris, key) < 0)
			break;
	lock_drop(&table_lock, LOCK_LEAF);
	STRV_FOREACH (f, fmris) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
		_cleanup_(survivors_freep) survivors_t *s = NULL;

		if (scf_pg_get(m->main_h, *f, SCF_PG_GENERAL, NULL, 0, &pg) != -SCF_ERROR_NOT_FOUND)
			continue;
		s = survivors_take(*f);
		for (size_t k = 0; s && k < s->n; k++)
			if (s->groups[k].in_cgroup || s->groups[k].uid == geteuid())
				survivors_stop(*f, &s->groups[k]);
	}
}

void survivors_scan(startd_t *m)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	size_t n_groups = 0, st = 0;
	survivors_t *s;

	lock_take(&table_lock, LOCK_LEAF);
	assert(!table);
	table = hashmap_new();
	while (table && d && (de = readdir(d))) {
		_cleanup_free_ char *fmri = NULL;
		bool start = false, in_cgroup = false;
		pid_t pid = atoi(de->d_name);
		proc_stat_t ps;
		uid_t uid;

		if (pid <= 1 || pid == getpid() || proc_stat_read(pid, &ps) < 0 ||
		        ps.state == 'Z' || ps.state == 'X')
			continue;
		if ((fmri = cgroup_fmri_of(pid)))
			start = in_cgroup = true;
		else if (!(fmri = fmri_by_environ(pid, m->root, &start)))
			continue;
		if (read_ruid(pid, &uid) < 0)
			continue;
		if (add_locked(fmri, pid, &ps, uid, start, in_cgroup) < 0) {
			log_warning("out of memory while looking for running services");
			break;
		}
	}
	while (table && (s = hashmap_next(table, &st, NULL)))
		n_groups += s->n;
	if (n_groups > 0)
		log_info("found %zu process groups of %zu instances left by a previous svc.startd",
		        n_groups, hashmap_size(table));
	lock_drop(&table_lock, LOCK_LEAF);
	if (d)
		closedir(d);
	if (table)
		stop_uninsertable(m);
}

survivors_t *survivors_take(const char *fmri)
{
	survivors_t *s;

	lock_take(&table_lock, LOCK_LEAF);
	s = table ? hashmap_remove(table, fmri) : NULL;
	lock_drop(&table_lock, LOCK_LEAF);
	return s;
}

bool survivors_pending(const char *fmri)
{
	bool found;

	lock_take(&table_lock, LOCK_LEAF);
	found = table && hashmap_get(table, fmri);
	lock_drop(&table_lock, LOCK_LEAF);
	return found;
}

void survivors_done(void)
{
	survivors_t *s;
	size_t st = 0;

	lock_take(&table_lock, LOCK_LEAF);
	while (table && (s = hashmap_next(table, &st, NULL)))
		survivors_free(s);
	table = hashmap_free(table);
	lock_drop(&table_lock, LOCK_LEAF);
}
