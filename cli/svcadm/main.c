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
 * Operands are FMRIs, abbreviations or globs, expanded as illumos' scf_walk_fmri() with
 * svcadm's flags (operands.c): a service FMRI stands for all its instances, an abbreviation
 * must name one instance.  Each problem is reported, the other operands go on, and the exit
 * status is 1.  With the global -S STATE the command acts on every instance in that state.
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
#include <assert.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-error.h"
#include "cut.h"
#include "macro.h"
#include "svcadm.h"
#include "trace.h"

static const char *progname = "svcadm";

svcadm_t svcadm;

void svcadm_warn(const char *fmt, ...)
{
	_cleanup_free_ char *msg = NULL;
	va_list ap;

	/* Messages quote operands and values: cut and escaped as every message is (cut.h). */
	va_start(ap, fmt);
	msg = smf_cut_vformat(fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s: %s\n", progname, msg ? msg : fmt);
}

void svcadm_fail(int status)
{
	assert(status >= EXIT_FATAL && status <= EXIT_DEP_FAILURE);
	if (svcadm.exit_status == 0 ||
	        (status == EXIT_SVC_FAILURE && svcadm.exit_status == EXIT_DEP_FAILURE))
		svcadm.exit_status = status;
}

int svcadm_status(void)
{
	return svcadm.operand_error ? EXIT_FATAL : svcadm.exit_status;
}

void svcadm_die(int r)
{
	assert(r < 0);
	svcadm_warn("%s.  Exiting.",
	        cli_scf_is_fatal(r) && r != -SCF_ERROR_TIMEOUT
	                ? "Connection to repository server broken"
	                : cli_scf_reason(svcadm.h, r));
	exit(EXIT_FATAL);
}

void svcadm_usage(void)
{
	fprintf(stderr,
	        "Usage: %1$s [-S <state>] [-v] [cmd [args ... ]]\n\n"
	        "\t%1$s enable [-rst] [<service> ...]\t- enable and online service(s)\n"
	        "\t%1$s disable [-c comment] [-st] [<service> ...] - disable service(s)\n"
	        "\t%1$s restart [-d] [<service> ...]\t- restart specified service(s)\n"
	        "\t%1$s refresh [<service> ...]\t\t- re-read service configuration\n"
	        "\t%1$s mark [-It] <state> [<service> ...] - set maintenance state\n"
	        "\t%1$s clear [<service> ...]\t\t- clear maintenance state\n"
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

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
} commands[] = {
        {"enable", cmd_enable},
        {"disable", cmd_disable},
        {"restart", cmd_restart},
        {"refresh", cmd_refresh},
        {"clear", cmd_clear},
        {"mark", cmd_mark},
        {"milestone", cmd_milestone},
};

int main(int argc, char **argv)
{
	int (*run)(int argc, char **argv) = NULL;
	const char *cmd;
	int o, r;

	if (argc < 2)
		svcadm_usage();
	while ((o = getopt(argc, argv, "+S:vZz:")) != -1) {
		if (o == 'v')
			svcadm.verbose = true;
		else if (o == 'S')
			svcadm.state = optarg;
		else if (o == 'Z' || o == 'z') {
			/* There are no zones here (docs/compat.md). */
			svcadm_warn("zones are not supported.");
			exit(EXIT_USAGE);
		} else
			svcadm_usage();
	}
	if (optind >= argc)
		svcadm_usage();
	cmd = argv[optind++];
	/* Its exit status is recorded, and the file closed, at exit (svcadm_die() included). */
	r = smf_trace_open_command(NULL, "svcadm");
	if (r < 0)
		svcadm_warn("cannot open a trace file (%s); not tracing.", strerror(-r));
	r = cli_connect(NULL, &svcadm.h);
	if (r < 0) {
		svcadm_warn("Couldn't bind to configuration repository: %s.", smf_error_phrase(r));
		return EXIT_FATAL;
	}
	/* Each subcommand parses its own options from here on. */
	argc -= optind - 1;
	argv += optind - 1;
	optind = 1;
	for (size_t k = 0; k < ELEMENTSOF(commands); k++)
		if (streq(cmd, commands[k].name))
			run = commands[k].run;
	if (!run)
		svcadm_usage();
	r = run(argc, argv);
	scf_handle_destroy(svcadm.h);
	return r;
}
