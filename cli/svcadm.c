/*
 * svcadm: administrative requests to the restarter, as illumos' svcadm(8).
 *
 * THE MODEL
 *
 * svcadm never talks to svc.startd.  Every request is a write to the repository that startd
 * is subscribed to:
 *   - enable/disable: general/enabled (persistent; then general_ovr/enabled is deleted, in
 *     that order so the effective value never glitches), or with -t general_ovr/enabled in the
 *     NONPERSISTENT pg general_ovr, which configd forgets when it restarts;
 *   - restart, refresh, clear, mark: an integer timestamp property of the NONPERSISTENT pg
 *     restarter_actions (restart, refresh, maint_off, restore, maint_on[_immediate|
 *     _temporary|_immtemp], degraded, degrade_immediate); startd acts on it and deletes it.
 *     refresh first retakes the "running" snapshot, so that the restarter reads the new
 *     configuration when it acts.  In illumos startd retakes it when it handles the action
 *     (smf_refresh_instance() only writes the action); our startd does not, so svcadm does;
 *     when startd does, this take must go (two takes would make "previous" = "running");
 *   - milestone: options_ovr/milestone (or options/milestone with -d) of startd's instance.
 *
 * Operands are FMRIs or abbreviations, expanded as illumos' scf_walk_fmri(): a pattern must
 * name one entity (a service and one of its own instances count as the service); a service
 * stands for all its instances.  Each problem is reported, the other operands go on, and the
 * exit status is 1.
 *
 * -s waits for the result.  The wait is driven by notifications on pgs named "restarter" (the
 * registration comes before the first write, so no state change is missed) and re-checks the
 * state after each one, and at least every 3 s as illumos does for dependencies whose state
 * lives in other instances.  It reads the instance's restarter pg: when it is missing, the
 * instance "is misconfigured (lacks "restarter" property group)" and the exit status is 3.
 * That is deliberate: it is the visible symptom of the import/enable race (startd writes the
 * pg asynchronously), and this tool must keep showing it rather than paper over it.  With
 * SMF_TRACE=1 every such read is traced (svcadm.read_restarter_pg before it, svcadm.result
 * "present", "absent" or "error" after it), so the trace shows a read that beat startd's write.
 *
 * Exit codes: 0 done, 1 fatal (bad operand, permission...), 2 usage, 3 an instance failed
 * (maintenance, disabled/enabled by another entity, misconfigured), 4 dependencies that can
 * never be satisfied (or no restarter to act).
 */
#include <errno.h>
#include <inttypes.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-action.h"
#include "cli-error.h"
#include "cli-resolve.h"
#include "macro.h"
#include "probe.h"
#include "strv.h"
#include "timeutil.h"

#define EXIT_FATAL 1
#define EXIT_USAGE 2
#define EXIT_SVC_FAILURE 3
#define EXIT_DEP_FAILURE 4

/* How often a waiting -s re-checks dependencies even without a notification (illumos: 3 s). */
#define WAIT_INTERVAL_USEC (3 * USEC_PER_SEC)

#define STARTD_FMRI "svc:/system/svc/restarter:default"

static scf_handle_t *h;
static bool verbose;
static int exit_status;
/* A bad operand: reported at once, but as illumos, the good operands are still waited for. */
static bool operand_error;
static const char *progname = "svcadm";

