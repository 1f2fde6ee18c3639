/*
 * create-enable.c: a program that installs a service through libscf instead of svccfg: it
 * creates the service (start and stop methods, transient), creates an instance, enables it,
 * and waits until the instance is online, reading the instance's restarter property group the
 * way "svcadm enable -s" does.  Written as a user would write it, race included: the instance
 * exists as soon as it is created, its "restarter" property group only once svc.startd has
 * seen it, so the first read may find none ("misconfigured", exit 3).
 *
 *   usage: create-enable [SERVICE]        (default site/prog; SMF_ROOT names the repository)
 *
 * Built by meson against libscf (build/examples/races/create-enable); create-enable.sh runs it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <libscf.h>

#define WAIT_USEC (60 * UINT64_C(1000000))
#define RECHECK_USEC (3 * UINT64_C(1000000))

/* The service and its methods, in one transaction. */
static int create_service(scf_handle_t *h, const char *svc)
{
	static const char *const truev[] = {":true"}, *const timeout[] = {"60"},
	                         *const transient[] = {"transient"};
	scf_batch_t *b = NULL;
	int r;

	r = scf_batch_new(h, &b);
	if (r >= 0)
		r = scf_batch_service_ensure(b, svc);
	for (int i = 0; r >= 0 && i < 2; i++) {
		const char *m = i == 0 ? "start" : "stop";

		r = scf_batch_pg_ensure(b, svc, m, SCF_GROUP_METHOD, 0);
		if (r >= 0)
			r = scf_batch_prop_set(
			        b, svc, m, SCF_PROPERTY_EXEC, SCF_TYPE_ASTRING, truev, 1);
		if (r >= 0)
			r = scf_batch_prop_set(
			        b, svc, m, SCF_PROPERTY_TIMEOUT, SCF_TYPE_COUNT, timeout, 1);
	}
	if (r >= 0)
		r = scf_batch_pg_ensure(b, svc, "startd", SCF_GROUP_FRAMEWORK, 0);
	if (r >= 0)
		r = scf_batch_prop_set(
		        b, svc, "startd", "duration", SCF_TYPE_ASTRING, transient, 1);
	if (r >= 0)
		r = scf_batch_commit(b);
	scf_batch_free(b);
	return r;
}

/* general/enabled = true, creating the pg. */
static int enable(scf_handle_t *h, const char *inst)
{
	static const char *const truev[] = {"true"};
	scf_tx_t *tx = NULL;
	int r;

	r = scf_pg_add(h, inst, SCF_PG_GENERAL, SCF_GROUP_FRAMEWORK, 0);
	if (r < 0 && r != -SCF_ERROR_EXISTS)
		return r;
	r = scf_tx_begin(h, inst, SCF_PG_GENERAL, &tx);
	if (r >= 0)
		r = scf_tx_set(tx, SCF_PROPERTY_ENABLED, SCF_TYPE_BOOLEAN, truev, 1);
	if (r >= 0)
		r = scf_tx_commit(tx);
	scf_tx_free(tx);
	return r == 0 ? -SCF_ERROR_NO_RESOURCES : r; /* 0: someone else changed general */
}

/* As svcadm -s: online is done; no restarter pg is an error, as in illumos. */
static int online(scf_handle_t *h, const char *fmri, void *userdata)
{
	bool *misconfigured = userdata;
	const scf_property_t *p;
	const char *state = NULL;
	scf_pg_t *pg = NULL;
	int r;

	r = scf_pg_get(h, fmri, SCF_PG_RESTARTER, NULL, 0, &pg);
	if (r == -SCF_ERROR_NOT_FOUND) {
		*misconfigured = true;
		return r;
	}
	if (r < 0)
		return r;
	p = scf_pg_property(pg, SCF_PROPERTY_STATE);
	if (p)
		(void)scf_property_get_string(p, &state);
	r = state && strcmp(state, "online") == 0;
	scf_pg_free(pg);
	return r;
}

int main(int argc, char *argv[])
{
	const char *svc_name = argc > 1 ? argv[1] : "site/prog";
	char svc[256], inst[300];
	const char *fmris[1] = {inst};
	bool misconfigured = false;
	scf_handle_t *h = NULL;
	int r;

	snprintf(svc, sizeof(svc), "svc:/%s", svc_name);
	snprintf(inst, sizeof(inst), "%s:default", svc);
	r = scf_handle_create(NULL, &h);
	if (r < 0) {
		fprintf(stderr, "create-enable: %s\n", scf_strerror(r));
		return 1;
	}
	r = create_service(h, svc);
	if (r >= 0)
		r = scf_instance_add(h, inst);
	/* Registered before the enable, so that no change of the restarter pg is missed. */
	if (r >= 0)
		r = scf_notify_add_pgname(h, SCF_PG_RESTARTER);
	if (r >= 0)
		r = enable(h, inst);
	if (r < 0) {
		fprintf(stderr, "create-enable: %s: %s\n", inst, scf_handle_errmsg(h));
		scf_handle_destroy(h);
		return 1;
	}
	r = scf_restarter_wait(h, fmris, 1, online, &misconfigured, WAIT_USEC, RECHECK_USEC, NULL);
	scf_handle_destroy(h);
	if (misconfigured) {
		fprintf(stderr,
		        "create-enable: %s is misconfigured (lacks \"restarter\" property "
		        "group).\n",
		        inst);
		return 3;
	}
	if (r != 0) {
		fprintf(stderr, "create-enable: %s: %s\n", inst,
		        r > 0 ? "not online within 60 s" : scf_strerror(r));
		return 1;
	}
	return 0;
}
