/*
 * proc.c: svcrace's child processes (the daemons, the script, svctrace) and their deadlines.
 *
 * A child gets the environment it is given and nothing else of svcrace's: stdin /dev/null,
 * stdout and stderr where it is told, every signal unblocked and at its default, and
 * PR_SET_PDEATHSIG, so that a svcrace killed outright takes its daemons and scripts with it
 * instead of leaving them behind.  Waiting is on a pidfd with poll(), so an exit is seen the
 * moment it happens and a deadline is a poll timeout, not a sleep loop.
 *
 * Interruption: SIGINT and SIGTERM only set a flag (proc_catch_signals()).  A wait for the
 * script returns -EINTR on it, so a run ends early; the waits of the cleanup (proc_end) do not,
 * so daemons are always stopped and reaped whatever arrives meanwhile.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "strv.h"
#include "svcrace.h"
#include "timeutil.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = 1;
}

void proc_catch_signals(void)
{
	struct sigaction sa = {.sa_handler = on_signal};

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

bool proc_interrupted(void)
{
	return interrupted;
}

/* ------------------------------------------------------------------------------------------ */
/* Environments                                                                                */

void env_unset(char **env, const char *name)
{
	size_t len = strlen(name), j = 0;

	for (size_t i = 0; env[i]; i++) {
		if (strneq(env[i], name, len) && env[i][len] == '=')
			free(env[i]);
		else
			env[j++] = env[i];
	}
	env[j] = NULL;
}

int env_set(char ***env, const char *name, const char *value)
{
	char *s;

	env_unset(*env, name);
	if (asprintf(&s, "%s=%s", name, value) < 0)
		return -ENOMEM;
	if (strv_consume(env, s) < 0) {
		free(s);
		return -ENOMEM;
	}
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Children                                                                                    */

static _noreturn_ void child(const spawn_t *s, pid_t parent)
{
	sigset_t all;
	int null;

	if (s->own_pgroup)
		(void)setpgid(0, 0);
	(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127); /* the parent died before the line above */
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGPIPE, SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (null < 0 || dup2(null, STDIN_FILENO) < 0 ||
	        dup2(s->out_fd >= 0 ? s->out_fd : null, STDOUT_FILENO) < 0 ||
	        dup2(s->err_fd >= 0 ? s->err_fd : null, STDERR_FILENO) < 0)
		_exit(127);
	execve(s->argv[0], s->argv, s->envp);
	fprintf(stderr, "svcrace: cannot run %s: %s\n", s->argv[0], strerror(errno));
	_exit(127);
}

static int pidfd_open_(pid_t pid)
{
	return (int)syscall(SYS_pidfd_open, pid, 0);
}

int proc_spawn(const spawn_t *s, pid_t *pid, int *pidfd)
{
	pid_t parent = getpid(), p;

	fflush(stdout);
	fflush(stderr);
	p = fork();
	if (p < 0)
		return negative_errno();
	if (p == 0)
		child(s, parent);
	/* Both sides set the group, so that it exists whoever runs first. */
	if (s->own_pgroup)
		(void)setpgid(p, p);
	*pid = p;
	/* A kernel without pidfds (before 5.3): proc_wait() polls waitpid() instead. */
	*pidfd = pidfd_open_(p);
	if (*pidfd >= 0)
		(void)fcntl(*pidfd, F_SETFD, FD_CLOEXEC);
	return 0;
}

static int wait_until(pid_t pid, int pidfd, uint64_t deadline, bool interruptible, int *status)
{
	for (;;) {
		uint64_t left = deadline_left_usec(deadline);
		/* Slices of 100 ms at most: a signal that came just before poll() is seen soon. */
		int ms = left > 100 * USEC_PER_MSEC ? 100 : (int)((left + 999) / 1000);
		pid_t w;

		if (interruptible && interrupted)
			return -EINTR;
		if (pidfd >= 0) {
			struct pollfd pfd = {.fd = pidfd, .events = POLLIN};

			if (poll(&pfd, 1, ms) > 0) {
				while ((w = waitpid(pid, status, 0)) < 0 && errno == EINTR)
					;
				return w == pid ? 0 : negative_errno();
			}
		} else {
			struct timespec tick = {0, 5 * 1000 * 1000};

			w = waitpid(pid, status, WNOHANG);
			if (w == pid)
				return 0;
			if (w < 0 && errno != EINTR)
				return negative_errno();
			nanosleep(&tick, NULL);
		}
		if (left == 0)
			return -ETIMEDOUT;
	}
}

int proc_wait(pid_t pid, int pidfd, uint64_t deadline, int *status)
{
	return wait_until(pid, pidfd, deadline, true, status);
}

int proc_end(pid_t pid, int pidfd, int sig, uint64_t deadline, int *status)
{
	int r;

	(void)kill(pid, sig);
	r = wait_until(pid, pidfd, deadline, false, status);
	if (r == -ETIMEDOUT) {
		(void)kill(pid, SIGKILL);
		r = wait_until(pid, pidfd, USEC_INFINITY, false, status);
		return r < 0 ? r : -ETIMEDOUT;
	}
	return r;
}

void msgf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

void file_last_line(const char *path, char *buf, size_t size)
{
	_cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
	char tail[4096];
	off_t end;
	ssize_t n;
	char *e, *b;

	buf[0] = '\0';
	if (fd < 0 || (end = lseek(fd, 0, SEEK_END)) <= 0)
		return;
	n = pread(fd, tail, sizeof(tail) - 1,
	        end > (off_t)sizeof(tail) - 1 ? end - (off_t)sizeof(tail) + 1 : 0);
	if (n <= 0)
		return;
	tail[n] = '\0';
	e = tail + n;
	while (e > tail && (e[-1] == '\n' || e[-1] == ' ' || e[-1] == '\t'))
		*--e = '\0';
	b = strrchr(tail, '\n');
	b = b ? b + 1 : tail;
	snprintf(buf, size, "%s", b);
}
