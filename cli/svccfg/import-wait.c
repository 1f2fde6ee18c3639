/*
 * import-wait.c: the import wait, the fix for the race between import and the restarter.
 *
 * THE MODEL.  configd commits a new instance; svc.startd learns of it by a notification and,
 * later, from that instance's worker, writes its restarter pg.  Until then the instance looks
 * "misconfigured" to svcadm.  So import, after committing and refreshing every manifest, waits
 * until each instance it wrote has a restarter pg with a state property.  It never polls:
 *
 *   1. register interest in pgs named "restarter" on the handle;
 *   2. THEN read each instance once: whatever startd wrote before step 1 is seen here, and
 *      whatever it writes after step 1 comes as a notification, so nothing falls in between;
 *   3. block in scf_notify_wait() until the deadline, re-reading only the instance a
 *      notification names (a restarter pg can be created empty and filled by a later commit).
 * Steps 2 and 3 are libscf's scf_restarter_wait() with the predicate scf_restarter_has_state(),
 * the loop svcadm -s waits in too.
 *
 * It does not wait (and says so in one line) when nobody would ever write the pg: no restarter
 * is attached (configd --native, startd down), or svc:/system/early-manifest-import:default
 * exists and is neither online nor disabled (startd is still running EMI, which is likely us,
 * and handles no notification until it ends).  Not at all, silently, with SVCCFG_IMPORT_NOWAIT=1
 * (the old behaviour, for the race harness) or with -n (import.c does not call us then).
 *
 * Traced (docs/trace-format.md): import.wait_begin with the number of instances once the
 * interest is registered, and import.wait_done ("ok", "timeout", "error", or "skipped: <why>"
 * whenever the wait is not done at all) once it ends, so a trace tells an import that waited
 * from one that did not.
 *
 * INVARIANTS.  The notification interest is dropped (scf_notify_reset) before returning, so a
 * later command of the same svccfg session does not pile up notifications.  The deadline is
 * bounded (default 60 s, --timeout, SVCCFG_IMPORT_TIMEOUT); reaching it is an error that names
 * every instance still without a state (instances deleted meanwhile are not waited for).
 */
#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "import-wait.h"
#include "probe.h"
#include "restarter.h"
#include "strv.h"
#include "timeutil.h"

/* The instances to wait for: each once (two manifests may name one), with what is done. */
typedef struct wait_set {
	char **fmris; /* sorted, distinct */
	bool *done;
	size_t n;
} wait_set_t;

int import_wait_parse_timeout(const char *s, uint64_t *ret)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !isfinite(v) || v <= 0 || v > 1e9)
		return -EINVAL;
	*ret = (uint64_t)(v * (double)USEC_PER_SEC);
	return 0;
}

int import_wait_default_timeout(svccfg_t *c, uint64_t *ret)
{
	const char *e = getenv("SVCCFG_IMPORT_TIMEOUT");

	*ret = IMPORT_WAIT_DEFAULT_SEC * USEC_PER_SEC;
	if (!e || !*e)
		return 0;
	if (import_wait_parse_timeout(e, ret) < 0) {
		svccfg_error(c, "SVCCFG_IMPORT_TIMEOUT: \"%s\" is not a number of seconds.", e);
		return -EINVAL;
	}
	return 0;
}

/* The EMI instance's state: NULL if it does not exist, "none" if it has no state yet. */
static int emi_state(scf_handle_t *h, char **ret)
{
	_cleanup_(scf_property_freep) scf_property_t *p = NULL;
	int r;

	*ret = NULL;
	r = scf_entity_exists(h, SCF_INSTANCE_EMI);
	if (r <= 0)
		return r;
	r = scf_property_read(h, SCF_INSTANCE_EMI, SCF_PG_RESTARTER, SCF_PROPERTY_STATE, &p);
	if (r < 0 && r != -SCF_ERROR_NOT_FOUND)
		return r;
	*ret = strdup(r >= 0 && p->n_values > 0 ? p->values[0]
	                                        : restarter_state_to_string(RESTARTER_STATE_NONE));
	return *ret ? 1 : -SCF_ERROR_NO_MEMORY;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void wait_set_done(wait_set_t *s)
{
	strv_free(s->fmris);
	free(s->done);
}

static int wait_set_init(wait_set_t *s, char *const *instances)
{
	size_t k = 0;

	*s = (wait_set_t){.fmris = strv_copy(instances), .n = strv_length(instances)};
	s->done = calloc(s->n + 1, sizeof(bool));
	if (!s->fmris || !s->done)
		return -SCF_ERROR_NO_MEMORY;
	qsort(s->fmris, s->n, sizeof(char *), cmp_str);
	/* scf_restarter_wait() takes each instance once. */
	for (size_t i = 0; i < s->n; i++) {
		if (k > 0 && streq(s->fmris[i], s->fmris[k - 1]))
			free(s->fmris[i]);
		else
			s->fmris[k++] = s->fmris[i];
	}
	s->fmris[k] = NULL;
	s->n = k;
	return 0;
}

/* The deadline passed: name what is still missing (and still exists). */
static int report_missing(svccfg_t *c, scf_handle_t *h, wait_set_t *s, uint64_t timeout_usec)
{
	_cleanup_free_ char *list = NULL;
	size_t len = 0, cap = 0, cnt = 0;

	for (size_t k = 0; k < s->n; k++) {
		const char *f = s->fmris[k];

		if (s->done[k] || scf_entity_exists(h, f) == 0)
			continue;
		if (GREEDY_REALLOC(list, cap, len + strlen(f) + 3) < 0)
			return svccfg_scf_error(c, -SCF_ERROR_NO_MEMORY, "import");
		len += sprintf(list + len, "%s%s", cnt++ ? ", " : "", f);
	}
	if (cnt == 0)
		return 0;
	svccfg_error(c,
	        "Timed out after %.3g s waiting for the restarter to take up %s (no "
	        "\"restarter\" property group with a state).",
	        (double)timeout_usec / (double)USEC_PER_SEC, list);
	return -ETIMEDOUT;
}

void import_wait_skipped(const char *why)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "skipped: %s", why);
	SMF_PROBE(wait_done, SMF_TRACE_IMPORT_WAIT_DONE, 0, buf);
}

