/*
 * operands.c: svcadm's operands to instances, through illumos' scf_walk_fmri() (cli-resolve.h)
 * with svcadm's flags, SCF_WALK_UNIPARTIAL | SCF_WALK_MULTIPLE (svcadm.c WALK_FLAGS):
 *
 *   - a full FMRI of a service ("svc:/site/multi", "site/multi") stands for all its instances;
 *   - a glob ("site/multi:*") may match any number of instances;
 *   - an abbreviation ("multi") must match one instance: several are refused with "Partial
 *     FMRI 'multi' matches multiple instances:" and the candidates;
 *   - a pattern matching nothing is reported, and the other operands go on (exit status 1).
 * With the global -S STATE there are no operands: every instance whose restarter/state is
 * exactly STATE is selected (an unknown state selects nothing).
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli-error.h"
#include "cli-resolve.h"
#include "strv.h"
#include "svcadm.h"

#define WALK_FLAGS (CLI_WALK_UNIPARTIAL | CLI_WALK_MULTIPLE)

bool fmri_is_instance(const char *fmri)
{
	return cli_fmri_is_instance(fmri);
}

/* -S: restarter/state as written, or NULL; no message, as illumos skips what it cannot read. */
static bool in_state(const char *fmri, const char *want)
{
	_cleanup_(scf_property_freep) scf_property_t *p = NULL;
	const char *s;

	return scf_property_read(svcadm.h, fmri, SCF_PG_RESTARTER, SCF_PROPERTY_STATE, &p) >= 0 &&
	        scf_property_get_string(p, &s) >= 0 && streq(s, want);
}

static int collect(void *userdata, const cli_walk_info_t *info)
{
	char ***all = userdata;

	assert(info->instance);
	if (svcadm.state && !in_state(info->fmri, svcadm.state))
		return 0;
	return strv_extend(all, info->fmri) < 0 ? -SCF_ERROR_NO_MEMORY : 0;
}

static void report(void *userdata, const char *msg)
{
	(void)userdata;
	svcadm_warn("%s", msg);
}

char **operands_expand(int argc, char **argv)
{
	_cleanup_strv_free_ char **all = strv_new_empty();
	int err = 0, r;

	if (!all)
		svcadm_die(-SCF_ERROR_NO_MEMORY);
	assert(argc == 0 || !svcadm.state);
	r = cli_walk(svcadm.h, argc, argv, WALK_FLAGS, collect, report, &all, &err);
	if (r < 0) {
		svcadm_warn("failed to iterate over instances: %s", smf_error_phrase(r));
		exit(EXIT_FATAL);
	}
	if (err)
		svcadm.operand_error = true;
	return TAKE_PTR(all);
}
