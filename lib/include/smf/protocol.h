/*
 * protocol.h: the repository protocol, the one home of what svc.configd and libscf must agree on.
 *
 * docs/protocol.md describes the methods; this header holds what both peers spell: the object
 * path, the interface, the protocol version, every method, property and signal with its
 * signatures (SMF_BUS_METHODS and its siblings: configd's vtable is their expansion, and libscf
 * calls a method by its smf_method_<id>), the signatures of the structs that travel in arrays,
 * the D-Bus error names and the scf_error_t each stands for, and the numeric op codes of
 * Commit's commands and Batch's steps.  configd (the server) and libscf (the client) both
 * include it, so they cannot drift apart; a change here is a change to the protocol (bump
 * SMF_PROTOCOL_VERSION unless it only adds).
 *
 * Invariants:
 * - An op code is a uint32 on the wire and its number is fixed by docs/protocol.md: the enums
 *   below are numbered implicitly and the _Static_asserts pin every value, so reordering them
 *   fails to compile instead of silently changing what a peer means.
 * - A code read off the wire is a uint32 until it has been compared with _SMF_CMD_MAX or
 *   _SMF_STEP_MAX (configd's backend does, and answers InvalidArgument): only a checked value
 *   is ever treated as an smf_cmd_op_t or smf_step_op_t.
 * - Errors travel by name, never by number: scf_error_t values are this library's, not the
 *   protocol's.  smf_bus_errors() is the one table both directions read.
 */
#ifndef SMF_PROTOCOL_H
#define SMF_PROTOCOL_H

#include <stddef.h>
#include <string.h>

#include "libscf.h"

#define SMF_BUS_PATH "/org/minismf/Repository1"
#define SMF_BUS_INTERFACE "org.minismf.Repository1"
/* The read-only property Version; libscf refuses a configd that answers another. */
#define SMF_PROTOCOL_VERSION 1u
/*
 * The read-only property MinorVersion: what was added to version 1 without breaking a client of
 * it (a client of 1.0 never asks, and still works).  1: ReadPg and ReadPgs.  2: StoreStatus.  A
 * configd without
 * the property is 1.0; calling a method it lacks answers UnknownMethod (libscf then uses the
 * 1.0 methods, or answers SCF_ERROR_VERSION_MISMATCH where there is none).
 */
#define SMF_PROTOCOL_MINOR_VERSION 2u

/* ------------------------------------------------------------------------------------------ */
/* The members: methods, properties and signals, each named and typed once                    */

/* The contents of the structs that travel in arrays, which the signatures below are made of. */
#define SMF_BUS_PG_INFO "ssut"                      /* a pg listed: name, type, flags, generation */
#define SMF_BUS_PROPERTY "ssas"                     /* a property read: name, type, values */
#define SMF_BUS_COMMAND "ussas"                     /* op, property, type, values */
#define SMF_BUS_STEP "ussssua(" SMF_BUS_COMMAND ")" /* op, fmri, pg, name, type, flags, commands */
#define SMF_BUS_BULK_QUERY "sssu"                   /* ReadPgs: pg name, pg type, snapshot, flags */
/* StoreStatus: name, path, last ok, last failure, failures, kind, message */
#define SMF_BUS_STORE_RECORD "sstttss"

/*
 * SMF_BUS_METHODS(X) calls X(id, name, in, out) for every method of SMF_BUS_INTERFACE, in the
 * order configd's vtable lists them (introspection shows that order): the method's C name, its
 * D-Bus name, the signature of its arguments and that of its reply.  configd's vtable expands
 * it (the handler of id is method_<id>), and libscf's calls, the tests and the tools name a
 * method by its smf_method_<id> below, so a method's name and signatures are typed here only.
 * docs/protocol.md says what each argument means.  A change of a line is a change of the
 * protocol: a new line is a minor version (marked with it: 1.1, 1.2), any other change a major
 * one.  The order is introspection's too: moving a line changes what a peer reads there.
 */
