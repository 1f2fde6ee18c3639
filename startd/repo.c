/*
 * repo.c: the repository-event thread.
 *
 * It owns one handle subscribed to the framework pgs the graph acts on, by name (general,
 * general_ovr, restarter_actions, options, options_ovr: not restarter, whose changes are
 * startd's own writes), to pg type "dependency", and to the creation of instances
 * (InstanceAdded, which illumos' configd does not send: an instance created with no pg, by
 * svccfg add, would otherwise be seen only when a pg of it is written), and turns each
 * notification into a graph event, in the order configd sent them.  It subscribes before the
 * graph's first scan is queued, so an instance created during start-up is seen by one or the
 * other (the graph ignores the second sight).  A pg of one of those names but not of type
 * framework (an application's "options") is dropped here (after startd.notify_received is
 * traced: every notification read is, whatever becomes of it).  The delay point
 * startd.repo.notify_received sits between that trace and the hand-over to the graph.
 *
 * When the connection breaks, configd is presumed restarting: this thread polls its socket
 * (every RECONNECT_POLL_MSEC, until SVC_STARTD_RECONNECT_TIMEOUT seconds, default 60),
 * then registers again as the restarter (on the main handle, which nobody else uses after
 * start-up), subscribes again, and asks the graph to re-read and rescan and every instance to
 * rewrite its restarter pg (kept by configd within a boot, but lost if the volatile database
 * was started afresh; a rewrite of what is there changes nothing).  Services keep running
 * through all of it.  If configd does not come back in time, startd stops its services and exits 1.
 * An instance worker whose call meets the broken connection first waits the same way
 * (repo_wait_for_configd(), instance_rebind()) and retries its step; the stop eventfd, closed
 * only when startd_t goes, ends every such wait once startd stops.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "delay.h"
#include "log.h"
#include "macro.h"
#include "probes.h"
#include "startd.h"
#include "thread.h"
#include "timeutil.h"

#define RECONNECT_POLL_MSEC 20
#define RECONNECT_TIMEOUT_S 60

static scf_handle_t *repo_h;
static int exit_status_lost; /* set when configd went away: main exits 1 */

/*
 * The framework pgs the graph acts on (general and its override, restarter_actions, and
 * startd's own options for the milestone), by name: subscribing to the type "framework" as a
 * whole, as illumos does, also brought back every write of startd's own restarter pgs, two per
 * new instance in a burst, which configd sent and this thread dropped.
 */
static const char *const pg_names[] = {
        SCF_PG_GENERAL,
        SCF_PG_GENERAL_OVR,
        SCF_PG_RESTARTER_ACTIONS,
        SCF_PG_OPTIONS,
        SCF_PG_OPTIONS_OVR,
};

static void forward(startd_t *m, const scf_notification_t *n)
{
	int type = n->kind == SCF_NOTIFY_PG_DELETED ? GE_PG_DELETED : GE_PG_CHANGED;

	if (n->kind == SCF_NOTIFY_INSTANCE_ADDED)
		type = GE_INSTANCE_ADDED;
	/* A pg of one of those names but of another type (an application's "options"). */
	else if (n->pgtype && !streq(n->pgtype, SCF_GROUP_FRAMEWORK) &&
	        !streq(n->pgtype, SCF_GROUP_DEPENDENCY))
		return;
	(void)event_queue_push(&m->graph_q, type, n->entity, n->pg, n->pgtype, 0, NULL);
}

/* Drains what the library holds; < 0 when the connection broke. */
static int drain(startd_t *m)
{
	for (;;) {
		scf_notification_t n = {};
		int r = scf_notify_wait(repo_h, 0, &n);

		if (r <= 0)
			return r;
		/* What this notification leads to descends from its commit (queue.h, CAUSES). */
		event_cause_set(n.commit_id);
		probe_notify_received(&n);
		smf_point(SMF_POINT_STARTD_REPO_NOTIFY_RECEIVED);
		forward(m, &n);
		event_cause_set(0);
		scf_notification_clear(&n);
	}
}

