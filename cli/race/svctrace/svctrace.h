/*
 * svctrace.h: the merged trace of a run and what the subcommands share.  See main.c for the
 * model.
 */
#ifndef SVCTRACE_H
#define SVCTRACE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "hashmap.h"

#define SVCTRACE_VERSION "svctrace 0.1"
#define EXIT_FINDINGS 1
#define EXIT_USAGE 2
#define EXIT_INTERNAL 3 /* check: out of memory, a failed analysis, output not written */

/* "Never happened": later than any real CLOCK_MONOTONIC time, so "t < NS_NEVER" holds. */
#define NS_NEVER UINT64_MAX

typedef struct tr_event {
	uint64_t ns; /* absolute CLOCK_MONOTONIC */
	uint64_t flow;
	uint64_t arg0, arg1; /* the event's arguments (docs/trace-format.md) */
	uint64_t order;      /* read order: breaks ties in ns without reordering a thread */
	const char *str;     /* pooled, NULL when none */
	uint32_t pid, tid;
	uint32_t proc;   /* index in trace.procs */
	uint32_t thread; /* index in trace.threads */
	uint32_t file;   /* index in trace.files: the file it was read from */
	uint16_t event;
} tr_event_t;

/* What a trace file's header says of the process that created it. */
typedef struct tr_file {
	const char *name; /* pooled: the file's name in the trace directory */
	const char *prog; /* pooled */
	uint32_t pid, ppid, sid, pgid;
	uint64_t start_ns; /* when the process opened it: its life began before */
} tr_file_t;

#define EXIT_UNKNOWN INT32_MIN /* no proc.exit: killed, or still running */

typedef struct tr_proc {
	uint32_t pid;
	const char *prog;         /* the program of the file it wrote into */
	uint32_t ppid, sid, pgid; /* that file's header: a forked child reports its parent's */
	bool command;             /* it recorded proc.start: a command (smf_trace_open_command()) */
	int32_t exit_status;      /* of its proc.exit, EXIT_UNKNOWN when none */
	uint64_t exit_ns;         /* NS_NEVER when none */
	const char *cmdline;      /* proc.start's string, NULL when none */
} tr_proc_t;

typedef struct tr_thread {
	uint32_t pid, tid;
	uint32_t proc;
	const char *prog;
	size_t first;         /* index of its first event */
	uint16_t first_event; /* what the thread first did names it for a reader */
} tr_thread_t;

typedef struct tr_flow {
	uint64_t flow;
	const char *fmri; /* NULL until some event names the instance */
	size_t n_events;
	size_t first, last; /* indexes in trace.events */
} tr_flow_t;

typedef struct trace {
	tr_event_t *events; /* sorted by (ns, order) */
	size_t n_events, cap_events;
	tr_proc_t *procs; /* sorted by pid */
	size_t n_procs;
	tr_thread_t *threads; /* sorted by (pid, tid) */
	size_t n_threads;
	tr_flow_t *flows; /* sorted by flow id */
	size_t n_flows;
	hashmap_t *pool;  /* one copy of each string of the files: see trace_pool_string() */
	tr_file_t *files; /* each file read, by file index */
	char *dir;        /* the directory the files came from */
	size_t n_files, cap_files;
	uint64_t drops;     /* events lost: a file was full */
	uint64_t str_drops; /* strings lost: a table was full (their events kept, str NULL) */
	uint64_t t0, t_end; /* first and last event */
} trace_t;

/*
 * pids.c: the n-th later process of a reused pid is pid + n x TRACE_PID_REUSED in the merged
 * trace (above any pid_max), and a pid an event names after its process exited is 0 (none).
 * trace_resolve_pids(), run by trace_load() before indexing: 1 when some pid was reused, 0
 * when none, -ENOMEM.
 */
#define TRACE_PID_REUSED 10000000u
int trace_resolve_pids(trace_t *t);

/* merge.c: reads every *.trace file of dir (a trace directory or a root holding one). */
int trace_load(const char *path, trace_t *ret);
void trace_done(trace_t *t);
const tr_flow_t *trace_find_flow(const trace_t *t, uint64_t flow);
/* The flow of an instance, by FMRI ("site/foo:default" matches too), or NULL. */
const tr_flow_t *trace_flow_by_fmri(const trace_t *t, const char *fmri);
/* The instance FMRI of a flow, or NULL. */
const char *trace_flow_fmri(const trace_t *t, uint64_t flow);
/* The process with that pid, or NULL. */
const tr_proc_t *trace_find_proc(const trace_t *t, uint32_t pid);
/* "svcadm[725]" into buf, "pid 725" for a process that left no trace file. */
const char *trace_proc_name(const trace_t *t, uint32_t pid, char buf[static 64]);
/* "svc.startd main", "svc.startd thread 12 (startd.restarter_dequeue)" into buf. */
const char *trace_thread_name(const tr_thread_t *th, char *buf, size_t size);
/* The event's name, or "event#<id>" in buf for an id this version does not know. */
const char *trace_event_name(uint16_t event, char buf[static 24]);