#define SMF_BUS_METHODS(X)                                                                         \
	X(list_services, "ListServices", "", "as")                                                 \
	X(list_instances, "ListInstances", "s", "as")                                              \
	X(add_service, "AddService", "s", "")                                                      \
	X(add_instance, "AddInstance", "s", "")                                                    \
	X(delete, "Delete", "s", "")                                                               \
	X(exists, "Exists", "s", "b")                                                              \
	X(list_pgs, "ListPgs", "ssb", "a(" SMF_BUS_PG_INFO ")")                                    \
	X(get_pg, "GetPg", "sssb", "suta(" SMF_BUS_PROPERTY ")")                                   \
	X(read_pg, "ReadPg", "sssb", "sutay")                           /* 1.1 */                  \
	X(read_pgs, "ReadPgs", "asssa(" SMF_BUS_BULK_QUERY ")u", "ayb") /* 1.1 */                  \
	X(add_pg, "AddPg", "sssu", "t")                                                            \
	X(delete_pg, "DeletePg", "ss", "")                                                         \
	X(commit, "Commit", "ssta(" SMF_BUS_COMMAND ")", "t")                                      \
	X(batch, "Batch", "a(" SMF_BUS_STEP ")", "u")                                              \
	X(list_snapshots, "ListSnapshots", "s", "as")                                              \
	X(take_snapshot, "TakeSnapshot", "ss", "")                                                 \
	X(delete_snapshot, "DeleteSnapshot", "ss", "")                                             \
	X(refresh, "Refresh", "s", "")                                                             \
	X(notify_add_pg_name, "NotifyAddPgName", "s", "")                                          \
	X(notify_add_pg_type, "NotifyAddPgType", "s", "")                                          \
	X(notify_add_instances, "NotifyAddInstances", "", "")                                      \
	X(notify_reset, "NotifyReset", "", "")                                                     \
	X(register_restarter, "RegisterRestarter", "", "")                                         \
	X(restarter_attached, "RestarterAttached", "", "b")                                        \
	X(store_status, "StoreStatus", "", "a(" SMF_BUS_STORE_RECORD ")") /* 1.2 */

/* SMF_BUS_PROPERTIES(X): X(id, name, signature) for every property, read-only; configd's
 * getter of id is property_get_<id>. */
#define SMF_BUS_PROPERTIES(X)                                                                      \
	X(version, "Version", "u")            /* SMF_PROTOCOL_VERSION */                           \
	X(minor_version, "MinorVersion", "u") /* SMF_PROTOCOL_MINOR_VERSION */

/*
 * SMF_BUS_SIGNALS(X): X(id, name, signature) for every signal, sent on the connections whose
 * interests match (docs/protocol.md, Notifications).  The last field of each, the commit id of
 * the write that caused it (configd/probes.h), was appended without a version bump: a reader
 * that stops before it reads the rest as before, and libscf reads it only when it is there.
 * InstanceAdded goes only to the connections that called NotifyAddInstances: illumos announces
 * no creation, and svc.startd asks for it so that its first sight of an instance does not wait
 * for a pg commit (docs/decisions.md).
 */
#define SMF_BUS_SIGNALS(X)                                                                         \
	X(pg_changed, "PgChanged", "ssstt")      /* entity, pg, type, generation, commit id */     \
	X(pg_deleted, "PgDeleted", "ssst")       /* entity, pg, type, commit id */                 \
	X(instance_added, "InstanceAdded", "st") /* instance, commit id */

/*
 * The bus driver's Hello, which configd answers on the driver's path so that tools that expect
 * a bus (busctl --address=...) can talk to this peer-to-peer server.  Not part of the interface.
 */
#define SMF_BUS_DRIVER_PATH "/org/freedesktop/DBus"
#define SMF_BUS_DRIVER_INTERFACE "org.freedesktop.DBus"
#define SMF_BUS_DRIVER_METHODS(X) X(hello, "Hello", "", "s")

typedef struct smf_bus_method {
	const char *name;
	const char *in;  /* the arguments' signature */
	const char *out; /* the reply's signature */
} smf_bus_method_t;

typedef struct smf_bus_signal {
	const char *name;
	const char *sig;
} smf_bus_signal_t;

typedef struct smf_bus_property {
	const char *name;
	const char *sig;
} smf_bus_property_t;

/*
 * smf_method_<id>, smf_signal_<id>, smf_property_<id>: one constant per member, for the code
 * that names one (libscf: client_call(h, &smf_method_add_pg, ...)).  A unit that uses none
 * costs nothing.
 */
