/*
 * milestone.c: svcadm milestone [-d], recorded where illumos' startd reads it
 * (options_ovr/milestone of the restarter's instance, or options/milestone with -d for the
 * boot default), as illumos' svcadm.c set_milestone().  The global -S is ignored, and so are
 * words after the milestone, as there.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "svcadm.h"

static const char *const milestones[] = {RESTARTER_MILESTONE_FMRIS};

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

	if (streq(m, RESTARTER_MILESTONE_ALL) || streq(m, RESTARTER_MILESTONE_NONE))
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

	return scf_tx_set(tx, SCF_PROPERTY_MILESTONE, SCF_TYPE_ASTRING, &v, 1);
}

int cmd_milestone(int argc, char **argv)
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
	if (optind >= argc)
		usage_milestone();
	m = validate_milestone(argv[optind]);
	if (scf_entity_exists(svcadm.h, SCF_SERVICE_STARTD) <= 0) {
		svcadm_warn("No such instance \"%s\".", SCF_SERVICE_STARTD);
		return EXIT_FATAL;
	}
	pg = dflt ? SCF_PG_OPTIONS : SCF_PG_OPTIONS_OVR;
	/* Type framework, as illumos (SCF_PG_OPTIONS[_OVR]_TYPE): startd is notified of those. */
	r = scf_pg_add(svcadm.h, SCF_SERVICE_STARTD, pg, SCF_GROUP_FRAMEWORK,
	        dflt ? 0 : SCF_PG_FLAG_NONPERSISTENT);
	if (r >= 0 || r == -SCF_ERROR_EXISTS)
		r = scf_tx_run(svcadm.h, SCF_SERVICE_STARTD, pg, tx_set_milestone, (void *)m, 0);
	/* The boot default takes effect only without a temporary milestone over it. */
	if (r >= 0 && dflt) {
		r = scf_tx_run(svcadm.h, SCF_SERVICE_STARTD, SCF_PG_OPTIONS_OVR,
		        tx_delete_if_present, (void *)SCF_PROPERTY_MILESTONE, 0);
		if (r == -SCF_ERROR_NOT_FOUND)
			r = 0;
	}
	if (r < 0)
		action_write_failed(SCF_SERVICE_STARTD, pg, r);
	return svcadm.exit_status;
}