static int subscribe(startd_t *m)
{
	int r = scf_handle_create(m->root, &repo_h);

	for (size_t k = 0; r >= 0 && k < ELEMENTSOF(pg_names); k++)
		r = scf_notify_add_pgname(repo_h, pg_names[k]);
	if (r >= 0)
		r = scf_notify_add_pgtype(repo_h, SCF_GROUP_DEPENDENCY);
	if (r >= 0)
		r = scf_notify_add_instances(repo_h);
	if (r < 0) {
		log_error("cannot subscribe to repository notifications: %s", scf_strerror(r));
		return -EIO;
	}
	return 0;
}

static uint64_t reconnect_timeout_usec(void)
{
	const char *e = getenv("SVC_STARTD_RECONNECT_TIMEOUT");
	char *end;
	unsigned long s;

	if (!e || !*e)
		return RECONNECT_TIMEOUT_S * USEC_PER_SEC;
	s = strtoul(e, &end, 10);
	return *end ? RECONNECT_TIMEOUT_S * USEC_PER_SEC : s * USEC_PER_SEC;
}

scf_handle_t *repo_wait_for_configd(startd_t *m)
{
	uint64_t deadline = deadline_after_usec(reconnect_timeout_usec());

	for (;;) {
		struct pollfd p = {.fd = m->repo_stop_fd, .events = POLLIN};
		scf_handle_t *h = NULL;

		if (scf_handle_create(m->root, &h) >= 0)
			return h;
		if (deadline_left_usec(deadline) == 0)
			return NULL;
		if (poll(&p, 1, RECONNECT_POLL_MSEC) > 0)
			return NULL;
	}
}

/* 0 once registered and subscribed again with everything rewritten; < 0: give up. */
static int reconnect(startd_t *m)
{
	scf_handle_t *h;
	int r;

	log_warning("lost the repository connection; waiting for svc.configd to come back");
	scf_handle_destroy(repo_h);
	repo_h = NULL;
	h = repo_wait_for_configd(m);
	if (!h) {
		log_error("the repository did not come back");
		return -ETIMEDOUT;
	}
	scf_handle_destroy(m->main_h);
	m->main_h = h;
	r = scf_restarter_register(h);
	if (r < 0) {
		log_error("cannot register again as the restarter: %s", scf_handle_errmsg(h));
		return -EIO;
	}
	/* Subscribed before the graph rescans, so nothing created meanwhile is missed. */
	r = subscribe(m);
	if (r < 0)
		return r;
	(void)event_queue_push(&m->graph_q, GE_RECONNECT, NULL, NULL, NULL, 0, NULL);
	(void)restarter_enqueue(m, RE_RESYNC, NULL, 0);
	log_info("reconnected to the repository of %s", m->root);
	return 0;
}

static void *repo_main(void *userdata)
{
	startd_t *m = userdata;

	for (;;) {
		struct pollfd p[2] = {
		        {.fd = -1, .events = POLLIN},
		        {.fd = m->repo_stop_fd, .events = POLLIN},
		};

		if (drain(m) < 0) {
			if (reconnect(m) >= 0)
				continue; /* a new handle, a new fd */
			log_error("no repository; stopping");
			exit_status_lost = 1;
			kill(getpid(), SIGTERM);
			return NULL;
		}
		p[0].fd = scf_notify_fd(repo_h);
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

int repo_thread_start(startd_t *m)
{
	int r;

	m->repo_stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (m->repo_stop_fd < 0)
		return log_error_errno(negative_errno(), "eventfd");
	r = subscribe(m);
	if (r < 0)
		return r;
	/* Subscribed: from here on nothing is missed, so the graph may scan. */
	r = event_queue_push(&m->graph_q, GE_SCAN, NULL, NULL, NULL, 0, NULL);
	if (r < 0)
		return r;
	r = thread_start(&m->repo_thread, "startd-repo", repo_main, m);
	if (r < 0)
		return log_error_errno(r, "cannot start the repository thread");
	return 0;
}

void repo_thread_stop(startd_t *m)
{
	uint64_t one = 1;

	(void)write(m->repo_stop_fd, &one, sizeof(one));
	pthread_join(m->repo_thread, NULL);
	scf_handle_destroy(repo_h);
	repo_h = NULL;
	/* Left open (main closes it): workers still check it while they stop their services. */
}
