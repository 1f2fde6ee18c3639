/*
 * proc.c: spawning, reaping, process groups as contracts (see proc.h).
 *
 * One mutex, tracked_lock, guards the processes startd tracks: the children being waited for
 * and the contracts; one condition variable is broadcast on every reap (and on every tick),
 * which is what method waits and group-empty waits sleep on.  It is taken before the
 * restarter queue's lock (check_contracts_locked() queues RE_CONTRACT_EMPTY under it: main.c,
 * "Lock ordering").  A child is registered under that mutex in the same critical
 * section as posix_spawn(), and the reaper takes the mutex before it reaps, so an exit can
 * never come before its waiter exists.  The reaper reads the process group of a dead child
 * with waitid(WNOWAIT) + getpgid() while it is still a zombie, reaps it, and only then asks
 * whether its group is empty.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "lock.h"
#include "log.h"
#include "macro.h"
#include "proc.h"
#include "thread.h"
#include "timeutil.h"

#define REAPER_TICK_USEC (100 * USEC_PER_MSEC)
#define GROUP_EMPTY_DEADLINE_USEC (10 * USEC_PER_SEC)

typedef struct child {
	struct child *next;
	pid_t pid;
	bool done;
	int status;
} child_t;

typedef struct contract {
	struct contract *next;
	pid_t pgid;
	char *fmri;
	bool adopted;
} contract_t;

static pthread_mutex_t tracked_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t reaped;
static child_t *children;
static contract_t *contracts;
static volatile bool reaper_quit;
static bool waits_cancelled; /* under tracked_lock */
static startd_t *manager;

static void timespec_at(uint64_t usec, struct timespec *ts)
{
	ts->tv_sec = (time_t)(usec / USEC_PER_SEC);
	ts->tv_nsec = (long)((usec % USEC_PER_SEC) * NSEC_PER_USEC);
}

/* Sleeps on "reaped" until deadline or at most one tick; the lock is held. */
static void wait_reaped_locked(uint64_t deadline)
{
	uint64_t until = deadline_after_usec(REAPER_TICK_USEC);
	struct timespec ts;

	if (deadline < until)
		until = deadline;
	timespec_at(until, &ts);
	(void)pthread_cond_timedwait(&reaped, &tracked_lock, &ts);
}

bool proc_group_alive(pid_t pgid)
{
	if (pgid <= 1)
		return false;
	return kill(-pgid, 0) == 0 || errno == EPERM;
}

int proc_stat_read(pid_t pid, proc_stat_t *st)
{
	char path[64], buf[512], *p;
	int fd, ppid, pgid, sid;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return negative_errno();
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -ESRCH;
	buf[n] = 0;
	/* The command name may hold anything, ')' included: the fields follow the last ')'. */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %c %d %d %d", &st->state, &ppid, &pgid, &sid) != 4)
		return -EIO;
	st->ppid = ppid;
	st->pgid = pgid;
	st->sid = sid;
	return 0;
}

/* Does /proc show a member of the group that is not a zombie? */
static bool group_has_live_member(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	bool found = false;

	if (!d)
		return true; /* cannot tell: assume alive, never kill twice */
	while (!found && (de = readdir(d))) {
		proc_stat_t st;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		if (proc_stat_read(atoi(de->d_name), &st) == 0 && st.pgid == pgid &&
		        st.state != 'Z' && st.state != 'X')
			found = true;
	}
	closedir(d);
	return found;
}

bool proc_group_alive_live(pid_t pgid)
{
	return proc_group_alive(pgid) && group_has_live_member(pgid);
}

/* Called with the lock held: RE_CONTRACT_EMPTY for each contract whose group is gone. */
static void check_contracts_locked(bool adopted_too)
{
	for (contract_t **p = &contracts; *p;) {
		contract_t *c = *p;

		if (c->adopted ? !adopted_too || proc_group_alive_live(c->pgid)
		               : proc_group_alive(c->pgid)) {
			p = &c->next;
			continue;
		}
		*p = c->next;
		(void)restarter_enqueue(manager, RE_CONTRACT_EMPTY, c->fmri, c->pgid);
		free(c->fmri);
		free(c);
	}
}

