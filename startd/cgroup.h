/*
 * cgroup.h: a cgroup v2 leaf per instance, where the hierarchy is writable.
 *
 * A process group is what stops a service (proc.h), but a process that calls setsid() or
 * setpgid() leaves it.  A cgroup cannot be left by an unprivileged process, so each instance
 * also gets a leaf <startd's cgroup>/minismf-<hash of the root>/<fmri>, every method's child
 * enters it before it execs, and stopping the instance kills whatever the leaf still holds.
 * Where no cgroup v2 hierarchy is writable all of this is silently off.
 */
#ifndef STARTD_CGROUP_H
#define STARTD_CGROUP_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Finds the hierarchy and makes the per-root directory; false (and off) if not writable, or
 * when SVC_STARTD_CGROUPS=0 asks for process groups alone.
 */
bool cgroup_init(const char *root);
/* Removes the per-root directory if it is empty (at exit). */
void cgroup_done(void);
/* The instance's leaf cgroup.procs, created if needed, open for writing; -1 when off. */
int cgroup_open_procs(const char *fmri);
/*
 * Kills every process left in the instance's leaf, waits (bounded) until it is empty and
 * removes it.  0, or -ETIMEDOUT if something survived.
 */
int cgroup_kill(const char *fmri);
/*
 * The instance whose leaf (of this root) holds process pid, malloc'd; NULL when it is in none
 * or cgroups are off.  Only a start method's process enters a leaf, and no unprivileged process
 * can leave one: a process found here is that instance's, whatever its environment says.
 */
char *cgroup_fmri_of(pid_t pid);

#endif
