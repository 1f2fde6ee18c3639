/*
 * locate.c: where svcrace finds the daemons and the CLI it runs.
 *
 * Always relative to svcrace's own binary (/proc/self/exe), so that a build tree tests its own
 * programs and never an installed copy, and an install tree its own:
 *
 *   svctrace                              the directory of svcrace itself, in both trees
 *                                         (build/cli/race/, PREFIX/bin/)
 *   the CLI (svccfg, svcadm, svcs,        install tree: svcrace's directory (PREFIX/bin/);
 *   svcprop)                              build tree: its parent (build/cli/: the harness is
 *                                         built beside the SMF commands, in cli/race/)
 *   svc.configd, svc.startd               relative to the CLI's directory: build tree
 *                                         ../configd/, ../startd/; install tree ../sbin/, else
 *                                         the sbindir configured at build time
 *
 * The first candidate that is an executable file wins.  The scripts svcrace runs find the CLI
 * through PATH, which svcrace starts with the CLI's directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "svcrace.h"

#ifndef SVCRACE_SBINDIR
#define SVCRACE_SBINDIR "/usr/local/sbin"
#endif

static bool executable(const char *path)
{
	return access(path, X_OK) == 0;
}

/* A candidate: bindir + rel when rel starts with '/', else the absolute path. */
typedef struct candidate {
	bool under_bindir;
	const char *path;
} candidate_t;

/* The first of the candidates (ended by one with a NULL path) that is there. */
static int find(const char *bindir, const char *what, char *ret, size_t size, const candidate_t *c)
{
	for (; c->path; c++) {
		char path[PATH_MAX];

		if (snprintf(path, sizeof(path), "%s%s", c->under_bindir ? bindir : "", c->path) >=
		        (int)sizeof(path))
			continue;
		if (executable(path)) {
			if (!realpath(path, ret) || strlen(ret) >= size)
				snprintf(ret, size, "%s", path);
			return 0;
		}
	}
	log_error("cannot find %s from %s (looked in ../configd, ../startd, ../sbin and %s)", what,
	        bindir, SVCRACE_SBINDIR);
	return -ENOENT;
}

/* Is the whole CLI in dir? */
static bool has_cli(const char *dir)
{
	static const char *const cli[] = {"svccfg", "svcadm", "svcs", "svcprop"};

	for (size_t i = 0; i < ELEMENTSOF(cli); i++) {
		char path[PATH_MAX];

		if (snprintf(path, sizeof(path), "%s/%s", dir, cli[i]) >= (int)sizeof(path) ||
		        !executable(path))
			return false;
	}
	return true;
}

/* The CLI's directory: svcrace's own (an install tree), else its parent (a build tree). */
static int find_cli(const char *self, char *ret, size_t size)
{
	char parent[PATH_MAX];

	if (has_cli(self)) {
		snprintf(ret, size, "%s", self);
		return 0;
	}
	if (snprintf(parent, sizeof(parent), "%s/..", self) < (int)sizeof(parent) &&
	        has_cli(parent)) {
		if (!realpath(parent, ret) || strlen(ret) >= size)
			snprintf(ret, size, "%s", parent);
		return 0;
	}
	log_error("cannot find svccfg, svcadm, svcs and svcprop next to svcrace in %s, nor in %s",
	        self, parent);
	return -ENOENT;
}

int tools_locate(tools_t *t)
{
	static const candidate_t configd[] = {
	        {true, "/../configd/svc.configd"},
	        {true, "/../sbin/svc.configd"},
	        {false, SVCRACE_SBINDIR "/svc.configd"},
	        {false, NULL},
	};
	static const candidate_t startd[] = {
	        {true, "/../startd/svc.startd"},
	        {true, "/../sbin/svc.startd"},
	        {false, SVCRACE_SBINDIR "/svc.startd"},
	        {false, NULL},
	};
	char self[PATH_MAX], *slash;
	ssize_t n;
	int r;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0)
		return log_error_errno(negative_errno(), "cannot find svcrace's own binary");
	self[n] = '\0';
	slash = strrchr(self, '/');
	if (!slash)
		return log_error_errno(-ENOENT, "%s: not a path", self);
	*slash = '\0';
	if (snprintf(t->svctrace, sizeof(t->svctrace), "%s/svctrace", self) >=
	        (int)sizeof(t->svctrace))
		return log_error_errno(-ENAMETOOLONG, "%s", self);
	if (!executable(t->svctrace)) {
		log_error("cannot find svctrace next to svcrace in %s", self);
		return -ENOENT;
	}
	r = find_cli(self, t->bindir, sizeof(t->bindir));
	if (r < 0)
		return r;
	r = find(t->bindir, "svc.configd", t->configd, sizeof(t->configd), configd);
	if (r >= 0)
		r = find(t->bindir, "svc.startd", t->startd, sizeof(t->startd), startd);
	return r;
}
