/*
 * emi.c: early manifest import.
 *
 * As illumos, before startd listens to the repository it runs the start method of
 * svc:/system/early-manifest-import:default, when that instance exists and is enabled, to
 * completion (typically "svccfg import $SMF_ROOT/var/svc/manifest"), and marks it online.
 * While it runs, the instance exists and is not online, which is how svccfg import knows not
 * to wait for restarter pgs that startd is not yet writing.  It runs in the main thread with
 * its own handle; the reaper must already run (method waits depend on it).  When the graph
 * later inserts the instance, its worker finds it online and keeps it so (fsm.c, on_record()).
 */
#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include "delay.h"
#include "instance.h"
#include "method.h"
#include "log.h"
#include "macro.h"
#include "proc.h"
#include "rpg.h"
#include "startd.h"
#include "survivors.h"
#include "timeutil.h"

static bool emi_enabled(scf_handle_t *h)
{
	const char *pgs[] = {SCF_PG_GENERAL_OVR, SCF_PG_GENERAL};

	for (size_t k = 0; k < ELEMENTSOF(pgs); k++) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
		unsigned fl = k ? SCF_READ_COMPOSED : 0;
		const scf_property_t *p;
		bool e = false;

		if (scf_pg_get(h, SCF_INSTANCE_EMI, pgs[k], NULL, fl, &pg) >= 0 &&
		        (p = scf_pg_property(pg, SCF_PROPERTY_ENABLED)) &&
		        scf_property_get_boolean(p, &e) >= 0)
			return e;
	}
	return false;
}

int emi_run(startd_t *m)
{
	state_update_t u = {.start_pid = -1, .contract = -1};
	/* A start that keeps processes: in the instance's cgroup leaf, as any such start. */
	method_call_t c = {.name = "start", .cgroup = true, .log_fd = -1};
	method_end_t end;
	pid_t pgid = 0;
	instance_t *i;
	int r;

	if (scf_entity_exists(m->main_h, SCF_INSTANCE_EMI) <= 0 || !emi_enabled(m->main_h))
		return 0;
	i = instance_new(m, SCF_INSTANCE_EMI);
	if (!i)
		return -ENOMEM;
	/* The main thread is the instance's worker for the run: nothing else has its queue. */
	event_queue_claim_worker(&i->q);
	/* Its own handle, not the main one: a worker rebinds its handle when configd restarts. */
	r = scf_handle_create(m->root, &i->h);
	if (r < 0) {
		log_error("cannot reach the repository of %s: %s", m->root, scf_strerror(r));
		event_queue_retire(&i->q);
		instance_free(i);
		return -EIO;
	}
	/* A predecessor's import still running would race with this one (survivors.c). */
	_cleanup_(survivors_freep) survivors_t *sv = survivors_take(SCF_INSTANCE_EMI);
	for (size_t k = 0; sv && k < sv->n; k++)
		if (sv->groups[k].in_cgroup || sv->groups[k].uid == geteuid())
			survivors_stop(SCF_INSTANCE_EMI, &sv->groups[k]);
	log_info("%s: running early manifest import", SCF_INSTANCE_EMI);
	u.state = RESTARTER_STATE_OFFLINE;
	u.next_state = RESTARTER_STATE_ONLINE;
	u.aux = RESTARTER_AUX_INSERT_IN_GRAPH;
	(void)rpg_write(i, &u);
	if (method_spawn(i, &c, &end) > 0) {
		/*
		 * Its pids recorded at once, as any start's (fsm.h): a startd killed during the
		 * import leaves the group for its successor to find.
		 */
		pgid = c.pid;
		(void)proc_contract_add(pgid, SCF_INSTANCE_EMI, false);
		u.start_pid = u.contract = pgid;
		u.logfile = i->logfile;
		smf_point(SMF_POINT_STARTD_RESTARTER_BEFORE_STATE_WRITE);
		(void)rpg_write(i, &u);
		method_wait(i, &c, &end);
	}
	if (end.outcome != METHOD_EXITED || end.code != 0) {
		log_error("%s: start method failed (%d)", SCF_INSTANCE_EMI, end.code);
		u.state = RESTARTER_STATE_MAINT;
		u.aux = RESTARTER_AUX_METHOD_FAILED;
	} else {
		u.state = RESTARTER_STATE_ONLINE;
		u.aux = RESTARTER_AUX_NONE;
	}
	/* Nothing of it runs on: an online EMI has no contract to watch. */
	if (pgid > 0) {
		proc_contract_remove(pgid);
		(void)proc_group_kill(pgid, SIGTERM, STOP_GRACE_USEC);
	}
	u.next_state = RESTARTER_STATE_NONE;
	u.start_pid = pgid;
	u.contract = 0;
	u.logfile = i->logfile;
	(void)rpg_write(i, &u);
	method_call_done(&c);
	event_queue_retire(&i->q);
	instance_free(i);
	return 0;
}
