/*
 * wait.c: waiting until the restarter has written what a caller waits for (libscf.h, "Waiting
 * for the restarter").  svccfg import waits here for the restarter pgs of what it imported,
 * svcadm -s for the states it asked for.
 *
 * THE MODEL.  A set of instances, each waited for until the caller's predicate answers 1 for
 * it.  The predicate is asked about every instance once, then again only when its answer may
 * have changed: when a notification says that instance's restarter pg was written (recheck 0:
 * the predicate reads nothing else; the notifications queued together are taken together, each
 * instance asked once), or after any restarter notification and at every recheck interval (the
 * predicate reads other instances, or files, whose changes name no instance of ours or send no
 * notification at all).  With scf_restarter_has_state(), the wait for new instances, the
 * questions asked together are one bulk read (scf_bulk_read()) rather than one read each: the
 * first question about a directory's 100 instances is one round trip.  The wait never sleeps blindly: it blocks in
 * scf_notify_wait() until the next notification, the next re-check or the deadline, whichever
 * comes first.
 *
 * INVARIANTS.  left is the number of done[k] still false; an instance answered 1 is never
 * asked again; the function returns only when left is 0, when the deadline has passed, or on
 * an error, which it returns at once so that the handle's errmsg is still the failing call's.
 *
 * NEW INSTANCES.  scf_instance_wait_restarter() is the wait svccfg import, svccfg add and
 * svcadm -s (with SVCADM_WAIT_RESTARTER=1) share, and the one a libscf program calls after
 * creating instances: the exceptions (no restarter attached; early manifest import pending),
 * then step 1 (interest in "restarter"), then scf_restarter_wait() with
 * scf_restarter_has_state(), then, at the deadline, the names of what is still missing and
 * still exists.  It is one home for the exceptions and the deadline (SVCCFG_IMPORT_TIMEOUT,
 * default 60 s); the callers keep only their own words.
 *
 * A FAILING STORE.  The restarter pgs live in configd's non-persistent database; when its
 * filesystem is full, svc.startd's writes are refused, and startd tries them again until they
 * are taken (docs/restarter.md), which may be long after any deadline.  So a wait for new
 * instances that has not progressed for SMF_WAIT_STORE_CHECK_USEC asks configd's record of
 * that store (smf_restarter_store_check()), and ends with -SCF_ERROR_BACKEND_ACCESS, naming
 * the instance, the database and what failed, when its last write was refused: a clear error
 * within seconds instead of a silent wait to the deadline.  A wait that progresses asks nothing.
 */
#include <assert.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "client-internal.h"
#include "hashmap.h"
#include "restarter-wait.h"
#include "restarter.h"

typedef struct wait_set {
	scf_handle_t *h;
	const char *const *fmris;
	bool *done;
	size_t n, left;
	scf_restarter_pred_t pred;
	void *userdata;
	hashmap_t *index; /* FMRI -> its index + 1, for the instance a notification names */
} wait_set_t;

static void mark_done(wait_set_t *s, size_t k)
{
	assert(k < s->n && !s->done[k] && s->left > 0);
	s->done[k] = true;
	s->left--;
}

/* Asks about instance k, unless it is done; < 0 only for the predicate's error. */
static int ask(wait_set_t *s, size_t k)
{
	int r;

	assert(k < s->n);
	if (s->done[k])
		return 0;
	r = s->pred(s->h, s->fmris[k], s->userdata);
	if (r > 0)
		mark_done(s, k);
	return r < 0 ? r : 0;
}

/* scf_restarter_has_state() of a bulk read's answer: a restarter pg with a state. */
static bool has_state(const scf_bulk_entity_t *e)
{
	const scf_property_t *p = scf_pg_property(scf_bulk_entity_pg(e, 0), SCF_PROPERTY_STATE);

	return !e->error && p && p->n_values > 0;
}

typedef struct asked {
	wait_set_t *s;
	const size_t *idx;
	size_t next;
} asked_t;

