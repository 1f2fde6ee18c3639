/*
 * trace-reader.h: reading the files the trace recorder (trace.h) wrote: walking a file's
 * events and strings, and the names of the event ids.  What svctrace and the tests link
 * (trace_reader_dep, lib/meson.build); the programs that only record never carry it.  The
 * format is docs/trace-format.md; the reader is lib/util/trace-read.c.
 */
#ifndef SMF_TRACE_READER_H
#define SMF_TRACE_READER_H

#include <stdint.h>

#include "trace.h"

/* "import.begin", "startd.state_change", ...; NULL for an unknown id. */
const char *smf_trace_event_name(uint16_t event);

typedef struct smf_trace_file_info {
	char prog[32];
	uint32_t pid;             /* of the process that created the file */
	uint32_t ppid, sid, pgid; /* its parent, session and process group then */
	uint32_t page_size;
	uint32_t npages; /* event pages in the file */
	uint32_t pages_used;
	uint64_t drops;     /* events lost because the file was full */
	uint64_t str_drops; /* strings not interned: the table was full (events kept, id 0) */
	uint64_t start_ns;  /* CLOCK_MONOTONIC at open */
} smf_trace_file_info_t;

typedef struct smf_trace_record {
	const smf_trace_file_info_t *file;
	uint64_t ns; /* CLOCK_MONOTONIC, comparable across the processes of one boot */
	uint64_t flow;
	uint32_t pid;
	uint32_t tid;
	uint32_t str_id;
	const char *str; /* the interned string, NULL if none or unreadable */
	uint64_t arg0, arg1;
	uint16_t event;
	uint32_t page;     /* index of the page it came from */
	uint32_t page_seq; /* n-th page claimed by this thread, from 0 */
} smf_trace_record_t;

/* Returns < 0 to stop the walk; smf_trace_read() then returns that value. */
typedef int (*smf_trace_read_cb)(const smf_trace_record_t *rec, void *userdata);

/*
 * Walks the file at path page by page and calls cb for every whole event: each thread's
 * events come in the order it wrote them (threads interleave page by page).  Works on the file
 * of a live process or of one killed at any instant.  0 or -errno (-EBADMSG: not a trace;
 * -EPROTONOSUPPORT: a trace of another format version, e.g. 1, which had no event arguments).
 */
int smf_trace_read(
        const char *path, smf_trace_read_cb cb, void *userdata, smf_trace_file_info_t *ret_info);

/* Calls cb(id, string) for every committed string of the table, in id order; 0 or -errno. */
typedef int (*smf_trace_string_cb)(uint32_t id, const char *s, void *userdata);
int smf_trace_read_strings(const char *path, smf_trace_string_cb cb, void *userdata);

#endif
