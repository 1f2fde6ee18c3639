/*
 * cgroup.c: per-instance cgroup v2 leaves (see cgroup.h).
 *
 * The directory is derived from the root's path, not from startd's pid, so a restarted
 * startd finds the leaves of the services it adopts.  No controller is enabled: the leaves
 * only group processes, which v2 allows below a cgroup that has processes of its own.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgroup.h"
#include "hash.h"
#include "log.h"
#include "macro.h"
#include "timeutil.h"

#define KILL_DEADLINE_USEC (10 * USEC_PER_SEC)
#define KILL_POLL_USEC (5 * USEC_PER_MSEC)

static char *base;     /* NULL: off */
static char *base_rel; /* base below the cgroup2 mount, as /proc/PID/cgroup shows it */

/* The cgroup2 mount point, from /proc/self/mounts. */
static char *cgroup2_mount(void)
{
	_cleanup_(fclosep) FILE *f = fopen("/proc/self/mounts", "re");
	char dev[256], dir[4096], type[64];

	while (f && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (streq(type, "cgroup2"))
			return strdup(dir);
	return NULL;
}

/* A process's cgroup v2 path ("0::/path" in /proc/PID/cgroup); pid 0: startd's own. */
static char *cgroup_of(pid_t pid)
{
	char path[64], line[4096];
	_cleanup_(fclosep) FILE *f = NULL;

	if (pid > 0)
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (strneq(line, "0::", 3)) {
			line[strcspn(line, "\n")] = 0;
			return strdup(line + 3);
		}
	return NULL;
}

bool cgroup_init(const char *root)
{
	_cleanup_free_ char *mnt = NULL, *own = NULL, *rel = NULL;
	const char *knob = getenv("SVC_STARTD_CGROUPS");
	char *dir;

	/* A machine without a writable hierarchy, on demand (tests of the process-group path). */
	if (knob && streq(knob, "0")) {
		log_info("cgroup v2 leaves off (SVC_STARTD_CGROUPS=0)");
		return false;
	}
	mnt = cgroup2_mount();
	own = cgroup_of(0);
	if (!mnt || !own)
		return false;
	/* 8 hex digits, as ever; only a startd of the same build must find the same name. */
	if (asprintf(&rel, "%s/minismf-%08" PRIx32, streq(own, "/") ? "" : own,
	            (uint32_t)smf_hash_str(root)) < 0 ||
	        asprintf(&dir, "%s%s", mnt, rel) < 0)
		return false;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST) {
		free(dir);
		return false;
	}
	base = dir;
	base_rel = TAKE_PTR(rel);
	log_info("cgroup v2 leaves under %s", base);
	return true;
}

/* Empty leaves are removed; a populated one refuses rmdir() and stays (adoption). */
void cgroup_done(void)
{
	DIR *d = base ? opendir(base) : NULL;
	struct dirent *de;

	while (d && (de = readdir(d)))
		if (de->d_type == DT_DIR && de->d_name[0] != '.')
			(void)unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
	if (d)
		closedir(d);
	if (base)
		(void)rmdir(base);
	free(base);
	base = NULL;
	free(base_rel);
	base_rel = NULL;
}

char *cgroup_fmri_of(pid_t pid)
{
	_cleanup_free_ char *cg = base_rel ? cgroup_of(pid) : NULL;
	size_t n = base_rel ? strlen(base_rel) : 0;
	char *fmri;

	if (!cg || !strneq(cg, base_rel, n) || cg[n] != '/' || !cg[n + 1] ||
	        strchr(cg + n + 1, '/'))
		return NULL;
	fmri = strdup(cg + n + 1);
	/* leaf_path()'s '/' -> '%', undone: FMRIs hold no '%'. */
	for (char *s = fmri; s && *s; s++)
		if (*s == '%')
			*s = '/';
	return fmri;
}

/* base/<fmri with '/' as '%'>[/file]: one level, and distinct FMRIs stay distinct. */
static char *leaf_path(const char *fmri, const char *file)
{
	_cleanup_free_ char *name = strdup(fmri);
	char *p;

	if (!name)
		return NULL;
	for (char *s = name; *s; s++)
		if (*s == '/')
			*s = '%';
	if (asprintf(&p, "%s/%s%s%s", base, name, file ? "/" : "", strempty(file)) < 0)
		return NULL;
	return p;
}

int cgroup_open_procs(const char *fmri)
{
	_cleanup_free_ char *dir = NULL, *procs = NULL;

	if (!base || !(dir = leaf_path(fmri, NULL)) || !(procs = leaf_path(fmri, "cgroup.procs")))
		return -1;
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	return open(procs, O_WRONLY | O_CLOEXEC);
}

/* Whether the leaf still has a process (cgroup.procs lists no zombie). */
static bool leaf_populated(const char *procs)
{
	_cleanup_(fclosep) FILE *f = fopen(procs, "re");
	int pid;

	return f && fscanf(f, "%d", &pid) == 1;
}

/* Without cgroup.kill (before Linux 5.14): SIGKILL to each pid listed. */
static void kill_listed(const char *procs)
{
	_cleanup_(fclosep) FILE *f = fopen(procs, "re");
	int pid;

	while (f && fscanf(f, "%d", &pid) == 1)
		(void)kill(pid, SIGKILL);
}

int cgroup_kill(const char *fmri)
{
	_cleanup_free_ char *dir = NULL, *procs = NULL, *killf = NULL;
	uint64_t deadline = deadline_after_usec(KILL_DEADLINE_USEC);
	bool has_kill;
	int fd;

	if (!base || !(dir = leaf_path(fmri, NULL)) || !(procs = leaf_path(fmri, "cgroup.procs")) ||
	        !(killf = leaf_path(fmri, "cgroup.kill")))
		return 0;
	if (!leaf_populated(procs)) {
		(void)rmdir(dir);
		return 0;
	}
	log_info("%s: killing the processes left in its cgroup", fmri);
	fd = open(killf, O_WRONLY | O_CLOEXEC);
	has_kill = fd >= 0 && write(fd, "1", 1) == 1;
	if (fd >= 0)
		close(fd);
	while (leaf_populated(procs)) {
		if (deadline_left_usec(deadline) == 0) {
			log_warning("%s: processes survive in %s", fmri, dir);
			return -ETIMEDOUT;
		}
		if (!has_kill)
			kill_listed(procs);
		usleep(KILL_POLL_USEC);
	}
	(void)rmdir(dir);
	return 0;
}
