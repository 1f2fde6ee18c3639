/*
 * paths.h: every file minismf touches derives from one root directory.
 *
 * Many independent minismf instances run side by side (the test harness gives each test its
 * own), so no program may use a fixed path.  The root comes from --root, else $SMF_ROOT, else
 * "/" for uid 0 and $XDG_RUNTIME_DIR/minismf (or ~/.local/state/minismf) otherwise.  Below it
 * the layout mirrors illumos; the relative names are the SMF_REL_* constants.
 */
#ifndef SMF_PATHS_H
#define SMF_PATHS_H

#define SMF_REL_REPOSITORY "etc/svc/repository.db"
#define SMF_REL_VOLATILE_DIR "etc/svc/volatile"
#define SMF_REL_DOOR "etc/svc/volatile/repository_door"
#define SMF_REL_NONPERSIST_DB "etc/svc/volatile/svc_nonpersist.db"
/* The boot the non-persistent database belongs to (configd/backend.c). */
#define SMF_REL_NONPERSIST_BOOT "etc/svc/volatile/svc_nonpersist.boot_id"
#define SMF_REL_CONFIGD_LOCK "etc/svc/volatile/svc.configd.lock"
#define SMF_REL_LOG_DIR "var/svc/log"
#define SMF_REL_MANIFEST_DIR "var/svc/manifest"
#define SMF_REL_TRACE_DIR "var/svc/trace"

/*
 * Picks the root: explicit (may be NULL), then $SMF_ROOT, then the per-user default.
 * Returns a malloc'd absolute path without a trailing slash (except "/") in *ret; 0 or -errno.
 */
int smf_root_resolve(const char *explicit_root, char **ret);

/* Joins root and a relative SMF_REL_* name into a malloc'd path; 0 or -ENOMEM. */
int smf_path(const char *root, const char *rel, char **ret);

/* mkdir -p with the given mode for components it creates; 0 or -errno. */
int smf_mkdir_p(const char *path, unsigned mode);

#endif
