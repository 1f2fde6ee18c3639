/*
 * context.c: resolving a method_context as illumos does.
 *
 * Where the properties come from: the method's own pg when it has any method_context property
 * (a <method_context> inside the <exec_method>), else the instance's "method_context" pg
 * composed with the service's.  Everything is resolved here, in the worker, because the forked
 * child may only make async-signal-safe calls: names become ids, ":default" becomes the
 * user's primary group, all its groups, and its home directory (also what working_directory
 * ":home" names), and privileges become the Linux capabilities that allow the same
 * (docs/compat.md has the mapping).  A name that does not resolve, or a privilege Linux cannot
 * honour, is a configuration error (illumos: the method cannot run, the instance goes to
 * maintenance).
 */
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "context.h"
#include "macro.h"
#include "why.h"
#include "strv.h"

#define NSS_BUF_SIZE 16384
#define MAX_GROUPS 256

static const char *const context_props[] = {
        "user",
        "group",
        "supp_groups",
        "working_directory",
        "environment",
        "use_profile",
        "profile",
        "privileges",
        "limit_privileges",
        "project",
        "resource_pool",
};

static bool has_context(const scf_pg_t *pg)
{
	for (size_t k = 0; pg && k < ELEMENTSOF(context_props); k++)
		if (scf_pg_property(pg, context_props[k]))
			return true;
	return false;
}

/* A single-valued string property; NULL when absent, empty or ":default". */
static const char *prop_str(const scf_pg_t *pg, const char *name)
{
	const scf_property_t *p = scf_pg_property(pg, name);
	const char *s;

	if (!p || scf_property_get_string(p, &s) < 0 || !s[0] || streq(s, ":default"))
		return NULL;
	return s;
}

static bool parse_id(const char *s, unsigned long *ret)
{
	char *end;

	if (!s[0] || s[0] < '0' || s[0] > '9')
		return false;
	errno = 0;
	*ret = strtoul(s, &end, 10);
	return errno == 0 && !*end;
}

static int resolve_group(const char *name, gid_t *ret)
{
	_cleanup_free_ char *buf = malloc(NSS_BUF_SIZE);
	struct group gr, *res = NULL;
	unsigned long id;

	if (parse_id(name, &id)) {
		*ret = (gid_t)id;
		return 0;
	}
	if (!buf)
		return -ENOMEM;
	if (getgrnam_r(name, &gr, buf, NSS_BUF_SIZE, &res) != 0 || !res)
		return -ENOENT;
	*ret = res->gr_gid;
	return 0;
}

/* supp_groups: names or ids separated by commas or blanks. */
static int resolve_supp(const char *list, method_context_t *ctx, char **why)
{
	_cleanup_free_ char *copy = strdup(list);
	char *save = NULL;

	if (!copy || !(ctx->groups = calloc(MAX_GROUPS, sizeof(gid_t))))
		return -ENOMEM;
	for (char *t = strtok_r(copy, ", \t", &save); t; t = strtok_r(NULL, ", \t", &save)) {
		if (ctx->n_groups == MAX_GROUPS)
			return why_set(why, "too many supplementary groups in \"%s\"", list);
		if (resolve_group(t, &ctx->groups[ctx->n_groups]) < 0)
			return why_set(why, "group \"%s\" does not exist", t);
		ctx->n_groups++;
	}
	return 0;
}

static int add_user_env(method_context_t *ctx, const struct passwd *pw)
{
	char *s;

	if (asprintf(&s, "HOME=%s", pw->pw_dir) < 0 || strv_consume(&ctx->env, s) < 0)
		return -ENOMEM;
	if (asprintf(&s, "LOGNAME=%s", pw->pw_name) < 0 || strv_consume(&ctx->env, s) < 0)
		return -ENOMEM;
	if (asprintf(&s, "USER=%s", pw->pw_name) < 0 || strv_consume(&ctx->env, s) < 0)
		return -ENOMEM;
	return 0;
}

