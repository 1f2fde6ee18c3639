/*
 * trace.h: the trace recorder, a per-process mmap'd file of fixed-size binary events that the
 * race harness (svctrace) merges across processes.  See lib/util/trace.c for the model and
 * docs/trace-format.md for the file format; reading a file is trace-reader.h's.
 *
 * Off by default.  A program calls smf_trace_open_env() at start (opens iff SMF_TRACE=1) or
 * smf_trace_open() to force it; until then smf_trace() is one predictable branch.
 */
#ifndef SMF_TRACE_H
#define SMF_TRACE_H

#include <stddef.h>
#include <stdint.h>

/* Event ids: stable numbers, they are stored in files (append only, never renumber). */
typedef enum smf_trace_event {
	SMF_TRACE_NONE = 0,
	/* svccfg import */
	SMF_TRACE_IMPORT_BEGIN = 1,
	SMF_TRACE_IMPORT_INSTANCE_COMMITTED = 2,
	SMF_TRACE_IMPORT_REFRESH = 3,
	SMF_TRACE_IMPORT_WAIT_BEGIN = 4,
	SMF_TRACE_IMPORT_WAIT_DONE = 5,
	SMF_TRACE_IMPORT_RETURN = 6,
	/* svccfg add of an instance: the add-wait (import-wait.c) */
	SMF_TRACE_ADD_WAIT_BEGIN = 7,
	SMF_TRACE_ADD_WAIT_DONE = 8,
	/* svc.configd */
	SMF_TRACE_CONFIGD_COMMIT = 20,
	SMF_TRACE_CONFIGD_NOTIFY_SENT = 21,
	SMF_TRACE_CONFIGD_PG_CREATED = 22,
	SMF_TRACE_CONFIGD_INSTANCE_ADDED = 23,
	SMF_TRACE_CONFIGD_WRITE = 24,
	SMF_TRACE_CONFIGD_PG_DELETED = 25,
	/* svc.startd */
	SMF_TRACE_STARTD_NOTIFY_RECEIVED = 40,
	SMF_TRACE_STARTD_GRAPH_INSERT = 41,
	SMF_TRACE_STARTD_RESTARTER_ENQUEUE = 42,
	SMF_TRACE_STARTD_RESTARTER_DEQUEUE = 43,
	SMF_TRACE_STARTD_RESTARTER_PG_WRITTEN = 44,
	SMF_TRACE_STARTD_STATE_CHANGE = 45,
	SMF_TRACE_STARTD_METHOD_START = 46,
	SMF_TRACE_STARTD_METHOD_EXIT = 47,
	SMF_TRACE_STARTD_FIRST_SIGHT = 48,
	SMF_TRACE_STARTD_WRITE = 50,
	/* svcadm */
	SMF_TRACE_SVCADM_READ_RESTARTER_PG = 60,
	SMF_TRACE_SVCADM_RESULT = 61,
	SMF_TRACE_SVCADM_WAIT_RESTARTER_BEGIN = 62,
	SMF_TRACE_SVCADM_WAIT_RESTARTER_DONE = 63,
	/* libscf, in every client that traces */
	SMF_TRACE_SCF_READ = 70,
	SMF_TRACE_SCF_NOTIFY_INTEREST = 71,
	SMF_TRACE_SCF_NOTIFY_RECEIVED = 72,
	/* a command's life (smf_trace_open_command()) */
	SMF_TRACE_PROC_START = 100,
	SMF_TRACE_PROC_EXIT = 101,
	/* free for tests and benchmarks */
	SMF_TRACE_TEST = 1000,
} smf_trace_event_t;

/*
 * scf.read's arg0: the generation read (0: absent) in the low 56 bits, how the pg was read in
 * the top byte (docs/trace-format.md).
 */
#define SMF_TRACE_READ_GENERATION(arg0) ((arg0) & ((UINT64_C(1) << 56) - 1))
#define SMF_TRACE_READ_HOW(arg0) ((unsigned)((arg0) >> 56))
#define SMF_TRACE_READ_ARG0(generation, how)                                                       \
	(((generation) & ((UINT64_C(1) << 56) - 1)) | (uint64_t)(how) << 56)
#define SMF_TRACE_READ_COMPOSED 0x1u
#define SMF_TRACE_READ_SNAPSHOT 0x2u
#define SMF_TRACE_READ_ERROR 0x4u /* failed for another reason than "not found": no generation */

/* scf.notify_interest's arg1: what was registered (the string names it). */
#define SMF_TRACE_INTEREST_NAME 0u      /* a pg name */
#define SMF_TRACE_INTEREST_TYPE 1u      /* a pg type */
#define SMF_TRACE_INTEREST_INSTANCES 2u /* instance creations (InstanceAdded) */

