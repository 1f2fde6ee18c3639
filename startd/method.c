/*
 * method.c: running an instance's methods as illumos does.
 *
 * A method is the "exec" property of the pg named after it (type method), read from the
 * instance's "running" snapshot composed with its service: what the last refresh committed,
 * not what is being edited.  Its tokens are expanded first (expand.c: %f %s %i %m %r %% and
 * %{pg/prop}, the property's values quoted for the shell); one that cannot be (a property that
 * does not exist) is a configuration error, so the method does not run half-formed.
 * ":true" succeeds without a process, ":kill" signals the contract, anything else runs as
 * /bin/sh -c "exec <exec>" with its output appended to the instance's log.  timeout_seconds 0
 * (or absent) means no limit; past the limit the method's whole process group is killed.
 *
 * A method runs in two calls, so that the caller can act between them (the machine records a
 * start method's process group as the contract before it waits: fsm.h): method_spawn() reads
 * it and spawns it, method_wait() waits for it.  How it ended is all they say (method_end_t:
 * an exit status, a signal, a timeout...); what that means for the instance is the machine's.
 *
 * Traced as startd.method_start once the method runs (":true" and ":kill" too, which run no
 * process) and startd.method_exit once it is done; a wait-model start is not waited for, so it
 * has no method_exit.
 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "cgroup.h"
#include "context.h"
#include "instance.h"
#include "method.h"
#include "delay.h"
#include "expand.h"
#include "log.h"
#include "macro.h"
#include "paths.h"
#include "probes.h"
#include "proc.h"
#include "strv.h"
#include "timeutil.h"

extern char **environ;

/*
 * Reads a pg from "running" if there is one, else the current view; composed either way.  A
 * broken connection is waited out and the read repeated (instance_rebind()).
 */
static int read_pg(instance_t *i, const char *pg, scf_pg_t **ret)
{
	int r = INSTANCE_RETRY(
	        i, scf_pg_get(i->h, i->fmri, pg, SCF_SNAPSHOT_RUNNING, SCF_READ_COMPOSED, ret));

	if (r == -SCF_ERROR_NOT_FOUND)
		r = INSTANCE_RETRY(i, scf_pg_get(i->h, i->fmri, pg, NULL, SCF_READ_COMPOSED, ret));
	return r;
}

smodel_t method_model(instance_t *i)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	const scf_property_t *p;
	const char *s;

	if (read_pg(i, "startd", &pg) < 0 || !(p = scf_pg_property(pg, "duration")) ||
	        scf_property_get_string(p, &s) < 0)
		return SMODEL_CONTRACT;
	if (streq(s, "transient"))
		return SMODEL_TRANSIENT;
	if (streq(s, "wait") || streq(s, "child"))
		return SMODEL_WAIT;
	return SMODEL_CONTRACT;
}

int method_uid(instance_t *i, const char *name, uid_t *uid)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	_cleanup_(method_context_done) method_context_t ctx = {};
	_cleanup_free_ char *why = NULL;
	int r = read_pg(i, name, &pg);

	if (r >= 0)
		r = INSTANCE_RETRY(i, method_context_load(i->h, i->fmri, pg, &ctx, &why));
	if (r < 0)
		return r;
	*uid = ctx.set_ids ? ctx.uid : geteuid();
	return 0;
}

int method_logfile_path(const char *root, const char *fmri, char **ret)
{
	_cleanup_free_ char *dir = NULL, *name = NULL;
	scf_fmri_t f = {};
	char *s;
	int r;

	r = scf_fmri_parse(fmri, &f);
	if (r < 0)
		return -EINVAL;
	r = asprintf(&name, "%s:%s.log", f.service, strempty(f.instance));
	scf_fmri_clear(&f);
	if (r < 0)
		return -ENOMEM;
	for (s = name; *s; s++)
		if (*s == '/')
			*s = '-';
	if (smf_path(root, SMF_REL_LOG_DIR, &dir) < 0 || asprintf(ret, "%s/%s", dir, name) < 0)
		return -ENOMEM;
	return 0;
}