static _printf_(1, 2) void warn(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", progname);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void fail_status(int status)
{
	/* A service failure takes precedence over a dependency failure, as in illumos. */
	if (exit_status == 0 || (status == EXIT_SVC_FAILURE && exit_status == EXIT_DEP_FAILURE))
		exit_status = status;
}

static _noreturn_ void die_scf(int r)
{
	warn("%s.  Exiting.",
	        cli_scf_is_fatal(r) ? "Connection to repository server broken"
	                            : cli_scf_reason(h, r));
	exit(EXIT_FATAL);
}

/* Reports a failed write on fmri and marks the run failed; dies if the handle is unusable. */
static void write_failed(const char *fmri, const char *what, int r)
{
	if (cli_scf_is_fatal(r))
		die_scf(r);
	if (r == -SCF_ERROR_PERMISSION_DENIED) {
		if (verbose)
			warn("%s: Couldn't modify \"%s\" property group (permission denied).", fmri,
			        what);
		else
			warn("%s: Permission denied.", fmri);
	} else if (r == -SCF_ERROR_BACKEND_READONLY)
		warn("%s: Repository read-only.", fmri);
	else
		warn("%s: Couldn't modify \"%s\": %s.", fmri, what, cli_scf_reason(h, r));
	fail_status(EXIT_FATAL);
}

static _noreturn_ void usage(void)
{
	fprintf(stderr,
	        "Usage: %1$s [-v] [cmd [args ... ]]\n\n"
	        "\t%1$s enable [-rst] <service> ...\t- enable and online service(s)\n"
	        "\t%1$s disable [-st] <service> ...\t- disable and offline service(s)\n"
	        "\t%1$s restart <service> ...\t\t- restart specified service(s)\n"
	        "\t%1$s refresh <service> ...\t\t- re-read service configuration\n"
	        "\t%1$s mark [-It] <state> <service> ...\t- set maintenance state\n"
	        "\t%1$s clear <service> ...\t\t- clear maintenance state\n"
	        "\t%1$s milestone [-d] <milestone>\t- advance to a service milestone\n"
	        "\n\tServices can be specified using an FMRI, abbreviation, or fnmatch(7)\n"
	        "\tpattern, as shown in these examples for svc:/network/smtp:sendmail\n\n"
	        "\t%1$s <cmd> svc:/network/smtp:sendmail\n"
	        "\t%1$s <cmd> network/smtp:sendmail\n"
	        "\t%1$s <cmd> network/*mail\n"
	        "\t%1$s <cmd> network/smtp\n"
	        "\t%1$s <cmd> smtp:sendmail\n"
	        "\t%1$s <cmd> smtp\n"
	        "\t%1$s <cmd> sendmail\n",
	        progname);
	exit(EXIT_USAGE);
}

/* ------------------------------------------------------------------------------------------ */
/* Operands                                                                                    */

static bool is_instance(const char *fmri)
{
	const char *p = strstr(fmri, ":/");

	return p && strchr(p + 2, ':');
}

/* "svc:/a/b:i" is an instance of "svc:/a/b". */
static bool instance_of(const char *inst, const char *svc)
{
	size_t n = strlen(svc);

	return strneq(inst, svc, n) && inst[n] == ':';
}

/*
 * "ssh" names svc:/network/ssh and svc:/network/ssh:default: as illumos, that is the service.
 * l is sorted, so the service comes first.
 */
static bool service_and_its_instances(char **l)
{
	if (is_instance(l[0]))
		return false;
	for (size_t k = 1; l[k]; k++)
		if (!instance_of(l[k], l[0]))
			return false;
	return true;
}

/* The instances one operand stands for (possibly none: a service without instances). */
static int expand_operand(const char *pattern, char ***ret)
{
	_cleanup_strv_free_ char **l = NULL, **out = NULL;
	_cleanup_free_ char *msg = NULL;
	const char *one = NULL;
	int r;

	r = cli_resolve_all(h, pattern, SCF_RESOLVE_INSTANCES | SCF_RESOLVE_SERVICES, &l, &msg);
	if (r == -SCF_ERROR_NOT_FOUND) {
		warn("Pattern '%s' doesn't match any instances", pattern);
		return r;
	}
	if (r < 0)
		die_scf(r);
	if (strv_length(l) == 1 || service_and_its_instances(l))
		one = l[0];
	if (!one) {
		warn("Pattern '%s' matches multiple instances:", pattern);
		STRV_FOREACH (s, l)
			fprintf(stderr, "    %s\n", *s);
		return -SCF_ERROR_AMBIGUOUS;
	}
	if (!is_instance(one)) {
		r = scf_instance_list(h, one, &out);
		if (r < 0)
			die_scf(r);
	} else if (strv_extend(&out, one) < 0)
		die_scf(-SCF_ERROR_NO_MEMORY);
	*ret = TAKE_PTR(out);
	return 0;
}

/* Every instance named by the operands, in operand order; bad operands are reported. */
static char **expand_operands(int argc, char **argv)
{
	_cleanup_strv_free_ char **all = strv_new_empty();

	if (!all)
		die_scf(-SCF_ERROR_NO_MEMORY);
	for (int i = 0; i < argc; i++) {
		_cleanup_strv_free_ char **l = NULL;

		if (expand_operand(argv[i], &l) < 0) {
			operand_error = true;
			continue;
		}
		STRV_FOREACH (s, l)
			if (!strv_contains(all, *s) && strv_extend(&all, *s) < 0)
				die_scf(-SCF_ERROR_NO_MEMORY);
	}
	return TAKE_PTR(all);
}

/* ------------------------------------------------------------------------------------------ */
/* Writes                                                                                      */

static int pg_get_or_add(const char *fmri, const char *pg, uint32_t flags)
{
	int r = scf_pg_add(h, fmri, pg, SCF_GROUP_FRAMEWORK, flags);

	return r == -SCF_ERROR_EXISTS ? 0 : r;
}

static int tx_set_enabled(scf_tx_t *tx, void *userdata)
{
	const char *v = *(bool *)userdata ? "true" : "false";

	return scf_tx_set(tx, "enabled", SCF_TYPE_BOOLEAN, &v, 1);
}

static int tx_delete_enabled(scf_tx_t *tx, void *userdata)
{
	(void)userdata;
	if (!scf_pg_property(scf_tx_pg(tx), "enabled"))
		return 0;
	return scf_tx_delete(tx, "enabled");
}

static int set_enabled(const char *fmri, bool temp, bool enable)
{
	const char *pg = temp ? SCF_PG_GENERAL_OVR : SCF_PG_GENERAL;
	int r;

	r = pg_get_or_add(fmri, pg, temp ? SCF_PG_FLAG_NONPERSISTENT : 0);
	if (r >= 0)
		r = scf_tx_run(h, fmri, pg, tx_set_enabled, &enable, 0);
	if (r < 0) {
		write_failed(fmri, pg, r);
		return r;
	}
	if (!temp) {
		r = scf_tx_run(h, fmri, SCF_PG_GENERAL_OVR, tx_delete_enabled, NULL, 0);
		if (r < 0 && r != -SCF_ERROR_NOT_FOUND) {
			write_failed(fmri, SCF_PG_GENERAL_OVR, r);
			return r;
		}
	}
	if (verbose)
		printf("%s %s%s.\n", fmri, temp ? "temporarily " : "",
		        enable ? "enabled" : "disabled");
	return 0;
}

static int set_action(const char *fmri, const char *action)
{
	int r = cli_request_action(h, fmri, action);

	if (r < 0) {
		write_failed(fmri, SCF_PG_RESTARTER_ACTIONS, r);
		return r;
	}
	if (verbose)
		printf("Action %s set for %s.\n", action, fmri);
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Reads                                                                                       */

/* svcadm.result's string for scf_pg_get()'s answer. */
static const char *read_result(int r)
{
	if (r >= 0)
		return "present";
	return r == -SCF_ERROR_NOT_FOUND ? "absent" : "error";
}

/*
 * The instance's state into buf; -1 with the illumos warning when the restarter pg or its
 * state property is missing or malformed.
 */
static int inst_get_state(const char *fmri, char *buf, size_t size)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	const scf_property_t *p;
	const char *s;
	uint64_t flow = smf_trace_flow(fmri);
	int r;

	/* The race manifests as "absent" right after this read; svctrace pairs the two. */
	SMF_PROBE(read_restarter_pg, SMF_TRACE_SVCADM_READ_RESTARTER_PG, flow, fmri);
	r = scf_pg_get(h, fmri, SCF_PG_RESTARTER, NULL, 0, &pg);
	SMF_PROBE(result, SMF_TRACE_SVCADM_RESULT, flow, read_result(r));
	if (r == -SCF_ERROR_NOT_FOUND) {
		warn("%s is misconfigured (lacks \"%s\" property group).", fmri, SCF_PG_RESTARTER);
		return -1;
	}
	if (r < 0)
		die_scf(r);
	p = scf_pg_property(pg, "state");
	if (!p) {
		warn("%s is misconfigured (\"%s\" property group lacks \"state\" property).", fmri,
		        SCF_PG_RESTARTER);
		return -1;
	}
	r = scf_property_get_string(p, &s);
	if (r == -SCF_ERROR_TYPE_MISMATCH) {
		warn("%s is misconfigured (\"%s/state\" property is not of type astring).", fmri,
		        SCF_PG_RESTARTER);
		return -1;
	}
	if (r < 0) {
		warn("%s is misconfigured (\"%s/state\" property is not single-valued).", fmri,
		        SCF_PG_RESTARTER);
		return -1;
	}
	snprintf(buf, size, "%s", s);
	return 0;
}

/* general_ovr/enabled, else general/enabled (composed with the service); absent: false. */
static bool is_enabled(const char *fmri)
{
	static const char *const pgs[] = {SCF_PG_GENERAL_OVR, SCF_PG_GENERAL};

	for (size_t k = 0; k < ELEMENTSOF(pgs); k++) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
		const scf_property_t *p;
		bool b;

		if (scf_pg_get(h, fmri, pgs[k], NULL, SCF_READ_COMPOSED, &pg) < 0)
			continue;
		p = scf_pg_property(pg, "enabled");
		if (p && scf_property_get_boolean(p, &b) >= 0)
			return b;
	}
	return false;
}

