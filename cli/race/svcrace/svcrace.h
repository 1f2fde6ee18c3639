/*
 * svcrace.h: what the files of svcrace share.  See main.c for the model.
 */
#ifndef SVCRACE_H
#define SVCRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "delay.h"

#define SVCRACE_VERSION "svcrace 0.1"

/* Exit statuses (main.c's usage text and svcrace(1) say the same). */
#define EXIT_RACE 1     /* run, replay: a race was found; shrink: nothing to shrink */
#define EXIT_USAGE 2    /* a bad option or operand */
#define EXIT_INTERNAL 3 /* svcrace could not do its work: a sandbox, svctrace */
#define EXIT_FAILED 4   /* run, replay: no race, but the script failed or hung */

/* ------------------------------------------------------------------------------------------ */
/* schedule.c: the delay points and the schedules drawn over them                             */

typedef struct svcrace_point {
	const char *name;  /* "startd.restarter.before_pg_write" */
	const char *where; /* its place in the code */
} svcrace_point_t;

/* Every delay point of this build, in the order of SMF_POINTS (delay.h). */
extern const svcrace_point_t svcrace_points[];
extern const size_t svcrace_n_points;

/* The delays a schedule draws from, in ms, ascending. */
extern const uint32_t schedule_magnitudes_ms[];
extern const size_t schedule_n_magnitudes;

#define SCHEDULE_DEFAULT_DEPTH 2
#define SCHEDULE_MAX 64 /* >= svcrace_n_points (asserted) */

/* Which points a run slows and by how much: an SMF_DELAY of fixed delays, sorted by point. */
typedef struct schedule {
	size_t n;
	struct {
		size_t point;  /* index in svcrace_points */
		uint64_t usec; /* > 0 */
	} slot[SCHEDULE_MAX];
} schedule_t;

/*
 * The schedule of the run with this seed: min(depth, points) distinct points, each with a
 * magnitude, both uniform, the magnitude times scale (>= 1; 1 is the ladder itself).  A pure
 * function of (seed, depth, scale, this build's point list).
 */
int schedule_draw(uint64_t seed, unsigned depth, unsigned scale, schedule_t *ret);
#define SCHEDULE_MAX_SCALE 100
/* The SMF_DELAY string ("" for no delay): "point=Nms,..." into buf. */
const char *schedule_format(const schedule_t *s, char *buf, size_t size);
#define SCHEDULE_STRMAX (SCHEDULE_MAX * 80)
/* An SMF_DELAY string of fixed delays at known points; -EINVAL (said why) otherwise. */
int schedule_parse(const char *text, schedule_t *ret);
/* ret without slot k. */
void schedule_drop(const schedule_t *s, size_t k, schedule_t *ret);
/*
 * The chance that a run slows every one of `needed` given points (needed <= depth):
 * C(points - needed, depth - needed) / C(points, depth); 0 when needed > depth.
 */
double schedule_hit_probability(size_t points, unsigned depth, unsigned needed);

/* ------------------------------------------------------------------------------------------ */
/* fix.c: the fix variants (docs/race.md, "The fixes") and their switches                      */

enum {
	FIX_IMPORT_WAIT = 1 << 0,
	FIX_ADD_WAIT = 1 << 1,
	FIX_SVCADM_WAIT = 1 << 2,
	FIX_CONFIGD_EAGER = 1 << 3,
	FIX_DEFAULT = FIX_IMPORT_WAIT | FIX_ADD_WAIT,
	FIX_ALL = FIX_IMPORT_WAIT | FIX_ADD_WAIT | FIX_SVCADM_WAIT | FIX_CONFIGD_EAGER,
};

/* "none", "default", "all", a variant, or variants and those joined by '+'; -EINVAL (said). */
int fix_parse(const char *text, unsigned *ret);
/* The canonical name: "none", "default", "all" or the variants joined by '+'. */
const char *fix_name(unsigned fixes, char *buf, size_t size);
#define FIX_STRMAX 96
/* Sets and unsets the clients' switches (the script, startd) in *env. */
int fix_client_env(unsigned fixes, char ***env);
/* Sets or unsets configd's switch in *env. */
int fix_configd_env(unsigned fixes, char ***env);
/* The variants "svcrace matrix" compares, in its order. */
extern const unsigned fix_matrix_default[];
extern const size_t fix_matrix_n_default;

/* ------------------------------------------------------------------------------------------ */
/* proc.c: child processes with an environment of their own and a deadline                     */

/* env: a strv (strv.h); sets NAME=VALUE, replacing any NAME= already there. */
int env_set(char ***env, const char *name, const char *value);
void env_unset(char **env, const char *name);