/* Opens the log for appending, creating its directory; the fd or < 0. */
static int open_log(instance_t *i)
{
	_cleanup_free_ char *dir = NULL;

	if (!i->logfile && method_logfile_path(i->m->root, i->fmri, &i->logfile) < 0)
		return -ENOMEM;
	if (smf_path(i->m->root, SMF_REL_LOG_DIR, &dir) < 0)
		return -ENOMEM;
	(void)smf_mkdir_p(dir, 0755);
	int fd = open(i->logfile, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0644);
	return fd < 0 ? negative_errno() : fd;
}

static void log_header(int fd, const char *fmt, ...) _printf_(2, 3);
static void log_header(int fd, const char *fmt, ...)
{
	char when[64];
	time_t t = time(NULL);
	struct tm tm;
	va_list ap;

	if (fd < 0)
		return;
	strftime(when, sizeof(when), "%b %e %H:%M:%S", localtime_r(&t, &tm));
	dprintf(fd, "[ %s ", when);
	va_start(ap, fmt);
	vdprintf(fd, fmt, ap);
	va_end(ap);
	dprintf(fd, " ]\n");
}

/*
 * environ, then the method_context's variables (HOME, USER, LOGNAME of its user, then its
 * environment property), then what illumos gives every method: SMF_FMRI, SMF_METHOD,
 * SMF_RESTARTER, and SMF_ROOT for our private roots.
 */
static char **method_env(instance_t *i, const char *name, const method_context_t *ctx)
{
	_cleanup_strv_free_ char **env = strv_new_empty();
	char *s;

	if (!env)
		return NULL;
	for (char **e = environ; e && *e; e++)
		if (!strneq(*e, "SMF_FMRI=", 9) && !strneq(*e, "SMF_METHOD=", 11) &&
		        !strneq(*e, "SMF_RESTARTER=", 14) && !strneq(*e, "NOTIFY_SOCKET=", 14) &&
		        strv_extend(&env, *e) < 0)
			return NULL;
	STRV_FOREACH (kv, ctx->env)
		if (env_set(&env, *kv) < 0)
			return NULL;
	if (asprintf(&s, "SMF_FMRI=%s", i->fmri) < 0 || strv_consume(&env, s) < 0)
		return NULL;
	if (asprintf(&s, "SMF_METHOD=%s", name) < 0 || strv_consume(&env, s) < 0)
		return NULL;
	if (strv_extend(&env, "SMF_RESTARTER=" SCF_SERVICE_STARTD) < 0)
		return NULL;
	if (asprintf(&s, "SMF_ROOT=%s", i->m->root) < 0 || strv_consume(&env, s) < 0)
		return NULL;
	return TAKE_PTR(env);
}

/*
 * A %{...} token's property, for expand_method_tokens().  As illumos reads it: an instance's
 * property from its running snapshot composed with its service, and from its current view when
 * the snapshot lacks the pg or the property (a property added since the last refresh); a
 * service's from the service itself.
 */
static int read_token_prop(void *userdata, const expand_prop_t *p, char ***values, char **why)
{
	instance_t *i = userdata;
	const char *entity = p->entity ?: i->fmri;
	const char *snapshots[] = {SCF_SNAPSHOT_RUNNING, NULL};
	const scf_property_t *prop = NULL;
	int r = -SCF_ERROR_NOT_FOUND;

	*why = NULL;
	for (size_t k = p->service ? 1 : 0; k < ELEMENTSOF(snapshots) && !prop; k++) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;

		r = INSTANCE_RETRY(i,
		        scf_pg_get(i->h, entity, p->pg, snapshots[k],
		                p->service ? 0 : SCF_READ_COMPOSED, &pg));
		if (r == -SCF_ERROR_NOT_FOUND)
			continue;
		if (r < 0)
			return r;
		prop = scf_pg_property(pg, p->prop);
		if (prop) {
			*values = strv_copy(prop->values);
			return *values ? 0 : -ENOMEM;
		}
		r = -SCF_ERROR_NOT_FOUND;
	}
	return r;
}

