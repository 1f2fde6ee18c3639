/*
 * run.c: one run of the script, many runs at once, and the "run" and "replay" commands.
 *
 * THE MODEL.  A run is sequential and self-contained, in two halves: it *executes* (a sandbox
 * (sandbox.c) on the run's schedule, the script in it with a deadline, the daemons stopped:
 * the trace is then complete), then it is *analysed* (the trace judged (verdict.c), the report
 * written, the sandbox removed).  Parallelism is processes: run_pool() forks one child per
 * run, and each child makes its run with plain blocking code, says through a pipe when its run
 * is executed (one byte), and hands back a run_result_t through the same pipe in one write (it
 * is far below PIPE_BUF, so the write is atomic).  A child that dies without writing is
 * reported as an error of that run.
 *
 * `jobs` runs execute at a time: what --jobs asks is how many sandboxes live at once, whose
 * daemons and scripts share the machine.  The analysis of a run is off that path: once a run
 * is executed, the next one starts in its place while its own process analyses (a pipeline;
 * at most `jobs` analyses beside the `jobs` runs, so the processes stay bounded).  The results
 * are reported in the order of the runs, each once its analysis is done, whatever order they
 * finish in: the output is the same for the same verdicts, however the runs interleave.
 *
 * The script runs as a user would run it, with:
 *   SMF_ROOT        the sandbox                      PATH        the CLI's directory first
 *   SMF_TRACE=1     and SMF_TRACE_DIR: every svccfg, svcadm, ... it starts records its trace
 *   TMPDIR          $SMF_ROOT/tmp, removed with the sandbox
 *   SVCRACE_SEED    the run's seed, for a script that wants to log it
 *   the fix switches of --fix (fix.c); no NOTIFY_SOCKET, SMF_DELAY or SMF_DELAY_SEED
 * in a process group of its own, stdin /dev/null, stdout and stderr into $SMF_ROOT/script.log.
 * At the deadline (--timeout) the whole group is SIGKILLed and the run is "hung"; when the
 * script exits, whatever it left running in its group is SIGKILLed too.
 *
 * INVARIANTS.  A run never outlives its child process's cleanup: whatever happens (deadline,
 * SIGINT, a daemon that dies), the script's group is killed, startd then configd are stopped
 * and reaped, and the sandbox is removed unless --keep.  The parent forwards SIGINT/SIGTERM
 * to its children and launches nothing after one; each child then ends its run early.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "json.h"
#include "log.h"
#include "macro.h"
#include "strv.h"
#include "svcrace.h"
#include "timeutil.h"

/* ------------------------------------------------------------------------------------------ */
/* One run                                                                                     */

static int client_env(const svcrace_t *c, const sandbox_t *sb, const run_spec_t *spec, char ***ret)
{
	_cleanup_strv_free_ char **env = strv_copy(environ);
	const char *path = getenv("PATH");
	char buf[8400];
	int r;

	if (!env)
		return -ENOMEM;
	env_unset(env, "NOTIFY_SOCKET");
	env_unset(env, "SMF_DELAY");
	env_unset(env, "SMF_DELAY_SEED");
	snprintf(buf, sizeof(buf), "%s%s%s", c->tools.bindir, path && *path ? ":" : "",
	        strempty(path));
	r = env_set(&env, "PATH", buf);
	if (r >= 0)
		r = env_set(&env, "SMF_ROOT", sb->root);
	if (r >= 0)
		r = env_set(&env, "SMF_TRACE", "1");
	if (r >= 0)
		r = env_set(&env, "SMF_TRACE_DIR", sb->trace);
	snprintf(buf, sizeof(buf), "%s/tmp", sb->root);
	if (r >= 0)
		r = env_set(&env, "TMPDIR", buf);
	snprintf(buf, sizeof(buf), "%" PRIu64, spec->seed);
	if (r >= 0)
		r = env_set(&env, "SVCRACE_SEED", buf);
	if (r >= 0)
		r = fix_client_env(spec->fixes, &env);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(env);
	return 0;
}

