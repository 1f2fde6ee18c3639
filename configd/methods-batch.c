/*
 * methods-batch.c: Batch, many steps in one repository transaction (backend-batch.c).
 *
 * The steps arrive as one array, so a whole manifest costs one round trip.  After the SQLite
 * commit, the batch gets its commit id (configd.write), every instance it created is traced
 * (configd.instance_added) and every pg it created, changed or deleted (configd.pg_created and
 * configd.commit, or configd.pg_deleted, one event each); the delay point configd.commit.after
 * comes next, then the reply, then the notifications: InstanceAdded for each new instance, in
 * creation order, then the pg signals the backend collected, in the order their pgs were first
 * touched, as for Commit.
 */
#include <errno.h>
#include <stdlib.h>

#include "delay.h"
#include "macro.h"
#include "methods.h"
#include "probes.h"
#include "strv.h"

typedef struct step_list {
	backend_step_t *steps;
	command_list_t *cmds; /* one per step */
	size_t n, cap_steps, cap_cmds;
	size_t over; /* after -E2BIG: the step whose command has too many values */
} step_list_t;

static void step_list_clear(step_list_t *l)
{
	for (size_t i = 0; i < l->n; i++)
		command_list_clear(&l->cmds[i]);
	free(l->cmds);
	free(l->steps);
	*l = (step_list_t){};
}

/* Reads one "(" SMF_BUS_STEP ")"; 0 at the end of the array. */
static int read_step(sd_bus_message *m, step_list_t *l)
{
	backend_step_t *s;
	int r;

	r = sd_bus_message_enter_container(m, 'r', SMF_BUS_STEP);
	if (r <= 0)
		return r;
	if (GREEDY_REALLOC(l->steps, l->cap_steps, l->n + 1) < 0 ||
	        GREEDY_REALLOC(l->cmds, l->cap_cmds, l->n + 1) < 0)
		return -ENOMEM;
	s = &l->steps[l->n];
	*s = (backend_step_t){};
	l->cmds[l->n++] = (command_list_t){};
	r = sd_bus_message_read(
	        m, "ussssu", &s->op, &s->fmri, &s->pg, &s->name, &s->type, &s->flags);
	if (r >= 0)
		r = read_commands(m, &l->cmds[l->n - 1]);
	if (r == -E2BIG)
		l->over = l->n - 1;
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	return r < 0 ? r : 1;
}

static int read_steps(sd_bus_message *m, step_list_t *l)
{
	int r = sd_bus_message_enter_container(m, 'a', "(" SMF_BUS_STEP ")");

	while (r >= 0 && (r = read_step(m, l)) > 0)
		;
	if (r >= 0)
		r = sd_bus_message_exit_container(m);
	if (r < 0)
		return r;
	/* Only now: the command arrays may have moved while the list grew. */
	for (size_t i = 0; i < l->n; i++) {
		l->steps[i].cmds = l->cmds[i].cmds;
		l->steps[i].n_cmds = l->cmds[i].n;
	}
	return 0;
}

/* As backend-batch.c's step_fail() words a step's refusal, before anything was applied. */
static int refuse_step(sd_bus_error *error, const step_list_t *l)
{
	const backend_step_t *s = &l->steps[l->over];
	_cleanup_(sd_bus_error_free) sd_bus_error inner = SD_BUS_ERROR_NULL;
	int r = refuse_too_many_values(&inner, s->fmri, s->pg, &l->cmds[l->over]);

	if (!sd_bus_error_is_set(&inner))
		return r;
	return configd_errorf(error, inner.name, "step %zu (%s/:properties/%s): %s", l->over + 1,
	        strempty(s->fmri), strempty(s->pg), inner.message);
}

int method_batch(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(step_list_clear) step_list_t l = {};
	_cleanup_strv_free_ char **added = NULL;
	connection_t *c = userdata;
	backend_pg_event_t *ev = NULL;
	size_t n_ev = 0;
	int r, applied;

	/*
	 * The writer is checked before anything is parsed: a reader must not make configd (one
	 * thread, serving everyone) read and allocate a batch of any size only to refuse it.
	 */
	r = auth_check_write(c, error, smf_method_batch.name, NULL);
	if (r < 0)
		return r;
	r = read_steps(m, &l);
	if (r == -E2BIG)
		return refuse_step(error, &l);
	if (r < 0)
		return r;
	applied = backend_batch_added(connection_backend(c), l.steps, l.n, &ev, &n_ev, &added);
	if (applied < 0)
		return configd_backend_error(c, error, applied);
	probe_write(c, smf_method_batch.name, NULL);
	STRV_FOREACH (a, added)
		probe_instance_added(*a);
	for (size_t i = 0; i < n_ev; i++) {
		if (ev[i].created)
			probe_pg_created(&ev[i].pg);
		if (ev[i].deleted)
			probe_pg_deleted(&ev[i].pg);
		else
			probe_pg_committed(&ev[i].pg);
	}
	smf_point(SMF_POINT_CONFIGD_COMMIT_AFTER);
	r = sd_bus_reply_method_return(m, smf_method_batch.out, (uint32_t)applied);
	STRV_FOREACH (a, added)
		notify_instance_added(c->configd, *a);
	for (size_t i = 0; i < n_ev; i++)
		if (ev[i].deleted)
			notify_pg_deleted(c->configd, &ev[i].pg);
		else
			notify_pg_changed(c->configd, &ev[i].pg);
	backend_pg_events_free(ev, n_ev);
	return r;
}
