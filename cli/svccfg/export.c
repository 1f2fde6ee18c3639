/*
 * export.c: export, archive and extract, on the bundle writer (writer.h).
 *
 * export FMRI writes one service as a manifest that re-imports to the same repository content;
 * archive writes every service as one bundle of type "archive" (import takes it too); extract
 * writes a profile holding each instance's enabled flag, which apply turns back into the same
 * enabled states.  All go to stdout, or, as in illumos' command language, to FILE after "> FILE"
 * (written whole, then renamed over FILE, so a failed export leaves no half bundle).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli-resolve.h"
#include "commands.h"
#include "strv.h"
#include "writer.h"

/* Splits a trailing "> FILE" off the arguments; -1 if '>' is anywhere else or has no FILE. */
static int redirect(const token_t *args, size_t *n, const char **file)
{
	*file = NULL;
	for (size_t i = 0; i < *n; i++)
		if (args[i].type == TOKEN_REDIRECT) {
			if (i + 2 != *n || !token_is_text(&args[i + 1]))
				return -1;
			*file = args[i + 1].text;
			*n = i;
		}
	return 0;
}

static int write_out(bundle_writer_t *bw, const char *file)
{
	_cleanup_free_ char *tmp = NULL;
	mode_t mask;
	FILE *f;
	int fd, r;

	if (!file)
		return writer_end(bw, stdout);
	if (asprintf(&tmp, "%s.XXXXXX", file) < 0)
		return -ENOMEM;
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* mkostemp() makes it 0600; an exported bundle is an ordinary file. */
	mask = umask(0);
	umask(mask);
	(void)fchmod(fd, 0666 & ~mask);
	if (!(f = fdopen(fd, "w"))) {
		r = -errno;
		close(fd);
		unlink(tmp);
		return r;
	}
	r = writer_end(bw, f);
	if (fclose(f) != 0 && r >= 0)
		r = -errno;
	if (r >= 0 && rename(tmp, file) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

/* r: < 0 a libscf error from building the bundle; then the writing, reported either way. */
static int finish(svccfg_t *c, bundle_writer_t *bw, int r, const char *file)
{
	if (r < 0) {
		writer_free(bw);
		return svccfg_scf_error(c, r, "export");
	}
	r = write_out(bw, file);
	writer_free(bw);
	if (r < 0) {
		svccfg_error(c, "Could not write %s: %s.", file ? file : "standard output",
		        strerror(-r));
		return SVCCFG_ERR;
	}
	return SVCCFG_OK;
}

int cmd_export(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *fmri = NULL, *errmsg = NULL;
	bundle_writer_t bw = {0};
	const char *file;
	scf_handle_t *h;
	int r;

	if (redirect(args, &n, &file) < 0 || n != 1 || !token_is_text(&args[0]))
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
	return finish(c, &bw, r, file);
}

static int write_all(svccfg_t *c, const char *type, const char *name, bool full, const char *file)
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
	return finish(c, &bw, r, file);
}

int cmd_archive(svccfg_t *c, const token_t *args, size_t n)
{
	const char *file;

	if (redirect(args, &n, &file) < 0 || n != 0)
		return SVCCFG_SYNTAX;
	return write_all(c, "archive", "archive", true, file);
}

int cmd_extract(svccfg_t *c, const token_t *args, size_t n)
{
	const char *file;

	if (redirect(args, &n, &file) < 0 || n != 0)
		return SVCCFG_SYNTAX;
	return write_all(c, "profile", "extract", false, file);
}
