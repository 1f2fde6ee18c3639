/*
 * dependents.c: undoing what an entity wrote into others.
 *
 * A <dependent name="D"> of entity X with target T is stored twice (see docs/manifests.md):
 * in X's "dependents" pg as D = T, and in T as a dependency pg D marked external = true whose
 * "entities" name X.  Deleting X must take T's pg D with it, or T would keep depending on
 * something that no longer exists, as illumos' svccfg delete also knows.  Only a pg that still
 * looks like ours is removed: external, and naming X, so a pg an administrator re-created
 * under the same name survives.
 */
#include <string.h>

#include "dependents.h"
#include "macro.h"
#include "strv.h"

static bool names_entity(const scf_pg_t *pg, const char *entity)
{
	const scf_property_t *ext = scf_pg_property(pg, SCF_PROPERTY_EXTERNAL);
	const scf_property_t *ents = scf_pg_property(pg, SCF_PROPERTY_ENTITIES);
	bool external = false;

	if (!ext || scf_property_get_boolean(ext, &external) < 0 || !external || !ents)
		return false;
	return strv_contains(ents->values, entity);
}

/* One dependent: D = T in entity's "dependents" pg. */
static int cleanup_one(
        scf_handle_t *h, scf_batch_t *b, const char *entity, const scf_property_t *dep)
{
	scf_pg_t *pg = NULL;
	int r;

	if (dep->n_values != 1)
		return 0;
	r = scf_pg_get(h, dep->values[0], dep->name, NULL, 0, &pg);
	if (r == -SCF_ERROR_NOT_FOUND || r == -SCF_ERROR_INVALID_ARGUMENT)
		return 0; /* the target or its pg is gone already */
	if (r < 0)
		return r;
	if (names_entity(pg, entity))
		r = scf_batch_pg_delete(b, dep->values[0], dep->name);
	scf_pg_free(pg);
	return r;
}

static int cleanup_entity(scf_handle_t *h, scf_batch_t *b, const char *entity)
{
	scf_pg_t *deps = NULL;
	int r;

	r = scf_pg_get(h, entity, SCF_PG_DEPENDENTS, NULL, 0, &deps);
	if (r == -SCF_ERROR_NOT_FOUND)
		return 0;
	if (r < 0)
		return r;
	for (size_t i = 0; r >= 0 && i < deps->n_props; i++)
		r = cleanup_one(h, b, entity, &deps->props[i]);
	scf_pg_free(deps);
	return r;
}

int dependents_add_cleanup(scf_handle_t *h, scf_batch_t *b, const char *entity)
{
	_cleanup_strv_free_ char **insts = NULL;
	int r;

	r = cleanup_entity(h, b, entity);
	if (r < 0 || strchr(entity + strlen("svc:"), ':'))
		return r;
	r = scf_instance_list(h, entity, &insts);
	if (r < 0)
		return r;
	STRV_FOREACH (i, insts) {
		r = cleanup_entity(h, b, *i);
		if (r < 0)
			return r;
	}
	return 0;
}