static void record_exit_locked(pid_t pid, int status)
{
	for (child_t *c = children; c; c = c->next)
		if (c->pid == pid) {
			c->done = true;
			c->status = status;
			return;
		}
}

/* Reaps every dead child; true if any was reaped. */
static bool reap_all(void)
{
	bool any = false;

	for (;;) {
		siginfo_t si = {};
		int status;

		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 || si.si_pid == 0)
			return any;
		lock_take(&tracked_lock, LOCK_TRACKED);
		if (waitpid(si.si_pid, &status, 0) == si.si_pid)
			record_exit_locked(si.si_pid, status);
		check_contracts_locked(false);
		pthread_cond_broadcast(&reaped);
		lock_drop(&tracked_lock, LOCK_TRACKED);
		any = true;
	}
}

static void *reaper_main(void *userdata)
{
	sigset_t set;
	struct timespec tick = {.tv_nsec = (long)(REAPER_TICK_USEC * NSEC_PER_USEC)};

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	while (!reaper_quit) {
		(void)sigtimedwait(&set, NULL, &tick);
		(void)reap_all();
		/* The tick also serves adopted contracts and group waits on them. */
		lock_take(&tracked_lock, LOCK_TRACKED);
		check_contracts_locked(true);
		pthread_cond_broadcast(&reaped);
		lock_drop(&tracked_lock, LOCK_TRACKED);
	}
	return NULL;
}

int proc_start(startd_t *m)
{
	pthread_condattr_t ca;
	int r;

	manager = m;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&reaped, &ca);
	pthread_condattr_destroy(&ca);
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		return log_error_errno(negative_errno(), "cannot become a child subreaper");
	r = thread_start(&m->reaper_thread, "startd-reaper", reaper_main, m);
	if (r < 0)
		return log_error_errno(r, "cannot start the reaper thread");
	return 0;
}

void proc_stop(startd_t *m)
{
	reaper_quit = true;
	pthread_kill(m->reaper_thread, SIGCHLD);
	pthread_join(m->reaper_thread, NULL);
	lock_take(&tracked_lock, LOCK_TRACKED);
	while (children) {
		child_t *c = children;
		children = c->next;
		free(c);
	}
	while (contracts) {
		contract_t *c = contracts;
		contracts = c->next;
		free(c->fmri);
		free(c);
	}
	lock_drop(&tracked_lock, LOCK_TRACKED);
}

/* Async-signal-safe: writes "svc.startd: <what> (errno N)" to stderr (the method's log). */
static void child_complain(const char *what, int err)
{
	char num[16];
	size_t k = sizeof(num);

	num[--k] = 0;
	do
		num[--k] = (char)('0' + err % 10);
	while ((err /= 10) > 0 && k > 0);
	(void)!write(2, "svc.startd: ", 12);
	(void)!write(2, what, strlen(what));
	(void)!write(2, " (errno ", 8);
	(void)!write(2, num + k, strlen(num + k));
	(void)!write(2, ")\n", 2);
}

static void child_stdio(int log_fd)
{
	int fd = open("/dev/null", O_RDONLY);

	if (fd >= 0 && fd != 0) {
		dup2(fd, 0);
		close(fd);
	}
	if (log_fd < 0)
		log_fd = open("/dev/null", O_WRONLY);
	if (log_fd >= 0) {
		dup2(log_fd, 1);
		dup2(log_fd, 2);
	}
}

/* In the forked child: only async-signal-safe calls until execve(). */
/* The capabilities this kernel has (the others read as EINVAL). */
static uint64_t child_known_caps(void)
{
	uint64_t known = 0;

	for (int c = 0; c < 64; c++)
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) >= 0)
			known |= UINT64_C(1) << c;
	return known;
}

