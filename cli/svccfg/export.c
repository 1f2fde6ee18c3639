/*
 * export.c: export, archive and extract: the repository read into a bundle (unmap.c), written
 * by the manifest library (writer.h).
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
#include "mapping.h"
#include "writer.h"

/*
 * Splits a trailing "> FILE" off the arguments; -EINVAL (not reported: a syntax error) if '>'
 * is anywhere else or has no FILE.
 */
static int redirect(const token_t *args, size_t *n, const char **file)
{
	*file = NULL;
	for (size_t i = 0; i < *n; i++)
		if (args[i].type == TOKEN_REDIRECT) {
			if (i + 2 != *n || !token_is_text(&args[i + 1]))
				return -EINVAL;
			*file = args[i + 1].text;
			*n = i;
		}
	return 0;
}

/*
 * A leading "-a" (illumos: also the values of read-protected pgs): skipped, since every value
 * here is readable by whoever may connect.  Any other word starting with '-' is a syntax error.
 */
static int all_values(const token_t **args, size_t *n)
{
	if (*n > 0 && token_is_text(&(*args)[0]) && (*args)[0].text[0] == '-') {
		if (!streq((*args)[0].text, "-a"))
			return -EINVAL;
		(*args)++;
		(*n)--;
	}
	return 0;
}

static int write_out(const mf_bundle_t *b, const char *file)
{
	_cleanup_free_ char *tmp = NULL;
	mode_t mask;
	FILE *f;
	int fd, r;

	if (!file)
		return mf_bundle_write(b, stdout);
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
	r = mf_bundle_write(b, f);
	if (fclose(f) != 0 && r >= 0)
		r = -errno;
	if (r >= 0 && rename(tmp, file) < 0)
		r = -errno;
	if (r < 0)
		unlink(tmp);
	return r;
}

/*
 * r: < 0 a libscf error from reading the bundle (why: unmap_service()'s sentence, if it gave
 * one); then the writing, reported either way.  Nothing is written unless the whole bundle was
 * read and can be written.
 */
static int finish(svccfg_t *c, const mf_bundle_t *b, int r, const char *why, const char *file)
{
	if (r < 0 && why) {
		svccfg_error(c, "%s.", why);
		return r;
	}
	if (r < 0)
		return svccfg_scf_error(c, r, "export");
	r = write_out(b, file);
	if (r == -EILSEQ) {
		/* unmap_service() should have found it first: the writer's own guard. */
		svccfg_error(c, "Could not write %s: a value holds a character XML cannot carry.",
		        file ? file : "standard output");
		return r;
	}
	if (r < 0) {
		svccfg_error(c, "Could not write %s: %s.", file ? file : "standard output",
		        strerror(-r));
		return r;
	}
	return 0;
}

int cmd_export(svccfg_t *c, const token_t *args, size_t n)
{
	_cleanup_free_ char *fmri = NULL, *why = NULL;
	_cleanup_bundle_ mf_bundle_t *b = NULL;
	const char *file;
	scf_handle_t *h;
	int r;

	if (redirect(args, &n, &file) < 0 || all_values(&args, &n) < 0 || n != 1 ||
	        !token_is_text(&args[0]))
		return command_syntax_error(c);
	if ((r = svccfg_handle(c, &h)) < 0)
		return r;
	/* As illumos' lscf_service_export(): services only. */
	r = svccfg_walk_one(c, args[0].text, CLI_WALK_SERVICE | CLI_WALK_NOINSTANCE, &fmri);
	if (r < 0)
		return r;
	r = unmap_bundle_new(MF_BUNDLE_MANIFEST, "export", &b);
	if (r >= 0)
		r = unmap_service(h, fmri, UNMAP_FULL, b, &why);
	return finish(c, b, r, why, file);
}

static int write_all(
        svccfg_t *c, mf_bundle_type_t type, const char *name, unmap_depth_t depth, const char *file)
{
	_cleanup_strv_free_ char **svcs = NULL;
	_cleanup_bundle_ mf_bundle_t *b = NULL;
	_cleanup_free_ char *why = NULL;
	scf_handle_t *h;
	int r;

	if ((r = svccfg_handle(c, &h)) < 0)
		return r;
	if ((r = scf_service_list(h, &svcs)) < 0)
		return svccfg_scf_error(c, r, "svc:");
	r = unmap_bundle_new(type, name, &b);
	STRV_FOREACH (s, svcs) {
		if (r < 0)
			break;
		r = unmap_service(h, *s, depth, b, &why);
	}
	return finish(c, b, r, why, file);
}

int cmd_archive(svccfg_t *c, const token_t *args, size_t n)
{
	const char *file;

	if (redirect(args, &n, &file) < 0 || all_values(&args, &n) < 0 || n != 0)
		return command_syntax_error(c);
	return write_all(c, MF_BUNDLE_ARCHIVE, "archive", UNMAP_FULL, file);
}

int cmd_extract(svccfg_t *c, const token_t *args, size_t n)
{
	const char *file;

	if (redirect(args, &n, &file) < 0 || n != 0)
		return command_syntax_error(c);
	return write_all(c, MF_BUNDLE_PROFILE, "extract", UNMAP_ENABLED, file);
}