/*
 * Opens (creates) $root/var/svc/trace/<prog>.<pid>.trace and turns tracing on for the whole
 * process.  root NULL: smf_root_resolve()'s choice.  0 or -errno.  Opening twice is -EBUSY.
 */
int smf_trace_open(const char *root, const char *prog);

/* The same with the file size (bytes, header and string table included) instead of 256 MiB. */
int smf_trace_open_sized(const char *root, const char *prog, uint64_t size);

/*
 * smf_trace_open() iff $SMF_TRACE is "1" (file size from $SMF_TRACE_SIZE in bytes, if set), in
 * the directory $SMF_TRACE_DIR instead of the root's when that is set: on a journaling file
 * system the first store to each page of a new file waits for the journal (milliseconds for a
 * short-lived svcadm under load), on tmpfs it does not, so harnesses put it there.
 * 1 when tracing is on, 0 when it stays off, -errno.
 */
int smf_trace_open_env(const char *root, const char *prog);

/*
 * smf_trace_open_env() for a command (a CLI program, a libscf client): when tracing is on it
 * also records proc.start (the command line, the parent, session and process group that tell
 * a script's commands apart) and, through on_exit(), proc.exit with the exit status, after
 * which it closes the file.  So the caller must not close the file itself, and a command that
 * is killed has no proc.exit.  Returns as smf_trace_open_env().
 */
int smf_trace_open_command(const char *root, const char *prog);

/*
 * smf_trace_open_command() for libscf's first handle in a process that has not tried to open
 * a trace file itself (the daemons and the CLI open theirs first, before any handle): a
 * program written against libscf and run with SMF_TRACE=1 (by svcrace, say) is then traced as
 * a command, its reads, commits and exit included (the file stays mapped at exit: other
 * threads of the program may still trace).  Later calls do nothing.  Returns as
 * smf_trace_open_env().
 */
int smf_trace_open_client(const char *root, const char *prog);

/*
 * Turns tracing off and unmaps the file.  Only when no other thread may be inside smf_trace()
 * (at exit, or in tests); what was written stays in the file.
 */
void smf_trace_close(void);

/* The path of the open file, or NULL. */
const char *smf_trace_path(void);

/*
 * How many pages after the next one to be claimed are faulted in already (by the prefaulter,
 * lib/util/trace-prefault.c): what a thread may record without waiting for the kernel's page
 * supply.
 * 0 while no thread has filled a page.  For tests and benchmarks.
 */
uint32_t smf_trace_pages_ready(void);

/* The prefaulter's lead once a process has used that many pages (64 KiB each): 4 MiB. */
#define SMF_TRACE_PREFAULT_PAGES 64u

/*
 * Copies s into the file's string table once per process and returns its id (never 0), or
 * 0 when tracing is off, the table is full (counted in the header's str_drops) or s is NULL.
 * The first time a thread meets a string it takes a lock; after that the thread's own cache
 * answers without one.
 */
uint32_t smf_trace_intern(const char *s);

/* A stable 64-bit hash (FNV-1a) of a full FMRI, the same in every process; never 0. */
uint64_t smf_trace_flow(const char *fmri);

/*
 * The flow of an event about entity (a canonical FMRI): smf_trace_flow() of it when it names
 * an instance (a ':' after "svc:/"), 0 for a service, NULL or anything else.
 */
uint64_t smf_trace_instance_flow(const char *entity);

/* Do not use directly: the on/off flag and the out-of-line writer behind smf_trace(). */
extern int smf_trace_enabled_;
void smf_trace_emit_(uint16_t event, uint64_t flow, uint32_t str, uint64_t arg0, uint64_t arg1);

static inline int smf_trace_enabled(void)
{
	return __atomic_load_n(&smf_trace_enabled_, __ATOMIC_RELAXED);
}

/*
 * Records one event with its two 64-bit arguments (0 when the event has none; what each
 * event's are: docs/trace-format.md); lock free, no syscall; one well-predicted branch when off.
 */
static inline void smf_trace_args(
        uint16_t event, uint64_t flow, uint32_t str, uint64_t arg0, uint64_t arg1)
{
	if (__builtin_expect(smf_trace_enabled(), 0))
		smf_trace_emit_(event, flow, str, arg0, arg1);
}

static inline void smf_trace(uint16_t event, uint64_t flow, uint32_t str)
{
	smf_trace_args(event, flow, str, 0, 0);
}

/* smf_trace_args() with a string interned on the way (see smf_trace_intern()); s may be NULL. */
static inline void smf_trace_str_args(
        uint16_t event, uint64_t flow, const char *s, uint64_t arg0, uint64_t arg1)
{
	if (__builtin_expect(smf_trace_enabled(), 0))
		smf_trace_emit_(event, flow, smf_trace_intern(s), arg0, arg1);
}

static inline void smf_trace_str(uint16_t event, uint64_t flow, const char *s)
{
	smf_trace_str_args(event, flow, s, 0, 0);
}

#endif
