/*
 * repo.c: the repository-event thread.
 *
 * It owns one handle subscribed to pg types "framework" (general, general_ovr, restarter,
 * restarter_actions) and "dependency", and turns each notification into a graph event, in
 * the order configd sent them.  It subscribes before the graph's first scan is queued, so an
 * instance created during start-up is seen by one or the other (the graph ignores the second
 * sight).  Changes to the restarter pg are startd's own writes and are dropped here.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "startd.h"

static scf_handle_t *repo_h;
static int exit_status_lost; /* set when configd went away: main exits 1 */

static void forward(Manager *m, const scf_notification_t *n)
{
	int type = n->kind == SCF_NOTIFY_PG_DELETED ? GE_PG_DELETED : GE_PG_CHANGED;

	if (n->pg && streq(n->pg, SCF_PG_RESTARTER))
		return;
	(void)event_queue_push(&m->graph_q, type, n->entity, n->pg, n->pgtype, 0, NULL);
}

/* Drains what the library holds; < 0 when the connection broke. */
static int drain(Manager *m)
{
	for (;;) {
		scf_notification_t n = {};
		int r = scf_notify_wait(repo_h, 0, &n);

		if (r <= 0)
			return r;
		forward(m, &n);
		scf_notification_clear(&n);
	}
}

static void *repo_main(void *userdata)
{
	Manager *m = userdata;

	for (;;) {
		struct pollfd p[2] = {
		        {.fd = scf_notify_fd(repo_h), .events = POLLIN},
		        {.fd = m->repo_stop_fd, .events = POLLIN},
		};

		if (drain(m) < 0) {
			log_error("lost the repository connection; stopping");
			exit_status_lost = 1;
			kill(getpid(), SIGTERM);
			return NULL;
		}
		if (poll(p, 2, -1) < 0 && errno != EINTR) {
			log_error_errno(negative_errno(), "poll");
			return NULL;
		}
		if (p[1].revents)
			return NULL;
	}
}

int repo_lost(void)
{
	return exit_status_lost;
}

int repo_thread_start(Manager *m)
{
	int r;

	m->repo_stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (m->repo_stop_fd < 0)
		return log_error_errno(negative_errno(), "eventfd");
	r = scf_handle_create(m->root, &repo_h);
	if (r >= 0)
		r = scf_notify_add_pgtype(repo_h, SCF_GROUP_FRAMEWORK);
	if (r >= 0)
		r = scf_notify_add_pgtype(repo_h, SCF_GROUP_DEPENDENCY);
	if (r < 0) {
		log_error("cannot subscribe to repository notifications: %s", scf_strerror(r));
		return -EIO;
	}
	/* Subscribed: from here on nothing is missed, so the graph may scan. */
	r = event_queue_push(&m->graph_q, GE_SCAN, NULL, NULL, NULL, 0, NULL);
	if (r < 0)
		return r;
	r = -pthread_create(&m->repo_thread, NULL, repo_main, m);
	if (r < 0)
		return log_error_errno(r, "cannot start the repository thread");
	return 0;
}

void repo_thread_stop(Manager *m)
{
	uint64_t one = 1;

	(void)write(m->repo_stop_fd, &one, sizeof(one));
	pthread_join(m->repo_thread, NULL);
	scf_handle_destroy(repo_h);
	repo_h = NULL;
	closep(&m->repo_stop_fd);
}