static bool has_potential_entity(const char *ent, char ***visited);

static bool file_exists(const char *uri)
{
	const char *path = uri + 5;
	struct stat st;

	if (strneq(path, "//localhost", 11))
		path += 11;
	else if (strneq(path, "//", 2))
		path += 2;
	return stat(path, &st) == 0;
}

/* Can the dependency group pg of fmri ever be satisfied? */
static bool dep_has_potential(const char *fmri, const char *pgname, char ***visited)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	const scf_property_t *grouping, *entities;
	const char *g;
	bool any = false;

	if (scf_pg_get(h, fmri, pgname, NULL, SCF_READ_COMPOSED, &pg) < 0)
		return true;
	grouping = scf_pg_property(pg, "grouping");
	entities = scf_pg_property(pg, "entities");
	if (!grouping || !entities || scf_property_get_string(grouping, &g) < 0)
		return true;
	/* optional_all and exclude_all never make an instance hopeless. */
	if (!streq(g, "require_all") && !streq(g, "require_any"))
		return true;
	for (size_t k = 0; k < entities->n_values; k++) {
		const char *e = entities->values[k];
		bool ok = strneq(e, "file:", 5) ? file_exists(e) : has_potential_entity(e, visited);

		if (!ok && streq(g, "require_all"))
			return false;
		any |= ok;
	}
	return streq(g, "require_all") || any || entities->n_values == 0;
}

