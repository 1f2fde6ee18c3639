/*
 * apply.c: apply [-n] PROFILE (-n: read and check only).
 *
 * A profile changes existing instances: their enabled flag and the properties it names (a
 * property without a type takes the repository's).  As illumos, a service or instance that does
 * not exist is warned about and skipped; the rest applies.  The whole profile is one batch, so
 * it lands whole or not at all; every instance it touched is then refreshed (in the same batch).
 */
#include <errno.h>

#include "bundles.h"
#include "cli-error.h"
#include "commands.h"
#include "mapping.h"
#include "strv.h"

/* Reads a bundle that must be a profile; 0, or < 0 (reported). */
static int read_profile(svccfg_t *c, const char *file, mf_bundle_t **ret)
{
	_cleanup_bundle_ mf_bundle_t *b = NULL;
	int r;

	if ((r = bundles_read(c, file, &b)) < 0)
		return r;
	if (b->type != MF_BUNDLE_PROFILE) {
		svccfg_error(c, "%s: document is not a profile.", file);
		return -EINVAL;
	}
	*ret = TAKE_PTR(b);
	return 0;
}

static int apply_one(svccfg_t *c, scf_handle_t *h, const char *file)
{
	_cleanup_bundle_ mf_bundle_t *b = NULL;
	_cleanup_free_ char *err = NULL;
	map_ctx_t m = {.h = h, .mode = MAP_APPLY, .warn = stderr};
	int r;

	if ((r = read_profile(c, file, &b)) < 0)
		return r;
	if ((r = scf_batch_new(h, &m.b)) < 0)
		return svccfg_scf_error(c, r, file);
	m.bundle = b;
	r = map_bundle(&m, &err);
	STRV_FOREACH (i, m.instances) {
		if (r >= 0)
			r = scf_batch_refresh(m.b, *i);
	}
	if (r >= 0 && scf_batch_size(m.b) > 0)
		r = scf_batch_commit(m.b);
	if (r < 0 && !cli_scf_is_fatal(r)) {
		if (!err)
			err = map_commit_error(&m, r);
		fprintf(stderr, "%s\n", err ? err : scf_strerror(r));
		svccfg_error(c, "Apply of %s failed; nothing of it was written.", file);
	} else if (r < 0)
		r = svccfg_scf_error(c, r, file);
	else
		r = 0;
	scf_batch_free(m.b);
	map_ctx_done(&m);
	return r;
}

/* apply -n: the profile is read and checked, nothing is applied (illumos: no hash either). */
static int check_one(svccfg_t *c, const char *file)
{
	_cleanup_bundle_ mf_bundle_t *b = NULL;

	return read_profile(c, file, &b);
}

int cmd_apply(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_strv_free_ char **files = NULL;
	scf_handle_t *h = NULL;
	int r, ret = 0;

	char dry = 0;
	int first = args_flags(args, n, "n", &dry);

	if (first < 0 || (size_t)first == n)
		return command_syntax_error(c);
	if ((r = bundles_collect_args(c, args + first, n - first, &files)) < 0)
		return r;
	if (!dry && (r = svccfg_handle(c, &h)) < 0)
		return r;
	STRV_FOREACH (f, files) {
		r = dry ? check_one(c, *f) : apply_one(c, h, *f);
		if (c->fatal)
			return r;
		if (r < 0 && ret >= 0)
			ret = r;
	}
	return ret;
}
