/*
 * sandbox.c: a private root served by its own svc.configd and svc.startd, for one run.
 *
 * THE MODEL.  The C side of tools/sandbox.sh, for a program that makes thousands of them: a
 * fresh directory svcrace.PID.XXXXXX (mode 0755; PID is svcrace's, so a directory left behind
 * says whose it was) on tmpfs (/dev/shm) where one can be written, else, and always for a
 * sandbox kept (--keep), under $TMPDIR; its trace in $ROOT/var/svc/trace; and the two
 * daemons, each started with --root, SMF_TRACE=1, SMF_TRACE_DIR, the run's schedule as
 * SMF_DELAY (and its seed as SMF_DELAY_SEED), and configd's fix switch.  tmpfs because a
 * sandbox lives a fraction of a second and on ext4 it pays the journal: the first store to
 * each page of a new shared-mapped file (the trace files, SQLite's WAL index) waits for it,
 * and the database's creation and removal cost about 10 ms a run (docs/decisions.md).
 *
 * Readiness is a notification, never a sleep: each daemon sends READY=1 to $NOTIFY_SOCKET
 * when it serves (configd once its socket is in place, startd once it is registered as the
 * restarter and has scanned the repository), so the sandbox listens on a datagram socket of
 * its own (an autobound abstract address: no path, no length limit, nothing to remove) and
 * polls it together with the daemon's pidfd: ready, died, or the deadline.  startd is started
 * only once configd is ready, as on a real system.
 *
 * INVARIANTS.  sb->configd and sb->startd are pids exactly while a daemon of this sandbox may
 * be unreaped; sandbox_stop() ends startd first (SIGTERM: it stops the services it started
 * while configd still answers), then configd, each SIGKILLed at the deadline, and reaps both.
 * Each daemon runs in a process group of its own, so a Ctrl-C at the terminal reaches svcrace
 * (which stops them in that order) and not them directly.  sandbox_remove() removes only the
 * directory sandbox_create() made.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "paths.h"
#include "strv.h"
#include "svcrace.h"
#include "timeutil.h"

/* As tools/sandbox.sh's READY_DEADLINE_S: the sanitizer build on a loaded 2-core machine. */
#define READY_TIMEOUT_USEC (20 * USEC_PER_SEC)
#define STOP_TIMEOUT_USEC (20 * USEC_PER_SEC)
/* Where a sandbox not kept lives, when it can be written (THE MODEL). */
#define SANDBOX_TMPFS "/dev/shm"

static int make_dir(char *buf, size_t size, const char *base, const char *name)
{
	if (snprintf(buf, size, "%s/%s.XXXXXX", base, name) >= (int)size)
		return -ENAMETOOLONG;
	if (!mkdtemp(buf) || chmod(buf, 0755) < 0)
		return negative_errno();
	return 0;
}

int sandbox_create(sandbox_t *sb, pid_t owner, bool keep)
{
	const char *tmp = getenv("TMPDIR");
	char sub[4200], name[64];
	int r = -ENOENT;

	*sb = (sandbox_t){.configd = -1, .startd = -1, .configd_fd = -1, .startd_fd = -1};
	snprintf(name, sizeof(name), "svcrace.%d", (int)owner);
	if (!keep && access(SANDBOX_TMPFS, W_OK) == 0)
		r = make_dir(sb->root, sizeof(sb->root), SANDBOX_TMPFS, name);
	if (r < 0)
		r = make_dir(sb->root, sizeof(sb->root), tmp && *tmp ? tmp : "/tmp", name);
	if (r < 0) {
		sb->root[0] = '\0';
		return r;
	}
	snprintf(sub, sizeof(sub), "%s/tmp", sb->root);
	if (mkdir(sub, 0755) < 0)
		return negative_errno();
	/* Where svctrace looks by default, $ROOT/var/svc/trace. */
	if (snprintf(sb->trace, sizeof(sb->trace), "%s/var/svc/trace", sb->root) >=
	        (int)sizeof(sb->trace)) {
		sb->trace[0] = '\0';
		return -ENAMETOOLONG;
	}
	return smf_mkdir_p(sb->trace, 0755);
}

/* The notify socket: bound to an abstract address the kernel picks; "@name" into addr. */
static int notify_socket(char *addr, size_t size)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	socklen_t len = sizeof(sa_family_t);
	_cleanup_close_ int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);

	if (fd < 0)
		return negative_errno();
	if (bind(fd, (struct sockaddr *)&sa, len) < 0)
		return negative_errno();
	len = sizeof(sa);
	if (getsockname(fd, (struct sockaddr *)&sa, &len) < 0)
		return negative_errno();
	/* Autobind gives sun_path[0] = '\0' and five hex digits. */
	if (len <= offsetof(struct sockaddr_un, sun_path) + 1)
		return -EADDRNOTAVAIL;
	snprintf(addr, size, "@%.*s", (int)(len - offsetof(struct sockaddr_un, sun_path) - 1),
	        sa.sun_path + 1);
	return TAKE_FD(fd);
}

