/*
 * stress-iter: one iteration of the race, timed from the client side (tools/stress.sh).
 *
 * Usage: stress-iter FMRI MANIFEST SVCCFG SVCADM   (against $SMF_ROOT)
 *
 * THE MODEL.  A script runs "svccfg import MANIFEST; svcadm enable -s FMRI".  The race window is
 * the time between the import's return and svc.startd's first write of FMRI's restarter pg: a
 * svcadm that reads the instance inside it finds it misconfigured.  This program runs exactly
 * that script (svcadm is spawned the moment the import is reaped, as a shell would) and, while
 * svcadm runs, waits on a notification for FMRI's restarter pg to measure the window.
 *
 * INVARIANTS.  The notification interest is registered before the import is spawned, so the
 * first write of the pg cannot be missed, however early it comes.  A write that happened before
 * the import returned has its notification already in our socket by then (configd sends it in
 * commit order, and the import's own wait saw it first), so the non-blocking drain right after
 * the return finds it: that window is reported as 0 ("closed at return").  Otherwise the window
 * is the time from the return to the notification's arrival, an upper bound by the notification's
 * latency (tens of microseconds), never a sleep-quantised figure.
 *
 * Output, one line on stdout: "import=RC enable=RC import_us=N window_us=N import_pid=P
 * enable_pid=P" where RC is the exit
 * status (or 128 + signal), enable is -1 when svcadm was not run (the import failed), import_us
 * is when the import returned (microseconds after this program started) and window_us is -1
 * when no restarter pg appeared within the deadline; the pids (enable_pid -1 when not run) name
 * the children's trace files, svccfg.<pid>.trace and svcadm.<pid>.trace, when tracing is on.
 * The children's stderr is ours.  Exit 0
 * when the iteration ran (whatever the children did), 1 when it could not be run.
 */
#include <errno.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "libscf.h"
#include "timeutil.h"

/* How long a restarter pg may take to appear before the window is reported as unknown. */
#define WINDOW_DEADLINE_USEC (60 * USEC_PER_SEC)

extern char **environ;

static int spawn(char *const argv[], pid_t *ret)
{
	int r = posix_spawn(ret, argv[0], NULL, NULL, argv, environ);

	if (r != 0) {
		fprintf(stderr, "stress-iter: cannot run %s: %s\n", argv[0], strerror(r));
		return -r;
	}
	return 0;
}

/* Exit status of pid, or 128 + the signal that killed it. */
static int reap(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/*
 * Takes the next notification within timeout_usec: 1 if it is the first write of fmri's
 * restarter pg, 0 if it is another one, -ETIMEDOUT when none came, < 0 on error.
 */
static int next_is_ours(scf_handle_t *h, const char *fmri, uint64_t timeout_usec)
{
	scf_notification_t n;
	bool ours;
	int r;

	r = scf_notify_wait(h, timeout_usec, &n);
	if (r < 0)
		return r;
	if (r == 0)
		return -ETIMEDOUT;
	ours = n.kind == SCF_NOTIFY_PG_UPDATED && strcmp(n.entity, fmri) == 0;
	scf_notification_clear(&n);
	return ours;
}

/*
 * The window in microseconds after t0 (the import's return): 0 when the pg was written before
 * it, -1 when it did not appear before the deadline, < -1 on error.
 */
static int64_t measure_window(scf_handle_t *h, const char *fmri, uint64_t t0)
{
	uint64_t deadline = deadline_after_usec(WINDOW_DEADLINE_USEC);
	int r;

	/* Already delivered: written before the import returned. */
	while ((r = next_is_ours(h, fmri, 0)) == 0)
		;
	if (r == 1)
		return 0;
	if (r != -ETIMEDOUT)
		return r < -1 ? r : -2;
	for (;;) {
		r = next_is_ours(h, fmri, deadline_left_usec(deadline));
		if (r == 1) {
			uint64_t t1 = now_monotonic_usec();
			/* 0 means "closed at return": an open window is at least 1 µs. */
			return t1 > t0 ? (int64_t)(t1 - t0) : 1;
		}
		if (r == -ETIMEDOUT)
			return -1;
		if (r < 0)
			return r < -1 ? r : -2;
	}
}

int main(int argc, char **argv)
{
	scf_handle_t *h = NULL;
	uint64_t start = now_monotonic_usec(), t0;
	pid_t import_pid, enable_pid = -1;
	int64_t window = -1;
	int r, import_rc, enable_rc = -1;

	if (argc != 5) {
		fprintf(stderr, "usage: stress-iter FMRI MANIFEST SVCCFG SVCADM\n");
		return 1;
	}
	char *import_argv[] = {argv[3], (char *)"import", argv[2], NULL};
	char *enable_argv[] = {argv[4], (char *)"enable", (char *)"-s", argv[1], NULL};

	r = scf_handle_create(NULL, &h);
	if (r >= 0)
		r = scf_notify_add_pgname(h, SCF_PG_RESTARTER);
	if (r < 0) {
		fprintf(stderr, "stress-iter: %s\n", scf_strerror(r));
		scf_handle_destroy(h);
		return 1;
	}
	if (spawn(import_argv, &import_pid) < 0 || (import_rc = reap(import_pid)) < 0)
		goto fail;
	t0 = now_monotonic_usec();
	if (import_rc == 0) {
		if (spawn(enable_argv, &enable_pid) < 0)
			goto fail;
		window = measure_window(h, argv[1], t0);
		if ((enable_rc = reap(enable_pid)) < 0)
			goto fail;
		if (window < -1) {
			fprintf(stderr, "stress-iter: waiting for %s's restarter pg: %s\n", argv[1],
			        scf_strerror((int)window));
			goto fail;
		}
	}
	printf("import=%d enable=%d import_us=%llu window_us=%lld import_pid=%d enable_pid=%d\n",
	        import_rc, enable_rc, (unsigned long long)(t0 - start), (long long)window,
	        (int)import_pid, (int)enable_pid);
	scf_handle_destroy(h);
	return 0;
fail:
	scf_handle_destroy(h);
	return 1;
}