static bool deps_have_potential(const char *fmri, char ***visited)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	bool ok = true;

	if (scf_pg_list(h, fmri, NULL, SCF_READ_COMPOSED, &infos, &n) < 0)
		return true;
	for (size_t k = 0; ok && k < n; k++)
		if (streq(infos[k].type, SCF_GROUP_DEPENDENCY))
			ok = dep_has_potential(fmri, infos[k].name, visited);
	scf_pg_info_free(infos, n);
	return ok;
}

/* An instance can come up: it exists, is enabled, not in maintenance, its deps can. */
static bool inst_has_potential(const char *fmri, char ***visited)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	const scf_property_t *p;
	const char *s;

	if (strv_contains(*visited, fmri))
		return true; /* a cycle: judged where it started */
	if (strv_extend(visited, fmri) < 0)
		die_scf(-SCF_ERROR_NO_MEMORY);
	if (scf_entity_exists(h, fmri) <= 0 || !is_enabled(fmri))
		return false;
	if (scf_pg_get(h, fmri, SCF_PG_RESTARTER, NULL, 0, &pg) >= 0 &&
	        (p = scf_pg_property(pg, "state")) && scf_property_get_string(p, &s) >= 0 &&
	        streq(s, "maintenance"))
		return false;
	return deps_have_potential(fmri, visited);
}

