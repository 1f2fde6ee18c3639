/*
 * proc.h: processes, tracked like illumos contracts.
 *
 * startd is a child subreaper, so every process its methods leave behind (a daemon's
 * grandchildren included) is reparented to startd and reaped here, by the reaper thread, the
 * only caller of wait*().  Each method runs in a process group of its own; the group of a
 * start method is the instance's "contract": its members are the instance's processes, and
 * kill(-pgid) reaches all of them.  The reaper tells the restarter when a registered contract
 * becomes empty.  Contracts adopted from a previous startd (whose processes were reparented
 * elsewhere when it died) cannot be reaped here, so the reaper polls them on its tick.
 */
#ifndef STARTD_PROC_H
#define STARTD_PROC_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "startd.h"
#include "timeutil.h"

/* How long a SIGTERM'd service has before SIGKILL (stop, :kill, leftovers). */
#define STOP_GRACE_USEC (5 * USEC_PER_SEC)

/* Makes startd a subreaper and starts the reaper thread. */
int proc_start(startd_t *m);
void proc_stop(startd_t *m);

/*
 * What a method's child becomes before it execs (the method_context, and its cgroup): all
 * resolved by the parent, since between fork() and exec() in a threaded process only
 * async-signal-safe calls are allowed.
 */
typedef struct spawn_opts {
	int log_fd;      /* stdout and stderr; < 0: /dev/null */
	const char *cwd; /* NULL: startd's own */
	bool set_ids;    /* switch to uid/gid (and the supplementary groups) */
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	size_t n_groups;
	int cgroup_procs_fd; /* an open cgroup.procs to enter first; < 0: none */
	bool set_caps;       /* keep exactly caps (ambient too), bounded by bound */
	uint64_t caps;
	uint64_t bound;
} spawn_opts_t;

/*
 * Spawns argv with envp in a new process group (the child's pid), stdin from /dev/null, as
 * opts says (posix_spawn() when it can, fork() for an identity or a cgroup), and registers it so that proc_wait() can collect its status.  A child that cannot
 * take on its context writes why to its log and exits 96 (SMF_EXIT_ERR_CONFIG); one that
 * cannot exec exits 127, as a shell would.  Returns the pid or a negative errno.
 */
pid_t proc_spawn(char *const argv[], char *const envp[], const spawn_opts_t *opts);

/*
 * Waits for a spawned child's exit until deadline (monotonic usec; USEC_INFINITY: forever).
 * 1 with the wait status in *status (and the child forgotten), 0 at the deadline,
 * -ECANCELED when cancellable and proc_cancel_waits() was called (startd is shutting down).
 */
int proc_wait(pid_t pid, uint64_t deadline, int *status, bool cancellable);
/* Makes every cancellable wait return at once, now and from now on (shutdown). */
void proc_cancel_waits(void);
/* Forgets a child nobody will wait for (its exit is then only reaped). */
void proc_forget(pid_t pid);

/* What /proc/PID/stat says of a process that startd needs. */
typedef struct proc_stat {
	char state; /* 'Z' zombie, 'X' dead, anything else runs */
	pid_t ppid, pgid, sid;
} proc_stat_t;
/* Reads /proc/PID/stat: 0, or a negative errno (the process is gone). */
int proc_stat_read(pid_t pid, proc_stat_t *st);

/* Does the process group still have a member (zombies not yet reaped count)? */
bool proc_group_alive(pid_t pgid);
/*
 * As proc_group_alive(), but zombies do not count: for groups that are not our children (an
 * adopted contract's processes were reparented elsewhere, and their zombies wait for another
 * reaper).  Costs a walk of /proc when the group is not empty.
 */
bool proc_group_alive_live(pid_t pgid);
/*
 * Kills the whole group: SIGTERM, then SIGKILL once grace_usec has passed, and waits for it to
 * be empty (until a bounded deadline).  0 when empty, -ETIMEDOUT otherwise.
 */
int proc_group_kill(pid_t pgid, int sig, uint64_t grace_usec);

/*
 * Contracts: when the group pgid (registered for fmri) empties, the reaper enqueues
 * RE_CONTRACT_EMPTY(fmri, pgid) to the restarter.  adopted: not our children; polled.
 */
int proc_contract_add(pid_t pgid, const char *fmri, bool adopted);
void proc_contract_remove(pid_t pgid);

#endif
