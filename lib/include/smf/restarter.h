/*
 * restarter.h: the restarter model, the one home of its vocabulary.
 *
 * What svc.startd writes and what svcadm, svcs and svccfg's import wait read: an instance's
 * states and their strings in restarter/state, the auxiliary states (why a state was entered),
 * the admin actions of restarter_actions, the four dependency groupings and restart_on, and
 * the well-known FMRIs.  The names are illumos' (libscf.h, librestart.h, startd's graph), so
 * a repository written here reads the same to a script written there.  Pg and property names
 * are in libscf.h (SCF_PG_*, SCF_PROPERTY_*), with the rest of the public vocabulary.
 *
 * Pure functions and tables: no I/O, unit tested in tests/unit/model/test-restarter.c.
 */
#ifndef SMF_RESTARTER_H
#define SMF_RESTARTER_H

#include <stdbool.h>

/* The master restarter, and the instance that imports manifests early at boot. */
#define SCF_SERVICE_STARTD "svc:/system/svc/restarter:default"
#define SCF_INSTANCE_EMI "svc:/system/early-manifest-import:default"

/*
 * Milestones (illumos' libscf.h names): what "svcadm milestone" records in the restarter's
 * options_ovr/milestone (options/milestone with -d) and svc.startd works towards.  Besides the
 * three major milestones the value may be "all" (every enabled instance, the default) or
 * "none" (no instance at all).
 */
#define SCF_MILESTONE_SINGLE_USER "svc:/milestone/single-user:default"
#define SCF_MILESTONE_MULTI_USER "svc:/milestone/multi-user:default"
#define SCF_MILESTONE_MULTI_USER_SERVER "svc:/milestone/multi-user-server:default"
/* The major milestones in order, for an array initializer. */
#define RESTARTER_MILESTONE_FMRIS                                                                  \
	SCF_MILESTONE_SINGLE_USER, SCF_MILESTONE_MULTI_USER, SCF_MILESTONE_MULTI_USER_SERVER
#define RESTARTER_MILESTONE_ALL "all"
#define RESTARTER_MILESTONE_NONE "none"

/* An instance's state, as restarter/state (and next_state) spell it. */
typedef enum restarter_instance_state {
	RESTARTER_STATE_NONE = 0, /* "none": only as next_state, or no state read */
	RESTARTER_STATE_UNINIT,
	RESTARTER_STATE_OFFLINE,
	RESTARTER_STATE_ONLINE,
	RESTARTER_STATE_DEGRADED,
	RESTARTER_STATE_MAINT,
	RESTARTER_STATE_DISABLED,
	RESTARTER_STATE_LEGACY, /* legacy_run: an rc script, reported by svcs, never by startd */
	_RESTARTER_STATE_MAX
} restarter_instance_state_t;

/* "online", ...; "none" for RESTARTER_STATE_NONE or a value out of range.  Never NULL. */
const char *restarter_state_to_string(restarter_instance_state_t s);
/* The state a string names; RESTARTER_STATE_NONE for NULL, "none" and anything unknown. */
restarter_instance_state_t restarter_state_from_string(const char *s);
/* online or degraded: the instance runs and satisfies its dependents. */
bool restarter_state_is_up(restarter_instance_state_t s);

/*
 * Auxiliary states (restarter/auxiliary_state): why the current state was entered.  The
 * strings are what illumos' startd records and what svcs -x explains.
 */
#define RESTARTER_AUX_NONE "none"
#define RESTARTER_AUX_INSERT_IN_GRAPH "insert_in_graph"
#define RESTARTER_AUX_ENABLE_REQUEST "enable_request"
#define RESTARTER_AUX_DISABLE_REQUEST "disable_request"
#define RESTARTER_AUX_RESTART_REQUEST "restart_request"
#define RESTARTER_AUX_CLEAR_REQUEST "clear_request"
#define RESTARTER_AUX_ADMINISTRATIVE_REQUEST "administrative_request"
#define RESTARTER_AUX_DEPENDENCIES_SATISFIED "dependencies_satisfied"
#define RESTARTER_AUX_DEPENDENCY_ACTIVITY "dependency_activity"
#define RESTARTER_AUX_CT_EV_EXIT "ct_ev_exit"
#define RESTARTER_AUX_METHOD_FAILED "method_failed"
#define RESTARTER_AUX_FAULT_THRESHOLD "fault_threshold_reached"
#define RESTARTER_AUX_RESTARTING_TOO_QUICKLY "restarting_too_quickly"
/* Maintenance because the instance's dependencies complete a cycle (svcs -x: SMF-8000-HP). */
#define RESTARTER_AUX_DEPENDENCY_CYCLE "dependency_cycle"

/* Dependency groupings (dependency pgs' "grouping"). */
typedef enum depgroup_type {
	DEPGRP_REQUIRE_ALL = 0, /* the default when absent */
	DEPGRP_REQUIRE_ANY,
	DEPGRP_OPTIONAL_ALL,
	DEPGRP_EXCLUDE_ALL,
	_DEPGRP_MAX
} depgroup_type_t;

const char *depgroup_to_string(depgroup_type_t g);
/* -EINVAL for anything unknown (callers choose their default: illumos treats it as unsupported). */
int depgroup_from_string(const char *s);

/*
 * A dependency's entity may be a file ("file://localhost/etc/x", "file:///etc/x",
 * "file:/etc/x"), satisfied while the path exists: the path it names, NULL when entity is not
 * a file: FMRI.
 */
const char *restarter_file_dep_path(const char *entity);

/*
 * restart_on: which reason for a dependency going down stops (and later restarts) the
 * dependent.  Ordered: a dependent reacts to every reason ranked at or below its restart_on.
 */
typedef enum restart_on {
	RESTART_ON_NONE = 0,
	RESTART_ON_ERROR,
	RESTART_ON_RESTART, /* the default when absent */
	RESTART_ON_REFRESH,
	_RESTART_ON_MAX
} restart_on_t;

const char *restart_on_to_string(restart_on_t r);
/* -EINVAL for anything unknown. */
int restart_on_from_string(const char *s);

/*
 * The reason a dependency that went down gives its dependents, from the auxiliary state it
 * recorded: a fault ranks RESTART_ON_ERROR, an admin restart RESTART_ON_RESTART, anything
 * else (disable, ...) RESTART_ON_NONE.
 */
restart_on_t restart_on_reason(const char *aux);

/* Admin actions: properties of restarter_actions, each an integer timestamp (svcadm writes). */
#define RESTARTER_ACTION_RESTART "restart"
#define RESTARTER_ACTION_REFRESH "refresh"
#define RESTARTER_ACTION_MAINT_ON "maint_on"
#define RESTARTER_ACTION_MAINT_ON_IMMEDIATE "maint_on_immediate"
#define RESTARTER_ACTION_MAINT_ON_TEMPORARY "maint_on_temporary"
#define RESTARTER_ACTION_MAINT_ON_IMMTEMP "maint_on_immtemp"
#define RESTARTER_ACTION_MAINT_OFF "maint_off"
#define RESTARTER_ACTION_DEGRADED "degraded"
#define RESTARTER_ACTION_DEGRADE_IMMEDIATE "degrade_immediate"
#define RESTARTER_ACTION_RESTORE "restore"
/* svcadm restart -d: a core dump before the restart (illumos); this startd ignores it. */
#define RESTARTER_ACTION_DO_DUMP "do_dump"

#endif
