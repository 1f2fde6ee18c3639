/*
 * commands.c: the subcommands that act on instances: enable, disable, restart, refresh,
 * clear, mark.  Each parses its options, expands its operands (or takes the instances of the
 * global -S state), writes (actions.c) and, for enable -s and disable -s, waits (wait.c).
 * Usage errors exit 2 before anything is written.  As illumos' svcadm.c main(), a subcommand
 * needs operands or -S, never both.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strv.h"
#include "svcadm.h"

/* illumos' SCF_COMMENT_MAX_LENGTH: the buffer disable -c is copied into. */
#define COMMENT_MAX 1024

static char **operands_or_usage(int argc, char **argv)
{
	if ((optind >= argc) == !svcadm.state)
		svcadm_usage();
	return operands_expand(argc - optind, argv + optind);
}

static int enable_disable(int argc, char **argv, bool enable)
{
	_cleanup_strv_free_ char **fmris = NULL;
	bool temp = false, wait = false, rec = false;
	int o, r;

	/* As illumos 12721: enable writes an empty comment, so an old one does not linger. */
	svcadm.comment = "";
	while ((o = getopt(argc, argv, enable ? "+rst" : "+c:st")) != -1) {
		if (o == 'r')
			rec = true;
		else if (o == 'c') {
			if (strlen(optarg) >= COMMENT_MAX) {
				svcadm_warn("disable -c comment too long.");
				exit(EXIT_FATAL);
			}
			svcadm.comment = optarg;
		} else if (o == 's')
			wait = true;
		else if (o == 't')
			temp = true;
		else
			svcadm_usage();
	}
	fmris = operands_or_usage(argc, argv);
	/* Before any write, so that no state change is missed (libscf.h, "Waiting for..."). */
	if (wait && (r = scf_notify_add_pgname(svcadm.h, SCF_PG_RESTARTER)) < 0)
		svcadm_die(r);
	STRV_FOREACH (f, fmris) {
		if (rec)
			deps_enable_recursive(*f, temp);
		else
			(void)action_set_enabled(*f, temp, enable);
	}
	/*
	 * As illumos: wait only when every write went through; after a bad operand enable still
	 * waits for the good ones, disable does not (svcadm.c counts the operand errors of
	 * disable in exit_status, those of enable apart).
	 */
	if (wait && svcadm.exit_status == 0 && (enable || !svcadm.operand_error))
		wait_for_states(fmris, enable);
	return svcadm_status();
}

int cmd_enable(int argc, char **argv)
{
	return enable_disable(argc, argv, true);
}

int cmd_disable(int argc, char **argv)
{
	return enable_disable(argc, argv, false);
}

int cmd_restart(int argc, char **argv)
{
	_cleanup_strv_free_ char **fmris = NULL;
	bool dump = false;
	int o;

	while ((o = getopt(argc, argv, "+d")) != -1) {
		if (o == 'd')
			dump = true;
		else
			svcadm_usage();
	}
	fmris = operands_or_usage(argc, argv);
	/* -d: as illumos, do_dump is requested of every instance first, then restart. */
	if (dump)
		STRV_FOREACH (f, fmris)
			(void)action_request(*f, RESTARTER_ACTION_DO_DUMP);
	STRV_FOREACH (f, fmris)
		(void)action_request(*f, RESTARTER_ACTION_RESTART);
	return svcadm_status();
}

/*
 * refresh and clear take no options, as illumos' svcadm.c: every argument is an operand, so
 * "refresh -s FMRI" (which Ansible's service module sends) reports that "-s" matches nothing,
 * refreshes FMRI and exits 1.
 */
int cmd_refresh(int argc, char **argv)
{
	_cleanup_strv_free_ char **fmris = NULL;

	fmris = operands_or_usage(argc, argv);
	STRV_FOREACH (f, fmris)
		(void)action_refresh(*f);
	return svcadm_status();
}

/* The state of an instance the command requires it to be in; false (reported) if not read. */
static bool read_state_or_fail(const char *fmri, restarter_instance_state_t *s)
{
	int r = state_read(fmri, s);

	if (r < 0)
		svcadm_die(r);
	if (r == 0)
		svcadm_fail(EXIT_FATAL);
	return r > 0;
}

int cmd_clear(int argc, char **argv)
{
	_cleanup_strv_free_ char **fmris = NULL;
	restarter_instance_state_t s;

	if (svcadm.state &&
	        !streq(svcadm.state, restarter_state_to_string(RESTARTER_STATE_MAINT)) &&
	        !streq(svcadm.state, restarter_state_to_string(RESTARTER_STATE_DEGRADED))) {
		svcadm_warn("State must be '%s' or '%s'",
		        restarter_state_to_string(RESTARTER_STATE_MAINT),
		        restarter_state_to_string(RESTARTER_STATE_DEGRADED));
		exit(EXIT_FATAL);
	}
	fmris = operands_or_usage(argc, argv);
	STRV_FOREACH (f, fmris) {
		if (!read_state_or_fail(*f, &s))
			continue;
		if (s == RESTARTER_STATE_MAINT)
			(void)action_request(*f, RESTARTER_ACTION_MAINT_OFF);
		else if (s == RESTARTER_STATE_DEGRADED)
			(void)action_request(*f, RESTARTER_ACTION_RESTORE);
		else {
			svcadm_warn(
			        "Instance \"%s\" is not in a maintenance or degraded state.", *f);
			svcadm_fail(EXIT_FATAL);
		}
	}
	return svcadm_status();
}

static void mark_degraded(const char *fmri, bool immediate)
{
	restarter_instance_state_t s;

	if (!read_state_or_fail(fmri, &s))
		return;
	if (s != RESTARTER_STATE_ONLINE) {
		svcadm_warn("Instance \"%s\" is not online.", fmri);
		svcadm_fail(EXIT_FATAL);
		return;
	}
	(void)action_request(
	        fmri, immediate ? RESTARTER_ACTION_DEGRADE_IMMEDIATE : RESTARTER_ACTION_DEGRADED);
}

int cmd_mark(int argc, char **argv)
{
	_cleanup_strv_free_ char **fmris = NULL;
	bool immediate = false, temp = false, maint;
	const char *what, *action;
	int o;

	while ((o = getopt(argc, argv, "+It")) != -1) {
		if (o == 'I')
			immediate = true;
		else if (o == 't')
			temp = true;
		else
			svcadm_usage();
	}
	if (argc - optind < 2)
		svcadm_usage();
	what = argv[optind++];
	switch (restarter_state_from_string(what)) {
	case RESTARTER_STATE_MAINT:
		maint = true;
		break;
	case RESTARTER_STATE_DEGRADED:
		maint = false;
		break;
	default:
		svcadm_usage();
	}
	if (!maint && temp) {
		svcadm_warn("-t may not be used with degraded.");
		exit(EXIT_USAGE);
	}
	if (immediate)
		action = temp ? RESTARTER_ACTION_MAINT_ON_IMMTEMP
		              : RESTARTER_ACTION_MAINT_ON_IMMEDIATE;
	else
		action = temp ? RESTARTER_ACTION_MAINT_ON_TEMPORARY : RESTARTER_ACTION_MAINT_ON;
	fmris = operands_or_usage(argc, argv);
	STRV_FOREACH (f, fmris) {
		if (maint)
			(void)action_request(*f, action);
		else
			mark_degraded(*f, immediate);
	}
	return svcadm_status();
}
