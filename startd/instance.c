/*
 * instance.c: one instance as the restarter holds it (see instance.h), and its worker's
 * repository handle: bound from a pool of idle ones while it has events, and bound again when
 * configd restarts under a step (instance_rebind(), INSTANCE_RETRY()).
 */
#include <stdlib.h>
#include <string.h>

#include "instance.h"
#include "lock.h"
#include "log.h"
#include "macro.h"

instance_t *instance_new(startd_t *m, const char *fmri)
{
	instance_t *i = calloc(1, sizeof(*i));

	if (!i || !(i->fmri = strdup(fmri))) {
		free(i);
		return NULL;
	}
	i->m = m;
	i->fsm.state = RESTARTER_STATE_UNINIT;
	event_queue_init(&i->q);
	return i;
}

void instance_free(instance_t *i)
{
	if (!i)
		return;
	event_queue_done(&i->q);
	scf_handle_destroy(i->h);
	free(i->logfile);
	free(i->fmri);
	free(i);
}

/*
 * Idle handles.  A worker holds a repository handle only while it has events: when its queue
 * is empty it puts the handle here (instance_release()), and binds one from here, or a new one,
 * for its next event.  So a burst of instances that each run a method costs as many
 * connections as workers busy at once, not one per instance for as long as each lingers.  A
 * handle is used by one thread at a time, as ever: it passes from one to the next through the
 * pool's lock.  The epoch moves when configd restarts (instance_handles_flush()): a handle from
 * before is dead, and is destroyed instead of kept.
 */
#define HANDLE_POOL_MAX 32
static struct {
	pthread_mutex_t lock;
	scf_handle_t *h[HANDLE_POOL_MAX];
	size_t n;
	unsigned epoch;
} pool = {.lock = PTHREAD_MUTEX_INITIALIZER};

void instance_release(instance_t *i)
{
	scf_handle_t *h = TAKE_PTR(i->h);

	lock_take(&pool.lock, LOCK_LEAF);
	if (h && i->h_epoch == pool.epoch && pool.n < HANDLE_POOL_MAX)
		pool.h[pool.n++] = TAKE_PTR(h);
	lock_drop(&pool.lock, LOCK_LEAF);
	scf_handle_destroy(h);
}

void instance_handles_flush(bool new_epoch)
{
	scf_handle_t *h[HANDLE_POOL_MAX];
	size_t n;

	lock_take(&pool.lock, LOCK_LEAF);
	n = pool.n;
	memcpy(h, pool.h, n * sizeof(*h));
	pool.n = 0;
	if (new_epoch)
		pool.epoch++;
	lock_drop(&pool.lock, LOCK_LEAF);
	for (size_t k = 0; k < n; k++)
		scf_handle_destroy(h[k]);
}

int instance_bind(instance_t *i)
{
	if (i->h)
		return 0;
	lock_take(&pool.lock, LOCK_LEAF);
	i->h_epoch = pool.epoch;
	if (pool.n > 0)
		i->h = pool.h[--pool.n];
	lock_drop(&pool.lock, LOCK_LEAF);
	if (i->h || scf_handle_create(i->m->root, &i->h) >= 0)
		return 0;
	log_warning("%s: the repository is unavailable; waiting for svc.configd", i->fmri);
	i->h = repo_wait_for_configd(i->m);
	if (!i->h) {
		log_error("%s: the repository did not come back", i->fmri);
		return -SCF_ERROR_NO_SERVER;
	}
	return 0;
}

bool instance_rebind(instance_t *i, int r, unsigned *tries)
{
	scf_handle_t *h;

	instance_assert_worker(i);
	if (!instance_connection_lost(r) || *tries >= INSTANCE_REBIND_TRIES)
		return false;
	(*tries)++;
	log_warning("%s: lost the repository connection; waiting for svc.configd", i->fmri);
	/* The dead handle stays until a live one replaces it: i->h is never NULL in a step. */
	h = repo_wait_for_configd(i->m);
	if (!h) {
		log_error("%s: the repository did not come back", i->fmri);
		return false;
	}
	scf_handle_destroy(i->h);
	i->h = h;
	log_info("%s: reconnected to the repository; retrying", i->fmri);
	return true;
}