/* exec with its tokens expanded (expand.c); 0 with *ret, else < 0 with *why. */
static int expand_exec(instance_t *i, const char *name, const char *exec, char **ret, char **why)
{
	_cleanup_(scf_fmri_clear) scf_fmri_t f = {};
	expand_names_t names;

	*why = NULL;
	if (scf_fmri_parse(i->fmri, &f) < 0)
		return -EINVAL;
	names = (expand_names_t){
	        .fmri = i->fmri,
	        .service = f.service,
	        .instance = strempty(f.instance),
	        .method = name,
	};
	return expand_method_tokens(exec, &names, read_token_prop, i, ret, why);
}

/* Spawns the exec string in its method context; the pid or < 0. */
static pid_t spawn_exec(
        instance_t *i, const method_call_t *c, const method_context_t *ctx, int log_fd)
{
	_cleanup_strv_free_ char **env = method_env(i, c->name, ctx);
	_cleanup_free_ char *cmd = NULL;
	/* Entering a cgroup costs a fork() and a migration (tens of ms on a busy machine). */
	_cleanup_close_ int cg_fd = c->cgroup ? cgroup_open_procs(i->fmri) : -1;

	if (!env || asprintf(&cmd, "exec %s", c->exec) < 0)
		return -ENOMEM;
	char *argv[] = {(char *)"/bin/sh", (char *)"-c", cmd, NULL};
	spawn_opts_t o = {
	        .log_fd = log_fd,
	        .cwd = ctx->cwd,
	        .set_ids = ctx->set_ids,
	        .uid = ctx->uid,
	        .gid = ctx->gid,
	        .groups = ctx->groups,
	        .n_groups = ctx->n_groups,
	        .cgroup_procs_fd = cg_fd,
	        .set_caps = ctx->set_caps,
	        .caps = ctx->caps,
	        .bound = ctx->bound,
	};
	return proc_spawn(argv, env, &o);
}

static int exec_of(const scf_pg_t *pg, const char **exec, uint64_t *timeout)
{
	const scf_property_t *p = scf_pg_property(pg, SCF_PROPERTY_EXEC);

	if (!p || scf_property_get_string(p, exec) < 0)
		return -ENOENT;
	*timeout = 0;
	p = scf_pg_property(pg, SCF_PROPERTY_TIMEOUT);
	if (p && scf_property_get_count(p, timeout) < 0)
		*timeout = 0;
	return 0;
}

/* How a waited-for child ended. */
static method_end_t end_of(int status)
{
	if (WIFEXITED(status))
		return (method_end_t){.outcome = METHOD_EXITED, .code = WEXITSTATUS(status)};
	return (method_end_t){
	        .outcome = METHOD_SIGNALED,
	        .code = WIFSIGNALED(status) ? -WTERMSIG(status) : -1,
	};
}

void method_call_done(method_call_t *c)
{
	closep(&c->log_fd);
	c->log_fd = -1;
	c->exec = mfree(c->exec);
}

/* A method that ended without a process of its own: 0 with *end. */
static int ended(method_call_t *c, method_outcome_t outcome, int code, method_end_t *end)
{
	*end = (method_end_t){.outcome = outcome, .code = code};
	method_call_done(c);
	return 0;
}