/* user, group, supp_groups, and the home directory as the default working directory. */
static int resolve_ids(const scf_pg_t *pg, method_context_t *ctx, char **why)
{
	_cleanup_free_ char *buf = malloc(NSS_BUF_SIZE);
	const char *user = prop_str(pg, "user"), *group = prop_str(pg, "group");
	const char *supp = prop_str(pg, "supp_groups");
	struct passwd pw, *res = NULL;
	unsigned long id;
	int r;

	if (!user && !group)
		return 0;
	if (!buf)
		return -ENOMEM;
	ctx->set_ids = true;
	ctx->uid = geteuid();
	ctx->gid = getegid();
	if (user) {
		if (parse_id(user, &id))
			(void)getpwuid_r((uid_t)id, &pw, buf, NSS_BUF_SIZE, &res);
		else
			(void)getpwnam_r(user, &pw, buf, NSS_BUF_SIZE, &res);
		if (!res)
			return why_set(why, "user \"%s\" does not exist", user);
		ctx->uid = res->pw_uid;
		ctx->gid = res->pw_gid;
		if ((r = add_user_env(ctx, res)) < 0)
			return r;
		if (!ctx->cwd && !(ctx->cwd = strdup(res->pw_dir)))
			return -ENOMEM;
	}
	if (group && resolve_group(group, &ctx->gid) < 0)
		return why_set(why, "group \"%s\" does not exist", group);
	if (supp)
		return resolve_supp(supp, ctx, why);
	/* ":default": the user's groups, as initgroups() would set them. */
	int n = MAX_GROUPS;
	if (!(ctx->groups = calloc(MAX_GROUPS, sizeof(gid_t))))
		return -ENOMEM;
	if (res && getgrouplist(res->pw_name, ctx->gid, ctx->groups, &n) >= 0)
		ctx->n_groups = (size_t)n;
	else {
		ctx->groups[0] = ctx->gid;
		ctx->n_groups = 1;
	}
	return 0;
}

#define CAP(c) (UINT64_C(1) << (c))

/*
 * illumos' privileges and the Linux capabilities that allow the same (caps 0: a basic
 * privilege, which every Linux process has and none can give up).  A privilege not listed has
 * no Linux equivalent (contract_*, dtrace_*, proc_zone, sys_linkdir, ...).
 */
static const struct {
	const char *name;
	uint64_t caps;
} priv_map[] = {
        {"file_link_any", 0},
        {"file_read", 0},
        {"file_write", 0},
        {"net_access", 0},
        {"proc_exec", 0},
        {"proc_fork", 0},
        {"proc_info", 0},
        {"proc_secflags", 0},
        {"proc_session", 0},
        {"file_chown", CAP(CAP_CHOWN)},
        {"file_chown_self", CAP(CAP_CHOWN)},
        {"file_dac_execute", CAP(CAP_DAC_OVERRIDE)},
        {"file_dac_write", CAP(CAP_DAC_OVERRIDE)},
        {"file_dac_read", CAP(CAP_DAC_READ_SEARCH)},
        {"file_dac_search", CAP(CAP_DAC_READ_SEARCH)},
        {"file_owner", CAP(CAP_FOWNER)},
        {"file_setid", CAP(CAP_FSETID)},
        {"ipc_dac_read", CAP(CAP_IPC_OWNER)},
        {"ipc_dac_write", CAP(CAP_IPC_OWNER)},
        {"ipc_owner", CAP(CAP_IPC_OWNER)},
        {"net_privaddr", CAP(CAP_NET_BIND_SERVICE)},
        {"net_icmpaccess", CAP(CAP_NET_RAW)},
        {"net_rawaccess", CAP(CAP_NET_RAW)},
        {"sys_ip_config", CAP(CAP_NET_ADMIN)},
        {"sys_net_config", CAP(CAP_NET_ADMIN)},
        {"sys_dl_config", CAP(CAP_NET_ADMIN)},
        {"proc_audit", CAP(CAP_AUDIT_WRITE)},
        {"proc_chroot", CAP(CAP_SYS_CHROOT)},
        {"proc_lock_memory", CAP(CAP_IPC_LOCK)},
        {"proc_owner", CAP(CAP_KILL) | CAP(CAP_SYS_PTRACE)},
        {"proc_priocntl", CAP(CAP_SYS_NICE)},
        {"proc_setid", CAP(CAP_SETUID) | CAP(CAP_SETGID)},
        {"sys_acct", CAP(CAP_SYS_PACCT)},
        {"sys_admin", CAP(CAP_SYS_ADMIN)},
        {"sys_config", CAP(CAP_SYS_ADMIN)},
        {"sys_mount", CAP(CAP_SYS_ADMIN)},
        {"sys_audit", CAP(CAP_AUDIT_CONTROL)},
        {"sys_devices", CAP(CAP_MKNOD)},
        {"sys_resource", CAP(CAP_SYS_RESOURCE)},
        {"sys_ipc_config", CAP(CAP_SYS_RESOURCE)},
        {"sys_time", CAP(CAP_SYS_TIME)},
};