#define SMF_BUS_METHOD_CONSTANT(id_, name_, in_, out_)                                             \
	static const smf_bus_method_t smf_method_##id_ __attribute__((unused)) = {name_, in_, out_};
#define SMF_BUS_SIGNAL_CONSTANT(id_, name_, sig_)                                                  \
	static const smf_bus_signal_t smf_signal_##id_ __attribute__((unused)) = {name_, sig_};
#define SMF_BUS_PROPERTY_CONSTANT(id_, name_, sig_)                                                \
	static const smf_bus_property_t smf_property_##id_ __attribute__((unused)) = {name_, sig_};
SMF_BUS_METHODS(SMF_BUS_METHOD_CONSTANT)
SMF_BUS_DRIVER_METHODS(SMF_BUS_METHOD_CONSTANT)
SMF_BUS_PROPERTIES(SMF_BUS_PROPERTY_CONSTANT)
SMF_BUS_SIGNALS(SMF_BUS_SIGNAL_CONSTANT)

/* ------------------------------------------------------------------------------------------ */
/* Reads answered as records (1.1): ReadPg, ReadPgs                                            */

/*
 * ReadPg(s entity, s pg, s snapshot, b composed) -> (s type, u flags, t generation, ay props):
 * GetPg with the same arguments and errors, the properties as records (docs/protocol.md):
 * their number, then each property's name, type, number of values and values.
 *
 * ReadPgs(as entities, s pattern, s after, a(sssu) queries, u page_bytes) -> (ay records, b more)
 *
 * The entities are the listed FMRIs (answered in that order, each as often as it is listed) or,
 * when the list is empty, every instance whose canonical FMRI matches the fnmatch(3) pattern
 * ("": every instance) and sorts after `after`, in FMRI order.  For each, every query: a pg by
 * name, or (name "") every pg of a type, from a snapshot ("" current view), composed or not.
 * The answer is one byte array of records (docs/protocol.md, "Bulk reads"), at most page_bytes
 * long (0 or more than SMF_BULK_PAGE_BYTES: SMF_BULK_PAGE_BYTES) except that a page always holds
 * one entity whole; `more` says that entities are left: the caller asks again for the listed
 * entities not answered yet, or with `after` the last FMRI answered.
 */

/* The largest page of records configd sends (and the default): 4 MiB. */
#define SMF_BULK_PAGE_BYTES (4u * 1024u * 1024u)
/* Queries in one request (ConstraintViolated past it). */
#define SMF_BULK_MAX_QUERIES 16u
/*
 * Listed entities in one request (ConstraintViolated past it, before the rest is read).  libscf's
 * parts of SMF_BULK_REQUEST_BYTES hold fewer: an FMRI costs at least 12 bytes on the wire.
 */
#define SMF_BULK_MAX_ENTITIES 65536u
/* What libscf puts in one request's entity list, at most (it sends a longer list in parts). */
#define SMF_BULK_REQUEST_BYTES (256u * 1024u)

/* Query flags. */
#define SMF_BULK_COMPOSED 0x1u          /* an instance's pg composed with its service's */
#define SMF_BULK_SNAPSHOT_FALLBACK 0x2u /* an instance without the snapshot: its current view */
#define SMF_BULK_FLAGS_ALL (SMF_BULK_COMPOSED | SMF_BULK_SNAPSHOT_FALLBACK)

/* The record kinds, each the first field of its record. */
#define SMF_BULK_RECORD_ENTITY "E" /* E, fmri, status */
#define SMF_BULK_RECORD_PG "P"     /* P, query, name, type, flags, generation, n props, props */

/* An entity record's status. */
typedef enum smf_bulk_status {
	SMF_BULK_FOUND,     /* it exists; its pgs follow */
	SMF_BULK_NO_ENTITY, /* (listed) no such service or instance */
	SMF_BULK_INVALID,   /* (listed) not the FMRI of a service or instance; echoed as given */
	_SMF_BULK_STATUS_MAX
} smf_bulk_status_t;

_Static_assert(SMF_BULK_FOUND == 0 && SMF_BULK_NO_ENTITY == 1 && SMF_BULK_INVALID == 2 &&
                _SMF_BULK_STATUS_MAX == 3,
        "bulk statuses are fixed by docs/protocol.md");

/* ------------------------------------------------------------------------------------------ */
/* The store's record (1.2): StoreStatus                                                      */