static bool has_potential_entity(const char *ent, char ***visited)
{
	_cleanup_free_ char *canon = NULL;
	_cleanup_strv_free_ char **l = NULL;

	if (scf_fmri_canonicalize(ent, &canon) < 0)
		return false;
	if (is_instance(canon))
		return inst_has_potential(canon, visited);
	if (scf_instance_list(h, canon, &l) < 0)
		return false;
	STRV_FOREACH (s, l)
		if (inst_has_potential(*s, visited))
			return true;
	return false;
}

/* illumos' has_potential(): for enable, the dependencies; for both, a restarter to act. */
static bool has_potential(const char *fmri, bool for_disable)
{
	_cleanup_strv_free_ char **visited = strv_new_empty();

	if (scf_restarter_attached(h) <= 0)
		return false;
	if (for_disable)
		return true;
	if (!visited || strv_extend(&visited, fmri) < 0)
		die_scf(-SCF_ERROR_NO_MEMORY);
	return deps_have_potential(fmri, &visited);
}

/* ------------------------------------------------------------------------------------------ */
/* -s                                                                                          */

/* One check: 1 done, 0 keep waiting; a failure is reported and ends the wait (1). */
static int check_enabled(const char *fmri)
{
	char state[64];

	if (inst_get_state(fmri, state, sizeof(state)) < 0) {
		fail_status(EXIT_SVC_FAILURE);
		return 1;
	}
	if (streq(state, "online") || streq(state, "degraded"))
		return 1;
	if (streq(state, "maintenance")) {
		warn("Instance \"%s\" is in maintenance state.", fmri);
		fail_status(EXIT_SVC_FAILURE);
		return 1;
	}
	if (!is_enabled(fmri)) {
		warn("Instance \"%s\" has been disabled by another entity.", fmri);
		fail_status(EXIT_SVC_FAILURE);
		return 1;
	}
	if (!has_potential(fmri, false)) {
		warn("Instance \"%s\" has unsatisfied dependencies.", fmri);
		fail_status(EXIT_DEP_FAILURE);
		return 1;
	}
	return 0;
}

static int check_disabled(const char *fmri)
{
	char state[64];

	if (inst_get_state(fmri, state, sizeof(state)) < 0) {
		fail_status(EXIT_SVC_FAILURE);
		return 1;
	}
	if (streq(state, "disabled"))
		return 1;
	if (streq(state, "maintenance")) {
		warn("Instance \"%s\" is in maintenance state.", fmri);
		fail_status(EXIT_SVC_FAILURE);
		return 1;
	}
	if (is_enabled(fmri)) {
		warn("Instance \"%s\" has been enabled by another entity.", fmri);
		fail_status(EXIT_SVC_FAILURE);
		return 1;
	}
	if (!has_potential(fmri, true)) {
		warn("Restarter for instance \"%s\" is unavailable.", fmri);
		fail_status(EXIT_DEP_FAILURE);
		return 1;
	}
	return 0;
}

/*
 * Re-checks after every restarter notification (any instance's: a dependency's state counts
 * too) and at least every WAIT_INTERVAL; never sleeps.
 */
static void wait_for(const char *fmri, int (*check)(const char *fmri))
{
	while (check(fmri) == 0) {
		scf_notification_t n = {};
		int r = scf_notify_wait(h, WAIT_INTERVAL_USEC, &n);

		if (r < 0)
			die_scf(r);
		scf_notification_clear(&n);
		/* Drain what is queued already: one check covers all of it. */
		while ((r = scf_notify_wait(h, 0, &n)) > 0)
			scf_notification_clear(&n);
		if (r < 0)
			die_scf(r);
	}
}

static void wait_all(char **fmris, int (*check)(const char *fmri))
{
	STRV_FOREACH (f, fmris)
		wait_for(*f, check);
}