static void trace_wait_begin(size_t n)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%zu", n);
	SMF_PROBE(wait_begin, SMF_TRACE_IMPORT_WAIT_BEGIN, 0, buf);
}

static void trace_wait_done(int r)
{
	const char *how = "ok";

	if (r < 0)
		how = "error";
	else if (r > 0)
		how = "timeout";
	SMF_PROBE(wait_done, SMF_TRACE_IMPORT_WAIT_DONE, 0, how);
}

/* 1 if we should wait; 0 (said why, *why for the trace) if not; < 0 on a libscf error. */
static int should_wait(svccfg_t *c, scf_handle_t *h, char *const *instances, const char **why)
{
	static bool said_no_restarter;
	_cleanup_free_ char *emi = NULL;
	size_t n = strv_length(instances);
	restarter_instance_state_t s;
	int r;

	*why = "no restarter attached";
	r = scf_restarter_attached(h);
	if (r <= 0) {
		/* Once per process: a command file importing 100 manifests would say it 100 times. */
		if (r == 0 && !said_no_restarter) {
			said_no_restarter = true;
			svccfg_warn(c,
			        "No restarter is attached to the repository; not waiting for "
			        "it to take up %s%s.",
			        instances[0], n > 1 ? " and the other instances" : "");
		}
		return r;
	}
	r = emi_state(h, &emi);
	if (r < 0)
		return r;
	s = restarter_state_from_string(emi);
	if (emi && s != RESTARTER_STATE_ONLINE && s != RESTARTER_STATE_DISABLED) {
		*why = "early-manifest-import pending";
		if (n > 1)
			svccfg_warn(c,
			        "Not validating instance %s (and %zu more) because EMI's state "
			        "is %s.",
			        instances[0], n - 1, emi);
		else
			svccfg_warn(c, "Not validating instance %s because EMI's state is %s.",
			        instances[0], emi);
		return 0;
	}
	return 1;
}

int import_wait(svccfg_t *c, scf_handle_t *h, char *const *instances, uint64_t timeout_usec)
{
	const char *nowait = getenv("SVCCFG_IMPORT_NOWAIT"), *why = NULL;
	wait_set_t s = {};
	int r, q;

	if (!instances || !instances[0]) {
		import_wait_skipped("no instances");
		return 0;
	}
	if (nowait && streq(nowait, "1")) {
		import_wait_skipped("SVCCFG_IMPORT_NOWAIT");
		return 0;
	}
	r = should_wait(c, h, instances, &why);
	if (r < 0) {
		trace_wait_done(r);
		return svccfg_scf_error(c, r, "import");
	}
	if (r == 0) {
		import_wait_skipped(why);
		return 0;
	}
	/* Step 1 before step 2: see the model. */
	if ((r = scf_notify_add_pgname(h, SCF_PG_RESTARTER)) < 0) {
		trace_wait_done(r);
		return svccfg_scf_error(c, r, "import");
	}
	r = wait_set_init(&s, instances);
	if (r >= 0) {
		trace_wait_begin(s.n);
		r = scf_restarter_wait(h, (const char *const *)s.fmris, s.n,
		        scf_restarter_has_state, NULL, timeout_usec, 0, s.done);
		assert(r < 0 || (size_t)r <= s.n);
	}
	q = scf_notify_reset(h);
	if (r >= 0 && q < 0)
		r = q;
	trace_wait_done(r);
	if (r >= 0)
		r = r > 0 ? report_missing(c, h, &s, timeout_usec) : 0;
	else
		r = svccfg_scf_error(c, r, "import");
	wait_set_done(&s);
	return r;
}