static int asked_one(const scf_bulk_entity_t *e, void *userdata)
{
	asked_t *a = userdata;
	size_t k = a->idx[a->next++];

	if (has_state(e) && !a->s->done[k])
		mark_done(a->s, k);
	return 0;
}

/*
 * Asks about the instances idx[0..n): with scf_restarter_has_state() (the wait for new
 * instances), all of them in one bulk read of their restarter pgs; else one by one.
 */
static int ask_some(wait_set_t *s, const size_t *idx, size_t n)
{
	static const scf_bulk_pg_t restarter = {.name = SCF_PG_RESTARTER};
	_cleanup_free_ const char **fmris = NULL;

	if (s->pred != scf_restarter_has_state) {
		for (size_t k = 0; k < n; k++) {
			int r = ask(s, idx[k]);

			if (r < 0)
				return r;
		}
		return 0;
	}
	if (n == 0)
		return 0;
	fmris = calloc(n, sizeof(char *));
	if (!fmris)
		return client_set_error(s->h, -SCF_ERROR_NO_MEMORY, "out of memory");
	for (size_t k = 0; k < n; k++)
		fmris[k] = s->fmris[idx[k]];
	return scf_bulk_read(s->h,
	        &(scf_bulk_query_t){.fmris = fmris, .n_fmris = n, .pgs = &restarter, .n_pgs = 1},
	        asked_one, &(asked_t){.s = s, .idx = idx});
}

/* Every instance not done yet. */
static int ask_all(wait_set_t *s)
{
	_cleanup_free_ size_t *idx = malloc((s->n ? s->n : 1) * sizeof(size_t));
	size_t n = 0;

	if (!idx)
		return client_set_error(s->h, -SCF_ERROR_NO_MEMORY, "out of memory");
	for (size_t k = 0; k < s->n; k++)
		if (!s->done[k])
			idx[n++] = k;
	return ask_some(s, idx, n);
}

/* Adds the instance whose restarter pg the notification says was written, if one of ours. */
static int add_named(
        wait_set_t *s, const scf_notification_t *note, size_t **idx, size_t *n, size_t *cap)
{
	uintptr_t k;

	if (note->kind != SCF_NOTIFY_PG_UPDATED || !streq(note->pg, SCF_PG_RESTARTER))
		return 0;
	k = (uintptr_t)hashmap_get(s->index, note->entity);
	if (k == 0 || s->done[k - 1])
		return 0;
	for (size_t i = 0; i < *n; i++)
		if ((*idx)[i] == k - 1)
			return 0;
	if (GREEDY_REALLOC(*idx, *cap, *n + 1) < 0)
		return client_set_error(s->h, -SCF_ERROR_NO_MEMORY, "out of memory");
	(*idx)[(*n)++] = k - 1;
	return 0;
}

/*
 * The instances named by note and by the notifications already queued behind it, asked once
 * each (one bulk read for the wait for new instances: startd writes many pgs in a burst).
 */
static int ask_named(wait_set_t *s, scf_notification_t *note)
{
	_cleanup_free_ size_t *idx = NULL;
	size_t n = 0, cap = 0;
	int r = add_named(s, note, &idx, &n, &cap);

	scf_notification_clear(note);
	while (r >= 0 && (r = scf_notify_wait(s->h, 0, note)) > 0) {
		r = add_named(s, note, &idx, &n, &cap);
		scf_notification_clear(note);
	}
	if (r < 0)
		return r;
	return ask_some(s, idx, n);
}

/* Takes what is queued already: one round of questions answers all of it. */
static int drain(scf_handle_t *h)
{
	scf_notification_t note;
	int r;

	while ((r = scf_notify_wait(h, 0, &note)) > 0)
		scf_notification_clear(&note);
	return r;
}