/* The script, in its own group, until it exits or the deadline. */
static void run_script(const svcrace_t *c, const sandbox_t *sb, char *const *env, run_result_t *r)
{
	char logpath[4200];
	_cleanup_close_ int log = -1, pidfd = -1;
	uint64_t t0;
	pid_t pid;
	int status = 0, w;

	snprintf(logpath, sizeof(logpath), "%s/script.log", sb->root);
	log = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (log < 0) {
		msgf(r->error, sizeof(r->error), "%s: %s", logpath, strerror(errno));
		return;
	}
	t0 = now_monotonic_usec();
	w = proc_spawn(&(spawn_t){.argv = c->script,
	                       .envp = env,
	                       .out_fd = log,
	                       .err_fd = log,
	                       .own_pgroup = true},
	        &pid, &pidfd);
	if (w < 0) {
		msgf(r->error, sizeof(r->error), "cannot start the script: %s", strerror(-w));
		return;
	}
	w = proc_wait(pid, pidfd, deadline_after_usec(c->timeout_usec), &status);
	if (w < 0) {
		(void)kill(-pid, SIGKILL);
		(void)proc_end(pid, pidfd, SIGKILL, USEC_INFINITY, &status);
		if (w == -ETIMEDOUT)
			r->hung = true;
		else if (w == -EINTR)
			msgf(r->error, sizeof(r->error), "interrupted");
		else
			msgf(r->error, sizeof(r->error), "waiting for the script: %s",
			        strerror(-w));
	}
	/* What the script left running in its group goes with it. */
	(void)kill(-pid, SIGKILL);
	r->script_usec = now_monotonic_usec() - t0;
	r->status = r->hung ? -1 : status;
	file_last_line(logpath, r->output, sizeof(r->output));
}

static void write_report(
        const svcrace_t *c, const sandbox_t *sb, const char *report, run_result_t *r)
{
	char *argv[] = {(char *)c->tools.svctrace, (char *)"html", (char *)sb->trace, (char *)"-o",
	        (char *)report, NULL};
	char errpath[4200];
	_cleanup_close_ int errfd = -1, pidfd = -1;
	int status = 0;
	pid_t pid;

	snprintf(errpath, sizeof(errpath), "%s/svctrace-html.err", sb->root);
	errfd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (proc_spawn(&(spawn_t){.argv = argv, .envp = environ, .out_fd = errfd, .err_fd = errfd},
	            &pid, &pidfd) < 0 ||
	        proc_end(pid, pidfd, 0, deadline_after_usec(120 * USEC_PER_SEC), &status) < 0 ||
	        !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char why[200];

		file_last_line(errpath, why, sizeof(why));
		msgf(r->error, sizeof(r->error), "svctrace html failed: %s", why);
	}
}

void run_execute(const svcrace_t *c, const run_spec_t *spec, sandbox_t *sb, run_result_t *r)
{
	_cleanup_strv_free_ char **env = NULL;
	uint64_t t0 = now_monotonic_usec();
	char stop_err[256] = "";
	int k;

	*r = (run_result_t){.seed = spec->seed,
	        .index = spec->index,
	        .status = -1,
	        .check_rc = -1,
	        .conform_rc = -1};
	k = sandbox_create(sb, c->pid, c->keep);
	if (k < 0) {
		msgf(r->error, sizeof(r->error),
		        "cannot make a sandbox (on /dev/shm or under $TMPDIR): %s", strerror(-k));
		r->total_usec = now_monotonic_usec() - t0;
		return;
	}
	if (client_env(c, sb, spec, &env) < 0)
		msgf(r->error, sizeof(r->error), "out of memory");
	else if (sandbox_start(sb, c, spec, env, r->error, sizeof(r->error)) >= 0) {
		r->startup_usec = now_monotonic_usec() - t0;
		run_script(c, sb, env, r);
	}
	/* The daemons are stopped before the trace is read, so that it holds all they did. */
	sandbox_stop(sb, stop_err, sizeof(stop_err));
	if (!r->error[0] && stop_err[0])
		msgf(r->error, sizeof(r->error), "%s", stop_err);
	r->total_usec = now_monotonic_usec() - t0;
}

