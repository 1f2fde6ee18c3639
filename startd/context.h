/*
 * context.h: a method's method_context (user, group, supp_groups, working_directory,
 * environment), resolved in startd before the method is spawned.
 */
#ifndef STARTD_CONTEXT_H
#define STARTD_CONTEXT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "libscf.h"

typedef struct method_context {
	bool set_ids; /* a user or group was named: the child switches to uid/gid/groups */
	uid_t uid;
	gid_t gid;
	gid_t *groups;
	size_t n_groups;
	/*
	 * privileges / limit_privileges as Linux capabilities (docs/compat.md has the mapping):
	 * with set_caps the child keeps exactly caps (ambient, so a non-root user has them after
	 * exec too) and bounds itself to bound.
	 */
	bool set_caps;
	uint64_t caps;
	uint64_t bound;
	char *cwd;  /* NULL: startd's own */
	char **env; /* "K=V" to set over the inherited environment (HOME/USER/LOGNAME first) */
} method_context_t;

/*
 * As illumos: the context properties of the method pg if it has any, else those of the
 * "method_context" pg (running snapshot, composed with the service).  Returns 0, or
 * -EINVAL with *why (malloc'd) when the context names something that does not exist: a
 * configuration error, so the instance goes to maintenance; or the repository's error
 * (*why NULL) when that pg cannot be read, never 0: a method must not run without the
 * identity it may name.
 */
int method_context_load(scf_handle_t *h, const char *fmri, const scf_pg_t *method_pg,
        method_context_t *ctx, char **why);
void method_context_done(method_context_t *ctx);

/*
 * Parses an illumos privilege set ("basic,file_dac_write", "all", "zone,!proc_setid", ...) into
 * the Linux capabilities it grants: 0 with *caps, or -EINVAL with *bad pointing at the first
 * name that cannot be honoured (unknown, without a Linux equivalent, or a basic privilege taken
 * away, which no Linux process can lose).
 */
int privileges_to_caps(const char *set, uint64_t *caps, const char **bad);

/* Sets "K=V" in an environment list, replacing an entry with the same K. */
int env_set(char ***env, const char *kv);

#endif