/* Waits for READY=1 on fd from the daemon pid (pidfd): 0, or -ESRCH (died), -ETIMEDOUT. */
static int wait_ready(int fd, pid_t pid, int pidfd, uint64_t deadline)
{
	for (;;) {
		struct pollfd pfd[2] = {
		        {.fd = fd, .events = POLLIN}, {.fd = pidfd, .events = POLLIN}};
		uint64_t left = deadline_left_usec(deadline);
		char msg[512];
		ssize_t n;

		if (left == 0)
			return -ETIMEDOUT;
		if (poll(pfd, pidfd >= 0 ? 2 : 1,
		            (int)((left > 100000 ? 100000 : left) / 1000) + 1) < 0 &&
		        errno != EINTR)
			return negative_errno();
		while ((n = recv(fd, msg, sizeof(msg) - 1, 0)) > 0) {
			msg[n] = '\0';
			/* One assignment per line: "READY=1" must be a whole line. */
			for (char *l = msg, *e; l && *l; l = e ? e + 1 : NULL) {
				e = strchr(l, '\n');
				if ((e ? (size_t)(e - l) : strlen(l)) == 7 &&
				        strneq(l, "READY=1", 7))
					return 0;
			}
		}
		if (pidfd >= 0 && (pfd[1].revents & (POLLIN | POLLHUP)))
			return -ESRCH;
		if (pidfd < 0) {
			int st;

			if (waitpid(pid, &st, WNOHANG) == pid)
				return -ESRCH;
		}
	}
}

static int start_daemon(sandbox_t *sb, const char *path, const char *name, char **env,
        int notify_fd, pid_t *pid, int *pidfd, char *err, size_t errsize)
{
	char *argv[] = {(char *)path, (char *)"--root", sb->root, NULL};
	char logpath[4200], last[200];
	_cleanup_close_ int log = -1;
	int r;

	snprintf(logpath, sizeof(logpath), "%s/%s.log", sb->root, name);
	log = open(logpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (log < 0)
		return msgf(err, errsize, "%s: %s", logpath, strerror(errno)), negative_errno();
	r = proc_spawn(&(spawn_t){.argv = argv,
	                       .envp = env,
	                       .out_fd = log,
	                       .err_fd = log,
	                       .own_pgroup = true},
	        pid, pidfd);
	if (r < 0)
		return msgf(err, errsize, "cannot start %s: %s", name, strerror(-r)), r;
	r = wait_ready(notify_fd, *pid, *pidfd, deadline_after_usec(READY_TIMEOUT_USEC));
	if (r >= 0)
		return 0;
	file_last_line(logpath, last, sizeof(last));
	if (r == -ESRCH)
		msgf(err, errsize, "%s exited before it was ready: %s", name, last);
	else if (r == -ETIMEDOUT)
		msgf(err, errsize, "%s not ready within %llu s: %s", name,
		        (unsigned long long)(READY_TIMEOUT_USEC / USEC_PER_SEC), last);
	else
		msgf(err, errsize, "waiting for %s: %s", name, strerror(-r));
	return r;
}

int sandbox_start(sandbox_t *sb, const svcrace_t *c, const run_spec_t *spec, char *const *env,
        char *err, size_t errsize)
{
	_cleanup_strv_free_ char **denv = strv_copy(env);
	_cleanup_close_ int nfd = -1;
	char addr[64], delay[SCHEDULE_STRMAX], seed[32];
	int r;

	if (!denv)
		return msgf(err, errsize, "out of memory"), -ENOMEM;
	nfd = notify_socket(addr, sizeof(addr));
	if (nfd < 0)
		return msgf(err, errsize, "notify socket: %s", strerror(-nfd)), nfd;
	schedule_format(&spec->schedule, delay, sizeof(delay));
	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)spec->seed);
	r = env_set(&denv, "NOTIFY_SOCKET", addr);
	if (r >= 0)
		r = env_set(&denv, "SMF_DELAY_SEED", seed);
	if (r >= 0 && spec->schedule.n > 0)
		r = env_set(&denv, "SMF_DELAY", delay);
	if (r >= 0)
		r = fix_configd_env(spec->fixes, &denv);
	if (r < 0)
		return msgf(err, errsize, "out of memory"), r;
	r = start_daemon(sb, c->tools.configd, "svc.configd", denv, nfd, &sb->configd,
	        &sb->configd_fd, err, errsize);
	if (r < 0)
		return r;
	/* configd's switch is configd's own. */
	env_unset(denv, "SVC_CONFIGD_EAGER");
	return start_daemon(sb, c->tools.startd, "svc.startd", denv, nfd, &sb->startd,
	        &sb->startd_fd, err, errsize);
}

/* Ends one daemon; says in err (if still empty) when it had died or did not exit cleanly. */
static void stop_daemon(pid_t *pid, int *pidfd, const char *name, char *err, size_t errsize)
{
	int status = 0, r;

	if (*pid <= 0)
		return;
	r = proc_end(*pid, *pidfd, SIGTERM, deadline_after_usec(STOP_TIMEOUT_USEC), &status);
	if (!err[0]) {
		if (r == -ETIMEDOUT)
			msgf(err, errsize, "%s did not exit within %llu s of SIGTERM", name,
			        (unsigned long long)(STOP_TIMEOUT_USEC / USEC_PER_SEC));
		else if (r < 0)
			msgf(err, errsize, "waiting for %s: %s", name, strerror(-r));
		else if (WIFSIGNALED(status) && WTERMSIG(status) != SIGTERM)
			msgf(err, errsize, "%s died of signal %d", name, WTERMSIG(status));
		else if (WIFEXITED(status) && WEXITSTATUS(status) != 0)
			msgf(err, errsize, "%s exited with status %d", name, WEXITSTATUS(status));
	}
	*pid = -1;
	if (*pidfd >= 0)
		close(*pidfd);
	*pidfd = -1;
}

int sandbox_stop(sandbox_t *sb, char *err, size_t errsize)
{
	stop_daemon(&sb->startd, &sb->startd_fd, "svc.startd", err, errsize);
	stop_daemon(&sb->configd, &sb->configd_fd, "svc.configd", err, errsize);
	return err[0] ? -EIO : 0;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)remove(path);
	return 0;
}

static void remove_tree(const char *dir)
{
	if (dir[0])
		(void)nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void sandbox_remove(sandbox_t *sb)
{
	remove_tree(sb->root); /* the trace with it */
}
