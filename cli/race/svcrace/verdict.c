/*
 * verdict.c: what a run found, from the script's exit and from its trace.
 *
 * THE MODEL.  Two witnesses, kept apart:
 *   - the script: its exit status (non-zero: a failure) or the deadline (hung).  A failure
 *     alone says nothing about a race: the script may fail for reasons of its own;
 *   - the trace: "svctrace check --json" over every file the run's processes wrote, the one
 *     race oracle of the tree; and "svctrace conform" over the same files, which says whether
 *     the run is one the model of the protocol allows (reported beside the verdict, never
 *     changing it: a run the model does not allow is the model's or the code's bug).  svcrace reads only its exit status (0 no race, 1 races, other:
 *     no answer) and the counts "latent" and "manifested" (at the top level of its JSON, or
 *     under "summary", where svctrace has kept them so far).
 * The verdict is the race when the trace shows one (manifested before latent), else the
 * script's outcome: hung, failed or clean.  svcrace's own trouble (a daemon that would not
 * start or stop cleanly, a check with no answer) is an error, never a verdict about the script.
 *
 * svctrace is run as a program rather than linked: the oracle and its JSON are svctrace's
 * contract (docs/race.md), its internals are free to change.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "log.h"
#include "macro.h"
#include "svcrace.h"
#include "timeutil.h"

#define CHECK_TIMEOUT_USEC (120 * USEC_PER_SEC)
#define SCAN_MAX_DEPTH 64

verdict_t verdict_of(const run_result_t *r)
{
	if (r->error[0])
		return VERDICT_ERROR;
	if (r->manifested > 0)
		return VERDICT_MANIFESTED;
	if (r->latent > 0 || r->check_rc == 1)
		return VERDICT_LATENT;
	if (r->hung)
		return VERDICT_HUNG;
	if (r->status != 0)
		return VERDICT_FAILED;
	return VERDICT_CLEAN;
}

const char *verdict_name(verdict_t v)
{
	static const char *const names[_VERDICT_MAX] = {
	        [VERDICT_CLEAN] = "clean",
	        [VERDICT_FAILED] = "failed",
	        [VERDICT_HUNG] = "hung",
	        [VERDICT_LATENT] = "latent race",
	        [VERDICT_MANIFESTED] = "manifested race",
	        [VERDICT_ERROR] = "error",
	};
	return v < _VERDICT_MAX ? names[v] : "?";
}

bool verdict_is_race(verdict_t v)
{
	return v == VERDICT_LATENT || v == VERDICT_MANIFESTED;
}

/* ------------------------------------------------------------------------------------------ */
/* Reading the counts out of check's JSON: a scanner that walks any JSON and keeps two numbers */

typedef struct counts {
	long top[2], summary[2]; /* [0] latent, [1] manifested; -1 not seen */
} counts_t;

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* A string at p (after its opening quote is checked); its first bytes into key; NULL if bad. */
static const char *scan_string(const char *p, char *key, size_t size)
{
	size_t n = 0;

	if (*p != '"')
		return NULL;
	for (p++; *p && *p != '"'; p++) {
		if (*p == '\\' && !*++p)
			return NULL;
		if (key && n + 1 < size)
			key[n++] = *p;
	}
	if (key && size)
		key[n] = '\0';
	return *p == '"' ? p + 1 : NULL;
}

static const char *scan_value(
        const char *p, int depth, const char *in_key, const char *key, counts_t *c);

static const char *scan_object(const char *p, int depth, const char *in_key, counts_t *c)
{
	p = skip_ws(p + 1);
	if (*p == '}')
		return p + 1;
	for (;;) {
		char key[32];

		p = scan_string(skip_ws(p), key, sizeof(key));
		if (!p)
			return NULL;
		p = skip_ws(p);
		if (*p != ':')
			return NULL;
		p = scan_value(skip_ws(p + 1), depth + 1, in_key, key, c);
		if (!p)
			return NULL;
		p = skip_ws(p);
		if (*p == '}')
			return p + 1;
		if (*p != ',')
			return NULL;
		p++;
	}
}

/*
 * A value at depth (1: a member of the top-level object), the member key it is the value of
 * (NULL in an array), the key of the object it sits in (in_key).
 */
static const char *scan_value(
        const char *p, int depth, const char *in_key, const char *key, counts_t *c)
{
	if (depth > SCAN_MAX_DEPTH)
		return NULL;
	if (*p == '{')
		return scan_object(p, depth, key ? key : "", c);
	if (*p == '[') {
		p = skip_ws(p + 1);
		if (*p == ']')
			return p + 1;
		for (;;) {
			p = scan_value(skip_ws(p), depth + 1, "", NULL, c);
			if (!p)
				return NULL;
			p = skip_ws(p);
			if (*p == ']')
				return p + 1;
			if (*p != ',')
				return NULL;
			p++;
		}
	}
	if (*p == '"')
		return scan_string(p, NULL, 0);
	if (*p == '-' || (*p >= '0' && *p <= '9')) {
		char *end;
		double v = strtod(p, &end);
		long *slot = NULL;
		int k = key && streq(key, "latent") ? 0 : key && streq(key, "manifested") ? 1 : -1;

		if (end == p)
			return NULL;
		if (k >= 0 && depth == 1)
			slot = &c->top[k];
		else if (k >= 0 && depth == 2 && streq(in_key, "summary"))
			slot = &c->summary[k];
		if (slot && v >= 0)
			*slot = (long)v;
		return end;
	}
	for (const char *const *lit = (const char *const[]){"true", "false", "null", NULL}; *lit;
	        lit++)
		if (strneq(p, *lit, strlen(*lit)))
			return p + strlen(*lit);
	return NULL;
}

