/* bundles.c: manifest files from the command line, and reading one with its diagnostics. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundles.h"
#include "commands.h"
#include "manifest.h"
#include "strv.h"

static bool is_xml(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && streq(name + n - 4, ".xml");
}

static int collect_dir(svccfg_t *c, const char *dir, char ***files)
{
	struct dirent **ents = NULL;
	int n, r = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		r = -errno;
		svccfg_error(c, "Could not read directory %s: %s.", dir, strerror(-r));
		return r;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name;
		_cleanup_free_ char *p = NULL;
		struct stat st;

		if (r < 0 || streq(name, ".") || streq(name, ".."))
			continue;
		if (asprintf(&p, "%s/%s", dir, name) < 0) {
			r = svccfg_oom(c);
			continue;
		}
		if (stat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode))
			r = collect_dir(c, p, files);
		else if (S_ISREG(st.st_mode) && is_xml(name) && strv_extend(files, p) < 0)
			r = svccfg_oom(c);
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return r;
}

int bundles_collect(svccfg_t *c, const char *path, char ***files)
{
	struct stat st;

	/* A path that cannot be read is the reader's to report, with its reason. */
	if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return collect_dir(c, path, files);
	return strv_extend(files, path) < 0 ? svccfg_oom(c) : 0;
}

int bundles_collect_args(svccfg_t *c, const token_t *args, size_t n, char ***files)
{
	int r;

	for (size_t i = 0; i < n; i++) {
		if (!token_is_text(&args[i]))
			return command_syntax_error(c);
		if ((r = bundles_collect(c, args[i].text, files)) < 0)
			return r;
	}
	return 0;
}

int bundles_read(svccfg_t *c, const char *path, mf_bundle_t **ret)
{
	mf_diags_t diags = {0};
	int r;

	r = mf_read_file(path, 0, &diags, ret);
	mf_diags_print(&diags, stderr);
	mf_diags_clear(&diags);
	if (r == -ENOMEM)
		return svccfg_oom(c);
	return r;
}