int privileges_to_caps(const char *set, uint64_t *caps, const char **bad)
{
	static _Thread_local char name[64];
	const char *p = set;

	*caps = 0;
	while (*p) {
		size_t len = strcspn(p, ",");
		bool remove = *p == '!' || *p == '-';
		const char *n = p + remove;
		size_t k;

		len -= remove;
		if (len >= sizeof(name))
			len = sizeof(name) - 1;
		memcpy(name, n, len);
		name[len] = '\0';
		p = n + len + (n[len] == ',');
		if (streq(name, "all") || streq(name, "zone")) {
			*caps = remove ? 0 : ~UINT64_C(0);
			continue;
		}
		if (streq(name, "none") || (!remove && streq(name, "basic")))
			continue;
		for (k = 0; k < ELEMENTSOF(priv_map); k++)
			if (strcasecmp(name, priv_map[k].name) == 0)
				break;
		/* Unknown, without an equivalent, or a basic privilege taken away. */
		if (k == ELEMENTSOF(priv_map) || (remove && priv_map[k].caps == 0)) {
			*bad = name;
			return -EINVAL;
		}
		if (remove)
			*caps &= ~priv_map[k].caps;
		else
			*caps |= priv_map[k].caps;
	}
	return 0;
}

/* privileges and limit_privileges, refused as illumos refuses them when they cannot be had. */
static int resolve_privileges(const scf_pg_t *pg, method_context_t *ctx, char **why)
{
	const char *privs = prop_str(pg, "privileges"), *limit = prop_str(pg, "limit_privileges");
	uint64_t all = ~UINT64_C(0);
	const char *bad;

	ctx->caps = ctx->bound = all;
	if (privs && privileges_to_caps(privs, &ctx->caps, &bad) < 0)
		return why_set(why, "Could not interpret privileges property. (\"%s\": %s)", bad,
		        "no such privilege, or none Linux can honour");
	if (limit && privileges_to_caps(limit, &ctx->bound, &bad) < 0)
		return why_set(why, "Could not interpret limit_privileges property. (\"%s\": %s)",
		        bad, "no such privilege, or none Linux can honour");
	/* What the method has is all it can ever have: its limit is its set, within the limit. */
	ctx->bound &= ctx->caps;
	ctx->caps &= ctx->bound;
	ctx->set_caps = privs || (limit && ctx->bound != all);
	return 0;
}

/*
 * What Linux has no equivalent of, refused as illumos refuses a profile, project or pool it
 * cannot find (the method does not run) rather than ignored: an RBAC exec profile
 * (use_profile true), a project, a resource pool.
 */