static void notify_restarter(void)
{
	int r = scf_notify_add_pgname(h, SCF_PG_RESTARTER);

	if (r < 0)
		die_scf(r);
}

/* ------------------------------------------------------------------------------------------ */
/* enable -r                                                                                   */

static void enable_rec(const char *fmri, bool temp, char ***visited);

static void enable_deps_of(const char *fmri, bool temp, char ***visited)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;

	if (scf_pg_list(h, fmri, NULL, SCF_READ_COMPOSED, &infos, &n) < 0)
		return;
	for (size_t k = 0; k < n; k++) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
		const scf_property_t *g, *e;
		const char *gs;

		if (!streq(infos[k].type, SCF_GROUP_DEPENDENCY) ||
		        scf_pg_get(h, fmri, infos[k].name, NULL, SCF_READ_COMPOSED, &pg) < 0)
			continue;
		g = scf_pg_property(pg, "grouping");
		e = scf_pg_property(pg, "entities");
		if (!g || !e || scf_property_get_string(g, &gs) < 0 ||
		        (!streq(gs, "require_all") && !streq(gs, "require_any")))
			continue;
		if (streq(gs, "require_any") && e->n_values > 1) {
			printf("%s requires one of:\n", fmri);
			for (size_t j = 0; j < e->n_values; j++)
				printf("  %s\n", e->values[j]);
			continue;
		}
		for (size_t j = 0; j < e->n_values; j++)
			if (!strneq(e->values[j], "file:", 5))
				enable_rec(e->values[j], temp, visited);
	}
	scf_pg_info_free(infos, n);
}

/* Enables fmri and, recursively, what it requires (illumos' enable_fmri_rec). */
static void enable_rec(const char *ent, bool temp, char ***visited)
{
	_cleanup_free_ char *fmri = NULL;
	_cleanup_strv_free_ char **l = NULL;

	if (scf_fmri_canonicalize(ent, &fmri) < 0 || strv_contains(*visited, fmri))
		return;
	if (strv_extend(visited, fmri) < 0)
		die_scf(-SCF_ERROR_NO_MEMORY);
	if (!is_instance(fmri)) {
		if (scf_instance_list(h, fmri, &l) < 0 || strv_length(l) == 0) {
			warn("No such service \"%s\".", fmri);
			return;
		}
		if (strv_length(l) > 1) {
			warn("operation on service %s is ambiguous; instance specification needed.",
			        fmri);
			return;
		}
		enable_rec(l[0], temp, visited);
		return;
	}
	if (scf_entity_exists(h, fmri) <= 0) {
		warn("No such instance \"%s\".", fmri);
		return;
	}
	(void)set_enabled(fmri, temp, true);
	enable_deps_of(fmri, temp, visited);
}

/* ------------------------------------------------------------------------------------------ */
/* Subcommands                                                                                 */

static char **operands_or_usage(int argc, char **argv)
{
	if (optind >= argc)
		usage();
	return expand_operands(argc - optind, argv + optind);
}

static int cmd_enable_disable(int argc, char **argv, bool enable)
{
	_cleanup_strv_free_ char **fmris = NULL;
	bool temp = false, wait = false, rec = false;
	int o;

	while ((o = getopt(argc, argv, enable ? "+rst" : "+st")) != -1) {
		if (o == 'r')
			rec = true;
		else if (o == 's')
			wait = true;
		else if (o == 't')
			temp = true;
		else
			usage();
	}
	fmris = operands_or_usage(argc, argv);
	if (wait)
		notify_restarter(); /* before any write, so no state change is missed */
	STRV_FOREACH (f, fmris) {
		if (rec) {
			_cleanup_strv_free_ char **visited = strv_new_empty();

			if (!visited)
				die_scf(-SCF_ERROR_NO_MEMORY);
			enable_rec(*f, temp, &visited);
		} else
			(void)set_enabled(*f, temp, enable);
	}
	/* As illumos: wait only when every operand was valid and every write went through. */
	if (wait && exit_status == 0)
		wait_all(fmris, enable ? check_enabled : check_disabled);
	return operand_error ? EXIT_FATAL : exit_status;
}

