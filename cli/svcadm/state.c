/*
 * state.c: svcadm's reads of what an instance is (its restarter pg, written by startd) and
 * what it should be (general[_ovr]/enabled).
 *
 * state_read() is the read the import/enable race shows up in: right after an import, an
 * instance may have no restarter pg yet.  It says so in illumos' words ("is misconfigured
 * (lacks "restarter" property group)") instead of waiting for the pg, and the trace pairs
 * svcadm.read_restarter_pg (before) with svcadm.result (after) so svctrace can see a read that
 * beat startd's write.  A pg that is missing because configd's non-persistent store refuses
 * startd's writes (a full filesystem) is not called a misconfiguration: the read fails with
 * libscf's sentence naming the store (smf_restarter_store_check()).
 */
#include "probe.h"
#include "restarter-wait.h"
#include "svcadm.h"

/* svcadm.result's string for scf_pg_get()'s answer. */
static const char *read_result(int r)
{
	if (r >= 0)
		return "present";
	return r == -SCF_ERROR_NOT_FOUND ? "absent" : "error";
}

int state_read(const char *fmri, restarter_instance_state_t *ret)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	const scf_property_t *p;
	const char *s;
	uint64_t flow = smf_trace_flow(fmri);
	int r;

	/* The race manifests as "absent" right after this read; svctrace pairs the two. */
	SMF_PROBE(read_restarter_pg, SMF_TRACE_SVCADM_READ_RESTARTER_PG, flow, fmri);
	r = scf_pg_get(svcadm.h, fmri, SCF_PG_RESTARTER, NULL, 0, &pg);
	SMF_PROBE(result, SMF_TRACE_SVCADM_RESULT, flow, read_result(r));
	if (r == -SCF_ERROR_NOT_FOUND) {
		/* Missing because startd cannot write it is no misconfiguration: the caller
		 * reports libscf's sentence, which names the full database. */
		r = smf_restarter_store_check(svcadm.h, fmri, 0);
		if (r < 0)
			return r;
		svcadm_warn("%s is misconfigured (lacks \"%s\" property group).", fmri,
		        SCF_PG_RESTARTER);
		return 0;
	}
	if (r < 0)
		return r;
	p = scf_pg_property(pg, SCF_PROPERTY_STATE);
	if (!p) {
		svcadm_warn("%s is misconfigured (\"%s\" property group lacks \"%s\" property).",
		        fmri, SCF_PG_RESTARTER, SCF_PROPERTY_STATE);
		return 0;
	}
	r = scf_property_get_string(p, &s);
	if (r == -SCF_ERROR_TYPE_MISMATCH) {
		svcadm_warn("%s is misconfigured (\"%s/%s\" property is not of type astring).",
		        fmri, SCF_PG_RESTARTER, SCF_PROPERTY_STATE);
		return 0;
	}
	if (r < 0) {
		svcadm_warn("%s is misconfigured (\"%s/%s\" property is not single-valued).", fmri,
		        SCF_PG_RESTARTER, SCF_PROPERTY_STATE);
		return 0;
	}
	*ret = restarter_state_from_string(s);
	return 1;
}

restarter_instance_state_t state_peek(const char *fmri)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	const scf_property_t *p;
	const char *s;

	if (scf_pg_get(svcadm.h, fmri, SCF_PG_RESTARTER, NULL, 0, &pg) < 0 ||
	        !(p = scf_pg_property(pg, SCF_PROPERTY_STATE)) ||
	        scf_property_get_string(p, &s) < 0)
		return RESTARTER_STATE_NONE;
	return restarter_state_from_string(s);
}

bool state_is_enabled(const char *fmri)
{
	static const char *const pgs[] = {SCF_PG_GENERAL_OVR, SCF_PG_GENERAL};

	for (size_t k = 0; k < ELEMENTSOF(pgs); k++) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
		const scf_property_t *p;
		bool b;

		if (scf_pg_get(svcadm.h, fmri, pgs[k], NULL, SCF_READ_COMPOSED, &pg) < 0)
			continue;
		p = scf_pg_property(pg, SCF_PROPERTY_ENABLED);
		if (p && scf_property_get_boolean(p, &b) >= 0)
			return b;
	}
	return false;
}
