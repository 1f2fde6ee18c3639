/* cli-resolve.c: abbreviations to canonical FMRIs, with the illumos wording. */
#include <stdio.h>
#include <string.h>

#include "cli-resolve.h"
#include "macro.h"
#include "strv.h"

static const char *no_match_what(unsigned flags)
{
	if ((flags & SCF_RESOLVE_SERVICES) && (flags & SCF_RESOLVE_INSTANCES))
		return "instances or services";
	return (flags & SCF_RESOLVE_SERVICES) ? "services" : "instances";
}

static int no_match(const char *pattern, unsigned flags, char **errmsg)
{
	if (asprintf(errmsg, "Pattern '%s' doesn't match any %s", pattern, no_match_what(flags)) <
	        0)
		return -SCF_ERROR_NO_MEMORY;
	return -SCF_ERROR_NOT_FOUND;
}

int cli_resolve_all(
        scf_handle_t *h, const char *pattern, unsigned flags, char ***ret, char **errmsg)
{
	_cleanup_strv_free_ char **l = NULL;
	int r;

	*errmsg = NULL;
	r = scf_fmri_resolve(h, pattern, flags, &l);
	/* A malformed pattern matches nothing, and illumos says just that. */
	if (r == -SCF_ERROR_INVALID_ARGUMENT || r == -SCF_ERROR_CONSTRAINT_VIOLATED ||
	        (r >= 0 && strv_length(l) == 0))
		return no_match(pattern, flags, errmsg);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(l);
	return 0;
}

static int multiple(const char *pattern, char *const *l, char **errmsg)
{
	char *buf = NULL;
	size_t sz = 0;
	FILE *f = open_memstream(&buf, &sz);

	if (!f)
		return -SCF_ERROR_NO_MEMORY;
	fprintf(f, "Pattern '%s' matches multiple instances:", pattern);
	STRV_FOREACH (s, l) {
		fprintf(f, "\n    %s", *s); /* illumos: SCF_MSG_PATTERN_POSSIBLE */
	}
	if (fclose(f) != 0) {
		free(buf);
		return -SCF_ERROR_NO_MEMORY;
	}
	*errmsg = buf;
	return -SCF_ERROR_AMBIGUOUS;
}

int cli_resolve_one(scf_handle_t *h, const char *pattern, unsigned flags, char **ret, char **errmsg)
{
	_cleanup_strv_free_ char **l = NULL;
	char *one = NULL;
	int r;

	*errmsg = NULL;
	r = scf_fmri_resolve_one(h, pattern, flags, &one);
	if (r >= 0) {
		*ret = one;
		return 0;
	}
	if (r != -SCF_ERROR_AMBIGUOUS && r != -SCF_ERROR_NOT_FOUND &&
	        r != -SCF_ERROR_INVALID_ARGUMENT && r != -SCF_ERROR_CONSTRAINT_VIOLATED)
		return r;
	if (r != -SCF_ERROR_AMBIGUOUS)
		return no_match(pattern, flags, errmsg);

	r = cli_resolve_all(h, pattern, flags, &l, errmsg);
	if (r < 0)
		return r;
	if (strv_length(l) > 1)
		return multiple(pattern, l, errmsg);
	one = strdup(l[0]);
	if (!one)
		return -SCF_ERROR_NO_MEMORY;
	*ret = one;
	return 0;
}
