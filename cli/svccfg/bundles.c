/* bundles.c: manifest files from the command line, and reading one with its diagnostics. */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "bundles.h"
#include "hashmap.h"
#include "commands.h"
#include "manifest.h"
#include "strv.h"

static bool is_xml(const char *name)
{
	size_t n = strlen(name);

	return n > 4 && streq(name + n - 4, ".xml");
}

/*
 * A walk below the directories named on the command line.  Each directory is read once, known by
 * its device and inode: a link back to one already read (two links to "." made 2^40 paths) is
 * skipped and named in a warning, so the walk's time is bounded by the tree, not its links.
 */
typedef struct walk {
	svccfg_t *c;
	char ***files;
	hashmap_t *seen; /* "dev:ino" -> the path it was read under (malloc'd) */
} walk_t;

static void walk_done(walk_t *w)
{
	size_t state = 0;
	char *path;

	while (w->seen && (path = hashmap_next(w->seen, &state, NULL)))
		free(path);
	w->seen = hashmap_free(w->seen);
}

/* The path dir was first read under, or NULL (then it is recorded as read, under path). */
static const char *walk_seen(walk_t *w, const struct stat *st, const char *path, int *r)
{
	char key[64];
	char *copy;
	const char *first;

	snprintf(key, sizeof(key), "%llx:%llx", (unsigned long long)st->st_dev,
	        (unsigned long long)st->st_ino);
	first = hashmap_get(w->seen, key);
	if (first)
		return first;
	copy = strdup(path);
	if (!copy || hashmap_put(w->seen, key, copy) < 0) {
		free(copy);
		*r = svccfg_oom(w->c);
	}
	return NULL;
}

static int collect_dir(walk_t *w, const char *dir)
{
	struct dirent **ents = NULL;
	int n, r = 0;

	n = scandir(dir, &ents, NULL, alphasort);
	if (n < 0) {
		r = -errno;
		svccfg_error(w->c, "Could not read directory %s: %s.", dir, strerror(-r));
		return r;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ents[i]->d_name, *first;
		_cleanup_free_ char *p = NULL;
		struct stat st;

		if (r < 0 || streq(name, ".") || streq(name, ".."))
			continue;
		if (asprintf(&p, "%s/%s", dir, name) < 0) {
			r = svccfg_oom(w->c);
			continue;
		}
		if (stat(p, &st) < 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			first = walk_seen(w, &st, p, &r);
			if (first)
				svccfg_warn(w->c,
				        "Skipping %s: it leads to %s, which is read already.", p,
				        first);
			else if (r >= 0)
				r = collect_dir(w, p);
		} else if (S_ISREG(st.st_mode) && is_xml(name) && strv_extend(w->files, p) < 0)
			r = svccfg_oom(w->c);
	}
	for (int i = 0; i < n; i++)
		free(ents[i]);
	free(ents);
	return r;
}

int bundles_collect(svccfg_t *c, const char *path, char ***files)
{
	walk_t w = {.c = c, .files = files};
	struct stat st;
	int r = 0;

	/* A path that cannot be read is the reader's to report, with its reason. */
	if (stat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return strv_extend(files, path) < 0 ? svccfg_oom(c) : 0;
	w.seen = hashmap_new();
	if (!w.seen)
		return svccfg_oom(c);
	if (!walk_seen(&w, &st, path, &r) && r >= 0)
		r = collect_dir(&w, path);
	walk_done(&w);
	return r;
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