static int wait_set_index(wait_set_t *s)
{
	s->index = hashmap_new();
	if (!s->index)
		return client_set_error(s->h, -SCF_ERROR_NO_MEMORY, "out of memory");
	for (size_t k = 0; k < s->n; k++) {
		if (hashmap_get(s->index, s->fmris[k]))
			return client_set_error(s->h, -SCF_ERROR_INVALID_ARGUMENT,
			        "%s is given twice", s->fmris[k]);
		if (hashmap_put(s->index, s->fmris[k], (void *)(uintptr_t)(k + 1)) < 0)
			return client_set_error(s->h, -SCF_ERROR_NO_MEMORY, "out of memory");
	}
	return 0;
}

/*
 * Every check_usec of a wait (check_usec > 0), whether it progressed since the last: if no
 * instance got done, the store is asked whether it refuses the restarter's writes
 * (smf_restarter_store_check()), naming the first instance still waited for.  The next check
 * is set check_usec on.  < 0 ends the wait.
 */
static int stall_check(wait_set_t *s, uint64_t check_usec, uint64_t *next, size_t *left_then)
{
	size_t first = 0;
	int r = 0;

	if (check_usec == 0 || deadline_left_usec(*next) > 0)
		return 0;
	if (s->left > 0 && s->left == *left_then) {
		while (s->done[first])
			first++;
		r = smf_restarter_store_check(s->h, s->fmris[first], s->left - 1);
	}
	*left_then = s->left;
	*next = deadline_after_usec(check_usec);
	return r;
}

/*
 * scf_restarter_wait(), or (asked false) its loop alone after a first scf_restarter_wait() that
 * left done[] as it answered: what was asked is not asked again before a notification comes.
 * check_usec > 0: the wait does not go on in silence while the store refuses the restarter's
 * writes (stall_check()).
 */
static int restarter_wait(scf_handle_t *h, const char *const *fmris, size_t n,
        scf_restarter_pred_t pred, void *userdata, uint64_t timeout_usec, uint64_t recheck_usec,
        bool *done, bool asked, uint64_t check_usec)
{
	uint64_t deadline = deadline_after_usec(timeout_usec);
	uint64_t next_check = deadline_after_usec(check_usec);
	size_t left_then;
	_cleanup_free_ bool *own = NULL;
	wait_set_t s = {
	        .h = h, .fmris = fmris, .n = n, .left = n, .pred = pred, .userdata = userdata};
	int r;

	client_clear_error(h);
	if (!pred || (n > 0 && !fmris) || n > INT_MAX)
		return client_set_error(
		        h, -SCF_ERROR_INVALID_ARGUMENT, "no predicate or instances");
	assert(!asked || done);
	if (!done) {
		done = own = calloc(n ? n : 1, sizeof(bool));
		if (!done)
			return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	} else if (!asked)
		memset(done, 0, n * sizeof(bool));
	for (size_t k = 0; asked && k < n; k++)
		s.left -= done[k];
	s.done = done;
	r = wait_set_index(&s);
	if (r >= 0 && !asked)
		r = ask_all(&s);
	left_then = s.left;
	while (r >= 0 && s.left > 0) {
		uint64_t wait = deadline_left_usec(deadline);
		scf_notification_t note;

		if (wait == 0)
			break;
		if (recheck_usec > 0 && recheck_usec < wait)
			wait = recheck_usec;
		if (check_usec > 0 && deadline_left_usec(next_check) < wait)
			wait = deadline_left_usec(next_check);
		r = scf_notify_wait(h, wait, &note);
		if (r < 0)
			break;
		if (recheck_usec == 0) {
			if (r > 0)
				r = ask_named(&s, &note);
		} else {
			scf_notification_clear(&note);
			if (r == 0 && deadline_left_usec(deadline) == 0)
				break;
			r = drain(h);
			if (r >= 0)
				r = ask_all(&s);
		}
		if (r >= 0)
			r = stall_check(&s, check_usec, &next_check, &left_then);
	}
	hashmap_free(s.index);
	return r < 0 ? r : (int)s.left;
}