/* dump.c */
void dump_line(FILE *f, const trace_t *t, const tr_event_t *e, const char *mark);
/* An event's arguments in words, "" when it has none, into buf. */
const char *format_args(const tr_event_t *e, char buf[static 96]);
/* "+12.345" (ms since the first event, 3 decimals) into buf. */
const char *format_rel_ms(const trace_t *t, uint64_t ns, char buf[static 32]);
/* "12.345" ms for a duration in ns. */
const char *format_ms(uint64_t ns, char buf[static 32]);

/* analyze.c: the race findings of a merged trace (the oracle: see analyze.c). */
typedef enum finding_kind {
	FINDING_LATENT,
	FINDING_MANIFESTED,
} finding_kind_t;

/* What opened the window: a read that missed the write, or a command's return before it. */
typedef enum finding_rule {
	FINDING_RULE_READ,
	FINDING_RULE_RETURN,
} finding_rule_t;

typedef struct finding {
	finding_kind_t kind;
	finding_rule_t rule;
	uint64_t flow;      /* the object's instance */
	const char *fmri;   /* its FMRI (NULL if no event named it) */
	const char *object; /* the pg FMRI */
	bool open;          /* the write never came: the window runs to t_end */
	uint64_t start_ns;  /* the window: the read's request, or the return */
	uint64_t end_ns;    /* the racing write, or t_end when open */
	uint64_t return_ns; /* the causing command's return before the write, NS_NEVER if none */
	uint64_t pg_ns;     /* the racing write (configd's event), NS_NEVER if open */
	uint64_t read_ns;   /* the racing read's request, NS_NEVER if none */
	size_t start_idx;   /* events at the two ends of the window */
	size_t end_idx;     /* SIZE_MAX when open */
	size_t return_idx, read_idx; /* SIZE_MAX when none */
	uint32_t reader_pid;         /* 0 when no read */
	uint64_t read_generation;    /* 0: the read found the object absent */
	uint64_t cause_commit;       /* the commit the write descends from (0: unknown) */
	uint32_t cause_pid;
	const char *cause_request;
	uint64_t cause_ns;
	size_t cause_idx;      /* its configd.write, SIZE_MAX when unknown */
	uint64_t write_commit; /* the racing write: its commit id, writer, new generation */
	uint32_t writer_pid;
	uint64_t write_generation;
	bool write_created;
} finding_t;

typedef struct analysis {
	finding_t *findings; /* by window start */
	size_t n_findings;
	size_t n_instances, n_latent, n_manifested;
	size_t n_imported; /* instances an svccfg of this trace imported (daemons' files may hold more) */
	size_t n_reads;   /* reads judged (snapshot reads and failed reads aside) */
	size_t n_waits;   /* reads that missed a write and were waits */
	size_t n_commits; /* write requests configd numbered */
	size_t n_caused;  /* of those, the ones linked to a cause */
} analysis_t;

int trace_analyze(const trace_t *t, analysis_t *ret);
void analysis_done(analysis_t *a);
const char *finding_kind_name(finding_kind_t k);
const char *finding_rule_name(finding_rule_t r);
/* The finding about flow, or NULL. */
const finding_t *analysis_finding_of(const analysis_t *a, uint64_t flow);
static inline uint64_t finding_window_ns(const finding_t *f)
{
	return f->end_ns > f->start_ns ? f->end_ns - f->start_ns : 0;
}

/* The subcommands: argc/argv start at the subcommand's name; they return an exit status. */
int cmd_dump(int argc, char *argv[]);
int cmd_export(int argc, char *argv[]);
int cmd_check(int argc, char *argv[]);
int cmd_conform(int argc, char *argv[]);
int cmd_html(int argc, char *argv[]);

/* main.c: "usage: svctrace NAME ARGS" with NAME's synopsis from the command table; EXIT_USAGE. */
int usage_error(const char *name);
/* main.c: opens -o's file ("-" is stdout) for writing. */
int open_output(const char *path, FILE **ret);
/* main.c: loads DIR, printing the error; 0 or an exit status. */
int load_or_complain(const char *dir, trace_t *t);
/*
 * main.c: for check and conform, whose answers a harness acts on: the one operand DIR left
 * after getopt, loaded; 0, or the exit status (usage, no trace; out of memory is
 * EXIT_INTERNAL: no answer).
 */
int load_to_judge(int argc, char *argv[], const char *name, trace_t *t);
/*
 * main.c: "svctrace NAME DIR -o FILE [--fmri FMRI]": loads DIR and calls write(trace, fmri or
 * NULL, FILE), which returns 0, -ENOENT for an unknown FMRI (it said so), or -errno.
 * Returns the exit status.
 */
typedef int (*trace_writer_t)(const trace_t *t, const char *fmri, FILE *out);
int run_writer(int argc, char *argv[], const char *name, trace_writer_t write);

#endif