typedef struct spawn {
	char *const *argv;
	char *const *envp;
	int out_fd;      /* stdout; -1: /dev/null */
	int err_fd;      /* stderr; -1: /dev/null */
	bool own_pgroup; /* setpgid(0, 0): a group that can be killed whole */
} spawn_t;

/* Starts a child (stdin /dev/null; dies with its parent); its pid and a pidfd. */
int proc_spawn(const spawn_t *s, pid_t *pid, int *pidfd);
/*
 * Waits for pid (pidfd) to exit until deadline (CLOCK_MONOTONIC usec), reaping it into
 * *status.  0 exited; -ETIMEDOUT at the deadline (not reaped); -EINTR when svcrace was
 * told to stop (proc_interrupted()).
 */
int proc_wait(pid_t pid, int pidfd, uint64_t deadline, int *status);
/* kill(sig), then waits until deadline and SIGKILLs: ends pid for sure, reaped. */
int proc_end(pid_t pid, int pidfd, int sig, uint64_t deadline, int *status);
/* A SIGINT or SIGTERM arrived (proc_catch_signals()). */
bool proc_interrupted(void);
void proc_catch_signals(void);
/* snprintf() for messages, which may be cut short at size - 1 bytes. */
void msgf(char *buf, size_t size, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The last non-empty line of a file (at most size - 1 bytes of it) into buf, or "". */
void file_last_line(const char *path, char *buf, size_t size);

/* ------------------------------------------------------------------------------------------ */
/* The tools (locate.c)                                                                        */

typedef struct tools {
	char bindir[4096]; /* svccfg, svcadm, svcs, svcprop: the CLI's directory (locate.c) */
	char configd[4096];
	char startd[4096];
	char svctrace[4096];
} tools_t;

/* Finds the daemons and the CLI relative to svcrace's own binary; -ENOENT (said which). */
int tools_locate(tools_t *ret);

/* ------------------------------------------------------------------------------------------ */
/* A run (run.c, sandbox.c, verdict.c)                                                          */

/* What every run of one command shares. */
typedef struct svcrace {
	tools_t tools;
	char *const *script; /* SCRIPT ARGS..., NULL-terminated */
	unsigned jobs;
	uint64_t timeout_usec; /* per run, the script's deadline */
	bool keep;
	bool verbose;
	pid_t pid; /* svcrace's own: in the names of its sandboxes, so a leftover says whose */
	const struct run_ops *ops; /* how a run is made: NULL the real one (run.c); tests fake it */
} svcrace_t;

/* One run to make. */
typedef struct run_spec {
	uint64_t seed;
	size_t index; /* its place in the command's list of runs */
	schedule_t schedule;
	unsigned fixes;
	const char *report; /* write svctrace html of the run there; NULL: none */
} run_spec_t;

typedef enum verdict {
	VERDICT_CLEAN,
	VERDICT_FAILED,     /* the script exited non-zero; no race */
	VERDICT_HUNG,       /* killed at the deadline; no race */
	VERDICT_LATENT,     /* svctrace check: latent races, none manifested */
	VERDICT_MANIFESTED, /* svctrace check: a manifested race */
	VERDICT_ERROR,      /* svcrace could not make the run */
	_VERDICT_MAX,
} verdict_t;

/* What a run found; crosses a pipe whole (well under PIPE_BUF). */
typedef struct run_result {
	uint64_t seed;
	size_t index;
	int status; /* the script's wait status; -1 when it did not run */
	bool hung;
	int check_rc; /* svctrace check's exit status; -1 when not run */
	uint32_t manifested, latent;
	uint64_t startup_usec; /* sandbox made, configd and startd ready */
	uint64_t script_usec;  /* the script's wall time */
	uint64_t total_usec;   /* the run's, its analysis included */
	int conform_rc;    /* svctrace conform's exit status: 0 conforms, 1 does not; -1 not run */
	char conform[160]; /* when it does not conform or gave no answer: its first words */
	char error[256];   /* what went wrong for svcrace ("" none) */
	char output[256];  /* the script's last line of output */
	char kept[256];    /* the sandbox, when kept */
} run_result_t;

verdict_t verdict_of(const run_result_t *r);
const char *verdict_name(verdict_t v);
bool verdict_is_race(verdict_t v);

/* sandbox.c: a private root with its own configd and startd, traced, on the run's schedule. */
typedef struct sandbox {
	char root[4096];
	char trace[4096]; /* SMF_TRACE_DIR: $ROOT/var/svc/trace */
	pid_t configd, startd;
	int configd_fd, startd_fd; /* pidfds */
} sandbox_t;

/* The root (on tmpfs unless kept or there is none; else under $TMPDIR) and its trace dir. */
int sandbox_create(sandbox_t *sb, pid_t owner, bool keep);
/* Starts configd, then startd, each ready (READY=1) before the deadline.  Says why not in err. */
int sandbox_start(sandbox_t *sb, const svcrace_t *c, const run_spec_t *spec, char *const *env,
        char *err, size_t errsize);
/* startd, then configd: SIGTERM, SIGKILL at the deadline.  Says what went wrong in err. */
int sandbox_stop(sandbox_t *sb, char *err, size_t errsize);
void sandbox_remove(sandbox_t *sb);

/*
 * verdict.c: runs svctrace check --json on the run's trace into r (check_rc and the counts);
 * its stderr goes to work_dir/svctrace-check.err.  On failure r->error says why.
 */
int verdict_check(const svcrace_t *c, const char *trace_dir, const char *work_dir, run_result_t *r);
/*
 * verdict.c: runs svctrace conform on the run's trace into r (conform_rc, and what did not
 * conform): is the run one the model of the protocol allows (docs/model.md)?  Its stderr goes
 * to work_dir/svctrace-conform.err.  No answer is not svcrace's error: r->conform says why.
 */
void verdict_conform(
        const svcrace_t *c, const char *trace_dir, const char *work_dir, run_result_t *r);
/* Extracts the counts from check's JSON text; -EINVAL when they are not there. */
int verdict_parse_counts(const char *json, uint32_t *latent, uint32_t *manifested);

/* run.c */
/*
 * A run in two halves, both in the run's own process: execute (a sandbox, the script, the
 * daemons stopped: the trace is complete) into *r and *sb, then analyse (svctrace check and
 * conform, the report, the sandbox removed or kept), which completes *r.  run_pool() lets the
 * next run start executing while this one is analysed.
 */
typedef struct run_ops {
	void (*execute)(const svcrace_t *c, const run_spec_t *spec, sandbox_t *sb, run_result_t *r);
	void (*analyse)(const svcrace_t *c, const run_spec_t *spec, sandbox_t *sb, run_result_t *r);
} run_ops_t;
extern const run_ops_t run_ops_real;
void run_execute(const svcrace_t *c, const run_spec_t *spec, sandbox_t *sb, run_result_t *r);
void run_analyse(const svcrace_t *c, const run_spec_t *spec, sandbox_t *sb, run_result_t *r);
/*
 * Called in the order of specs, each result once its analysis is done; returns true to make
 * no further run: the runs after this one that are under way are ended and not reported.
 */
typedef bool (*run_done_fn)(const run_spec_t *spec, const run_result_t *r, void *userdata);
/*
 * Makes the n runs, each in a child process: c->jobs of them executing at a time, and while
 * a run is analysed the next one executes (at most c->jobs runs analysed at a time beside
 * them).  0, or -EINTR when stopped.
 */
int run_pool(
        const svcrace_t *c, const run_spec_t *specs, size_t n, run_done_fn done, void *userdata);
/* The line of one run: "seed S: verdict ...; schedule '...'" (and its output on a 2nd line). */
void run_print(FILE *f, const run_spec_t *spec, const run_result_t *r);

/* Figures over runs (run.c). */
typedef struct run_stats {
	size_t runs, failures, hung, manifested, latent, clean, errors;
	size_t conform, nonconforming; /* runs svctrace conform judged, and found not to conform */
	uint64_t elapsed_usec;
	uint64_t *script_usec, *startup_usec; /* per run without an error, n_times of them */
	size_t n_times;
} run_stats_t;
void run_stats_add(run_stats_t *s, const run_result_t *r);
void run_stats_done(run_stats_t *s);
double run_stats_rate(const run_stats_t *s);
/* The table of "svcrace run": runs, failures, hung, manifested, latent, ..., runs/s. */
void run_stats_print_table(FILE *f, run_stats_t *s);
/* The exit status: EXIT_RACE, else EXIT_INTERNAL for errors, else EXIT_FAILED, else 0. */
int run_stats_exit(const run_stats_t *s);
/* The p-quantile (0..1, nearest rank) of n values (sorted in place); 0 when n is 0. */
uint64_t quantile_usec(uint64_t *v, size_t n, double p);

/* The subcommands: argc/argv as getopt left them; each returns an exit status. */
typedef struct options {
	uint64_t seed;
	bool seed_given;
	size_t runs;
	unsigned depth;
	unsigned scale; /* --scale: the ladder's rungs times this */
	unsigned fixes;
	unsigned confirm;
	bool stop_at_first;
	bool have_schedule;
	schedule_t schedule; /* replay --schedule */
	const char *json;    /* run: results as JSON */
	const char *report;  /* shrink, replay: the HTML report */
	unsigned matrix_fixes[16];
	size_t matrix_n;
} options_t;

int cmd_run(svcrace_t *c, const options_t *o);
int cmd_replay(svcrace_t *c, const options_t *o);
int cmd_shrink(svcrace_t *c, const options_t *o);
int cmd_matrix(svcrace_t *c, const options_t *o);

#endif