static int refuse_solaris_only(const scf_pg_t *pg, char **why)
{
	const scf_property_t *p = scf_pg_property(pg, "use_profile");
	bool use_profile = false;

	if (p && scf_property_get_boolean(p, &use_profile) >= 0 && use_profile)
		return why_set(why, "Could not find profile. (Linux has no RBAC exec profiles)");
	if (prop_str(pg, "project"))
		return why_set(why, "Missing passwd or project entry. (Linux has no projects)");
	if (prop_str(pg, "resource_pool"))
		return why_set(why,
		        "pool_set_binding: the pool could not be found (Linux has no "
		        "resource pools)");
	return 0;
}

/* The home directory of the method's user, else of startd's: working_directory ":home". */
static int home_of(uid_t uid, char **ret)
{
	_cleanup_free_ char *buf = malloc(NSS_BUF_SIZE);
	struct passwd pw, *res = NULL;

	if (!buf)
		return -ENOMEM;
	if (getpwuid_r(uid, &pw, buf, NSS_BUF_SIZE, &res) != 0 || !res)
		return -ENOENT;
	*ret = strdup(res->pw_dir);
	return *ret ? 0 : -ENOMEM;
}

static int resolve(const scf_pg_t *pg, method_context_t *ctx, char **why)
{
	const char *wd = prop_str(pg, "working_directory");
	const scf_property_t *env = scf_pg_property(pg, "environment");
	bool home = wd && streq(wd, ":home");
	int r;

	/* ":home" is the user's home, which resolve_ids() makes the default. */
	if (wd && !home && !(ctx->cwd = strdup(wd)))
		return -ENOMEM;
	r = resolve_ids(pg, ctx, why);
	if (r < 0)
		return r;
	if (home && !ctx->cwd && home_of(ctx->set_ids ? ctx->uid : geteuid(), &ctx->cwd) < 0)
		return why_set(why, "Could not get passwd entry.");
	r = resolve_privileges(pg, ctx, why);
	if (r < 0)
		return r;
	r = refuse_solaris_only(pg, why);
	if (r < 0)
		return r;
	for (size_t k = 0; env && k < env->n_values; k++) {
		const char *kv = env->values[k];

		/* SMF_ variables are the restarter's to set (illumos refuses them at import). */
		if (!strchr(kv, '=') || kv[0] == '=' || strneq(kv, "SMF_", 4))
			continue;
		if (env_set(&ctx->env, kv) < 0)
			return -ENOMEM;
	}
	return 0;
}

int method_context_load(scf_handle_t *h, const char *fmri, const scf_pg_t *method_pg,
        method_context_t *ctx, char **why)
{
	_cleanup_(scf_pg_freep) scf_pg_t *mc = NULL;
	int r;

	*ctx = (method_context_t){};
	*why = NULL;
	if (has_context(method_pg))
		return resolve(method_pg, ctx, why);
	r = scf_pg_get(h, fmri, "method_context", SCF_SNAPSHOT_RUNNING, SCF_READ_COMPOSED, &mc);
	if (r == -SCF_ERROR_NOT_FOUND)
		r = scf_pg_get(h, fmri, "method_context", NULL, SCF_READ_COMPOSED, &mc);
	if (r == -SCF_ERROR_NOT_FOUND)
		return 0;
	/* Never run the method without the identity it may have: the caller retries or fails. */
	if (r < 0)
		return r;
	return resolve(mc, ctx, why);
}

void method_context_done(method_context_t *ctx)
{
	free(ctx->groups);
	free(ctx->cwd);
	strv_free(ctx->env);
	*ctx = (method_context_t){};
}

int env_set(char ***env, const char *kv)
{
	size_t klen = strcspn(kv, "=") + 1;
	char *copy = strdup(kv);

	if (!copy)
		return -ENOMEM;
	for (char **e = *env; e && *e; e++)
		if (strneq(*e, kv, klen)) {
			free(*e);
			*e = copy;
			return 0;
		}
	if (strv_consume(env, copy) < 0) {
		free(copy);
		return -ENOMEM;
	}
	return 0;
}