int scf_restarter_wait(scf_handle_t *h, const char *const *fmris, size_t n,
        scf_restarter_pred_t pred, void *userdata, uint64_t timeout_usec, uint64_t recheck_usec,
        bool *done)
{
	return restarter_wait(
	        h, fmris, n, pred, userdata, timeout_usec, recheck_usec, done, false, 0);
}

int scf_restarter_has_state(scf_handle_t *h, const char *fmri, void *userdata)
{
	_cleanup_(scf_property_freep) scf_property_t *p = NULL;
	int r;

	(void)userdata;
	r = scf_property_read(h, fmri, SCF_PG_RESTARTER, SCF_PROPERTY_STATE, &p);
	if (r == -SCF_ERROR_NOT_FOUND)
		return 0;
	if (r < 0)
		return r;
	return p->n_values > 0;
}

int smf_wait_restarter_default_timeout(uint64_t *ret)
{
	const char *e = getenv(SCF_WAIT_RESTARTER_TIMEOUT_ENV);

	*ret = SCF_WAIT_RESTARTER_DEFAULT_SEC * USEC_PER_SEC;
	if (!e || !*e)
		return 0;
	return parse_seconds_usec(e, ret) < 0 ? -EINVAL : 0;
}

/* The EMI's state when it exists and is neither online nor disabled ("none" for no state). */
static int emi_pending(scf_handle_t *h, char **ret)
{
	_cleanup_(scf_property_freep) scf_property_t *p = NULL;
	restarter_instance_state_t st;
	const char *s;
	int r;

	*ret = NULL;
	r = scf_entity_exists(h, SCF_INSTANCE_EMI);
	if (r <= 0)
		return r;
	r = scf_property_read(h, SCF_INSTANCE_EMI, SCF_PG_RESTARTER, SCF_PROPERTY_STATE, &p);
	if (r < 0 && r != -SCF_ERROR_NOT_FOUND)
		return r;
	s = r >= 0 && p->n_values > 0 ? p->values[0]
	                              : restarter_state_to_string(RESTARTER_STATE_NONE);
	st = restarter_state_from_string(s);
	if (st == RESTARTER_STATE_ONLINE || st == RESTARTER_STATE_DISABLED)
		return 0;
	*ret = strdup(s);
	return *ret ? 1 : client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
}

/*
 * Why a missing restarter pg would never be written: SCF_WAIT_RESTARTER_NO_RESTARTER, or
 * SCF_WAIT_RESTARTER_EMI_PENDING (*ret: the EMI's state); 0 when a restarter will write it;
 * or < 0.
 */
static int nobody_writes(scf_handle_t *h, char **ret)
{
	int r = scf_restarter_attached(h);

	if (r <= 0)
		return r < 0 ? r : SCF_WAIT_RESTARTER_NO_RESTARTER;
	r = emi_pending(h, ret);
	if (r <= 0)
		return r;
	return SCF_WAIT_RESTARTER_EMI_PENDING;
}

typedef struct missing {
	char *list;
	size_t len, cap;
} missing_t;

static int missing_one(const scf_bulk_entity_t *e, void *userdata)
{
	missing_t *m = userdata;

	if (e->error) /* deleted meanwhile: not waited for */
		return 0;
	if (GREEDY_REALLOC(m->list, m->cap, m->len + strlen(e->fmri) + 3) < 0)
		return -SCF_ERROR_NO_MEMORY;
	m->len += (size_t)sprintf(m->list + m->len, "%s%s", m->len ? ", " : "", e->fmri);
	return 0;
}

/*
 * The deadline passed: the instances not done that still exist (one bulk read of the entities
 * alone), joined by ", " (maybe "").
 */