void run_analyse(const svcrace_t *c, const run_spec_t *spec, sandbox_t *sb, run_result_t *r)
{
	uint64_t t0 = now_monotonic_usec();

	if (!r->error[0])
		(void)verdict_check(c, sb->trace, sb->root, r);
	if (!r->error[0])
		verdict_conform(c, sb->trace, sb->root, r);
	if (!r->error[0] && spec->report)
		write_report(c, sb, spec->report, r);
	if (c->keep && sb->root[0])
		msgf(r->kept, sizeof(r->kept), "%s", sb->root);
	else
		sandbox_remove(sb);
	r->total_usec += now_monotonic_usec() - t0;
}

const run_ops_t run_ops_real = {.execute = run_execute, .analyse = run_analyse};

/* ------------------------------------------------------------------------------------------ */
/* Many runs                                                                                   */

/*
 * A run's process says two things through its pipe: RUN_EXECUTED (one byte) when its run is
 * executed, then its run_result_t (one write: atomic) when the run is analysed.
 */
#define RUN_EXECUTED 'x'

typedef struct slot {
	pid_t pid;
	int fd;
	size_t spec;    /* its place in specs */
	bool executing; /* has not said RUN_EXECUTED yet */
} slot_t;

/* A result that came before those of runs earlier in specs. */
typedef struct held {
	size_t spec;
	run_result_t r;
} held_t;

static bool write_all(int fd, const void *buf, size_t size)
{
	const char *p = buf;

	while (size > 0) {
		ssize_t n = write(fd, p, size);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return false;
		p += n;
		size -= (size_t)n;
	}
	return true;
}

static void child_main(const svcrace_t *c, const run_spec_t *spec, int fd)
{
	const run_ops_t *ops = c->ops ? c->ops : &run_ops_real;
	const char executed = RUN_EXECUTED;
	run_result_t r;
	sandbox_t sb;

	/* A svcrace gone meanwhile (EPIPE): the run is still analysed, so its sandbox goes. */
	(void)signal(SIGPIPE, SIG_IGN);
	ops->execute(c, spec, &sb, &r);
	(void)write_all(fd, &executed, 1);
	ops->analyse(c, spec, &sb, &r);
	_exit(write_all(fd, &r, sizeof(r)) ? 0 : 1);
}

static int launch(const svcrace_t *c, const run_spec_t *spec, size_t i, slot_t *s)
{
	int fds[2];
	pid_t pid;

	if (pipe2(fds, O_CLOEXEC) < 0)
		return negative_errno();
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return negative_errno();
	}
	if (pid == 0) {
		close(fds[0]);
		/* svcrace killed outright: this run still ends and cleans up (its SIGTERM handler). */
		(void)prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != c->pid)
			_exit(1);
		child_main(c, spec, fds[1]);
	}
	close(fds[1]);
	*s = (slot_t){.pid = pid, .fd = fds[0], .spec = i, .executing = true};
	return 0;
}

/* RUN_EXECUTED read from s: true; false when its process ended without saying it. */
static bool read_executed(slot_t *s)
{
	char b;
	ssize_t n;

	while ((n = read(s->fd, &b, 1)) < 0 && errno == EINTR)
		;
	return n == 1 && b == RUN_EXECUTED;
}