static int child_capget(struct __user_cap_data_struct d[2])
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};

	return (int)syscall(SYS_capget, &h, d);
}

/*
 * Before the identity changes: the bounding set cut to o->bound (what the method can ever
 * gain, by exec of a set-uid file included), and the capabilities kept across setuid().  A
 * startd without CAP_SETPCAP cannot cut the bounding set, but it has none of the capabilities
 * it would cut either: nothing to do then.
 */
static void child_bound_caps(const spawn_opts_t *o)
{
	struct __user_cap_data_struct d[2] = {};
	uint64_t known = child_known_caps(), have;

	if (child_capget(d) < 0) {
		child_complain("method_context: cannot read the capabilities", errno);
		_exit(96);
	}
	have = d[0].permitted | (uint64_t)d[1].permitted << 32;
	for (int c = 0; c < 64; c++) {
		uint64_t bit = UINT64_C(1) << c;

		if (!(known & bit) || (o->bound & bit))
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) < 0 && (errno != EPERM || (have & bit))) {
			child_complain("method_context: cannot limit the privileges", errno);
			_exit(96);
		}
	}
	if (o->set_ids && o->uid != 0)
		(void)prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0);
}

/*
 * After it: caps permitted and inheritable, effective what is given.  A privilege startd
 * itself lacks cannot be given: the method fails as illumos' does when setppriv() refuses
 * (exit 96, the configuration's fault).
 */
static void child_set_caps(uint64_t caps, uint64_t effective)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2] = {};

	d[0].permitted = d[0].inheritable = (uint32_t)caps;
	d[1].permitted = d[1].inheritable = (uint32_t)(caps >> 32);
	d[0].effective = (uint32_t)effective;
	d[1].effective = (uint32_t)(effective >> 32);
	if (syscall(SYS_capset, &h, d) < 0) {
		child_complain("method_context: cannot set the privileges", errno);
		_exit(96);
	}
}

/*
 * The working directory is entered with the method's privileges, as illumos' chdir() after
 * setppriv(): CAP_DAC_OVERRIDE (file_dac_write's equivalent) would also let it search any
 * directory, which illumos allows only with file_dac_search (CAP_DAC_READ_SEARCH), so it is
 * left out of the effective set until the directory is entered.
 */
static void child_enter_caps(const spawn_opts_t *o)
{
	uint64_t caps = o->caps & child_known_caps();

	child_set_caps(caps, caps & ~(UINT64_C(1) << CAP_DAC_OVERRIDE));
}

/*
 * Then exactly o->caps, effective, permitted, inheritable and ambient, so that the shell and
 * what it runs keep them whatever the user (illumos: the method's E, P and I sets).
 */
static void child_take_caps(const spawn_opts_t *o)
{
	uint64_t caps = o->caps & child_known_caps();

	child_set_caps(caps, caps);
	for (int c = 0; c < 64; c++)
		if ((caps & (UINT64_C(1) << c)) &&
		        prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0) {
			child_complain("method_context: cannot set the privileges", errno);
			_exit(96);
		}
}

_noreturn_ static void child_exec(char *const argv[], char *const envp[], const spawn_opts_t *o)
{
	static const int dfl[] = {SIGPIPE, SIGTERM, SIGINT, SIGCHLD, SIGHUP};
	struct sigaction sa = {.sa_handler = SIG_DFL};
	sigset_t none;

	for (size_t k = 0; k < ELEMENTSOF(dfl); k++)
		(void)sigaction(dfl[k], &sa, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)setpgid(0, 0);
	/* Entering the cgroup before anything runs: no process of the method is outside it. */
	if (o->cgroup_procs_fd >= 0)
		(void)!write(o->cgroup_procs_fd, "0", 1);
	child_stdio(o->log_fd);
	if (o->set_caps)
		child_bound_caps(o);
	if (o->set_ids) {
		if (setgroups(o->n_groups, o->groups) < 0) {
			child_complain(
			        "method_context: cannot set the supplementary groups", errno);
			_exit(96);
		}
		if (setgid(o->gid) < 0) {
			child_complain("method_context: cannot set the group", errno);
			_exit(96);
		}
		if (setuid(o->uid) < 0) {
			child_complain("method_context: cannot set the user", errno);
			_exit(96);
		}
	}
	if (o->set_caps)
		child_enter_caps(o);
	if (o->cwd && chdir(o->cwd) < 0) {
		child_complain("method_context: cannot change to the working_directory", errno);
		_exit(96);
	}
	if (o->set_caps)
		child_take_caps(o);
	execve(argv[0], argv, envp);
	child_complain("cannot execute /bin/sh", errno);
	_exit(127);
}