int method_spawn(instance_t *i, method_call_t *c, method_end_t *end)
{
	_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
	_cleanup_(method_context_done) method_context_t ctx = {};
	_cleanup_free_ char *why = NULL;
	const char *exec;
	int r;

	instance_assert_worker(i);
	assert(c->log_fd < 0 && !c->exec);
	r = read_pg(i, c->name, &pg);
	if (r == -SCF_ERROR_NOT_FOUND)
		return ended(c, METHOD_UNDEFINED, -ENOENT, end);
	if (r < 0)
		return ended(c,
		        instance_connection_lost(r) ? METHOD_UNREACHABLE : METHOD_UNREADABLE, r,
		        end);
	if (exec_of(pg, &exec, &c->timeout_s) < 0)
		return ended(c, METHOD_UNDEFINED, -ENOENT, end);
	smf_point(SMF_POINT_STARTD_METHOD_BEFORE_START);
	if (streq(exec, ":true") || streq(exec, ":kill")) {
		probe_method_start(i->fmri, c->name);
		if (streq(exec, ":kill"))
			(void)proc_group_kill(c->contract, SIGTERM, STOP_GRACE_USEC);
		*end = (method_end_t){.outcome = METHOD_EXITED};
		probe_method_exit(i->fmri, c->name, end);
		return 0;
	}
	c->log_fd = open_log(i);
	r = expand_exec(i, c->name, exec, &c->exec, &why);
	if (r < 0 && instance_connection_lost(r))
		return ended(c, METHOD_UNREACHABLE, r, end);
	if (r == -ENOMEM)
		return ended(c, METHOD_NOT_RUN, 0, end);
	if (r < 0) {
		/* illumos: the method is not run and the instance goes to maintenance. */
		log_error("%s: could not expand method tokens in \"%s\": %s", i->fmri, exec,
		        why ?: scf_strerror(r));
		log_header(c->log_fd, "Could not expand method tokens in \"%s\": %s.", exec,
		        why ?: scf_strerror(r));
		return ended(c, METHOD_CONFIG, 0, end);
	}
	why = mfree(why);
	r = INSTANCE_RETRY(i, method_context_load(i->h, i->fmri, pg, &ctx, &why));
	if (r < 0 && instance_connection_lost(r))
		/* configd did not come back: not the method's fault */
		return ended(c, METHOD_UNREACHABLE, r, end);
	if (r < 0) {
		/* illumos: a context that cannot be set up is a configuration error. */
		log_error("%s: %s method: method_context: %s", i->fmri, c->name,
		        why ?: scf_strerror(r));
		log_header(c->log_fd, "%s method: method_context: %s", c->name,
		        why ?: scf_strerror(r));
		return ended(c, METHOD_CONFIG, 0, end);
	}
	log_header(c->log_fd, "Executing %s method (\"%s\")", c->name, c->exec);
	c->pid = spawn_exec(i, c, &ctx, c->log_fd);
	if (c->pid < 0) {
		log_error_errno(c->pid, "%s: cannot run the %s method", i->fmri, c->name);
		return ended(c, METHOD_NOT_RUN, 0, end);
	}
	probe_method_start(i->fmri, c->name);
	return 1;
}

/* A method past its timeout, or a start at shutdown (cancelled): its group killed. */
static method_end_t cut_short(instance_t *i, method_call_t *c, bool cancelled)
{
	int status = 0;

	if (cancelled)
		log_info("%s: shutting down; killing the running method", i->fmri);
	else
		log_warning("%s: method timed out after %" PRIu64 " s; killing its processes",
		        i->fmri, c->timeout_s);
	(void)proc_group_kill(c->pid, SIGKILL, 0);
	(void)proc_wait(c->pid, deadline_after_usec(STOP_GRACE_USEC), &status, false);
	proc_forget(c->pid);
	return (method_end_t){
	        .outcome = cancelled ? METHOD_CANCELED : METHOD_TIMEOUT,
	        .code = -SIGKILL,
	};
}

void method_wait(instance_t *i, method_call_t *c, method_end_t *end)
{
	/* A start is cancelled at shutdown: it could hold its worker up to its timeout. */
	bool start = streq(c->name, "start");
	uint64_t deadline =
	        c->timeout_s ? deadline_after_usec(c->timeout_s * USEC_PER_SEC) : USEC_INFINITY;
	int status = 0, r;

	instance_assert_worker(i);
	r = proc_wait(c->pid, deadline, &status, start);
	*end = r > 0 ? end_of(status) : cut_short(i, c, r == -ECANCELED);
	probe_method_exit(i->fmri, c->name, end);
	if (!start) /* what a stop method left behind is not the service's */
		(void)proc_group_kill(c->pid, SIGKILL, 0);
	log_header(c->log_fd, "Method \"%s\" exited with status %d", c->name, end->code);
	if (end->code == 127 || end->code == 126)
		log_error("%s: %s method: \"%s\" %s (exit %d)", i->fmri, c->name, c->exec,
		        end->code == 127 ? "not found" : "cannot be executed", end->code);
	method_call_done(c);
}
