/*
 * methods-batch.c: Batch, many steps in one repository transaction (backend-batch.c).
 *
 * The steps arrive as one array, so a whole manifest costs one round trip.  After the SQLite
 * commit, the batch gets its commit id (configd.write), every pg it created or changed is traced
 * (configd.commit, one event each, pg_deleted for a deletion),
 * then the reply goes, then the notifications the backend collected, in the order their pgs
 * were first touched, as for Commit.
 */
#include <errno.h>
#include <stdlib.h>

#include "macro.h"
#include "methods.h"
#include "probes.h"

typedef struct step_list {
	backend_step_t *steps;
	command_list_t *cmds; /* one per step */
	size_t n, cap_steps, cap_cmds;
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

int method_batch(sd_bus_message *m, void *userdata, sd_bus_error *error)
{
	_cleanup_(step_list_clear) step_list_t l = {};
	connection_t *c = userdata;
	backend_pg_event_t *ev = NULL;
	size_t n_ev = 0;
	int r, applied;

	/*
	 * The writer is checked before anything is parsed: a reader must not make configd (one
	 * thread, serving everyone) read and allocate a batch of any size only to refuse it.
	 */
	r = auth_check_write(c, error, "Batch", NULL);
	if (r < 0)
		return r;
	r = read_steps(m, &l);
	if (r < 0)
		return r;
	applied = backend_batch(connection_backend(c), l.steps, l.n, &ev, &n_ev);
	if (applied < 0)
		return configd_backend_error(c, error, applied);
	probe_write(c, "Batch", NULL);
	for (size_t i = 0; i < n_ev; i++) {
		if (ev[i].created)
			probe_pg_created(&ev[i].pg);
		if (ev[i].deleted)
			probe_pg_deleted(&ev[i].pg);
		else
			probe_pg_committed(&ev[i].pg);
	}
	r = sd_bus_reply_method_return(m, "u", (uint32_t)applied);
	for (size_t i = 0; i < n_ev; i++)
		if (ev[i].deleted)
			notify_pg_deleted(c->configd, &ev[i].pg);
		else
			notify_pg_changed(c->configd, &ev[i].pg);
	backend_pg_events_free(ev, n_ev);
	return r;
}
