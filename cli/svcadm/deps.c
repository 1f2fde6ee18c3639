/*
 * deps.c: an instance's dependencies, as svcadm sees them.
 *
 * Only require_all and require_any groups can hold an instance back for good: optional_all
 * and exclude_all never make it hopeless, and enable -r does not follow them.  An entity is a
 * file (met while it exists) or a service or instance, met when some instance it names can
 * come up: it exists, is enabled, is not in maintenance, and its own dependencies can be met.
 * The walk follows dependencies recursively; a cycle is judged where it started (an instance
 * already visited counts as able to come up).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli-quote.h"
#include "strv.h"
#include "svcadm.h"

/* Called for each require_all / require_any group of an instance; false stops the walk. */
typedef bool (*dep_fn)(
        const char *fmri, depgroup_type_t g, const scf_property_t *entities, void *userdata);

/* Walks fmri's dependency groups that can hold it back; false if fn stopped the walk. */
static bool foreach_required_group(const char *fmri, dep_fn fn, void *userdata)
{
	scf_pg_info_t *infos = NULL;
	size_t n = 0;
	bool go = true;

	if (scf_pg_list(svcadm.h, fmri, NULL, SCF_READ_COMPOSED, &infos, &n) < 0)
		return true;
	for (size_t k = 0; go && k < n; k++) {
		_cleanup_(scf_pg_freep) scf_pg_t *pg = NULL;
		const scf_property_t *grouping, *entities;
		const char *gs;
		int g;

		if (!streq(infos[k].type, SCF_GROUP_DEPENDENCY) ||
		        scf_pg_get(svcadm.h, fmri, infos[k].name, NULL, SCF_READ_COMPOSED, &pg) < 0)
			continue;
		grouping = scf_pg_property(pg, SCF_PROPERTY_GROUPING);
		entities = scf_pg_property(pg, SCF_PROPERTY_ENTITIES);
		if (!grouping || !entities || scf_property_get_string(grouping, &gs) < 0)
			continue;
		g = depgroup_from_string(gs);
		if (g != DEPGRP_REQUIRE_ALL && g != DEPGRP_REQUIRE_ANY)
			continue;
		go = fn(fmri, (depgroup_type_t)g, entities, userdata);
	}
	scf_pg_info_free(infos, n);
	return go;
}

/* Adds fmri to the visited set; false if it was there already. */
static bool visit(const char *fmri, char ***visited)
{
	if (strv_contains(*visited, fmri))
		return false;
	if (strv_extend(visited, fmri) < 0)
		svcadm_die(-SCF_ERROR_NO_MEMORY);
	return true;
}

/* ------------------------------------------------------------------------------------------ */
/* Can the dependencies ever be met?                                                           */

static bool entity_has_potential(const char *ent, char ***visited);

/* One group: all of its entities can come up (require_all), or one of them (require_any). */
static bool group_has_potential(
        const char *fmri, depgroup_type_t g, const scf_property_t *entities, void *userdata)
{
	bool any = false;

	(void)fmri;
	for (size_t k = 0; k < entities->n_values; k++) {
		const char *e = entities->values[k], *path = restarter_file_dep_path(e);
		struct stat st;
		bool ok = path ? stat(path, &st) == 0 : entity_has_potential(e, userdata);

		if (!ok && g == DEPGRP_REQUIRE_ALL)
			return false;
		any |= ok;
	}
	return g == DEPGRP_REQUIRE_ALL || any || entities->n_values == 0;
}

static bool deps_can_be_met(const char *fmri, char ***visited)
{
	return foreach_required_group(fmri, group_has_potential, visited);
}

static bool inst_has_potential(const char *fmri, char ***visited)
{
	if (!visit(fmri, visited))
		return true; /* a cycle: judged where it started */
	if (scf_entity_exists(svcadm.h, fmri) <= 0 || !state_is_enabled(fmri))
		return false;
	if (state_peek(fmri) == RESTARTER_STATE_MAINT)
		return false;
	return deps_can_be_met(fmri, visited);
}

/* An instance, or a service through any of its instances. */
static bool entity_has_potential(const char *ent, char ***visited)
{
	_cleanup_free_ char *canon = NULL;
	_cleanup_strv_free_ char **l = NULL;

	if (scf_fmri_canonicalize(ent, &canon) < 0)
		return false;
	if (fmri_is_instance(canon))
		return inst_has_potential(canon, visited);
	if (scf_instance_list(svcadm.h, canon, &l) < 0)
		return false;
	STRV_FOREACH (s, l)
		if (inst_has_potential(*s, visited))
			return true;
	return false;
}

bool deps_have_potential(const char *fmri, bool for_disable)
{
	_cleanup_strv_free_ char **visited = strv_new_empty();

	if (scf_restarter_attached(svcadm.h) <= 0)
		return false;
	if (for_disable)
		return true;
	if (!visited || strv_extend(&visited, fmri) < 0)
		svcadm_die(-SCF_ERROR_NO_MEMORY);
	return deps_can_be_met(fmri, &visited);
}

