/*
 * locate.c: where svcrace finds the daemons and the CLI it runs.
 *
 * Always relative to svcrace's own binary (/proc/self/exe), so that a build tree tests its own
 * programs and never an installed copy, and an install tree its own:
 *
 *   the CLI (svccfg, svcadm, svcs, svcprop, svctrace)   the directory of svcrace itself, in
 *                                                        both trees (build/cli/, PREFIX/bin/)
 *   svc.configd, svc.startd                              build tree:   ../configd/, ../startd/
 *                                                        install tree: ../sbin/, else the
 *                                                        sbindir configured at build time
 *
 * The first candidate that is an executable file wins.  The scripts svcrace runs find the CLI
 * through PATH, which svcrace starts with that directory.
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
	static const char *const cli[] = {"svccfg", "svcadm", "svcs", "svcprop", "svctrace"};
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
	snprintf(t->bindir, sizeof(t->bindir), "%s", self);
	for (size_t i = 0; i < ELEMENTSOF(cli); i++) {
		char path[PATH_MAX];

		if (snprintf(path, sizeof(path), "%s/%s", t->bindir, cli[i]) >= (int)sizeof(path) ||
		        !executable(path)) {
			log_error("cannot find %s next to svcrace in %s", cli[i], t->bindir);
			return -ENOENT;
		}
	}
	if (snprintf(t->svctrace, sizeof(t->svctrace), "%s/svctrace", t->bindir) >=
	        (int)sizeof(t->svctrace))
		return log_error_errno(-ENAMETOOLONG, "%s", t->bindir);
	r = find(t->bindir, "svc.configd", t->configd, sizeof(t->configd), configd);
	if (r >= 0)
		r = find(t->bindir, "svc.startd", t->startd, sizeof(t->startd), startd);
	return r;
}
