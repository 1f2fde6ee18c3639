/*
 * bench-burst: a burst of new instances, until svc.startd has written every restarter pg.
 *
 * Usage: bench-burst N COMMAND [ARG...]   (against $SMF_ROOT, with svc.startd attached)
 *
 * Registers for notifications of pgs named "restarter" on a connection of its own, then runs
 * COMMAND (bench-burst.sh: svccfg import of one manifest of N instances, with
 * SVCCFG_IMPORT_NOWAIT=1, so that the command returns once its batch is committed) and counts
 * the instances whose restarter pg was written, each once, until all N have one.  Registering
 * before the command starts means no write is missed; the command's return is taken from a
 * pidfd polled beside the notification fd, so nothing sleeps.
 *
 * Prints the command's own time, the time from its start until the last of the N pgs, and
 * that time per instance, and the part after the command returned (startd's backlog); never
 * fails on speed (exit 1 only when the N pgs do not all come within BENCH_BURST_TIMEOUT
 * seconds, default 600, or the command fails).
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench-common.h"
#include "hashmap.h"
#include "timeutil.h"

static int run(char **argv, pid_t *pid)
{
	*pid = fork();
	if (*pid < 0)
		return -errno;
	if (*pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "bench-burst: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return (int)syscall(SYS_pidfd_open, *pid, 0);
}

int main(int argc, char **argv)
{
	const char *t = getenv("BENCH_BURST_TIMEOUT");
	uint64_t timeout = (t ? strtoull(t, NULL, 10) : 600) * USEC_PER_SEC;
	size_t n = argc > 2 ? strtoul(argv[1], NULL, 10) : 0;
	uint64_t t0, t_ret = 0, t_last = 0, deadline;
	scf_handle_t *hn = NULL;
	hashmap_t *seen;
	int pidfd, status = 0;
	pid_t pid;

	if (n == 0) {
		fprintf(stderr, "usage: bench-burst N COMMAND [ARG...]\n");
		return 2;
	}
	seen = hashmap_new();
	if (!seen)
		return 1;
	bench_check(NULL, scf_handle_create(NULL, &hn), "connect");
	bench_check(hn, scf_notify_add_pgname(hn, SCF_PG_RESTARTER), "notify");
	t0 = now_monotonic_usec();
	deadline = deadline_after_usec(timeout);
	pidfd = run(argv + 2, &pid);
	if (pidfd < 0) {
		fprintf(stderr, "bench-burst: cannot start %s: %s\n", argv[2], strerror(-pidfd));
		return 1;
	}
	while (hashmap_size(seen) < n || t_ret == 0) {
		struct pollfd p[2] = {
		        {.fd = scf_notify_fd(hn), .events = POLLIN},
		        {.fd = t_ret ? -1 : pidfd, .events = POLLIN},
		};
		uint64_t left = deadline_left_usec(deadline);

		for (;;) {
			scf_notification_t nt = {};
			int r = scf_notify_wait(hn, 0, &nt);

			bench_check(hn, r, "notify_wait");
			if (r == 0)
				break;
			if (nt.kind == SCF_NOTIFY_PG_UPDATED && nt.entity &&
			        !hashmap_get(seen, nt.entity)) {
				bench_check(NULL, hashmap_put(seen, nt.entity, seen), "memory");
				if (hashmap_size(seen) == n)
					t_last = now_monotonic_usec();
			}
			scf_notification_clear(&nt);
		}
		if (hashmap_size(seen) >= n && t_ret)
			break;
		if (left == 0) {
			fprintf(stderr, "bench-burst: %zu of %zu restarter pgs after %llu s\n",
			        hashmap_size(seen), n,
			        (unsigned long long)(timeout / USEC_PER_SEC));
			return 1;
		}
		if (poll(p, 2, (int)(left / USEC_PER_MSEC) + 1) < 0 && errno != EINTR)
			return 1;
		if (p[1].revents) {
			t_ret = now_monotonic_usec();
			if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
			        WEXITSTATUS(status) != 0) {
				fprintf(stderr, "bench-burst: %s failed\n", argv[2]);
				return 1;
			}
		}
	}
	/* startd's part: what it still had to do once the import had returned. */
	printf("  command %.0f ms; every restarter pg %.0f ms after its start (%.1f us per "
	       "instance), %.0f ms after its return (%.1f us per instance)\n",
	        (double)(t_ret - t0) / 1000.0, (double)(t_last - t0) / 1000.0,
	        (double)(t_last - t0) / (double)n,
	        t_last > t_ret ? (double)(t_last - t_ret) / 1000.0 : 0.0,
	        t_last > t_ret ? (double)(t_last - t_ret) / (double)n : 0.0);
	scf_handle_destroy(hn);
	hashmap_free(seen);
	return 0;
}
