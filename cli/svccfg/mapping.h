/*
 * mapping.h: a service bundle (lib/manifest/include/bundle.h) and the repository, both ways.
 *
 * Forward (mapping.c), for import and apply: a bundle turned into the steps of one libscf
 * batch.  Import and apply both build one batch per bundle and commit it, so a bundle lands
 * whole or not at all.  The mapping is illumos' (docs/manifests.md has the table); what differs
 * between the two is whether entities may be created (import) or must already exist (apply: a
 * missing service or instance is warned about and skipped).  Every step remembers the line of
 * the element it came from, so a refusal at commit (configd's errmsg names the step number) is
 * reported as "FILE:LINE: ..." like a reader error.
 *
 * Backward (unmap.c), for export, archive and extract: the repository read into a bundle, which
 * the manifest library writes (writer.h).  Its table is at the top of unmap.c.
 *
 * Both directions return 0 or a negative scf_error_t.
 */
#ifndef SVCCFG_MAPPING_H
#define SVCCFG_MAPPING_H

#include <stdbool.h>
#include <stdio.h>

#include "bundle.h"
#include "hashmap.h"
#include "libscf.h"

typedef enum map_mode {
	MAP_IMPORT = 1, /* a manifest: create what is missing, set what the manifest names */
	MAP_APPLY,      /* a profile: change existing instances only */
} map_mode_t;

typedef struct map_ctx {
	scf_handle_t *h;
	scf_batch_t *b;
	const mf_bundle_t *bundle;
	map_mode_t mode;
	FILE *warn; /* where apply's warnings go (stderr) */

	/*
	 * Out: the instances the bundle wrote, and which of them did not exist before, both in
	 * the bundle's order (new_instances is a subsequence of instances).
	 */
	char **instances;
	char **new_instances;
	size_t n_instances, n_new_instances;
	/*
	 * Out: the entities outside the bundle that a <dependent> wrote a dependency pg into
	 * (canonical, once each): illumos refreshes them, so that their running snapshot has it.
	 */
	char **dependent_targets;

	/*
	 * Internal: which of the bundle's instances exist (INSTANCE_EXISTS or INSTANCE_ABSENT by
	 * FMRI), read in one bulk call before the walk; NULL (a configd without bulk reads) or a
	 * missing key: asked one at a time.
	 */
	hashmap_t *existing;
	/* Internal: the element line of every step, for reports. */
	unsigned line;
	unsigned *step_lines; /* one per step of b so far */
	size_t n_step_lines, n_step_lines_allocated;
	int warnings;
} map_ctx_t;

/*
 * Adds the steps of the whole bundle to ctx->b.  Returns 0, or < 0 with the reason written
 * into *errmsg as "FILE:LINE: message" (malloc'd).
 */
int map_bundle(map_ctx_t *ctx, char **errmsg);

/*
 * After scf_batch_commit() failed with r: the "FILE:LINE: message" naming the element whose
 * step configd refused (malloc'd; NULL on OOM).
 */
char *map_commit_error(const map_ctx_t *ctx, int r);

void map_ctx_done(map_ctx_t *ctx);

/*
 * A pg or property name made of prefix and s: characters a name may not hold become '_', and
 * it is cut to SCF_LIMIT_MAX_NAME_LENGTH.  NULL on OOM.
 */
char *map_pg_name(const char *prefix, const char *s);

/*
 * The property a <loctext xml:lang=LANG> becomes: prefix then LANG with every character but a
 * letter, a digit or '_' made '_' (illumos' _scf_sanitize_locale(): "en-US" is "en_US").  NULL
 * on OOM.
 */
char *map_loctext_name(const char *prefix, const char *lang);

/* How much of a service unmap_service() reads. */
typedef enum unmap_depth {
	UNMAP_FULL = 1, /* everything export writes (see unmap.c) */
	UNMAP_ENABLED,  /* the instances and their enabled flags only (extract's profile) */
} unmap_depth_t;

/* An empty bundle of that type and name, to unmap services into; free with mf_bundle_free(). */
int unmap_bundle_new(mf_bundle_type_t type, const char *name, mf_bundle_t **ret);

/*
 * Reads the service (a canonical FMRI) and its instances from the repository and appends them
 * to b as one mf_service_t.  On failure b may hold part of the service: throw it away.  A value
 * that import would refuse (stored by an older configd) fails it with
 * -SCF_ERROR_CONSTRAINT_VIOLATED and the sentence that names it in *why (free()).
 */
int unmap_service(
        scf_handle_t *h, const char *service_fmri, unmap_depth_t depth, mf_bundle_t *b, char **why);

#endif