static void refresh_one(const char *fmri)
{
	int r = scf_instance_refresh(h, fmri);

	if (r < 0) {
		write_failed(fmri, "running snapshot", r);
		return;
	}
	(void)set_action(fmri, "refresh");
}

static int cmd_action(int argc, char **argv, const char *action)
{
	_cleanup_strv_free_ char **fmris = NULL;

	if (getopt(argc, argv, "+") != -1)
		usage();
	fmris = operands_or_usage(argc, argv);
	STRV_FOREACH (f, fmris) {
		if (streq(action, "refresh"))
			refresh_one(*f);
		else
			(void)set_action(*f, action);
	}
	return operand_error ? EXIT_FATAL : exit_status;
}

static int cmd_clear(int argc, char **argv)
{
	_cleanup_strv_free_ char **fmris = NULL;
	char state[64];

	if (getopt(argc, argv, "+") != -1)
		usage();
	fmris = operands_or_usage(argc, argv);
	STRV_FOREACH (f, fmris) {
		if (inst_get_state(*f, state, sizeof(state)) < 0) {
			fail_status(EXIT_FATAL);
			continue;
		}
		if (streq(state, "maintenance"))
			(void)set_action(*f, "maint_off");
		else if (streq(state, "degraded"))
			(void)set_action(*f, "restore");
		else {
			warn("Instance \"%s\" is not in a maintenance or degraded state.", *f);
			fail_status(EXIT_FATAL);
		}
	}
	return operand_error ? EXIT_FATAL : exit_status;
}

static void mark_degraded(const char *fmri, bool immediate)
{
	char state[64];

	if (inst_get_state(fmri, state, sizeof(state)) < 0) {
		fail_status(EXIT_FATAL);
		return;
	}
	if (!streq(state, "online")) {
		warn("Instance \"%s\" is not online.", fmri);
		fail_status(EXIT_FATAL);
		return;
	}
	(void)set_action(fmri, immediate ? "degrade_immediate" : "degraded");
}

static int cmd_mark(int argc, char **argv)
{
	_cleanup_strv_free_ char **fmris = NULL;
	bool immediate = false, temp = false, maint;
	const char *what, *prop;
	int o;

	while ((o = getopt(argc, argv, "+It")) != -1) {
		if (o == 'I')
			immediate = true;
		else if (o == 't')
			temp = true;
		else
			usage();
	}
	if (argc - optind < 2)
		usage();
	what = argv[optind++];
	if (streq(what, "maintenance"))
		maint = true;
	else if (streq(what, "degraded"))
		maint = false;
	else
		usage();
	if (!maint && temp) {
		warn("-t may not be used with degraded.");
		exit(EXIT_USAGE);
	}
	if (immediate)
		prop = temp ? "maint_on_immtemp" : "maint_on_immediate";
	else
		prop = temp ? "maint_on_temporary" : "maint_on";
	fmris = operands_or_usage(argc, argv);
	STRV_FOREACH (f, fmris) {
		if (maint)
			(void)set_action(*f, prop);
		else
			mark_degraded(*f, immediate);
	}
	return operand_error ? EXIT_FATAL : exit_status;
}

static const char *const milestones[] = {
        "svc:/milestone/single-user:default",
        "svc:/milestone/multi-user:default",
        "svc:/milestone/multi-user-server:default",
};

static _noreturn_ void usage_milestone(void)
{
	fprintf(stderr,
	        "Usage: svcadm milestone [-d] <milestone>\n\n"
	        "\t-d\tmake the specified milestone the default for system boot\n\n"
	        "\tMilestones can be specified using an FMRI or abbreviation.\n"
	        "\tThe major milestones are as follows:\n\n"
	        "\tall\n"
	        "\tnone\n");
	for (size_t k = 0; k < ELEMENTSOF(milestones); k++)
		fprintf(stderr, "\t%s\n", milestones[k]);
	exit(EXIT_USAGE);
}