static int spawn_attrs(
        posix_spawnattr_t *a, posix_spawn_file_actions_t *fa, int log_fd, const char *cwd)
{
	sigset_t none, dfl;
	int r;

	sigemptyset(&none);
	sigemptyset(&dfl);
	sigaddset(&dfl, SIGPIPE);
	sigaddset(&dfl, SIGTERM);
	sigaddset(&dfl, SIGINT);
	sigaddset(&dfl, SIGCHLD);
	r = posix_spawnattr_setflags(
	        a, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
	if (r == 0)
		r = posix_spawnattr_setpgroup(a, 0);
	if (r == 0)
		r = posix_spawnattr_setsigmask(a, &none);
	if (r == 0)
		r = posix_spawnattr_setsigdefault(a, &dfl);
	if (r == 0)
		r = posix_spawn_file_actions_addopen(fa, 0, "/dev/null", O_RDONLY, 0);
	if (r == 0 && log_fd >= 0) {
		r = posix_spawn_file_actions_adddup2(fa, log_fd, 1);
		if (r == 0)
			r = posix_spawn_file_actions_adddup2(fa, log_fd, 2);
	} else if (r == 0) {
		r = posix_spawn_file_actions_addopen(fa, 1, "/dev/null", O_WRONLY, 0);
		if (r == 0)
			r = posix_spawn_file_actions_adddup2(fa, 1, 2);
	}
	if (r == 0 && cwd)
		r = posix_spawn_file_actions_addchdir_np(fa, cwd);
	return -r;
}

/*
 * The fast path: posix_spawn() (a vfork-like clone, no page table copy) when there is neither
 * an identity to take nor a cgroup to enter.  A chdir() that fails makes posix_spawn() fail.
 */
static pid_t spawn_fast(char *const argv[], char *const envp[], const spawn_opts_t *o, child_t *c)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t a;
	pid_t pid = -1;
	int r;

	posix_spawnattr_init(&a);
	posix_spawn_file_actions_init(&fa);
	r = spawn_attrs(&a, &fa, o->log_fd, o->cwd);
	lock_take(&tracked_lock, LOCK_TRACKED);
	if (r == 0)
		r = -posix_spawn(&pid, argv[0], &fa, &a, argv, envp);
	if (r == 0) {
		c->pid = pid;
		c->next = children;
		children = c;
	}
	lock_drop(&tracked_lock, LOCK_TRACKED);
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&a);
	return r < 0 ? r : pid;
}

pid_t proc_spawn(char *const argv[], char *const envp[], const spawn_opts_t *opts)
{
	child_t *c = calloc(1, sizeof(*c));
	pid_t pid;
	int err = 0;

	if (!c)
		return -ENOMEM;
	if (!opts->set_ids && !opts->set_caps && opts->cgroup_procs_fd < 0) {
		pid = spawn_fast(argv, envp, opts, c);
		if (pid < 0)
			free(c);
		return pid;
	}
	/* Forked under the lock: the reaper cannot reap the child before it is registered. */
	lock_take(&tracked_lock, LOCK_TRACKED);
	pid = fork();
	if (pid == 0)
		child_exec(argv, envp, opts);
	if (pid > 0) {
		(void)setpgid(pid, pid); /* also here: a kill(-pid) right after must reach it */
		c->pid = pid;
		c->next = children;
		children = TAKE_PTR(c);
	} else
		err = negative_errno();
	lock_drop(&tracked_lock, LOCK_TRACKED);
	free(c);
	return pid < 0 ? err : pid;
}

