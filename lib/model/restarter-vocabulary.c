/*
 * restarter-vocabulary.c: the restarter model's words (restarter.h): the names of states,
 * dependency groupings and restart_on values, and what an auxiliary state or a "file:"
 * dependency means.
 */
#include <errno.h>

#include "macro.h"
#include "restarter.h"

static const char *const state_names[_RESTARTER_STATE_MAX] = {
        [RESTARTER_STATE_NONE] = "none",
        [RESTARTER_STATE_UNINIT] = "uninitialized",
        [RESTARTER_STATE_OFFLINE] = "offline",
        [RESTARTER_STATE_ONLINE] = "online",
        [RESTARTER_STATE_DEGRADED] = "degraded",
        [RESTARTER_STATE_MAINT] = "maintenance",
        [RESTARTER_STATE_DISABLED] = "disabled",
        [RESTARTER_STATE_LEGACY] = "legacy_run",
};

static const char *const depgroup_names[_DEPGRP_MAX] = {
        [DEPGRP_REQUIRE_ALL] = "require_all",
        [DEPGRP_REQUIRE_ANY] = "require_any",
        [DEPGRP_OPTIONAL_ALL] = "optional_all",
        [DEPGRP_EXCLUDE_ALL] = "exclude_all",
};

static const char *const restart_on_names[_RESTART_ON_MAX] = {
        [RESTART_ON_NONE] = "none",
        [RESTART_ON_ERROR] = "error",
        [RESTART_ON_RESTART] = "restart",
        [RESTART_ON_REFRESH] = "refresh",
};

/* The index of s in names[0..n), or -EINVAL. */
static int lookup(const char *const *names, int n, const char *s)
{
	for (int k = 0; s && k < n; k++)
		if (streq(s, names[k]))
			return k;
	return -EINVAL;
}

const char *restarter_state_to_string(restarter_instance_state_t s)
{
	return (unsigned)s < _RESTARTER_STATE_MAX ? state_names[s] : "none";
}

restarter_instance_state_t restarter_state_from_string(const char *s)
{
	int k = lookup(state_names, _RESTARTER_STATE_MAX, s);

	return k < 0 ? RESTARTER_STATE_NONE : (restarter_instance_state_t)k;
}

bool restarter_state_is_up(restarter_instance_state_t s)
{
	return s == RESTARTER_STATE_ONLINE || s == RESTARTER_STATE_DEGRADED;
}

const char *depgroup_to_string(depgroup_type_t g)
{
	return (unsigned)g < _DEPGRP_MAX ? depgroup_names[g] : "require_all";
}

int depgroup_from_string(const char *s)
{
	return lookup(depgroup_names, _DEPGRP_MAX, s);
}

const char *restarter_file_dep_path(const char *entity)
{
	const char *path;

	if (!entity || !strneq(entity, "file:", strlen("file:")))
		return NULL;
	path = entity + strlen("file:");
	if (strneq(path, "//localhost", strlen("//localhost")))
		return path + strlen("//localhost");
	if (strneq(path, "//", 2))
		return path + 2;
	return path;
}

const char *restart_on_to_string(restart_on_t r)
{
	return (unsigned)r < _RESTART_ON_MAX ? restart_on_names[r] : "restart";
}

int restart_on_from_string(const char *s)
{
	return lookup(restart_on_names, _RESTART_ON_MAX, s);
}

restart_on_t restart_on_reason(const char *aux)
{
	static const char *const faults[] = {
	        RESTARTER_AUX_CT_EV_EXIT,
	        RESTARTER_AUX_METHOD_FAILED,
	        RESTARTER_AUX_FAULT_THRESHOLD,
	        RESTARTER_AUX_RESTARTING_TOO_QUICKLY,
	};

	if (!aux)
		return RESTART_ON_NONE;
	if (streq(aux, RESTARTER_AUX_RESTART_REQUEST))
		return RESTART_ON_RESTART;
	for (size_t k = 0; k < ELEMENTSOF(faults); k++)
		if (streq(aux, faults[k]))
			return RESTART_ON_ERROR;
	return RESTART_ON_NONE;
}