static int still_missing(
        scf_handle_t *h, const char *const *fmris, size_t n, const bool *done, char **ret)
{
	_cleanup_free_ const char **left = calloc(n ? n : 1, sizeof(char *));
	missing_t m = {};
	size_t k = 0;
	int r;

	if (!left)
		return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	for (size_t i = 0; i < n; i++)
		if (!done[i])
			left[k++] = fmris[i];
	r = k ? scf_bulk_read(h, &(scf_bulk_query_t){.fmris = left, .n_fmris = k}, missing_one, &m)
	      : 0;
	if (r == -SCF_ERROR_NO_MEMORY)
		r = client_set_error(h, r, "out of memory");
	if (r < 0) {
		free(m.list);
		return r;
	}
	*ret = m.list ? m.list : strdup("");
	return *ret ? 0 : client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
}

int smf_instance_wait_restarter(scf_handle_t *h, const char *const *fmris, size_t n,
        uint64_t timeout_usec, bool *done, char **ret_detail, smf_wait_begin_fn begin,
        void *userdata)
{
	_cleanup_free_ bool *own = NULL;
	_cleanup_free_ char *detail = NULL;
	int r;

	if (ret_detail)
		*ret_detail = NULL;
	client_clear_error(h);
	if (n > 0 && !fmris)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT, "no instances");
	if (timeout_usec == 0 && smf_wait_restarter_default_timeout(&timeout_usec) < 0)
		return client_set_error(h, -SCF_ERROR_INVALID_ARGUMENT,
		        "%s: \"%s\" is not a number of seconds", SCF_WAIT_RESTARTER_TIMEOUT_ENV,
		        getenv(SCF_WAIT_RESTARTER_TIMEOUT_ENV));
	if (!done) {
		done = own = calloc(n ? n : 1, sizeof(bool));
		if (!done)
			return client_set_error(h, -SCF_ERROR_NO_MEMORY, "out of memory");
	}
	if (n == 0)
		return SCF_WAIT_RESTARTER_DONE;
	/* Step 1 before the first question (libscf.h, "Waiting for the restarter"). */
	r = scf_notify_add_pgname(h, SCF_PG_RESTARTER);
	if (r < 0)
		return r;
	/*
	 * The first question at once, with no deadline to wait for: the restarter has usually
	 * written every pg by then (its window is shorter than a few round trips), and whether a
	 * restarter is attached, or busy with EMI, only matters for a pg still missing.  So the
	 * common case costs the registration and one read; otherwise the wait goes on from that
	 * read's answers (read again only on a notification, as if it had not stopped).
	 */
	r = scf_restarter_wait(h, fmris, n, scf_restarter_has_state, NULL, 0, 0, done);
	if (r < 0)
		return r;
	if (r > 0) {
		int why = nobody_writes(h, &detail);

		if (why < 0)
			return why;
		if (why == SCF_WAIT_RESTARTER_EMI_PENDING && ret_detail)
			*ret_detail = TAKE_PTR(detail);
		if (why != 0)
			return why;
	}
	if (begin)
		begin(n, userdata);
	if (r == 0)
		return SCF_WAIT_RESTARTER_DONE;
	r = restarter_wait(h, fmris, n, scf_restarter_has_state, NULL, timeout_usec, 0, done, true,
	        SMF_WAIT_STORE_CHECK_USEC);
	if (r <= 0)
		return r;
	r = still_missing(h, fmris, n, done, &detail);
	if (r < 0)
		return r;
	if (!*detail)
		return SCF_WAIT_RESTARTER_DONE;
	r = client_set_error(h, -SCF_ERROR_TIMEOUT,
	        "timed out after %.3g s waiting for the restarter to take up %s",
	        (double)timeout_usec / (double)USEC_PER_SEC, detail);
	if (ret_detail)
		*ret_detail = TAKE_PTR(detail);
	return r;
}

int scf_instance_wait_restarter(scf_handle_t *h, const char *const *fmris, size_t n,
        uint64_t timeout_usec, bool *done, char **ret_detail)
{
	return smf_instance_wait_restarter(h, fmris, n, timeout_usec, done, ret_detail, NULL, NULL);
}