static child_t **find_child_locked(pid_t pid)
{
	child_t **p = &children;

	while (*p && (*p)->pid != pid)
		p = &(*p)->next;
	return p;
}

void proc_cancel_waits(void)
{
	lock_take(&tracked_lock, LOCK_TRACKED);
	waits_cancelled = true;
	pthread_cond_broadcast(&reaped);
	lock_drop(&tracked_lock, LOCK_TRACKED);
}

int proc_wait(pid_t pid, uint64_t deadline, int *status, bool cancellable)
{
	int r = 0;

	lock_take(&tracked_lock, LOCK_TRACKED);
	for (;;) {
		child_t **p = find_child_locked(pid), *c = *p;

		if (!c) {
			r = -ECHILD;
			break;
		}
		if (c->done) {
			*status = c->status;
			*p = c->next;
			free(c);
			r = 1;
			break;
		}
		if (cancellable && waits_cancelled) {
			r = -ECANCELED;
			break;
		}
		if (deadline != USEC_INFINITY && deadline_left_usec(deadline) == 0)
			break;
		wait_reaped_locked(deadline);
	}
	lock_drop(&tracked_lock, LOCK_TRACKED);
	return r;
}

void proc_forget(pid_t pid)
{
	lock_take(&tracked_lock, LOCK_TRACKED);
	child_t **p = find_child_locked(pid), *c = *p;
	if (c) {
		*p = c->next;
		free(c);
	}
	lock_drop(&tracked_lock, LOCK_TRACKED);
}

/* Waits until the group is empty or the deadline passes; true when empty. */
static bool wait_group_empty(pid_t pgid, uint64_t deadline)
{
	bool alive;

	lock_take(&tracked_lock, LOCK_TRACKED);
	while ((alive = proc_group_alive_live(pgid)) && deadline_left_usec(deadline) > 0)
		wait_reaped_locked(deadline);
	lock_drop(&tracked_lock, LOCK_TRACKED);
	return !alive;
}

int proc_group_kill(pid_t pgid, int sig, uint64_t grace_usec)
{
	if (pgid <= 1 || !proc_group_alive_live(pgid))
		return 0;
	(void)kill(-pgid, sig);
	if (sig != SIGKILL) {
		if (wait_group_empty(pgid, deadline_after_usec(grace_usec)))
			return 0;
		log_warning("process group %d outlived SIGTERM; sending SIGKILL", (int)pgid);
		(void)kill(-pgid, SIGKILL);
	}
	return wait_group_empty(pgid, deadline_after_usec(GROUP_EMPTY_DEADLINE_USEC)) ? 0
	                                                                              : -ETIMEDOUT;
}

int proc_contract_add(pid_t pgid, const char *fmri, bool adopted)
{
	contract_t *c = calloc(1, sizeof(*c));

	if (!c || !(c->fmri = strdup(fmri))) {
		free(c);
		return -ENOMEM;
	}
	c->pgid = pgid;
	c->adopted = adopted;
	lock_take(&tracked_lock, LOCK_TRACKED);
	c->next = contracts;
	contracts = c;
	lock_drop(&tracked_lock, LOCK_TRACKED);
	return 0;
}

void proc_contract_remove(pid_t pgid)
{
	lock_take(&tracked_lock, LOCK_TRACKED);
	for (contract_t **p = &contracts; *p; p = &(*p)->next)
		if ((*p)->pgid == pgid) {
			contract_t *c = *p;
			*p = c->next;
			free(c->fmri);
			free(c);
			break;
		}
	lock_drop(&tracked_lock, LOCK_TRACKED);
}