/* The result of the finished child of s (an error result if it wrote none); reaps it. */
static void collect(const run_spec_t *spec, slot_t *s, run_result_t *r)
{
	size_t got = 0;
	int status;

	while (got < sizeof(*r)) {
		ssize_t n = read(s->fd, (char *)r + got, sizeof(*r) - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(s->fd);
	while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
		;
	if (got != sizeof(*r)) {
		*r = (run_result_t){.seed = spec->seed,
		        .index = spec->index,
		        .status = -1,
		        .check_rc = -1,
		        .conform_rc = -1};
		msgf(r->error, sizeof(r->error), "the run's process died (%s %d)",
		        WIFSIGNALED(status) ? "signal" : "exit",
		        WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	}
}

/*
 * The pipeline (THE MODEL above).  `executing` counts the slots that have not said
 * RUN_EXECUTED; a run is launched while it is below `jobs` and the processes below 2 x jobs.
 * A result that comes before an earlier run's is held until that one is reported.  Launches go
 * in the order of specs, so what was launched is a prefix, and every run launched gives a
 * result (collect()): none is waited for in vain.  After done() asks to stop, the runs under
 * way (all later than that one) are sent SIGTERM, which ends each early and cleanly, and
 * their results are dropped: what is reported is the runs up to the stop, always the same.
 */
int run_pool(
        const svcrace_t *c, const run_spec_t *specs, size_t n, run_done_fn done, void *userdata)
{
	size_t jobs = c->jobs ? c->jobs : 1, max_active = 2 * jobs;
	_cleanup_free_ slot_t *slots = NULL;
	_cleanup_free_ struct pollfd *pfd = NULL;
	_cleanup_free_ held_t *held = NULL;
	size_t next = 0, active = 0, executing = 0, reported = 0, n_held = 0, cap_held = 0;
	bool stop = false, forwarded = false, discard = false;
	int ret = 0;

	slots = calloc(max_active, sizeof(*slots));
	pfd = calloc(max_active, sizeof(*pfd));
	if (!slots || !pfd)
		return log_error_errno(-ENOMEM, "starting runs");
	while (active > 0 || (!stop && next < n)) {
		if (proc_interrupted() && !forwarded) {
			/* A Ctrl-C reached the children already; a kill(1) of svcrace did not. */
			for (size_t k = 0; k < active; k++)
				(void)kill(slots[k].pid, SIGTERM);
			forwarded = stop = true;
			ret = -EINTR;
		}
		while (!stop && next < n && executing < jobs && active < max_active) {
			int r = launch(c, &specs[next], next, &slots[active]);

			if (r < 0) {
				log_error_errno(r, "cannot start a run");
				stop = true;
				ret = r;
				break;
			}
			next++;
			active++;
			executing++;
		}
		if (active == 0)
			break;
		for (size_t k = 0; k < active; k++)
			pfd[k] = (struct pollfd){.fd = slots[k].fd, .events = POLLIN};
		if (poll(pfd, active, -1) < 0) {
			if (errno == EINTR)
				continue;
			return log_error_errno(negative_errno(), "waiting for the runs");
		}
		for (size_t k = 0; k < active;) {
			held_t *h;

			if (!pfd[k].revents) {
				k++;
				continue;
			}
			if (slots[k].executing) {
				slots[k].executing = false;
				executing--;
				if (read_executed(&slots[k])) {
					k++;
					continue;
				}
				/* Its process died: collect() says so. */
			}
			if (GREEDY_REALLOC(held, cap_held, n_held + 1) < 0)
				return log_error_errno(-ENOMEM, "collecting the runs");
			h = &held[n_held++];
			h->spec = slots[k].spec;
			collect(&specs[h->spec], &slots[k], &h->r);
			/* The last slot takes this one's place, and its poll result too. */
			slots[k] = slots[active - 1];
			pfd[k] = pfd[active - 1];
			active--;
		}
		/* Every result whose predecessors were all reported, in order. */
		for (size_t i = 0; i < n_held;) {
			if (held[i].spec != reported) {
				i++;
				continue;
			}
			if (!discard && done(&specs[reported], &held[i].r, userdata)) {
				/* The runs after this one: ended early, never reported. */
				for (size_t k = 0; k < active; k++)
					(void)kill(slots[k].pid, SIGTERM);
				stop = discard = true;
			}
			reported++;
			held[i] = held[--n_held];
			i = 0;
		}
	}
	assert(n_held == 0 && reported == next);
	return ret;
}

/* ------------------------------------------------------------------------------------------ */
/* Reporting                                                                                   */

static const char *exit_text(const run_result_t *r, char *buf, size_t size)
{
	if (r->hung)
		return "killed at the deadline";
	if (r->status < 0)
		return "did not run";
	if (WIFEXITED(r->status))
		snprintf(buf, size, "exit %d", WEXITSTATUS(r->status));
	else
		snprintf(buf, size, "killed by signal %d", WTERMSIG(r->status));
	return buf;
}

void run_print(FILE *f, const run_spec_t *spec, const run_result_t *r)
{
	char delay[SCHEDULE_STRMAX], ex[48];
	verdict_t v = verdict_of(r);

	fprintf(f, "seed %" PRIu64 ": %s", r->seed, verdict_name(v));
	if (v == VERDICT_ERROR)
		fprintf(f, ": %s", r->error);
	else {
		if (verdict_is_race(v))
			fprintf(f, " (%" PRIu32 " manifested, %" PRIu32 " latent)", r->manifested,
			        r->latent);
		fprintf(f, "; script %s after %.0f ms", exit_text(r, ex, sizeof(ex)),
		        r->script_usec / 1000.0);
	}
	fprintf(f, "; SMF_DELAY='%s'\n", schedule_format(&spec->schedule, delay, sizeof(delay)));
	if (r->output[0] && v != VERDICT_CLEAN)
		fprintf(f, "  | %s\n", r->output);
	/* The model's word on the run (svctrace conform), when it is not "conforms". */
	if (r->conform_rc == 1)
		fprintf(f, "  model: does not conform: %s\n", r->conform);
	else if (r->conform_rc != 0 && r->conform_rc != 2 && v != VERDICT_ERROR)
		fprintf(f, "  model: not checked: %s\n", r->conform[0] ? r->conform : "?");
	if (r->kept[0])
		fprintf(f, "  kept: %s\n", r->kept);
}

void run_stats_add(run_stats_t *s, const run_result_t *r)
{
	verdict_t v = verdict_of(r);
	uint64_t *a, *b;

	s->runs++;
	s->errors += v == VERDICT_ERROR;
	s->manifested += v == VERDICT_MANIFESTED;
	s->latent += v == VERDICT_LATENT;
	s->clean += v == VERDICT_CLEAN;
	s->conform += r->conform_rc == 0;
	s->nonconforming += r->conform_rc == 1;
	if (v == VERDICT_ERROR)
		return; /* what the script did in a run svcrace could not make counts for nothing */
	s->hung += r->hung;
	s->failures += !r->hung && r->status > 0;
	a = reallocarray(s->script_usec, s->runs, sizeof(uint64_t));
	if (a)
		s->script_usec = a;
	b = reallocarray(s->startup_usec, s->runs, sizeof(uint64_t));
	if (b)
		s->startup_usec = b;
	if (a && b) {
		s->script_usec[s->n_times] = r->script_usec;
		s->startup_usec[s->n_times] = r->startup_usec;
		s->n_times++;
	}
}

void run_stats_done(run_stats_t *s)
{
	free(s->script_usec);
	free(s->startup_usec);
	*s = (run_stats_t){0};
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t quantile_usec(uint64_t *v, size_t n, double p)
{
	size_t k;

	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_u64);
	k = (size_t)(p * (double)n + 0.999999);
	return v[k == 0 ? 0 : k - 1];
}

double run_stats_rate(const run_stats_t *s)
{
	return s->elapsed_usec ? s->runs * 1e6 / (double)s->elapsed_usec : 0;
}

void run_stats_print_table(FILE *f, run_stats_t *s)
{
	fprintf(f, "%6s %9s %5s %11s %7s %6s %7s %8s %14s %12s\n", "runs", "failures", "hung",
	        "manifested", "latent", "clean", "errors", "runs/s", "start-up p50", "script p50");
	fprintf(f, "%6zu %9zu %5zu %11zu %7zu %6zu %7zu %8.1f %11.1f ms %9.1f ms\n", s->runs,
	        s->failures, s->hung, s->manifested, s->latent, s->clean, s->errors,
	        run_stats_rate(s), quantile_usec(s->startup_usec, s->n_times, 0.5) / 1000.0,
	        quantile_usec(s->script_usec, s->n_times, 0.5) / 1000.0);
	fprintf(f, "model: %zu of %zu runs conform, %zu do not (svctrace conform; docs/model.md)\n",
	        s->conform, s->runs, s->nonconforming);
}

/* The exit status for a set of runs: a race first, then svcrace's own trouble, then failures. */
int run_stats_exit(const run_stats_t *s)
{
	if (s->manifested || s->latent)
		return EXIT_RACE;
	if (s->errors)
		return EXIT_INTERNAL;
	if (s->failures || s->hung)
		return EXIT_FAILED;
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* svcrace run                                                                                 */

typedef struct run_ctx {
	run_stats_t stats;
	run_result_t *results; /* by spec index */
	bool *have;
	bool stop_at_first;
	bool print_all;
	size_t first_race; /* runs made until the first race, 0: none yet */
} run_ctx_t;

static bool on_run_done(const run_spec_t *spec, const run_result_t *r, void *userdata)
{
	run_ctx_t *x = userdata;
	verdict_t v = verdict_of(r);

	run_stats_add(&x->stats, r);
	x->results[spec->index] = *r;
	x->have[spec->index] = true;
	if (x->print_all || v != VERDICT_CLEAN)
		run_print(stdout, spec, r);
	fflush(stdout);
	if (verdict_is_race(v) && x->first_race == 0)
		x->first_race = x->stats.runs;
	return x->stop_at_first && verdict_is_race(v);
}

static void write_json(const svcrace_t *c, const options_t *o, const run_spec_t *specs,
        run_ctx_t *x, const char *command)
{
	_cleanup_fclose_ FILE *f = fopen(o->json, "we");
	char fx[FIX_STRMAX], delay[SCHEDULE_STRMAX];
	run_stats_t *s = &x->stats;
	json_t j;

	if (!f) {
		log_error_errno(negative_errno(), "%s", o->json);
		return;
	}
	json_init(&j, f);
	json_begin_object(&j);
	json_kv_string(&j, "command", command);
	json_kv_string(&j, "script", c->script[0]);
	json_kv_uint(&j, "seed", o->seed);
	json_kv_string(&j, "fix", fix_name(o->fixes, fx, sizeof(fx)));
	json_kv_uint(&j, "depth", o->depth);
	json_kv_uint(&j, "points", svcrace_n_points);
	json_kv_uint(&j, "jobs", c->jobs);
	json_key(&j, "runs");
	json_begin_array(&j);
	for (size_t i = 0; i < o->runs; i++) {
		const run_result_t *r = &x->results[i];

		if (!x->have[i])
			continue;
		json_begin_object(&j);
		json_kv_uint(&j, "seed", r->seed);
		json_kv_string(&j, "verdict", verdict_name(verdict_of(r)));
		json_kv_string(
		        &j, "schedule", schedule_format(&specs[i].schedule, delay, sizeof(delay)));
		json_key(&j, "exit");
		if (r->status >= 0 && WIFEXITED(r->status))
			json_uint(&j, WEXITSTATUS(r->status));
		else
			json_null(&j);
		json_key(&j, "hung");
		json_bool(&j, r->hung);
		json_kv_uint(&j, "manifested", r->manifested);
		json_kv_uint(&j, "latent", r->latent);
		json_key(&j, "conforms");
		if (r->conform_rc == 0 || r->conform_rc == 1)
			json_bool(&j, r->conform_rc == 0);
		else
			json_null(&j);
		json_key(&j, "script_ms");
		json_us(&j, r->script_usec);
		json_key(&j, "startup_ms");
		json_us(&j, r->startup_usec);
		json_key(&j, "total_ms");
		json_us(&j, r->total_usec);
		json_kv_string(&j, "error", r->error[0] ? r->error : NULL);
		json_kv_string(&j, "output", r->output);
		json_end_object(&j);
	}
	json_end_array(&j);
	json_key(&j, "summary");
	json_begin_object(&j);
	json_kv_uint(&j, "runs", s->runs);
	json_kv_uint(&j, "failures", s->failures);
	json_kv_uint(&j, "hung", s->hung);
	json_kv_uint(&j, "manifested", s->manifested);
	json_kv_uint(&j, "latent", s->latent);
	json_kv_uint(&j, "clean", s->clean);
	json_kv_uint(&j, "errors", s->errors);
	json_kv_uint(&j, "conform", s->conform);
	json_kv_uint(&j, "nonconforming", s->nonconforming);
	json_key(&j, "first_race_run");
	if (x->first_race)
		json_uint(&j, x->first_race);
	else
		json_null(&j);
	json_key(&j, "elapsed_ms");
	json_us(&j, s->elapsed_usec);
	json_key(&j, "runs_per_s_x1000");
	json_uint(&j, (uint64_t)(run_stats_rate(s) * 1000 + 0.5));
	json_key(&j, "startup_ms_p50");
	json_us(&j, quantile_usec(s->startup_usec, s->n_times, 0.5));
	json_key(&j, "startup_ms_p99");
	json_us(&j, quantile_usec(s->startup_usec, s->n_times, 0.99));
	json_key(&j, "script_ms_p50");
	json_us(&j, quantile_usec(s->script_usec, s->n_times, 0.5));
	json_key(&j, "script_ms_p99");
	json_us(&j, quantile_usec(s->script_usec, s->n_times, 0.99));
	json_end_object(&j);
	json_end_object(&j);
	fputc('\n', f);
	if (fflush(f) != 0 || ferror(f))
		log_error_errno(-EIO, "%s", o->json);
}

/* The runs of specs (n of them), printed, summed up, and written as JSON when asked. */
static int run_and_report(svcrace_t *c, const options_t *o, const run_spec_t *specs,
        const char *command, bool print_all, run_ctx_t *x)
{
	uint64_t t0 = now_monotonic_usec();
	int r;

	x->results = calloc(o->runs, sizeof(*x->results));
	x->have = calloc(o->runs, sizeof(*x->have));
	if (!x->results || !x->have)
		return log_error_errno(-ENOMEM, "%s", command), EXIT_INTERNAL;
	x->stop_at_first = o->stop_at_first;
	x->print_all = print_all;
	r = run_pool(c, specs, o->runs, on_run_done, x);
	x->stats.elapsed_usec = now_monotonic_usec() - t0;
	printf("\n");
	run_stats_print_table(stdout, &x->stats);
	if (o->json)
		write_json(c, o, specs, x, command);
	if (r == -EINTR) {
		log_error("interrupted: %zu of %zu runs made", x->stats.runs, o->runs);
		return 130;
	}
	if (r < 0)
		return EXIT_INTERNAL;
	return run_stats_exit(&x->stats);
}

static void run_ctx_done(run_ctx_t *x)
{
	run_stats_done(&x->stats);
	free(x->results);
	free(x->have);
}

static void print_header(const svcrace_t *c, const options_t *o, const char *what)
{
	char fx[FIX_STRMAX], slowed[64];
	unsigned d = o->depth < svcrace_n_points ? o->depth : (unsigned)svcrace_n_points;

	if (o->have_schedule)
		snprintf(slowed, sizeof(slowed), "the schedule given");
	else
		snprintf(slowed, sizeof(slowed), "%u of %zu delay points per run", d,
		        svcrace_n_points);
	printf("svcrace: %s %s: fix %s, %s, %u at a time, deadline %.0f s\n", what, c->script[0],
	        fix_name(o->fixes, fx, sizeof(fx)), slowed, c->jobs, c->timeout_usec / 1e6);
}

int cmd_run(svcrace_t *c, const options_t *o)
{
	_cleanup_free_ run_spec_t *specs = calloc(o->runs ? o->runs : 1, sizeof(*specs));
	run_ctx_t x = {0};
	char what[128];
	int r;

	if (!specs)
		return log_error_errno(-ENOMEM, "run"), EXIT_INTERNAL;
	for (size_t i = 0; i < o->runs; i++) {
		specs[i] = (run_spec_t){.seed = o->seed + i, .index = i, .fixes = o->fixes};
		r = schedule_draw(specs[i].seed, o->depth, o->scale, &specs[i].schedule);
		if (r < 0)
			return log_error_errno(r, "drawing a schedule"), EXIT_INTERNAL;
	}
	snprintf(what, sizeof(what), "%zu runs (seeds %" PRIu64 "..%" PRIu64 ") of", o->runs,
	        o->seed, o->seed + (o->runs ? o->runs - 1 : 0));
	print_header(c, o, what);
	r = run_and_report(c, o, specs, "run", false, &x);
	if (x.first_race)
		printf("first race in run %zu\n", x.first_race);
	run_ctx_done(&x);
	return r;
}

/* ------------------------------------------------------------------------------------------ */
/* svcrace replay                                                                              */

int cmd_replay(svcrace_t *c, const options_t *o)
{
	_cleanup_free_ run_spec_t *specs = calloc(o->runs ? o->runs : 1, sizeof(*specs));
	size_t count[_VERDICT_MAX] = {0}, most = 0;
	run_ctx_t x = {0};
	schedule_t s;
	char what[64];
	int r;

	if (!specs)
		return log_error_errno(-ENOMEM, "replay"), EXIT_INTERNAL;
	if (o->have_schedule)
		s = o->schedule;
	else if ((r = schedule_draw(o->seed, o->depth, o->scale, &s)) < 0)
		return log_error_errno(r, "drawing a schedule"), EXIT_INTERNAL;
	for (size_t i = 0; i < o->runs; i++)
		specs[i] = (run_spec_t){.seed = o->seed,
		        .index = i,
		        .schedule = s,
		        .fixes = o->fixes,
		        .report = i == 0 ? o->report : NULL};
	snprintf(what, sizeof(what), "%zu replays of seed %" PRIu64 " of", o->runs, o->seed);
	print_header(c, o, what);
	r = run_and_report(c, o, specs, "replay", true, &x);
	for (size_t i = 0; i < o->runs; i++)
		if (x.have[i])
			count[verdict_of(&x.results[i])]++;
	for (int v = 0; v < _VERDICT_MAX; v++)
		if (count[v] > count[most])
			most = (size_t)v;
	/*
	 * Whether there is a race is the schedule's and the code's (the oracle sees the window
	 * open whether or not the reader lost); whether it manifested is the machine's timing too.
	 */
	printf("race in %zu of %zu replays (%zu manifested, %zu latent)\n",
	        count[VERDICT_MANIFESTED] + count[VERDICT_LATENT], x.stats.runs,
	        count[VERDICT_MANIFESTED], count[VERDICT_LATENT]);
	printf("same verdict (%s) in %zu of %zu replays\n", verdict_name((verdict_t)most),
	        count[most], x.stats.runs);
	if (o->report && x.have[0] && verdict_of(&x.results[0]) != VERDICT_ERROR)
		printf("trace report of the first replay: %s\n", o->report);
	run_ctx_done(&x);
	return r;
}
