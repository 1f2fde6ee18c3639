#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "macro.h"
#include "paths.h"

static int default_root(char **ret)
{
	const char *base;
	char *p;

	if (geteuid() == 0)
		return (*ret = strdup("/")) ? 0 : -ENOMEM;
	base = getenv("XDG_RUNTIME_DIR");
	if (base && *base) {
		if (asprintf(&p, "%s/minismf", base) < 0)
			return -ENOMEM;
	} else {
		base = getenv("HOME");
		if (!base || !*base)
			return -ENOENT;
		if (asprintf(&p, "%s/.local/state/minismf", base) < 0)
			return -ENOMEM;
	}
	*ret = p;
	return 0;
}

int smf_root_resolve(const char *explicit_root, char **ret)
{
	const char *r = explicit_root;
	_cleanup_free_ char *p = NULL;
	size_t n;

	if (!r || !*r)
		r = getenv("SMF_ROOT");
	if (r && *r) {
		if (r[0] == '/')
			p = strdup(r);
		else {
			char cwd[PATH_MAX];

			if (!getcwd(cwd, sizeof(cwd)))
				return negative_errno();
			if (asprintf(&p, "%s/%s", cwd, r) < 0)
				p = NULL;
		}
		if (!p)
			return -ENOMEM;
	} else {
		int k = default_root(&p);

		if (k < 0)
			return k;
	}
	/* No trailing slash, so "root + / + rel" never doubles one; "/" stays "/". */
	n = strlen(p);
	while (n > 1 && p[n - 1] == '/')
		p[--n] = '\0';
	*ret = TAKE_PTR(p);
	return 0;
}

int smf_path(const char *root, const char *rel, char **ret)
{
	char *p;

	if (asprintf(&p, "%s%s%s", root, streq(root, "/") ? "" : "/", rel) < 0)
		return -ENOMEM;
	*ret = p;
	return 0;
}

int smf_mkdir_p(const char *path, unsigned mode)
{
	_cleanup_free_ char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	for (char *s = p + 1;; s++) {
		bool last = *s == '\0';

		if (*s != '/' && !last)
			continue;
		*s = '\0';
		if (mkdir(p, mode) < 0 && errno != EEXIST)
			return negative_errno();
		if (last)
			break;
		*s = '/';
	}
	return 0;
}