/*
 * StoreStatus() -> a(sstttss): for each database, in this order, the persistent one then the
 * non-persistent one, a record of the writes to it (docs/protocol.md, "The store"): its name
 * (SMF_STORE_*), its file, the CLOCK_REALTIME microseconds of the last write it took and of
 * the last it refused (0: none yet), how many it refused since the last it took (0: it takes
 * them), and the last refusal's kind (SMF_STORE_FAIL_*, "" none) and SQLite's message.  A
 * read, open to every peer.  A configd without it answers UnknownMethod: libscf then says it
 * does not know (SCF_ERROR_NOT_SUPPORTED), and a waiting client waits as before.
 */
#define SMF_STORE_PERSISTENT "persistent"
#define SMF_STORE_NONPERSISTENT "non-persistent"

/* What a refused write met: the filesystem is full, an I/O error, a read-only or corrupt file,
 * anything else SQLite could not store. */
#define SMF_STORE_FAIL_FULL "full"
#define SMF_STORE_FAIL_IO "io"
#define SMF_STORE_FAIL_READONLY "readonly"
#define SMF_STORE_FAIL_CORRUPT "corrupt"
#define SMF_STORE_FAIL_OTHER "other"

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                      */

#define SMF_BUS_ERROR_PREFIX "org.minismf.Error."
#define SMF_BUS_ERROR_NOT_FOUND SMF_BUS_ERROR_PREFIX "NotFound"
#define SMF_BUS_ERROR_EXISTS SMF_BUS_ERROR_PREFIX "Exists"
#define SMF_BUS_ERROR_NOT_LATEST SMF_BUS_ERROR_PREFIX "NotLatest"
#define SMF_BUS_ERROR_DELETED SMF_BUS_ERROR_PREFIX "Deleted"
#define SMF_BUS_ERROR_PERMISSION_DENIED SMF_BUS_ERROR_PREFIX "PermissionDenied"
#define SMF_BUS_ERROR_INVALID_ARGUMENT SMF_BUS_ERROR_PREFIX "InvalidArgument"
#define SMF_BUS_ERROR_TYPE_MISMATCH SMF_BUS_ERROR_PREFIX "TypeMismatch"
#define SMF_BUS_ERROR_CONSTRAINT_VIOLATED SMF_BUS_ERROR_PREFIX "ConstraintViolated"
#define SMF_BUS_ERROR_BACKEND SMF_BUS_ERROR_PREFIX "Backend"
#define SMF_BUS_ERROR_READ_ONLY SMF_BUS_ERROR_PREFIX "ReadOnly"
#define SMF_BUS_ERROR_NO_RESOURCES SMF_BUS_ERROR_PREFIX "NoResources"
#define SMF_BUS_ERROR_NOT_SUPPORTED SMF_BUS_ERROR_PREFIX "NotSupported"
#define SMF_BUS_ERROR_INTERNAL SMF_BUS_ERROR_PREFIX "Internal"

typedef struct smf_bus_error {
	const char *name;
	scf_error_t error;
} smf_bus_error_t;

/*
 * The error names and the scf_error_t each stands for.  configd names a failure by the first
 * row with its error; libscf maps a name back by the first row with that name.  So the order
 * matters twice: NO_MEMORY (configd's own shortage) travels as NoResources but NoResources
 * reads back as NO_RESOURCES, and NotLatest, which configd sends only from Commit (whose
 * caller looks for that name first), reads back as INTERNAL anywhere else.
 */
