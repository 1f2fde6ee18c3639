/*
 * emi.c: early manifest import.
 *
 * As illumos, before startd listens to the repository it runs the start method of
 * svc:/system/early-manifest-import:default, when that instance exists and is enabled, to
 * completion (typically "svccfg import $SMF_ROOT/var/svc/manifest"), and marks it online.
 * While it runs, the instance exists and is not online, which is how svccfg import knows not
 * to wait for restarter pgs that startd is not yet writing.  It runs in the main thread with
 * the main handle; the reaper must already run (method waits depend on it).  When the graph
 * later inserts the instance, its worker finds it online and keeps it so (see recover()).
 */
#include <errno.h>
#include <signal.h>

#include "instance.h"
#include "log.h"
#include "macro.h"
#include "proc.h"
#include "startd.h"
#include "timeutil.h"

#define EMI_FMRI "svc:/system/early-manifest-import:default"

static bool emi_enabled(scf_handle_t *h)
{
	const char *pgs[] = {SCF_PG_GENERAL_OVR, SCF_PG_GENERAL};

	for (size_t k = 0; k < ELEMENTSOF(pgs); k++) {
		scf_pg_t *pg = NULL;
		const scf_property_t *p;
		bool e = false;
		int r = -1;

		if (scf_pg_get(h, EMI_FMRI, pgs[k], NULL, k ? SCF_READ_COMPOSED : 0, &pg) >= 0 &&
		        (p = scf_pg_property(pg, "enabled")))
			r = scf_property_get_boolean(p, &e);
		scf_pg_free(pg);
		if (r >= 0)
			return e;
	}
	return false;
}

int emi_run(Manager *m)
{
	method_result_t res = METHOD_OK;
	StateUpdate u = {.start_pid = -1, .contract = -1};
	Inst *i;
	int code = 0, r;

	if (scf_entity_exists(m->main_h, EMI_FMRI) <= 0 || !emi_enabled(m->main_h))
		return 0;
	i = inst_new(m, EMI_FMRI);
	if (!i)
		return -ENOMEM;
	i->h = m->main_h;
	log_info("%s: running early manifest import", EMI_FMRI);
	u.state = RSTATE_OFFLINE;
	u.next_state = RSTATE_ONLINE;
	u.aux = "insert_in_graph";
	(void)rpg_write(i->h, i->fmri, &u);
	r = method_run(i, "start", false, &res, &code);
	if (r < 0 || res != METHOD_OK) {
		log_error("%s: start method failed (%d)", EMI_FMRI, r < 0 ? r : code);
		u.state = RSTATE_MAINT;
		u.aux = "method_failed";
	} else {
		u.state = RSTATE_ONLINE;
		u.aux = "none";
	}
	/* Nothing of it runs on: an online EMI has no contract to watch. */
	if (i->pgid > 0) {
		proc_contract_remove(i->pgid);
		(void)proc_group_kill(i->pgid, SIGTERM, 5 * USEC_PER_SEC);
	}
	u.next_state = RSTATE_NONE;
	u.start_pid = i->start_pid;
	u.contract = 0;
	u.logfile = i->logfile;
	(void)rpg_write(i->h, i->fmri, &u);
	i->h = NULL;
	inst_free(i);
	return 0;
}
