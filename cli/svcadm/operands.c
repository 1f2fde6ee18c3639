/*
 * operands.c: svcadm's operands to instances, as illumos' scf_walk_fmri().
 *
 * A pattern (an FMRI, an abbreviation, a glob) must name one entity; "ssh" naming
 * svc:/network/ssh and svc:/network/ssh:default names the service.  A service stands for all
 * its instances (possibly none).  A pattern that names nothing, or several entities, is
 * reported, marks the run (exit 1), and the other operands go on.
 */
#include <assert.h>
#include <stdio.h>
#include <string.h>

#include "cli-resolve.h"
#include "strv.h"
#include "svcadm.h"

bool fmri_is_instance(const char *fmri)
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

/* l is sorted, so the service comes first. */
static bool service_and_its_instances(char **l)
{
	if (fmri_is_instance(l[0]))
		return false;
	for (size_t k = 1; l[k]; k++)
		if (!instance_of(l[k], l[0]))
			return false;
	return true;
}

/* The instances one operand stands for; < 0 (reported) for a bad operand. */
static int expand_operand(const char *pattern, char ***ret)
{
	_cleanup_strv_free_ char **l = NULL, **out = NULL;
	_cleanup_free_ char *msg = NULL;
	const char *one = NULL;
	int r;

	r = cli_resolve_all(
	        svcadm.h, pattern, SCF_RESOLVE_INSTANCES | SCF_RESOLVE_SERVICES, &l, &msg);
	if (r == -SCF_ERROR_NOT_FOUND) {
		svcadm_warn("Pattern '%s' doesn't match any instances", pattern);
		return r;
	}
	if (r < 0)
		svcadm_die(r);
	assert(l && l[0]);
	if (strv_length(l) == 1 || service_and_its_instances(l))
		one = l[0];
	if (!one) {
		svcadm_warn("Pattern '%s' matches multiple instances:", pattern);
		STRV_FOREACH (s, l)
			fprintf(stderr, "    %s\n", *s);
		return -SCF_ERROR_AMBIGUOUS;
	}
	if (!fmri_is_instance(one)) {
		r = scf_instance_list(svcadm.h, one, &out);
		if (r < 0)
			svcadm_die(r);
	} else if (strv_extend(&out, one) < 0)
		svcadm_die(-SCF_ERROR_NO_MEMORY);
	*ret = TAKE_PTR(out);
	return 0;
}

char **operands_expand(int argc, char **argv)
{
	_cleanup_strv_free_ char **all = strv_new_empty();

	if (!all)
		svcadm_die(-SCF_ERROR_NO_MEMORY);
	for (int i = 0; i < argc; i++) {
		_cleanup_strv_free_ char **l = NULL;

		if (expand_operand(argv[i], &l) < 0) {
			svcadm.operand_error = true;
			continue;
		}
		STRV_FOREACH (s, l)
			if (!strv_contains(all, *s) && strv_extend(&all, *s) < 0)
				svcadm_die(-SCF_ERROR_NO_MEMORY);
	}
	return TAKE_PTR(all);
}