static inline const smf_bus_error_t *smf_bus_errors(size_t *ret_n)
{
	static const smf_bus_error_t table[] = {
	        {SMF_BUS_ERROR_NOT_FOUND, SCF_ERROR_NOT_FOUND},
	        {SMF_BUS_ERROR_EXISTS, SCF_ERROR_EXISTS},
	        {SMF_BUS_ERROR_DELETED, SCF_ERROR_DELETED},
	        {SMF_BUS_ERROR_PERMISSION_DENIED, SCF_ERROR_PERMISSION_DENIED},
	        {SMF_BUS_ERROR_INVALID_ARGUMENT, SCF_ERROR_INVALID_ARGUMENT},
	        {SMF_BUS_ERROR_TYPE_MISMATCH, SCF_ERROR_TYPE_MISMATCH},
	        {SMF_BUS_ERROR_CONSTRAINT_VIOLATED, SCF_ERROR_CONSTRAINT_VIOLATED},
	        {SMF_BUS_ERROR_BACKEND, SCF_ERROR_BACKEND_ACCESS},
	        {SMF_BUS_ERROR_READ_ONLY, SCF_ERROR_BACKEND_READONLY},
	        {SMF_BUS_ERROR_NO_RESOURCES, SCF_ERROR_NO_RESOURCES},
	        {SMF_BUS_ERROR_NO_RESOURCES, SCF_ERROR_NO_MEMORY},
	        {SMF_BUS_ERROR_NOT_SUPPORTED, SCF_ERROR_NOT_SUPPORTED},
	        {SMF_BUS_ERROR_INTERNAL, SCF_ERROR_INTERNAL},
	        {SMF_BUS_ERROR_NOT_LATEST, SCF_ERROR_INTERNAL},
	};

	*ret_n = sizeof(table) / sizeof(table[0]);
	return table;
}

/*
 * The name configd sends for a failure err (a negative or positive scf_error_t); Internal for a
 * code that has no name of its own (it should not reach a client).
 */
static inline const char *smf_bus_error_name(int err)
{
	size_t n;
	const smf_bus_error_t *t = smf_bus_errors(&n);

	if (err < 0)
		err = -err;
	for (size_t i = 0; i < n; i++)
		if ((int)t[i].error == err)
			return t[i].name;
	return SMF_BUS_ERROR_INTERNAL;
}

/* The scf_error_t libscf reports for an error name; 0 for a name not in the table. */
static inline scf_error_t smf_bus_error_from_name(const char *name)
{
	size_t n;
	const smf_bus_error_t *t = smf_bus_errors(&n);

	for (size_t i = 0; name && i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return t[i].error;
	return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Op codes                                                                                    */

/*
 * A command of Commit or of a Batch PROPS step.  Commit takes NEW, REPLACE and DELETE (up to
 * SMF_CMD_COMMIT_MAX); SET and REMOVE have no precondition, and only Batch takes them.
 */
typedef enum smf_cmd_op {
	SMF_CMD_NEW,     /* create the property; Exists if it does */
	SMF_CMD_REPLACE, /* set type and values of an existing property; NotFound if missing */
	SMF_CMD_DELETE,  /* delete an existing property; NotFound if missing */
	SMF_CMD_SET,     /* create or replace */
	SMF_CMD_REMOVE,  /* delete if it exists */
	_SMF_CMD_MAX
} smf_cmd_op_t;

#define SMF_CMD_COMMIT_MAX SMF_CMD_DELETE

_Static_assert(SMF_CMD_NEW == 0 && SMF_CMD_REPLACE == 1 && SMF_CMD_DELETE == 2 &&
                SMF_CMD_SET == 3 && SMF_CMD_REMOVE == 4 && _SMF_CMD_MAX == 5,
        "command op codes are fixed by docs/protocol.md");

/* A step of Batch; the fields each uses are listed in docs/protocol.md. */
typedef enum smf_step_op {
	SMF_STEP_SERVICE_ENSURE,
	SMF_STEP_INSTANCE_ENSURE,
	SMF_STEP_PG_ENSURE, /* pg, type, flags */
	SMF_STEP_PROPS,     /* pg, commands (every SMF_CMD_*) */
	SMF_STEP_PG_DELETE, /* pg */
	SMF_STEP_ENTITY_DELETE,
	SMF_STEP_SNAPSHOT_TAKE, /* name */
	SMF_STEP_REFRESH,
	_SMF_STEP_MAX
} smf_step_op_t;

_Static_assert(SMF_STEP_SERVICE_ENSURE == 0 && SMF_STEP_INSTANCE_ENSURE == 1 &&
                SMF_STEP_PG_ENSURE == 2 && SMF_STEP_PROPS == 3 && SMF_STEP_PG_DELETE == 4 &&
                SMF_STEP_ENTITY_DELETE == 5 && SMF_STEP_SNAPSHOT_TAKE == 6 &&
                SMF_STEP_REFRESH == 7 && _SMF_STEP_MAX == 8,
        "batch step op codes are fixed by docs/protocol.md");

#endif