/* ------------------------------------------------------------------------------------------ */
/* enable -r                                                                                   */

typedef struct enable_walk {
	bool temp;
	char **visited;
	char **active; /* the path being enabled: meeting one of them again is a cycle */
} enable_walk_t;

/* enable_rec()'s outcomes, as illumos' enable_fmri_rec(). */
enum { REC_OK = 0, REC_INVALID, REC_MULTIPLE, REC_LOOP };

static int enable_rec(const char *ent, enable_walk_t *w);

static bool enable_group(
        const char *fmri, depgroup_type_t g, const scf_property_t *entities, void *userdata)
{
	enable_walk_t *w = userdata;

	/* Which one of several to enable is the administrator's choice: say what they are. */
	if (g == DEPGRP_REQUIRE_ANY && entities->n_values > 1) {
		printf("%s requires one of:\n", fmri);
		for (size_t j = 0; j < entities->n_values; j++) {
			_cleanup_free_ char *e = cli_display(entities->values[j]);

			printf("  %s\n", e ? e : "?");
		}
		return true;
	}
	for (size_t j = 0; j < entities->n_values; j++) {
		const char *e = entities->values[j];

		if (restarter_file_dep_path(e))
			continue;
		switch (enable_rec(e, w)) {
		case REC_INVALID:
			svcadm_warn("dependency of \"%s\" has invalid FMRI \"%s\".", fmri, e);
			break;
		case REC_MULTIPLE:
			svcadm_warn("%s depends on %s, which has multiple instances.", fmri, e);
			break;
		case REC_LOOP:
			return false;
		}
	}
	return true;
}

/*
 * illumos' get_inst_mult(): the one instance an FMRI names (a service with one instance names
 * it); a missing one is reported and makes the exit status 1.  REC_MULTIPLE is not reported.
 */
static int one_instance(const char *fmri, char **ret)
{
	_cleanup_strv_free_ char **l = NULL;
	int r;

	if (fmri_is_instance(fmri)) {
		if (scf_entity_exists(svcadm.h, fmri) <= 0) {
			svcadm_warn("No such instance \"%s\".", fmri);
			svcadm_fail(EXIT_FATAL);
			return -SCF_ERROR_NOT_FOUND;
		}
		*ret = strdup(fmri);
		return *ret ? REC_OK : -SCF_ERROR_NO_MEMORY;
	}
	r = scf_instance_list(svcadm.h, fmri, &l);
	if (r == -SCF_ERROR_NOT_FOUND) {
		svcadm_warn("No such service \"%s\".", fmri);
		svcadm_fail(EXIT_FATAL);
		return r;
	}
	if (r < 0)
		svcadm_die(r);
	if (strv_length(l) == 0) {
		svcadm_warn("Service \"%s\" has no instances.", fmri);
		svcadm_fail(EXIT_FATAL);
		return -SCF_ERROR_NOT_FOUND;
	}
	if (strv_length(l) > 1)
		return REC_MULTIPLE;
	*ret = TAKE_PTR(l[0]);
	return REC_OK;
}

static int enable_rec(const char *ent, enable_walk_t *w)
{
	_cleanup_free_ char *fmri = NULL, *inst = NULL;
	bool go;
	int r;

	if (scf_fmri_canonicalize(ent, &fmri) < 0)
		return REC_INVALID;
	if (strv_contains(w->active, fmri))
		return REC_LOOP;
	if (!visit(fmri, &w->visited))
		return REC_OK;
	r = one_instance(fmri, &inst);
	if (r != REC_OK)
		return r == REC_MULTIPLE ? r : REC_OK;
	(void)action_set_enabled(inst, w->temp, true);
	if (strv_extend(&w->active, fmri) < 0)
		svcadm_die(-SCF_ERROR_NO_MEMORY);
	go = foreach_required_group(inst, enable_group, w);
	free(w->active[strv_length(w->active) - 1]);
	w->active[strv_length(w->active) - 1] = NULL;
	return go ? REC_OK : REC_LOOP;
}

void deps_enable_recursive(const char *entity, bool temp)
{
	enable_walk_t w = {.temp = temp, .visited = strv_new_empty(), .active = strv_new_empty()};

	if (!w.visited || !w.active)
		svcadm_die(-SCF_ERROR_NO_MEMORY);
	switch (enable_rec(entity, &w)) {
	case REC_MULTIPLE:
		svcadm_warn("operation on service %s is ambiguous; instance specification needed.",
		        entity);
		break;
	case REC_LOOP:
		svcadm_warn("%s: Dependency cycle detected.", entity);
		break;
	}
	strv_free(w.visited);
	strv_free(w.active);
}