/* "all", "none", or a major milestone named by a suffix at a component boundary. */
static const char *validate_milestone(const char *m)
{
	size_t len = strlen(m);

	if (streq(m, "all") || streq(m, "none"))
		return m;
	for (size_t k = 0; k < ELEMENTSOF(milestones); k++) {
		const char *t = strstr(milestones[k], m);

		if (t && len > 0 && (t == milestones[k] || t[-1] == '/') &&
		        (t[len] == '\0' || t[len] == ':'))
			return milestones[k];
	}
	fprintf(stderr, "\"%s\" is not a valid major milestone.\n", m);
	usage_milestone();
}

static int tx_set_milestone(scf_tx_t *tx, void *userdata)
{
	const char *v = userdata;

	return scf_tx_set(tx, "milestone", SCF_TYPE_ASTRING, &v, 1);
}

static int tx_delete_milestone(scf_tx_t *tx, void *userdata)
{
	(void)userdata;
	if (!scf_pg_property(scf_tx_pg(tx), "milestone"))
		return 0;
	return scf_tx_delete(tx, "milestone");
}

/* Records the milestone where illumos' startd reads it; this startd does not act on it. */
static int cmd_milestone(int argc, char **argv)
{
	bool dflt = false;
	const char *m, *pg;
	int o, r;

	while ((o = getopt(argc, argv, "+d")) != -1) {
		if (o == 'd')
			dflt = true;
		else
			usage_milestone();
	}
	if (argc - optind != 1)
		usage_milestone();
	m = validate_milestone(argv[optind]);
	if (scf_entity_exists(h, STARTD_FMRI) <= 0) {
		warn("No such instance \"%s\".", STARTD_FMRI);
		return EXIT_FATAL;
	}
	pg = dflt ? "options" : "options_ovr";
	r = scf_pg_add(h, STARTD_FMRI, pg, "application", dflt ? 0 : SCF_PG_FLAG_NONPERSISTENT);
	if (r >= 0 || r == -SCF_ERROR_EXISTS)
		r = scf_tx_run(h, STARTD_FMRI, pg, tx_set_milestone, (void *)m, 0);
	if (r >= 0 && dflt) {
		r = scf_tx_run(h, STARTD_FMRI, "options_ovr", tx_delete_milestone, NULL, 0);
		if (r == -SCF_ERROR_NOT_FOUND)
			r = 0;
	}
	if (r < 0)
		write_failed(STARTD_FMRI, pg, r);
	return exit_status;
}

int main(int argc, char **argv)
{
	const char *cmd;
	int o, r;

	if (argc < 2)
		usage();
	while ((o = getopt(argc, argv, "+v")) != -1) {
		if (o == 'v')
			verbose = true;
		else
			usage();
	}
	if (optind >= argc)
		usage();
	cmd = argv[optind++];
	r = smf_trace_open_env(NULL, "svcadm");
	if (r < 0)
		warn("cannot open a trace file (%s); not tracing.", strerror(-r));
	/* die_scf() and usage() leave through exit(): the file is closed there too. */
	atexit(smf_trace_close);
	r = cli_connect(NULL, &h);
	if (r < 0) {
		warn("Couldn't bind to svc.configd: %s.", cli_scf_phrase(r));
		return EXIT_FATAL;
	}
	/* Each subcommand parses its own options from here on. */
	argc -= optind - 1;
	argv += optind - 1;
	optind = 1;
	if (streq(cmd, "enable"))
		r = cmd_enable_disable(argc, argv, true);
	else if (streq(cmd, "disable"))
		r = cmd_enable_disable(argc, argv, false);
	else if (streq(cmd, "restart") || streq(cmd, "refresh"))
		r = cmd_action(argc, argv, cmd);
	else if (streq(cmd, "clear"))
		r = cmd_clear(argc, argv);
	else if (streq(cmd, "mark"))
		r = cmd_mark(argc, argv);
	else if (streq(cmd, "milestone"))
		r = cmd_milestone(argc, argv);
	else
		usage();
	scf_handle_destroy(h);
	return r;
}
