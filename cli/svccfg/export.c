/*
 * export.c: export, archive and extract, on the bundle writer (writer.h).
 *
 * export FMRI writes one service as a manifest that re-imports to the same repository content;
 * archive writes every service as one bundle of type "archive" (import takes it too); extract
 * writes a profile holding each instance's enabled flag, which apply turns back into the same
 * enabled states.  All go to stdout, as illumos' do without "> file".
 */
#include <stdlib.h>

#include "cli-resolve.h"
#include "commands.h"
#include "strv.h"
#include "writer.h"

static int finish(svccfg_t *c, bundle_writer_t *bw, int r)
{
	if (r >= 0)
		r = writer_end(bw, stdout);
	writer_free(bw);
	if (r == -SCF_ERROR_NO_MEMORY || r < -_SCF_ERROR_MAX || r >= 0)
		return r < 0 ? (svccfg_error(c, "Could not write the bundle."), SVCCFG_ERR)
		             : SVCCFG_OK;
	return svccfg_scf_error(c, r, "export");
}

int cmd_export(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *fmri = NULL, *errmsg = NULL;
	bundle_writer_t bw = {0};
	scf_handle_t *h;
	int r;

	if (n != 1 || !token_is_text(&args[0]))
		return SVCCFG_SYNTAX;
	if ((r = svccfg_handle(c, &h)) < 0)
		return r;
	r = cli_resolve_one(h, args[0].text, SCF_RESOLVE_SERVICES, &fmri, &errmsg);
	if (r < 0) {
		if (!errmsg)
			return svccfg_scf_error(c, r, args[0].text);
		svccfg_error(c, "%s", errmsg);
		return SVCCFG_ERR;
	}
	r = writer_begin(&bw, h, "manifest", "export");
	if (r >= 0)
		r = writer_service(&bw, fmri);
	return finish(c, &bw, r);
}

static int write_all(svccfg_t *c, const char *type, const char *name, bool full)
{
	_cleanup_strv_free_ char **svcs = NULL;
	bundle_writer_t bw = {0};
	scf_handle_t *h;
	int r;

	if ((r = svccfg_handle(c, &h)) < 0)
		return r;
	if ((r = scf_service_list(h, &svcs)) < 0)
		return svccfg_scf_error(c, r, "svc:");
	r = writer_begin(&bw, h, type, name);
	STRV_FOREACH (s, svcs) {
		if (r < 0)
			break;
		r = full ? writer_service(&bw, *s) : writer_service_enabled(&bw, *s);
	}
	return finish(c, &bw, r);
}

int cmd_archive(svccfg_t *c, const token_t *args, size_t n)
{
	(void)args;
	if (n != 0)
		return SVCCFG_SYNTAX;
	return write_all(c, "archive", "archive", true);
}

int cmd_extract(svccfg_t *c, const token_t *args, size_t n)
{
	(void)args;
	if (n != 0)
		return SVCCFG_SYNTAX;
	return write_all(c, "profile", "extract", false);
}