int verdict_parse_counts(const char *json, uint32_t *latent, uint32_t *manifested)
{
	counts_t c = {{-1, -1}, {-1, -1}};
	const char *p = skip_ws(json);
	const long *use;

	if (*p != '{')
		return -EINVAL;
	p = scan_value(p, 0, "", NULL, &c);
	if (!p || *skip_ws(p))
		return -EINVAL;
	use = c.top[0] >= 0 && c.top[1] >= 0 ? c.top : c.summary;
	if (use[0] < 0 || use[1] < 0)
		return -EINVAL;
	*latent = (uint32_t)use[0];
	*manifested = (uint32_t)use[1];
	return 0;
}

/* ------------------------------------------------------------------------------------------ */

/* Reads fd to its end into a growing buffer. */
static int read_all(int fd, char **ret)
{
	size_t n = 0, cap = 0;
	char *buf = NULL;

	for (;;) {
		ssize_t k;

		if (GREEDY_REALLOC(buf, cap, n + 4097) < 0) {
			free(buf);
			return -ENOMEM;
		}
		k = read(fd, buf + n, cap - n - 1);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			free(buf);
			return negative_errno();
		}
		if (k == 0)
			break;
		n += (size_t)k;
	}
	buf[n] = '\0';
	*ret = buf;
	return 0;
}

/*
 * Runs svctrace COMMAND [OPTION] DIR, its stdout into *out, its stderr into work_dir/NAME.err
 * (the path in errpath), its exit status in *rc.  < 0 when it could not run or did not answer
 * in time, said in err.
 */
static int run_svctrace(const svcrace_t *c, const char *command, const char *option,
        const char *trace_dir, const char *work_dir, char **out, int *rc, char errpath[static 4200],
        char *err, size_t errsize)
{
	char *argv[] = {(char *)c->tools.svctrace, (char *)command,
	        (char *)(option ? option : trace_dir), option ? (char *)trace_dir : NULL, NULL};
	_cleanup_close_ int errfd = -1, pidfd = -1;
	int fds[2], status = 0, rr;
	pid_t pid;

	snprintf(errpath, 4200, "%s/svctrace-%s.err", work_dir, command);
	errfd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return msgf(err, errsize, "pipe: %s", strerror(errno)), -errno;
	rr = proc_spawn(
	        &(spawn_t){.argv = argv, .envp = environ, .out_fd = fds[1], .err_fd = errfd}, &pid,
	        &pidfd);
	close(fds[1]);
	if (rr < 0) {
		close(fds[0]);
		msgf(err, errsize, "cannot run svctrace: %s", strerror(-rr));
		return rr;
	}
	rr = read_all(fds[0], out);
	close(fds[0]);
	if (proc_end(pid, pidfd, 0, deadline_after_usec(CHECK_TIMEOUT_USEC), &status) < 0) {
		msgf(err, errsize, "svctrace %s did not answer in time", command);
		return -ETIMEDOUT;
	}
	*rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return rr;
}

int verdict_check(const svcrace_t *c, const char *trace_dir, const char *work_dir, run_result_t *r)
{
	char errpath[4200];
	_cleanup_free_ char *json = NULL;
	int rr;

	rr = run_svctrace(c, "check", "--json", trace_dir, work_dir, &json, &r->check_rc, errpath,
	        r->error, sizeof(r->error));
	if (r->error[0])
		return rr;
	/*
	 * 2 is a usage error or a directory with no event.  Ours is a directory svcrace made and
	 * can read: a run whose script committed nothing (svcs alone) left no event to judge.
	 */
	if (rr >= 0 && r->check_rc == 2 && access(trace_dir, R_OK | X_OK) == 0) {
		r->latent = r->manifested = 0;
		return 0;
	}
	if (rr < 0 || (r->check_rc != 0 && r->check_rc != 1)) {
		char why[200];

		file_last_line(errpath, why, sizeof(why));
		msgf(r->error, sizeof(r->error), "svctrace check failed (exit %d): %s", r->check_rc,
		        why);
		return -EIO;
	}
	if (verdict_parse_counts(json, &r->latent, &r->manifested) < 0) {
		msgf(r->error, sizeof(r->error),
		        "svctrace check --json gave no \"latent\" and \"manifested\" counts");
		return -EINVAL;
	}
	return 0;
}

void verdict_conform(
        const svcrace_t *c, const char *trace_dir, const char *work_dir, run_result_t *r)
{
	char errpath[4200];
	_cleanup_free_ char *out = NULL;
	int rr;

	r->conform_rc = -1;
	rr = run_svctrace(c, "conform", NULL, trace_dir, work_dir, &out, &r->conform_rc, errpath,
	        r->conform, sizeof(r->conform));
	if (r->conform[0])
		return;
	if (r->conform_rc == 1 && rr >= 0) /* "<fmri>: does not conform (...)", then where */
		msgf(r->conform, sizeof(r->conform), "%.*s", (int)strcspn(out, "\n"), out);
	else if (r->conform_rc != 0) /* 2: no event to judge (nothing committed); 3: no answer */
		file_last_line(errpath, r->conform, sizeof(r->conform));
}
